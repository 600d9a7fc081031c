#!/usr/bin/python3
"""Plots of the slider-crank with a revolute clearance joint between the connecting rod and the
slider: ideal, dry (formulation (F24)) or lubricated (a journal film, F25)
(cases/slider_crank_ideal.opts, cases/slider_crank_dry.opts, cases/slider_crank_film.opts).

    tools/run slider_crank_ideal; tools/run slider_crank_dry; tools/run slider_crank_film
    /usr/bin/python3 tools/plot_slider_crank.py [--ideal FILE.h5] [--dry FILE.h5] [--film FILE.h5]
                                                [--outdir DIR] [--revolutions 2]

Reads results/slider_crank_{ideal,dry,film}.h5 (whichever exist; at least one) and writes into
results/ (or --outdir):

  slider_crank_acceleration.png  the slider's acceleration against the crank angle over the last
                                 --revolutions crank turns, every case, with the closed-form
                                 acceleration of the ideal mechanism
  slider_crank_reaction.png      the force of joint C on the connecting rod (its magnitude; with a
                                 film, the film's load on the slider's bore)
  slider_crank_orbit.png         the pin centre's path relative to the hole inside the clearance
                                 circle (clearance-joint and film cases), in micrometres

and prints, per case: simulated time, steps, wall time, Newton iterations per step, the peak
slider acceleration and joint force, and for a clearance joint the largest penetration and the
share of records in contact, for a film the peak film pressure and the smallest film height.
Exits with status 1 when no file exists.
"""
import argparse
import os
import sys


TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
from tdresults import option, plotting_modules  # noqa: E402

np, h5py, plt = plotting_modules("plot_slider_crank.py")

CRANK, ROD, RPM = 0.05, 0.12, 5000.0


def closed_form_acceleration(theta, w):
    s = np.sqrt(ROD ** 2 - (CRANK * np.sin(theta)) ** 2)
    return w * w * (-CRANK * np.cos(theta) - CRANK ** 2 * np.cos(2 * theta) / s - CRANK ** 4 * np.sin(2 * theta) ** 2 / (4 * s ** 3))


def summary(label, f):
    t = np.array(f["time"])
    n = len(t)
    dt = float(option(f, "dt", "nan"))
    steps = int(round(t[-1] / dt)) if dt == dt else 0
    newton = np.array(f["solver/newton_iterations"]).sum()
    a = np.array(f["sensors/slider_centre/acceleration"])[:, 0]
    F = joint_force(f)
    line = (f"{label}: {t[-1] * 1e3:.1f} ms, {steps} steps (dt {dt:g} s), wall {f['solver/wall_time'][n - 1]:.1f} s, "
            f"{newton / max(steps, 1):.2f} Newton iterations per step; peak |a_slider| {np.abs(a).max():.4g} m/s^2, "
            f"peak joint force {F.max():.4g} N")
    if "joints/C/penetration" in f:
        d = np.array(f["joints/C/penetration"])
        line += f"; largest penetration {d.max() * 1e6:.2f} um, in contact in {100 * (d > 0).mean():.0f} % of the records"
    if "films/C/p_max" in f:
        line += (f"; peak film pressure {np.array(f['films/C/p_max']).max() / 1e6:.2f} MPa, "
                 f"smallest film height {np.array(f['films/C/h_min']).min() * 1e6:.2f} um")
    print(line)


def joint_force(f):
    """|force of joint C|: the joint's reaction, or a film's load on the slider's bore."""
    if "joints/C/reaction" in f:
        return np.linalg.norm(np.array(f["joints/C/reaction"]), axis=1)
    return np.linalg.norm(np.array(f["films/C/load"]), axis=1)


