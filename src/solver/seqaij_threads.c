/*
  Threaded product of a MATSEQAIJ, or of each rank's blocks of a MATMPIAIJ (seqaij_threads.h).

  PETSc multiplies on one core per rank while the film and element loops use every thread;
  with a kept LU each Newton step takes several Krylov iterations, each one product with the
  Jacobian, and the product streams the matrix from memory.  Rows are split among the threads
  by nonzeros (thread t takes the rows whose first nonzero lies in [t nnz/T, (t+1) nnz/T)), so
  each thread writes only its own rows: the product runs over runs of consecutive columns with
  eight partial sums per row (ColumnRuns), reading fewer index bytes than PETSc's CSR loop.  The
  pattern and the COO value sums are coo_map.c's.
*/
#include <tribodyn/seqaij_threads.h>
#include <omp.h>

static PetscErrorCode GetCSR(Mat A, PetscInt *n, const PetscInt **ai, const PetscInt **aj)
{
  PetscBool done;
  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, n, ai, aj, &done));
  PetscCheck(done, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "The Jacobian's row structure (MatGetRowIJ) is not available; run with -threaded_jacobian false");
  PetscFunctionReturn(0);
}

static PetscErrorCode RestoreCSR(Mat A, PetscInt *n, const PetscInt **ai, const PetscInt **aj)
{
  PetscBool done;
  PetscFunctionBegin;
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, n, ai, aj, &done));
  PetscFunctionReturn(0);
}

/*
  The column runs of the pattern, for the product: each row's columns split into runs of
  consecutive columns (an ANCF node's 12 coordinates are consecutive unknowns, and neighbouring
  nodes often too: 19 columns per run on the slider-guide Jacobian).  Run q of row r starts at
  column col[q] and value k0[q] and ends before value k0[q + 1].  The product then reads 8 bytes
  of index per run instead of 4 per nonzero (a third of the bytes it streams) and x contiguously.
  Kept on the matrix (PetscObjectCompose), tagged with the nonzero state it was built for.
*/
typedef struct {
  PetscObjectState state;
  PetscInt         n, *rowrun, *col, *k0;
} ColumnRuns;

static PetscErrorCode ColumnRunsDestroy(void *ctx)
{
  ColumnRuns *runs = (ColumnRuns *)ctx;
  PetscFunctionBegin;
  PetscCall(PetscFree3(runs->rowrun, runs->col, runs->k0));
  PetscCall(PetscFree(runs));
  PetscFunctionReturn(0);
}

static PetscErrorCode ColumnRunsBuild(Mat A, ColumnRuns **built)
{
  const PetscInt *ai, *aj;
  PetscInt        n, nruns = 0;
  ColumnRuns     *runs;
  PetscContainer  c;
  PetscFunctionBegin;
  PetscCall(GetCSR(A, &n, &ai, &aj));
  for (PetscInt r = 0; r < n; r++)
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++)
      if (k == ai[r] || aj[k] != aj[k - 1] + 1) nruns++;
  PetscCall(PetscNew(&runs));
  PetscCall(PetscMalloc3(n + 1, &runs->rowrun, PetscMax(nruns, 1), &runs->col, nruns + 1, &runs->k0));
  runs->n = n;
  nruns   = 0;
  for (PetscInt r = 0; r < n; r++) {
    runs->rowrun[r] = nruns;
    for (PetscInt k = ai[r]; k < ai[r + 1]; k++)
      if (k == ai[r] || aj[k] != aj[k - 1] + 1) {
        runs->col[nruns] = aj[k];
        runs->k0[nruns]  = k;
        nruns++;
      }
  }
  runs->rowrun[n] = nruns;
  runs->k0[nruns] = ai[n];
  PetscCall(RestoreCSR(A, &n, &ai, &aj));
  PetscCall(MatGetNonzeroState(A, &runs->state));
  PetscCall(PetscContainerCreate(PETSC_COMM_SELF, &c));
  PetscCall(PetscContainerSetPointer(c, runs));
  PetscCall(PetscContainerSetUserDestroy(c, ColumnRunsDestroy));
  PetscCall(PetscObjectCompose((PetscObject)A, "TdColumnRuns", (PetscObject)c));
  PetscCall(PetscContainerDestroy(&c));
  *built = runs;
  PetscFunctionReturn(0);
}

