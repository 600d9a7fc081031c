/*
  The film-block correction of a kept LU (-film_block_correction, solver.h).

  Why.  The default preconditioner is the LU of an earlier Jacobian, kept while the Krylov solves
  converge within -refactor_its iterations (solver.c).  Under Swift-Stieber cavitation every film
  row is either the Reynolds row or the unit row of p = p_cav (the semismooth row
  min(p - p_cav, F), formulation §2), and on a fine film hundreds of rows change branch per
  step as the cavitation front moves: each changed row is a rank-one change the kept LU does
  not know, the Krylov method absorbs about one per iteration, and the LU of the whole coupled
  matrix (10^5 unknowns, seconds) is factored again and again.  JFO films (F18) change rows the
  same way.  Those changes all lie in the film block J_ff (film rows, film columns), a 2-D
  problem of a few 10^4 unknowns that factors in a small fraction of the time of the whole.

  What.  Two multiplicative stages on the current Jacobian J:
      z    = B_old^{-1} r                          (the kept LU of the whole matrix)
      z_f += J_ff^{-1} (r_f - J_f z)               (the current film block)
  where _f takes the film unknowns [nfree, row_offset) of U and J_f is J's film rows.  The
  second stage removes the film rows' residual left by the kept LU exactly (for the bodies'
  current correction), so the rows that changed branch no longer cost a Krylov iteration each.
  The operator stays J: the Newton step is unchanged, only the iterations to reach it are fewer.

  How.  A PCSHELL in the KSP's place.  Its set-up factors the whole Jacobian into the kept LU
  (an inner PCLU that reads the -pc_factor_ options), so the kept-LU logic of solver.c (the
  SNES preconditioner lag) decides when, as before; J_f and J_ff's factor are refreshed from
  every Jacobian (TdSolverFilmCorrectionUpdate).
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/options.h>
#include <tribodyn/mumps_single.h>

static PetscLogEvent TD_FilmBlockFactor, TD_FilmBlockApply;
static PetscBool     film_events_registered = PETSC_FALSE;

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
  PetscCall(TdSolverRecycleReset(s)); /* M is J now */
  {
    /* a failed factorisation fails the Krylov solve (KSP_DIVERGED_PC_FAILED), as the plain LU
       would: Newton then retries the step with a fresh factorisation, then halves it */
    PCFailedReason reason;
    PetscCall(PCGetFailedReason(s->kept_lu, &reason));
    PetscCall(PCSetFailedReason(shell, reason));
  }
  PetscFunctionReturn(0);
}

