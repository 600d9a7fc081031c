/*
  Pattern and COO assembly (src/solver/coo_map.c) and threaded product (src/solver/seqaij_threads.c)
  of a MATSEQAIJ against sums formed directly from the COO triplets: a random pattern with
  repeated entries, dropped entries (negative row or column) and empty rows, on 1 to 4 threads.
  Checks:
    - the pattern is PETSc's (MatSetPreallocationCOO) nonzero for nonzero;
    - every nonzero equals the sum of its triplets' values (and MatSetValuesCOO's result);
    - y = A x equals sum over triplets v x_col, and a second call after new values follows them;
    - the product is installed on every number of threads, and A keeps it across values;
    - a pattern from another matrix is refused; a second pattern on the same matrix replaces the first.
*/
#include <tribodyn/seqaij_threads.h>
#include <omp.h>
#include <stdio.h>

#include "td_check.h"

static PetscErrorCode Silent(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  return n;
}

static PetscErrorCode CreateSeqAIJ(PetscInt nrows, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, nrows, nrows, nrows, nrows));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscFunctionReturn(0);
}

/* PETSc's COO pattern (the reference) */
static PetscErrorCode CreatePattern(PetscInt nrows, PetscCount n, const PetscInt ri[], const PetscInt ci[], Mat *A)
{
  PetscInt *i, *j; /* MatSetPreallocationCOO may reorder its arguments */
  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &i, n, &j));
  PetscCall(PetscArraycpy(i, ri, n));
  PetscCall(PetscArraycpy(j, ci, n));
  PetscCall(CreateSeqAIJ(nrows, A));
  PetscCall(MatSetPreallocationCOO(*A, n, i, j));
  PetscCall(PetscFree2(i, j));
  PetscFunctionReturn(0);
}

