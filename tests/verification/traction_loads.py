"""Traction loads on faces (-<l>_type traction, formulation.md (F16b)): a force per unit reference
area, fixed in direction (a dead load), on a box face and on the curved outer face of a tube.

The bodies are held by a statically determinate 3-2-1 support (point joints: one point held in
x, y, z, a second in y, z, a third in z), so the joints' reactions balance the applied load
exactly whatever the body's deformation: their sum must be -t A, A the face's reference area.
1. A box 20 x 10 x 5 mm (2 x 1 x 1 cells), t = (1e5, -2e4, 3e4) Pa on zmax (A = 2e-4 m^2),
   -static: the sum within 1e-9 of |t| A.
2. The tube of meshes/tube.geo (a = 0.05, b = 0.1, L = 0.02 m), second-order cells, t = 1e5 Pa
   along x on its outer face (A = 2 pi b L): the face's reference area is that of the cells'
   cubic Hermite geometry, within O(h^4) of the cylinder's: 24 cells around within 1e-5 (4.9e-6
   seen), 48 within 1e-6, and the error falls by at least 10 (fourth order: 16).
3. Bad input: a traction without a face, on a rigid body, and on a face the body does not have,
   each refused naming the option.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
tmp = tdrun.workdir(prefix="traction_")
checks = tdrun.Checks("Traction loads on faces against the reactions of a 3-2-1 support")


def supports(A, B, C):
    return ["-joints", "A,B,C", "-A_body", "b", "-A_point", A, "-B_body", "b", "-B_point", B, "-B_components", "y,z",
            "-C_body", "b", "-C_point", C, "-C_components", "z", "-static"]


def reactions(out):
    return sum(tdrun.dataset(out, "/joints/%s/reaction" % j)[-1] for j in "ABC")


t = np.array([1e5, -2e4, 3e4])
out, _ = tdrun.run(["-bodies", "b", "-b_box", "0,0,0,0.02,0.01,0.005", "-b_cells", "2,1,1",
                    "-loads", "tr", "-tr_type", "traction", "-tr_face", "b:zmax", "-tr_traction", "%g,%g,%g" % tuple(t)]
                   + supports("0,0,0", "0.02,0,0", "0,0.01,0"), name="box")
R, F = reactions(out), t * 0.02 * 0.01
checks.true("box, t on zmax: sum of reactions %s against -t A = %s, off by %.1e of |t| A" % (np.round(R, 6), -F, np.linalg.norm(R + F) / np.linalg.norm(F)),
            np.linalg.norm(R + F) <= 1e-9 * np.linalg.norm(F))
errs = []
for NT in (6, 12):
    geo = os.path.join(tmp, "tube%d.geo" % NT)
    with open(geo, "w") as f:
        f.write("NT = %d; NR = 1; NZ = 1;\nMesh.ElementOrder = 2;\nInclude \"%s\";\n" % (NT, os.path.join(src, "meshes/tube.geo")))
    out, _ = tdrun.run(["-bodies", "b", "-b_mesh", geo, "-loads", "tr", "-tr_type", "traction", "-tr_face", "b:outer", "-tr_traction", "1e5,0,0"]
                       + supports("0.1,0,0", "-0.1,0,0", "0,0.1,0"), name="tube%d" % NT)
    R, F = reactions(out), np.array([1e5 * 2 * math.pi * 0.1 * 0.02, 0, 0])
    errs.append(np.linalg.norm(R + F) / np.linalg.norm(F))
    checks.true("tube, %d second-order cells around, t along x on the outer face: reactions off -t 2 pi b L by %.2e (<= %g)"
                % (4 * NT, errs[-1], 1e-5 if NT == 6 else 1e-6), errs[-1] <= (1e-5 if NT == 6 else 1e-6))
checks.true("tube: the area error falls by %.1f (>= 10) when the cells are halved" % (errs[0] / errs[1]), errs[0] / errs[1] >= 10)
box = ["-bodies", "b", "-b_box", "0,0,0,0.02,0.01,0.005", "-loads", "tr", "-tr_type", "traction", "-tr_traction", "1,0,0", "-dry_run"]
for what, args, words in (("no face", box, ["-tr_face"]),
                          ("rigid body", box + ["-b_type", "rigid", "-tr_face", "b:zmax"], ["-tr_face", "rigid"]),
                          ("missing face", box + ["-tr_face", "b:top"], ["-tr_face", "top"])):
    _, proc = tdrun.run(args, expect_ok=False, name="bad")
    msg = proc.stdout + proc.stderr
    checks.true("%s: refused (exit %d), the message names %s" % (what, proc.returncode, words), proc.returncode != 0 and all(w in msg for w in words))
checks.finish()
