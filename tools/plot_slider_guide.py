#!/usr/bin/python3
"""Plots of the slider-guide impact rig (formulation.md §7), like Liu et al. 2025 Figs. 6-8.

Reads results/slider_guide_dry.h5 and results/slider_guide_lubricated.h5 (whichever exist) and
writes, into results/ (or --outdir):

  acceleration_slider.png     vertical (z) acceleration of sensor `slider`, dry and lubricated
  acceleration_guide_mid.png  the same for sensor `guide_mid` (middle of the guide's bottom face)
  film_pressure_28ms.png      film pressure of the lubricated case at the record nearest 28 ms
                              (--time_ms T: film_pressure_<T>ms.png)

and prints the peak |a_z| of both sensors in the first 30 ms of each case, and the peak film
pressure and the smallest film height of the lubricated case.

    /usr/bin/python3 tools/plot_slider_guide.py [--dry FILE.h5] [--lubricated FILE.h5]
                                                [--outdir DIR] [--time_ms 28]

Exits with status 1 when neither result file exists.  A file still being written (status
`running`) or from a failed run is plotted up to its last complete record.
"""
import argparse
import os
import sys


TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "tools"))
from tdresults import plotting_modules  # noqa: E402

np, h5py, plt = plotting_modules("plot_slider_guide.py")
import matplotlib.ticker  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
SENSORS = ("slider", "guide_mid")
WINDOW = 0.030  # s: the paper compares the dry peaks over the first 30 ms (Fig. 6)
STYLE = {"dry": dict(color="tab:red", lw=0.8, alpha=0.75, zorder=2),
         "lubricated": dict(color="tab:blue", lw=0.8, alpha=0.9, zorder=3)}


