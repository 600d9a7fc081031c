"""Torques at a material point of an ANCF body (-<l>_type torque, formulation.md (F19)), applied
through the gradients of the point, against closed forms:

1. The cantilever of beam_statics.py under an end moment (pure bending, Euler-Bernoulli):
   small rotation theta = M L/(EI) = 0.01, u_z = L (1 - cos theta)/theta within 0.2 %; and the
   elastica at theta = 1 rad, a circular arc: u_x = L sin(theta)/theta - L and
   u_z = L (1 - cos theta)/theta within 0.5 % (a moment of fixed direction: the arc is exact).
2. A free, nearly rigid cube spun up by a half-sine torque pulse about z: angular velocity
   H / I_z (H = 2 M0 T / pi, I_z = m a^2/6) and the angle turned, within 1e-3.
3. The Jacobian of the spinning cube during the pulse against central differences: <= 1e-6.
4. Bad input: a table profile with a zero torque.
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Torques: pure bending, elastica, spin-up, Jacobian")
L, b, h = 0.508, 0.125 * 0.0254, 0.5 * 0.0254
E, nu, rho = 71.7e9, 0.33, 2700.0
I = b * h ** 3 / 12
tip = "%g,%g,%g" % (L, b / 2, h / 2)
for theta, tol, steps in ((0.01, 0.002, 2), (1.0, 0.005, 20)):
    M = E * I * theta / L
    args = ["-bodies", "beam", "-beam_box", "0,0,0,%g,%g,%g" % (L, b, h), "-beam_cells", "20,1,1", "-beam_E", str(E), "-beam_nu", str(nu),
            "-beam_rho", str(rho), "-beam_clamp", "xmin", "-sensors", "tip", "-tip_body", "beam", "-tip_point", tip, "-static",
            "-load_steps", str(steps), "-loads", "m", "-m_type", "torque", "-m_body", "beam", "-m_point", tip, "-m_torque", "0,%g,0" % -M]
    out, _ = tdrun.run(args, name="bending%g" % theta)
    t, d = tdrun.sensor(out, "tip")
    checks.close("end moment, theta = %g rad: tip u_z [m]" % theta, d[-1, 2], L * (1 - np.cos(theta)) / theta, tol)
    if theta > 0.1:
        checks.close("end moment, theta = %g rad: tip u_x [m]" % theta, d[-1, 0], L * np.sin(theta) / theta - L, tol)

M0, T = 10.0, 0.01
args = ["-bodies", "blk", "-blk_box", "-0.05,-0.05,-0.05,0.05,0.05,0.05", "-blk_cells", "1,1,1", "-blk_E", "2e9", "-blk_rho", "1000",
        "-loads", "m", "-m_type", "torque", "-m_body", "blk", "-m_point", "0,0,0", "-m_torque", "0,0,%g" % M0, "-m_profile", "halfsine",
        "-m_duration", str(T), "-sensors", "c", "-c_body", "blk", "-c_point", "0.05,0,0", "-t_final", "0.02", "-dt", "1e-4",
        "-test_jacobian", "2", "-test_jacobian_time", "0.006"]
out, proc = tdrun.run(args, name="spin")
Iz = 1.0 * (0.1 ** 2 + 0.1 ** 2) / 12
w_ref = 2 * M0 * T / np.pi / Iz
ang_ref = M0 * T ** 2 / (np.pi * Iz) + w_ref * (0.02 - T)
with tdrun.h5py.File(out, "r") as f:
    v, x = f["sensors/c/velocity"][-1], f["sensors/c/position"][-1]
checks.close("spin-up: angular velocity [rad/s]", np.linalg.norm(v) / np.linalg.norm(x), w_ref, 1e-3)
checks.close("spin-up: angle turned [rad]", np.arctan2(x[1], x[0]), ang_ref, 1e-3)
errs = [float(line.split("=")[2].split(",")[0]) for line in proc.stdout.splitlines() if "Jacobian test (central differences)" in line]
checks.true("spinning cube under a torque: Jacobian vs central differences %s <= 1e-6" % ["%.1e" % e for e in errs], len(errs) == 2 and max(errs) <= 1e-6)

_, proc = tdrun.run(["-bodies", "blk", "-blk_box", "0,0,0,1,1,1", "-loads", "m", "-m_type", "torque", "-m_body", "blk", "-m_point", "0.5,0.5,0.5",
                     "-m_profile", "table", "-m_table", "/nonexistent.csv", "-t_final", "1e-3", "-dt", "1e-3"], expect_ok=False, name="bad")
checks.true("bad input, a table profile with a zero torque: exit %d" % proc.returncode,
            proc.returncode != 0 and "zero -torque (give the axis)" in proc.stdout + proc.stderr)
checks.finish()
