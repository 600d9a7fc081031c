#!/usr/bin/python3
"""Plots of the flexible journal bearing (cases/journal_bearing_flexible.opts, and the same
bearing with a rigid bushing, cases/journal_bearing_rigid.opts).

    tools/run journal_bearing_flexible; tools/run journal_bearing_rigid
    /usr/bin/python3 tools/plot_journal_bearing.py [--flexible FILE.h5] [--rigid FILE.h5]
                                                   [--outdir DIR] [--times_ms 10,30,50]
                                                   [--clearance_um 50]

Reads results/journal_bearing_flexible.h5 and results/journal_bearing_rigid.h5 (whichever
exist; at least one) and writes into results/ (or --outdir):

  journal_orbit.png          the journal centre (the mean of sensors j1 and j2, two opposite
                             points of its bore) inside the clearance circle, in micrometres
  journal_film_<T>ms.png     film pressure and film fraction unrolled (angle around the bore
                             against the axial position) at the field records nearest T ms
                             (flexible bushing, else rigid)
  journal_hmin.png           the minimum film height against time, rigid and flexible bushing

and prints, per case: wall time, steps, Newton iterations per step, the peak film pressure,
the smallest h_min after the drive's ramp, and the eccentricity ratio over the last revolution.
Exits with status 1 when neither file exists.
"""
import argparse
import os
import sys


TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
from tdresults import option, plotting_modules  # noqa: E402

np, h5py, plt = plotting_modules("plot_journal_bearing.py")
import matplotlib.tri as mtri  # noqa: E402


def centre(f):
    t = f["time"][:]
    c = 0.5 * (f["sensors/j1/position"][:] + f["sensors/j2/position"][:])
    return t, c


def summary(label, f):
    t, c = centre(f)
    n = len(t)
    newton = f["solver/newton_iterations"][:n].sum()
    dt = float(option(f, "dt", "nan"))
    steps = int(round(t[-1] / dt)) if dt == dt else 0
    ramp = float(option(f, "spin_ramp", "0"))
    rpm = float(option(f, "spin_rpm", "0"))
    hmin = f["films/film/h_min"][:n]
    after = t >= ramp if t[-1] >= ramp else np.ones_like(t, dtype=bool)
    last = t >= t[-1] - (60.0 / rpm if rpm else 0)
    ecc = np.hypot(c[last, 0], c[last, 1])
    print(f"{label}: {t[-1] * 1e3:.1f} ms, {steps} steps, wall {f['solver/wall_time'][n - 1]:.1f} s, "
          f"{newton / max(steps, 1):.2f} Newton iterations per step")
    print(f"  peak film pressure {f['films/film/p_max'][:n].max() / 1e6:.3f} MPa, smallest h_min after the ramp "
          f"{1e6 * hmin[after].min():.2f} um, eccentricity over the last revolution {1e6 * ecc.min():.1f} to {1e6 * ecc.max():.1f} um")
    return t, c


def unrolled(f, tms, out, label):
    X = f["films/film/nodes"][:]
    quads = f["films/film/quads"][:]
    ft = f["field_time"][:]
    k = int(np.argmin(np.abs(ft - tms * 1e-3)))
    ang = np.degrees(np.arctan2(X[:, 1], X[:, 0])) % 360.0
    z = 1e3 * X[:, 2]
    tris = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    span = ang[tris].max(axis=1) - ang[tris].min(axis=1)
    tri = mtri.Triangulation(ang, z, tris[span < 180])  # drop the triangles across the seam
    fig, axes = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    fields = [("pressure", f["films/film/pressure"][k] / 1e6, "pressure [MPa]", "viridis")]
    if "films/film/film_fraction" in f:
        fields.append(("film_fraction", f["films/film/film_fraction"][k], "film fraction theta", "magma"))
    for ax, (name, v, lab, cmap) in zip(axes, fields):
        lo, hi = float(v.min()), float(v.max())
        if hi - lo < 1e-9 * max(abs(hi), 1.0):  # a uniform field (a full film: theta = 1)
            lo, hi = lo - 0.5e-3 * max(abs(lo), 1.0), hi + 0.5e-3 * max(abs(hi), 1.0)
        cs = ax.tricontourf(tri, v, levels=np.linspace(lo, hi, 25), cmap=cmap, extend="both")
        fig.colorbar(cs, ax=ax, label=lab)
        ax.set_ylabel("z [mm]")
    axes[-1].set_xlabel("angle from +x, counter-clockwise [deg]")
    axes[0].set_title(f"{label}: film unrolled at t = {ft[k] * 1e3:.1f} ms")
    fig.tight_layout()
    path = os.path.join(out, f"journal_film_{tms:g}ms.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--flexible", default=os.path.join(TOP, "results", "journal_bearing_flexible.h5"))
    ap.add_argument("--rigid", default=os.path.join(TOP, "results", "journal_bearing_rigid.h5"))
    ap.add_argument("--outdir", default=os.path.join(TOP, "results"))
    ap.add_argument("--times_ms", default="10,30,50")
    ap.add_argument("--clearance_um", type=float, default=50.0)
    a = ap.parse_args()
    cases = [(lab, p) for lab, p in (("flexible bushing", a.flexible), ("rigid bushing", a.rigid)) if os.path.exists(p)]
    if not cases:
        print(f"plot_journal_bearing.py: neither {a.flexible} nor {a.rigid} exists; run tools/run journal_bearing_flexible "
              "(and journal_bearing_rigid) first", file=sys.stderr)
        return 1
    os.makedirs(a.outdir, exist_ok=True)
    files = {lab: h5py.File(p, "r") for lab, p in cases}
    written = []
    fig_o, ax_o = plt.subplots(figsize=(6, 6))
    fig_h, ax_h = plt.subplots(figsize=(8, 4))
    th = np.linspace(0, 2 * np.pi, 361)
    ax_o.plot(a.clearance_um * np.cos(th), a.clearance_um * np.sin(th), "k-", lw=1, label="clearance circle")
    for lab, f in files.items():
        t, c = summary(lab, f)
        ax_o.plot(1e6 * c[:, 0], 1e6 * c[:, 1], lw=1, label=lab)
        ax_h.plot(1e3 * t, 1e6 * f["films/film/h_min"][:len(t)], lw=1, label=lab)
    ax_o.set_aspect("equal")
    ax_o.set_xlabel("x [um]")
    ax_o.set_ylabel("y [um]")
    ax_o.set_title("journal centre orbit")
    ax_o.legend(loc="upper right", fontsize=8)
    fig_o.tight_layout()
    written.append(os.path.join(a.outdir, "journal_orbit.png"))
    fig_o.savefig(written[-1], dpi=120)
    ax_h.set_xlabel("t [ms]")
    ax_h.set_ylabel("h_min [um]")
    ax_h.set_title("minimum film height")
    ax_h.legend(fontsize=8)
    ax_h.grid(alpha=0.3)
    fig_h.tight_layout()
    written.append(os.path.join(a.outdir, "journal_hmin.png"))
    fig_h.savefig(written[-1], dpi=120)
    lab0 = cases[0][0]
    for tms in (float(x) for x in a.times_ms.split(",") if x.strip()):
        written.append(unrolled(files[lab0], tms, a.outdir, lab0))
    for p in written:
        print("wrote", p)
    return 0


if __name__ == "__main__":
    sys.exit(main())
