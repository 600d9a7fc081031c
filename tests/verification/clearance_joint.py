"""Revolute clearance joints (-<j>_type clearance, formulation.md (F24)): a pin on one body in a
hole on another (or on ground), dry Lankarani-Nikravesh contact with regularised Coulomb
friction, against references computed here:

1. A pin resting in a hole under gravity: the penetration (m g / K)^(1/n) with K from Flores'
   formula for a pin of radius R - c in a hole of radius R (steel, E = 210 GPa, nu = 0.3).
2. A pin thrown at the wall without gravity (v0 = 0.1 m/s, c_e = 0.8): its rebound speed against
   an RK4 integration of m delta'' = -K delta^n (1 + 3 (1 - c_e^2)/4 delta'/v0).
3. A spinning pin (50 rad/s, mu = 0.2) sitting at the bottom of the hole: friction drags it up
   the wall and it swings like a pendulum about tan(phi) = -mu while the friction brakes its
   spin; its angle phi and its rotation against an RK4 integration of the rigid-contact equations
   m c phi'' = F_T - m g sin phi, F_N = m g cos phi + m c phi'^2, I w' = R_A F_T.
4. The Jacobian of that sliding contact against central differences, its error falling as the
   square of the step.
5. The slider-crank of cases/slider_crank_{ideal,dry}.opts: with an ideal joint the slider
   follows the closed-form kinematics x = r cos(wt) + sqrt(l^2 - r^2 sin^2(wt)) (position and
   acceleration); with the clearance joint the pin stays within the clearance plus the largest
   penetration K delta^n can reach with the contact force seen, the contact's Jacobian against
   central differences at an impact.
6. A restart from a checkpoint inside a contact repeats the uninterrupted run.
7. Bad input: no radius, a clearance not below the radius, the pin on ground, a restitution
   above 1.
"""
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(TOP)  # the slider-crank cases include cases/slider_crank_common.inc from the top
checks = tdrun.Checks("Clearance joints: rest, rebound, friction, Jacobian, slider-crank, bad input")

m, R, c, RA = 0.01, 0.01, 5e-4, 0.0095
I = 0.5 * m * RA * RA
s = (1 - 0.3 ** 2) / 210e9
K = 4.0 / (3.0 * 2 * s) * np.sqrt(RA * R / (R - RA))
pin = ["-bodies", "pin", "-pin_type", "rigid", "-pin_motion", "free", "-pin_mass", str(m), "-pin_inertia", "%.10g,%.10g,%.10g" % (I, I, I),
       "-pin_com", "0,0,0", "-joints", "C", "-C_type", "clearance", "-C_bodies", "pin,ground", "-C_point", "0,0,0", "-C_axis", "0,0,1",
       "-C_radius", str(R), "-C_clearance", str(c), "-sensors", "pc", "-pc_body", "pin", "-pc_point", "0,0,0"]


