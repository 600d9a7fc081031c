"""Recycled Krylov directions (-krylov_recycle, src/solver/krylov_recycle.c) change the
preconditioner, not the operator: with and without them the lubricated slider-guide case gives
the same sensor and pressure histories (to Newton's tolerances) and the same Newton iterations,
on 1 and 2 ranks.  They do what they are for: in single-iteration Newton steps (here the slider
settled on its film after the hammer blow has died away) GMRES needs fewer iterations per solve,
because the last solve's pairs (z, J z) make the kept LU exact on their span.  A broken
correction (a wrong U~ or Q) would cost iterations instead.  Bad input is refused with a message
naming the option."""
import os
import re
import sys

import h5py
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
case = os.path.join(src, "cases/slider_guide_lubricated.opts")
checks = tdrun.Checks("Recycled Krylov directions: same histories, fewer Krylov iterations in settled steps")
# 0-15 ms: the hammer blow is over at 10 ms; with the film-block correction on (the default of
# finer films) the settled steps after it take one Newton iteration each
settled = ["-t_final", "15e-3", "-film_block_correction", "true"]
res, its, late = {}, {}, {}
for name, nproc, k in (("none", 1, "0"), ("recycled", 1, "8"), ("recycled_np2", 2, "8")):
    out, proc = tdrun.run(["-options_file", case] + settled + ["-krylov_recycle", k], nproc=nproc, name=name)
    m = re.search(r"(\d+) Newton iterations .* (\d+) Krylov iterations", proc.stdout)
    its[name] = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
    res[name] = tdrun.rig_histories(out)
    with h5py.File(out, "r") as f:
        tt, lin = f["time"][:].ravel(), f["solver/linear_iterations"][:].ravel()
    late[name] = int(lin[tt > 10.001e-3].sum())
tdrun.check_same_histories(checks, res["none"], res["recycled"], "recycled vs none")
# 2-rank runs are not bitwise repeatable (the distributed factorisation's summation order): two
# uninterrupted runs differed by up to 1.2e-8 in the accelerations (restart.py), hence 2e-8
tdrun.check_same_histories(checks, res["none"], res["recycled_np2"], "recycled_np2 vs none", (("slider", 2e-8), ("guide_mid", 2e-8), ("p", 2e-8)))
checks.true("Newton iterations: %d recycled, %d without (equal)" % (its["recycled"][0], its["none"][0]),
            its["recycled"][0] == its["none"][0] > 0)
# measured 514 against 657 after 10 ms (22 % fewer), 2513 against 2713 over the whole run; at the
# finest level of the convergence study 7168 against 9642 over 0-100 ms
checks.true("Krylov iterations after 10 ms: %d recycled, at least 10 %% fewer than %d without" % (late["recycled"], late["none"]),
            0 < late["recycled"] <= 0.9 * late["none"])
checks.true("on 2 ranks after 10 ms: %d Krylov iterations, at least 10 %% fewer than %d" % (late["recycled_np2"], late["none"]),
            0 < late["recycled_np2"] <= 0.9 * late["none"])
checks.true("Krylov iterations over 0-15 ms: %d recycled, not more than %d without" % (its["recycled"][1], its["none"][1]),
            0 < its["recycled"][1] <= its["none"][1])
_, proc = tdrun.run(["-options_file", case, "-t_final", "1e-4", "-krylov_recycle", "-1"], expect_ok=False, name="bad_count")
checks.true("-krylov_recycle -1: exit %d, the message names the option" % proc.returncode,
            proc.returncode != 0 and "-krylov_recycle" in proc.stdout + proc.stderr)
_, proc = tdrun.run(["-options_file", case, "-t_final", "1e-4", "-krylov_recycle", "4", "-ksp_type", "preonly"], expect_ok=False, name="bad_direct")
checks.true("-krylov_recycle with -ksp_type preonly: exit %d, the message names the option" % proc.returncode,
            proc.returncode != 0 and "-krylov_recycle" in proc.stdout + proc.stderr)
checks.finish()
