"""1 and 2 MPI ranks, 1 and 2 OpenMP threads give the same sensor histories (to solver
tolerance) on a dynamic run with a drive, a pin, gravity and damping."""
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

args = tdrun.PLATE_PIN_TAP + ["-loads", "tap", "-sensors", "end,mid", "-mid_body", "plate", "-mid_point", "0.1,0.04,0.005",
                              "-t_final", "4e-3", "-dt", "1e-4", "-snes_rtol", "1e-12"]
checks = tdrun.Checks("Same histories with 1/2 ranks and 1/2 threads")
runs = {}
for nproc, threads in ((1, 1), (2, 1), (1, 2), (2, 2)):
    out, _ = tdrun.run(args, nproc=nproc, threads=threads, name="n%dt%d" % (nproc, threads))
    runs[(nproc, threads)] = np.concatenate([tdrun.sensor(out, s, q)[1].ravel() for s in ("end", "mid") for q in ("displacement", "acceleration")])
base = runs[(1, 1)]
scale = np.max(np.abs(base))
for key, val in runs.items():
    if key == (1, 1):
        continue
    diff = np.max(np.abs(val - base)) / scale
    checks.true("ranks %d threads %d vs 1/1: max rel. difference %.2e <= 1e-6" % (key[0], key[1], diff), diff <= 1e-6)
checks.finish()