def rk4(rhs, y, h, n):
    for _ in range(n):
        k1 = rhs(y)
        k2 = rhs(y + h / 2 * k1)
        k3 = rhs(y + h / 2 * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


# 1. rest
out, _ = tdrun.run(pin + ["-gravity", "0,-9.81,0", "-C_restitution", "0.3", "-C_mu_dry", "0", "-t_final", "0.1", "-dt", "1e-5",
                          "-output_dt", "1e-3"], name="rest")
d = tdrun.dataset(out, "/joints/C/penetration")
e = tdrun.dataset(out, "/joints/C/eccentricity")
ref = (m * 9.81 / K) ** (1 / 1.5)
err = abs(d[-1] - ref) / ref
checks.true("pin at rest in the hole: penetration %.6e m against (m g/K)^(2/3) = %.6e m (K = %.4e N/m^1.5): %.1e" % (d[-1], ref, K, err), err <= 1e-6)
checks.true("... at the bottom: eccentricity (%.2e, %.6e) m" % (e[-1][0], e[-1][1]), abs(e[-1][0]) < 1e-12 and abs(-e[-1][1] - c - ref) < 1e-12)

# 2. rebound
v0, ce = 0.1, 0.8
out, _ = tdrun.run(pin + ["-pin_initial_velocity", "0,-%g,0" % v0, "-C_restitution", str(ce), "-C_mu_dry", "0", "-t_final", "0.008",
                          "-dt", "1e-6", "-output_dt", "1e-5"], name="rebound")
_, v = tdrun.sensor(out, "pc", "velocity")


def impact(y):
    dl, dd = y
    return np.array([dd, -K * max(dl, 0.0) ** 1.5 * (1 + 0.75 * (1 - ce * ce) * dd / v0) / m])


y, h = np.array([0.0, v0]), 1e-9
while True:
    yn = rk4(impact, y, h, 1)
    if yn[0] < 0:
        break
    y = yn
e_ref = -y[1] / v0
e_got = v[-1][1] / v0
checks.true("rebound at c_e = %.1f: exit/approach speed %.5f against %.5f (RK4 of the contact law): %.1e" % (ce, e_got, e_ref, abs(e_got - e_ref) / e_ref),
            abs(e_got - e_ref) / e_ref <= 2e-3)

# 3. spinning pin dragged up the wall by friction
mu, w0, eps = 0.2, 50.0, 1e-3
d0 = (m * 9.81 / K) ** (1 / 1.5)
spin = pin + ["-C_point2", "0,%.12g,0" % (c + d0), "-gravity", "0,-9.81,0", "-pin_initial_angular_velocity", "0,0,%g" % w0,
              "-C_restitution", "0.9", "-C_mu_dry", str(mu), "-C_friction_velocity", str(eps)]
out, _ = tdrun.run(spin + ["-t_final", "0.06", "-dt", "1e-5", "-output_dt", "1e-3"], name="friction")
t = tdrun.dataset(out, "/time")
fr = tdrun.dataset(out, "/bodies/pin/frame")
e = tdrun.dataset(out, "/joints/C/eccentricity")
phi = np.arctan2(e[:, 0], -e[:, 1])
th = np.unwrap(np.arctan2(fr[:, 4], fr[:, 3]))


def swing(y):
    ph, dph, _, w = y
    FN = m * 9.81 * np.cos(ph) + m * c * dph ** 2
    vt = c * dph + RA * w
    FT = -mu * FN * vt / np.sqrt(vt * vt + eps * eps)
    return np.array([dph, (FT - m * 9.81 * np.sin(ph)) / (m * c), w, RA * FT / I])


y, refs = np.array([0.0, 0.0, 0.0, w0]), []
for k in range(len(t)):
    if k:
        y = rk4(swing, y, 1e-6, int(round((t[k] - t[k - 1]) / 1e-6)))
    refs.append(y.copy())
refs = np.array(refs)
ephi, eth = np.abs(phi - refs[:, 0]).max(), np.abs(th - refs[:, 2]).max()
checks.true("spinning pin, mu = %.1f: the swing phi in [%.3f, %.3f] rad (about -atan(mu) = %.3f) within %.1e rad of RK4" % (mu, phi.min(), phi.max(), -np.arctan(mu), ephi),
            ephi <= 1e-4 and phi.min() < -0.35)
checks.true("... its spin braked from %g to %.2f rad/s (RK4 %.2f), rotation within %.1e rad" % (w0, np.gradient(th, t)[-2], refs[-2, 3], eth), eth <= 1e-5)

# 4. Jacobian of the sliding contact
errs = {}
for step in ("1e-7", "1e-8"):
    _, proc = tdrun.run(spin + ["-t_final", "0.0301", "-dt", "1e-5", "-test_jacobian", "1", "-test_jacobian_time", "0.03",
                                "-test_jacobian_step", step], name="jac")
    errs[step] = [float(line.split("=")[2].split(",")[0]) for line in proc.stdout.splitlines() if "block qq" in line]
ok = all(len(v) == 1 for v in errs.values())
checks.true("sliding contact, Jacobian block qq against central differences: %s at relative steps 1e-7, 1e-8 (<= 1e-6, falling as step^2)"
            % ["%.1e" % v[0] for v in errs.values() if v], ok and errs["1e-8"][0] <= 1e-6 and errs["1e-8"][0] < 0.05 * errs["1e-7"][0])

# 5. slider-crank
r, l, w = 0.05, 0.12, 5000 * 2 * np.pi / 60
out, _ = tdrun.run(["-options_file", os.path.join(TOP, "cases", "slider_crank_ideal.opts"), "-t_final", "0.012"], name="sc_ideal")
t, x = tdrun.sensor(out, "slider_centre", "position")
_, a = tdrun.sensor(out, "slider_centre", "acceleration")
th = w * t
xr = r * np.cos(th) + np.sqrt(l * l - (r * np.sin(th)) ** 2)
# d2x/dt2 of the closed form, differentiated by hand
sq = np.sqrt(l * l - (r * np.sin(th)) ** 2)
ar = w * w * (-r * np.cos(th) - (r * r * np.cos(2 * th)) / sq - (r ** 4 * np.sin(2 * th) ** 2) / (4 * sq ** 3))
ex, ea = np.abs(x[:, 0] - xr).max(), np.abs(a[:, 0] - ar).max() / np.abs(ar).max()
checks.true("slider-crank, ideal joint: slider position within %.1e m, acceleration within %.1e of its peak %.0f m/s^2" % (ex, ea, np.abs(ar).max()),
            ex <= 1e-9 and ea <= 1e-4)
out, proc = tdrun.run(["-options_file", os.path.join(TOP, "cases", "slider_crank_dry.opts"), "-t_final", "0.006"], name="sc_dry")
e = np.linalg.norm(tdrun.dataset(out, "/joints/C/eccentricity"), axis=1)
F = np.linalg.norm(tdrun.dataset(out, "/joints/C/reaction"), axis=1)
Kc = 4.0 / (3.0 * 2 * (1 - 0.09) / 207e9) * np.sqrt(0.0095 * 0.01 / 0.0005)
bound = 0.0005 + (F.max() / Kc) ** (1 / 1.5)
checks.true("slider-crank, clearance joint (0-6 ms): |e| <= %.4e m (c + (F_max/K)^(2/3), F_max = %.0f N), contact in %.0f %% of the records"
            % (e.max(), F.max(), 100 * (e > 0.0005).mean()), e.max() <= bound * 1.02 and e.max() > 0.0005 and F.max() > 0)
_, proc = tdrun.run(["-options_file", os.path.join(TOP, "cases", "slider_crank_dry.opts"), "-t_final", "0.005603",
                     "-test_jacobian", "1", "-test_jacobian_time", "0.0056"], name="sc_jac")
jerr = [float(line.split("=")[2].split(",")[0]) for line in proc.stdout.splitlines() if "Jacobian test (central differences)" in line]
checks.true("slider-crank in contact at 5.6 ms: Jacobian against central differences %s <= 1e-6" % ["%.1e" % v for v in jerr], len(jerr) == 1 and jerr[0] <= 1e-6)

# 6. restart inside a contact and past half a crank turn: the approach speed and the unwrapped
# angle come back from the checkpoint, and the continued run repeats the uninterrupted one
dry = ["-options_file", os.path.join(TOP, "cases", "slider_crank_dry.opts"), "-dt", "2e-6", "-threads_policy", "fixed"]
full, _ = tdrun.run(dry + ["-t_final", "0.008"], name="sc_full")
part, _ = tdrun.run(dry + ["-t_final", "0.007", "-checkpoint_dt", "0.007"], name="sc_part")
pen = tdrun.dataset(part, "/joints/C/penetration")
proc = subprocess.run([tdrun.EXE, "-restart", part, "-t_final", "0.008", "-progress", "false"], capture_output=True, text=True,
                      env=dict(os.environ, OMP_NUM_THREADS="1"))
checks.true("restart exits 0 (%d)" % proc.returncode, proc.returncode == 0)
diff = max(np.abs(tdrun.dataset(full, k) - tdrun.dataset(part, k)).max() for k in
           ("/joints/C/reaction", "/joints/C/eccentricity", "/joints/O/angle", "/sensors/slider_centre/acceleration"))
ang = tdrun.dataset(part, "/joints/O/angle")
checks.true("restart at 7 ms (in contact: %s, crank angle %.2f rad): continued histories equal to the uninterrupted run (%.1e)"
            % (bool(pen[-1] > 0), ang[-1], diff), diff == 0 and ang[-1] > np.pi and pen[-1] > 0)

# 7. bad input
base = pin + ["-t_final", "1e-4", "-dt", "1e-5"]
k = base.index("-C_radius")
for what, args, message in (("no radius", base[:k] + base[k + 2:], "set -C_radius R"),
                            ("a zero radius", base + ["-C_radius", "0"], "-C_radius = 0"),
                            ("clearance not below the radius", base + ["-C_clearance", "0.02"], "-C_clearance = 0.02"),
                            ("the pin on ground", base + ["-C_bodies", "ground,pin"], "cannot be ground"),
                            ("restitution above 1", base + ["-C_restitution", "1.5"], "-C_restitution = 1.5")):
    _, proc = tdrun.run(args, expect_ok=False, name="bad")
    checks.true("bad input, %s: exit %d, '%s'" % (what, proc.returncode, message), proc.returncode != 0 and message in proc.stdout + proc.stderr)
checks.finish()
