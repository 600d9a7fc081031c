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
  3. Film pass: the per-quad work of TdFilmsAssemble (src/model/film.c) on the real model of the
     lubricated slider-guide case (-case FILE, default cases/slider_guide_lubricated.opts of the
     source tree; -film_cells NX,NY overrides its film mesh).  The case is run for -pass_steps
     steps (default 40, 2 ms: the hammer has pressed the slider into the film, which carries
     load with cavitated nodes; printed), then one step more; the pass is timed at that last
     state with the projections started from the hits of the step before (each repetition
     restores them), as the first residual of a Newton solve sees it.  (a) the residual pass
     (jac = NULL), (b) the fused residual + Jacobian pass (jac, c_e = 1 and c_v of a
     generalised-alpha step of dt = 5e-5 s), on one thread, median over -pass_reps repetitions
     (default 15), per film quad.  Under callgrind (valgrind --tool=callgrind
     --instr-atstart=no) only the timed calls are instrumented, with a dump after each kind;
     -pass_state FILE saves the state there, or loads it if FILE exists (no steps: the steps
     take many minutes under valgrind).  -pass_kind residual|fused times one kind only (for a
     profiler's samples of that kind alone); the other's line is then not printed.

  Usage: bench_film [-reps N] [-n CELLS] [-case FILE] [-film_cells NX,NY] [-pass_steps N]
                    [-pass_reps N] [-pass_state FILE] [-pass_kind K] [-pass_only] [-skip_pass] [PETSc options]
*/
#include <math.h>
#include <petscksp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <omp.h>
#include <string.h>
#include <tribodyn/film_kernels.h>
#include <tribodyn/model.h>
#include <tribodyn/options.h>
#include <tribodyn/solver.h>
#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#endif
#endif
#ifndef CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(s)
#endif

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

/* The state of the film pass (-pass_state FILE): t, q, v, the unknowns, the film's hits at this
   state (the coupling pattern is formed from them) and at the step before (the projections'
   start).  Only each hit's face and face coordinates are kept: the rest is output of the
   projection. */
static PetscErrorCode SaveState(FILE *fp, TdSolver s, const TdFilm *f, const TdFilmHit *before)
{
  const PetscScalar *u;
  const PetscInt     nh = 8 * (f->quad_end - f->quad_start);
  PetscFunctionBeginUser;
  PetscCall(VecGetArrayRead(s->Useq, &u));
  PetscCheck(fwrite(&s->t, sizeof(PetscReal), 1, fp) == 1 && fwrite(s->q, sizeof(PetscReal), (size_t)s->model->nfull, fp) == (size_t)s->model->nfull && fwrite(s->v, sizeof(PetscReal), (size_t)s->model->nfull, fp) == (size_t)s->model->nfull && fwrite(u, sizeof(PetscScalar), (size_t)s->N, fp) == (size_t)s->N, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "bench_film: writing the state failed");
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  for (PetscInt k = 0; k < 2 * nh; k++) {
    const TdFilmHit *h = k < nh ? &f->hits[k] : &before[k - nh];
    PetscCheck(fwrite(&h->face, sizeof(PetscInt), 1, fp) == 1 && fwrite(h->pt.uv, sizeof(double), 2, fp) == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "bench_film: writing the state failed");
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode LoadState(FILE *fp, TdSolver s, TdFilm *f, TdFilmHit *before, const char *name)
{
  PetscScalar   *u;
  const PetscInt nh = 8 * (f->quad_end - f->quad_start);
  PetscBool      changed;
  PetscFunctionBeginUser;
  PetscCall(VecGetArray(s->Useq, &u));
  PetscCheck(fread(&s->t, sizeof(PetscReal), 1, fp) == 1 && fread(s->q, sizeof(PetscReal), (size_t)s->model->nfull, fp) == (size_t)s->model->nfull && fread(s->v, sizeof(PetscReal), (size_t)s->model->nfull, fp) == (size_t)s->model->nfull && fread(u, sizeof(PetscScalar), (size_t)s->N, fp) == (size_t)s->N, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "bench_film: %s is not a state of this case", name);
  PetscCall(VecRestoreArray(s->Useq, &u));
  for (PetscInt k = 0; k < 2 * nh; k++) {
    TdFilmHit *h = k < nh ? &f->hits[k] : &before[k - nh];
    if (k >= nh) *h = f->hits[k - nh];
    PetscCheck(fread(&h->face, sizeof(PetscInt), 1, fp) == 1 && fread(h->pt.uv, sizeof(double), 2, fp) == 2, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "bench_film: %s is not a state of this case", name);
  }
  {
    char c;
    PetscCheck(fread(&c, 1, 1, fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "bench_film: %s is not a state of this case (film mesh?)", name);
  }
  PetscCall(TdFilmsCouplingUpdate(s->model, s->t, s->q, s->v, &changed, NULL));
  PetscFunctionReturn(0);
}

/* 3. the film pass of the real model (header comment) */
static PetscErrorCode FilmPass(PetscInt reps_in)
{
  char            cas[PETSC_MAX_PATH_LEN];
  PetscInt        cells[2] = {0, 0}, ncells = 2, steps = 40, reps = reps_in;
  PetscBool       cells_set, case_set;
  TdModel         m;
  TdSolver        s;
  TdFilm         *f;
  TdFilmHit      *saved;
  PetscScalar    *jac;
  PetscReal      *rfull, *r, load[3], friction[3], tres[101], tjac[101], cv;
  PetscCount      njac;
  PetscInt        ncav = 0, nunk;
  char            state[PETSC_MAX_PATH_LEN] = "", kinds[16] = "both";
  PetscInt        kind_first = 0, kind_last = 1;
  FILE           *fp;
  PetscBool       loaded = PETSC_FALSE;
  const PetscScalar *u;
  PetscFunctionBeginUser;
  /* the default case: cases/ beside src/ of this file's source tree */
  {
    const char *file = __FILE__, *tail = strstr(file, "src/app/bench_film.c");
    if (tail) PetscCall(PetscSNPrintf(cas, sizeof cas, "%.*scases/slider_guide_lubricated.opts", (int)(tail - file), file));
    else PetscCall(PetscStrncpy(cas, "cases/slider_guide_lubricated.opts", sizeof cas));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-case", cas, sizeof cas, &case_set));
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-film_cells", cells, &ncells, &cells_set));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pass_steps", &steps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pass_reps", &reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pass_state", state, sizeof state, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pass_kind", kinds, sizeof kinds, NULL));
  {
    PetscBool res, fused, both;
    PetscCall(PetscStrcmp(kinds, "residual", &res));
    PetscCall(PetscStrcmp(kinds, "fused", &fused));
    PetscCall(PetscStrcmp(kinds, "both", &both));
    PetscCheck(res || fused || both, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "bench_film: -pass_kind %s: give residual, fused or both", kinds);
    kind_first = fused ? 1 : 0;
    kind_last  = res ? 0 : 1;
  }
  if (reps > 101) reps = 101;
  if (reps < 1) reps = 1;
  /* the case file below the command line: the command line's -film_cells wins */
  PetscCall(PetscOptionsInsertFile(PETSC_COMM_WORLD, NULL, cas, PETSC_TRUE));
  if (cells_set) {
    char v[64];
    PetscCall(PetscSNPrintf(v, sizeof v, "%d,%d", (int)cells[0], (int)(ncells > 1 ? cells[1] : cells[0])));
    PetscCall(PetscOptionsSetValue(NULL, "-film_cells", v));
  }
  ncells = 2;
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, "-film_cells", cells, &ncells, NULL));
  PetscCall(TdOptionsInitialize(PETSC_COMM_WORLD));
  PetscCall(TdModelCreateFromOptions(PETSC_COMM_WORLD, &m));
  PetscCall(TdSolverCreate(m, &s));
  PetscCall(TdSolverSetFromOptions(s));
  PetscCheck(m->nfilms == 1 && m->films[0].model == TD_FILM_REYNOLDS, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "bench_film: the case must have one Reynolds film");
  f = &m->films[0];
  PetscCall(PetscMalloc1(8 * (f->quad_end - f->quad_start), &saved));
  if (state[0] && (fp = fopen(state, "rb"))) {
    /* a state saved by an earlier run of the same case and film mesh: no steps (for callgrind,
       under which the steps take many minutes) */
    PetscCall(LoadState(fp, s, f, saved, state));
    fclose(fp);
    loaded = PETSC_TRUE;
  } else {
    PetscCall(TdSolverInitialize(s));
    for (PetscInt k = 0; k < steps; k++) PetscCall(TdSolverStep(s, 5e-5));
    PetscCall(PetscArraycpy(saved, f->hits, 8 * (f->quad_end - f->quad_start)));
    PetscCall(TdSolverStep(s, 5e-5));
    /* the whole unknown vector */
    PetscCall(TdSolverIterateScatter(s, s->U, PETSC_TRUE));
    if (state[0]) {
      fp = fopen(state, "wb");
      PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "bench_film: cannot write %s", state);
      PetscCall(SaveState(fp, s, f, saved));
      fclose(fp);
    }
  }
  PetscCall(VecGetArrayRead(s->Useq, &u));
  nunk = f->nunknowns;
  for (PetscInt i = 0; i < nunk; i++)
    if (f->p_ref * PetscRealPart(u[f->first_unknown + i]) <= f->p_cav + 1e-9 * f->p_ref) ncav++;
  PetscCall(TdFilmsCOOPattern(m, &njac, NULL, NULL));
  PetscCall(PetscMalloc3(njac, &jac, m->nfull, &rfull, s->N, &r));
  cv = galpha_velocity_coefficient(&s->ga, 5e-5);
  omp_set_num_threads(1);
  for (PetscInt kind = kind_first; kind <= kind_last; kind++) {
    PetscReal *tt = kind ? tjac : tres;
    for (PetscInt rep = -1; rep < reps; rep++) {
      PetscBool ok;
      double    t0, t1;
      PetscCall(PetscArraycpy(f->hits, saved, 8 * (f->quad_end - f->quad_start)));
      PetscCall(PetscArrayzero(rfull, m->nfull));
      PetscCall(PetscArrayzero(r, s->N));
      if (rep == 0) {
        CALLGRIND_ZERO_STATS;
        CALLGRIND_START_INSTRUMENTATION;
      }
      t0 = Now();
      PetscCall(TdFilmsAssemble(m, s->t, s->q, s->v, u, kind ? 1 : 0, kind ? cv : 0, rfull, r, kind ? jac : NULL, load, friction, &ok));
      t1 = Now();
      PetscCheck(ok, PETSC_COMM_SELF, PETSC_ERR_PLIB, "bench_film: the film pass failed: %s", f->miss);
      if (rep >= 0) tt[rep] = (t1 - t0) / f->surface.nquads;
      if (rep == reps - 1) {
        CALLGRIND_STOP_INSTRUMENTATION;
        CALLGRIND_DUMP_STATS_AT(kind ? "film pass: residual + Jacobian" : "film pass: residual");
      }
      checksum += r[f->first_unknown] + rfull[0] + (kind ? jac[njac / 2] : 0);
    }
    qsort(tt, (size_t)reps, sizeof(double), CmpDouble);
  }
  m->coupling_miss = PETSC_FALSE;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "film pass of the slider-guide case (%s), %d x %d quads (%d film unknowns), single thread, median of %d repetitions:\n", case_set ? cas : "cases/slider_guide_lubricated.opts", (int)cells[0], (int)cells[1], (int)nunk, (int)reps));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "  state: t = %.4g s after %d steps of 5e-5 s%s; film load %.4g N, %d of %d film unknowns cavitated\n", (double)s->t, (int)(s->t / 5e-5 + 0.5), loaded ? " (loaded)" : "", (double)load[2], (int)ncav, (int)nunk));
  if (kind_first == 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  (a) residual pass (jac = NULL)            %8.3f us per film quad (%d quads)\n", tres[reps / 2] * 1e6, (int)f->surface.nquads));
  if (kind_last == 1) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  (b) fused residual + Jacobian pass        %8.3f us per film quad\n", tjac[reps / 2] * 1e6));
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscCall(PetscFree3(jac, rfull, r));
  PetscCall(PetscFree(saved));
  PetscCall(TdSolverDestroy(&s));
  PetscCall(TdModelDestroy(&m));
  PetscCall(TdOptionsFinalize());
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscInt  reps = 15, n = 200;
  PetscBool pass_only = PETSC_FALSE, skip_pass = PETSC_FALSE;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-pass_only", &pass_only, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-skip_pass", &skip_pass, NULL));

  /* 1. kernel timings */
  if (!pass_only) {
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
  if (!pass_only) {
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
  /* 3. the film pass of the real model */
  if (!skip_pass) PetscCall(FilmPass(reps));
  PetscCall(PetscFinalize());
  return 0;
}
