/*
  tribodyn's COO map (src/solver/coo_map.c) on any number of ranks, against sums formed directly
  from all ranks' COO triplets: a random pattern in which each rank adds entries to every rank's
  rows (so values travel), with repeated entries, dropped entries (negative row or column), empty
  rows and uneven row ownership, on 1 to 3 threads.  Checks:
    - the pattern is PETSc's (MatSetPreallocationCOO on MATMPIAIJ) nonzero for nonzero;
    - every nonzero equals the sum of its triplets' values, for two sets of values;
    - y = A x equals the triplet sums times x, by tribodyn's run-based product
      (seqaij_threads.c; on several ranks that of each rank's diagonal and off-diagonal blocks);
    - a second, different pattern on the same matrix replaces the first (a change of film
      coupling re-preallocates the Jacobian);
    - a third pattern leads with element-like blocks (3 consecutive rows by the same 3 columns,
      some entries dropped) in chunks of nearby rows: the blocks the map makes direct are added
      by TdCOOMapAddBlock from the value array, a thread per chunk in an order other than the
      COO array's (each chunk's blocks backwards), before TdCOOMapSetValues adds
      the rest; the map must then find blocks of both kinds (direct, and through the array
      because another chunk or rank reaches their rows).
  Run under mpiexec -n 1, 2 and 4 (tests/coo_map.cmake).
*/
#include <tribodyn/coo_map.h>
#include <tribodyn/seqaij_threads.h>
#include <omp.h>
#include <stdio.h>

#include "td_check.h"

#define NGLOBAL 97

/* rank r owns a share of rows growing with r (rank 0 the fewest), so the ranges are uneven */
static PetscInt LocalRows(PetscMPIInt rank, PetscMPIInt size)
{
  PetscInt w = 0, tot = 0, lo = 0;
  for (PetscMPIInt r = 0; r < size; r++) tot += r + 1;
  for (PetscMPIInt r = 0; r < rank; r++) w += r + 1;
  lo = (NGLOBAL * w) / tot;
  return (NGLOBAL * (w + rank + 1)) / tot - lo;
}

static PetscErrorCode CreateAIJ(PetscInt nlocal, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_WORLD, A));
  PetscCall(MatSetSizes(*A, nlocal, nlocal, NGLOBAL, NGLOBAL));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscFunctionReturn(0);
}

/* random triplets: rows anywhere (so other ranks' rows too), columns in a band around the row */
static PetscErrorCode RandomPattern(PetscRandom rnd, PetscCount n, PetscInt band, PetscInt ri[], PetscInt ci[])
{
  PetscFunctionBegin;
  for (PetscCount e = 0; e < n; e++) {
    PetscReal a, b;
    PetscCall(PetscRandomGetValueReal(rnd, &a));
    PetscCall(PetscRandomGetValueReal(rnd, &b));
    ri[e] = (PetscInt)((a + 1) / 2 * NGLOBAL) % NGLOBAL;
    ci[e] = ri[e] + (PetscInt)((b + 1) / 2 * (2 * band + 1)) - band;
    if (ci[e] < 0 || ci[e] >= NGLOBAL) ci[e] = ri[e];
    if (ri[e] == 7 || ri[e] == 60) ri[e] = -1; /* dropped, leaving the rows empty */
    if (e % 97 == 0) ci[e] = -1;                /* dropped */
  }
  PetscFunctionReturn(0);
}

enum { BLOCK = 9, NBLOCK = 60 };

/* the leading NBLOCK blocks of BLOCK entries: rows r0..r0+2 by columns r0..r0+2, chunk r0 / 16 */
static PetscErrorCode BlockPattern(PetscRandom rnd, PetscInt ri[], PetscInt ci[], PetscInt chunk[])
{
  PetscFunctionBegin;
  for (PetscInt b = 0; b < NBLOCK; b++) {
    PetscReal      a;
    PetscInt       r0;
    PetscCall(PetscRandomGetValueReal(rnd, &a));
    r0       = (PetscInt)((a + 1) / 2 * (NGLOBAL - 3)) % (NGLOBAL - 3);
    chunk[b] = r0 / 16;
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) {
        ri[BLOCK * b + 3 * i + j] = r0 + i;
        ci[BLOCK * b + 3 * i + j] = (b % 5 == 0 && i == j) ? -1 : r0 + j; /* some dropped */
      }
  }
  PetscFunctionReturn(0);
}