/* max |A_ij - ref_ij| / max |ref| over the dense reference */
static PetscErrorCode CompareDense(Mat A, PetscInt nrows, const PetscReal ref[], PetscReal *err)
{
  PetscReal scale = 0, e = 0;
  PetscFunctionBegin;
  for (PetscInt k = 0; k < nrows * nrows; k++) scale = PetscMax(scale, PetscAbsReal(ref[k]));
  for (PetscInt r = 0; r < nrows; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscReal          rowref[64];
    for (PetscInt c = 0; c < nrows; c++) rowref[c] = ref[r * nrows + c];
    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++) {
      e = PetscMax(e, PetscAbsReal(PetscRealPart(vals[k]) - rowref[cols[k]]));
      rowref[cols[k]] = 0;
    }
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
    for (PetscInt c = 0; c < nrows; c++) e = PetscMax(e, PetscAbsReal(rowref[c])); /* missed entries */
  }
  *err = e / scale;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscInt   nrows = 61; /* rows 7 and 40 stay empty */
  const PetscCount n     = 1500;
  PetscInt        *ri, *ci;
  PetscScalar     *v;
  PetscReal       *dense;
  PetscRandom      rnd;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscMalloc3(n, &ri, n, &ci, n, &v));
  PetscCall(PetscMalloc1(nrows * nrows, &dense));
  for (PetscCount e = 0; e < n; e++) {
    PetscReal a, b;
    PetscCall(PetscRandomGetValueReal(rnd, &a));
    PetscCall(PetscRandomGetValueReal(rnd, &b));
    ri[e] = (PetscInt)((a + 1) / 2 * nrows) % nrows;
    ci[e] = (PetscInt)((b + 1) / 2 * 9) + ri[e] - 4; /* a band: many repeated pairs */
    if (ci[e] < 0 || ci[e] >= nrows) ci[e] = ri[e];
    if (ri[e] == 7 || ri[e] == 40) ri[e] = -1; /* dropped, leaving the rows empty */
    if (e % 97 == 0) ci[e] = -1;                /* dropped */
  }
  for (int nthreads = 1; nthreads <= 4; nthreads++) {
    Mat       A, B;
    TdCOOMap  map = {0};
    PetscBool used;
    PetscReal err;
    omp_set_num_threads(nthreads);
    PetscCall(CreateSeqAIJ(nrows, &A));
    {
      /* a first, different pattern, replaced by the one tested (a change of film coupling) */
      const PetscInt i1[3] = {0, 5, 60}, j1[3] = {3, 5, 1};
      PetscCall(TdCOOMapPreallocate(A, 3, i1, j1, NULL, &map));
    }
    PetscCall(TdCOOMapPreallocate(A, n, ri, ci, NULL, &map));
    PetscCall(CreatePattern(nrows, n, ri, ci, &B));
    PetscCall(TdSeqAIJUseThreadedMult(A, &used));
    CHECKF(used, "%d threads: the product was not installed", nthreads);
    {
      const PetscInt *ai, *aj, *bi, *bj;
      PetscInt        na, nb;
      PetscBool       done, same;
      PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &na, &ai, &aj, &done));
      PetscCall(MatGetRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nb, &bi, &bj, &done));
      same = na == nb ? PETSC_TRUE : PETSC_FALSE;
      for (PetscInt r = 0; same && r <= na; r++) same = ai[r] == bi[r] ? PETSC_TRUE : PETSC_FALSE;
      for (PetscInt k = 0; same && k < ai[na]; k++) same = aj[k] == bj[k] ? PETSC_TRUE : PETSC_FALSE;
      CHECKF(same, "%d threads: the pattern differs from MatSetPreallocationCOO's", nthreads);
      PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &na, &ai, &aj, &done));
      PetscCall(MatRestoreRowIJ(B, 0, PETSC_FALSE, PETSC_FALSE, &nb, &bi, &bj, &done));
    }
    for (int pass = 0; pass < 2; pass++) {
      Vec          x, y;
      PetscScalar *xa;
      PetscReal    ymax = 0, yerr = 0;
      for (PetscCount e = 0; e < n; e++) PetscCall(PetscRandomGetValue(rnd, &v[e]));
      for (PetscInt k = 0; k < nrows * nrows; k++) dense[k] = 0;
      for (PetscCount e = 0; e < n; e++)
        if (ri[e] >= 0 && ci[e] >= 0) dense[ri[e] * nrows + ci[e]] += PetscRealPart(v[e]);
      PetscCall(TdCOOMapSetValues(A, &map, v));
      PetscCall(MatSetValuesCOO(B, v, INSERT_VALUES));
      PetscCall(CompareDense(A, nrows, dense, &err));
      CHECKF(err < 1e-14, "%d threads, pass %d: threaded COO values differ from the triplet sums by %g", nthreads, pass, (double)err);
      PetscCall(CompareDense(B, nrows, dense, &err));
      CHECKF(err < 1e-14, "%d threads, pass %d: MatSetValuesCOO differs from the triplet sums by %g (the reference itself)", nthreads, pass, (double)err);
      PetscCall(MatCreateVecs(A, &x, &y));
      PetscCall(VecSetRandom(x, rnd));
      PetscCall(MatMult(A, x, y));
      PetscCall(VecGetArray(x, &xa));
      {
        const PetscScalar *ya;
        PetscReal         *yref;
        PetscCall(PetscCalloc1(nrows, &yref));
        for (PetscCount e = 0; e < n; e++)
          if (ri[e] >= 0 && ci[e] >= 0) yref[ri[e]] += PetscRealPart(v[e] * xa[ci[e]]);
        PetscCall(VecGetArrayRead(y, &ya));
        for (PetscInt r = 0; r < nrows; r++) {
          ymax = PetscMax(ymax, PetscAbsReal(yref[r]));
          yerr = PetscMax(yerr, PetscAbsReal(PetscRealPart(ya[r]) - yref[r]));
        }
        CHECKF(ya[7] == 0 && ya[40] == 0, "%d threads: empty rows give %g, %g", nthreads, (double)PetscRealPart(ya[7]), (double)PetscRealPart(ya[40]));
        PetscCall(VecRestoreArrayRead(y, &ya));
        PetscCall(PetscFree(yref));
      }
      PetscCall(VecRestoreArray(x, &xa));
      CHECKF(yerr <= 1e-14 * ymax, "%d threads, pass %d: A x differs from the triplet sums by %g (of %g)", nthreads, pass, (double)yerr, (double)ymax);
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
    }
    PetscCall(TdCOOMapDestroy(&map));
    PetscCall(MatDestroy(&B));
    {
      /* a map of another pattern must be refused, not applied */
      Mat            C;
      const PetscInt i1[1] = {0}, j1[1] = {0};
      PetscErrorCode ierr;
      PetscCall(CreatePattern(nrows, 1, i1, j1, &C));
      PetscCall(TdCOOMapPreallocate(A, n, ri, ci, NULL, &map));
      PetscCall(PetscPushErrorHandler(Silent, NULL));
      ierr = TdCOOMapSetValues(C, &map, v);
      PetscCall(PetscPopErrorHandler());
      CHECKF(ierr != 0, "%d threads: a map applied to another pattern was accepted", nthreads);
      PetscCall(TdCOOMapDestroy(&map));
      PetscCall(MatDestroy(&C));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(PetscFree3(ri, ci, v));
  PetscCall(PetscFree(dense));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return td_finish();
}
