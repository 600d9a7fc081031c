/*
  Single-precision MUMPS LU (src/solver/mumps_single.c), -pc_factor_mat_solver_type mumps_single,
  against solutions that do not come from it: a manufactured solution x* (b = A x* formed by a
  double product) and PETSc's own double LU.  The matrix is an unsymmetric convection-diffusion
  operator on a grid, its rows scaled from 1e-3 to 1e9 (as the film rows and the ANCF body rows
  of tribodyn's Jacobian are), so that the factorisation's scaling matters.  Checks:
    - one application of the factor solves A x = b to single precision: the error is below 1e-5
      and above 1e-10 (a double factor would give about 1e-13, so the factor really is float),
      and within 3 times that of the same factor with MUMPS's own scaling instead of tribodyn's
      equilibration;
    - FGMRES with it converges to the double-precision tolerance (error below 1e-9 against x*,
      agreement with PETSc's LU) within a few iterations;
    - as the preconditioner of a perturbed matrix (a kept factor of an earlier Jacobian), FGMRES
      takes no more than 2 iterations more than with the double-precision MUMPS factor;
    - new values on the same pattern refactor, and a new pattern is analysed afresh;
    - a singular matrix makes the PC fail (the solve reports divergence) instead of stopping.
  On several ranks the same checks run on a MATMPIAIJ matrix (each rank its rows: MUMPS's
  distributed input), the double reference being MUMPS's double LU.
*/
#include <tribodyn/mumps_single.h>
#include <petscksp.h>
#include <stdio.h>

#include "td_check.h"

/* -div(grad u) + c . grad u (upwind) on an m x m grid, rows scaled by 10^(-3 + 12 (i mod 7)/6);
   extra: one more off-diagonal per row (a different pattern) when set; perturb: relative change
   of every value, deterministic in (i, j) */
