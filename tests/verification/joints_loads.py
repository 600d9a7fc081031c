"""Joints, drives, load profiles, sensors and rigid bodies against independent references.

1. Propped cantilever (clamped at x = 0, pinned in z at x = L, load P at mid-span): the pin
   carries R = 5P/16 (beam theory), from /joints/<j>/reaction.
2. Crank-slider drive of a stiff free block (no gravity; after the 5 ms start-up transient): the drive point follows
   x_c + r cos(theta) + l cos(phi) (formulation.md §4) and the drive reaction equals -m xddot
   (the only x force on the block), computed here independently of the program.
3. A table profile sampled from a half-sine gives the half-sine's history.
4. Sensor acceleration: with rho_inf = 1 (alpha_m = alpha_f, so the algorithmic acceleration is
   the true one) Newmark's beta = 1/4 identity  d_{n+1} - 2 d_n + d_{n-1} =
   dt^2 (a_{n+1} + 2 a_n + a_{n-1}) / 4  links the recorded accelerations and displacements.
5. A rigid body with constant velocity and spin: its sensor follows the analytic rotation.
6. A mesh body rotated by 30 degrees about z (meshes/rotated_box.geo) deflects under gravity
   exactly as the same axis-aligned box does (tests the slope rotation of non-aligned cells).
"""
import math
import os
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

src = tdrun.SOURCE_DIR
checks = tdrun.Checks("Joints, drives, loads, sensors, rigid and rotated bodies")

# 1. propped cantilever
L, b, h, P = 0.5, 0.01, 0.02, 100.0
beam = ["-bodies", "beam", "-beam_box", "0,0,0,%g,%g,%g" % (L, b, h), "-beam_cells", "20,1,1",
        "-beam_nu", "0.3", "-beam_clamp", "xmin", "-static", "-load_steps", "1",
        "-joints", "prop", "-prop_body", "beam", "-prop_point", "%g,%g,%g" % (L, b / 2, h / 2), "-prop_components", "z",
        "-loads", "p", "-p_body", "beam", "-p_point", "%g,%g,%g" % (L / 2, b / 2, h), "-p_force", "0,0,%g" % -P]
out, _ = tdrun.run(beam, name="propped")
R = tdrun.dataset(out, "/joints/prop/reaction")[-1]
checks.close("propped cantilever: pin reaction R_z [N]", R[2], 5 * P / 16, 0.01)
checks.true("propped cantilever: free components carry nothing", abs(R[0]) < 1e-9 and abs(R[1]) < 1e-9, str(R))

# 2. crank-slider drive of a stiff free block
r, lam, rpm, th0 = 0.1, 0.64, 600.0, 90.0
box = (0.0, -0.02, 0.0, 0.04, 0.02, 0.03)
rho = 7800.0
mass = rho * 0.04 * 0.04 * 0.03
P0 = (0.0, 0.0, 0.015)
args = ["-bodies", "block", "-block_box", ",".join(map(str, box)), "-block_cells", "2,2,2", "-block_E", "2.1e13",
        "-joints", "drive", "-drive_type", "crank_slider", "-drive_body", "block", "-drive_point", "0,0,0.015",
        "-drive_crank_radius", str(r), "-drive_rod_ratio", str(lam), "-drive_rpm", str(rpm), "-drive_theta0", str(th0),
        "-sensors", "p", "-p_body", "block", "-p_point", "0,0,0.015", "-t_final", "0.05", "-dt", "1e-4", "-rho_inf", "0.8"]
out, _ = tdrun.run(args, name="crank")
t, x = tdrun.sensor(out, "p", "position")
react = tdrun.dataset(out, "/joints/drive/reaction")
l = r / lam
w = 2 * math.pi * rpm / 60
th = math.radians(th0) + w * t
phi = np.arcsin(lam * np.sin(th))
xc = P0[0] - (r * math.cos(math.radians(th0)) + l * math.cos(math.asin(lam * math.sin(math.radians(th0)))))
x_ref = xc + r * np.cos(th) + l * np.cos(phi)
err = np.max(np.abs(x[:, 0] - x_ref))
checks.true("crank-slider: drive point follows the crank, max error %.2e m" % err, err < 1e-9)
# xddot of the crank, differentiated by hand: phi' = lam w cos(th)/cos(phi),
# phi'' = (-lam w^2 sin(th) + sin(phi) phi'^2)/cos(phi)
phid = lam * w * np.cos(th) / np.cos(phi)
phidd = (-lam * w * w * np.sin(th) + np.sin(phi) * phid ** 2) / np.cos(phi)
xdd = -r * w * w * np.cos(th) - l * (phidd * np.sin(phi) + phid ** 2 * np.cos(phi))
# the block starts unstressed, so the drive's first pull is an elastic transient; compare after 5 ms
inner = t > 5e-3
rel = np.max(np.abs(react[inner, 0] - mass * xdd[inner])) / np.max(np.abs(mass * xdd[inner]))
checks.true("crank-slider: reaction_x = m xddot, max rel. error %.2e (peak %.2f N)" % (rel, np.max(np.abs(mass * xdd))), rel < 0.01)

# 3. table profile vs half-sine
common = ["-bodies", "beam", "-beam_box", "0,0,0,0.3,0.01,0.02", "-beam_cells", "6,1,1", "-beam_clamp", "xmin",
          "-sensors", "tip", "-tip_body", "beam", "-tip_point", "0.3,0.005,0.01",
          "-loads", "f", "-f_body", "beam", "-f_point", "0.3,0.005,0.02", "-f_force", "0,0,-50",
          "-t_final", "0.006", "-dt", "1e-4"]
