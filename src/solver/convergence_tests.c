/*
  Convergence tests of the Newton-Krylov solve (solver_private.h): the Newton test by residual
  blocks (bodies, films, drives; formulation.md §6) with the bodies' rounding floor, and the
  Krylov test by blocks (-krylov_block_test).
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <inttypes.h>

/* Norms of the residual blocks: body coordinates, film pressures, constraint rows. */
static PetscErrorCode BlockNorms(TdSolver s, Vec F, PetscReal nrm[3])
{
  const PetscScalar *f;
  PetscInt           lo, hi;
  const PetscInt     bounds[4] = {0, s->model->nfree, s->model->row_offset, s->N};
  PetscFunctionBegin;
  nrm[0] = nrm[1] = nrm[2] = 0;
  PetscCall(VecGetOwnershipRange(F, &lo, &hi));
  PetscCall(VecGetArrayRead(F, &f));
  for (PetscInt k = 0; k < hi - lo; k++) {
    PetscInt b = 0;
    while (s->owned[k] >= bounds[b + 1]) b++;
    nrm[b] += PetscSqr(PetscRealPart(f[k]));
  }
  PetscCall(VecRestoreArrayRead(F, &f));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, nrm, 3, MPIU_REAL, MPIU_SUM, s->comm));
  for (PetscInt b = 0; b < 3; b++) nrm[b] = PetscSqrtReal(nrm[b]);
  PetscFunctionReturn(0);
}

/*
  The Krylov test of -krylov_block_test: PETSc's default test (relative 1e-10, absolute a tenth
  of the smallest block tolerance, divergence, iteration limit), and besides it convergence once
  every block of the linear residual b - J x (bodies, films, drives) lies below its share of its
  own Newton tolerance (-krylov_block_fraction, default a tenth, or after a step of one Newton
  iteration -krylov_block_fraction_settled; set by TdSolverConvergenceTest at Newton iteration 0).  Why: the film block's
  tolerance (1e-9 per node) lies orders below the bodies' (1e-9 of p_ref x area), and holding the
  whole residual to the smaller one over-solved the body rows; a tenth of its tolerance is what
  the Newton test needs (a smaller share for the bodies makes the converged positions depend
  less on where each Krylov solve stops: see -krylov_block_fraction).  The residual is built (one product with
  J) only when the Krylov method's residual norm (the true one, under right preconditioning)
  could pass: every block below its bound implies a 2-norm below the bounds' 2-norm.
  Time steps only: a static solve (no mass term) of a stiff, spring-held body is
  ill-conditioned, and there the over-solving is what makes its displacements accurate beyond
  the Newton test (curved_bodies: 5e-6 relative with the test by blocks, against 1e-6 asked); a
  static solve is also done once, not at every step.
*/
PetscErrorCode TdSolverKrylovBlockTest(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  TdSolver  s = (TdSolver)ctx;
  Vec       r;
  PetscReal nrm[3];
  PetscFunctionBegin;
  PetscCall(KSPConvergedDefault(ksp, it, rnorm, reason, s->krylov_default_ctx));
  if (*reason != KSP_CONVERGED_ITERATING || it == 0 || s->mode != TD_MODE_DYNAMIC || !(rnorm <= s->krylov_block_tol_norm)) PetscFunctionReturn(0);
  /* the residual tracked through the operator's products (krylov_residual.c) if it is known,
     else b - J x (one product) */
  r = TdSolverKrylovResidual(s, it);
  s->kres_tests++;
  s->kres_used += r ? 1 : 0;
  if (!r || s->kres_check) {
    Vec rt;
    s->kres_ignore = r ? PETSC_TRUE : PETSC_FALSE; /* the check's product leaves the tracking as it is */
    PetscCall(KSPBuildResidual(ksp, s->krylov_t, s->krylov_r, &rt));
    s->kres_ignore = PETSC_FALSE;
    if (r) {
      /* -krylov_residual_check: the tracked residual against b - J x; the test still decides
         with the tracked one, as a run without the check does */
      PetscReal d;
      PetscCall(VecWAXPY(s->krylov_t, -1, r, rt));
      PetscCall(VecNorm(s->krylov_t, NORM_2, &d));
      d /= PetscMax(s->kres_r0, PETSC_SMALL * PETSC_SMALL);
      s->kres_check_max = PetscMax(s->kres_check_max, d);
      PetscCheck(d <= 1e-8, s->comm, PETSC_ERR_PLIB, "-krylov_residual_check: the tracked Krylov residual differs from b - J x by %g of the initial residual at iteration %" PetscInt_FMT " (krylov_residual.c)", (double)d, it);
    } else r = rt; /* not tracked: b - J x */
  }
  PetscCall(BlockNorms(s, r, nrm));
  for (PetscInt b = 0; b < 3; b++)
    if (nrm[b] > s->krylov_block_tol[b]) PetscFunctionReturn(0);
  PetscCall(PetscInfo(ksp, "Krylov residual blocks %g %g %g below a tenth of their Newton tolerances at iteration %" PetscInt_FMT "\n", (double)nrm[0], (double)nrm[1], (double)nrm[2], it));
  *reason = KSP_CONVERGED_ATOL;
  PetscFunctionReturn(0);
}

