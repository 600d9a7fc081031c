"""The preconditioner -pc_type ancf_amg (src/solver/ancf_amg.c): algebraic multigrid on the ANCF
bodies with every node a block of 12 coordinates (clamped ones as decoupled rows) and the
rigid-body modes as near-null space.

1. The augmented matrix is the bodies' Jacobian and nothing else: with an exact solve on it
   (-ancf_pc_type lu) the preconditioner is the inverse of the Jacobian, and GMRES converges in
   one iteration per linear solve, on 1 rank and on 2 (where the partition numbers the
   unknowns rank after rank and the columns go through the map of every rank).  A row or column
   sent to the wrong slot, or a clamped slot coupled, would cost iterations.
2. It changes the preconditioner, not the operator: the guide's histories (hammer blow on the
   guide alone, cases/guide_impact.opts) equal those of the default LU to Newton's tolerance.
3. The multigrid does not lose its grip as the mesh is refined (the point of an iterative
   path): GMRES iterations per linear solve on the guide meshed 68x10x2 are not more than on
   34x5x1 (measured 35.7 and 26.5 per Newton iteration; 14.5 on 136x20x2, where ML on the unknowns
   without blocks does not converge at all).
4. A model whose Jacobian is not the bodies' alone is refused with a message naming the option."""
import os
import sys

import h5py
import numpy as np
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun

src = tdrun.SOURCE_DIR
guide = os.path.join(src, "cases/guide_impact.opts")
checks = tdrun.Checks("-pc_type ancf_amg: the bodies' Jacobian on node blocks, mesh-independent iterations")


def guide_histories(path):
    with h5py.File(path, "r") as f:
        return {q: np.array(f["/sensors/guide_mid/" + q]) for q in ("displacement", "acceleration")}


base = ["-options_file", guide, "-t_final", "1e-3"]
# 1. exact solves on the augmented matrix: one GMRES iteration per linear solve.  The Krylov
# iterations reported sum those of the Newton steps (initial accelerations apart); each Newton
# iteration is one solve.
for nproc in (1, 2):
    out, proc = tdrun.run(base + ["-pc_type", "ancf_amg", "-ancf_pc_type", "lu", "-ksp_max_it", "5"], nproc=nproc, name="exact_np%d" % nproc)
    c = tdrun.run_counts(proc)
    newton, krylov = c["newton"], c["krylov"]
    checks.true("exact solve on the augmented matrix, %d rank(s): %d Krylov iterations for %d Newton iterations (one each)" % (nproc, krylov, newton),
                newton > 0 and krylov == newton)

# 2. the same histories as the default LU
ref, proc_ref = tdrun.run(base, name="lu")
amg, proc_amg = tdrun.run(base + ["-pc_type", "ancf_amg"], name="amg")
h_ref, h_amg = guide_histories(ref), guide_histories(amg)
# each run stops Newton within its tolerance; the accelerations, 1/(beta dt^2) times the
# displacements' differences, show it most (measured 7.0e-11 and 9.8e-9)
for q, bound in (("displacement", 1e-9), ("acceleration", 3e-8)):
    rel = np.max(np.abs(h_amg[q] - h_ref[q])) / np.max(np.abs(h_ref[q]))
    checks.true("guide_mid %s, ancf_amg against LU: max rel. difference %.2e <= %.0e" % (q, rel, bound), rel <= bound)
n_ref, n_amg = tdrun.run_counts(proc_ref)["newton"], tdrun.run_counts(proc_amg)["newton"]
checks.true("Newton iterations: %d with ancf_amg, %d with LU (equal)" % (n_amg, n_ref), n_amg == n_ref > 0)

# 3. iterations per solve do not grow with the mesh (5 steps; the preconditioner is kept
# across Newton iterations as the LU is)
per = {}
for cells in ("34,5,1", "68,10,2"):
    _, proc = tdrun.run(["-options_file", guide, "-guide_cells", cells, "-t_final", "2.5e-4", "-pc_type", "ancf_amg"], name="mesh_" + cells.replace(",", "x"))
    c = tdrun.run_counts(proc)
    newton, krylov = c["newton"], c["krylov"]
    per[cells] = krylov / max(newton, 1)
    checks.true("guide %s: %.1f GMRES iterations per Newton iteration (converged, at most 40)" % (cells, per[cells]), 0 < per[cells] <= 40)
checks.true("iterations per solve on 68x10x2 (%.1f) not more than on 34x5x1 (%.1f)" % (per["68,10,2"], per["34,5,1"]),
            per["68,10,2"] <= per["34,5,1"])

# 4. not the bodies' Jacobian alone: refused, naming the option
lub = os.path.join(src, "cases/slider_guide_lubricated.opts")
out, proc = tdrun.run(["-options_file", lub, "-t_final", "5e-5", "-pc_type", "ancf_amg"], expect_ok=False, name="refused")
text = proc.stdout + proc.stderr
checks.true("the lubricated case's whole Jacobian (films, drive) refused: exit %d, message names -pc_type ancf_amg and fieldsplit" % proc.returncode,
            proc.returncode != 0 and "-pc_type ancf_amg" in text and "fieldsplit" in text)
checks.finish()
