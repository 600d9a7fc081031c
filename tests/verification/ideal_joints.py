"""Ideal joints between bodies (formulation.md (F22)): spherical, revolute, universal, fixed,
distance, cylindrical and prismatic, between free rigid bodies, ANCF bodies and ground.

1. A double pendulum of two free rigid bars (0.2 and 0.15 m long, 20 x 20 mm steel), the first
   on a revolute joint to ground at its end, the second on a revolute joint at the first's other
   end, axes along y, released horizontally under gravity.  Reference: the planar equations of
   two compound pendulums, [M(th)] th'' = f(th, th'), integrated by RK4 with a 10 us step.  Over
   0.5 s (dt = 0.5 ms): both bars' angles within 2e-3 rad, the revolute joint's output angle
   (B relative to A about +y) against th1 - th2, and the top joint's reaction against
   sum_i m_i (a_i - g) (the force on the system, from the reference motion) within 1e-2 of the
   system's weight.  The bars stay in the x-z plane (y of their points below 1e-10 m).
2. The analytic Jacobian against central differences (-test_jacobian) for every joint type,
   joining a flexible ANCF bar (pinned to ground by a revolute at one end) and a free rigid block
   that moves under gravity: <= 1e-6 while they move (1.5e-10 to 1.7e-10 seen); and between the
   two rigid bars with a 10 ms step, where the multipliers' Hessians are a visible part of the
   body block, block by block <= 1e-8 (3e-11 seen).
3. Motors (F23): a speed motor ramping a rigid bar on a revolute to 1 r/s (the bar's and the
   joint's angle exact to 1e-9 rad, the motor's moment -I_O V/T within 1 %), a torque motor
   (angle T t^2 / (2 I_O) within 1e-6 rad), a prismatic position motor (displacement exact, the
   joint's reaction carrying the block's weight) and a force motor (x = F t^2 / (2 m)); the
   Jacobian with speed, angle, torque, position and force motors between an ANCF bar and a block.
4. Bad input: a joint on a body that does not exist, an axis of zero length, one body given, a
   motor on a spherical joint, a torque motor on a prismatic joint.
"""
import math
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Ideal joints between bodies")
rho, h, g = 7800.0, 0.02, 9.81
L1, L2 = 0.2, 0.15
m1, m2 = rho * L1 * h * h, rho * L2 * h * h
I1, I2 = m1 * (L1 ** 2 + h ** 2) / 12, m2 * (L2 ** 2 + h ** 2) / 12
args = ["-bodies", "bar1,bar2",
        "-bar1_type", "rigid", "-bar1_motion", "free", "-bar1_box", "0,-0.01,-0.01,%g,0.01,0.01" % L1, "-bar1_rho", str(rho),
        "-bar2_type", "rigid", "-bar2_motion", "free", "-bar2_box", "%g,-0.01,-0.01,%g,0.01,0.01" % (L1, L1 + L2), "-bar2_rho", str(rho),
        "-joints", "top,mid", "-top_type", "revolute", "-top_bodies", "bar1,ground", "-top_point", "0,0,0", "-top_axis", "0,1,0",
        "-mid_type", "revolute", "-mid_bodies", "bar1,bar2", "-mid_point", "%g,0,0" % L1, "-mid_axis", "0,1,0",
        "-sensors", "c1,p2,c2", "-c1_body", "bar1", "-c1_point", "%g,0,0" % (L1 / 2), "-p2_body", "bar2", "-p2_point", "%g,0,0" % L1,
        "-c2_body", "bar2", "-c2_point", "%g,0,0" % (L1 + L2 / 2), "-gravity", "0,0,%g" % -g, "-t_final", "0.5", "-dt", "5e-4"]
out, _ = tdrun.run(args, name="double_pendulum")
t = tdrun.dataset(out, "/time")
c1, p2, c2 = (tdrun.sensor(out, n, "position")[1] for n in ("c1", "p2", "c2"))
th1 = np.arctan2(c1[:, 0], -c1[:, 2])
th2 = np.arctan2((c2 - p2)[:, 0], -(c2 - p2)[:, 2])