/*
  The bodies' rounding floor.  ANCF coordinates are absolute positions: a coordinate known to its
  last bit is uncertain by half an ulp, which the stiffness turns into a residual of about
  K ulp(q)/2 per coordinate, however exact the arithmetic.  At the finest slider-guide level
  Newton's body residual stopped falling at 1.25e-6 N (109 000 coordinates), 0.8 of the bodies'
  fixed tolerance (1.6e-6 N); the paper's rig placed 10 m from the origin (ulp 30 times larger)
  took 14.8 Newton iterations per step instead of 1.9, ending its steps by the
  three-iterations-without-halving rule or halving them.  The estimate below gave 6.0e-7 N on the
  paper's meshes (their residual stops at 6.9e-7 N) and 1.9e-6 N at the finest level.
  Measured, not modelled: the body residual at U with every body coordinate moved by one ulp
  (signs from a hash of its natural index, so that the estimate is the same on any partition and
  every run) minus the residual at U is about sqrt(12) times the rms of the half-ulp rounding a
  converged iterate carries; the Newton test holds the bodies to at least twice that rms
  (BlockTolerance).  One extra residual every TD_FLOOR_PERIOD Newton solves of time steps (a
  retried step counts); static solves keep the floor rule of TdSolverConvergenceTest.
*/
#define TD_FLOOR_PERIOD 50
static PetscErrorCode EstimateBodyFloor(TdSolver s, SNES snes, Vec F)
{
  Vec                U;
  PetscInt           n, off;
  PetscScalar       *u;
  PetscReal          nrm[3];
  const PetscBool    jac_ready = s->film_jac_ready;
  TdFilmHit        **hits, **node_hits;
  PetscFunctionBegin;
  PetscCall(PetscMalloc2(PetscMax(s->model->nfilms, 1), &hits, PetscMax(s->model->nfilms, 1), &node_hits));
  PetscCall(SNESGetSolution(snes, &U));
  if (!s->floor_u) {
    PetscCall(VecDuplicate(U, &s->floor_u));
    PetscCall(VecDuplicate(U, &s->floor_r));
  }
  PetscCall(VecCopy(U, s->floor_u));
  PetscCall(TdSolverOwnedSlice(s, 0, s->model->nfree, NULL, &n, &off));
  PetscCall(VecGetArray(s->floor_u, &u));
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal x  = PetscRealPart(u[off + k]);
    const PetscInt  up = (PetscInt)((((uint64_t)s->owned[off + k] + 1) * 2654435761u >> 13) & 1); /* natural index: any partition */
    u[off + k]         = nextafter(x, up ? PETSC_INFINITY : PETSC_NINFINITY);
  }
  PetscCall(VecRestoreArray(s->floor_u, &u));
  /* no side effects on the Newton solve: the cavitation branches are kept (in_test) and the
     projections' starting faces (hits) restored, so that a run whose floor lies below its
     tolerance is bitwise what it was without the estimate */
  for (PetscInt fi = 0; fi < s->model->nfilms; fi++) {
    const TdFilm  *f  = &s->model->films[fi];
    const PetscInt nq = 8 * (f->quad_end - f->quad_start), nn = 2 * (f->node_end - f->node_start); /* this rank's (film.h) */
    PetscCall(PetscMalloc2(PetscMax(nq, 1), &hits[fi], PetscMax(nn, 1), &node_hits[fi]));
    PetscCall(PetscArraycpy(hits[fi], f->hits, nq));
    PetscCall(PetscArraycpy(node_hits[fi], f->node_hits, nn));
  }
  s->in_test = PETSC_TRUE;
  PetscCall(TdSolverResidual(snes, s->floor_u, s->floor_r, s));
  s->in_test = PETSC_FALSE;
  for (PetscInt fi = 0; fi < s->model->nfilms; fi++) {
    TdFilm *f = &s->model->films[fi];
    PetscCall(PetscArraycpy(f->hits, hits[fi], 8 * (f->quad_end - f->quad_start)));
    PetscCall(PetscArraycpy(f->node_hits, node_hits[fi], 2 * (f->node_end - f->node_start)));
    PetscCall(PetscFree2(hits[fi], node_hits[fi]));
  }
  PetscCall(PetscFree2(hits, node_hits));
  PetscCall(VecAXPY(s->floor_r, -1, F));
  PetscCall(BlockNorms(s, s->floor_r, nrm));
  s->body_floor = nrm[0] / PetscSqrtReal(12.0);
  /* back to the iterate U (the state arrays, and the film Jacobian its first residual filled) */
  s->film_jac_ready = jac_ready;
  PetscCall(TdSolverIterateFromVec(s, U, PETSC_FALSE));
  PetscCall(PetscInfo(snes, "bodies' rounding floor %g (tolerance %g)\n", (double)s->body_floor, (double)s->block_atol[0]));
  PetscFunctionReturn(0);
}

