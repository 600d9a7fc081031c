#!/usr/bin/env python3
"""Benchmark of the lubricated slider-guide case (issue 4): runs
cases/slider_guide_lubricated.opts (by default the whole 100 ms) with -log_view and prints the
wall time and its split into element tangents and forces, film assembly (residual, Jacobian,
pattern), linear solves (Krylov with the kept LU, LU factorisations) and output, from PETSc's
event log.  Extra arguments go to tribodyn, e.g.

    tools/bench_slider_guide.py -t_final 0.01
    OMP_NUM_THREADS=1 tools/bench_slider_guide.py -refactor_its 0 -t_final 0.005

Run it after tools/run or tools/test have built build/tribodyn."""
import os
import re
import subprocess
import sys
import tempfile
import time

top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
exe = os.path.join(top, "build", "tribodyn")
if not os.path.exists(exe):
    sys.exit("tools/bench_slider_guide.py: %s not found; build first (tools/test or tools/run)" % exe)
out = os.path.join(tempfile.mkdtemp(prefix="tribodyn_bench_"), "bench.h5")
cmd = [exe, "-options_file", os.path.join(top, "cases", "slider_guide_lubricated.opts"), "-output", out,
       "-log_view", "-progress", "false"] + sys.argv[1:]
env = dict(os.environ)
env.setdefault("OPENBLAS_NUM_THREADS", "1")
t0 = time.time()
proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
wall = time.time() - t0
if proc.returncode != 0:
    sys.stderr.write(proc.stdout[-4000:] + proc.stderr[-4000:])
    sys.exit("tools/bench_slider_guide.py: tribodyn failed (exit %d)" % proc.returncode)
events = {}
for line in proc.stdout.splitlines():
    m = re.match(r"^(\w+)\s+(\d+)\s+[\d.]+\s+([\d.eE+-]+)\s", line)
    if m:
        events[m.group(1)] = (int(m.group(2)), float(m.group(3)))
total = re.search(r"^Time \(sec\):\s+([\d.eE+-]+)", proc.stdout, re.M)
total = float(total.group(1)) if total else wall
done = [l for l in proc.stdout.splitlines() if l.startswith("tribodyn: done")]
print(done[0] if done else "")
print("threads %s, wall %.1f s (PETSc log: %.1f s)" % (env.get("OMP_NUM_THREADS", "default"), wall, total))
rows = [("element tangents", ["TdElementTangent"]), ("element forces", ["TdElementForces"]),
        ("film residual (a solve's first: with the film Jacobian)", ["TdFilmResidual"]),
        ("film Jacobian (iterates without a fused residual)", ["TdFilmJacobian"]),
        ("film-body pattern (update, preallocation)", ["TdFilmPattern", "TdJacobianPattern"]),
        ("matrix assembly (COO values)", ["MatSetValuesCOO", "TdJacobianValues"]),
        ("linear solves: Krylov (MatSolve with the kept LU, MatMult)", ["KSPSolve"]),
        ("LU factorisations (PCSetUp)", ["PCSetUp"]), ("output records", ["TdOutput"])]
print("%-58s %8s %8s %7s" % ("event", "calls", "time [s]", "share"))
for name, evs in rows:
    calls = sum(events.get(e, (0, 0))[0] for e in evs)
    t = sum(events.get(e, (0, 0))[1] for e in evs)
    print("%-58s %8d %8.1f %6.1f%%" % (name, calls, t, 100 * t / total))
