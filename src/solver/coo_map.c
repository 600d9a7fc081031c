/*
  The Jacobian's pattern and COO value assembly by tribodyn's own map (coo_map.h), on one rank and
  on several.

  Pattern: the entries of other ranks' rows are sent, as (row, column) pairs, to their owners;
  each rank buckets its rows' entries by row (its own in COO order, then the received), makes
  each row's columns unique with a marker array and sorts them (a row holds a few hundred), and
  preallocates A with that CSR (PETSc's MatSetPreallocationCOO sorts all entries instead, at every
  change of the film-body coupling).  Each entry's nonzero is then looked up in the structure A
  was given (on several ranks its diagonal and off-diagonal blocks), column by column through a
  dense column-to-slot array.

  Values: the values of other ranks' rows travel first (one message per pair of ranks that share
  rows), then each thread zeroes its rows and adds its buckets' entries into them: the COO array
  is read in runs (an element's row of its block is contiguous) and the writes stay within the
  row.  A nonzero's entries are added in the bucket's order, from 0, so the sums do not depend on
  the number of threads.
*/
#include <tribodyn/coo_map.h>
#include <omp.h>

PetscErrorCode TdCOOMapDestroy(TdCOOMap *map)
{
  PetscFunctionBegin;
  PetscCall(PetscFree4(map->runstart, map->entry, map->slot, map->len));
  PetscCall(PetscFree(map->block_direct));
  PetscCall(PetscFree4(map->brunstart, map->bentry, map->bslot, map->blen));
  PetscCall(PetscFree2(map->send_rank, map->send_start));
  PetscCall(PetscFree2(map->recv_rank, map->recv_start));
  PetscCall(PetscFree(map->send_entry));
  PetscCall(PetscFree2(map->send_buf, map->recv_buf));
  PetscCall(PetscMemzero(map, sizeof *map));
  PetscFunctionReturn(0);
}

