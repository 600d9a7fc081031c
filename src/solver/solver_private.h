#ifndef TRIBODYN_SOLVER_PRIVATE_H
#define TRIBODYN_SOLVER_PRIVATE_H
/* Solver internals shared by the files of src/solver/ (solver.c, residual.c, jacobian.c,
   iterate.c, convergence_tests.c, checkpoint.c, ...). */
#include <tribodyn/solver.h>

/* -log_view events of the residual and the Jacobian (registered by TdSolverCreate) */
extern PetscLogEvent TD_ElementForces, TD_ElementTangents, TD_FilmResidual, TD_FilmFused, TD_FilmJacobian, TD_FilmPattern, TD_JacobianValues, TD_JacobianPattern, TD_ElementLinearize, TD_ElementProduct, TD_RestProduct;
/* iterate.c: the Jacobian coefficients of the current mode, c_M (inertia), c_e (stiffness), c_v
   (damping); the iterate's q1, v1, a1, qdd1 (full vectors) from the unknown vector u on the
   coordinates of TdSolverIterateRuns, or from the distributed U (to every rank first: whole, or
   only each rank's ghost set); the time
   the iterate belongs to; a spring's ends (positions, velocities), a torque's moment, a
   pressure's and a traction's value and a motor's value at time t in this solve (statics: the
   full value times the load factor) */
void           TdSolverModeCoefficients(TdSolver s, PetscReal *cM, PetscReal *ce, PetscReal *cv);
void           TdSolverIterateFromUnknowns(TdSolver s, const PetscScalar u[]);
PetscErrorCode TdSolverIterateFromVec(TdSolver s, Vec U, PetscBool whole);
PetscReal      TdSolverStepTime(TdSolver s);
void           TdSolverSpringEnds(TdSolver s, const TdLoad *load, PetscReal xa[3], PetscReal xb[3], PetscReal va[3], PetscReal vb[3]);
void           TdSolverTorqueAt(TdSolver s, const TdLoad *load, PetscReal t, PetscReal M[3]);
PetscReal      TdSolverPressureAt(TdSolver s, const TdLoad *load, PetscReal t);
void           TdSolverTractionAt(TdSolver s, const TdLoad *load, PetscReal t, PetscReal tr[3]);
PetscReal      TdSolverMotorValueAt(TdSolver s, const TdJoint *joint, PetscReal t);
/* convergence_tests.c: the Newton test by blocks (SNESSetConvergenceTest) and the Krylov test by
   blocks (KSPSetConvergenceTest, -krylov_block_test) */
PetscErrorCode TdSolverConvergenceTest(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx);
PetscErrorCode TdSolverKrylovBlockTest(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx);
/* jacobian.c: the tangent block (96 x 96, global slopes) of local element le at the iterate */
void           TdSolverElementTangent(TdSolver s, PetscInt le, int tid, PetscReal t1, PetscReal cM, PetscReal ce, PetscReal cv, PetscReal K[]);
/* element_operator.c (-matrix_free_elements): the option and set-up (after the kept LU's, with
   the KSP); Jrest's pattern from the COO entries after the elements' (PETSc's numbering); the
   elements' linearisations at a Jacobian's iterate (from_residual: the residual at that iterate
   kept them already, but for the elements with formed blocks); the Krylov operator's product (J's own when
   the option is off); its check against J's product; destruction */
PetscErrorCode TdSolverElementOperatorSetUp(TdSolver s, KSP ksp);
PetscErrorCode TdSolverElementOperatorPattern(TdSolver s, PetscCount n, const PetscInt ci[], const PetscInt cj[]);
PetscErrorCode TdSolverElementOperatorLinearize(TdSolver s, PetscReal t1, PetscReal cM, PetscReal ce, PetscReal cv, PetscBool from_residual);
PetscErrorCode TdSolverOperatorMult(TdSolver s, Vec x, Vec y);
PetscErrorCode TdSolverElementOperatorCheck(TdSolver s, Mat J);
PetscErrorCode TdSolverElementOperatorDestroy(TdSolver s);
/* krylov_recycle.c: the Krylov operator Jop (TdSolverOperatorMult, recording the pairs of
   -krylov_recycle), made the SNES's operator with J as the preconditioner's matrix */
PetscErrorCode TdSolverKrylovOperatorCreate(TdSolver s);
/* The Jacobian's COO pattern from the model's coupling pattern (a new pattern drops the
   factorisation). */
PetscErrorCode TdSolverBuildJacobian(TdSolver s);
/* coo_v: this rank's element blocks first, then the films' entries and the rest (Jrest's) */
static inline PetscCount TdSolverCOOAfterElements(TdSolver s)
{
  return (PetscCount)s->nelem_local * ANCF3843_NDOF * ANCF3843_NDOF;
}
/* Whether natural unknown i is a row of U this rank owns (it forms the cavitation branch of a
   film row it owns: residual.c, jacobian.c) */
