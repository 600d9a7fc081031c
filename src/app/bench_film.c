/*
  bench_film: cost of the lubricant-film kernels (formulation.md F10-F11) and of the film's
  linear solve, single thread.

  1. Kernel: time per film quadrature point of film_reynolds_quad on a warped quad with rough
     surfaces (gamma = 3): residual + tangent K = dR/dp (what the pressure Newton needs), and
     with the sensitivities to h, dh/dt, vw, vb as well (the coupled Jacobian); also the quad
     geometry (done once per mesh).  Each figure is the median over repetitions of the mean time
     of a batch of calls, divided by the 4 Gauss points.
  2. Solve: a 200 x 200 quad film on the slider footprint of the reference case (40 x 40 mm,
     oil rho = 889 kg/m^3, mu = 0.045 Pa s, sigma_w = sigma_b = 0.4 um, gamma = 1; a converging
     wedge h = 10 + 20 (1 - x/L) um, wall sliding at 0.63 m/s, squeeze dh/dt = -1e-4 m/s),
     p = 0 on the edges: the kernel assembles K and R(0) into a PETSc AIJ matrix over the interior
     nodes (-K is symmetric positive definite), which is solved (a) by CG + GAMG
     (options prefix -gamg_, default rtol 1e-10) and (b) by LU with MUMPS (prefix -lu_).  Setup
     (preconditioner / factorisation) and solve times are printed separately, with the agreement
     of the two solutions.

  Usage: bench_film [-reps N] [-n CELLS] [PETSc options]
*/
#include <math.h>
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <tribodyn/film_kernels.h>

