/*
  Threaded product and COO assembly of a one-rank MATSEQAIJ (seqaij_threads.h).

  On one rank PETSc multiplies and assembles on one core while the film and element loops use
  every thread; with a kept LU each Newton step takes several Krylov iterations, each one product
  with the Jacobian.  Rows are split among the threads by nonzeros (thread t takes the rows whose
  first nonzero lies in [t nnz/T, (t+1) nnz/T)), so each thread writes only its own rows: the
  product of a row sums in CSR order as PETSc's does, and the COO sums add a nonzero's entries
  in the order of the COO array.
*/
#include <tribodyn/seqaij_threads.h>
#include <omp.h>

/* first row r with ai[r] >= target (n if none) */
static PetscInt FirstRowAtOrAfter(const PetscInt ai[], PetscInt n, PetscInt target)
{
  PetscInt lo = 0, hi = n;
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (ai[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

static void ThreadRows(const PetscInt ai[], PetscInt n, int tid, int nthreads, PetscInt *r0, PetscInt *r1)
{
  const PetscInt nnz = ai[n];
  *r0                = FirstRowAtOrAfter(ai, n, (PetscInt)(((PetscInt64)nnz * tid) / nthreads));
  *r1                = tid == nthreads - 1 ? n : FirstRowAtOrAfter(ai, n, (PetscInt)(((PetscInt64)nnz * (tid + 1)) / nthreads));
}

static PetscErrorCode GetCSR(Mat A, PetscInt *n, const PetscInt **ai, const PetscInt **aj)
{
  PetscBool done;
  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, n, ai, aj, &done));
  PetscCheck(done, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The Jacobian's row structure is not available to the threaded product; run with -threaded_jacobian false");
  PetscFunctionReturn(0);
}

static PetscErrorCode RestoreCSR(Mat A, PetscInt *n, const PetscInt **ai, const PetscInt **aj)
{
  PetscBool done;
  PetscFunctionBegin;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, n, ai, aj, &done));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_ThreadedSeqAIJ(Mat A, Vec x, Vec y)
{
  const PetscInt    *ai, *aj;
  PetscInt           n;
  const PetscScalar *aa, *xa;
  PetscScalar       *ya;
  PetscFunctionBegin;
  PetscCall(GetCSR(A, &n, &ai, &aj));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(VecGetArrayRead(x, &xa));
  PetscCall(VecGetArrayWrite(y, &ya));
#pragma omp parallel
  {
    PetscInt r0, r1;
    ThreadRows(ai, n, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);
    for (PetscInt r = r0; r < r1; r++) {
      PetscScalar sum = 0;
      for (PetscInt k = ai[r]; k < ai[r + 1]; k++) sum += aa[k] * xa[aj[k]];
      ya[r] = sum;
    }
  }
  PetscCall(PetscLogFlops(2.0 * ai[n] - n));
  PetscCall(VecRestoreArrayWrite(y, &ya));
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(RestoreCSR(A, &n, &ai, &aj));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSeqAIJUseThreadedMult(Mat A, PetscBool *used)
{
  PetscBool seqaij;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  *used = seqaij && omp_get_max_threads() > 1 ? PETSC_TRUE : PETSC_FALSE;
  if (*used) PetscCall(MatSetOperation(A, MATOP_MULT, (void (*)(void))MatMult_ThreadedSeqAIJ));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCOOMapCreate(Mat A, PetscCount n, const PetscInt rows[], const PetscInt cols[], TdCOOMap *map)
{
  const PetscInt *ai, *aj;
  PetscInt        nrows;
  PetscCount     *pos, *fill;
  PetscFunctionBegin;
  PetscCall(TdCOOMapDestroy(map));
  PetscCall(GetCSR(A, &nrows, &ai, &aj));
  map->nnz = ai[nrows];
  PetscCall(PetscCalloc1(map->nnz + 1, &map->jmap));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &pos));
  for (PetscCount e = 0; e < n; e++) {
    const PetscInt r = rows[e], c = cols[e];
    PetscInt       lo, hi;
    pos[e] = -1;
    if (r < 0 || c < 0) continue;
    PetscCheck(r < nrows, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO entry %" PetscCount_FMT ": row %" PetscInt_FMT " outside the matrix (%" PetscInt_FMT " rows)", e, r, nrows);
    lo = ai[r];
    hi = ai[r + 1];
    while (lo < hi) {
      const PetscInt mid = lo + (hi - lo) / 2;
      if (aj[mid] < c) lo = mid + 1;
      else hi = mid;
    }
    PetscCheck(lo < ai[r + 1] && aj[lo] == c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "COO entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is not in the matrix's pattern", r, c);
    pos[e] = lo;
    map->jmap[lo + 1]++;
  }
  for (PetscInt k = 0; k < map->nnz; k++) map->jmap[k + 1] += map->jmap[k];
  PetscCall(PetscMalloc1(PetscMax(map->jmap[map->nnz], 1), &map->perm));
  PetscCall(PetscMalloc1(map->nnz + 1, &fill));
  PetscCall(PetscArraycpy(fill, map->jmap, map->nnz + 1));
  for (PetscCount e = 0; e < n; e++)
    if (pos[e] >= 0) map->perm[fill[pos[e]]++] = e;
  PetscCall(PetscFree(fill));
  PetscCall(PetscFree(pos));
  PetscCall(RestoreCSR(A, &nrows, &ai, &aj));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCOOMapSetValues(Mat A, const TdCOOMap *map, const PetscScalar v[])
{
  const PetscInt   *ai, *aj;
  PetscInt          n;
  PetscScalar      *aa;
  const PetscCount *jmap = map->jmap, *perm = map->perm;
  PetscFunctionBegin;
  PetscCall(GetCSR(A, &n, &ai, &aj));
  PetscCheck(ai[n] == map->nnz, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The COO map has %" PetscInt_FMT " nonzeros, the matrix %" PetscInt_FMT ": the map belongs to another pattern", map->nnz, ai[n]);
  PetscCall(MatSeqAIJGetArrayWrite(A, &aa));
#pragma omp parallel
  {
    PetscInt r0, r1;
    ThreadRows(ai, n, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);
    for (PetscInt k = ai[r0]; k < ai[r1]; k++) {
      PetscScalar sum = 0;
      for (PetscCount m = jmap[k]; m < jmap[k + 1]; m++) sum += v[perm[m]];
      aa[k] = sum;
    }
  }
  PetscCall(MatSeqAIJRestoreArrayWrite(A, &aa));
  PetscCall(RestoreCSR(A, &n, &ai, &aj));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCOOMapDestroy(TdCOOMap *map)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(map->jmap));
  PetscCall(PetscFree(map->perm));
  map->nnz = 0;
  PetscFunctionReturn(0);
}