static inline PetscBool TdSolverRowMine(TdSolver s, PetscInt i)
{
  return s->to_petsc[i] >= s->own_lo && s->to_petsc[i] < s->own_hi ? PETSC_TRUE : PETSC_FALSE;
}
/* state_ghosts.c: each rank's ghost set from its pattern (natural numbering), the residual back
   from it (TdSolverIterateScatter, TdSolverSameIterate: solver.h) */
PetscErrorCode TdSolverGhostsSetUp(TdSolver s, PetscCount ncoo, const PetscInt ci[], const PetscInt cj[]);
PetscErrorCode TdSolverGhostsUpdate(TdSolver s, PetscBool wide);
PetscErrorCode TdSolverResidualScatter(TdSolver s, Vec R);
PetscErrorCode TdSolverGhostsDestroy(TdSolver s);
/* The runs of full coordinates that a residual or Jacobian visits in the state arrays (q1, v1,
   the residual's per-thread arrays): the ghost set's (state_ghosts.c) when Useq holds it alone,
   else one run over all nfull.  Outside the set the state is older and nothing reads it; the
   check (-state_ghosts_check) visits all, so that a read or write outside shows. */
static inline PetscBool TdSolverGhostOnly(TdSolver s)
{
  return s->toghost && !s->useq_whole && !s->ghost_check ? PETSC_TRUE : PETSC_FALSE;
}
static inline PetscInt TdSolverIterateRuns(TdSolver s, const PetscInt **run)
{
  if (TdSolverGhostOnly(s)) {
    *run = s->ghost_run;
    return s->nghost_run;
  }
  *run = s->whole_run;
  return 1;
}
/* The same entries of arrays indexed like the unknowns (length N, natural numbering): the ghost
   set's when TdSolverGhostOnly, else all N.  A copy of the iterate (or of the film rows) kept
   for a later pass at the same iterate, its comparison and a zeroing then cost what the set
   costs, not N on every rank (state_ghosts.c). */
void      TdSolverCopyRead(TdSolver s, const PetscScalar from[], PetscScalar to[]);
PetscBool TdSolverEqualRead(TdSolver s, const PetscScalar a[], const PetscScalar b[]);
void      TdSolverZeroRead(TdSolver s, PetscScalar a[]);
/* s->free_full (nfree: the full coordinate of each free unknown), made once */
PetscErrorCode TdSolverFreeFull(TdSolver s);
/* A full array's entries at this rank's own free coordinates in U's layout, the rank's other
   entries 0: *w is s->state_w (what the owners send: state_ghosts.c, checkpoint.c) */
PetscErrorCode TdSolverStatePack(TdSolver s, const PetscReal state[], Vec *w);
/* film_rows.c (several ranks): the film rows this rank's quads fill, summed at their owners (r:
   the natural rows; the owned film rows become whole, the others 0), and the owners' cavitation
   branches back to the ranks whose quads fill those rows */
PetscErrorCode TdSolverFilmRowsSetUp(TdSolver s);
PetscErrorCode TdSolverFilmRowsToOwners(TdSolver s, PetscScalar r[]);
PetscErrorCode TdSolverFilmFlagsFromOwners(TdSolver s, PetscBool active[]);
PetscErrorCode TdSolverFilmRowsDestroy(TdSolver s);
/* Sets the Jacobian to a checkpoint's factored matrix and factors it now: the kept
   preconditioner of a restarted run.  v: this rank's nonzeros (coo false: the nonzeros of
   TdSolverJacobianValuesCopy, npc_mat_v of them) or its COO values (coo true: checkpoints of
   versions before the direct element blocks, ncoo of them). */
PetscErrorCode TdSolverFactorStored(TdSolver s, const PetscScalar v[], PetscBool coo);
/* The number of this rank's nonzeros of J (*n) and, if v, their values (diagonal block, then
   off-diagonal block, in CSR order). */
PetscErrorCode TdSolverJacobianValuesCopy(TdSolver s, PetscInt *n, PetscScalar v[]);
/* Iterations and reason of the last Krylov solve (after a restart: the checkpointed run's). */
PetscErrorCode TdSolverLastKrylov(TdSolver s, PetscInt *lits, KSPConvergedReason *kreason);

/* This rank's part of the natural unknowns [begin, end) (a block of U = [bodies | films |
   multipliers]): contiguous in U's numbering, its first index there, its length and its offset
   in the local array (first, offset may be NULL).  FilmSlice: the films' block
   [nfree, row_offset). */