static double Now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int CmpDouble(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static volatile double checksum = 0; /* printed, so that no call can be optimised away */

typedef enum { RESIDUAL_TANGENT, WITH_SENS, GEOMETRY } Kind;

/* median over reps of the time per call [s] */
static double TimeKernel(Kind kind, const double X[4][3], const FilmFluid *fl, FilmPointState st[4], int batch, int reps)
{
  FilmQuadGeometry        g;
  FilmReynoldsSensitivity s;
  double                  p[4] = {1.2e6, 0.8e6, 1.5e6, 0.3e6}, R[4], K[4][4], t[101];
  const double            hint[3] = {0, 0, -1};
  if (reps > 101) reps = 101;
  film_quad_geometry(X, hint, &g);
  for (int r = -1; r < reps; r++) {
    const double t0 = Now();
    for (int i = 0; i < batch; i++) {
      st[i & 3].h *= 1.0 + 1e-12; /* a changing state: nothing to hoist */
      switch (kind) {
      case RESIDUAL_TANGENT: film_reynolds_quad(&g, fl, st, p, R, K, NULL); break;
      case WITH_SENS: film_reynolds_quad(&g, fl, st, p, R, K, &s); break;
      case GEOMETRY: film_quad_geometry(X, hint, &g); R[0] = g.w[i & 3]; K[1][2] = g.gradN[1][2][0]; break;
      }
      checksum += R[0] + K[1][2];
    }
    const double t1 = Now();
    if (r >= 0) t[r] = (t1 - t0) / batch;
  }
  qsort(t, (size_t)reps, sizeof(double), CmpDouble);
  return t[reps / 2];
}

static PetscErrorCode SolveWith(Mat A, Vec b, Vec x, const char *prefix, PetscBool lu, double *tsetup, double *tsolve, PetscInt *its, PetscReal *rnorm)
{
  KSP ksp;
  PC  pc;
  PetscFunctionBeginUser;
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  if (lu) {
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(PCSetType(pc, PCLU));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  } else {
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(PCSetType(pc, PCGAMG));
    PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, 1000));
  }
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetFromOptions(ksp));
  double t0 = Now();
  PetscCall(KSPSetUp(ksp));
  PetscCall(PCSetUp(pc));
  double t1 = Now();
  PetscCall(KSPSolve(ksp, b, x));
  double t2 = Now();
  *tsetup = t1 - t0;
  *tsolve = t2 - t1;
  PetscCall(KSPGetIterationNumber(ksp, its));
  {
    Vec r;
    PetscReal bn;
    PetscCall(VecDuplicate(b, &r));
    PetscCall(MatMult(A, x, r));
    PetscCall(VecAYPX(r, -1.0, b));
    PetscCall(VecNorm(r, NORM_2, rnorm));
    PetscCall(VecNorm(b, NORM_2, &bn));
    *rnorm /= bn;
    PetscCall(VecDestroy(&r));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt reps = 15, n = 200;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));

  /* 1. kernel timings */
  {
    const double   X[4][3] = {{0.0, 0.0, 0.0}, {1.2e-3, 0.1e-3, 0.08e-3}, {1.1e-3, 1.0e-3, 0.15e-3}, {-0.1e-3, 0.9e-3, -0.05e-3}};
    FilmFluid      fl = {.rho = 889.0, .mu = 0.045};
    FilmPointState st[4];
    const double   sigma = sqrt(0.8e-6 * 0.8e-6 + 0.5e-6 * 0.5e-6), H[4] = {1.3, 2.2, 3.6, 4.4};
    film_roughness_init(0.8e-6, 0.5e-6, 3.0, &fl.rough);
    for (int q = 0; q < 4; q++) {
      st[q].h    = H[q] * sigma;
      st[q].dhdt = 1e-5 * (q - 1.5);
      for (int k = 0; k < 3; k++) { st[q].vw[k] = 0.6 * (k == 0) + 0.1 * sin(1.0 + q + 2.0 * k); st[q].vb[k] = 0.05 * cos(0.5 + 3.0 * q + k); }
    }
    const double tRK = TimeKernel(RESIDUAL_TANGENT, X, &fl, st, 20000, (int)reps);
    const double tS  = TimeKernel(WITH_SENS, X, &fl, st, 20000, (int)reps);
    const double tG  = TimeKernel(GEOMETRY, X, &fl, st, 20000, (int)reps);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "film kernel, single thread, median of %d repetitions (rough surfaces, gamma = 3, 2 x 2 Gauss):\n", (int)reps));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  residual + tangent K          %8.1f ns per quadrature point (%.3f us per element)\n", tRK / 4 * 1e9, tRK * 1e6));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  + sensitivities h, dhdt, v    %8.1f ns per quadrature point (%.3f us per element)\n", tS / 4 * 1e9, tS * 1e6));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  quad geometry (once per mesh) %8.1f ns per quadrature point\n", tG / 4 * 1e9));
  }

  /* 2. assembly and solve of an n x n film */
  {
    const double   L = 0.04, rho = 889.0, mu = 0.045, U = 0.63;
    const PetscInt ni = n - 1, N = ni * ni;
    FilmFluid      fl = {.rho = rho, .mu = mu};
    Mat            A;
    Vec            b, xg, xl;
    const double   hint[3] = {0, 0, -1};
    double         tsG, tvG, tsL, tvL;
    PetscInt       itG, itL;
    PetscReal      rG, rL, diff, xn, pmax;
    film_roughness_init(0.4e-6, 0.4e-6, 1.0, &fl.rough);
    PetscCall(MatCreate(PETSC_COMM_SELF, &A));
    PetscCall(MatSetSizes(A, N, N, N, N));
    PetscCall(MatSetType(A, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(A, 9, NULL));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, N, &b));
    PetscCall(VecDuplicate(b, &xg));
    PetscCall(VecDuplicate(b, &xl));
    const double t0 = Now();
    for (PetscInt ej = 0; ej < n; ej++)
      for (PetscInt ei = 0; ei < n; ei++) {
        const PetscInt   ii[4] = {ei, ei + 1, ei + 1, ei}, jj[4] = {ej, ej, ej + 1, ej + 1};
        double           X[4][3], zero[4] = {0, 0, 0, 0}, R[4], K[4][4];
        FilmQuadGeometry g;
        FilmPointState   st[4];
        PetscInt         rows[4];
        PetscScalar      vals[16], rhs[4];
        for (int a = 0; a < 4; a++) {
          X[a][0] = L * ii[a] / n; X[a][1] = L * jj[a] / n; X[a][2] = 0;
          rows[a] = (ii[a] == 0 || jj[a] == 0 || ii[a] == n || jj[a] == n) ? -1 : (jj[a] - 1) * ni + (ii[a] - 1); /* -1: Dirichlet */
        }
        film_quad_geometry(X, hint, &g);
        for (int q = 0; q < 4; q++) {
          st[q].h    = (10.0 + 20.0 * (1.0 - g.x[q][0] / L)) * 1e-6;
          st[q].dhdt = -1e-4;
          st[q].vw[0] = U; st[q].vw[1] = 0; st[q].vw[2] = 0;
          st[q].vb[0] = st[q].vb[1] = st[q].vb[2] = 0;
        }
        film_reynolds_quad(&g, &fl, st, zero, R, K, NULL);
        for (int a = 0; a < 4; a++) {
          rhs[a] = R[a]; /* K p + R(0) = 0  <=>  (-K) p = R(0) */
          for (int c = 0; c < 4; c++) vals[4 * a + c] = -K[a][c];
        }
        PetscCall(MatSetValues(A, 4, rows, 4, rows, vals, ADD_VALUES));
        for (int a = 0; a < 4; a++) /* (Seq VecSetValues does not skip negative indices) */
          if (rows[a] >= 0) PetscCall(VecSetValue(b, rows[a], rhs[a], ADD_VALUES));
      }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    PetscCall(VecAssemblyBegin(b));
    PetscCall(VecAssemblyEnd(b));
    const double tasm = Now() - t0;
    PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
    PetscCall(SolveWith(A, b, xg, "gamg_", PETSC_FALSE, &tsG, &tvG, &itG, &rG));
    PetscCall(SolveWith(A, b, xl, "lu_", PETSC_TRUE, &tsL, &tvL, &itL, &rL));
    PetscCall(VecNorm(xl, NORM_INFINITY, &pmax));
    PetscCall(VecAXPY(xg, -1.0, xl));
    PetscCall(VecNorm(xg, NORM_INFINITY, &diff));
    PetscCall(VecNorm(xl, NORM_INFINITY, &xn));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%d x %d quad film (40 x 40 mm wedge, %d unknowns), single process:\n", (int)n, (int)n, (int)N));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  assembly (geometry + kernel + MatSetValues)  %8.4f s (%.1f ns per quadrature point)\n", tasm, tasm / (4.0 * n * n) * 1e9));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  CG + GAMG:    setup %8.4f s, solve %8.4f s, total %8.4f s, %d iterations, |b - Ax|/|b| = %.1e\n", tsG, tvG, tsG + tvG, (int)itG, (double)rG));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  LU (MUMPS):   setup %8.4f s, solve %8.4f s, total %8.4f s, |b - Ax|/|b| = %.1e\n", tsL, tvL, tsL + tvL, (double)rL));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "  peak pressure %.4e Pa; max |p_GAMG - p_LU| / max p = %.1e   (checksum %g)\n", (double)pmax, (double)(diff / xn), checksum));
    PetscCall(MatDestroy(&A));
    PetscCall(VecDestroy(&b));
    PetscCall(VecDestroy(&xg));
    PetscCall(VecDestroy(&xl));
  }
  PetscCall(PetscFinalize());
  return 0;
}
