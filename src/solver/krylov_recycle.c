/*
  Recycled Krylov directions for the kept LU (-krylov_recycle; formulation.md §6, linear solves).

  Why.  Between factorisations the preconditioner M is the LU of an older Jacobian.  As the
  Jacobian J drifts, J M^{-1} moves away from the identity and GMRES needs more iterations per
  solve (on the finest slider-guide level, settled: 1 after a factorisation, then 2, 3 and 4 per
  step).  The directions in which M^{-1} errs change little from one step to the next, and
  GMRES finds them again in every solve.

  What.  Right-preconditioned GMRES multiplies each preconditioned vector z = P^{-1} v by J: a
  pair (z, J z) that tells how J acts, for free.  The Krylov operator (Jop, a shell around J)
  keeps up to recycle_max such pairs of a solve.  At the start of the next solve they are
  orthonormalised in their images (J U~ = Q, Q^T Q = I) and make the two-level preconditioner
      P^{-1} r = U~ Q^T r + M^{-1} (r - Q Q^T r),
  exact on span(Q) for the Jacobian they were formed with: J P^{-1} q = q there.  GMRES needs
  a fixed preconditioner within a solve, hence pairs pass from one solve to the next only.
  They pass only from one first Newton iteration to the next, i.e. when the last step took one
  Newton iteration: across a step's iterations, or after a step that took several (an impact, a
  moving cavitation front), the Jacobian moves too far and stale pairs cost more iterations
  than they save (on 20 cavitating steps of the finest level, 3 to 7 more factorisations).
  A new factorisation drops them (M then is J).  The operator stays J, so the Newton step is
  unchanged.  The pending pairs and the last solve's Newton iteration are checkpointed
  (checkpoint.c), so that a restart stays exact.

  Cost: two vector copies per application, the Gram-Schmidt of the pairs once per solve, and
  2 k vector operations per application with k pairs kept.
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/options.h>

/* The Krylov operator: J's product, which also keeps (z, J z) when z is the preconditioner's
   last output (right-preconditioned GMRES multiplies each z = P^{-1} v by J next) */