/* max |A_ij - ref_ij| / max |ref| over this rank's rows of the dense reference (all ranks) */
static PetscErrorCode CompareDense(Mat A, const PetscReal ref[], PetscReal *err)
{
  PetscReal scale = 0, e = 0;
  PetscInt  lo, hi;
  PetscFunctionBegin;
  for (PetscInt k = 0; k < NGLOBAL * NGLOBAL; k++) scale = PetscMax(scale, PetscAbsReal(ref[k]));
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt r = lo; r < hi; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscReal          rowref[NGLOBAL];
    for (PetscInt c = 0; c < NGLOBAL; c++) rowref[c] = ref[r * NGLOBAL + c];
    PetscCall(MatGetRow(A, r, &nc, &cols, &vals));
    for (PetscInt k = 0; k < nc; k++) {
      e               = PetscMax(e, PetscAbsReal(PetscRealPart(vals[k]) - rowref[cols[k]]));
      rowref[cols[k]] = 0;
    }
    PetscCall(MatRestoreRow(A, r, &nc, &cols, &vals));
    for (PetscInt c = 0; c < NGLOBAL; c++) e = PetscMax(e, PetscAbsReal(rowref[c])); /* missed entries */
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &e, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
  *err = e / scale;
  PetscFunctionReturn(0);
}

