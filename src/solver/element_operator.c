/*
  The Krylov operator with matrix-free element blocks (-matrix_free_elements; formulation.md §6,
  linear solves).

  Why.  The default linear solver keeps the LU of an earlier Jacobian as the preconditioner of
  GMRES, and GMRES multiplies by the current Jacobian J.  So every Newton iteration formed every
  element's 96 x 96 tangent (about 0.75 million multiply-adds each) and wrote it into J, though J
  was factored only at one Jacobian in tens (the kept LU's renewals): at the finest slider-guide
  level the tangents took a sixth of a settled step, and a product with the assembled element
  blocks reads about 200 MB per rank.  A product with an element's tangent needs only what the
  tangent contracts at its Gauss points (ancf3843_linearize: F, H and the stress) and costs
  about 22 000 multiply-adds (ancf3843_tangent_apply), about as much as reading the element's
  share of the assembled blocks.

  What.  The Krylov operator Jop (krylov_recycle.c's shell) multiplies as
      J x = Jrest x + sum_e P_e^T K_e P_e x,
  Jrest the Jacobian without the element blocks (films, constraint, load and free-body blocks:
  the COO entries after the elements', assembled at every Jacobian by a map of their own) and
  K_e = c_M rho M_e + c_e dQ/de + c_v dQ/dedot of element e (F3-F5) from its linearisation at the
  Jacobian's iterate (kept by the residual at that iterate, in the pass that forms the element
  forces, when a Jacobian follows it: the first of each Newton solve; else by the Jacobian).  The tangents are formed into J only for a Jacobian that the kept LU
  factors (jacobian.c decides that before assembling) or that -test_jacobian checks.  Elements
  with follower pressures (F16), whose stiffness the kernel does not carry, keep their formed
  block and multiply by it.  The operator is J to rounding: Newton's steps and the Krylov method
  are those of the assembled J (-matrix_free_elements_check compares the two products at every
  factored Jacobian).  The film-block correction reads its film rows from Jrest, which holds
  them whole (no element writes a film row).

  How the product travels: x to each rank's ghost set (the residual's scatter, which holds every
  unknown of the rank's elements), each rank's elements into a Useq-sized array, and those
  entries added at their owners (the residual's reverse scatter).
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/options.h>
#include <omp.h>

#define NDOF ANCF3843_NDOF

/* whether local element le carries a follower pressure (its stiffness is in the formed block) */
static PetscBool HasPressure(TdModel m, PetscInt e)
{
  if (!m->element_load_offset) return PETSC_FALSE;
  for (PetscInt j = m->element_load_offset[e]; j < m->element_load_offset[e + 1]; j++)
    if (m->loads[m->element_loads[j].load].type == TD_LOAD_PRESSURE) return PETSC_TRUE;
  return PETSC_FALSE;
}