/* z = B_old^{-1} r, then z_f += J_ff^{-1} (r_f - J_f z) */
static PetscErrorCode KeptThenFilmInner(void *ctx, Vec r, Vec z)
{
  TdSolver s = (TdSolver)ctx;
  Vec      rf, zf;
  PetscFunctionBegin;
  PetscCall(PCApply(s->kept_lu, r, z));
  if (!s->film_correction) PetscFunctionReturn(0);
  PetscCheck(s->film_pc, s->comm, PETSC_ERR_ORDER, "The film-block correction was applied before a Jacobian was assembled");
  PetscCall(PetscLogEventBegin(TD_FilmBlockApply, 0, 0, 0, 0));
  PetscCall(MatMult(s->film_rows, z, s->film_t));
  PetscCall(VecGetSubVector(r, s->film_is, &rf));
  PetscCall(VecAYPX(s->film_t, -1.0, rf)); /* t = r_f - J_f z */
  PetscCall(VecRestoreSubVector(r, s->film_is, &rf));
  PetscCall(PCApply(s->film_pc, s->film_t, s->film_dz));
  PetscCall(VecGetSubVector(z, s->film_is, &zf));
  PetscCall(VecAXPY(zf, 1.0, s->film_dz));
  PetscCall(VecRestoreSubVector(z, s->film_is, &zf));
  PetscCall(PetscLogEventEnd(TD_FilmBlockApply, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

/* with -krylov_recycle, the kept pairs' correction around it (krylov_recycle.c) */
static PetscErrorCode KeptThenFilm(PC shell, Vec r, Vec z)
{
  TdSolver s;
  PetscFunctionBegin;
  PetscCall(PCShellGetContext(shell, &s));
  PetscCall(TdSolverRecycleApply(s, KeptThenFilmInner, s, r, z));
  PetscFunctionReturn(0);
}

static PetscErrorCode KeptThenFilmView(PC shell, PetscViewer viewer)
{
  TdSolver  s;
  PetscBool ascii;
  PetscFunctionBegin;
  PetscCall(PCShellGetContext(shell, &s));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) PetscCall(PetscViewerASCIIPrintf(viewer, "tribodyn -film_block_correction: the kept LU of the whole Jacobian, then a fresh LU of its film block\n"));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(PCView(s->kept_lu, viewer));
  if (s->film_pc) PetscCall(PCView(s->film_pc, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmCorrectionSetUp(TdSolver s, KSP ksp)
{
  PC        pc;
  PetscBool islu, given, preonly, film;
  PetscInt  lo, hi, nfilm;
  PetscFunctionBegin;
  nfilm = s->model->row_offset - s->model->nfree;
  {
    /* default: on for cavitating films of at least -film_block_correction_min unknowns; below,
       the whole LU is cheap and the extra stage costs more than the factorisations it saves
       (measured on the paper's case and a 4x refined one, README) */
    PetscInt min_unknowns = 5000;
    PetscCall(TdOptionsInt(NULL, "film_block_correction_min", "default of -film_block_correction: on for cavitating (Swift-Stieber or JFO) films of at least this many unknowns in all", min_unknowns, &min_unknowns, NULL));
    s->film_correction = nfilm > 0 && nfilm >= min_unknowns && (s->ncp || s->njfo) ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(TdOptionsBool(NULL, "film_block_correction", "precondition with the kept LU of the whole Jacobian followed by a fresh LU of its film block: the film rows that change branch (cavitation) cost no Krylov iterations and force fewer whole factorisations; default from -film_block_correction_min", s->film_correction, &s->film_correction, NULL));
  PetscCall(TdSolverRecycleSetFromOptions(s));
  if (!s->film_correction && !s->recycle_max) PetscFunctionReturn(0);
  if (!film_events_registered) {
    PetscCall(PetscLogEventRegister("TdFilmBlockLU", PC_CLASSID, &TD_FilmBlockFactor));
    PetscCall(PetscLogEventRegister("TdFilmBlockApply", PC_CLASSID, &TD_FilmBlockApply));
    film_events_registered = PETSC_TRUE;
  }
  PetscCall(PetscOptionsHasName(NULL, NULL, "-film_block_correction", &given));
  PetscCheck(!given || !s->film_correction || nfilm > 0, s->comm, PETSC_ERR_USER_INPUT, "Option -film_block_correction needs a film: this model has no film unknowns");
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCLU, &islu));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
  if (!islu || preonly || !s->pc_reuse_ok) {
    /* another preconditioner or a direct solve: the correction belongs to the kept LU only */
    PetscCheck(!given || !s->film_correction, s->comm, PETSC_ERR_USER_INPUT, "Option -film_block_correction corrects the kept LU of the default Newton-Krylov solver: it does not combine with -pc_type other than lu, -ksp_type preonly, a VI solver or -refactor_its 0");
    PetscCall(PetscOptionsHasName(NULL, NULL, "-krylov_recycle", &given));
    PetscCheck(!given || !s->recycle_max, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_recycle corrects the kept LU of the default Newton-Krylov solver: it does not combine with -pc_type other than lu, -ksp_type preonly, a VI solver or -refactor_its 0; set -krylov_recycle 0");
    s->film_correction = PETSC_FALSE;
    s->recycle_max     = 0;
    PetscFunctionReturn(0);
  }
  film = s->film_correction;
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
  PetscCall(PCShellSetApply(pc, KeptThenFilm));
  PetscCall(PCShellSetView(pc, KeptThenFilmView));
  PetscCall(PCShellSetName(pc, film ? "kept LU + film block" : "kept LU"));
  if (film) {
    PetscInt first, n;
    PetscCall(TdSolverFilmSlice(s, &first, &n, NULL));
    PetscCall(ISCreateStride(s->comm, n, first, 1, &s->film_is));
    PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
    PetscCall(ISCreateStride(s->comm, hi - lo, lo, 1, &s->all_is));
  }
  PetscCall(TdSolverRecycleSetUp(s));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmCorrectionUpdate(TdSolver s, Mat P)
{
  PetscFunctionBegin;
  if (!s->film_correction) PetscFunctionReturn(0);
  PetscCall(PetscLogEventBegin(TD_FilmBlockFactor, 0, 0, 0, 0));
  PetscCall(MatCreateSubMatrix(P, s->film_is, s->all_is, s->film_rows ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &s->film_rows));
  PetscCall(MatCreateSubMatrix(P, s->film_is, s->film_is, s->film_block ? MAT_REUSE_MATRIX : MAT_INITIAL_MATRIX, &s->film_block));
  if (!s->film_pc) {
    PetscMPIInt size;
    PetscCallMPI(MPI_Comm_size(s->comm, &size));
    PetscCall(PCCreate(s->comm, &s->film_pc));
    PetscCall(PCSetType(s->film_pc, PCLU));
    if (size > 1 || s->njfo) {
      /* single-precision MUMPS (mumps_single.h), as the kept LU: it pivots (a JFO film's
         complementarity rows may have zero diagonals), grows its working space when pivoting
         needs more, and takes a block distributed over the ranks */
      PetscCall(PCFactorSetMatSolverType(s->film_pc, MATSOLVERMUMPSSINGLE));
    } else {
      /* one rank, Swift-Stieber: every row has its own diagonal (the Reynolds row's diffusion
         or the unit row of the bound), so PETSc's own LU needs no pivoting; with nested
         dissection it solves a 6 561-row block in a fraction of MUMPS's time per call */
      PetscCall(PCFactorSetMatOrderingType(s->film_pc, MATORDERINGND));
    }
    PetscCall(PCSetOptionsPrefix(s->film_pc, "film_block_"));
    PetscCall(PCSetFromOptions(s->film_pc));
    PetscCall(MatCreateVecs(s->film_block, &s->film_t, &s->film_dz));
  }
  PetscCall(PCSetOperators(s->film_pc, s->film_block, s->film_block));
  PetscCall(PCSetUp(s->film_pc));
  {
    PCFailedReason reason;
    PetscCall(PCGetFailedReason(s->film_pc, &reason));
    if (reason != PC_NOERROR) {
      /* a zero pivot of PETSc's own LU (a row without its diagonal): factor with pivoting from
         now on */
      MatSolverType st;
      PetscBool     mumps;
      PetscCall(PCFactorGetMatSolverType(s->film_pc, &st));
      PetscCall(PetscStrcmp(st, MATSOLVERMUMPSSINGLE, &mumps));
      PetscCheck(!mumps, s->comm, PETSC_ERR_CONV_FAILED, "The LU of the film block failed (%s); run with -film_block_correction false", PCFailedReasons[reason]);
      PetscCall(PetscInfo(NULL, "film block: PETSc's LU failed (%s), MUMPS from now on\n", PCFailedReasons[reason]));
      PetscCall(PCReset(s->film_pc));
      PetscCall(PCFactorSetMatSolverType(s->film_pc, MATSOLVERMUMPSSINGLE));
      PetscCall(PCSetOperators(s->film_pc, s->film_block, s->film_block));
      PetscCall(PCSetUp(s->film_pc));
      PetscCall(PCGetFailedReason(s->film_pc, &reason));
      PetscCheck(reason == PC_NOERROR, s->comm, PETSC_ERR_CONV_FAILED, "The LU of the film block failed (%s); run with -film_block_correction false", PCFailedReasons[reason]);
    }
  }
  PetscCall(PetscLogEventEnd(TD_FilmBlockFactor, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmCorrectionReset(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&s->film_rows));
  PetscCall(MatDestroy(&s->film_block));
  PetscCall(PCDestroy(&s->film_pc));
  PetscCall(VecDestroy(&s->film_t));
  PetscCall(VecDestroy(&s->film_dz));
  if (s->kept_lu) PetscCall(PCReset(s->kept_lu));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmCorrectionDestroy(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(TdSolverFilmCorrectionReset(s));
  PetscCall(PCDestroy(&s->kept_lu));
  PetscCall(ISDestroy(&s->film_is));
  PetscCall(ISDestroy(&s->all_is));
  PetscFunctionReturn(0);
}
