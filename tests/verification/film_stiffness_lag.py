"""The films' dQ/dq blocks kept between factorisations (-film_stiffness_lag, src/solver/kept_lu.c).

With the lag the Krylov operator carries the dQ/dq blocks (film forces by body coordinates at
fixed pressure) of the last factorisation of the kept LU instead of the current iterate's; every
other block is current.  Newton then takes inexact steps, but it stops on the same residual
tests, so the solution is the same to Newton's tolerances:

1. The lubricated slider-guide case over 0-3 ms (impact, moving slider, cavitation) with and
   without the lag: histories within Newton's tolerances (a few 1e-8 of the peaks, the spread of
   runs that differ only in rounding), Newton and Krylov iterations within 3 %.
2. The blocks were formed only at the film passes of factorisations and of new patterns (the
   run's last line counts them): far fewer than the passes.
3. On 2 ranks the same (the lag's decisions are collective).
4. A checkpoint carries the kept blocks: a run to 1.5 ms continued to 3 ms by -restart repeats
   the uninterrupted run to 1e-10 on 1 rank (with the blocks formed afresh at the restart it
   would take other Newton steps and differ at about 1e-9); on 2 ranks, where two runs of one
   binary differ by a few 1e-9 (MUMPS's parallel factorisation), to restart.py's 1e-7, with both
   ranks saying they restored the blocks.
5. Bad input: the option with a preconditioner that does not keep an LU is refused, naming it.
"""
import os
import re
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

src = tdrun.SOURCE_DIR
case = os.path.join(src, "cases/slider_guide_lubricated.opts")
checks = tdrun.Checks("Film stiffness lag: the same solution with dQ/dq kept between factorisations")


def formed(proc):
    m = re.search(r"dQ/dq blocks formed at (\d+) of (\d+) film Jacobian passes", proc.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else (-1, -1)


short = ["-options_file", case, "-t_final", "3e-3"]
res, its = {}, {}
for name, nproc, lag in (("exact", 1, "false"), ("lag", 1, "true"), ("lag_np2", 2, "true")):
    out, proc = tdrun.run(short + ["-film_stiffness_lag", lag], nproc=nproc, name=name)
    res[name], its[name] = tdrun.rig_histories(out), tdrun.run_counts(proc)
    if lag == "true":
        f = formed(proc)
        c = its[name]
        checks.true("%s: dQ/dq formed at %d of %d film Jacobian passes (factorisations %d + pattern rebuilds %d + 1 at most)"
                    % (name, f[0], f[1], c["factorisations"], c["rebuilds"]), 0 < f[0] <= c["factorisations"] + c["rebuilds"] + 1 and f[1] >= 2 * f[0])
    else:
        checks.true("%s: no lag line without the lag" % name, "dQ/dq blocks formed" not in proc.stdout)
bounds = (("slider", 2e-8), ("guide_mid", 5e-8), ("p", 2e-8))
tdrun.check_same_histories(checks, res["exact"], res["lag"], "lag vs exact", bounds)
tdrun.check_same_histories(checks, res["exact"], res["lag_np2"], "lag on 2 ranks vs exact", bounds)
for name in ("lag", "lag_np2"):
    n0, k0, n1, k1 = its["exact"]["newton"], its["exact"]["krylov"], its[name]["newton"], its[name]["krylov"]
    checks.true("%s: Newton %d against %d, Krylov %d against %d (within 3 %%)" % (name, n1, n0, k1, k0),
                n0 > 0 and abs(n1 - n0) <= 0.03 * n0 and abs(k1 - k0) <= 0.03 * k0)

# a restart continues with the kept blocks
for name, nproc in (("lag", 1), ("lag_np2", 2)):
    part, _ = tdrun.run(["-options_file", case, "-t_final", "1.5e-3", "-checkpoint_dt", "5e-4", "-film_stiffness_lag", "true"], nproc=nproc, name=name + "_part")
    cmd = [tdrun.EXE, "-restart", part, "-t_final", "3e-3", "-progress", "false", "-info", ":sys"]
    if nproc > 1:
        cmd = [tdrun.MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-n", str(nproc)] + cmd
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"))
    h = tdrun.rig_histories(part) if proc.returncode == 0 else None
    worst = max(np.max(np.abs(res[name][k] - h[k])) / np.max(np.abs(res[name][k])) for k in ("slider", "guide_mid", "p")) if h else np.inf
    bound = 1e-10 if nproc == 1 else 1e-7
    said = proc.stdout.count("kept dQ/dq blocks restored from the checkpoint")
    checks.true("%s: 0-1.5 ms, then -restart to 3 ms: worst %.2e of the uninterrupted run's peaks <= %.0e (exit %d); %d of %d ranks restored the kept blocks"
                % (name, worst, bound, proc.returncode, said, nproc), proc.returncode == 0 and worst <= bound and said == nproc)

# bad input
out, proc = tdrun.run(short + ["-t_final", "1e-4", "-pc_type", "gamg", "-film_stiffness_lag", "true"], expect_ok=False, name="bad")
checks.true("bad input, -film_stiffness_lag with -pc_type gamg: exit %d, the option named" % proc.returncode,
            proc.returncode != 0 and "Option -film_stiffness_lag needs" in proc.stdout + proc.stderr)
checks.finish()
