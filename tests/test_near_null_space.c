/*
  The near-null space handed to algebraic multigrid (src/solver/preconditioner.c): the six
  rigid-body modes written in ANCF coordinates (a translation moves every position and no slope;
  a rotation w turns positions and slopes alike, w x r, w x r_X, ...).  Reference, independent of
  that code: a free elastic body's stiffness annihilates exactly the infinitesimal rigid motions.
  The tangent K = dQ_int/dq of an unclamped, rotated, non-cubic body (a 3 x 2 x 2 box of Gmsh
  cells turned 30 degrees about z, so that slopes are not axis-aligned) is assembled at its
  reference state by the solver (statics mode: the Jacobian is K alone), and
    ||K v_k|| / (||K||_F ||v_k||) <= 1e-12   for each mode v_k,
  while a vector that is not rigid (a stretch) gives a ratio far from zero.  Also the modes are
  orthonormal, and on 2 ranks (each its rows, numbered by the graph partition) the same figures
  come out.
*/
#include <tribodyn/solver.h>
#include <tribodyn/options.h>
#include "td_check_petsc.h"

int main(int argc, char **argv)
{
  TdModel      model;
  TdSolver     s;
  KSP          ksp;
  PC           pc;
  MatNullSpace nns;
  const Vec   *modes;
  PetscInt     nv;
  PetscBool    has_const;
  Vec          w, stretch;
  PetscReal    knorm;
  int          failed;
  char         mesh[PETSC_MAX_PATH_LEN];

  (void)CaptureError; /* td_check_petsc.h's error capture: not needed here */
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  MeshPath(mesh, sizeof mesh, "rotated_box.geo");
  PetscCall(PetscOptionsSetValue(NULL, "-bodies", "b"));
  PetscCall(PetscOptionsSetValue(NULL, "-b_mesh", mesh));
  PetscCall(PetscOptionsSetValue(NULL, "-b_E", "2e11"));
  PetscCall(PetscOptionsSetValue(NULL, "-pc_type", "gamg"));
  PetscCall(TdOptionsInitialize(PETSC_COMM_WORLD));
  PetscCall(TdModelCreateFromOptions(PETSC_COMM_WORLD, &model));
  PetscCall(TdSolverCreate(model, &s));
  PetscCall(TdSolverSetFromOptions(s));
  PetscCall(TdSolverInitialize(s));
  s->mode        = TD_MODE_STATIC;
  s->load_factor = 0;
  PetscCall(VecZeroEntries(s->U));
  {
    /* U: the reference coordinates (statics: U holds the free coordinates) */
    PetscScalar *u;
    PetscInt     lo, hi;
    PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
    PetscCall(VecGetArray(s->U, &u));
    for (PetscInt c = 0; c < model->nfull; c++) {
      const PetscInt f = model->free_index[c] >= 0 ? s->to_petsc[model->free_index[c]] : -1; /* U: the partition's numbering */
      if (f >= lo && f < hi) u[f - lo] = model->q_ref[c];
    }
    PetscCall(VecRestoreArray(s->U, &u));
  }
  PetscCall(TdSolverJacobian(s->snes, s->U, s->J, s->J, s));
  PetscCall(SNESGetKSP(s->snes, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(MatGetNearNullSpace(s->J, &nns));
  CHECK(nns != NULL, "-pc_type gamg: the Jacobian carries a near-null space");
  PetscCall(MatNullSpaceGetVecs(nns, &has_const, &nv, &modes));
  CHECK(nv == 6 && !has_const, "six modes (got %d)", (int)nv);
  PetscCall(MatNorm(s->J, NORM_FROBENIUS, &knorm));
  PetscCall(VecDuplicate(s->U, &w));
  for (PetscInt k = 0; k < nv; k++) {
    PetscReal nrm, vn;
    PetscCall(MatMult(s->J, modes[k], w));
    PetscCall(VecNorm(w, NORM_2, &nrm));
    PetscCall(VecNorm(modes[k], NORM_2, &vn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mode %d (%s): ||K v|| / (||K||_F ||v||) = %.2e\n", (int)k, k < 3 ? "translation" : "rotation", (double)(nrm / (knorm * vn))));
    CHECK(nrm / (knorm * vn) <= 1e-12, "mode %d: ||K v||/(||K|| ||v||) = %g > 1e-12", (int)k, (double)(nrm / (knorm * vn)));
    for (PetscInt j = 0; j <= k; j++) {
      PetscScalar d;
      PetscCall(VecDot(modes[k], modes[j], &d));
      CHECK(PetscAbsReal(PetscRealPart(d) - (j == k ? 1 : 0)) <= 1e-12, "modes %d, %d: dot %g, expected %d", (int)k, (int)j, (double)PetscRealPart(d), j == k);
    }
  }
  {
    /* a stretch along x (positions x X, slope r_X scaled): not rigid, so K does not vanish on it */
    PetscScalar *v;
    PetscInt     lo, hi;
    PetscReal    nrm, vn;
    PetscCall(VecDuplicate(s->U, &stretch));
    PetscCall(VecZeroEntries(stretch));
    PetscCall(VecGetOwnershipRange(stretch, &lo, &hi));
    PetscCall(VecGetArray(stretch, &v));
    for (PetscInt c = 0; c < model->nfull; c++) {
      const PetscInt f = model->free_index[c] >= 0 ? s->to_petsc[model->free_index[c]] : -1, slot = c % TD_NODE_DOF;
      if (f < lo || f >= hi) continue;
      if (slot == 0) v[f - lo] = model->q_ref[c];
      if (slot == 3) v[f - lo] = 1;
    }
    PetscCall(VecRestoreArray(stretch, &v));
    PetscCall(MatMult(s->J, stretch, w));
    PetscCall(VecNorm(w, NORM_2, &nrm));
    PetscCall(VecNorm(stretch, NORM_2, &vn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "a stretch (not rigid): ||K v|| / (||K||_F ||v||) = %.2e\n", (double)(nrm / (knorm * vn))));
    CHECK(nrm / (knorm * vn) >= 1e-3, "a stretch must not be in K's null space: ratio %g", (double)(nrm / (knorm * vn)));
    PetscCall(VecDestroy(&stretch));
  }
  PetscCall(VecDestroy(&w));
  PetscCall(TdSolverDestroy(&s));
  PetscCall(TdModelDestroy(&model));
  PetscCall(TdOptionsFinalize());
  PetscCall(TdChecksSummary(&failed));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
