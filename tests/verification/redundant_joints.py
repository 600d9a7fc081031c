"""Redundant constraints (src/model/redundancy.c): rows that repeat others in the reference
configuration are found by Gram-Schmidt and left out (their multipliers held at 0), and the
run says which.  References:
1. A planar four-bar of free rigid bodies closed by four revolute joints (axes z): three of the
   last joint's five rows repeat the loop's out-of-plane constraints.  Exactly those three (z,
   and the two axis rows) are reported, and the motion under gravity equals that of the same
   four-bar closed by an inline joint (no redundancy) to 1e-9 m.
2. Bricard's mechanism (an orthogonal 6R loop: five unit links, 1 kg, joints at the corners of
   a skew hexagon on a unit cube, consecutive axes perpendicular; Grubler's count gives no
   mobility, yet it moves): exactly one row is redundant; under gravity (rho_inf = 1) it falls,
   its energy kinetic + potential stays constant to 1e-4 of the potential energy released,
   and every joint, the left-out row included, holds at every record (points together, axes
   parallel) to 1e-9 (the redundancy is structural).
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Redundant constraints: four-bar and Bricard's mechanism")
fb = ["-bodies", "l1,l2,l3",
      "-l1_type", "rigid", "-l1_motion", "free", "-l1_mass", "0.1", "-l1_inertia", "1e-4,1e-4,1e-4", "-l1_com", "0,0.05,0",
      "-l2_type", "rigid", "-l2_motion", "free", "-l2_mass", "0.2", "-l2_inertia", "2e-4,2e-4,2e-4", "-l2_com", "0.15,0.125,0",
      "-l3_type", "rigid", "-l3_motion", "free", "-l3_mass", "0.15", "-l3_inertia", "1.5e-4,1.5e-4,1.5e-4", "-l3_com", "0.35,0.075,0",
      "-joints", "a,b,c,d", "-a_type", "revolute", "-a_bodies", "ground,l1", "-a_point", "0,0,0",
      "-b_type", "revolute", "-b_bodies", "l1,l2", "-b_point", "0,0.1,0", "-c_type", "revolute", "-c_bodies", "l2,l3", "-c_point", "0.3,0.15,0",
      "-d_bodies", "l3,ground", "-d_point", "0.4,0,0", "-gravity", "0,-9.81,0", "-t_final", "0.5", "-dt", "1e-3",
      "-sensors", "s", "-s_body", "l2", "-s_point", "0.15,0.125,0"]
out_r, proc = tdrun.run(fb + ["-d_type", "revolute"], name="fourbar_revolute")
dropped = [l for l in proc.stdout.splitlines() if "repeats the others" in l]
rows = sorted(int(l.split("constraint row ")[1].split()[0]) for l in dropped)
checks.true("four-bar closed by revolutes: rows %s of joint 'd' reported redundant (expected its z row 2 and axis rows 3, 4)" % rows,
            rows == [2, 3, 4] and all("joint 'd'" in l for l in dropped))
out_i, _ = tdrun.run(fb + ["-d_type", "inline"], name="fourbar_inline")
a, b = tdrun.sensor(out_r, "s", "position")[1], tdrun.sensor(out_i, "s", "position")[1]
checks.true("four-bar: the coupler's centre with four revolutes and with an inline joint, worst difference %.1e m over a motion of %.3f m (<= 1e-9)"
            % (np.abs(a - b).max(), np.abs(a[-1] - a[0]).max()), np.abs(a - b).max() <= 1e-9 and np.abs(a[-1] - a[0]).max() > 0.05)

# Bricard's mechanism
coms = {"l1": (0.5, 0, 0), "l2": (1, 0.5, 0), "l3": (1, 1, 0.5), "l4": (0.5, 1, 1), "l5": (0, 0.5, 1)}
axis_of = {"l1": 0, "l2": 1, "l3": 2, "l4": 0, "l5": 1}
joints = [("j1", "ground,l1", (0, 0, 0), (0, 1, 0)), ("j2", "l1,l2", (1, 0, 0), (0, 0, 1)), ("j3", "l2,l3", (1, 1, 0), (1, 0, 0)),
          ("j4", "l3,l4", (1, 1, 1), (0, 1, 0)), ("j5", "l4,l5", (0, 1, 1), (0, 0, 1)), ("j6", "l5,ground", (0, 0, 1), (1, 0, 0))]
br = ["-bodies", ",".join(coms), "-gravity", "0,0,-9.81", "-t_final", "1", "-dt", "1e-3", "-rho_inf", "1"]
for n, c in coms.items():
    inertia = [1.0 / 12] * 3
    inertia[axis_of[n]] = 1e-4
    br += ["-%s_type" % n, "rigid", "-%s_motion" % n, "free", "-%s_mass" % n, "1", "-%s_inertia" % n, "%g,%g,%g" % tuple(inertia), "-%s_com" % n, "%g,%g,%g" % c]
br += ["-joints", ",".join(j[0] for j in joints)]
for n, bodies, p, u in joints:
    br += ["-%s_type" % n, "revolute", "-%s_bodies" % n, bodies, "-%s_point" % n, "%g,%g,%g" % p, "-%s_axis" % n, "%g,%g,%g" % u]
out, proc = tdrun.run(br, name="bricard")
dropped = [l for l in proc.stdout.splitlines() if "repeats the others" in l]
checks.true("Bricard: %d redundant row reported (%s)" % (len(dropped), dropped[0].split("tribodyn: ")[1][:60] if dropped else "none"), len(dropped) == 1)
frames = {n: tdrun.dataset(out, "/bodies/%s/frame" % n) for n in coms}
ek = tdrun.dataset(out, "/energy/kinetic")
pe = 9.81 * sum(F[:, 2] - F[0, 2] for F in frames.values())
bal = np.abs(ek + pe).max()
checks.true("Bricard falls (potential energy released %.2f J); kinetic + potential constant to %.1e J (<= 1e-4 of it)" % (-pe.min(), bal), -pe.min() > 1 and bal <= 1e-4 * -pe.min())


def point(n, X):
    F = frames[n]
    return F[:, :3] + np.einsum("k,nki->ni", np.subtract(X, coms[n]), F[:, 3:].reshape(-1, 3, 3))


def axis(n, u):
    F = frames[n]
    return np.einsum("k,nki->ni", u, F[:, 3:].reshape(-1, 3, 3))


worst = 0
for n, bodies, p, u in joints:
    A, B = bodies.split(",")
    pa = point(A, p) if A != "ground" else np.array(p, float)
    pb = point(B, p) if B != "ground" else np.array(p, float)
    ua = axis(A, u) if A != "ground" else np.array(u, float) * np.ones((len(ek), 1))
    ub = axis(B, u) if B != "ground" else np.array(u, float) * np.ones((len(ek), 1))
    worst = max(worst, np.abs(pa - pb).max(), np.abs(np.cross(ua, ub)).max())
checks.true("Bricard: every joint holds at every record (points and axes, the left-out row included) to %.1e (<= 1e-9)" % worst, worst <= 1e-9)
checks.finish()
