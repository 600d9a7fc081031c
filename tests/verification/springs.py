"""Linear spring-dampers between two points (-<l>_type spring, formulation.md (F17)) against the
closed-form oscillators they make with nearly rigid blocks (E = 2e11, one element each, the
springs acting through the blocks' centroids so that the blocks only translate):

1. A 1 kg block tied to ground, k = 1e4 N/m (omega = 100 rad/s), rest length 1 cm longer than the
   spring: u(t) = -0.01 (1 - e^(-zeta omega t)(cos omega_d t + zeta/sqrt(1 - zeta^2) sin omega_d t))
   without damping and with c = 20 N s/m (zeta = 0.1), within 0.1 % of the amplitude over 0.1 s.
2. Two blocks (1 kg and 3 kg) tied to each other: the relative motion oscillates at
   omega = sqrt(k / m_r), m_r = m1 m2 / (m1 + m2), and the centre of mass stays where it is.
   The initial accelerations carry the damping of an initial velocity: a(0) = -c v0/m.
3. The Jacobian of two moving blocks joined obliquely at their corners, with damping and an
   initial velocity across the spring, against central differences (-test_jacobian): <= 1e-6.
4. Bad input: no second end, a second body that does not exist, ends that coincide, a negative
   stiffness, a time profile.
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Spring-dampers: oscillators against the closed form, Jacobian, bad input")
block = ["-blk_box", "0,0,0,0.1,0.1,0.1", "-blk_cells", "1,1,1", "-blk_E", "2e11", "-blk_rho", "1000"]
k, w = 1e4, 100.0

# 1. block tied to ground
for c in (0.0, 20.0):
    args = ["-bodies", "blk"] + block + ["-loads", "s", "-s_type", "spring", "-s_body", "blk", "-s_point", "0.05,0.05,0.05",
                                         "-s_body2", "ground", "-s_point2", "1.05,0.05,0.05", "-s_stiffness", str(k), "-s_damping", str(c),
                                         "-s_length", "1.01", "-sensors", "c", "-c_body", "blk", "-c_point", "0.05,0.05,0.05",
                                         "-t_final", "0.1", "-dt", "1e-4", "-rho_inf", "1"]
    out, _ = tdrun.run(args, name="ground%g" % c)
    t, u = tdrun.sensor(out, "c")
    z = c / (2 * 1.0 * w)
    wd = w * np.sqrt(1 - z * z)
    ref = -0.01 * (1 - np.exp(-z * w * t) * (np.cos(wd * t) + z / np.sqrt(1 - z * z) * np.sin(wd * t)))
    err = np.abs(u[:, 0] - ref).max() / 0.01
    checks.true("block on a spring to ground, c = %g: u_x(t) worst %.1e of the amplitude; u_y, u_z %.0e m" % (c, err, np.abs(u[:, 1:]).max()),
                err <= 1e-3 and np.abs(u[:, 1:]).max() < 1e-12)

# 1b. the initial accelerations carry the damping of the initial velocity: a(0) = -c v0 / m (a free
#     rigid block: an ANCF block's point mobility at t = 0 also holds its elastic modes)
args = ["-bodies", "blk"] + block + ["-blk_type", "rigid", "-blk_motion", "free", "-blk_initial_velocity", "0.1,0,0", "-loads", "s", "-s_type", "spring", "-s_body", "blk",
                                     "-s_point", "0.05,0.05,0.05", "-s_body2", "ground", "-s_point2", "1.05,0.05,0.05", "-s_stiffness", str(k),
                                     "-s_damping", "20", "-s_length", "1.0", "-sensors", "c", "-c_body", "blk", "-c_point", "0.05,0.05,0.05",
                                     "-t_final", "1e-4", "-dt", "1e-4"]
out, _ = tdrun.run(args, name="initial")
_, acc = tdrun.sensor(out, "c", "acceleration")
checks.true("initial acceleration of a free rigid block moving at 0.1 m/s on a damped spring at rest length: %.6f m/s^2 (-c v0/m = -2)" % acc[0][0],
            abs(acc[0][0] + 2.0) <= 1e-6 * 2.0)

# 2. two blocks
args = ["-bodies", "a,b", "-a_box", "0,0,0,0.1,0.1,0.1", "-a_cells", "1,1,1", "-a_E", "2e11", "-a_rho", "1000",
        "-b_box", "0.6,0,0,0.7,0.1,0.1", "-b_cells", "1,1,1", "-b_E", "2e11", "-b_rho", "3000",
        "-loads", "s", "-s_type", "spring", "-s_body", "a", "-s_point", "0.05,0.05,0.05", "-s_body2", "b", "-s_point2", "0.65,0.05,0.05",
        "-s_stiffness", str(k), "-s_length", "0.61", "-sensors", "ca,cb", "-ca_body", "a", "-ca_point", "0.05,0.05,0.05",
        "-cb_body", "b", "-cb_point", "0.65,0.05,0.05", "-t_final", "0.1", "-dt", "1e-4", "-rho_inf", "1"]
out, _ = tdrun.run(args, name="two")
t, ua = tdrun.sensor(out, "ca")
_, ub = tdrun.sensor(out, "cb")
wr = np.sqrt(k / (1.0 * 3.0 / 4.0))
rel = ub[:, 0] - ua[:, 0]
err = np.abs(rel - 0.01 * (1 - np.cos(wr * t))).max() / 0.01
com = np.abs(1.0 * ua[:, 0] + 3.0 * ub[:, 0]).max() / 4.0
checks.true("two blocks, 1 kg and 3 kg: relative motion at sqrt(k/m_r) = %.2f rad/s, worst %.1e of the amplitude" % (wr, err), err <= 1e-3)
checks.true("two blocks: the centre of mass stays put (%.1e m, <= 1e-6 of the amplitude)" % com, com <= 1e-8)

# 3. Jacobian, oblique spring with damping between moving blocks
args = ["-bodies", "a,b", "-a_box", "0,0,0,0.1,0.1,0.1", "-a_cells", "1,1,1", "-a_E", "2e9", "-a_rho", "1000",
        "-b_box", "0.6,0.4,0.3,0.7,0.5,0.4", "-b_cells", "1,1,1", "-b_E", "2e9", "-b_rho", "3000", "-b_initial_velocity", "0.5,-1,2",
        "-loads", "s", "-s_type", "spring", "-s_body", "a", "-s_point", "0.1,0.1,0.1", "-s_body2", "b", "-s_point2", "0.6,0.4,0.3",
        "-s_stiffness", "1e5", "-s_damping", "300", "-s_length", "0.58", "-t_final", "0.006", "-dt", "1e-4",
        "-test_jacobian", "2", "-test_jacobian_time", "0.005"]
out, proc = tdrun.run(args, name="jacobian")
errs = [float(line.split("=")[2].split(",")[0]) for line in proc.stdout.splitlines() if "Jacobian test (central differences)" in line]
checks.true("oblique damped spring between moving blocks: Jacobian vs central differences %s <= 1e-6" % ["%.1e" % e for e in errs],
            len(errs) == 2 and max(errs) <= 1e-6)

# 4. bad input
base = ["-bodies", "blk"] + block + ["-loads", "s", "-s_type", "spring", "-s_body", "blk", "-s_point", "0.05,0.05,0.05",
                                     "-s_stiffness", "1", "-t_final", "1e-3", "-dt", "1e-3"]
for what, extra, message in (("no second end", [], "has no second end: set -s_point2"),
                             ("a second body that does not exist", ["-s_body2", "nobody", "-s_point2", "1,0,0"], "-s_body2: there is no body 'nobody'"),
                             ("ends that coincide", ["-s_point2", "0.05,0.05,0.05"], "its two ends coincide"),
                             ("a negative stiffness", ["-s_point2", "1,0,0", "-s_stiffness", "-5"], "-s_stiffness"),
                             ("a time profile", ["-s_point2", "1,0,0", "-s_profile", "ramp", "-s_duration", "1"], "springs have no time profile")):
    _, proc = tdrun.run(base + extra, expect_ok=False, name="bad")
    checks.true("bad input, %s: exit %d, '%s'" % (what, proc.returncode, message), proc.returncode != 0 and message in proc.stdout + proc.stderr)
checks.finish()
