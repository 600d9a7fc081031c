#ifndef TRIBODYN_MUMPS_SINGLE_H
#define TRIBODYN_MUMPS_SINGLE_H
/*
  A single-precision MUMPS LU as a PETSc solver type for MATSEQAIJ and MATMPIAIJ matrices
  (src/solver/mumps_single.c): -pc_type lu -pc_factor_mat_solver_type mumps_single.  On several
  ranks MUMPS takes each rank's rows as they are (distributed input) and the right-hand side
  through rank 0.

  Why: tribodyn keeps the LU of an earlier Jacobian as the preconditioner of a Krylov method
  (GMRES) for many Newton steps (-refactor_its), so each step's cost is dominated by the
  triangular solves, which stream the whole factor from memory once per Krylov iteration.  A
  factor in single precision is half the bytes: the solve and the factorisation take about two
  thirds of the time (3.3 million factor entries of the slider-guide Jacobian: 1.7 ms against
  2.5 ms per solve).  As a preconditioner its rounding (about 1e-7 relative, times the scaled
  matrix's condition) is far below the drift of a kept factor from the current Jacobian, so the
  Krylov iterations are the same; the Krylov method (whose operator is the double-precision
  Jacobian) still converges to its double-precision tolerance.  It must not be used as a direct
  solve (KSPPREONLY): the solver falls back to double-precision MUMPS there.

  Options (prefix of the matrix being factored, usually none):
    -mat_mumps_single_ordering <amd>   MUMPS ICNTL(7): amd, amf, scotch, pord, metis, qamd, auto
    -mat_mumps_single_icntl_14 <30>    percent of extra working space (raised and retried when
                                       pivoting needs more)
    -mat_mumps_single_cntl_1 <0.01>    relative pivoting threshold
    -mat_mumps_single_equilibrate <true>  rows and columns scaled by tribodyn (Ruiz's iteration)
                                       before MUMPS factors, instead of by MUMPS (ICNTL(8))
    -mat_mumps_single_equilibrate_max_its <2>, _sum_its <3>  the equilibration's sweeps at each
                                       factorisation: by the rows' and columns' largest
                                       magnitudes, then by their sums
    -mat_mumps_single_icntl_8 <77>     MUMPS's scaling when tribodyn does not equilibrate
    -mat_mumps_single_verbose          MUMPS's own statistics (ICNTL(4) = 2)
*/
#include <petscmat.h>

#define MATSOLVERMUMPSSINGLE "mumps_single"

/* Registers MATSOLVERMUMPSSINGLE for MATSEQAIJ and MATMPIAIJ LU (once per run; call after
   PetscInitialize). */
PetscErrorCode TdMumpsSingleRegister(void);

#endif
