#!/usr/bin/python3
"""Refinement study of a tribodyn case through options, without editing the case file.

    /usr/bin/python3 tools/convergence.py --case cases/slider_guide_lubricated.opts \\
        --param dt --levels 1e-4,5e-5,2.5e-5 [--t_final 0.03] [--np 2] [--sensor slider]

--param selects what is refined; levels go from coarse to fine:

  dt           -dt L                      (spacing h = L); records are written every
                                          max(levels) s (-output_dt) so that every level is
                                          sampled at the same instants
  film_cells   -<film>_cells N,N          (h = 1/N; --film names the film, default: the first
                                          name in the case's -films, else `film`)
  guide_cells  -guide_cells NX,NY,NZ      (a level is NXxNYxNZ, e.g. 34x5x1, or NX alone with NY,NZ
                                          from the case file; h = 1/NX)
  mesh         several cell counts refined together, one level being their values joined by
               '/' in the order of --mesh_options (default: -<film>_cells, then -<body>_cells of
               every body of the case that sets it), e.g. for the slider-guide case
               40x40/34x5x1/4x4x3 (film, guide, slider_block); h = 1/(the first count)
  any other    -<param> L                 (h = L if the name ends in dt, else 1/L)

Each level runs build/tribodyn (--tribodyn to change it) writing
results/convergence_<param>_<level>.h5 (and a .log beside it), then the script prints per level
the peak |a_z| of the sensor (--sensor, default slider) and the film's peak pressure (skipped
when the file has no /films), the change between successive levels, and the observed order
p = log(|d1|/|d2|)/log(r), r the refinement ratio (for unequal ratios, the root of
|d1/d2| = r2^p (r1^p - 1)/(r2^p - 1)), with a Richardson estimate of the limit.
Options after `--` go to every run (e.g. -- -snes_converged_reason).  --analyse_only reads the
files of an earlier series instead of running.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import time

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")

try:
    import numpy as np  # noqa: E402
    import h5py  # noqa: E402
except ImportError as e:  # pragma: no cover
    sys.exit(f"convergence.py: needs numpy and h5py ({e}); run it with /usr/bin/python3 "
             "(Debian: apt-get install python3-numpy python3-h5py)")

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def die(msg):
    sys.exit(f"convergence.py: {msg}")


def case_options(path):
    """Option -> value (last wins) of a PETSc options file, comments stripped."""
    opts = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line.startswith("-"):
                continue
            parts = line.split(None, 1)
            opts[parts[0][1:]] = parts[1].strip() if len(parts) > 1 else ""
    return opts


def mesh_option_names(case, film, given):
    """The cell-count options that --param mesh refines together, in level order."""
    if given:
        return [n.strip().lstrip("-") for n in given.split(",") if n.strip()]
    names = [f"{film}_cells"]
    for body in [b.strip() for b in case.get("bodies", "").split(",") if b.strip()]:
        if f"{body}_cells" in case:
            names.append(f"{body}_cells")
    return names


def level_options(param, level, case, film, mesh_names=None):
    """(option list, spacing h, file tag) of one level."""
    tag = re.sub(r"[^0-9A-Za-z.+-]", "x", level)
    try:
        if param == "mesh":
            parts = level.split("/")
            if len(parts) != len(mesh_names):
                die(f"level '{level}' gives {len(parts)} cell counts for {len(mesh_names)} options "
                    f"({', '.join('-' + n for n in mesh_names)}); join one per option with '/'")
            opts = []
            for name, part in zip(mesh_names, parts):
                n = [int(p) for p in re.split(r"[x:,]", part)]
                if min(n) < 1:
                    raise ValueError
                opts += [f"-{name}", ",".join(map(str, n))]
            return opts, 1.0 / int(re.split(r"[x:,]", parts[0])[0]), tag
        if param == "dt":
            v = float(level)
            return ["-dt", level], v, tag
        if param == "film_cells":
            n = int(level)
            return [f"-{film}_cells", f"{n},{n}"], 1.0 / n, tag
        if param == "guide_cells":
            parts = re.split(r"[x:]", level)
            if len(parts) == 1:
                base = case.get("guide_cells", "1,1,1").split(",")
                parts = [parts[0]] + base[1:3]
            if len(parts) != 3:
                raise ValueError
            n = [int(p) for p in parts]
            return ["-guide_cells", ",".join(map(str, n))], 1.0 / n[0], tag
        v = float(re.split(r"[x:,]", level)[0])
        value = level.replace("x", ",").replace(":", ",")
        return [f"-{param}", value], (v if param.endswith("dt") else 1.0 / v), tag
    except ValueError:
        die(f"level '{level}' does not fit --param {param} (see --help)")


def peak_metrics(path, sensor, film, window):
    """Peak |a_z| of the sensor and peak film pressure (None if absent) over t <= window."""
    out = {"status": "missing", "records": 0, "t_end": float("nan"), "a": None, "t_a": None,
           "p": None, "t_p": None, "newton": None}
    if not os.path.isfile(path):
        return out
    with h5py.File(path, "r") as f:
        out["status"] = f.attrs.get("status", b"unknown")
        if isinstance(out["status"], bytes):
            out["status"] = out["status"].decode()
        t = f["time"][:]
        key = f"sensors/{sensor}/acceleration"
        if key not in f:
            have = ", ".join(sorted(f["sensors"].keys())) if "sensors" in f else "none"
            die(f"{path} has no sensor '{sensor}' (sensors: {have}); choose one with --sensor")
        a = f[key][:, 2]
        n = min(len(t), len(a))
        p = None
        if "films" in f and len(f["films"]) > 0:
            name = film if film in f["films"] else sorted(f["films"].keys())[0]
            g = f["films"][name]
            if "p_max" in g:  # the peak nodal pressure of every record
                p = g["p_max"][:]
                n = min(n, len(p))
            elif "pressure" in g:  # files before the lean layout: the fields of every record
                p = g["pressure"][:]
                n = min(n, len(p))
        if "solver/newton_iterations" in f:
            out["newton"] = int(np.sum(f["solver/newton_iterations"][:n]))
        if "solver/wall_time" in f and len(f["solver/wall_time"]) > 0:
            # the run's own clock (a restarted run continues it): the wall time of a series read
            # with --analyse_only, or of a level run by hand
            out["wall_file"] = float(f["solver/wall_time"][-1])
    t, a = t[:n], a[:n]
    out["records"] = n
    if n == 0:
        return out
    out["t_end"] = float(t[-1])
    sel = t <= window + 1e-12 if window else np.ones(n, bool)
    i = int(np.argmax(np.abs(a[sel])))
    out["a"], out["t_a"] = float(abs(a[sel][i])), float(t[sel][i])
    if p is not None:
        ps = p[:n][sel]
        k = np.unravel_index(int(np.argmax(ps)), ps.shape)[0]  # p_max (n) or pressure (n x m)
        out["p"], out["t_p"] = float(np.max(ps)), float(t[sel][k])
    return out


def observed_order(q, h):
    """Observed order and Richardson limit from the last three levels (None if undefined)."""
    d1, d2 = q[-2] - q[-3], q[-1] - q[-2]
    r1, r2 = h[-3] / h[-2], h[-2] / h[-1]
    if d1 == 0 or d2 == 0 or r1 <= 1 or r2 <= 1:
        return None, None, ""
    note = " (oscillating)" if d1 * d2 < 0 else ""
    ratio = abs(d1 / d2)
    if abs(r1 / r2 - 1) < 1e-6:
        p = math.log(ratio) / math.log(r2)
    else:  # unequal ratios: d1/d2 = r2^p (r1^p - 1)/(r2^p - 1), solved by bisection
        f = lambda p: p * math.log(r2) + math.log((r1 ** p - 1) / (r2 ** p - 1)) - math.log(ratio)  # noqa: E731
        lo, hi = 1e-3, 20.0
        if f(lo) * f(hi) > 0:
            return None, None, " (no order fits)"
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if f(lo) * f(mid) > 0 else (lo, mid)
        p = 0.5 * (lo + hi)
    limit = q[-1] + d2 / (r2 ** p - 1) if p > 0 and not note else None
    return p, limit, note


def fmt(v, spec):
    return "-" if v is None else format(v, spec)


def main():
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        k = argv.index("--")
        argv, extra = argv[:k], argv[k + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("--case", required=True, help="options file of the case")
    ap.add_argument("--param", required=True, help="dt, film_cells, guide_cells, mesh, or another option")
    ap.add_argument("--mesh_options", help="with --param mesh: the cell-count options, comma-separated "
                    "(default: <film>_cells, then <body>_cells of the case's bodies that set it)")
    ap.add_argument("--levels", required=True, help="comma-separated, coarse to fine")
    ap.add_argument("--t_final", type=float, help="shorten every run to this end time [s]")
    ap.add_argument("--np", type=int, default=1, help="MPI ranks per run (mpiexec -n)")
    ap.add_argument("--sensor", default="slider", help="sensor whose peak |a_z| is tracked")
    ap.add_argument("--film", help="film name (default: first of the case's -films, else film)")
    ap.add_argument("--window", type=float, help="peaks over t <= WINDOW only [s] (default: the run)")
    ap.add_argument("--tribodyn", default=os.path.join(TOP, "build", "tribodyn"), help="program")
    ap.add_argument("--outdir", default=os.path.join(TOP, "results"), help="where the files go")
    ap.add_argument("--analyse_only", action="store_true", help="read an earlier series, run nothing")
    args = ap.parse_args(argv)

    case_path = args.case
    if not os.path.isfile(case_path) and os.path.isfile(os.path.join(TOP, case_path)):
        case_path = os.path.join(TOP, case_path)
    if not os.path.isfile(case_path):
        die(f"no case file {args.case}")
    # the runs start in the top directory (for the case files' relative paths): every path the
    # user gave relative to where they are is made absolute first
    case_path = os.path.abspath(case_path)
    args.outdir = os.path.abspath(args.outdir)
    if os.sep in args.tribodyn:
        args.tribodyn = os.path.abspath(args.tribodyn)
    case = case_options(case_path)
    film = args.film or (case.get("films", "film").split(",")[0] or "film")
    levels = [s.strip() for s in args.levels.split(",") if s.strip()]
    if len(levels) < 2:
        die("give at least two --levels (three for an observed order)")
    mesh_names = mesh_option_names(case, film, args.mesh_options) if args.param == "mesh" else None
    if args.param == "mesh":
        print(f"--param mesh: a level sets {', '.join('-' + n for n in mesh_names)}", flush=True)
    plan = [level_options(args.param, lv, case, film, mesh_names) for lv in levels]
    hs = [h for _, h, _ in plan]
    if any(h2 >= h1 for h1, h2 in zip(hs, hs[1:])):
        die(f"--levels must go from coarse to fine (spacings {hs})")
    common = []
    if args.t_final is not None:
        common += ["-t_final", repr(args.t_final)]
    if args.param == "dt":  # sample every level at the same instants
        common += ["-output_dt", repr(max(float(lv) for lv in levels))]
    if not args.analyse_only and not os.access(args.tribodyn, os.X_OK):
        die(f"no program {args.tribodyn} (build it, or pass --tribodyn)")
    os.makedirs(args.outdir, exist_ok=True)

    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    launcher = ["mpiexec", "-n", str(args.np)] if args.np > 1 else []

    rows = []
    for (opts, h, tag), lv in zip(plan, levels):
        out = os.path.join(args.outdir, f"convergence_{args.param}_{tag}.h5")
        wall, rc = None, 0
        if not args.analyse_only:
            cmd = launcher + [args.tribodyn, "-options_file", case_path, "-output", out] + common + opts + extra
            log = os.path.splitext(out)[0] + ".log"
            print(f"[{args.param} = {lv}] {' '.join(cmd)}", flush=True)
            t0 = time.time()
            with open(log, "w") as lf:
                rc = subprocess.call(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env, cwd=TOP)
            wall = time.time() - t0
            if rc != 0:
                with open(log) as lf:
                    lines = [ln.rstrip() for ln in lf if "PETSC ERROR" in ln and "Option left" not in ln]
                why = next((ln.split("PETSC ERROR:", 1)[1].strip() for ln in lines
                            if not re.search(r"-{5}|Missing|See https|Petsc Release|Configure|#\d+ |tribodyn on a", ln)), "")
                print(f"   run failed (exit {rc}){': ' + why if why else ''}; see {log}", flush=True)
        m = peak_metrics(out, args.sensor, film, args.window)
        m.update(level=lv, h=h, wall=wall if wall is not None else m.get("wall_file"), rc=rc, file=out)
        rows.append(m)

    # ---- table ----
    span = f"t <= {args.window:g} s" if args.window else "whole run"
    print(f"\nRefinement of {args.param} in {os.path.relpath(case_path, TOP)}; peaks over {span}"
          f"{'; records every ' + common[common.index('-output_dt') + 1] + ' s' if '-output_dt' in common else ''}")
    has_p = any(r["p"] is not None for r in rows)
    lw = max([10] + [len(r["level"]) for r in rows])
    head = f"{'level':>{lw}} {'records':>7} {'t_end[s]':>9} {'status':>10} {'Newton':>7} {'wall[s]':>8} | " \
           f"{'peak|a_z| ' + args.sensor:>22} {'at[ms]':>7} {'change':>11} {'order':>6}"
    if has_p:
        head += f" | {'peak p [MPa]':>12} {'change':>11} {'order':>6}"
    print(head)
    print("-" * len(head))
    series = {"a": [], "p": []}
    for i, r in enumerate(rows):
        ok = r["status"] == "complete"
        line = (f"{r['level']:>{lw}} {r['records']:>7} {r['t_end']:>9.4g} {r['status'].split(':')[0][:10]:>10} "
                f"{fmt(r['newton'], 'd'):>7} {fmt(r['wall'], '.1f'):>8} | ")
        for key, scale, width in (("a", 1.0, 22), ("p", 1e-6, 12)):
            if key == "p" and not has_p:
                continue
            v = r[key] * scale if r[key] is not None and ok else None
            series[key].append(v)
            s = series[key]
            d = s[-1] - s[-2] if len(s) >= 2 and None not in s[-2:] else None
            order = None
            if len(s) >= 3 and None not in s[-3:]:
                hh = [x["h"] for x in rows[i - 2:i + 1]]
                order, _, _ = observed_order(s[-3:], hh)
            line += f"{fmt(v, '.6g'):>{width}} "
            if key == "a":
                line += f"{fmt(1e3 * r['t_a'] if v is not None else None, '.2f'):>7} "
            line += f"{fmt(d, '+.4g'):>11} {fmt(order, '.2f'):>6}"
            if key == "a" and has_p:
                line += " | "
        print(line)
    print()
    for key, name, unit in (("a", f"peak |a_z| of {args.sensor}", "m/s^2"), ("p", "peak film pressure", "MPa")):
        s = series[key]
        if key == "p" and not has_p:
            print("No /films in the result files: film quantities skipped.")
            continue
        if len(s) >= 3 and None not in s[-3:]:
            p, lim, note = observed_order(s[-3:], [r["h"] for r in rows[-3:]])
            if p is None:
                print(f"{name}: no observed order{note} (a change is zero)")
            else:
                r1 = rows[-3]["h"] / rows[-2]["h"]
                r2 = rows[-2]["h"] / rows[-1]["h"]
                rr = f"r = {r2:g}" if abs(r1 / r2 - 1) < 1e-6 else f"r = {r1:g}, {r2:g}"
                print(f"{name}: observed order {p:.2f}{note} ({rr}) from the last three levels"
                      + (f"; Richardson limit {lim:.6g} {unit}" if lim is not None else ""))
        elif any(v is None for v in s):
            print(f"{name}: some levels did not complete; no order")
    failed = [r["level"] for r in rows if r["status"] != "complete"]
    if failed:
        print(f"Levels without a complete run: {', '.join(failed)} (status in the table; logs beside the files)")
        sys.exit(1)


if __name__ == "__main__":
    main()