PetscErrorCode TdSolverOwnedSlice(TdSolver s, PetscInt begin, PetscInt end, PetscInt *first, PetscInt *n, PetscInt *offset);
PetscErrorCode TdSolverFilmSlice(TdSolver s, PetscInt *first, PetscInt *n, PetscInt *offset);
/* The kept LU's shell (kept_lu.c): SetUp reads -film_block_correction and -krylov_recycle and,
   when either is on, turns the KSP's LU into a shell (the kept LU, the film stage, the recycled
   pairs); Reset drops the factor and what depends on the pattern (a pattern change); Destroy
   frees all. */
PetscErrorCode TdSolverKeptLUSetUp(TdSolver s, KSP ksp);
/* -film_stiffness_lag (kept_lu.c): SetUp reads it; Keep says whether the film Jacobian pass
   at the current iterate may keep the dQ/dq blocks (the kept LU will not be factored at its
   Jacobian); FilmsJacobianPass runs TdSolverFilmsAssemble with a Jacobian (into coo_v's film
   entries) under that rule, counts the pass and says whether it kept them (*kept). */
PetscErrorCode TdSolverFilmStiffnessLagSetUp(TdSolver s, KSP ksp);
PetscErrorCode TdSolverFilmStiffnessKeep(TdSolver s, PetscBool *keep);
PetscErrorCode TdSolverFilmsJacobianPass(TdSolver s, const PetscScalar u[], PetscReal ce, PetscReal cv, PetscReal rfull[], PetscScalar r[], PetscReal *load, PetscReal *friction, PetscBool *ok, PetscBool *kept);
PetscErrorCode TdSolverKeptLUReuse(TdSolver s, PetscBool *reuse);
PetscErrorCode TdSolverKeptLUReset(TdSolver s);
PetscErrorCode TdSolverKeptLUDestroy(TdSolver s);
/* -film_block_correction (film_correction.c): SetFromOptions reads it; SetUp makes the film
   block's index sets; Apply adds the film stage to z = B_old^{-1} r (when it runs for the
   current Jacobian, s->film_stage_on); Update factors the film block of such a Jacobian; Reset
   drops the block after a pattern change; Destroy frees all. */
PetscErrorCode TdSolverFilmCorrectionSetFromOptions(TdSolver s);
PetscErrorCode TdSolverFilmCorrectionSetUp(TdSolver s);
PetscErrorCode TdSolverFilmCorrectionApply(TdSolver s, Vec r, Vec z);
PetscErrorCode TdSolverFilmCorrectionUpdate(TdSolver s, Mat P);
PetscErrorCode TdSolverFilmCorrectionReset(TdSolver s);
PetscErrorCode TdSolverFilmCorrectionDestroy(TdSolver s);
/* -krylov_recycle (krylov_recycle.c): kept pairs (z, J z) of the last Krylov solve as a
   two-level correction of the kept LU.  SetUp makes the Krylov operator that keeps the pairs;
   Apply wraps M^{-1} = apply(ctx); Commit takes the last solve's pairs in at the start of a
   solve (Newton iteration it); Reset drops them (a new factorisation or pattern). */
PetscErrorCode TdSolverRecycleSetFromOptions(TdSolver s);
PetscErrorCode TdSolverRecycleSetUp(TdSolver s);
PetscErrorCode TdSolverRecycleApply(TdSolver s, PetscErrorCode (*apply)(void *, Vec, Vec), void *ctx, Vec r, Vec z);
PetscErrorCode TdSolverRecycleCommit(TdSolver s, PetscInt it);
PetscErrorCode TdSolverRecycleReset(TdSolver s);
PetscErrorCode TdSolverRecycleDestroy(TdSolver s);
/* krylov_residual.c: the Krylov solve's residual tracked through the recording operator's
   products (no product by J for the test by blocks).  Start at a solve's start (b, the solution
   vector x); Product after each product y = J x (from_pc: x is the preconditioner's last
   output); TdSolverKrylovResidual: the residual after iteration it, or NULL if not known. */
PetscErrorCode TdSolverKrylovResidualSetUp(TdSolver s);
PetscErrorCode TdSolverKrylovResidualStart(TdSolver s, KSP ksp, Vec b, Vec x);
PetscErrorCode TdSolverKrylovResidualProduct(TdSolver s, Vec x, Vec y, PetscBool from_pc);
Vec            TdSolverKrylovResidual(TdSolver s, PetscInt it);
PetscErrorCode TdSolverKrylovResidualDestroy(TdSolver s);

/* tribodyn's preconditioner types (preconditioner.c, ancf_amg.c, coupled_blocks.c): their
   registrations, the solver they work for (TdSolverPCTypesUse), and a preconditioner inside
   another: the outer's options prefix followed by suffix, of the given type unless the options
   say otherwise. */
PetscErrorCode TdAncfAMGRegister(void);
PetscErrorCode TdCoupledBlocksRegister(void);
TdSolver       TdSolverOfPCTypes(void);
PetscErrorCode TdInnerPCCreate(PC outer, const char suffix[], PCType type, PC *inner);

#endif
