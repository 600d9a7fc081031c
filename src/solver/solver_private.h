#ifndef TRIBODYN_SOLVER_PRIVATE_H
#define TRIBODYN_SOLVER_PRIVATE_H
/* Solver internals shared by src/solver/solver.c and src/solver/checkpoint.c. */
#include <tribodyn/solver.h>

/* The Jacobian's COO pattern from the model's coupling pattern (a new pattern drops the
   factorisation). */
PetscErrorCode TdSolverBuildJacobian(TdSolver s);
/* Sets the Jacobian to this rank's COO values v (a checkpoint's factored matrix) and factors it
   now: the kept preconditioner of a restarted run. */
PetscErrorCode TdSolverFactorStored(TdSolver s, const PetscScalar v[]);
/* Iterations and reason of the last Krylov solve (after a restart: the checkpointed run's). */
PetscErrorCode TdSolverLastKrylov(TdSolver s, PetscInt *lits, KSPConvergedReason *kreason);

/* This rank's part of the film unknowns [nfree, row_offset) of U: its first global unknown, its
   length and its offset in the local array (each may be NULL). */
PetscErrorCode TdSolverFilmSlice(TdSolver s, PetscInt *first, PetscInt *n, PetscInt *offset);
/* -film_block_correction (film_correction.c).  SetUp reads the option and, when it is on, turns
   the KSP's LU into a shell (the kept LU, then a fresh film-block LU); Update factors the film
   block of each Jacobian; Reset drops the block after a pattern change; Destroy frees all. */
PetscErrorCode TdSolverFilmCorrectionSetUp(TdSolver s, KSP ksp);
PetscErrorCode TdSolverFilmCorrectionUpdate(TdSolver s, Mat P);
PetscErrorCode TdSolverFilmCorrectionReset(TdSolver s);
PetscErrorCode TdSolverFilmCorrectionDestroy(TdSolver s);

#endif
