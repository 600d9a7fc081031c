#ifndef TRIBODYN_SEQAIJ_THREADS_H
#define TRIBODYN_SEQAIJ_THREADS_H
/*
  The one-rank Jacobian's pattern, COO value assembly and product (src/solver/seqaij_threads.c):
  the pattern is built from the COO entries without PETSc's global sort (it changes whenever the
  film slides onto other faces), and the two operations PETSc runs on one core, the product
  y = J x (every Krylov iteration) and the COO value sums (every Jacobian), run on the OpenMP
  threads.  Both split the matrix's rows by nonzeros among the threads, so each thread writes
  only its own rows and no reduction is needed.
*/
#include <petscmat.h>

/* Replaces A's MatMult by tribodyn's product when A is MATSEQAIJ (on any number of threads: over
   runs of consecutive columns it is faster than PETSc's on one thread too); *used says whether
   it did.  Call again after every MatSetPreallocationCOO. */
PetscErrorCode TdSeqAIJUseThreadedMult(Mat A, PetscBool *used);

/* Where each COO entry of A's pattern lands, the entries bucketed by row in COO order: entries
   rowstart[r] ... rowstart[r+1]-1 are those of row r; entry k adds the COO value v[entry[k]] to
   nonzero slot[k] of A (CSR order).  A row's bucket then reads v in runs (an element's row of
   its block is contiguous in the COO array) and writes within the row, where summing each
   nonzero's entries from scattered places of v stalled on the loads (twice the time, measured). */
typedef struct {
  PetscInt  nnz, nrows;
  PetscInt *rowstart, *entry, *slot; /* PetscInt, not PetscCount: the sums stream these (fewer
                                        than 2^31 entries, checked) */
} TdCOOMap;

/* Preallocates A (MATSEQAIJ; again after a change of pattern) with the nonzeros of the COO
   pattern (rows[], cols[]; entries with a negative index are dropped, as in
   MatSetPreallocationCOO) and makes the map of that pattern onto them.  A's values are then set
   by TdCOOMapSetValues (not MatSetValuesCOO). */
PetscErrorCode TdSeqAIJPreallocateCOO(Mat A, PetscCount n, const PetscInt rows[], const PetscInt cols[], TdCOOMap *map);
/* A's values from the COO value array v (INSERT_VALUES), with threads. */
PetscErrorCode TdCOOMapSetValues(Mat A, const TdCOOMap *map, const PetscScalar v[]);
PetscErrorCode TdCOOMapDestroy(TdCOOMap *map);

#endif
