#ifndef TRIBODYN_SEQAIJ_THREADS_H
#define TRIBODYN_SEQAIJ_THREADS_H
/*
  The Jacobian's product y = J x (every Krylov iteration) over runs of consecutive columns, on
  the OpenMP threads (src/solver/seqaij_threads.c): PETSc runs it on one core per rank, reading a
  4-byte column index per nonzero.  The rows are split by nonzeros among
  the threads, so each thread writes only its own rows and no reduction is needed.  The pattern
  and the COO value sums are coo_map.h's.
*/
#include <petscmat.h>

/* Replaces A's MatMult (and MatMultAdd) by tribodyn's product when A is MATSEQAIJ, and on
   MATMPIAIJ the products of its diagonal block (MatMult) and off-diagonal block (MatMultAdd),
   which MatMult_MPIAIJ calls: on any number of threads, since over runs of consecutive columns
   it streams a third fewer bytes than PETSc's CSR product; *used says whether it did.  Call
   again after every preallocation. */
PetscErrorCode TdSeqAIJUseThreadedMult(Mat A, PetscBool *used);

#include <tribodyn/coo_map.h>

#endif
