#ifndef TRIBODYN_COO_MAP_H
#define TRIBODYN_COO_MAP_H
/*
  The Jacobian's pattern and COO value assembly by tribodyn's own map (src/solver/coo_map.c), on
  one rank (MATSEQAIJ) and on several (MATMPIAIJ), in place of PETSc's MatSetPreallocationCOO and
  MatSetValuesCOO.  The pattern is built without a global sort of the entries (it changes
  whenever the film slides onto other faces), and the values are summed row by row from the COO
  array read in runs (an element's row of its block is contiguous in it), with 4-byte indices:
  PETSc sums each nonzero's entries from scattered places with 8-byte ones.
*/
#include <petscmat.h>

/* Where each COO entry of A's pattern lands.  The entries of this rank's rows are bucketed by
   row, its own in COO order, then those other ranks sent for it; the buckets are stored as runs:
   run k adds the len[k] values from entry[k] on (a COO index, or -1 - j for the j-th value
   received: then the received ones from j on) to the len[k] nonzeros from slot[k] on (below
   nnz_diag: the diagonal block's, in its CSR order; else the off-diagonal block's, minus
   nnz_diag).  Runs are long since an element's row of its block is contiguous in the COO array
   and a node's 12 columns are contiguous in a row: 12 bytes per run instead of 8 per entry are
   read at every assembly.  Row r's runs are runstart[r] ... runstart[r+1]-1.  Entries of rows
   another rank owns travel to it at every assembly: send_entry lists them by destination.

   A run stores (len[k] < 0: -len[k] values) where it is the first to reach its nonzeros and adds
   (len[k] > 0) after that, so no pass zeroes the matrix: the order is the direct blocks' runs
   (below), then the rows' runs in order.

   Direct blocks (TdCOOMapBlocks): COO entries [0, nblock bsize) come in blocks of bsize, an
   element's tangent each.  A block whose rows are all this rank's and are reached by no block of
   another chunk is direct (block_direct[b]): its entries are not in the rows' runs, and its
   values are added by TdCOOMapAddBlock straight from the caller's buffer (the element's tangent,
   still in cache) instead of being written to the COO array and read back.  Block b's runs are
   brunstart[b] ... brunstart[b+1]-1, with offsets bentry[k] within the block. */
typedef struct {
  PetscInt     nnz, nnz_diag, nrows;
  PetscInt    *runstart, *entry, *slot, *len; /* PetscInt, not PetscCount: fewer than 2^31
                                                 entries are checked */
  PetscInt     nblock, bsize;
  PetscBool   *block_direct;                  /* NULL: no direct blocks */
  PetscInt    *brunstart, *bentry, *bslot, *blen;
  PetscMPIInt  nsend, nrecv;             /* ranks sent to and received from */
  PetscMPIInt  tag;
  PetscMPIInt *send_rank, *recv_rank;
  PetscInt    *send_start, *recv_start;  /* offsets per rank, nsend + 1 and nrecv + 1 */
  PetscInt    *send_entry;               /* the COO indices sent, by destination */
  PetscScalar *send_buf, *recv_buf;
} TdCOOMap;

/* The leading COO entries that may be added as direct blocks: nblock blocks of bsize entries;
   chunk[b] is block b's chunk.  The blocks of one chunk are added by one thread in the order
   they appear in order[] (a permutation of the blocks; NULL: increasing), chunks in any order
   and at once, so a block is direct only if no block of another chunk reaches its rows (then
   each nonzero's sum has one order whatever the threads). */
typedef struct {
  PetscInt        nblock, bsize;
  const PetscInt *chunk, *order;
} TdCOOMapBlocks;

/* Preallocates A (MATSEQAIJ or MATMPIAIJ, local sizes set; again after a change of pattern) with
   the nonzeros of the COO pattern (rows[], cols[] in A's global numbering; entries with a
   negative index are dropped, as in MatSetPreallocationCOO) and makes the map of that pattern
   onto them; blocks (or NULL) names the leading entries that may be direct blocks.  Collective.
   A's values are then set by TdCOOMapAddBlock (the direct blocks, first) and TdCOOMapSetValues,
   not MatSetValuesCOO. */
PetscErrorCode TdCOOMapPreallocate(Mat A, PetscCount n, const PetscInt rows[], const PetscInt cols[], const TdCOOMapBlocks *blocks, TdCOOMap *map);
/* A's diagonal block (*Ad: A itself when it is MATSEQAIJ) and off-diagonal block (*Ao, NULL on
   MATSEQAIJ). */
PetscErrorCode TdAIJBlocks(Mat A, Mat *Ad, Mat *Ao);
/* The value arrays of A's diagonal block (*aa) and off-diagonal block (*ba, NULL on one rank),
   for TdCOOMapAddBlock; restored before TdCOOMapSetValues. */
PetscErrorCode TdCOOMapGetArrays(Mat A, PetscScalar **aa, PetscScalar **ba);
PetscErrorCode TdCOOMapRestoreArrays(Mat A, PetscScalar **aa, PetscScalar **ba);
/* The bsize values of direct block b (map->block_direct[b]) into A's arrays.  Thread-safe for
   blocks of different chunks. */
void TdCOOMapAddBlock(const TdCOOMap *map, PetscInt b, const PetscScalar vals[], PetscScalar aa[], PetscScalar ba[]);
/* A's values from the COO value array v (the entries of the direct blocks are not read: they
   must have been added before, for this Jacobian), with the OpenMP threads.  Collective. */
PetscErrorCode TdCOOMapSetValues(Mat A, TdCOOMap *map, const PetscScalar v[]);
PetscErrorCode TdCOOMapDestroy(TdCOOMap *map);
/* The rows [*r0, *r1) of thread tid of nt: those whose offset start[r] (CSR row offsets, or the
   map's runstart) lies in the thread's equal share of start[n]; each thread then writes only
   its own rows. */
void TdThreadRows(const PetscInt start[], PetscInt n, int tid, int nt, PetscInt *r0, PetscInt *r1);

#endif
