"""Pressure loads on faces (-<l>_type pressure, formulation.md (F16)) against references that do
not come from the code:

1. A cantilever (the beam of beam_statics.py, 20 x 1 x 1 elements) under a uniform pressure p on
   its top face: a distributed load q = p b, tip deflection q L^4 / (8 E I) (Euler-Bernoulli)
   within 1 %.
2. A cube under the same pressure on all six faces (held by three point joints that allow a
   uniform dilatation), St. Venant-Kirchhoff at finite strain: a follower pressure is a true
   (Cauchy) stress -p on the deformed faces, so the uniform stretch l solves
   (3 lambda + 2 mu)(l^2 - 1) / (2 l) = -p.  With p = 0.1 E the corner moves by (l - 1)/2; a dead
   load (nominal stress) would give l (l^2 - 1)(3 lambda + 2 mu)/2 = -p, 9 % more, so the check
   tells the two apart.
3. The Jacobian of a moving, deforming cube (initial velocity, pressures ramped on three faces to
   p = 0.1 E, so that their stiffness is of the order of the material's) against central
   differences of the residual (-test_jacobian): relative error <= 1e-6.
4. Bad input: a face the body does not have, a pressure on a rigid body, a pressure load without
   -<l>_face, a face not written body:face; each a clear error naming the option.
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Pressure loads on faces: beam theory, finite-strain hydrostatic compression, Jacobian, bad input")

# 1. cantilever under a pressure on its top face
L, b, h = 0.508, 0.125 * 0.0254, 0.5 * 0.0254
E, nu, rho = 71.7e9, 0.33, 2700.0
I = b * h ** 3 / 12
p = 1e4
beam = ["-bodies", "beam", "-beam_box", "0,0,0,%g,%g,%g" % (L, b, h), "-beam_cells", "20,1,1",
        "-beam_E", str(E), "-beam_nu", str(nu), "-beam_rho", str(rho), "-beam_clamp", "xmin",
        "-sensors", "tip", "-tip_body", "beam", "-tip_point", "%g,%g,%g" % (L, b / 2, h / 2), "-static",
        "-loads", "top", "-top_type", "pressure", "-top_face", "beam:zmax", "-top_pressure", str(p), "-load_steps", "2"]
out, _ = tdrun.run(beam, name="cantilever")
t, d = tdrun.sensor(out, "tip")
checks.close("cantilever, pressure on top: tip deflection [m]", -d[-1, 2], p * b * L ** 4 / (8 * E * I), 0.01)

# 2. hydrostatic compression of a cube at finite strain
Ec, nuc, pc = 1e9, 0.3, 1e8
faces = ["xmin", "xmax", "ymin", "ymax", "zmin", "zmax"]
cube = ["-bodies", "cube", "-cube_box", "0,0,0,1,1,1", "-cube_cells", "2,2,2", "-cube_E", str(Ec), "-cube_nu", str(nuc),
        "-cube_rho", "1000", "-loads", ",".join(faces)]
for f in faces:
    cube += ["-%s_type" % f, "pressure", "-%s_face" % f, "cube:" + f, "-%s_pressure" % f, str(pc)]
cube += ["-joints", "o,x,y", "-o_body", "cube", "-o_point", "0.5,0.5,0.5", "-x_body", "cube", "-x_point", "1,0.5,0.5",
         "-x_components", "y,z", "-y_body", "cube", "-y_point", "0.5,1,0.5", "-y_components", "z",
         "-sensors", "corner", "-corner_body", "cube", "-corner_point", "1,1,1"]
out, _ = tdrun.run(cube + ["-static", "-load_steps", "4"], name="cube")
t, d = tdrun.sensor(out, "corner")
a = 2 * pc * (1 - 2 * nuc) / Ec            # 2 p / (3 lambda + 2 mu)
l_follower = (-a + np.sqrt(a * a + 4)) / 2  # l^2 + a l - 1 = 0
l_dead = [r.real for r in np.roots([1, 0, -1, a]) if abs(r.imag) < 1e-12 and 0.5 < r.real < 1.5][0]
for i, axis in enumerate("xyz"):
    checks.close("cube, p = 0.1 E on all faces: corner u_%s [m] (follower)" % axis, d[-1, i], 0.5 * (l_follower - 1), 1e-6)
checks.true("the dead-load stretch differs: (l_dead - 1)/(l_follower - 1) = %.4f" % ((l_dead - 1) / (l_follower - 1)),
            abs((l_dead - 1) / (l_follower - 1) - 1) > 0.05)

# 3. Jacobian of a moving, deforming cube under pressures
dyn = ["-bodies", "cube", "-cube_box", "0,0,0,1,1,1", "-cube_cells", "2,2,2", "-cube_E", str(Ec), "-cube_nu", str(nuc),
       "-cube_rho", "1000", "-cube_initial_velocity", "3,-1,2", "-loads", "a,b,c",
       "-a_type", "pressure", "-a_face", "cube:xmin", "-a_pressure", str(pc),
       "-b_type", "pressure", "-b_face", "cube:zmax", "-b_pressure", str(pc),
       "-c_type", "pressure", "-c_face", "cube:ymin", "-c_pressure", str(pc / 2),
       "-a_profile", "ramp", "-a_duration", "0.05", "-b_profile", "ramp", "-b_duration", "0.05", "-c_profile", "halfsine", "-c_duration", "0.1",
       "-dt", "5e-3", "-t_final", "0.06", "-test_jacobian", "2", "-test_jacobian_time", "0.05"]
out, proc = tdrun.run(dyn, name="jacobian")
errs = [float(line.split("=")[2].split(",")[0]) for line in proc.stdout.splitlines() if "Jacobian test (central differences)" in line]
checks.true("moving, compressed cube: Jacobian vs central differences, %s <= 1e-6" % ["%.2e" % e for e in errs],
            len(errs) == 2 and max(errs) <= 1e-6)

# 4. bad input
bad = [
    ("a face the body does not have", ["-top_face", "beam:top"], "-top_face: body 'beam' has no face 'top'"),
    ("a face not written body:face", ["-top_face", "zmax"], "write the face as body:face"),
    ("a body that does not exist", ["-top_face", "slab:zmax"], "there is no body 'slab'"),
]
for what, extra, message in bad:
    args = [a for a in beam]
    k = args.index("-top_face")
    args[k + 1] = extra[1]
    out, proc = tdrun.run(args, expect_ok=False, name="bad")
    err = proc.stdout + proc.stderr
    checks.true("bad input, %s: exit %d, '%s'" % (what, proc.returncode, message), proc.returncode != 0 and message in err)
args = [a for a in beam]
k = args.index("-top_face")
del args[k:k + 2]
out, proc = tdrun.run(args, expect_ok=False, name="bad")
checks.true("bad input, a pressure load without -top_face: exit %d" % proc.returncode,
            proc.returncode != 0 and "is a pressure but has no face: set -top_face" in proc.stdout + proc.stderr)
args = [a for a in beam]
args[args.index("-bodies") + 1] = "beam,block"
args[args.index("-top_face") + 1] = "block:zmax"
args += ["-block_type", "rigid", "-block_box", "0,0,-0.1,0.1,0.1,-0.05"]
out, proc = tdrun.run(args, expect_ok=False, name="bad")
checks.true("bad input, a pressure on a rigid body: exit %d" % proc.returncode,
            proc.returncode != 0 and "-top_face: body 'block' is rigid" in proc.stdout + proc.stderr)
checks.finish()
