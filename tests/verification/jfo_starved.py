"""A starved JFO film (-<f>_theta0 below 1) between approaching parallel plates, against the
mass balance it must keep, and bad input of the film-fraction option.

Plates L x B = 20 x 20 mm, the upper one at h(t) = h0 - V t (h0 = 50 um, V = 5 mm/s: a rigid body
with a constant velocity), mu = 0.05 Pa s, p_cav = 0 (the ambient pressure), ambient (flooded)
edges, the film fraction at the start theta0 = 0.5 inside.  While the plates approach, a film
with theta < 1 carries no pressure (p = p_cav = ambient, so no Poiseuille flow) and no Couette
flow (no sliding): each interior node keeps its content, theta h = theta0 h0, so
theta(t) = theta0 h0 / h(t), and the load is zero until the film is full at h = theta0 h0,
t* = (1 - theta0) h0 / V = 5 ms.  After that the film is a full squeeze film and carries load.
(F18)'s time term, theta dh/dt + h (theta - theta_n)/dt at t_{n+1}, is first order in time and
conserves the content to O(dt) per unit time (0.8 % at t = 4.5 ms with dt = 0.1 ms), so
checked: theta at the interior nodes against theta0 h0 / h(t) within 1.2 % at dt = 0.1 ms up to
4.5 ms, and converging at first order (the error ratio between dt and dt/2 within 1.8 to 2.2);
zero load (below 1e-9 N) before t* - dt, a positive load from the first record after t* + 2 dt;
and, with the default theta0 = 1, a load from the first step.  Bad input: -f_theta0 on a Swift-Stieber film and
-f_theta0 1.5 are refused, naming the option.
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Starved JFO film between approaching plates (-f_theta0)")
mu, h0, L, V, dt, theta0 = 0.05, 50e-6, 0.02, 5e-3, 1e-4, 0.5
base = ["-bodies", "top,bottom",
        "-top_type", "rigid", "-top_box", "0,0,%g,%g,%g,0.005" % (h0, L, L), "-top_velocity", "0,0,%g" % -V,
        "-bottom_type", "rigid", "-bottom_box", "-0.001,-0.001,-0.005,%g,%g,0" % (L + 0.001, L + 0.001),
        "-films", "f", "-f_wall", "top:zmin", "-f_base", "bottom:zmax", "-f_cells", "10,10",
        "-f_mu", str(mu), "-f_cavitation", "jfo", "-f_p_cav", "0", "-f_p_ref", "1e5",
        "-t_final", "8e-3", "-dt", str(dt), "-output_fields_dt", "0"]
interior = None
errs = {}
for step in (dt, dt / 2):
    o, _ = tdrun.run(base[:-4] + ["-dt", str(step), "-output_dt", str(dt), "-f_theta0", str(theta0)], name="starved_%g" % step)
    ft = tdrun.dataset(o, "/field_time")
    th = tdrun.dataset(o, "/films/f/film_fraction")
    X = tdrun.dataset(o, "/films/f/nodes")
    interior = (X[:, 0] > 1e-9) & (X[:, 0] < L - 1e-9) & (X[:, 1] > 1e-9) & (X[:, 1] < L - 1e-9)
    upto = ft <= 4.5e-3 + 1e-12
    errs[step] = np.abs(th[upto][:, interior] - (theta0 * h0 / (h0 - V * ft[upto]))[:, None]).max()
    if step == dt:
        out = o
tstar = (1 - theta0) * h0 / V
checks.true("theta = theta0 h0 / h(t) at the %d interior nodes up to 4.5 ms, dt = %g s: worst %.2e (<= 1.2e-2)" % (interior.sum(), dt, errs[dt]), errs[dt] <= 1.2e-2)
ratio = errs[dt] / errs[dt / 2]
checks.true("first order in time: error ratio dt / (dt/2) = %.3f (1.8 to 2.2)" % ratio, 1.8 <= ratio <= 2.2)
t = tdrun.dataset(out, "/time")
W = tdrun.dataset(out, "/films/f/load")[:, 2]
pre, post = t < tstar - dt, t > tstar + 2 * dt
checks.true("no load while the film fills: max |W| = %.1e N before t*" % np.abs(W[pre]).max(), np.abs(W[pre]).max() <= 1e-9)
checks.true("the full film carries the squeeze after t*: W from %.3g to %.3g N" % (W[post].min(), W[post].max()), W[post].min() > 0)
out1, _ = tdrun.run(base, name="full")
W1 = tdrun.dataset(out1, "/films/f/load")[:, 2]
checks.true("theta0 = 1 (default): load from the first record (%.3g N)" % W1[1], W1[1] > 0)
for what, extra, words in (("theta0 on a Swift-Stieber film", ["-f_cavitation", "swift_stieber", "-f_theta0", "0.5"], ["-f_theta0", "jfo"]),
                           ("theta0 = 1.5", ["-f_theta0", "1.5"], ["-f_theta0", "(0, 1]"])):
    _, proc = tdrun.run(base + extra, expect_ok=False, name="bad")
    msg = proc.stdout + proc.stderr
    checks.true("%s: refused, exit %d, message names %s" % (what, proc.returncode, words), proc.returncode != 0 and all(w in msg for w in words))
checks.finish()