/* first row r with start[r] >= target (n if none) */
static PetscInt FirstRowAtOrAfter(const PetscInt start[], PetscInt n, PetscInt target)
{
  PetscInt lo = 0, hi = n;
  while (lo < hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (start[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void TdThreadRows(const PetscInt start[], PetscInt n, int tid, int nt, PetscInt *r0, PetscInt *r1)
{
  const PetscInt total = start[n];
  *r0                  = FirstRowAtOrAfter(start, n, (PetscInt)(((PetscInt64)total * tid) / nt));
  *r1                  = tid == nt - 1 ? n : FirstRowAtOrAfter(start, n, (PetscInt)(((PetscInt64)total * (tid + 1)) / nt));
}

/* The entries of other ranks' rows: their COO indices by destination (map->send_*) and their
   (row, column) pairs sent; the pairs this rank receives (*recv_pairs, *nrecv_pairs, map->recv_*). */
static PetscErrorCode ExchangePattern(MPI_Comm comm, PetscLayout layout, PetscCount n, const PetscInt rows[], const PetscInt cols[], TdCOOMap *map, PetscInt **recv_pairs, PetscInt *nrecv_pairs)
{
  PetscMPIInt  size, rank, *scount, *rcount, *slot_of_rank;
  PetscInt     rlo, rhi, nsend = 0, nrecv = 0, *send_pairs, *cursor;
  MPI_Request *req;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(PetscLayoutGetRange(layout, &rlo, &rhi));
  PetscCall(PetscCalloc3(size, &scount, size, &rcount, size, &slot_of_rank));
  for (PetscCount e = 0; e < n; e++) {
    PetscMPIInt owner;
    if (rows[e] < 0 || cols[e] < 0 || (rows[e] >= rlo && rows[e] < rhi)) continue;
    PetscCall(PetscLayoutFindOwner(layout, rows[e], &owner));
    scount[owner]++;
  }
  PetscCallMPI(MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm));
  for (PetscMPIInt r = 0; r < size; r++) {
    if (scount[r]) map->nsend++;
    if (rcount[r]) map->nrecv++;
  }
  PetscCall(PetscMalloc2(map->nsend, &map->send_rank, map->nsend + 1, &map->send_start));
  PetscCall(PetscMalloc2(map->nrecv, &map->recv_rank, map->nrecv + 1, &map->recv_start));
  map->send_start[0] = map->recv_start[0] = 0;
  for (PetscMPIInt r = 0, i = 0, j = 0; r < size; r++) {
    if (scount[r]) {
      slot_of_rank[r]        = i;
      map->send_rank[i]      = r;
      map->send_start[i + 1] = map->send_start[i] + scount[r];
      i++;
    }
    if (rcount[r]) {
      map->recv_rank[j]      = r;
      map->recv_start[j + 1] = map->recv_start[j] + rcount[r];
      j++;
    }
  }
  nsend = map->send_start[map->nsend];
  nrecv = map->recv_start[map->nrecv];
  PetscCall(PetscMalloc1(PetscMax(nsend, 1), &map->send_entry));
  PetscCall(PetscMalloc1(2 * PetscMax(nsend, 1), &send_pairs));
  PetscCall(PetscMalloc1(PetscMax(map->nsend, 1), &cursor));
  for (PetscMPIInt i = 0; i < map->nsend; i++) cursor[i] = map->send_start[i];
  for (PetscCount e = 0; e < n; e++) {
    PetscMPIInt owner;
    PetscInt    k;
    if (rows[e] < 0 || cols[e] < 0 || (rows[e] >= rlo && rows[e] < rhi)) continue;
    PetscCall(PetscLayoutFindOwner(layout, rows[e], &owner));
    k                     = cursor[slot_of_rank[owner]]++;
    map->send_entry[k]    = (PetscInt)e;
    send_pairs[2 * k]     = rows[e];
    send_pairs[2 * k + 1] = cols[e];
  }
  PetscCall(PetscMalloc1(2 * PetscMax(nrecv, 1), recv_pairs));
  PetscCall(PetscMalloc1(map->nsend + map->nrecv + 1, &req));
  for (PetscMPIInt j = 0; j < map->nrecv; j++) PetscCallMPI(MPI_Irecv(*recv_pairs + 2 * map->recv_start[j], (PetscMPIInt)(2 * (map->recv_start[j + 1] - map->recv_start[j])), MPIU_INT, map->recv_rank[j], map->tag, comm, &req[j]));
  for (PetscMPIInt i = 0; i < map->nsend; i++) PetscCallMPI(MPI_Isend(send_pairs + 2 * map->send_start[i], (PetscMPIInt)(2 * (map->send_start[i + 1] - map->send_start[i])), MPIU_INT, map->send_rank[i], map->tag, comm, &req[map->nrecv + i]));
  PetscCallMPI(MPI_Waitall(map->nsend + map->nrecv, req, MPI_STATUSES_IGNORE));
  *nrecv_pairs = nrecv;
  PetscCall(PetscFree(req));
  PetscCall(PetscFree(cursor));
  PetscCall(PetscFree(send_pairs));
  PetscCall(PetscFree3(scount, rcount, slot_of_rank));
  PetscFunctionReturn(0);
}

/* Whether bucket entry k (of a row whose bucket starts at k0) starts a run: the row's first, or
   not the next COO entry (or received value) onto the next nonzero of the same block, or a
   change between storing (the first to reach a nonzero) and adding. */
static inline PetscBool RunStarts(PetscInt k, PetscInt k0, const PetscInt entry[], const PetscInt slot[], const char first[], PetscInt nnz_diag)
{
  if (k == k0 || (entry[k] >= 0) != (entry[k - 1] >= 0) || first[k] != first[k - 1]) return PETSC_TRUE;
  return entry[k] != entry[k - 1] + (entry[k] >= 0 ? 1 : -1) || slot[k] != slot[k - 1] + 1 || slot[k] == nnz_diag ? PETSC_TRUE : PETSC_FALSE;
}

/* Which blocks are direct: every row of the block is this rank's, and no block of another chunk
   reaches it. */
static PetscErrorCode MarkDirectBlocks(const TdCOOMapBlocks *blocks, const PetscInt rows[], PetscInt rlo, PetscInt rhi, TdCOOMap *map)
{
  const PetscInt nl = rhi - rlo;
  PetscInt      *rowchunk; /* -1: no block, -2: blocks of several chunks */
  PetscFunctionBegin;
  map->nblock = blocks->nblock;
  map->bsize  = blocks->bsize;
  PetscCall(PetscMalloc1(PetscMax(map->nblock, 1), &map->block_direct));
  PetscCall(PetscMalloc1(PetscMax(nl, 1), &rowchunk));
  for (PetscInt r = 0; r < nl; r++) rowchunk[r] = -1;
  for (PetscInt b = 0; b < map->nblock; b++) {
    const PetscInt *rb = &rows[(PetscCount)b * map->bsize];
    for (PetscInt i = 0; i < map->bsize; i++) {
      const PetscInt r = rb[i] - rlo;
      if (rb[i] < rlo || rb[i] >= rhi) continue;
      if (rowchunk[r] == -1) rowchunk[r] = blocks->chunk[b];
      else if (rowchunk[r] != blocks->chunk[b]) rowchunk[r] = -2;
    }
  }
  for (PetscInt b = 0; b < map->nblock; b++) {
    const PetscInt *rb = &rows[(PetscCount)b * map->bsize];
    PetscBool       direct = PETSC_TRUE;
    for (PetscInt i = 0; i < map->bsize && direct; i++)
      if (rb[i] >= 0 && (rb[i] < rlo || rb[i] >= rhi || rowchunk[rb[i] - rlo] != blocks->chunk[b])) direct = PETSC_FALSE;
    map->block_direct[b] = direct;
  }
  PetscCall(PetscFree(rowchunk));
  PetscFunctionReturn(0);
}

/* The direct blocks' runs, in COO order within each block, from each entry's nonzero eslot[e]
   (-1: dropped) and whether it stores (efirst[e]). */
static PetscErrorCode MakeBlockRuns(const PetscInt eslot[], const char efirst[], TdCOOMap *map)
{
  PetscInt nrun = 0;
  PetscFunctionBegin;
  for (int pass = 0; pass < 2; pass++) {
    nrun = 0;
    for (PetscInt b = 0; b < map->nblock; b++) {
      const PetscCount e0 = (PetscCount)b * map->bsize;
      if (pass) map->brunstart[b] = nrun;
      if (!map->block_direct[b]) continue;
      for (PetscInt i = 0; i < map->bsize; i++) {
        const PetscCount e = e0 + i;
        PetscBool        starts;
        if (eslot[e] < 0) continue;
        starts = i == 0 || eslot[e - 1] < 0 || eslot[e] != eslot[e - 1] + 1 || eslot[e] == map->nnz_diag || efirst[e] != efirst[e - 1] ? PETSC_TRUE : PETSC_FALSE;
        if (starts) {
          if (pass) {
            map->bentry[nrun] = i;
            map->bslot[nrun]  = eslot[e];
            map->blen[nrun]   = 0;
          }
          nrun++;
        }
        if (pass) map->blen[nrun - 1] += efirst[e] ? -1 : 1;
      }
    }
    if (!pass) PetscCall(PetscMalloc4(map->nblock + 1, &map->brunstart, PetscMax(nrun, 1), &map->bentry, PetscMax(nrun, 1), &map->bslot, PetscMax(nrun, 1), &map->blen));
  }
  map->brunstart[map->nblock] = nrun;
  PetscFunctionReturn(0);
}

PetscErrorCode TdCOOMapPreallocate(Mat A, PetscCount n, const PetscInt rows[], const PetscInt cols[], const TdCOOMapBlocks *blocks, TdCOOMap *map)
{
  MPI_Comm    comm;
  PetscBool   seqaij, mpiaij;
  PetscInt    nlocal, nlocal_cols, N, Ncols, rlo, rhi, nrecv = 0, nb, *recv_pairs = NULL, *ai, *aj, *bcol, *mark, *colslot, *fill;
  PetscInt   *rowstart, *entry, *slot; /* the buckets, entry by entry, before they become runs */
  PetscLayout layout;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqaij));
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  PetscCheck(seqaij || mpiaij, comm, PETSC_ERR_SUP, "TdCOOMapPreallocate needs a MATSEQAIJ or MATMPIAIJ matrix");
  {
    /* a new pattern keeps the map's message tag: a run rebuilds its pattern thousands of times */
    const PetscMPIInt tag = map->tag;
    PetscCall(TdCOOMapDestroy(map));
    map->tag = tag;
  }
  PetscCall(MatGetLocalSize(A, &nlocal, &nlocal_cols));
  PetscCall(MatGetSize(A, &N, &Ncols));
  PetscCheck(n < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "%" PetscCount_FMT " COO entries: more than the map's PetscInt indices hold; run with -jacobian_coo_map false", n);
  PetscCall(PetscLayoutCreateFromSizes(comm, nlocal, N, 1, &layout));
  PetscCall(PetscLayoutGetRange(layout, &rlo, &rhi));
  for (PetscCount e = 0; e < n; e++)
    if (rows[e] >= 0 && cols[e] >= 0) PetscCheck(rows[e] < N && cols[e] < Ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "COO entry %" PetscCount_FMT " = (%" PetscInt_FMT ", %" PetscInt_FMT ") lies outside the %" PetscInt_FMT " x %" PetscInt_FMT " matrix", e, rows[e], cols[e], N, Ncols);
  if (!map->tag) PetscCall(PetscObjectGetNewTag((PetscObject)A, &map->tag));
  if (blocks && blocks->nblock > 0) {
    PetscCheck((PetscCount)blocks->nblock * blocks->bsize <= n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%" PetscInt_FMT " direct blocks of %" PetscInt_FMT " entries exceed the %" PetscCount_FMT " COO entries", blocks->nblock, blocks->bsize, n);
    PetscCall(MarkDirectBlocks(blocks, rows, rlo, rhi, map));
  }
  if (mpiaij) PetscCall(ExchangePattern(comm, layout, n, rows, cols, map, &recv_pairs, &nrecv));
  else {
    PetscCall(PetscMalloc2(1, &map->send_rank, 1, &map->send_start));
    PetscCall(PetscMalloc2(1, &map->recv_rank, 1, &map->recv_start));
    map->send_start[0] = map->recv_start[0] = 0;
  }
  /* this rank's rows: own entries in COO order, then the received in order */
  map->nrows = nlocal;
  PetscCall(PetscCalloc1(nlocal + 1, &rowstart));
  for (PetscCount e = 0; e < n; e++)
    if (rows[e] >= rlo && rows[e] < rhi && cols[e] >= 0) rowstart[rows[e] - rlo + 1]++;
  for (PetscInt j = 0; j < nrecv; j++) {
    PetscCheck(recv_pairs[2 * j] >= rlo && recv_pairs[2 * j] < rhi, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A COO entry of row %" PetscInt_FMT " came to the rank of rows %" PetscInt_FMT "-%" PetscInt_FMT, recv_pairs[2 * j], rlo, rhi);
    rowstart[recv_pairs[2 * j] - rlo + 1]++;
  }
  for (PetscInt r = 0; r < nlocal; r++) rowstart[r + 1] += rowstart[r];
  nb = rowstart[nlocal];
  PetscCall(PetscMalloc2(PetscMax(nb, 1), &entry, PetscMax(nb, 1), &slot));
  PetscCall(PetscMalloc1(PetscMax(nb, 1), &bcol));
  PetscCall(PetscMalloc1(nlocal + 1, &fill));
  PetscCall(PetscArraycpy(fill, rowstart, nlocal + 1));
  for (PetscCount e = 0; e < n; e++)
    if (rows[e] >= rlo && rows[e] < rhi && cols[e] >= 0) {
      const PetscInt k = fill[rows[e] - rlo]++;
      entry[k]         = (PetscInt)e;
      bcol[k]          = cols[e];
    }
  for (PetscInt j = 0; j < nrecv; j++) {
    const PetscInt k = fill[recv_pairs[2 * j] - rlo]++;
    entry[k]         = -1 - j;
    bcol[k]          = recv_pairs[2 * j + 1];
  }
  PetscCall(PetscFree(fill));
  PetscCall(PetscFree(recv_pairs));
  /* unique sorted columns of each row */
  PetscCall(PetscMalloc1(nlocal + 1, &ai));
  PetscCall(PetscMalloc1(PetscMax(nb, 1), &aj));
  PetscCall(PetscMalloc2(Ncols, &mark, Ncols, &colslot));
  for (PetscInt c = 0; c < Ncols; c++) mark[c] = -1;
  ai[0] = 0;
  for (PetscInt r = 0; r < nlocal; r++) {
    PetscInt nz = 0;
    for (PetscInt k = rowstart[r]; k < rowstart[r + 1]; k++)
      if (mark[bcol[k]] != r) {
        mark[bcol[k]]    = r;
        aj[ai[r] + nz++] = bcol[k];
      }
    PetscCall(PetscSortInt(nz, &aj[ai[r]]));
    ai[r + 1] = ai[r] + nz;
  }
  /* A with that pattern, and the nonzero of each entry in the structure A was given */
  if (seqaij) {
    PetscCall(MatSeqAIJSetPreallocationCSR(A, ai, aj, NULL));
    map->nnz = map->nnz_diag = ai[nlocal];
    for (PetscInt r = 0; r < nlocal; r++) {
      for (PetscInt k = ai[r]; k < ai[r + 1]; k++) colslot[aj[k]] = k;
      for (PetscInt k = rowstart[r]; k < rowstart[r + 1]; k++) slot[k] = colslot[bcol[k]];
    }
  } else {
    Mat             Ad, Ao;
    const PetscInt *garray, *Ai, *Aj, *Bi, *Bj;
    PetscInt        cstart, cend, na, nbo;
    PetscBool       done;
    PetscCall(MatMPIAIJSetPreallocationCSR(A, ai, aj, NULL));
    PetscCall(MatSetOption(A, MAT_NO_OFF_PROC_ENTRIES, PETSC_TRUE));
    PetscCall(MatGetOwnershipRangeColumn(A, &cstart, &cend));
    PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
    PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &na, &Ai, &Aj, &done));
    PetscCheck(done && na == nlocal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The diagonal block's row structure is not available");
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nbo, &Bi, &Bj, &done));
    PetscCheck(done && nbo == nlocal, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The off-diagonal block's row structure is not available");
    map->nnz_diag = Ai[nlocal];
    map->nnz      = Ai[nlocal] + Bi[nlocal];
    PetscCheck(map->nnz == ai[nlocal], PETSC_COMM_SELF, PETSC_ERR_PLIB, "The matrix holds %" PetscInt_FMT " nonzeros of this rank's rows, the pattern %" PetscInt_FMT, map->nnz, ai[nlocal]);
    for (PetscInt r = 0; r < nlocal; r++) {
      for (PetscInt k = Ai[r]; k < Ai[r + 1]; k++) colslot[cstart + Aj[k]] = k;
      for (PetscInt k = Bi[r]; k < Bi[r + 1]; k++) colslot[garray[Bj[k]]] = map->nnz_diag + k;
      PetscCheck(Ai[r + 1] - Ai[r] + Bi[r + 1] - Bi[r] == ai[r + 1] - ai[r], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT " holds %" PetscInt_FMT " nonzeros, its pattern %" PetscInt_FMT, rlo + r, Ai[r + 1] - Ai[r] + Bi[r + 1] - Bi[r], ai[r + 1] - ai[r]);
      for (PetscInt k = rowstart[r]; k < rowstart[r + 1]; k++) slot[k] = colslot[bcol[k]];
    }
    PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &na, &Ai, &Aj, &done));
    PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nbo, &Bi, &Bj, &done));
  }
  {
    /* The direct blocks' entries leave the buckets for their own runs; then which run is the
       first to reach each nonzero (it stores), in the order of the assembly: the direct blocks,
       then the rows. */
    const PetscCount nbe = map->block_direct ? (PetscCount)map->nblock * map->bsize : 0;
    PetscInt        *eslot = NULL;
    char            *efirst = NULL, *touched, *first;
    PetscInt         kk = 0;
    PetscCall(PetscCalloc1(PetscMax(map->nnz, 1), &touched));
    PetscCall(PetscMalloc1(PetscMax(nb, 1), &first));
    if (nbe) {
      PetscCall(PetscMalloc2(nbe, &eslot, nbe, &efirst));
      for (PetscCount e = 0; e < nbe; e++) eslot[e] = -1;
    }
    for (PetscInt r = 0; r < nlocal; r++) {
      const PetscInt k0 = rowstart[r];
      rowstart[r]       = kk;
      for (PetscInt k = k0; k < rowstart[r + 1]; k++) {
        const PetscInt e = entry[k];
        if (e >= 0 && e < nbe && map->block_direct[e / map->bsize]) eslot[e] = slot[k];
        else {
          entry[kk]  = e;
          slot[kk++] = slot[k];
        }
      }
    }
    rowstart[nlocal] = kk;
    for (PetscInt kb = 0; nbe && kb < map->nblock; kb++) { /* in the order of the assembly */
      const PetscInt b = blocks->order ? blocks->order[kb] : kb;
      for (PetscCount e = (PetscCount)b * map->bsize; e < (PetscCount)(b + 1) * map->bsize; e++)
        if (eslot[e] >= 0) {
          efirst[e]         = !touched[eslot[e]];
          touched[eslot[e]] = 1;
        }
    }
    for (PetscInt k = 0; k < kk; k++) {
      first[k]        = !touched[slot[k]];
      touched[slot[k]] = 1;
    }
    for (PetscInt j = 0; j < map->nnz; j++) PetscCheck(touched[j], PETSC_COMM_SELF, PETSC_ERR_PLIB, "Nonzero %" PetscInt_FMT " of the COO map's pattern is reached by no entry", j);
    PetscCall(PetscFree(touched));
    if (nbe) PetscCall(MakeBlockRuns(eslot, efirst, map));
    PetscCall(PetscFree2(eslot, efirst));
    /* the buckets as runs of consecutive entries onto consecutive nonzeros of one block */
    PetscInt nrun = 0;
    for (PetscInt r = 0; r < nlocal; r++)
      for (PetscInt k = rowstart[r]; k < rowstart[r + 1]; k++)
        if (RunStarts(k, rowstart[r], entry, slot, first, map->nnz_diag)) nrun++;
    PetscCall(PetscMalloc4(nlocal + 1, &map->runstart, PetscMax(nrun, 1), &map->entry, PetscMax(nrun, 1), &map->slot, PetscMax(nrun, 1), &map->len));
    nrun = 0;
    for (PetscInt r = 0; r < nlocal; r++) {
      map->runstart[r] = nrun;
      for (PetscInt k = rowstart[r]; k < rowstart[r + 1]; k++) {
        if (RunStarts(k, rowstart[r], entry, slot, first, map->nnz_diag)) {
          map->entry[nrun] = entry[k];
          map->slot[nrun]  = slot[k];
          map->len[nrun]   = 0;
          nrun++;
        }
        map->len[nrun - 1] += first[k] ? -1 : 1;
      }
    }
    map->runstart[nlocal] = nrun;
    PetscCall(PetscFree(first));
  }
  PetscCall(PetscFree(rowstart));
  PetscCall(PetscFree2(entry, slot));
  PetscCall(PetscMalloc2(PetscMax(map->send_start[map->nsend], 1), &map->send_buf, PetscMax(map->recv_start[map->nrecv], 1), &map->recv_buf));
  PetscCall(PetscFree2(mark, colslot));
  PetscCall(PetscFree(aj));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(bcol));
  PetscCall(PetscLayoutDestroy(&layout));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCOOMapSetValues(Mat A, TdCOOMap *map, const PetscScalar v[])
{
  Mat             Ad, Ao;
  const PetscInt *Ai, *Aj, *Bi = NULL, *Bj;
  PetscInt        na, nbo;
  PetscScalar    *aa, *ba = NULL;
  PetscBool       done;
  const PetscInt *runstart = map->runstart, *entry = map->entry, *slot = map->slot, *len = map->len;
  const PetscInt  nrows = map->nrows, nnz_diag = map->nnz_diag;
  PetscFunctionBegin;
  PetscCall(TdAIJBlocks(A, &Ad, &Ao));
  if (map->nsend || map->nrecv) {
    /* the values of other ranks' rows to them */
    MPI_Comm     comm;
    MPI_Request *req;
    PetscCall(PetscObjectGetComm((PetscObject)A, &comm));
    PetscCall(PetscMalloc1(map->nsend + map->nrecv, &req));
    for (PetscMPIInt j = 0; j < map->nrecv; j++) PetscCallMPI(MPI_Irecv(map->recv_buf + map->recv_start[j], (PetscMPIInt)(map->recv_start[j + 1] - map->recv_start[j]), MPIU_SCALAR, map->recv_rank[j], map->tag, comm, &req[j]));
    for (PetscInt k = 0; k < map->send_start[map->nsend]; k++) map->send_buf[k] = v[map->send_entry[k]];
    for (PetscMPIInt i = 0; i < map->nsend; i++) PetscCallMPI(MPI_Isend(map->send_buf + map->send_start[i], (PetscMPIInt)(map->send_start[i + 1] - map->send_start[i]), MPIU_SCALAR, map->send_rank[i], map->tag, comm, &req[map->nrecv + i]));
    PetscCallMPI(MPI_Waitall(map->nsend + map->nrecv, req, MPI_STATUSES_IGNORE));
    PetscCall(PetscFree(req));
  }
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &na, &Ai, &Aj, &done));
  PetscCheck(done && na == nrows && Ai[na] == nnz_diag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The COO map has %" PetscInt_FMT " nonzeros in the diagonal block, the matrix %" PetscInt_FMT ": the map belongs to another pattern", nnz_diag, Ai[na]);
  if (Ao) {
    PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nbo, &Bi, &Bj, &done));
    PetscCheck(done && nbo == nrows && Bi[nbo] == map->nnz - nnz_diag, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The COO map has %" PetscInt_FMT " nonzeros in the off-diagonal block, the matrix %" PetscInt_FMT ": the map belongs to another pattern", map->nnz - nnz_diag, Bi[nbo]);
    PetscCall(MatSeqAIJGetArray(Ao, &ba));
  }
  PetscCall(MatSeqAIJGetArray(Ad, &aa)); /* not ...Write: the direct blocks' values are kept */
  {
    const PetscScalar *recv = map->recv_buf;
#pragma omp parallel
    {
      PetscInt r0, r1;
      TdThreadRows(runstart, nrows, omp_get_thread_num(), omp_get_num_threads(), &r0, &r1);
      /* row by row: a run stores where it is the first to reach its nonzeros (len < 0), so
         no pass zeroes the matrix */
      for (PetscInt r = r0; r < r1; r++) {
        for (PetscInt k = runstart[r]; k < runstart[r + 1]; k++) {
          const PetscInt     e = entry[k], n = len[k];
          const PetscScalar *x = e >= 0 ? &v[e] : &recv[-1 - e];
          PetscScalar       *y = slot[k] < nnz_diag ? &aa[slot[k]] : &ba[slot[k] - nnz_diag];
          if (n < 0)
            for (PetscInt i = 0; i < -n; i++) y[i] = x[i];
          else
            for (PetscInt i = 0; i < n; i++) y[i] += x[i];
        }
      }
    }
  }
  PetscCall(MatSeqAIJRestoreArray(Ad, &aa));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &na, &Ai, &Aj, &done));
  if (Ao) {
    PetscCall(MatSeqAIJRestoreArray(Ao, &ba));
    PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &nbo, &Bi, &Bj, &done));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode TdAIJBlocks(Mat A, Mat *Ad, Mat *Ao)
{
  PetscBool mpiaij;
  PetscFunctionBegin;
  *Ad = A;
  *Ao = NULL;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATMPIAIJ, &mpiaij));
  if (mpiaij) PetscCall(MatMPIAIJGetSeqAIJ(A, Ad, Ao, NULL));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCOOMapGetArrays(Mat A, PetscScalar **aa, PetscScalar **ba)
{
  Mat Ad, Ao;
  PetscFunctionBegin;
  PetscCall(TdAIJBlocks(A, &Ad, &Ao));
  PetscCall(MatSeqAIJGetArray(Ad, aa));
  *ba = NULL;
  if (Ao) PetscCall(MatSeqAIJGetArray(Ao, ba));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCOOMapRestoreArrays(Mat A, PetscScalar **aa, PetscScalar **ba)
{
  Mat Ad, Ao;
  PetscFunctionBegin;
  PetscCall(TdAIJBlocks(A, &Ad, &Ao));
  PetscCall(MatSeqAIJRestoreArray(Ad, aa));
  if (Ao) PetscCall(MatSeqAIJRestoreArray(Ao, ba));
  PetscFunctionReturn(0);
}

void TdCOOMapAddBlock(const TdCOOMap *map, PetscInt b, const PetscScalar vals[], PetscScalar aa[], PetscScalar ba[])
{
  const PetscInt nnz_diag = map->nnz_diag;
  for (PetscInt k = map->brunstart[b]; k < map->brunstart[b + 1]; k++) {
    const PetscScalar *x = &vals[map->bentry[k]];
    const PetscInt     n = map->blen[k];
    PetscScalar       *y = map->bslot[k] < nnz_diag ? &aa[map->bslot[k]] : &ba[map->bslot[k] - nnz_diag];
    if (n < 0)
      for (PetscInt i = 0; i < -n; i++) y[i] = x[i];
    else
      for (PetscInt i = 0; i < n; i++) y[i] += x[i];
  }
}
