/*
  The kept LU's shell (solver.h: kept_lu): the preconditioner of the default Newton-Krylov solver
  when the kept LU is corrected.

  The default preconditioner is the LU of an earlier Jacobian, kept while the Krylov solves
  converge within -refactor_its iterations (jacobian.c).  Two corrections of it need the LU inside
  a PCSHELL in the KSP's place:
    - the film-block correction (-film_block_correction, film_correction.c): after the kept LU,
      a fresh LU of the current film block;
    - recycled Krylov directions (-krylov_recycle, krylov_recycle.c): around both, the last
      solve's pairs (z, J z) as a two-level correction.
  The shell's set-up factors the whole Jacobian into the kept LU (an inner PCLU that reads the
  -pc_factor_ options), so the kept-LU logic of jacobian.c (the SNES preconditioner lag) decides
  when, as with the plain LU.
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/mumps_single.h>
#include <tribodyn/options.h>

/* set-up of the shell: the kept LU of the whole Jacobian */
static PetscErrorCode KeptFactor(PC shell)
{
  TdSolver s;
  Mat      A, P;
  PetscFunctionBegin;
  PetscCall(PCShellGetContext(shell, &s));
  PetscCall(PCGetOperators(shell, &A, &P));
  PetscCall(PCSetOperators(s->kept_lu, A, P));
  /* factored here only: PCApply would refactor a changed matrix unless told to reuse */
  PetscCall(PCSetReusePreconditioner(s->kept_lu, PETSC_FALSE));
  PetscCall(PCSetUp(s->kept_lu));
  PetscCall(PCSetReusePreconditioner(s->kept_lu, PETSC_TRUE));
  PetscCall(TdSolverRecycleReset(s)); /* M is J now: nothing to correct */
  {
    /* a failed factorisation fails the Krylov solve (KSP_DIVERGED_PC_FAILED), as the plain LU
       would: Newton then retries the step with a fresh factorisation, then halves it */
    PCFailedReason reason;
    PetscCall(PCGetFailedReason(s->kept_lu, &reason));
    PetscCall(PCSetFailedReason(shell, reason));
  }
  PetscFunctionReturn(0);
}

/* M^{-1}: z = B_old^{-1} r, then the film stage */
static PetscErrorCode KeptThenFilm(void *ctx, Vec r, Vec z)
{
  TdSolver s = (TdSolver)ctx;
  PetscFunctionBegin;
  PetscCall(PCApply(s->kept_lu, r, z));
  PetscCall(TdSolverFilmCorrectionApply(s, r, z));
  PetscFunctionReturn(0);
}

/* the recycled pairs' correction around M^{-1} */
static PetscErrorCode KeptApply(PC shell, Vec r, Vec z)
{
  TdSolver s;
  PetscFunctionBegin;
  PetscCall(PCShellGetContext(shell, &s));
  PetscCall(TdSolverRecycleApply(s, KeptThenFilm, s, r, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode KeptView(PC shell, PetscViewer viewer)
{
  TdSolver  s;
  PetscBool ascii;
  PetscFunctionBegin;
  PetscCall(PCShellGetContext(shell, &s));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "tribodyn's kept LU of an earlier Jacobian%s\n", s->film_correction ? ", then a fresh LU of the current film block (-film_block_correction)" : ""));
    if (s->recycle_max) PetscCall(PetscViewerASCIIPrintf(viewer, "  corrected by up to %" PetscInt_FMT " pairs of the last Krylov solve (-krylov_recycle)\n", s->recycle_max));
  }
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PCView(s->kept_lu, viewer));
  if (s->film_pc) PetscCall(PCView(s->film_pc, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverKeptLUSetUp(TdSolver s, KSP ksp)
{
  PC        pc;
  PetscBool islu, given, preonly;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmCorrectionSetFromOptions(s));
  PetscCall(TdSolverRecycleSetFromOptions(s));
  if (!s->film_correction && !s->recycle_max) PetscFunctionReturn(0);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCLU, &islu));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
  if (!islu || preonly || !s->pc_reuse_ok) {
    /* another preconditioner or a direct solve: the corrections belong to the kept LU only */
    PetscCall(PetscOptionsHasName(NULL, NULL, "-film_block_correction", &given));
    PetscCheck(!given || !s->film_correction, s->comm, PETSC_ERR_USER_INPUT, "Option -film_block_correction corrects the kept LU of the default Newton-Krylov solver: it does not combine with -pc_type other than lu, -ksp_type preonly, a VI solver or -refactor_its 0");
    PetscCall(PetscOptionsHasName(NULL, NULL, "-krylov_recycle", &given));
    PetscCheck(!given || !s->recycle_max, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_recycle corrects the kept LU of the default Newton-Krylov solver: it does not combine with -pc_type other than lu, -ksp_type preonly, a VI solver or -refactor_its 0; set -krylov_recycle 0");
    s->film_correction = PETSC_FALSE;
    s->recycle_max     = 0;
    PetscFunctionReturn(0);
  }
  {
    /* the inner LU: the KSP's LU as configured (solver type, -pc_factor_ options) */
    MatSolverType st;
    const char   *prefix;
    char          solver_type[64];
    PetscCall(PCFactorGetMatSolverType(pc, &st));
    PetscCall(PetscStrncpy(solver_type, st ? st : MATSOLVERMUMPSSINGLE, sizeof(solver_type)));
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(PCCreate(s->comm, &s->kept_lu));
    PetscCall(PCSetType(s->kept_lu, PCLU));
    PetscCall(PCSetOptionsPrefix(s->kept_lu, prefix));
    PetscCall(PCFactorSetMatSolverType(s->kept_lu, solver_type));
    PetscCall(PCSetFromOptions(s->kept_lu));
  }
  PetscCall(PCReset(pc)); /* a factor may exist already (the initial accelerations) */
  PetscCall(PCSetType(pc, PCSHELL));
  PetscCall(PCShellSetContext(pc, s));
  PetscCall(PCShellSetSetUp(pc, KeptFactor));
  PetscCall(PCShellSetApply(pc, KeptApply));
  PetscCall(PCShellSetView(pc, KeptView));
  PetscCall(PCShellSetName(pc, s->film_correction ? "kept LU + film block" : "kept LU"));
  PetscCall(TdSolverFilmCorrectionSetUp(s));
  PetscCall(TdSolverRecycleSetUp(s));
  PetscFunctionReturn(0);
}

