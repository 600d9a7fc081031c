"""The lubricated slider-guide rig (cases/slider_guide_lubricated.opts, 0-100 ms) with
mass-conserving JFO cavitation against Swift-Stieber, side by side: peak |a_z| of the slider and
guide sensors, peak film pressure, smallest film height (label slow: two 100 ms runs, side by
side, about 4 minutes here).  Checks: both runs complete; JFO keeps theta within [0, 1] (to
the Newton tolerance) and its film cavitates (theta < 1 somewhere); JFO keeps Newton at a few
iterations per step (at most 1.5 on average)."""
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tdrun  # noqa: E402

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
case = os.path.join(src, "cases", "slider_guide_lubricated.opts")
work = tdrun.workdir(prefix="tribodyn_jfo_rig_")
checks = tdrun.Checks("Slider-guide rig, 0-100 ms: JFO against Swift-Stieber")
procs = {}
for cav in ("swift_stieber", "jfo"):
    out = os.path.join(work, cav + ".h5")
    procs[cav] = (out, subprocess.Popen([tdrun.EXE, "-options_file", case, "-film_cavitation", cav, "-output", out, "-progress", "false"],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=dict(os.environ, OMP_NUM_THREADS="1")))
rows = {}
for cav, (out, p) in procs.items():
    log = p.communicate()[0]
    done = [line for line in log.splitlines() if "tribodyn: done" in line]
    checks.true("%s: run complete (exit %d)" % (cav, p.returncode), p.returncode == 0 and done)
    with h5py.File(out, "r") as f:
        t = f["time"][:]
        pm, hm = f["films/film/p_max"][:], f["films/film/h_min"][:]
        rows[cav] = [np.abs(f["sensors/%s/acceleration" % s][:, 2]).max() for s in ("slider", "guide_mid")] + \
            [pm.max() / 1e6, 1e3 * t[pm.argmax()], hm.min() * 1e6, 1e3 * t[hm.argmin()]]
        if cav == "jfo":
            th = f["films/film/film_fraction"][:]
            nits = float(done[0].split("(")[1].split(" per step")[0]) if done else np.inf
            checks.true("jfo: theta in [%.3f, 1 + %.1e], cavitated somewhere" % (th.min(), th.max() - 1), th.min() >= -1e-8 and th.max() <= 1 + 1e-8 and th.min() < 1 - 1e-6)
            checks.true("jfo: %.2f Newton iterations per step (<= 1.5)" % nits, nits <= 1.5)
print("  %-14s %12s %12s %14s %9s %12s %9s" % ("cavitation", "slider a_z", "guide_mid", "peak p [MPa]", "at [ms]", "h_min [um]", "at [ms]"))
for cav, r in rows.items():
    print("  %-14s %12.1f %12.1f %14.4f %9.2f %12.2f %9.2f" % (cav, *r))
checks.finish()
