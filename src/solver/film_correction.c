/*
  The film-block correction of a kept LU (-film_block_correction, solver.h).

  Why.  The default preconditioner is the LU of an earlier Jacobian, kept while the Krylov solves
  converge within -refactor_its iterations (jacobian.c).  Under Swift-Stieber cavitation every film
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

  How.  The second stage of the kept LU's shell (kept_lu.c), which factors the whole Jacobian
  when the kept-LU logic of jacobian.c (the SNES preconditioner lag) decides.  The stage runs for a
  Jacobian only when film rows have changed branch since that factorisation (more than
  -film_block_stage_rows; FilmStageDecide in jacobian.c): then J_f and J_ff's factor are refreshed
  from it (TdSolverFilmCorrectionUpdate); otherwise the stage is the identity.
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/options.h>
#include <tribodyn/mumps_single.h>

static PetscLogEvent TD_FilmBlockFactor, TD_FilmBlockApply;
static PetscBool     film_events_registered = PETSC_FALSE;

PetscErrorCode TdSolverFilmCorrectionSetFromOptions(TdSolver s)
{
  PetscInt nfilm = s->model->row_offset - s->model->nfree;
  PetscFunctionBegin;
  {
    /* default: on for cavitating films of at least -film_block_correction_min unknowns; below,
       the whole LU is cheap and the extra stage costs more than the factorisations it saves
       (measured on the paper's case and a 4x refined one, README) */
    PetscInt min_unknowns = 5000;
    PetscCall(TdOptionsInt(NULL, "film_block_correction_min", "default of -film_block_correction: on for cavitating (Swift-Stieber or JFO) films of at least this many unknowns in all", min_unknowns, &min_unknowns, NULL));
    s->film_correction = nfilm > 0 && nfilm >= min_unknowns && (s->ncp || s->njfo) ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(TdOptionsBool(NULL, "film_block_correction", "precondition with the kept LU of the whole Jacobian followed by a fresh LU of its film block: the film rows that change branch (cavitation) cost no Krylov iterations and force fewer whole factorisations; default from -film_block_correction_min", s->film_correction, &s->film_correction, NULL));
  PetscCheck(!s->film_correction || nfilm > 0, s->comm, PETSC_ERR_USER_INPUT, "Option -film_block_correction needs a film: this model has no film unknowns");
  s->film_stage_rows = 0;
  PetscCall(TdOptionsInt(NULL, "film_block_stage_rows", "with -film_block_correction: the film stage runs for a Jacobian only when more than this many film rows have changed branch (cavitation) since the kept LU was factored; -1: for every Jacobian", s->film_stage_rows, &s->film_stage_rows, NULL));
  PetscCheck(s->film_stage_rows >= -1, s->comm, PETSC_ERR_USER_INPUT, "Option -film_block_stage_rows must be -1 (always) or a number of rows >= 0, not %" PetscInt_FMT, s->film_stage_rows);
  PetscFunctionReturn(0);
}

/* the index sets of the film block (once the kept LU's shell is in place) */
PetscErrorCode TdSolverFilmCorrectionSetUp(TdSolver s)
{
  PetscInt first, n, lo, hi;
  PetscFunctionBegin;
  if (!s->film_correction) PetscFunctionReturn(0);
  if (!film_events_registered) {
    PetscCall(PetscLogEventRegister("TdFilmBlockLU", PC_CLASSID, &TD_FilmBlockFactor));
    PetscCall(PetscLogEventRegister("TdFilmBlockApply", PC_CLASSID, &TD_FilmBlockApply));
    film_events_registered = PETSC_TRUE;
  }
  PetscCall(TdSolverFilmSlice(s, &first, &n, NULL));
  PetscCall(ISCreateStride(s->comm, n, first, 1, &s->film_is));
  PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
  PetscCall(ISCreateStride(s->comm, hi - lo, lo, 1, &s->all_is));
  PetscFunctionReturn(0);
}

/* after z = B_old^{-1} r: z_f += J_ff^{-1} (r_f - J_f z) */
PetscErrorCode TdSolverFilmCorrectionApply(TdSolver s, Vec r, Vec z)
{
  Vec rf, zf;
  PetscFunctionBegin;
  if (!s->film_correction || !s->film_stage_on) PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmCorrectionDestroy(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(TdSolverFilmCorrectionReset(s));
  PetscCall(ISDestroy(&s->film_is));
  PetscCall(ISDestroy(&s->all_is));
  PetscFunctionReturn(0);
}