/* The Newton tolerance of block b (bodies, films, drives) in the current solve. */
static PetscReal BlockTolerance(TdSolver s, PetscInt b)
{
  PetscReal tol = PetscMax(s->block_atol[b], s->block_rtol * s->block_norm0[b]);
  if (b == 0 && s->mode == TD_MODE_DYNAMIC) tol = PetscMax(tol, 2 * s->body_floor);
  return tol;
}

/*
  Newton convergence judged on the scaled residual blocks separately (formulation.md §6): the
  body forces [N], the film rows (dimensionless, -R/scale) and the constraint rows [N] each
  converge when ||F_b|| <= max(atol_b, rtol ||F_b,0||).  A Newton step below 1e-12 ||x|| is
  converged too, and so is a residual that has fallen 1e-5 below its start and then stopped
  halving for three iterations: it has reached its rounding floor, which for stiff bodies and
  films under large loads lies above rtol.  PETSc's divergence tests (NaN, iteration limit)
  still apply.
*/
PetscErrorCode TdSolverConvergenceTest(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  TdSolver  s = (TdSolver)ctx;
  Vec       F;
  PetscReal nrm[3];
  PetscInt  maxit;
  PetscFunctionBegin;
  *reason = SNES_CONVERGED_ITERATING;
  PetscCall(SNESGetFunction(snes, &F, NULL, NULL));
  PetscCall(BlockNorms(s, F, nrm));
  if (it == 0) {
    for (PetscInt b = 0; b < 3; b++) s->block_norm0[b] = nrm[b];
    s->fnorm0 = s->fnorm_best = fnorm;
    s->it_best = 0;
    if (s->mode == TD_MODE_DYNAMIC && !s->in_test && s->floor_steps_left-- <= 0) {
      PetscCall(EstimateBodyFloor(s, snes, F));
      s->floor_steps_left = TD_FLOOR_PERIOD - 1;
    }
  } else if (fnorm < 0.5 * s->fnorm_best) {
    s->fnorm_best = fnorm;
    s->it_best    = it;
  }
  if (s->monitor_blocks) PetscCall(PetscPrintf(s->comm, "    %2" PetscInt_FMT " |R_bodies| %.6e  |R_films| %.6e  |R_drives| %.6e  |dx| %.3e\n", it, (double)nrm[0], (double)nrm[1], (double)nrm[2], (double)snorm));
  if (PetscIsInfOrNanReal(fnorm)) {
    *reason = SNES_DIVERGED_FNORM_NAN;
    PetscFunctionReturn(0);
  }
  {
    PetscBool ok = PETSC_TRUE;
    for (PetscInt b = 0; b < 3; b++)
      if (nrm[b] > BlockTolerance(s, b)) ok = PETSC_FALSE;
    if (ok) {
      *reason = it == 0 ? SNES_CONVERGED_FNORM_ABS : SNES_CONVERGED_FNORM_RELATIVE;
      PetscFunctionReturn(0);
    }
  }
  if (it == 0 && !s->ksp_atol_given) {
    /* The Krylov solves of this Newton solve need only a linear residual well below the
       smallest block tolerance (a tenth of it: each block's share of the 2-norm is then below a
       tenth of its own tolerance); the quadratic error of the Newton step is usually larger.
       Below that the relative tolerance (1e-10) rules, as before.  Solving to 1e-10 of a
       predictor residual dominated by the bodies over-solved by about two orders.  Set once
       per solve: the block tolerances are fixed at iteration 0.  With -krylov_block_test
       (TdSolverKrylovBlockTest) each block is held to its share of its own tolerance instead
       (-krylov_block_fraction, a tenth by default). */
    KSP       ksp;
    PetscReal rtol, atol, dtol, thr = PETSC_MAX_REAL;
    PetscInt  maxits;
    /* after a step of one Newton iteration, the settled shares (-krylov_block_fraction_settled) */
    const PetscReal *share = s->mode == TD_MODE_DYNAMIC && s->last_step_its >= 0 && s->last_step_its <= 1 ? s->krylov_block_fraction_settled : s->krylov_block_fraction;
    s->krylov_block_tol_norm = 0;
    for (PetscInt b = 0; b < 3; b++) {
      const PetscReal tol_b = BlockTolerance(s, b);
      thr                   = PetscMin(thr, tol_b);
      s->krylov_block_tol[b] = share[b] * tol_b;
      s->krylov_block_tol_norm += PetscSqr(s->krylov_block_tol[b]);
    }
    s->krylov_block_tol_norm = PetscSqrtReal(s->krylov_block_tol_norm);
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetTolerances(ksp, &rtol, &atol, &dtol, &maxits));
    PetscCall(KSPSetTolerances(ksp, rtol, 0.1 * thr, dtol, maxits));
  }
  if (it > 0 && snorm <= 1e-12 * xnorm) {
    *reason = SNES_CONVERGED_SNORM_RELATIVE;
    PetscFunctionReturn(0);
  }
  /* the rounding floor: at least 1e-5 below the start, and three iterations without halving it */
  if (it >= s->it_best + 3 && s->fnorm_best <= 1e-5 * s->fnorm0) {
    *reason = SNES_CONVERGED_FNORM_RELATIVE;
    PetscFunctionReturn(0);
  }
  PetscCall(SNESGetTolerances(snes, NULL, NULL, NULL, &maxit, NULL));
  if (it >= maxit) *reason = SNES_DIVERGED_MAX_IT;
  PetscFunctionReturn(0);
}