def rhs(y):
    a, b, wa, wb = y
    M = np.array([[m1 * (L1 / 2) ** 2 + I1 + m2 * L1 ** 2, m2 * L1 * L2 / 2 * math.cos(a - b)],
                  [m2 * L1 * L2 / 2 * math.cos(a - b), m2 * (L2 / 2) ** 2 + I2]])
    f = np.array([-m2 * L1 * L2 / 2 * math.sin(a - b) * wb ** 2 - (m1 * L1 / 2 + m2 * L1) * g * math.sin(a),
                  m2 * L1 * L2 / 2 * math.sin(a - b) * wa ** 2 - m2 * L2 / 2 * g * math.sin(b)])
    acc = np.linalg.solve(M, f)
    return np.array([wa, wb, acc[0], acc[1]])


ys = tdrun.rk4(rhs, [math.pi / 2, math.pi / 2, 0, 0], t, 1e-5)
ref = np.array([np.concatenate([y, rhs(y)[2:]]) for y in ys])
e1, e2 = np.abs(th1 - ref[:, 0]).max(), np.abs(th2 - ref[:, 1]).max()
checks.true("double pendulum: bar angles against RK4 over 0.5 s, worst %.2e and %.2e rad (<= 2e-3)" % (e1, e2), max(e1, e2) <= 2e-3)
ang = tdrun.dataset(out, "/joints/mid/angle")
ea = np.abs(ang - (ref[:, 0] - ref[:, 1])).max()
checks.true("revolute 'mid': output angle against th1 - th2, worst %.2e rad (<= 2e-3)" % ea, ea <= 2e-3)
yoff = max(np.abs(c1[:, 1]).max(), np.abs(c2[:, 1]).max())
checks.true("the bars stay in the x-z plane: |y| <= %.1e m" % yoff, yoff <= 1e-10)
a, b, wa, wb, aa, ab = ref.T
# centres of mass and their accelerations from the reference motion
def com_acc(dist, th, w, al):
    return np.stack([dist * (al * np.cos(th) - w ** 2 * np.sin(th)), 0 * th, dist * (al * np.sin(th) + w ** 2 * np.cos(th))], axis=1)
acc1 = com_acc(L1 / 2, a, wa, aa)
acc2 = com_acc(L1, a, wa, aa) + com_acc(L2 / 2, b, wb, ab)
F = m1 * acc1 + m2 * acc2 - (m1 + m2) * np.array([0, 0, -g])
R = tdrun.dataset(out, "/joints/top/reaction")
eR = np.abs(R - F)[t > 0].max() / ((m1 + m2) * g)
checks.true("revolute 'top': reaction on bar1 against sum m_i (a_i - g), worst %.2e of the weight (<= 1e-2)" % eR, eR <= 1e-2)

# 2. Jacobians of every joint type between a flexible bar and a free rigid block
OURS = "Jacobian test (central differences)"
for jt in ("spherical", "revolute", "universal", "fixed", "distance", "cylindrical", "prismatic"):
    jargs = ["-bodies", "beam,blk",
             "-beam_box", "0,-0.01,-0.01,0.2,0.01,0.01", "-beam_cells", "4,1,1", "-beam_E", "2e9", "-beam_rho", "1000",
             "-blk_type", "rigid", "-blk_motion", "free", "-blk_box", "0.2,-0.02,-0.02,0.24,0.02,0.02", "-blk_rho", "1000",
             "-blk_initial_velocity", "0,0.3,-0.2", "-blk_initial_angular_velocity", "0.5,1,-2",
             "-joints", "pin,j", "-pin_type", "revolute", "-pin_bodies", "beam,ground", "-pin_point", "0,0,0", "-pin_axis", "0,1,0",
             "-j_type", jt, "-j_bodies", "beam,blk", "-j_point", "0.2,0,0", "-j_axis", "1,0.2,0.1",
             "-gravity", "0,0,-9.81", "-t_final", "0.006", "-dt", "1e-3", "-test_jacobian", "2", "-test_jacobian_time", "0.003"]
    if jt == "distance":
        jargs += ["-j_point2", "0.22,0.01,0"]
    _, proc = tdrun.run(jargs, name="jac_" + jt)
    vals = [float(l.split("=")[-2].split(",")[0]) for l in proc.stdout.splitlines() if OURS in l]
    checks.true("%s (ancf bar - free block), moving: %d Jacobians, max ||J - J_fd||/||J|| = %.2e <= 1e-6" % (jt, len(vals), max(vals) if vals else float("nan")),
                len(vals) >= 2 and max(vals) <= 1e-6)