/* The runs of A's current pattern: built at the first product after each change of pattern */
static PetscErrorCode ColumnRunsGet(Mat A, const ColumnRuns **runs)
{
  PetscContainer   c;
  ColumnRuns      *r = NULL;
  PetscObjectState state;
  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(A, &state));
  PetscCall(PetscObjectQuery((PetscObject)A, "TdColumnRuns", (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)&r));
  if (!r || r->state != state) PetscCall(ColumnRunsBuild(A, &r));
  *runs = r;
  PetscFunctionReturn(0);
}

/* z = y + A x (y NULL: z = A x) over the column runs, rows split among the threads by
   nonzeros.  Eight partial sums per row (the additions of a row are independent chains, not one:
   the dependent chain of single sums, not memory, bounded the plain CSR loop), so a row's sum is
   rounded differently from PETSc's CSR-order sum, within a few units of its last place. */
static PetscErrorCode MultAddRuns(Mat A, Vec x, Vec y, Vec z)
{
  const PetscInt    *ai, *aj;
  PetscInt           n;
  const PetscScalar *aa, *xa, *ya = NULL;
  PetscScalar       *za;
  const ColumnRuns  *runs;
  PetscFunctionBegin;
  PetscCall(ColumnRunsGet(A, &runs));
  PetscCall(GetCSR(A, &n, &ai, &aj));
  PetscCall(MatSeqAIJGetArrayRead(A, &aa));
  PetscCall(VecGetArrayRead(x, &xa));
  if (y == z) PetscCall(VecGetArray(z, &za));
  else {
    if (y) PetscCall(VecGetArrayRead(y, &ya));
    PetscCall(VecGetArrayWrite(z, &za));
  }
  {
    const PetscScalar *yin = y == z ? za : ya;
#pragma omp parallel
    {
      const PetscInt *rowrun = runs->rowrun, *col = runs->col, *k0 = runs->k0;
      PetscInt        r0, r1;
      TdThreadRows(ai, n, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);
      for (PetscInt r = r0; r < r1; r++) {
        PetscScalar s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, sum;
        for (PetscInt q = rowrun[r]; q < rowrun[r + 1]; q++) {
          const PetscScalar *xq = xa + col[q] - k0[q]; /* xq[k] = x[column of value k] */
          PetscInt           k  = k0[q];
          const PetscInt     e  = k0[q + 1];
          for (; k + 8 <= e; k += 8)
            for (int l = 0; l < 8; l++) s[l] += aa[k + l] * xq[k + l];
          for (; k < e; k++) s[0] += aa[k] * xq[k];
        }
        sum   = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
        za[r] = yin ? yin[r] + sum : sum;
      }
    }
  }
  PetscCall(PetscLogFlops(2.0 * ai[n] - (y ? 0 : n)));
  if (y == z) PetscCall(VecRestoreArray(z, &za));
  else {
    if (y) PetscCall(VecRestoreArrayRead(y, &ya));
    PetscCall(VecRestoreArrayWrite(z, &za));
  }
  PetscCall(VecRestoreArrayRead(x, &xa));
  PetscCall(MatSeqAIJRestoreArrayRead(A, &aa));
  PetscCall(RestoreCSR(A, &n, &ai, &aj));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMult_ThreadedSeqAIJ(Mat A, Vec x, Vec y)
{
  PetscFunctionBegin;
  PetscCall(MultAddRuns(A, x, NULL, y));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatMultAdd_ThreadedSeqAIJ(Mat A, Vec x, Vec y, Vec z)
{
  PetscFunctionBegin;
  PetscCall(MultAddRuns(A, x, y, z));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSeqAIJUseThreadedMult(Mat A, PetscBool *used)
{
  PetscBool seqaij, mpiaij;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  *used = seqaij || mpiaij ? PETSC_TRUE : PETSC_FALSE;
  if (seqaij) {
    PetscCall(MatSetOperation(A, MATOP_MULT, (void (*)(void))MatMult_ThreadedSeqAIJ));
    PetscCall(MatSetOperation(A, MATOP_MULT_ADD, (void (*)(void))MatMultAdd_ThreadedSeqAIJ));
  } else if (mpiaij) {
    /* MatMult_MPIAIJ calls its blocks' products: A_d x_local, then + A_o x_ghost */
    Mat Ad, Ao;
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
    PetscCall(MatSetOperation(Ad, MATOP_MULT, (void (*)(void))MatMult_ThreadedSeqAIJ));
    PetscCall(MatSetOperation(Ao, MATOP_MULT_ADD, (void (*)(void))MatMultAdd_ThreadedSeqAIJ));
  }
  PetscFunctionReturn(0);
}