/* a new Jacobian pattern: the kept factor belongs to the old one */
PetscErrorCode TdSolverKeptLUReset(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(TdSolverFilmCorrectionReset(s));
  PetscCall(TdSolverRecycleReset(s));
  if (s->kept_lu) PetscCall(PCReset(s->kept_lu));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverKeptLUDestroy(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(TdSolverFilmCorrectionDestroy(s));
  PetscCall(TdSolverRecycleDestroy(s));
  PetscCall(TdSolverKrylovResidualDestroy(s));
  PetscCall(PCDestroy(&s->kept_lu));
  PetscFunctionReturn(0);
}

/*
  -film_stiffness_lag.  The films' dQ/dq blocks (the film forces' derivatives with respect to the
  bodies' coordinates at fixed pressures, formulation.md §6: S dfa/dz . dz/dq and the sliding
  term) cost most of a film pass with a Jacobian: 4 face pairs of 36 x 36 per Gauss point.  With
  the lag they are formed at the Jacobians the kept LU is factored at, and the Jacobians between
  keep them: the Krylov operator is then J with the dQ/dq blocks of the last factorisation, an
  inexact Newton step (every other block, the element tangents, the Reynolds rows and dQ/dp, is
  current).  Newton still stops on the same residual tolerances.  Not with the JFO rows' refactoring
  test (it decides after the film pass), nor where the kept LU is not used.  A pass that keeps the
  blocks does not look up their face pairs, so a pair new to the pattern is found by the dQ/dp
  and dF/dq pairs of the same point (a point on a new face meets new face-pressure pairs) or at
  the next formed pass; the residual does not depend on the pattern.
*/
PetscErrorCode TdSolverFilmStiffnessLagSetUp(TdSolver s, KSP ksp)
{
  PC        pc;
  PetscBool islu, preonly, given, usable;
  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCLU, &islu));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
  usable         = (islu || s->kept_lu) && !preonly && s->pc_reuse_ok && s->model->nfilms > 0 && !(s->njfo && !s->film_correction) ? PETSC_TRUE : PETSC_FALSE;
  {
    /* default: on from -film_stiffness_lag_min unknowns.  Like the recycled pairs
       (krylov_recycle.c) the inexact steps widen the spread between runs that differ in rounding
       or in the preconditioner (1.5e-8 against 1.0e-8 between the film stage on and off over the
       paper's 0-5 ms): the paper's case keeps the exact operator, the finest level gains */
    PetscInt min_unknowns = 50000;
    PetscCall(TdOptionsInt(NULL, "film_stiffness_lag_min", "default of -film_stiffness_lag: on for models of at least this many unknowns", min_unknowns, &min_unknowns, NULL));
    s->film_qq_lag = usable && s->N >= min_unknowns ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(TdOptionsBool(NULL, "film_stiffness_lag", "(default from -film_stiffness_lag_min) form the films' dQ/dq blocks (film forces by body coordinates at fixed pressure) only at the kept LU's factorisations and keep them in the Jacobians between (an inexact Newton operator; the other blocks stay current)", s->film_qq_lag, &s->film_qq_lag, &given));
  PetscCheck(!given || !s->film_qq_lag || usable, s->comm, PETSC_ERR_USER_INPUT, "Option -film_stiffness_lag needs films and the default (kept) LU under a Krylov method, and JFO films need -film_block_correction with it: it does not combine with -pc_type other than lu, -ksp_type preonly, a VI solver or -refactor_its 0; set -film_stiffness_lag false");
  if (!usable) s->film_qq_lag = PETSC_FALSE;
  PetscFunctionReturn(0);
}
