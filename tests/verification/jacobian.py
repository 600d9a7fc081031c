"""Analytic Jacobian against finite differences, on a large-deformation static case and a
dynamic case (moving, damped, driven by the crank-slider, pinned, loaded):
||J - J_fd||_F / ||J||_F <= 1e-6 at every tested Newton iteration.

Two references:
  - tribodyn's -test_jacobian N: central differences of the residual (truncation O(h^2));
  - PETSc's -snes_test_jacobian: one-sided differences, whose truncation error is proportional
    to the step (-snes_test_err).  On the static case it reaches 1e-6 with a step of 1e-9; on the
    dynamic case the inertia term 1/(beta dt^2) amplifies the residual's roundoff so that no
    one-sided step gets below ~2e-6; there the check is that the mismatch falls tenfold from
    step 1e-7 to 1e-8 (pure truncation error, not a wrong entry).
"""
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun

PETSC = re.compile(r"\|\|J - Jfd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+)")
OURS = re.compile(r"Jacobian test \(central differences\) at t = ([0-9.eE+-]+): \|\|J - J_fd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+)")

checks = tdrun.Checks("Jacobian against finite differences")
static = ["-bodies", "beam", "-beam_box", "0,0,0,0.2,0.01,0.02", "-beam_cells", "6,1,1", "-beam_nu", "0.3",
          "-beam_clamp", "xmin", "-loads", "p", "-p_body", "beam", "-p_point", "0.2,0.005,0.01",
          "-p_force", "0,3000,-20000", "-static", "-load_steps", "2",
          "-sensors", "tip", "-tip_body", "beam", "-tip_point", "0.2,0.005,0.01"]
dynamic = ["-bodies", "slider", "-slider_box", "0,-0.02,0,0.04,0.02,0.03", "-slider_cells", "2,2,2",
           "-slider_damping", "1e-4", "-slider_E", "2e9", "-gravity", "0,0,-9.81",
           "-joints", "drive,pin", "-drive_type", "crank_slider", "-drive_body", "slider", "-drive_point", "0,0,0.015",
           "-pin_body", "slider", "-pin_point", "0.04,0,0", "-pin_components", "z",
           "-loads", "hammer", "-hammer_body", "slider", "-hammer_point", "0.02,0,0.03", "-hammer_force", "0,500,-3000",
           "-hammer_profile", "halfsine", "-hammer_duration", "2e-3", "-t_final", "1e-3", "-dt", "2.5e-4",
           "-sensors", "top", "-top_body", "slider", "-top_point", "0.02,0,0.03"]

out, proc = tdrun.run(static + ["-test_jacobian", "20"], name="static_central")
vals = [float(v) for t, v in OURS.findall(proc.stdout)]
t, d = tdrun.sensor(out, "tip")
checks.true("static: large deformation, tip moves %.3f m on a 0.2 m beam" % abs(d[-1]).max(), abs(d[-1]).max() > 0.02)
checks.true("static, central: %d Jacobians, max ratio %.2e <= 1e-6" % (len(vals), max(vals)), len(vals) >= 5 and max(vals) <= 1e-6)
out, proc = tdrun.run(static + ["-snes_test_jacobian", "-snes_test_err", "1e-9"], name="static_petsc")
vals = [float(v) for v in PETSC.findall(proc.stdout)]
checks.true("static, PETSc (step 1e-9): %d Jacobians, max ratio %.2e <= 1e-6" % (len(vals), max(vals)), len(vals) >= 5 and max(vals) <= 1e-6)

out, proc = tdrun.run(dynamic + ["-test_jacobian", "12"], name="dynamic_central")
found = OURS.findall(proc.stdout)
moving = [float(v) for t, v in found if float(t) > 0]  # t = 0: the consistent-acceleration solve
t, v = tdrun.sensor(out, "top", "velocity")
checks.true("dynamic: the slider moves (|v| = %.3f m/s)" % abs(v[-1]).max(), abs(v[-1]).max() > 0.1)
checks.true("dynamic, central: %d Jacobians, max ratio %.2e <= 1e-6" % (len(moving), max(moving)), len(moving) >= 5 and max(moving) <= 1e-6)
ratios = {}
for err in ("1e-7", "1e-8"):
    out, proc = tdrun.run(dynamic + ["-snes_test_jacobian", "-snes_test_err", err], name="dynamic_petsc" + err)
    ratios[err] = max(float(v) for v in PETSC.findall(proc.stdout))
scale = ratios["1e-7"] / ratios["1e-8"]
checks.true("dynamic, PETSc: mismatch %.2e (step 1e-7) -> %.2e (1e-8), x%.1f: truncation error" % (ratios["1e-7"], ratios["1e-8"], scale), 8 < scale < 12)
checks.finish()
