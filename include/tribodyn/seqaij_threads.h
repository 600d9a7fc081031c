#ifndef TRIBODYN_SEQAIJ_THREADS_H
#define TRIBODYN_SEQAIJ_THREADS_H
/*
  OpenMP threads for the two operations on the one-rank Jacobian that PETSc runs on one core:
  the product y = J x (every Krylov iteration) and the COO value assembly (every Jacobian).
  Both split the matrix's rows by nonzeros among the threads, so each thread writes only its own
  rows and no reduction is needed (src/solver/seqaij_threads.c).
*/
#include <petscmat.h>

/* Replaces A's MatMult by the threaded product when A is MATSEQAIJ and more than one thread
   runs; *used says whether it did.  Call again after every MatSetPreallocationCOO. */
PetscErrorCode TdSeqAIJUseThreadedMult(Mat A, PetscBool *used);

/* Where each COO entry of A's pattern lands: for the nonzero k of A (CSR order),
   entries perm[jmap[k]] ... perm[jmap[k+1]-1] of the COO value array are summed into it. */
typedef struct {
  PetscInt    nnz;
  PetscCount *jmap, *perm;
} TdCOOMap;

/* The map of the COO pattern (rows[], cols[]; negative indices are dropped, as in
   MatSetPreallocationCOO) onto A, a MATSEQAIJ preallocated with that same pattern. */
PetscErrorCode TdCOOMapCreate(Mat A, PetscCount n, const PetscInt rows[], const PetscInt cols[], TdCOOMap *map);
/* A's values from the COO value array v (INSERT_VALUES), with threads. */
PetscErrorCode TdCOOMapSetValues(Mat A, const TdCOOMap *map, const PetscScalar v[]);
PetscErrorCode TdCOOMapDestroy(TdCOOMap *map);

#endif