static PetscErrorCode Assemble(PetscInt m, PetscBool extra, PetscReal perturb, Mat A)
{
  PetscInt rstart, rend;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    const PetscInt  x = i % m, y = i / m;
    const PetscReal scale = PetscPowReal(10.0, -3.0 + 12.0 * (PetscReal)(i % 7) / 6.0);
    PetscInt        cols[6], nc = 0;
    PetscScalar     vals[6];
    cols[nc] = i;
    vals[nc++] = 4.0 + 3.0;
    if (x > 0) { cols[nc] = i - 1; vals[nc++] = -1.0 - 3.0; } /* upwind along +x */
    if (x < m - 1) { cols[nc] = i + 1; vals[nc++] = -1.0; }
    if (y > 0) { cols[nc] = i - m; vals[nc++] = -1.0; }
    if (y < m - 1) { cols[nc] = i + m; vals[nc++] = -1.0; }
    if (extra && i + 2 * m + 1 < m * m) { cols[nc] = i + 2 * m + 1; vals[nc++] = 0.5; }
    for (PetscInt k = 0; k < nc; k++) vals[k] *= scale * (1.0 + perturb * PetscSinReal(1.0 + 0.37 * i + 0.11 * cols[k]));
    PetscCall(MatSetValues(A, 1, &i, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode CreateMatrix(PetscInt m, PetscBool extra, PetscReal perturb, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, m * m, m * m, 6, NULL, 6, NULL, A));
  PetscCall(Assemble(m, extra, perturb, *A));
  PetscFunctionReturn(0);
}

static PetscReal RelError(Vec x, Vec ref)
{
  Vec       d;
  PetscReal e, r;
  VecDuplicate(x, &d);
  VecWAXPY(d, -1.0, ref, x);
  VecNorm(d, NORM_2, &e);
  VecNorm(ref, NORM_2, &r);
  VecDestroy(&d);
  return e / r;
}

/* x from b with operator A, preconditioner matrix P, Krylov type and solver package */
static PetscErrorCode Solve(Mat A, Mat P, KSPType type, MatSolverType package, Vec b, Vec x, PetscInt *its, KSPConvergedReason *reason)
{
  KSP ksp;
  PC  pc;
  PetscFunctionBegin;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, P));
  PetscCall(KSPSetType(ksp, type));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscCall(PCFactorSetMatSolverType(pc, package));
  PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-50, PETSC_DEFAULT, 100));
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(VecSet(x, 0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, reason));
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt     m = 40;
  Mat                A, A2, S;
  Vec                xs, b, x, xref;
  PetscInt           its, its_d;
  KSPConvergedReason reason;
  PetscRandom        rnd;
  PetscReal          e;

  PetscMPIInt        size, rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TdMumpsSingleRegister());
  PetscCall(CreateMatrix(m, PETSC_FALSE, 0, &A));
  PetscCall(MatCreateVecs(A, &xs, &b));
  PetscCall(VecDuplicate(xs, &x));
  PetscCall(VecDuplicate(xs, &xref));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(VecSetRandom(xs, rnd));
  PetscCall(MatMult(A, xs, b));

  /* one application of the factor: single-precision accuracy, not double */
  PetscCall(Solve(A, A, KSPPREONLY, MATSOLVERMUMPSSINGLE, b, x, &its, &reason));
  e = RelError(x, xs);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "one application of the float factor: |x - x*|/|x*| = %.2e\n", (double)e));
  CHECKF(e < 1e-5 && e > 1e-10, "the float LU's solve has error %.2e, expected single precision (1e-10 .. 1e-5)", (double)e);
  {
    /* tribodyn's equilibration (the default) against MUMPS's own scaling of the same float
       factor (-mat_mumps_single_equilibrate false): as accurate within a factor 3 (sweeps by the
       largest magnitudes alone gave 5.7e-6 against 2.8e-7 here) */
    PetscReal e_mumps;
    PetscCall(PetscOptionsSetValue(NULL, "-mat_mumps_single_equilibrate", "false"));
    PetscCall(Solve(A, A, KSPPREONLY, MATSOLVERMUMPSSINGLE, b, x, &its, &reason));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_mumps_single_equilibrate"));
    e_mumps = RelError(x, xs);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "the same with MUMPS's own scaling: %.2e\n", (double)e_mumps));
    CHECKF(e < 3 * e_mumps, "the float LU with tribodyn's equilibration has error %.2e, with MUMPS's scaling %.2e: the equilibration is the worse scaling", (double)e, (double)e_mumps);
  }

  /* FGMRES with it: double precision */
  PetscCall(Solve(A, A, KSPFGMRES, MATSOLVERMUMPSSINGLE, b, x, &its, &reason));
  /* the double reference: PETSc's own LU on one rank, MUMPS's double LU on several */
  PetscCall(Solve(A, A, KSPPREONLY, size == 1 ? MATSOLVERPETSC : MATSOLVERMUMPS, b, xref, &its_d, &reason));
  e = RelError(x, xs);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FGMRES + float LU: %d iterations, |x - x*|/|x*| = %.2e, against the double LU %.2e\n", (int)its, (double)e, (double)RelError(x, xref)));
  CHECKF(reason > 0 && its <= 5, "FGMRES with the float LU: reason %d after %d iterations (expected convergence within 5)", (int)reason, (int)its);
  CHECKF(e < 1e-9, "FGMRES with the float LU: error %.2e against x*", (double)e);
  CHECKF(RelError(x, xref) < 1e-9, "FGMRES with the float LU: differs from PETSc's LU by %.2e", (double)RelError(x, xref));

  /* a kept factor: the operator moved by 5 % */
  PetscCall(CreateMatrix(m, PETSC_FALSE, 0.05, &A2));
  PetscCall(MatMult(A2, xs, b));
  PetscCall(Solve(A2, A, KSPFGMRES, MATSOLVERMUMPSSINGLE, b, x, &its, &reason));
  PetscCall(Solve(A2, A, KSPFGMRES, MATSOLVERMUMPS, b, xref, &its_d, &reason));
  e = RelError(x, xs);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "perturbed operator, kept factor: float %d iterations (error %.2e), double MUMPS %d iterations\n", (int)its, (double)e, (int)its_d));
  CHECKF(its <= its_d + 2 && e < 1e-9, "kept float factor: %d iterations against %d of the double factor, error %.2e", (int)its, (int)its_d, (double)e);

  {
    /* one KSP through new values (numeric refactorisation) and a new pattern (new analysis) */
    KSP ksp;
    PC  pc;
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPFGMRES));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCLU));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPSSINGLE));
    PetscCall(KSPSetTolerances(ksp, 1e-13, 1e-50, PETSC_DEFAULT, 100));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(MatMult(A, xs, b));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(Assemble(m, PETSC_FALSE, 0.3, A)); /* same pattern, new values */
    PetscCall(MatMult(A, xs, b));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    e = RelError(x, xs);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "new values, same KSP: %d iterations, error %.2e\n", (int)its, (double)e));
    CHECKF(its <= 5 && e < 1e-9, "after new values: %d iterations, error %.2e (was the factor refreshed?)", (int)its, (double)e);
    PetscCall(MatDestroy(&A2));
    PetscCall(CreateMatrix(m, PETSC_TRUE, 0.1, &A2)); /* another pattern */
    PetscCall(MatMult(A2, xs, b));
    PetscCall(KSPSetOperators(ksp, A2, A2));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetIterationNumber(ksp, &its));
    e = RelError(x, xs);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "new pattern, same KSP: %d iterations, error %.2e\n", (int)its, (double)e));
    CHECKF(its <= 5 && e < 1e-9, "after a new pattern: %d iterations, error %.2e", (int)its, (double)e);
    PetscCall(KSPDestroy(&ksp));
  }

  {
    /* a singular matrix: row and column 0 empty but for a zero diagonal */
    PetscInt    zero = 0;
    PCFailedReason pcr;
    KSP         ksp;
    PC          pc;
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &S));
    PetscCall(MatZeroRowsColumns(S, size == 1 || rank == 0 ? 1 : 0, &zero, 0.0, NULL, NULL)); /* the global row 0, given once */
    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetType(ksp, KSPFGMRES));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCLU));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPSSINGLE));
    PetscCall(KSPSetOperators(ksp, S, S));
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCall(PCGetFailedReason(pc, &pcr));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "singular matrix: KSP reason %s, PC failure %s\n", KSPConvergedReasons[reason], PCFailedReasons[pcr]));
    CHECKF(reason < 0 && pcr != PC_NOERROR, "a singular matrix gave KSP reason %d and PC failure %d (expected a failed factorisation)", (int)reason, (int)pcr);
    PetscCall(KSPDestroy(&ksp));
    PetscCall(MatDestroy(&S));
  }

  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&xs));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&xref));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&A2));
  PetscCall(PetscFinalize());
  return td_finish();
}