# rigid bodies only, a long step: the multipliers' Hessians are then a visible part of the body
# block (the mass part cM M is small), so the block check sees them
for jt in ("revolute", "fixed", "prismatic", "distance"):
    rargs = args[:args.index("-sensors")] + ["-gravity", "0,0,%g" % -g, "-t_final", "0.25", "-dt", "1e-2", "-test_jacobian", "1", "-test_jacobian_time", "0.2"]
    rargs[rargs.index("-mid_type") + 1] = jt
    if jt == "distance":
        rargs += ["-mid_point2", "%g,0,0" % (L1 + 0.05)]
    _, proc = tdrun.run(rargs, name="jac_rigid_" + jt)
    blocks = {l.split("block ")[1][:2]: float(l.split("=")[-2].split(",")[0]) for l in proc.stdout.splitlines() if "Jacobian test block" in l}
    checks.true("%s between rigid bars, dt = 10 ms: blocks %s <= 1e-8" % (jt, {k: "%.1e" % v for k, v in blocks.items()}), set(blocks) >= {"qq", "qc", "cq"} and max(blocks.values()) <= 1e-8)

# 4. motors (F23): a rigid bar on a revolute to ground (no gravity), a block on a prismatic
bar = ["-bodies", "bar", "-bar_type", "rigid", "-bar_motion", "free", "-bar_box", "0,-0.01,-0.01,0.2,0.01,0.01", "-bar_rho", str(rho),
       "-joints", "m", "-m_type", "revolute", "-m_bodies", "ground,bar", "-m_point", "0,0,0", "-m_axis", "0,1,0",
       "-sensors", "c", "-c_body", "bar", "-c_point", "0.1,0,0", "-t_final", "0.3", "-dt", "1e-3"]
mb = rho * 0.2 * h * h
IO = mb * (0.2 ** 2 + h ** 2) / 12 + mb * 0.1 ** 2
V, T = 2 * math.pi, 0.1
out, _ = tdrun.run(bar + ["-m_motor", "speed", "-m_motor_value", repr(V), "-m_motor_profile", "ramp", "-m_motor_duration", str(T)], name="speed_motor")
t = tdrun.dataset(out, "/time")
c = tdrun.sensor(out, "c", "position")[1]
th = np.unwrap(np.arctan2(-c[:, 2], c[:, 0]))
ref = np.where(t < T, V * t * t / (2 * T), V * (T / 2 + t - T))
ang = tdrun.dataset(out, "/joints/m/angle")
checks.true("speed motor, ramp to 1 r/s over 0.1 s: the bar's angle and the joint's angle against V int f, worst %.1e and %.1e rad (<= 1e-9)"
            % (np.abs(th - ref).max(), np.abs(ang - ref).max()), max(np.abs(th - ref).max(), np.abs(ang - ref).max()) <= 1e-9)
M = tdrun.dataset(out, "/joints/m/moment")[:, 1]
mid = (t > 0.03) & (t < 0.07)
checks.close("speed motor: its moment on the ground during the ramp, -I_O V/T [N m]", np.median(M[mid]), -IO * V / T, 1e-2)
out, _ = tdrun.run(bar + ["-m_motor", "torque", "-m_motor_value", "0.01"], name="torque_motor")
c = tdrun.sensor(out, "c", "position")[1]
th = np.unwrap(np.arctan2(-c[:, 2], c[:, 0]))
e = np.abs(th - 0.01 * t * t / (2 * IO)).max()
checks.true("torque motor 0.01 N m: angle against T t^2 / (2 I_O), worst %.1e rad (<= 1e-6)" % e, e <= 1e-6)
blk = ["-bodies", "blk", "-blk_type", "rigid", "-blk_motion", "free", "-blk_box", "0,-0.01,-0.01,0.04,0.01,0.01", "-blk_rho", str(rho),
       "-joints", "s", "-s_type", "prismatic", "-s_bodies", "blk,ground", "-s_point", "0,0,0", "-s_axis", "1,0,0",
       "-sensors", "c", "-c_body", "blk", "-c_point", "0.02,0,0", "-t_final", "0.3", "-dt", "1e-3", "-gravity", "0,0,%g" % -g]