static PetscErrorCode RecordedMult(Mat A, Vec x, Vec y)
{
  TdSolver s;
  PetscFunctionBegin;
  PetscCall(MatShellGetContext(A, &s));
  PetscCall(TdSolverOperatorMult(s, x, y));
  PetscCall(TdSolverKrylovResidualProduct(s, x, y, x == s->recycle_last ? PETSC_TRUE : PETSC_FALSE));
  if (x == s->recycle_last && s->recycle_pending < s->recycle_max) {
    PetscCall(VecCopy(x, s->recycle_pz[s->recycle_pending]));
    PetscCall(VecCopy(y, s->recycle_pc[s->recycle_pending]));
    s->recycle_pending++;
  }
  s->recycle_last = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverRecycleSetFromOptions(TdSolver s)
{
  PetscFunctionBegin;
  {
    /* default: 8 pairs from -krylov_recycle_min unknowns on.  Measured: the finest slider-guide
       level (136 000 unknowns) 1438 s against 1593 s; the paper's case (7 700) neutral (7.83 s
       against 7.86 s, two more factorisations), and there the pairs widened the spread between
       runs on different rank counts (4 ranks against 1 over 0-15 ms: 1.2e-8 against 4.8e-9) */
    PetscInt min_unknowns = 50000;
    PetscCall(TdOptionsInt(NULL, "krylov_recycle_min", "default of -krylov_recycle: 8 pairs for models of at least this many unknowns, else none", min_unknowns, &min_unknowns, NULL));
    s->recycle_max = s->N >= min_unknowns ? 8 : 0;
  }
  PetscCall(TdOptionsInt(NULL, "krylov_recycle", "Newton-Krylov with a kept LU: at most this many pairs (z, J z) of the last Krylov solve correct the kept LU in the next, from one single-iteration Newton step to the next (0: none); default from -krylov_recycle_min", s->recycle_max, &s->recycle_max, NULL));
  PetscCheck(s->recycle_max >= 0, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_recycle must be 0 (none) or a positive number of kept pairs, not %" PetscInt_FMT, s->recycle_max);
  PetscFunctionReturn(0);
}

/* the Krylov operator that keeps the pairs, and their vectors */
PetscErrorCode TdSolverRecycleSetUp(TdSolver s)
{
  PetscFunctionBegin;
  if (!s->recycle_max) PetscFunctionReturn(0);
  PetscCall(TdSolverKrylovOperatorCreate(s));
  PetscCall(VecDuplicateVecs(s->U, s->recycle_max, &s->recycle_q));
  PetscCall(VecDuplicateVecs(s->U, s->recycle_max, &s->recycle_u));
  PetscCall(VecDuplicateVecs(s->U, s->recycle_max, &s->recycle_pz));
  PetscCall(VecDuplicateVecs(s->U, s->recycle_max, &s->recycle_pc));
  PetscCall(PetscMalloc1(s->recycle_max, &s->recycle_coef));
  PetscCall(VecDuplicate(s->U, &s->recycle_t));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverKrylovOperatorCreate(TdSolver s)
{
  PetscInt nlocal;
  PetscFunctionBegin;
  if (s->Jop) PetscFunctionReturn(0);
  PetscCall(VecGetLocalSize(s->U, &nlocal));
  PetscCall(MatCreateShell(s->comm, nlocal, nlocal, s->N, s->N, s, &s->Jop));
  PetscCall(MatShellSetOperation(s->Jop, MATOP_MULT, (void (*)(void))RecordedMult));
  PetscCall(SNESSetJacobian(s->snes, s->Jop, s->J, TdSolverJacobian, s));
  PetscFunctionReturn(0);
}

/* drops every kept and pending pair */
PetscErrorCode TdSolverRecycleReset(TdSolver s)
{
  PetscFunctionBegin;
  s->recycle_n       = 0;
  s->recycle_pending = 0;
  s->recycle_last    = NULL;
  PetscFunctionReturn(0);
}

/* The last solve's pairs, orthonormalised in their images (Gram-Schmidt twice): U~ and Q with
   J U~ = Q for that solve's J.  At the start of a solve, Newton iteration it of its step: only
   from one first iteration to the next (the last step took one Newton iteration); else the
   Jacobian has moved too far from the pairs' (cavitation fronts, impacts), and they cost more
   iterations than they save. */
PetscErrorCode TdSolverRecycleCommit(TdSolver s, PetscInt it)
{
  PetscBool use;
  PetscFunctionBegin;
  if (!s->recycle_max) PetscFunctionReturn(0);
  use             = it == 0 && s->recycle_it == 0 ? PETSC_TRUE : PETSC_FALSE;
  s->recycle_it   = it;
  s->recycle_n    = 0;
  if (!use) s->recycle_pending = 0;
  for (PetscInt p = 0; p < s->recycle_pending; p++) {
    Vec       c = s->recycle_q[s->recycle_n], z = s->recycle_u[s->recycle_n];
    PetscReal c0, rho;
    PetscCall(VecCopy(s->recycle_pz[p], z));
    PetscCall(VecCopy(s->recycle_pc[p], c));
    PetscCall(VecNorm(c, NORM_2, &c0));
    if (!(c0 > 0)) continue;
    for (PetscInt pass = 0; pass < 2 && s->recycle_n; pass++) {
      PetscCall(VecMDot(c, s->recycle_n, s->recycle_q, s->recycle_coef));
      for (PetscInt k = 0; k < s->recycle_n; k++) s->recycle_coef[k] = -s->recycle_coef[k];
      PetscCall(VecMAXPY(c, s->recycle_n, s->recycle_coef, s->recycle_q));
      PetscCall(VecMAXPY(z, s->recycle_n, s->recycle_coef, s->recycle_u));
    }
    PetscCall(VecNorm(c, NORM_2, &rho));
    if (rho <= 1e-3 * c0) continue; /* (nearly) in the span already */
    PetscCall(VecScale(c, 1 / rho));
    PetscCall(VecScale(z, 1 / rho));
    s->recycle_n++;
  }
  s->recycle_pending = 0;
  PetscFunctionReturn(0);
}

/* z = U~ Q^T r + M^{-1}(r - Q Q^T r), M^{-1} = apply(ctx) */
PetscErrorCode TdSolverRecycleApply(TdSolver s, PetscErrorCode (*apply)(void *, Vec, Vec), void *ctx, Vec r, Vec z)
{
  PetscFunctionBegin;
  if (s->recycle_n) {
    PetscCall(VecMDot(r, s->recycle_n, s->recycle_q, s->recycle_coef));
    PetscCall(VecCopy(r, s->recycle_t));
    for (PetscInt k = 0; k < s->recycle_n; k++) s->recycle_coef[k] = -s->recycle_coef[k];
    PetscCall(VecMAXPY(s->recycle_t, s->recycle_n, s->recycle_coef, s->recycle_q));
    PetscCall(apply(ctx, s->recycle_t, z));
    for (PetscInt k = 0; k < s->recycle_n; k++) s->recycle_coef[k] = -s->recycle_coef[k];
    PetscCall(VecMAXPY(z, s->recycle_n, s->recycle_coef, s->recycle_u));
  } else PetscCall(apply(ctx, r, z));
  s->recycle_last = s->recycle_max ? z : NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverRecycleDestroy(TdSolver s)
{
  PetscFunctionBegin;
  if (s->recycle_q) {
    PetscCall(VecDestroyVecs(s->recycle_max, &s->recycle_q));
    PetscCall(VecDestroyVecs(s->recycle_max, &s->recycle_u));
    PetscCall(VecDestroyVecs(s->recycle_max, &s->recycle_pz));
    PetscCall(VecDestroyVecs(s->recycle_max, &s->recycle_pc));
    PetscCall(PetscFree(s->recycle_coef));
    PetscCall(VecDestroy(&s->recycle_t));
  }
  PetscCall(MatDestroy(&s->Jop));
  PetscFunctionReturn(0);
}
