"""Free rigid bodies in natural coordinates (-<b>_type rigid -<b>_motion free, formulation.md
(F21)): a point r (the centre of mass) and three body axes a1, a2, a3 with the six orthonormality
constraints a_i . a_j = delta_ij, a constant mass matrix diag(m I, J (x) I).  References:

1. A free box (0.1 x 0.06 x 0.02 m, steel) thrown with v0 = (1, 0, 0) m/s and spinning with
   w0 = (0.1, 10, 0.5) rad/s, no forces: its centre of mass moves at v0 exactly (momentum), the
   distances between four material points stay their reference values (the orthonormality rows
   at the Newton tolerance: 1e-9 of the size), and the kinetic energy is conserved to the
   integrator's accuracy (rho_inf = 1, dt = 1 ms, 1 s: relative drift <= 1e-3; 1.8e-4 seen).
2. A physical pendulum: a box 0.2 x 0.02 x 0.02 m held at the centre of its end face by a point
   joint (a spherical joint to ground) under gravity, released horizontally.  It swings in the
   x-z plane: theta'' = -(m g d / I_O) sin(theta), d = 0.1 m, I_O = m (L^2 + h^2)/12 + m d^2,
   integrated here by RK4 with a 10 us step (an independent reference).  The angle of the
   centre of mass within 1e-3 rad over 1 s (dt = 1 ms; 1.9e-4 seen), and the joint's reaction
   (the force it exerts on the bar) against m (a_c - g) of the exact motion within 2e-3 of m g
   (4.2e-4 seen).
3. The Jacobian against central differences while the pendulum swings (-test_jacobian): <= 1e-6.
4. Bad input: -mass without -inertia, a singular inertia (principal moments 1, 1, 3 violate the
   triangle inequality), a negative mass, a clamp and a film on a free rigid body.
"""
import math
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Free rigid bodies in natural coordinates")

# 1. torque-free box
pts = {"c1": (0.05, 0.03, 0.01), "c2": (-0.05, -0.03, 0.01), "c3": (0.05, -0.03, -0.01), "cm": (0, 0, 0)}
args = ["-bodies", "blk", "-blk_type", "rigid", "-blk_motion", "free", "-blk_box", "-0.05,-0.03,-0.01,0.05,0.03,0.01",
        "-blk_rho", "7800", "-blk_initial_angular_velocity", "0.1,10,0.5", "-blk_initial_velocity", "1,0,0",
        "-sensors", ",".join(pts), "-t_final", "1", "-dt", "1e-3", "-rho_inf", "1"]
for n, p in pts.items():
    args += ["-%s_body" % n, "blk", "-%s_point" % n, "%g,%g,%g" % p]
out, _ = tdrun.run(args, name="spin")
t = tdrun.dataset(out, "/time")
x = {n: tdrun.sensor(out, n, "position")[1] for n in pts}
cm = x["cm"] - np.outer(t, [1, 0, 0])
checks.true("free box: centre of mass at x0 + v0 t, worst %.1e m" % np.abs(cm).max(), np.abs(cm).max() <= 1e-9)
worst = 0
for a in pts:
    for b in pts:
        d0 = np.linalg.norm(np.subtract(pts[a], pts[b]))
        worst = max(worst, np.abs(np.linalg.norm(x[a] - x[b], axis=1) - d0).max())
checks.true("free box: distances between material points kept to %.1e m (<= 1e-10)" % worst, worst <= 1e-10)
ek = tdrun.dataset(out, "/energy/kinetic")
drift = (ek.max() - ek.min()) / ek[0]
checks.true("free box: kinetic energy %.6f J, relative drift %.1e over 1 s (<= 1e-3)" % (ek[0], drift), drift <= 1e-3)

# 2. physical pendulum
L, h, rho, g = 0.2, 0.02, 7800.0, 9.81
m = rho * L * h * h
d, IO = L / 2, m * (L * L + h * h) / 12 + m * (L / 2) ** 2
pend = ["-bodies", "bar", "-bar_type", "rigid", "-bar_motion", "free", "-bar_box", "0,-0.01,-0.01,%g,0.01,0.01" % L, "-bar_rho", str(rho),
        "-joints", "pin", "-pin_type", "point", "-pin_body", "bar", "-pin_point", "0,0,0",
        "-sensors", "c", "-c_body", "bar", "-c_point", "%g,0,0" % d, "-gravity", "0,0,%g" % -g]
out, _ = tdrun.run(pend + ["-t_final", "1", "-dt", "1e-3", "-rho_inf", "0.9"], name="pendulum")
t = tdrun.dataset(out, "/time")
xc = tdrun.sensor(out, "c", "position")[1]
theta = np.arctan2(xc[:, 0], -xc[:, 2])  # from the downward vertical, towards +x


def rhs(y):
    return np.array([y[1], -m * g * d / IO * math.sin(y[0])])


ref = tdrun.rk4(rhs, [math.pi / 2, 0.0], t, 1e-5)
err = np.abs(theta - ref[:, 0]).max()
checks.true("pendulum: angle of the centre of mass against RK4, worst %.2e rad over 1 s (<= 1e-3)" % err, err <= 1e-3)
th, om = ref[:, 0], ref[:, 1]
al = -m * g * d / IO * np.sin(th)
# centre of mass at d (sin th, 0, -cos th): its acceleration
ac = np.stack([d * (al * np.cos(th) - om ** 2 * np.sin(th)), 0 * th, d * (al * np.sin(th) + om ** 2 * np.cos(th))], axis=1)
R = tdrun.dataset(out, "/joints/pin/reaction")
Rexact = m * (ac - np.array([0, 0, -g]))  # the force the joint exerts on the bar
errR = np.abs(R - Rexact)[t > 0].max() / (m * g)
print("  (reaction with the opposite sign would be off by %.2e of m g)" % (np.abs(R + Rexact)[t > 0].max() / (m * g)))
checks.true("pendulum: joint reaction (the force on the bar) against m (a_c - g) of the exact motion, worst %.2e of m g (<= 2e-3)" % errR, errR <= 2e-3)

# 3. Jacobian
OURS = "Jacobian test (central differences)"
out, proc = tdrun.run(pend + ["-t_final", "0.2", "-dt", "1e-3", "-test_jacobian", "3", "-test_jacobian_time", "0.1"], name="jac")
vals = [float(l.split("=")[-2].split(",")[0]) for l in proc.stdout.splitlines() if OURS in l]
checks.true("pendulum swinging: %d Jacobians, max ||J - J_fd||/||J|| = %.2e <= 1e-6" % (len(vals), max(vals) if vals else float("nan")), len(vals) >= 3 and max(vals) <= 1e-6)

# 4. bad input
box = ["-bodies", "b", "-b_type", "rigid", "-b_motion", "free", "-b_box", "0,0,0,0.1,0.1,0.1", "-dry_run"]
for what, extra, words in (("mass without inertia", ["-b_mass", "1"], ["-b_mass", "-b_inertia"]),
                           ("singular inertia", ["-b_mass", "1", "-b_inertia", "1,1,3"], ["singular inertia", "-b_inertia"]),
                           ("negative mass", ["-b_mass", "-1", "-b_inertia", "1,1,1"], ["-b_mass", "positive"]),
                           ("clamped free body", ["-b_clamp", "xmin"], ["-b_clamp", "rigid"])):
    _, proc = tdrun.run(box + extra, expect_ok=False, name="bad")
    msg = proc.stdout + proc.stderr
    checks.true("%s: refused (exit %d), the message names %s" % (what, proc.returncode, words), proc.returncode != 0 and all(w in msg for w in words))
checks.finish()