PetscErrorCode TdSolverElementOperatorSetUp(TdSolver s, KSP ksp)
{
  TdModel   m = s->model;
  PC        pc;
  PetscBool lu, preonly, given, usable;
  PetscInt  min_unknowns = 0;
  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCLU, &lu));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
  /* only where J is factored and nothing else reads its values: the (kept) LU under a Krylov
     method; the other preconditioners (fieldsplit, gamg, ancf_amg, ...) read J's blocks */
  usable = (lu || s->kept_lu) && !preonly && s->pc_reuse_ok && m->nelements > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TdOptionsInt(NULL, "matrix_free_elements_min", "default of -matrix_free_elements: on for models of at least this many unknowns", min_unknowns, &min_unknowns, NULL));
  s->mf = usable && s->N >= min_unknowns ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TdOptionsBool(NULL, "matrix_free_elements", "the Krylov operator multiplies by each element's tangent from its Gauss-point linearisation instead of the assembled element blocks, which are formed only for the kept LU's factorisations (default LU under a Krylov method only); default from -matrix_free_elements_min", s->mf, &s->mf, &given));
  PetscCheck(!given || !s->mf || m->nelements > 0, s->comm, PETSC_ERR_USER_INPUT, "Option -matrix_free_elements: this model has no ANCF elements; drop the option");
  PetscCheck(!given || !s->mf || usable, s->comm, PETSC_ERR_USER_INPUT, "Option -matrix_free_elements needs the default (kept) LU under a Krylov method: it does not combine with -pc_type other than lu, -ksp_type preonly, a VI solver or -refactor_its 0; set -matrix_free_elements false");
  if (!usable) s->mf = PETSC_FALSE;
  PetscCall(TdOptionsBool(NULL, "matrix_free_elements_check", "with -matrix_free_elements: at every Jacobian whose tangents are formed, compare the operator's product with the assembled Jacobian's on a random vector and stop if they differ by more than 1e-10 relative", PETSC_FALSE, &s->mf_check, NULL));
  /* PETSc's -snes_test_jacobian compares the matrices of every Jacobian with differences */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-snes_test_jacobian", &s->mf_form_all));
  if (!s->mf) {
    PetscCall(PetscFree2(s->mf_stash_i, s->mf_stash_j));
    PetscFunctionReturn(0);
  }

  {
    const PetscInt nl = s->nelem_local;
    PetscInt       nd = 0, nr = 0;
    PetscCall(PetscMalloc3(nl, &s->mf_lin, (size_t)nl * NDOF, &s->mf_index, nl, &s->mf_dense));
    for (PetscInt le = 0; le < nl; le++) {
      PetscInt coord[NDOF];
      TdModelElementCoordinates(m, s->elem_local[le], coord);
      for (PetscInt i = 0; i < NDOF; i++) s->mf_index[le * NDOF + i] = m->free_index[coord[i]];
      s->mf_dense[le] = HasPressure(m, s->elem_local[le]) ? nd++ : -1;
    }
    s->mf_ndense = nd;
    PetscCall(PetscMalloc1((size_t)PetscMax(nd, 1) * NDOF * NDOF, &s->mf_dense_K));
    /* the unknowns the elements write, once each */
    PetscCall(PetscMalloc1((size_t)PetscMax(nl, 1) * NDOF, &s->mf_rows));
    for (PetscInt k = 0; k < nl * NDOF; k++)
      if (s->mf_index[k] >= 0) s->mf_rows[nr++] = s->mf_index[k];
    PetscCall(PetscSortRemoveDupsInt(&nr, s->mf_rows));
    s->mf_nrows = nr;
  }
  PetscCall(VecDuplicate(s->Useq, &s->mf_x));
  PetscCall(VecDuplicate(s->Useq, &s->mf_y));
  PetscCall(VecZeroEntries(s->mf_x));
  PetscCall(VecZeroEntries(s->mf_y));
  PetscCall(MatCreate(s->comm, &s->Jrest));
  {
    PetscInt nlocal;
    PetscCall(VecGetLocalSize(s->U, &nlocal));
    PetscCall(MatSetSizes(s->Jrest, nlocal, nlocal, s->N, s->N));
  }
  PetscCall(MatSetType(s->Jrest, MATAIJ));
  /* the Krylov operator (with -krylov_recycle it exists already) and Jrest's pattern: the
     current pattern's entries, kept since TdSolverCreate built it (else the pattern again) */
  PetscCall(TdSolverKrylovOperatorCreate(s));
  if (s->mf_stash_i) PetscCall(TdSolverElementOperatorPattern(s, s->mf_stash_n, s->mf_stash_i, s->mf_stash_j));
  else PetscCall(TdSolverBuildJacobian(s));
  PetscCall(PetscFree2(s->mf_stash_i, s->mf_stash_j));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverElementOperatorPattern(TdSolver s, PetscCount n, const PetscInt ci[], const PetscInt cj[])
{
  PetscFunctionBegin;
  if (!s->mf) PetscFunctionReturn(0);
  if (s->coo_map_on) {
    PetscCall(TdCOOMapDestroy(&s->rest_map));
    PetscCall(TdCOOMapPreallocate(s->Jrest, n, ci, cj, NULL, &s->rest_map));
  } else {
    /* PETSc's COO takes the index arrays as writable */
    PetscInt *i2, *j2;
    PetscCall(PetscMalloc2(PetscMax(n, 1), &i2, PetscMax(n, 1), &j2));
    PetscCall(PetscArraycpy(i2, ci, n));
    PetscCall(PetscArraycpy(j2, cj, n));
    PetscCall(MatSetPreallocationCOO(s->Jrest, n, i2, j2));
    PetscCall(PetscFree2(i2, j2));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverElementOperatorLinearize(TdSolver s, PetscReal t1, PetscReal cM, PetscReal ce, PetscReal cv, PetscBool from_residual)
{
  TdModel m = s->model;
  PetscFunctionBegin;
  if (!s->mf) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(TD_ElementLinearize, 0, 0, 0, 0));
  s->mf_cM = cM;
  /* Jrest: the COO entries after the elements' (jacobian.c filled them) */
  {
    const PetscScalar *v = s->coo_v + TdSolverCOOAfterElements(s);
    if (s->coo_map_on) PetscCall(TdCOOMapSetValues(s->Jrest, &s->rest_map, v));
    else PetscCall(MatSetValuesCOO(s->Jrest, v, INSERT_VALUES));
  }
#pragma omp parallel
  {
    const int tid = omp_get_thread_num();
#pragma omp for schedule(dynamic, 8)
    for (PetscInt le = 0; le < s->nelem_local; le++) {
      const PetscInt  e    = s->elem_local[le];
      const TdBody   *body = &m->bodies[m->element_body[e]];
      PetscReal       eq[NDOF], ev[NDOF];
      if (s->mf_dense[le] >= 0) {
        TdSolverElementTangent(s, le, tid, t1, cM, ce, cv, &s->mf_dense_K[(size_t)s->mf_dense[le] * NDOF * NDOF]);
        continue;
      }
      if (from_residual) continue;
      TdModelElementGather(m, e, s->q1, PETSC_TRUE, eq);
      TdModelElementGather(m, e, s->v1, PETSC_FALSE, ev);
      ancf3843_linearize(&body->geometry[body->cell_geometry[m->element_cell[e]]], &body->material, eq, ev, ce, cv, &s->mf_lin[le], &s->work[tid]);
    }
  }
  PetscCall(PetscLogEventEnd(TD_ElementLinearize, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverOperatorMult(TdSolver s, Vec x, Vec y)
{
  TdModel            m  = s->model;
  VecScatter         sc = s->toghost ? s->toghost : s->toall;
  const PetscScalar *X;
  PetscScalar       *Y;
  PetscFunctionBegin;
  if (!s->mf) {
    PetscCall(MatMult(s->J, x, y));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscLogEventBegin(TD_ElementProduct, 0, 0, 0, 0));
  PetscCall(VecScatterBegin(sc, x, s->mf_x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscLogEventBegin(TD_RestProduct, 0, 0, 0, 0));
  PetscCall(MatMult(s->Jrest, x, y));
  PetscCall(PetscLogEventEnd(TD_RestProduct, 0, 0, 0, 0));
  PetscCall(VecScatterEnd(sc, x, s->mf_x, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(s->mf_x, &X));
  PetscCall(VecGetArray(s->mf_y, &Y));
  for (PetscInt k = 0; k < s->mf_nrows; k++) Y[s->mf_rows[k]] = 0;
  /* one thread: the elements add into shared rows (the product is cheap beside a solve) */
  for (PetscInt le = 0; le < s->nelem_local; le++) {
    const PetscInt *idx = &s->mf_index[(size_t)le * NDOF];
    const PetscInt  e   = s->elem_local[le];
    PetscReal       xe[NDOF], ye[NDOF];
    for (PetscInt i = 0; i < NDOF; i++) xe[i] = idx[i] >= 0 ? PetscRealPart(X[idx[i]]) : 0;
    if (s->mf_dense[le] >= 0) {
      const PetscReal *K = &s->mf_dense_K[(size_t)s->mf_dense[le] * NDOF * NDOF];
      for (PetscInt i = 0; i < NDOF; i++) {
        PetscReal t = 0;
        for (PetscInt j = 0; j < NDOF; j++) t += K[i * NDOF + j] * xe[j];
        ye[i] = t;
      }
    } else {
      const TdBody *body = &m->bodies[m->element_body[e]];
      TdModelElementToLocal(m, e, xe);
      ancf3843_tangent_apply(&body->geometry[body->cell_geometry[m->element_cell[e]]], &body->material, &s->mf_lin[le], s->mf_cM * body->rho, xe, ye, &s->work[0]);
      TdModelElementRotateForce(m, e, ye);
    }
    for (PetscInt i = 0; i < NDOF; i++)
      if (idx[i] >= 0) Y[idx[i]] += ye[i];
  }
  PetscCall(VecRestoreArray(s->mf_y, &Y));
  PetscCall(VecRestoreArrayRead(s->mf_x, &X));
  PetscCall(VecScatterBegin(sc, s->mf_y, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(sc, s->mf_y, y, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(PetscLogEventEnd(TD_ElementProduct, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* The operator against the assembled Jacobian J (its tangents formed at this iterate) on a
   random vector: they must agree to rounding. */
PetscErrorCode TdSolverElementOperatorCheck(TdSolver s, Mat J)
{
  Vec         x, y1, y2;
  PetscRandom rnd;
  PetscReal   d, n2;
  PetscFunctionBegin;
  if (!s->mf || !s->mf_check) PetscFunctionReturn(0);
  PetscCall(VecDuplicate(s->U, &x));
  PetscCall(VecDuplicate(s->U, &y1));
  PetscCall(VecDuplicate(s->U, &y2));
  PetscCall(PetscRandomCreate(s->comm, &rnd));
  PetscCall(PetscRandomSetSeed(rnd, 20261129));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(TdSolverOperatorMult(s, x, y1));
  PetscCall(MatMult(J, x, y2));
  PetscCall(VecNorm(y2, NORM_INFINITY, &n2));
  PetscCall(VecAXPY(y1, -1.0, y2));
  PetscCall(VecNorm(y1, NORM_INFINITY, &d));
  PetscCall(PetscInfo(NULL, "-matrix_free_elements_check: |J_op x - J x| / |J x| = %g\n", (double)(d / n2)));
  PetscCall(PetscPrintf(s->comm, "tribodyn: matrix-free operator against the assembled Jacobian: %.3e relative (max norm)\n", (double)(d / n2)));
  PetscCheck(d <= 1e-10 * n2, s->comm, PETSC_ERR_PLIB, "-matrix_free_elements_check: the matrix-free Krylov operator differs from the assembled Jacobian by %g relative (max norm); run with -matrix_free_elements false and report this", (double)(d / n2));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverElementOperatorDestroy(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree3(s->mf_lin, s->mf_index, s->mf_dense));
  PetscCall(PetscFree2(s->mf_stash_i, s->mf_stash_j));
  PetscCall(PetscFree(s->mf_dense_K));
  PetscCall(PetscFree(s->mf_rows));
  PetscCall(VecDestroy(&s->mf_x));
  PetscCall(VecDestroy(&s->mf_y));
  PetscCall(TdCOOMapDestroy(&s->rest_map));
  PetscCall(MatDestroy(&s->Jrest));
  PetscFunctionReturn(0);
}