out, _ = tdrun.run(common + ["-f_profile", "halfsine", "-f_start", "1e-3", "-f_duration", "2e-3"], name="halfsine")
t, d_sine = tdrun.sensor(out, "tip")
table = os.path.join(tdrun.workdir("tribodyn_test_"), "force.csv")
with open(table, "w") as f:
    f.write("time [s], force [N]\n")
    for ti in np.linspace(0, 2e-3, 401):
        f.write("%.9e, %.9e\n" % (ti, 50 * math.sin(math.pi * ti / 2e-3)))
out, _ = tdrun.run(common + ["-f_profile", "table", "-f_table", table, "-f_start", "1e-3"], name="table")
t, d_table = tdrun.sensor(out, "tip")
rel = np.max(np.abs(d_table - d_sine)) / np.max(np.abs(d_sine))
checks.true("table profile = half-sine: max rel. difference %.2e" % rel, rel < 1e-4)

# 4. sensor acceleration vs second difference of displacement
out, _ = tdrun.run(common + ["-f_profile", "halfsine", "-f_start", "0", "-f_duration", "2e-3", "-dt", "2e-5",
                             "-t_final", "0.004", "-rho_inf", "1"], name="accel")
t, d = tdrun.sensor(out, "tip")
t, a = tdrun.sensor(out, "tip", "acceleration")
dt = t[1] - t[0]
dd = (d[2:, 2] - 2 * d[1:-1, 2] + d[:-2, 2]) / dt ** 2
avg = (a[2:, 2] + 2 * a[1:-1, 2] + a[:-2, 2]) / 4
rel = np.max(np.abs(avg - dd)) / np.max(np.abs(a[:, 2]))
checks.true("sensor acceleration vs displacement (Newmark identity): rel. %.2e" % rel, rel < 1e-6)

# 5. rigid body
v0 = np.array([0.1, -0.2, 0.05])
om = np.array([0.0, 0.0, 3.0])
c = np.array([0.5, 0.25, 0.05])
rig = ["-bodies", "frame", "-frame_type", "rigid", "-frame_box", "0,0,0,1,0.5,0.1", "-frame_velocity", "0.1,-0.2,0.05",
       "-frame_angular_velocity", "0,0,3", "-sensors", "s", "-s_body", "frame", "-s_point", "1,0.5,0.1",
       "-t_final", "0.5", "-dt", "0.01"]
out, _ = tdrun.run(rig, name="rigid")
t, x = tdrun.sensor(out, "s", "position")
t, v = tdrun.sensor(out, "s", "velocity")
d0 = np.array([1, 0.5, 0.1]) - c
ang = om[2] * t
x_ref = np.stack([c[0] + v0[0] * t + np.cos(ang) * d0[0] - np.sin(ang) * d0[1],
                  c[1] + v0[1] * t + np.sin(ang) * d0[0] + np.cos(ang) * d0[1],
                  c[2] + v0[2] * t + d0[2] + 0 * t], axis=1)
rd = x_ref - c - np.outer(t, v0)
v_ref = v0 + np.cross(om, rd)
checks.true("rigid body: sensor position, max error %.2e m" % np.max(np.abs(x - x_ref)), np.max(np.abs(x - x_ref)) < 1e-12)
checks.true("rigid body: sensor velocity, max error %.2e m/s" % np.max(np.abs(v - v_ref)), np.max(np.abs(v - v_ref)) < 1e-12)

# 6. rotated mesh body vs axis-aligned box
cth, sth = math.cos(math.radians(30)), math.sin(math.radians(30))
tip = np.array([0.3, 0.1, 0.05])
tip_rot = np.array([cth * tip[0] - sth * tip[1], sth * tip[0] + cth * tip[1], tip[2]])
grav = ["-gravity", "0,0,-9.81", "-static", "-load_steps", "1", "-b_E", "1e8", "-b_rho", "7800"]
out, _ = tdrun.run(["-bodies", "b", "-b_box", "0,0,0,0.3,0.2,0.1", "-b_cells", "3,2,1", "-b_clamp", "xmin",
                    "-b_clamp_slopes", "all", "-sensors", "tip", "-tip_body", "b", "-tip_point", ",".join(map(str, tip))] + grav, name="aligned")
_, d_al = tdrun.sensor(out, "tip")
out, _ = tdrun.run(["-bodies", "b", "-b_mesh", os.path.join(src, "meshes/rotated_box.geo"), "-b_clamp", "xlow",
                    "-sensors", "tip", "-tip_body", "b", "-tip_point", ",".join("%.15g" % v for v in tip_rot)] + grav, name="rotated")
_, d_rot = tdrun.sensor(out, "tip")
d_back = np.array([cth * d_rot[-1, 0] + sth * d_rot[-1, 1], -sth * d_rot[-1, 0] + cth * d_rot[-1, 1], d_rot[-1, 2]])
rel = np.max(np.abs(d_back - d_al[-1])) / np.max(np.abs(d_al[-1]))
checks.true("rotated mesh = rotated box deflection: rel. difference %.2e (tip w = %.3e m)" % (rel, d_al[-1, 2]), rel < 1e-8 and abs(d_al[-1, 2]) > 1e-4)
checks.finish()