/* whether A and B (PETSc's COO) hold the same nonzeros in every row */
static PetscErrorCode SamePattern(Mat A, Mat B, PetscBool *same)
{
  PetscInt lo, hi, bad = 0;
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt r = lo; r < hi; r++) {
    PetscInt        na, nb;
    const PetscInt *ca, *cb;
    PetscCall(MatGetRow(A, r, &na, &ca, NULL));
    PetscCall(MatGetRow(B, r, &nb, &cb, NULL));
    if (na != nb) bad++;
    for (PetscInt k = 0; na == nb && k < na; k++)
      if (ca[k] != cb[k]) bad++;
    PetscCall(MatRestoreRow(A, r, &na, &ca, NULL));
    PetscCall(MatRestoreRow(B, r, &nb, &cb, NULL));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  *same = bad ? PETSC_FALSE : PETSC_TRUE;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const PetscCount n = 1200; /* per rank */
  PetscMPIInt      rank, size;
  PetscInt         nlocal, *ri, *ci, chunk[NBLOCK], order[NBLOCK], ndirect = 0, nindirect = 0;
  PetscScalar     *v;
  PetscReal       *dense, err;
  PetscRandom      rnd;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  nlocal = LocalRows(rank, size);
  PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
  PetscCall(PetscRandomSetInterval(rnd, -1, 1));
  PetscCall(PetscRandomSetSeed(rnd, 1234 + 17 * (unsigned long)rank));
  PetscCall(PetscRandomSeed(rnd));
  PetscCall(PetscMalloc3(n, &ri, n, &ci, n, &v));
  PetscCall(PetscMalloc1(NGLOBAL * NGLOBAL, &dense));
  for (int nthreads = 1; nthreads <= 3; nthreads++) {
    Mat      A;
    TdCOOMap map = {0};
    omp_set_num_threads(nthreads);
    PetscCall(CreateAIJ(nlocal, &A));
    for (int pattern = 0; pattern < 3; pattern++) {
      Mat       B;
      PetscBool same = PETSC_FALSE;
      PetscInt *i2, *j2; /* MatSetPreallocationCOO may reorder its arguments */
      /* the second pattern: a wider band, replacing the first on the same matrix */
      const TdCOOMapBlocks blocks = {NBLOCK, BLOCK, chunk, order};
      PetscCall(RandomPattern(rnd, n, pattern ? 9 : 4, ri, ci));
      if (pattern == 2) {
        /* the blocks of each chunk in decreasing order, as an assembly order other than the COO's */
        PetscInt k = 0;
        PetscCall(BlockPattern(rnd, ri, ci, chunk));
        for (PetscInt c = 0; c < NGLOBAL / 16 + 1; c++)
          for (PetscInt b = NBLOCK - 1; b >= 0; b--)
            if (chunk[b] == c) order[k++] = b;
      }
      PetscCall(TdCOOMapPreallocate(A, n, ri, ci, pattern == 2 ? &blocks : NULL, &map));
      {
        /* tribodyn's run-based product (on several ranks: its diagonal and off-diagonal blocks') */
        PetscBool used;
        PetscCall(TdSeqAIJUseThreadedMult(A, &used));
        CHECKF(used, "%d ranks: the run-based product was not installed", size);
      }
      if (pattern == 2)
        for (PetscInt b = 0; b < NBLOCK; b++) {
          if (map.block_direct[b]) ndirect++;
          else nindirect++;
        }
      PetscCall(CreateAIJ(nlocal, &B));
      PetscCall(PetscMalloc2(n, &i2, n, &j2));
      PetscCall(PetscArraycpy(i2, ri, n));
      PetscCall(PetscArraycpy(j2, ci, n));
      PetscCall(MatSetPreallocationCOO(B, n, i2, j2));
      PetscCall(PetscFree2(i2, j2));
      for (int pass = 0; pass < 2; pass++) {
        Vec                x, y;
        const PetscScalar *xa, *ya;
        PetscReal          ymax = 0, yerr = 0, *xall;
        PetscInt           lo, hi;
        for (PetscCount e = 0; e < n; e++) PetscCall(PetscRandomGetValue(rnd, &v[e]));
        for (PetscInt k = 0; k < NGLOBAL * NGLOBAL; k++) dense[k] = 0;
        for (PetscCount e = 0; e < n; e++)
          if (ri[e] >= 0 && ci[e] >= 0) dense[ri[e] * NGLOBAL + ci[e]] += PetscRealPart(v[e]);
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, dense, NGLOBAL * NGLOBAL, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
        if (pattern == 2) {
          /* the direct blocks first: a thread per chunk, each chunk's blocks in order */
          PetscScalar *aa, *ba;
          PetscCall(TdCOOMapGetArrays(A, &aa, &ba));
#pragma omp parallel for schedule(dynamic, 1)
          for (PetscInt c = 0; c < NGLOBAL / 16 + 1; c++)
            for (PetscInt k = 0; k < NBLOCK; k++)
              if (chunk[order[k]] == c && map.block_direct[order[k]]) TdCOOMapAddBlock(&map, order[k], &v[BLOCK * order[k]], aa, ba);
          PetscCall(TdCOOMapRestoreArrays(A, &aa, &ba));
        }
        PetscCall(TdCOOMapSetValues(A, &map, v));
        PetscCall(MatSetValuesCOO(B, v, INSERT_VALUES));
        if (pass == 0) {
          PetscCall(SamePattern(A, B, &same));
          CHECKF(same, "%d ranks, %d threads, pattern %d: the pattern differs from MatSetPreallocationCOO's", size, nthreads, pattern);
        }
        PetscCall(CompareDense(A, dense, &err));
        CHECKF(err < 1e-14, "%d ranks, %d threads, pattern %d, pass %d: the map's values differ from the triplet sums by %g", size, nthreads, pattern, pass, (double)err);
        PetscCall(CompareDense(B, dense, &err));
        CHECKF(err < 1e-14, "%d ranks, %d threads, pattern %d, pass %d: MatSetValuesCOO differs from the triplet sums by %g (the check itself)", size, nthreads, pattern, pass, (double)err);
        /* the product with the new values and pattern */
        PetscCall(MatCreateVecs(A, &x, &y));
        PetscCall(VecSetRandom(x, rnd));
        PetscCall(MatMult(A, x, y));
        PetscCall(PetscCalloc1(NGLOBAL, &xall));
        PetscCall(VecGetOwnershipRange(x, &lo, &hi));
        PetscCall(VecGetArrayRead(x, &xa));
        for (PetscInt i = lo; i < hi; i++) xall[i] = PetscRealPart(xa[i - lo]);
        PetscCall(VecRestoreArrayRead(x, &xa));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, xall, NGLOBAL, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
        PetscCall(VecGetArrayRead(y, &ya));
        for (PetscInt r = lo; r < hi; r++) {
          PetscReal yr = 0;
          for (PetscInt c = 0; c < NGLOBAL; c++) yr += dense[r * NGLOBAL + c] * xall[c];
          ymax = PetscMax(ymax, PetscAbsReal(yr));
          yerr = PetscMax(yerr, PetscAbsReal(PetscRealPart(ya[r - lo]) - yr));
        }
        PetscCall(VecRestoreArrayRead(y, &ya));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &yerr, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ymax, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
        CHECKF(yerr <= 1e-13 * ymax, "%d ranks, %d threads, pattern %d, pass %d: A x differs from the triplet sums by %g (of %g)", size, nthreads, pattern, pass, (double)yerr, (double)ymax);
        PetscCall(PetscFree(xall));
        PetscCall(VecDestroy(&x));
        PetscCall(VecDestroy(&y));
      }
      PetscCall(MatDestroy(&B));
    }
    PetscCall(TdCOOMapDestroy(&map));
    PetscCall(MatDestroy(&A));
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ndirect, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &nindirect, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  CHECKF(ndirect > 0 && nindirect > 0, "%d ranks: %" PetscInt_FMT " direct and %" PetscInt_FMT " other blocks; the test needs both", size, ndirect, nindirect);
  PetscCall(PetscFree3(ri, ci, v));
  PetscCall(PetscFree(dense));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return td_finish();
}
