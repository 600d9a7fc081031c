/*
  The Krylov solve's residual without a product by J, for the Krylov test by blocks
  (TdSolverKrylovBlockTest, convergence_tests.c; formulation.md §6, linear solves).

  Why.  The test by blocks needs the residual vector r_k = b - J x_k, not only its norm, to
  measure each block (bodies, films, drives).  KSPBuildResidual forms it with one product by J:
  at the finest slider-guide level about 1 900 of a run's 13 700 products (14 ms each on 2
  ranks), for a vector that the Krylov method's own products already determine.

  What.  Flexible GMRES takes x_k = x_0 + Z_k y_k with y_k minimising ||r_0 - J Z_k y||_2, so
      r_k = r_0 - J Z_k y_k = (I - Q Q^T) r_0,   Q an orthonormal basis of the images J z_j,
  the part of r_0 outside their span.  The images pass through the Krylov operator (the
  recording shell of krylov_recycle.c): each product J z_j of a preconditioner output z_j is
  orthonormalised against the earlier ones (Gram-Schmidt twice) and its component taken out of
  the tracked residual, r <- r - (q_j . r) q_j.  r_0 = b - J x_0 comes from the method's first
  product (with the initial guess x_0: the KSP's solution vector; b when the guess is zero), and
  a restart's product with the solution vector starts anew.  Any other product (a monitor's true
  residual, say) leaves the tracked residual unusable for that solve, and the test then builds
  it as before.  Cost: 2 k + 4 vector operations for the k-th product, against a product by J.
  -krylov_residual_check compares the tracked residual with KSPBuildResidual's at every test
  and stops the run if they differ by more than 1e-8 of |r_0| (rounding: 1.7e-12 on the paper's
  case with the pairs and the film stage, 0-5 ms, 1 and 2 ranks).
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/options.h>

enum { KRES_LOST, KRES_WAIT_X0, KRES_READY };

PetscErrorCode TdSolverKrylovResidualSetUp(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(TdOptionsBool(NULL, "krylov_residual_check", "with -krylov_block_test and a recording Krylov operator (-krylov_recycle): compare the residual tracked through the operator's products with b - J x at every test, and stop if they differ by more than 1e-8 of the initial residual", PETSC_FALSE, &s->kres_check, NULL));
  if (!s->Jop || !s->krylov_block_test || s->kres_r) PetscFunctionReturn(0);
  PetscCall(VecDuplicate(s->U, &s->kres_r));
  s->kres_state = KRES_LOST;
  PetscFunctionReturn(0);
}

/* At a solve's start (the KSP's pre-solve): b and the solution vector x, whose initial guess the
   method multiplies first unless it is zero. */
PetscErrorCode TdSolverKrylovResidualStart(TdSolver s, KSP ksp, Vec b, Vec x)
{
  PetscBool nonzero;
  PetscFunctionBegin;
  if (!s->kres_r) PetscFunctionReturn(0);
  PetscCall(KSPGetInitialGuessNonzero(ksp, &nonzero));
  s->kres_b        = b;
  s->kres_x        = x;
  s->kres_n        = 0;
  s->kres_products = 0;
  if (nonzero) {
    /* a zero guess is not multiplied (PETSc's KSP skips it); r_0 = b then too */
    PetscReal xn;
    PetscCall(VecNorm(x, NORM_INFINITY, &xn));
    nonzero = xn > 0 ? PETSC_TRUE : PETSC_FALSE;
  }
  if (nonzero) s->kres_state = KRES_WAIT_X0;
  else {
    PetscCall(VecCopy(b, s->kres_r));
    PetscCall(VecNorm(b, NORM_2, &s->kres_r0));
    s->kres_state = KRES_READY;
  }
  PetscFunctionReturn(0);
}

/* After the operator's product y = J x: z is the preconditioner's last output (NULL if x is not). */
PetscErrorCode TdSolverKrylovResidualProduct(TdSolver s, Vec x, Vec y, PetscBool from_pc)
{
  PetscFunctionBegin;
  if (!s->kres_r || s->kres_ignore) PetscFunctionReturn(0);
  if (x == s->kres_x) {
    /* the initial residual, or a restart's: b - J x */
    PetscCall(VecWAXPY(s->kres_r, -1, y, s->kres_b));
    PetscCall(VecNorm(s->kres_r, NORM_2, &s->kres_r0));
    s->kres_n        = 0;
    s->kres_state    = KRES_READY;
    PetscFunctionReturn(0);
  }
  if (!from_pc || s->kres_state != KRES_READY) {
    s->kres_state = KRES_LOST;
    PetscFunctionReturn(0);
  }
  s->kres_products++;
  if (s->kres_n == s->kres_alloc) {
    /* more room for the images (rarely beyond -refactor_its) */
    const PetscInt n = PetscMax(8, 2 * s->kres_alloc);
    Vec           *q;
    PetscScalar   *c;
    PetscCall(PetscMalloc1(n, &q));
    PetscCall(PetscMalloc1(n, &c));
    for (PetscInt k = 0; k < s->kres_alloc; k++) q[k] = s->kres_q[k];
    for (PetscInt k = s->kres_alloc; k < n; k++) PetscCall(VecDuplicate(s->U, &q[k]));
    PetscCall(PetscFree(s->kres_q));
    PetscCall(PetscFree(s->kres_coef));
    s->kres_q     = q;
    s->kres_coef  = c;
    s->kres_alloc = n;
  }
  {
    Vec       q = s->kres_q[s->kres_n];
    PetscReal w0, w;
    PetscCall(VecCopy(y, q));
    PetscCall(VecNorm(q, NORM_2, &w0));
    for (PetscInt pass = 0; pass < 2 && s->kres_n; pass++) {
      PetscCall(VecMDot(q, s->kres_n, s->kres_q, s->kres_coef));
      for (PetscInt k = 0; k < s->kres_n; k++) s->kres_coef[k] = -s->kres_coef[k];
      PetscCall(VecMAXPY(q, s->kres_n, s->kres_coef, s->kres_q));
    }
    PetscCall(VecNorm(q, NORM_2, &w));
    if (!(w > 1e-12 * w0)) PetscFunctionReturn(0); /* (nearly) in the span already: nothing new is removed */
    PetscCall(VecScale(q, 1 / w));
    {
      PetscScalar c;
      PetscCall(VecDot(s->kres_r, q, &c));
      PetscCall(VecAXPY(s->kres_r, -c, q));
    }
    s->kres_n++;
  }
  PetscFunctionReturn(0);
}

/* The tracked residual after the solve's it-th iteration, or NULL if it is not known. */
Vec TdSolverKrylovResidual(TdSolver s, PetscInt it)
{
  return s->kres_r && s->kres_state == KRES_READY && s->kres_products == it ? s->kres_r : NULL;
}

PetscErrorCode TdSolverKrylovResidualDestroy(TdSolver s)
{
  PetscFunctionBegin;
  if (s->kres_r && s->kres_check) PetscCall(PetscPrintf(s->comm, "tribodyn: Krylov residual tracked at %" PetscInt_FMT " of %" PetscInt_FMT " block tests, largest difference from b - J x %.3g of the initial residual\n", s->kres_used, s->kres_tests, (double)s->kres_check_max));
  PetscCall(VecDestroy(&s->kres_r));
  for (PetscInt k = 0; k < s->kres_alloc; k++) PetscCall(VecDestroy(&s->kres_q[k]));
  PetscCall(PetscFree(s->kres_q));
  PetscCall(PetscFree(s->kres_coef));
  s->kres_alloc = 0;
  PetscFunctionReturn(0);
}
