"""The analytic Jacobian of the lubricated slider-guide case (cases/slider_guide_lubricated.opts)
during the impact, against central differences of the residual (issue 4): the run goes to
t = 3.7 ms (hammer force 0.9 of its peak, slider moving at 0.6 m/s, guide deflected, film
pressure up to 0.75 MPa with part of the film cavitated), and the first two Jacobians after
t = 3.62 ms (those of the steps to 3.65 and 3.7 ms, each converging in one Newton iteration, so
both come from the film pass fused with the solve's first residual) are compared block by block
(qq, qp, pq, pp, and the drive rows):
every block and the whole matrix within 1e-6.  Central differences of all 7548 unknowns take
about 15 000 residual evaluations per Jacobian, hence the slow label."""
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import os
import numpy as np
import tdrun

src = tdrun.SOURCE_DIR
case = os.path.join(src, "cases/slider_guide_lubricated.opts")
checks = tdrun.Checks("Lubricated slider-guide: Jacobian during the impact")
BLOCK = re.compile(r"Jacobian test block (\w\w) at t = ([0-9.eE+-]+): \|\|J - J_fd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+), \|\|J\|\|_F = ([0-9.eE+-]+)")
TOTAL = re.compile(r"Jacobian test \(central differences\) at t = ([0-9.eE+-]+): \|\|J - J_fd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+)")
t_test = 3.62e-3
out, proc = tdrun.run(["-options_file", case, "-t_final", "3.7e-3", "-test_jacobian", "2",
                       "-test_jacobian_time", str(t_test), "-monitor_blocks"], threads=2, name="jacobian")
lines = proc.stdout.splitlines()
# the residual sequence of the tested step (the last solve of the run)
starts = [k for k, l in enumerate(lines) if re.match(r"\s+0 \|R_bodies\|", l)]
for l in lines[starts[-1]:]:
    if "|R_bodies|" in l:
        print("  " + l.strip())
for l in lines:
    if "Jacobian test" in l:
        print("  " + l.strip())
blocks = {}
for name, t, ratio, norm in BLOCK.findall(proc.stdout):
    blocks.setdefault(name, []).append(float(ratio))
totals = [float(r) for t, r in TOTAL.findall(proc.stdout)]
skipped = proc.stdout.count("Jacobian test at t")
checks.true("%d Jacobians tested at t > %g s, %d skipped" % (len(totals), t_test, skipped), len(totals) == 2 and skipped == 0)
for name in ("qq", "qp", "pq", "pp"):
    vals = blocks.get(name, [])
    checks.true("block %s: %d tested, max ||J - J_fd||_F/||J||_F = %.2e <= 1e-6" % (name, len(vals), max(vals) if vals else float("nan")), len(vals) == 2 and max(vals) <= 1e-6)
checks.true("whole matrix: max ||J - J_fd||_F/||J||_F = %.2e <= 1e-6" % max(totals or [float("nan")]), totals and max(totals) <= 1e-6)
p = tdrun.dataset(out, "/films/film/pressure")[-1]
ncav = int(np.sum(p <= -1.013e5 * (1 - 1e-9)))
checks.true("state of the test: peak film pressure %.3f MPa, %d of %d film nodes cavitated" % (p.max() / 1e6, ncav, p.size), p.max() > 1e5 and ncav > 0)
checks.finish()
