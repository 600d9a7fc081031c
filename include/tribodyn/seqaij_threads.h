#ifndef TRIBODYN_SEQAIJ_THREADS_H
#define TRIBODYN_SEQAIJ_THREADS_H
/*
  The one-rank Jacobian's product y = J x (every Krylov iteration) on the OpenMP threads
  (src/solver/seqaij_threads.c): PETSc runs it on one core.  The rows are split by nonzeros among
  the threads, so each thread writes only its own rows and no reduction is needed.  The pattern
  and the COO value sums are coo_map.h's.
*/
#include <petscmat.h>

/* Replaces A's MatMult by tribodyn's product when A is MATSEQAIJ (on any number of threads: over
   runs of consecutive columns it is faster than PETSc's on one thread too); *used says whether
   it did.  Call again after every preallocation. */
PetscErrorCode TdSeqAIJUseThreadedMult(Mat A, PetscBool *used);

#include <tribodyn/coo_map.h>

#endif