mk = rho * 0.04 * h * h
out, _ = tdrun.run(blk + ["-s_motor", "position", "-s_motor_value", "0.05", "-s_motor_profile", "ramp", "-s_motor_duration", "0.2"], name="position_motor")
d = tdrun.sensor(out, "c", "displacement")[1]
e = np.abs(d[:, 0] + 0.05 * np.clip(t / 0.2, 0, 1)).max()  # B (ground) moves by s relative to A: A moves by -s
R = tdrun.dataset(out, "/joints/s/reaction")
checks.true("prismatic position motor: displacement against -s(t), worst %.1e m; the joint carries the weight, reaction z %.6f N (m g %.6f N)"
            % (e, R[-1, 2], mk * g), e <= 1e-12 and abs(R[-1, 2] - mk * g) <= 1e-9 * mk * g)
out, _ = tdrun.run(blk + ["-s_motor", "force", "-s_motor_value", "2"], name="force_motor")
d = tdrun.sensor(out, "c", "displacement")[1]
e = np.abs(d[:, 0] + 2 * t * t / (2 * mk)).max()
checks.true("prismatic force motor 2 N (on B = ground, so -2 N on the block): x against -F t^2 / (2 m), worst %.1e m (<= 1e-9)" % e, e <= 1e-9)
for what, extra in (("revolute speed and angle motors", ["-pin_motor", "speed", "-pin_motor_value", "20", "-pin_motor_profile", "ramp", "-pin_motor_duration", "0.01",
                                                         "-j_type", "revolute", "-j_motor", "angle", "-j_motor_value", "0.5", "-j_motor_profile", "ramp", "-j_motor_duration", "0.01"]),
                    ("revolute torque and prismatic position motors", ["-pin_motor", "torque", "-pin_motor_value", "0.05", "-j_type", "prismatic", "-j_motor", "position",
                                                                       "-j_motor_value", "0.01", "-j_motor_profile", "ramp", "-j_motor_duration", "0.01"]),
                    ("prismatic force motor", ["-j_type", "prismatic", "-j_motor", "force", "-j_motor_value", "5"])):
    jargs = ["-bodies", "beam,blk", "-beam_box", "0,-0.01,-0.01,0.2,0.01,0.01", "-beam_cells", "4,1,1", "-beam_E", "2e9", "-beam_rho", "1000",
             "-blk_type", "rigid", "-blk_motion", "free", "-blk_box", "0.2,-0.02,-0.02,0.24,0.02,0.02", "-blk_rho", "1000",
             "-joints", "pin,j", "-pin_type", "revolute", "-pin_bodies", "ground,beam", "-pin_point", "0,0,0", "-pin_axis", "0,1,0",
             "-j_bodies", "beam,blk", "-j_point", "0.2,0,0", "-j_axis", "1,0.2,0.1", "-gravity", "0,0,-9.81",
             "-t_final", "0.006", "-dt", "1e-3", "-test_jacobian", "2", "-test_jacobian_time", "0.002"] + extra
    _, proc = tdrun.run(jargs, name="jac_motor")
    vals = [float(l.split("=")[-2].split(",")[0]) for l in proc.stdout.splitlines() if OURS in l]
    checks.true("%s (ancf bar - free block), moving: %d Jacobians, max ||J - J_fd||/||J|| = %.2e <= 1e-6" % (what, len(vals), max(vals) if vals else float("nan")),
                len(vals) >= 2 and max(vals) <= 1e-6)

# 3. bad input
base = ["-bodies", "a", "-a_type", "rigid", "-a_motion", "free", "-a_box", "0,0,0,0.1,0.1,0.1", "-joints", "j", "-j_type", "revolute",
        "-j_point", "0,0,0", "-dry_run"]
for what, extra, words in (("a body that does not exist", ["-j_bodies", "a,nobody"], ["-j_bodies", "nobody"]),
                           ("an axis of zero length", ["-j_bodies", "a,ground", "-j_axis", "0,0,0"], ["-j_axis", "zero length"]),
                           ("one body", ["-j_bodies", "a"], ["-j_bodies", "two bodies"]),
                           ("a motor on a spherical joint", ["-j_bodies", "a,ground", "-j_type", "spherical", "-j_motor", "torque"], ["-j_motor", "revolute or a prismatic"]),
                           ("a torque motor on a prismatic joint", ["-j_bodies", "a,ground", "-j_type", "prismatic", "-j_motor", "torque"], ["-j_motor", "position, a speed or a force"])):
    _, proc = tdrun.run(base + extra, expect_ok=False, name="bad")
    msg = proc.stdout + proc.stderr
    checks.true("%s: refused (exit %d), the message names %s" % (what, proc.returncode, words), proc.returncode != 0 and all(w in msg for w in words))
checks.finish()