def eccentricity(f):
    """The pin centre's offset from the hole's axis [m]: a clearance joint's output, or for a film
    from the frames of the rod and the slider (the pin and the bore centred on C at the start)."""
    if "joints/C/eccentricity" in f:
        return np.array(f["joints/C/eccentricity"])
    C = np.array([0.17, 0.0, 0.0])
    pts = []
    for body in ("rod", "slider"):
        fr = np.array(f[f"bodies/{body}/frame"])
        com = np.array(f[f"bodies/{body}/center_of_mass"]).ravel()
        pts.append(fr[:, :3] + sum((C - com)[k] * fr[:, 3 + 3 * k:6 + 3 * k] for k in range(3)))
    return pts[0] - pts[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ideal", default=os.path.join(TOP, "results", "slider_crank_ideal.h5"))
    ap.add_argument("--dry", default=os.path.join(TOP, "results", "slider_crank_dry.h5"))
    ap.add_argument("--film", default=os.path.join(TOP, "results", "slider_crank_film.h5"))
    ap.add_argument("--outdir", default=os.path.join(TOP, "results"))
    ap.add_argument("--revolutions", type=float, default=2.0, help="crank turns plotted, the last ones of the run")
    args = ap.parse_args()
    cases = [(lab, p) for lab, p in (("ideal joint", args.ideal), ("dry clearance joint", args.dry), ("lubricated clearance joint", args.film))
             if os.path.exists(p)]
    if not cases:
        print(f"plot_slider_crank.py: no result file ({args.ideal}, {args.dry}, {args.film}); run tools/run slider_crank_ideal, "
              "slider_crank_dry or slider_crank_film first", file=sys.stderr)
        return 1
    os.makedirs(args.outdir, exist_ok=True)
    w = RPM * 2 * np.pi / 60
    fa, axa = plt.subplots(figsize=(8, 4.5))
    fr, axr = plt.subplots(figsize=(8, 4.5))
    fo, axo = plt.subplots(figsize=(5.5, 5.5))
    orbit = False
    for label, path in cases:
        with h5py.File(path, "r") as f:
            summary(label, f)
            t = np.array(f["time"])
            start = max(t[-1] - args.revolutions * 2 * np.pi / w, 0.0)
            keep = t >= start - 1e-9
            deg = np.degrees(w * t[keep]) - 360 * np.round(np.degrees(w * start) / 360)
            a = np.array(f["sensors/slider_centre/acceleration"])[keep, 0]
            F = joint_force(f)[keep]
            axa.plot(deg, a / 1e3, lw=0.8, label=label)
            axr.plot(deg, F, lw=0.8, label=label)
            if "joints/C/eccentricity" in f or "films/C/load" in f:
                e = eccentricity(f)[keep] * 1e6
                c = float(option(f, "C_clearance", "nan")) * 1e6
                if c != c:  # a film: the bore's radius minus the pin's
                    c = 1e6 * (float(option(f, "slider_cylinder").split(",")[6]) - float(option(f, "rod_cylinder").split(",")[6]))
                axo.plot(e[:, 0], e[:, 1], lw=0.6, label=label)
                ph = np.linspace(0, 2 * np.pi, 361)
                axo.plot(c * np.cos(ph), c * np.sin(ph), "k--", lw=0.8)
                orbit = True
    tt = np.linspace(0, args.revolutions * 2 * np.pi, 2000)
    axa.plot(np.degrees(tt), closed_form_acceleration(tt, w) / 1e3, "k:", lw=1, label="closed form (ideal)")
    axa.set_xlabel("crank angle [deg]")
    axa.set_ylabel("slider acceleration [km/s$^2$]")
    axa.legend()
    axa.set_title("Slider-crank, 5000 r/min")
    fa.tight_layout()
    fa.savefig(os.path.join(args.outdir, "slider_crank_acceleration.png"), dpi=150)
    axr.set_xlabel("crank angle [deg]")
    axr.set_ylabel("|force of joint C on the rod| [N]")
    axr.legend()
    fr.tight_layout()
    fr.savefig(os.path.join(args.outdir, "slider_crank_reaction.png"), dpi=150)
    written = ["slider_crank_acceleration.png", "slider_crank_reaction.png"]
    if orbit:
        axo.set_aspect("equal")
        axo.set_xlabel("e_x [um]")
        axo.set_ylabel("e_y [um]")
        axo.set_title("Pin centre in the clearance circle")
        axo.legend(loc="upper right", fontsize=8)
        fo.tight_layout()
        fo.savefig(os.path.join(args.outdir, "slider_crank_orbit.png"), dpi=150)
        written.append("slider_crank_orbit.png")
    print("plot_slider_crank.py: wrote " + ", ".join(os.path.join(args.outdir, w_) for w_ in written))
    return 0


if __name__ == "__main__":
    sys.exit(main())