def decode(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def load(path):
    """Time, sensor z accelerations and (if present) the first film, trimmed to complete records."""
    with h5py.File(path, "r") as f:
        status = decode(f.attrs.get("status", "unknown"))
        t = np.asarray(f["time"][:], dtype=float)
        lengths = [len(t)]
        acc = {}
        for s in SENSORS:
            key = f"sensors/{s}/acceleration"
            if key in f:
                acc[s] = np.asarray(f[key][:, 2], dtype=float)
                lengths.append(len(acc[s]))
        film = None
        # the full fields are written at /field_time (every -output_fields_dt), the rest at /time;
        # files before that layout have the fields at every record
        tf = np.asarray(f["field_time"][:], dtype=float) if "field_time" in f else None
        if "films" in f and len(f["films"]) > 0:
            name = sorted(f["films"].keys())[0]
            g = f["films"][name]
            film = {"name": name, "nodes": g["nodes"][:], "quads": g["quads"][:]}
            for k in ("pressure", "h", "asperity_pressure", "h_min", "p_max"):
                if k in g:
                    film[k] = g[k][:]
                    if k in ("h_min", "p_max") or tf is None:
                        lengths.append(len(film[k]))
    n = min(lengths)
    t = t[:n]
    acc = {s: a[:n] for s, a in acc.items()}
    if tf is None:
        tf = t
    if film:
        nf = min([len(tf)] + [len(film[k]) for k in ("pressure", "h", "asperity_pressure") if k in film])
        tf = tf[:nf]
        for k in ("pressure", "h", "asperity_pressure", "h_min", "p_max"):
            if k in film:
                film[k] = film[k][:n] if k in ("h_min", "p_max") else film[k][:nf]
    return {"path": path, "status": status, "t": t, "tf": tf, "acc": acc, "film": film}


def peak_in_window(t, a, t1=WINDOW):
    sel = t <= t1 + 1e-12
    if not np.any(sel):
        return float("nan"), float("nan")
    i = int(np.argmax(np.abs(a[sel])))
    return float(abs(a[sel][i])), float(t[sel][i])


def plot_acceleration(cases, sensor, out):
    fig, ax = plt.subplots(figsize=(9, 4.2), constrained_layout=True)
    drawn = 0
    for label, c in cases.items():
        if sensor not in c["acc"]:
            print(f"  {label}: no sensor '{sensor}' in {c['path']}; left out of {os.path.basename(out)}")
            continue
        t_ms = 1e3 * c["t"]
        pk, _ = peak_in_window(c["t"], c["acc"][sensor])
        text = f"{label}  (peak |a_z| in 0-30 ms: {pk:.0f} m/s²)"
        if c["status"] != "complete":
            text += f"  [{c['status'].split(':')[0]}, ends at {t_ms[-1]:.2f} ms]"
        ax.plot(t_ms, c["acc"][sensor], label=text, **STYLE[label])
        drawn += 1
    ax.axvspan(0, 10, color="0.85", zorder=0, lw=0)
    ax.text(5, 0.02, "hammer\n0-10 ms", transform=ax.get_xaxis_transform(), ha="center", va="bottom",
            fontsize=8, color="0.35")
    ax.axvline(30, color="0.5", ls=":", lw=0.8, zorder=1)
    ax.text(30.5, 0.02, "30 ms", transform=ax.get_xaxis_transform(), fontsize=8, color="0.35")
    ax.axhline(0, color="0.3", lw=0.5, zorder=1)
    ax.set_xlim(0, 100)
    ax.set_xlabel("time [ms]")
    ax.set_ylabel("vertical acceleration a_z [m/s²]")
    where = {"slider": "slider (centre of its top face)",
             "guide_mid": "guide middle (centre of its bottom face)"}[sensor]
    ax.set_title(f"Vibration acceleration of the {where}  (cf. Liu et al. 2025, Figs. 6-7)")
    ax.grid(True, lw=0.3, alpha=0.6)
    if drawn:
        ax.legend(loc="lower right", fontsize=9, framealpha=0.9)
    fig.savefig(out, dpi=150)
    plt.close(fig)
    print(f"  wrote {out}")


def surface_axes(nodes):
    """The two coordinate axes along which the film spreads most (a flat film: its plane)."""
    ext = np.ptp(nodes, axis=0)
    a, b = sorted(np.argsort(ext)[::-1][:2])
    return a, b


def plot_pressure(c, t_target, out):
    film = c["film"]
    t = c["tf"]  # the field records' times
    i = int(np.argmin(np.abs(t - t_target)))
    p = film["pressure"][i] / 1e6
    nodes, quads = film["nodes"], film["quads"].astype(int)
    a, b = surface_axes(nodes)
    names = "xyz"
    tris = np.concatenate([quads[:, [0, 1, 2]], quads[:, [0, 2, 3]]])
    tri = mtri.Triangulation(1e3 * nodes[:, a], 1e3 * nodes[:, b], tris)
    fig, ax = plt.subplots(figsize=(6.4, 5.4), constrained_layout=True)
    vmax = float(np.max(p)) if np.max(p) > 0 else 1.0
    vmin = min(0.0, float(np.min(p)))
    levels = np.linspace(vmin, vmax, 41) if vmax > vmin else 41
    cs = ax.tricontourf(tri, p, levels=levels, cmap="jet")
    ax.triplot(tri, color="k", lw=0.1, alpha=0.15) if len(quads) <= 400 else None
    jmax = int(np.argmax(p))
    ax.plot(1e3 * nodes[jmax, a], 1e3 * nodes[jmax, b], "w+", ms=9, mew=1.5)
    cb = fig.colorbar(cs, ax=ax, shrink=0.9, ticks=matplotlib.ticker.MaxNLocator(8))
    cb.set_label("film pressure p (gauge) [MPa]")
    ax.set_aspect("equal")
    ax.set_xlabel(f"{names[a]} [mm] (film reference frame)")
    ax.set_ylabel(f"{names[b]} [mm]")
    extra = ""
    if "h" in film:
        extra = f", h_min {1e6 * float(np.min(film['h'][i])):.2f} µm"
    ax.set_title(f"Film '{film['name']}' pressure at t = {1e3 * t[i]:.2f} ms\n"
                 f"peak (+) {float(np.max(p)):.3f} MPa{extra}  (cf. Liu et al. 2025, Fig. 8)", fontsize=10)
    fig.savefig(out, dpi=150)
    plt.close(fig)
    print(f"  wrote {out} (record {i}, t = {1e3 * t[i]:.3f} ms)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dry", default=os.path.join(TOP, "results", "slider_guide_dry.h5"))
    ap.add_argument("--lubricated", default=os.path.join(TOP, "results", "slider_guide_lubricated.h5"))
    ap.add_argument("--outdir", default=os.path.join(TOP, "results"))
    ap.add_argument("--time_ms", type=float, default=28.0, help="time of the pressure map [ms]")
    args = ap.parse_args()

    cases = {}
    for label, path in (("dry", args.dry), ("lubricated", args.lubricated)):
        if not os.path.isfile(path):
            print(f"plot_slider_guide.py: no {label} result {path}; skipped")
            continue
        try:
            c = load(path)
        except (OSError, KeyError) as e:
            print(f"plot_slider_guide.py: cannot read {path}: {e}; skipped", file=sys.stderr)
            continue
        if len(c["t"]) == 0:
            print(f"plot_slider_guide.py: {path} holds no record yet; skipped", file=sys.stderr)
            continue
        cases[label] = c
    if not cases:
        sys.exit("plot_slider_guide.py: no result file to plot: run tools/run (or tools/run "
                 f"slider_guide_dry / slider_guide_lubricated) first, or pass --dry/--lubricated "
                 f"(looked for {args.dry} and {args.lubricated})")
    os.makedirs(args.outdir, exist_ok=True)

    print("Peak vertical acceleration |a_z| in the first 30 ms (paper, dry: both near 400 m/s²):")
    for label, c in cases.items():
        t = c["t"]
        note = "" if c["status"] == "complete" else f"  [status: {c['status']}]"
        print(f"  {label:10s} {c['path']}: {len(t)} records, t = 0-{1e3 * t[-1]:.2f} ms{note}")
        for s in SENSORS:
            if s in c["acc"]:
                pk, tp = peak_in_window(t, c["acc"][s])
                print(f"    {s:10s} {pk:10.2f} m/s²  at {1e3 * tp:7.2f} ms")
            else:
                print(f"    {s:10s} (no such sensor)")

    for s in SENSORS:
        plot_acceleration(cases, s, os.path.join(args.outdir, f"acceleration_{s}.png"))

    lub = cases.get("lubricated")
    if lub is None:
        print("No lubricated result: no film pressure map.")
    elif lub["film"] is None or "pressure" not in lub["film"]:
        print(f"{lub['path']} has no /films: no film pressure map.")
    else:
        film = lub["film"]
        print(f"Lubricated film '{film['name']}':")
        if "p_max" in film:
            k = int(np.argmax(film["p_max"]))
            print(f"  peak film pressure {film['p_max'][k] / 1e6:.4f} MPa (gauge) at t = {1e3 * lub['t'][k]:.2f} ms")
        pmax = film["pressure"]
        k, j = np.unravel_index(int(np.argmax(pmax)), pmax.shape)
        print(f"  peak film pressure of the field records {pmax[k, j] / 1e6:.4f} MPa (gauge) at t = {1e3 * lub['tf'][k]:.2f} ms, "
              f"node {j} ({', '.join(f'{1e3 * v:.1f}' for v in film['nodes'][j])}) mm")
        hmin = film["h_min"] if "h_min" in film else np.min(film["h"], axis=1) if "h" in film else None
        if hmin is not None and len(hmin):
            k = int(np.argmin(hmin))
            print(f"  minimum film height {1e6 * hmin[k]:.3f} µm at t = {1e3 * lub['t'][k]:.2f} ms")
        if "asperity_pressure" in film:
            print(f"  peak asperity pressure {np.max(film['asperity_pressure']) / 1e6:.4f} MPa")
        if lub["t"][-1] + 1e-9 < 1e-3 * args.time_ms:
            print(f"  note: the run ends at {1e3 * lub['t'][-1]:.2f} ms, before {args.time_ms} ms; "
                  "the map shows its last record")
        plot_pressure(lub, 1e-3 * args.time_ms,
                      os.path.join(args.outdir, f"film_pressure_{args.time_ms:g}ms.png"))


if __name__ == "__main__":
    main()
