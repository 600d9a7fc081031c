"""Matrix-free element blocks in the Krylov operator (-matrix_free_elements,
src/solver/element_operator.c) change how J x is computed, not J:

1. At every Jacobian whose tangents are formed (each factorisation of the kept LU), the
   operator's product with a random vector equals the assembled Jacobian's (which -test_jacobian
   and -snes_test_jacobian check against differences of the residual) to 1e-12 relative
   (-matrix_free_elements_check; rounding gives about 1e-15): on the lubricated slider-guide case
   over 0-3 ms (deformed, moving, lubricated and cavitated states) on 1 rank and on 2 ranks under
   -state_ghosts_check; on a moving cube under follower pressures (whose elements keep their
   formed blocks); and on the free curved ring of meshes/ring.geo (slopes mapped to each cell's
   parametric axes).
2. The slider-guide histories with and without it agree to Newton's tolerances (1e-8 of the
   peaks), with the same Newton iterations and factorisations, and the tangents were formed only
   for the factorisations (the run's last line counts them).
3. Bad input: the option with a preconditioner that reads J's blocks is refused, naming it.
"""
import os
import re
import sys

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

src = tdrun.SOURCE_DIR
case = os.path.join(src, "cases/slider_guide_lubricated.opts")
checks = tdrun.Checks("Matrix-free element blocks: the operator equals the assembled Jacobian")


def check_lines(proc):
    return [float(x) for x in re.findall(r"matrix-free operator against the assembled Jacobian: (\S+) relative", proc.stdout)]


short = ["-options_file", case, "-t_final", "3e-3"]
res, its = {}, {}
for name, nproc, extra in (("assembled", 1, ["-matrix_free_elements", "false"]),
                           ("free", 1, ["-matrix_free_elements", "true", "-matrix_free_elements_check"]),
                           ("free_np2", 2, ["-matrix_free_elements", "true", "-matrix_free_elements_check", "-state_ghosts_check"])):
    out, proc = tdrun.run(short + extra, nproc=nproc, name=name)
    res[name], its[name] = tdrun.rig_histories(out), tdrun.run_counts(proc)
    if name != "assembled":
        e = check_lines(proc)
        checks.true("%s: operator vs assembled J at %d factorisations, max %.2e <= 1e-12" % (name, len(e), max(e) if e else -1),
                    len(e) == its[name]["factorisations"] and len(e) > 0 and max(e) <= 1e-12)
        m = re.search(r"element tangents formed at (\d+) of (\d+) Jacobians", proc.stdout)
        formed = (int(m.group(1)), int(m.group(2))) if m else (-1, -1)
        checks.true("%s: tangents formed at %d of %d Jacobians, as many as factorisations (%d)" % (name, formed[0], formed[1], its[name]["factorisations"]),
                    formed[0] == its[name]["factorisations"] and formed[1] > 2 * formed[0])
tdrun.check_same_histories(checks, res["assembled"], res["free"], "free vs assembled")
tdrun.check_same_histories(checks, res["assembled"], res["free_np2"], "free_np2 vs assembled", (("slider", 2e-8), ("guide_mid", 2e-8), ("p", 2e-8)))
checks.true("Newton iterations and factorisations: %d, %d free, %d, %d assembled (Newton within 1)" % (its["free"]["newton"], its["free"]["factorisations"], its["assembled"]["newton"], its["assembled"]["factorisations"]),
            abs(its["free"]["newton"] - its["assembled"]["newton"]) <= 1 and its["free"]["newton"] > 0)

# follower pressures on a moving, deforming cube (pressure_loads.py's Jacobian case)
Ec, nuc, pc = 1e9, 0.3, 1e8
cube = ["-bodies", "cube", "-cube_box", "0,0,0,1,1,1", "-cube_cells", "2,2,2", "-cube_E", str(Ec), "-cube_nu", str(nuc),
        "-cube_rho", "1000", "-cube_damping", "1e-4", "-cube_initial_velocity", "3,-1,2", "-loads", "a,b",
        "-a_type", "pressure", "-a_face", "cube:xmin", "-a_pressure", str(pc), "-b_type", "pressure", "-b_face", "cube:zmax",
        "-b_pressure", str(pc), "-a_profile", "ramp", "-a_duration", "0.05", "-b_profile", "ramp", "-b_duration", "0.05",
        "-dt", "5e-3", "-t_final", "0.06", "-matrix_free_elements", "true", "-matrix_free_elements_check", "-refactor_its", "3"]
out, proc = tdrun.run(cube, name="cube")
e = check_lines(proc)
checks.true("moving cube under follower pressures: %d checks, max %.2e <= 1e-12" % (len(e), max(e) if e else -1), len(e) > 0 and max(e) <= 1e-12)

# the free curved ring (hex8 cells of a Gmsh mesh: each cell's slopes in its own axes)
ring = ["-bodies", "ring", "-ring_mesh", os.path.join(src, "meshes", "ring.geo"), "-ring_E", "2.1e11", "-ring_nu", "0.3",
        "-ring_rho", "7800", "-ring_damping", "1e-5", "-loads", "pa", "-pa_body", "ring", "-pa_point", "0.1025,0,0.0025",
        "-pa_force", "5e4,1e4,0", "-pa_profile", "halfsine", "-pa_duration", "3e-4", "-t_final", "2e-4", "-dt", "1e-5",
        "-matrix_free_elements", "true", "-matrix_free_elements_check", "-refactor_its", "3"]
out, proc = tdrun.run(ring, name="ring")
e = check_lines(proc)
checks.true("free curved ring, struck: %d checks, max %.2e <= 1e-12" % (len(e), max(e) if e else -1), len(e) > 0 and max(e) <= 1e-12)

# bad input
out, proc = tdrun.run(short + ["-t_final", "1e-4", "-pc_type", "gamg", "-matrix_free_elements", "true"], expect_ok=False, name="bad")
checks.true("bad input, -matrix_free_elements with -pc_type gamg: exit %d" % proc.returncode,
            proc.returncode != 0 and "Option -matrix_free_elements needs the default (kept) LU" in proc.stdout + proc.stderr)
checks.finish()
