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

#endif
