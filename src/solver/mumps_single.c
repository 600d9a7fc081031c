/*
  Single-precision MUMPS LU as a PETSc solver type for MATSEQAIJ and MATMPIAIJ (mumps_single.h).

  PETSc's own MUMPS interface factors in the precision of PetscScalar (double here).  This one
  keeps the pattern and a float copy of the values in MUMPS's assembled, centralised format
  (1-based COO, ICNTL(5) = 0, ICNTL(18) = 0), analyses at the symbolic stage, factors at the
  numeric one and solves one right-hand side per MatSolve, rounding the right-hand side to float
  and the solution back to double.  On several ranks each rank hands MUMPS its own rows
  (distributed assembled input, ICNTL(18) = 3: the diagonal and off-diagonal blocks of MATMPIAIJ,
  row by row), and the right-hand side and solution travel through rank 0 (MUMPS's centralised
  dense right-hand side, ICNTL(20) = 0, ICNTL(21) = 0).  The factor object follows PETSc's external-package pattern
  (the factor Mat carries the solver's ops), which needs PETSc's private matimpl.h: tribodyn is
  built against Debian's PETSc 3.18 only (CMakeLists.txt).
*/
#include <tribodyn/mumps_single.h>
#include <petsc/private/matimpl.h>
#include <smumps_c.h>

#define ICNTL(I) icntl[(I)-1]
#define CNTL(I)  cntl[(I)-1]
#define INFOG(I) infog[(I)-1]

typedef struct {
  SMUMPS_STRUC_C id;
  MPI_Comm       comm;
  PetscBool      started;  /* id initialised (job -1): terminate it on destroy */
  PetscBool      analysed; /* the pattern below is MUMPS's */
  PetscInt       n;
  PetscInt64     nnz;
  MUMPS_INT     *irn, *jcn; /* 1-based row and column of each (local) nonzero, in CSR order */
  float         *a, *rhs;
  PetscBool      mpi;      /* MATMPIAIJ: distributed input, right-hand side through rank 0 */
  PetscInt       mloc;     /* local rows */
  PetscInt      *ai_d, *ai_o; /* MPI: row offsets of the diagonal and off-diagonal blocks */
  VecScatter     tozero;   /* MPI: a distributed vector to rank 0 */
  Vec            vzero;    /* MPI: its image on rank 0 */
  PetscInt       ordering; /* ICNTL(7) */
  PetscInt       icntl14;  /* ICNTL(14): extra working space, percent */
  PetscInt       icntl13;  /* ICNTL(13): the root front by ScaLAPACK (0) or on one rank (1) */
  PetscInt       icntl8;   /* ICNTL(8): MUMPS's scaling, when tribodyn does not scale (77: MUMPS's choice) */
  PetscReal      cntl1;    /* CNTL(1): relative pivoting threshold */
  /* -mat_mumps_single_equilibrate: tribodyn scales the matrix itself (EquilibrateSweep) and MUMPS
     factors Dr A Dc unscaled (ICNTL(8) = 0); the solve then is x = Dc (Dr A Dc)^-1 Dr b */
  PetscBool      equilibrate;
  PetscInt       equilibrate_max_its, equilibrate_sum_its; /* sweeps by the rows' and columns' largest magnitudes, then by their sums */
  PetscInt       row0, col0;    /* this rank's first row and column */
  PetscReal     *dr, *dc;       /* this rank's rows; every column (the entries' columns are global) */
  PetscReal     *colnorm;       /* work: the columns' norms (n) */
  Vec            drv, dcv, bw;  /* dr over b's layout, this rank's part of dc over x's, a scaled b */
  /* the matrix (id, state) whose values the symbolic stage copied and scaled: the numeric stage
     that follows it on the same values (PCSetUp's symbolic-then-numeric) does not do it again */
  PetscBool        values_ready;
  PetscObjectId    values_id;
  PetscObjectState values_state;
  PetscBool      verbose;
} MumpsSingle;

static const char *const orderings[]      = {"amd", "amf", "scotch", "pord", "metis", "qamd", "auto", "MumpsSingleOrdering", "", NULL};
static const MUMPS_INT   ordering_icntl[] = {0, 2, 3, 4, 5, 6, 7};

static void Run(MumpsSingle *ms, MUMPS_INT job)
{
  ms->id.job = job;
  smumps_c(&ms->id);
}

/* MUMPS's failures that more working space (ICNTL(14)) cures */
static PetscBool NeedsMoreSpace(MUMPS_INT info1)
{
  return info1 == -8 || info1 == -9 || info1 == -11 || info1 == -14 || info1 == -15 ? PETSC_TRUE : PETSC_FALSE;
}

/* A's values, rounded to float, in the analysed CSR order */
static PetscErrorCode CopyValues(MumpsSingle *ms, Mat A)
{
  const PetscScalar *v, *vo;
  Mat                Ad, Ao;
  PetscFunctionBegin;
  if (!ms->mpi) {
    PetscCall(MatSeqAIJGetArrayRead(A, &v));
    for (PetscInt64 k = 0; k < ms->nnz; k++) ms->a[k] = (float)PetscRealPart(v[k]);
    PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
    PetscFunctionReturn(0);
  }
  /* MPI: each local row's diagonal-block entries, then its off-diagonal-block entries (the
     order of the analysed pattern) */
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, NULL));
  PetscCall(MatSeqAIJGetArrayRead(Ad, &v));
  PetscCall(MatSeqAIJGetArrayRead(Ao, &vo));
  for (PetscInt i = 0, k = 0; i < ms->mloc; i++) {
    for (PetscInt j = ms->ai_d[i]; j < ms->ai_d[i + 1]; j++) ms->a[k++] = (float)PetscRealPart(v[j]);
    for (PetscInt j = ms->ai_o[i]; j < ms->ai_o[i + 1]; j++) ms->a[k++] = (float)PetscRealPart(vo[j]);
  }
  PetscCall(MatSeqAIJRestoreArrayRead(Ao, &vo));
  PetscCall(MatSeqAIJRestoreArrayRead(Ad, &v));
  PetscFunctionReturn(0);
}

/*
  One sweep of the equilibration of Dr A Dc from the float copy a of the analysed entries: each
  row's (this rank's, local index irn - 1 - row0) and each column's (global, jcn - 1) largest
  magnitude (sum false: Ruiz's iteration, D. Ruiz, "A scaling algorithm to equilibrate both rows
  and columns norms in matrices", RAL-TR-2001-034) or sum of magnitudes (sum true: its 1-norm
  form, which tends to a doubly stochastic |Dr A Dc|), into rownorm and colnorm (overwritten;
  colnorm over every column: the caller combines the ranks').  Pure: no MPI, no PETSc.
*/
static void EquilibrateSweep(PetscBool sum, PetscInt64 nnz, const MUMPS_INT irn[], const MUMPS_INT jcn[], const float a[], PetscInt row0, PetscInt mloc, PetscInt n, const PetscReal dr[], const PetscReal dc[], PetscReal rownorm[], PetscReal colnorm[])
{
  for (PetscInt i = 0; i < mloc; i++) rownorm[i] = 0;
  for (PetscInt j = 0; j < n; j++) colnorm[j] = 0;
  /* the entries come row by row (CSR order), so a row's norm is kept in a register */
  for (PetscInt64 k = 0; k < nnz;) {
    const MUMPS_INT r  = irn[k];
    const PetscInt  i  = (PetscInt)r - 1 - row0;
    const PetscReal di = dr[i];
    PetscReal       rm = 0;
    for (; k < nnz && irn[k] == r; k++) {
      const PetscInt  j  = (PetscInt)jcn[k] - 1;
      const PetscReal aj = PetscAbsReal((PetscReal)a[k]) * dc[j];
      const PetscReal m  = di * aj;
      if (sum) {
        rm += aj;
        colnorm[j] += m;
      } else {
        rm         = PetscMax(rm, aj);
        colnorm[j] = PetscMax(colnorm[j], m);
      }
    }
    rownorm[i] = sum ? rownorm[i] + di * rm : PetscMax(rownorm[i], di * rm);
  }
}

/*
  Why tribodyn scales instead of MUMPS.  Without any scaling MUMPS's threshold pivoting took 3-4
  times as long to factor the slider-guide Jacobian; MUMPS's automatic choice for a distributed
  matrix, its simultaneous row and column iterations (ICNTL(8) = 7), cost about a quarter of
  each factorisation, much of it in setting up their communication anew each time (README:
  measured).  Here: the float copy of the entries is equilibrated by equilibrate_max_its sweeps
  by the largest magnitudes, then equilibrate_sum_its by the sums, each from Dr = Dc = 1 and
  dividing every row and column by the square root of its norm, the columns' norms combined
  over the ranks by one MPI_Allreduce per sweep; the copy is then scaled in place.  Sweeps by
  the largest magnitudes alone (three) left the float factor of test_mumps_single's matrix 20
  times less accurate than MUMPS's scaling (5.7e-6 against 2.8e-7) with 8 delayed pivots; with
  three sweeps by the sums after them it is 2.9e-7 (one first) or 3.6e-7 (two first; the
  default, whose factor took the same Newton iterations as MUMPS's in the ancf_amg test's
  guide run, where one first took one more).  Each factorisation starts from 1, so that
  the factor is a function of the matrix alone (a restarted run factors the same matrix into the
  same factor).  The sums depend on the order in which the ranks' parts are added, in their last
  bits; the scalings are rounded to powers of 2, so that the factor's input is the same on any
  number of ranks (with the sums' last bits in the float copy, 1 and 2 ranks differed by 1.8e-8
  in the far guide sensor's acceleration, against 1.0e-8 with MUMPS's scaling).
*/
static PetscErrorCode Equilibrate(MumpsSingle *ms)
{
  const PetscInt mloc = ms->mpi ? ms->mloc : ms->n;
  PetscReal     *rownorm;
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(mloc, 1), &rownorm));
  for (PetscInt i = 0; i < mloc; i++) ms->dr[i] = 1;
  for (PetscInt j = 0; j < ms->n; j++) ms->dc[j] = 1;
  for (PetscInt it = 0; it < ms->equilibrate_max_its + ms->equilibrate_sum_its; it++) {
    const PetscBool sum = it >= ms->equilibrate_max_its ? PETSC_TRUE : PETSC_FALSE;
    EquilibrateSweep(sum, ms->nnz, ms->irn, ms->jcn, ms->a, ms->row0, mloc, ms->n, ms->dr, ms->dc, rownorm, ms->colnorm);
    if (ms->mpi) PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ms->colnorm, (PetscMPIInt)ms->n, MPIU_REAL, sum ? MPIU_SUM : MPI_MAX, ms->comm));
    for (PetscInt i = 0; i < mloc; i++)
      if (rownorm[i] > 0) ms->dr[i] /= PetscSqrtReal(rownorm[i]);
    for (PetscInt j = 0; j < ms->n; j++)
      if (ms->colnorm[j] > 0) ms->dc[j] /= PetscSqrtReal(ms->colnorm[j]);
  }
  PetscCall(PetscFree(rownorm));
  /* the scalings rounded to powers of 2: the scaled float entries then carry no rounding of their
     own, and the last bits in which the ranks' sums differ from one rank's (almost) never reach them */
  for (PetscInt i = 0; i < mloc; i++) ms->dr[i] = PetscPowReal(2.0, PetscFloorReal(PetscLog2Real(ms->dr[i]) + 0.5));
  for (PetscInt j = 0; j < ms->n; j++) ms->dc[j] = PetscPowReal(2.0, PetscFloorReal(PetscLog2Real(ms->dc[j]) + 0.5));
  for (PetscInt64 k = 0; k < ms->nnz; k++) ms->a[k] = (float)(ms->dr[ms->irn[k] - 1 - ms->row0] * (PetscReal)ms->a[k] * ms->dc[ms->jcn[k] - 1]);
  PetscFunctionReturn(0);
}

/* What MUMPS factors: A's values copied to float and equilibrated.  The symbolic stage makes it
   and remembers A's id and object state; the numeric stage that follows on the same values
   (PCSetUp's symbolic-then-numeric) takes it as it is, any other numeric stage makes it anew. */
static PetscErrorCode FactorInput(MumpsSingle *ms, Mat A, PetscBool symbolic)
{
  PetscObjectId    id;
  PetscObjectState state;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)A, &id));
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  if (symbolic || !(ms->values_ready && id == ms->values_id && state == ms->values_state)) {
    PetscCall(CopyValues(ms, A));
    if (ms->equilibrate) PetscCall(Equilibrate(ms));
  }
  ms->values_ready = symbolic;
  ms->values_id    = id;
  ms->values_state = state;
  PetscFunctionReturn(0);
}

/* The arrays and vectors of the scaling for A's pattern (made at each symbolic stage). */
static PetscErrorCode EquilibrateSetUp(MumpsSingle *ms, Mat A)
{
  const PetscInt mloc = ms->mpi ? ms->mloc : ms->n;
  PetscInt       nloc;
  PetscFunctionBegin;
  PetscCall(PetscFree3(ms->dr, ms->dc, ms->colnorm));
  PetscCall(VecDestroy(&ms->drv));
  PetscCall(VecDestroy(&ms->dcv));
  PetscCall(VecDestroy(&ms->bw));
  if (!ms->equilibrate) PetscFunctionReturn(0);
  PetscCall(PetscMalloc3(PetscMax(mloc, 1), &ms->dr, ms->n, &ms->dc, ms->n, &ms->colnorm));
  PetscCall(MatGetOwnershipRange(A, &ms->row0, NULL));
  PetscCall(MatGetOwnershipRangeColumn(A, &ms->col0, NULL));
  PetscCall(MatGetLocalSize(A, NULL, &nloc));
  PetscCall(MatCreateVecs(A, NULL, &ms->bw));
  if (ms->mpi) {
    PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), 1, mloc, ms->n, ms->dr, &ms->drv));
    PetscCall(VecCreateMPIWithArray(PetscObjectComm((PetscObject)A), 1, nloc, ms->n, &ms->dc[ms->col0], &ms->dcv));
  } else {
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, mloc, ms->dr, &ms->drv));
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 1, nloc, ms->dc, &ms->dcv));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode MatSolve_MumpsSingle(Mat F, Vec b, Vec x)
{
  MumpsSingle       *ms = (MumpsSingle *)F->data;
  Vec                bh = b, xh = x; /* the vectors on MUMPS's host: b and x on one rank, their image on rank 0 on several */
  const PetscScalar *ba;
  PetscScalar       *xa;
  PetscInt           nh;
  PetscFunctionBegin;
  if (F->factorerrortype) {
    /* a failed factorisation: PETSc's convention, so that the Krylov method stops */
    PetscCall(VecSetInf(x));
    PetscFunctionReturn(0);
  }
  if (ms->equilibrate) {
    /* MUMPS factored Dr A Dc: it solves for Dc^-1 x with Dr b */
    PetscCall(VecPointwiseMult(ms->bw, b, ms->drv));
    b = bh = ms->bw;
  }
  if (ms->mpi) {
    /* the right-hand side to rank 0 (MUMPS's host), the solution back from it below */
    PetscCall(VecScatterBegin(ms->tozero, b, ms->vzero, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(ms->tozero, b, ms->vzero, INSERT_VALUES, SCATTER_FORWARD));
    bh = xh = ms->vzero;
  }
  PetscCall(VecGetLocalSize(bh, &nh));
  PetscCall(VecGetArrayRead(bh, &ba));
  for (PetscInt i = 0; i < nh; i++) ms->rhs[i] = (float)PetscRealPart(ba[i]);
  PetscCall(VecRestoreArrayRead(bh, &ba));
  ms->id.nrhs = 1;
  ms->id.lrhs = (MUMPS_INT)ms->n;
  ms->id.rhs  = ms->rhs;
  Run(ms, 3);
  PetscCheck(ms->id.INFOG(1) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Single-precision MUMPS: the solve failed, INFOG(1) = %d, INFOG(2) = %d (see the MUMPS users' guide)", (int)ms->id.INFOG(1), (int)ms->id.INFOG(2));
  PetscCall(VecGetArray(xh, &xa));
  for (PetscInt i = 0; i < nh; i++) xa[i] = (PetscScalar)ms->rhs[i];
  PetscCall(VecRestoreArray(xh, &xa));
  if (ms->mpi) {
    PetscCall(VecScatterBegin(ms->tozero, ms->vzero, x, INSERT_VALUES, SCATTER_REVERSE));
    PetscCall(VecScatterEnd(ms->tozero, ms->vzero, x, INSERT_VALUES, SCATTER_REVERSE));
  }
  if (ms->equilibrate) PetscCall(VecPointwiseMult(x, x, ms->dcv));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)ms->id.INFOG(29)));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatLUFactorNumeric_MumpsSingle(Mat F, Mat A, const MatFactorInfo *info)
{
  MumpsSingle *ms = (MumpsSingle *)F->data;
  PetscInt     nnz, n;
  PetscFunctionBegin;
  (void)info;
  PetscCall(MatGetSize(A, &n, NULL));
  {
    MatInfo ainfo;
    PetscCall(MatGetInfo(A, MAT_LOCAL, &ainfo));
    nnz = (PetscInt)ainfo.nz_used;
  }
  PetscCheck(ms->analysed && n == ms->n && (PetscInt64)nnz == ms->nnz, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "Single-precision MUMPS: the matrix's pattern (%" PetscInt_FMT " rows, %" PetscInt_FMT " nonzeros) is not the analysed one (%" PetscInt_FMT " rows, %" PetscInt64_FMT " nonzeros); a new pattern needs a new symbolic factorisation (PCReset)", n, nnz, ms->n, ms->nnz);
  PetscCall(FactorInput(ms, A, PETSC_FALSE));
  for (int attempt = 0;; attempt++) {
    Run(ms, 2);
    if (!NeedsMoreSpace(ms->id.INFOG(1)) || attempt == 4) break;
    ms->id.ICNTL(14) = ms->id.ICNTL(14) < 20 ? 40 : 2 * ms->id.ICNTL(14); /* pivoting needed more room than the analysis foresaw */
  }
  if (ms->id.INFOG(1) < 0) {
    const PetscBool singular = ms->id.INFOG(1) == -10 ? PETSC_TRUE : PETSC_FALSE;
    PetscCheck(!A->erroriffailure, PETSC_COMM_SELF, PETSC_ERR_MAT_LU_ZRPVT, "Single-precision MUMPS: the numerical factorisation failed, INFOG(1) = %d, INFOG(2) = %d%s", (int)ms->id.INFOG(1), (int)ms->id.INFOG(2), singular ? " (the matrix is numerically singular)" : " (see the MUMPS users' guide; -pc_factor_mat_solver_type mumps uses double precision)");
    F->factorerrortype = singular ? MAT_FACTOR_NUMERIC_ZEROPIVOT : MAT_FACTOR_OTHER;
    PetscCall(PetscInfo(F, "single-precision MUMPS factorisation failed: INFOG(1) = %d, INFOG(2) = %d\n", (int)ms->id.INFOG(1), (int)ms->id.INFOG(2)));
  } else F->factorerrortype = MAT_FACTOR_NOERROR;
  F->ops->solve = MatSolve_MumpsSingle;
  F->assembled  = PETSC_TRUE;
  PetscFunctionReturn(0);
}

/* One rank: A's pattern as MUMPS's centralised input (ICNTL(18) = 0), CSR order. */
static PetscErrorCode PatternCentralised(MumpsSingle *ms, Mat A)
{
  const PetscInt *ai, *aj;
  PetscInt        n;
  PetscBool       done;
  PetscFunctionBegin;
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Single-precision MUMPS: the matrix's row structure (MatGetRowIJ) is not available; use -pc_factor_mat_solver_type mumps");
  PetscCheck((PetscInt64)ai[n] < (PetscInt64)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "Single-precision MUMPS: too many nonzeros for 32-bit indices");
  ms->n   = n;
  ms->nnz = ai[n];
  PetscCall(PetscMalloc4(ms->nnz, &ms->irn, ms->nnz, &ms->jcn, ms->nnz, &ms->a, n, &ms->rhs));
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt k = ai[i]; k < ai[i + 1]; k++) {
      ms->irn[k] = (MUMPS_INT)(i + 1);
      ms->jcn[k] = (MUMPS_INT)(aj[k] + 1);
    }
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &n, &ai, &aj, &done));
  ms->id.nnz       = (MUMPS_INT8)ms->nnz;
  ms->id.irn       = ms->irn;
  ms->id.jcn       = ms->jcn;
  ms->id.a         = ms->a;
  ms->id.ICNTL(18) = 0; /* centralised on the host */
  PetscFunctionReturn(0);
}

/* Several ranks: this rank's rows as MUMPS's distributed input (ICNTL(18) = 3), row by row the
   diagonal block (local columns from cstart) then the off-diagonal block (columns through
   garray); the right-hand side's path to rank 0. */
static PetscErrorCode PatternDistributed(MumpsSingle *ms, Mat A)
{
  Mat             Ad, Ao;
  const PetscInt *garray, *ai, *aj, *bi, *bj;
  PetscInt        rstart, cstart, m, mo;
  PetscMPIInt     rank;
  PetscBool       done;
  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, &garray));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  PetscCall(MatGetOwnershipRangeColumn(A, &cstart, NULL));
  PetscCall(MatGetSize(A, &ms->n, NULL));
  PetscCall(MatGetRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Single-precision MUMPS: the matrix's row structure (MatGetRowIJ) is not available; use -pc_factor_mat_solver_type mumps");
  PetscCall(MatGetRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &mo, &bi, &bj, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "Single-precision MUMPS: the matrix's row structure (MatGetRowIJ) is not available; use -pc_factor_mat_solver_type mumps");
  ms->mloc = m;
  ms->nnz  = (PetscInt64)ai[m] + bi[m];
  PetscCheck(ms->nnz < (PetscInt64)PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_SUP, "Single-precision MUMPS: too many nonzeros for 32-bit indices");
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
  PetscCall(PetscMalloc4(ms->nnz, &ms->irn, ms->nnz, &ms->jcn, ms->nnz, &ms->a, rank == 0 ? ms->n : 1, &ms->rhs));
  PetscCall(PetscMalloc2(m + 1, &ms->ai_d, m + 1, &ms->ai_o));
  PetscCall(PetscArraycpy(ms->ai_d, ai, m + 1));
  PetscCall(PetscArraycpy(ms->ai_o, bi, m + 1));
  for (PetscInt i = 0, k = 0; i < m; i++) {
    for (PetscInt j = ai[i]; j < ai[i + 1]; j++, k++) {
      ms->irn[k] = (MUMPS_INT)(rstart + i + 1);
      ms->jcn[k] = (MUMPS_INT)(cstart + aj[j] + 1);
    }
    for (PetscInt j = bi[i]; j < bi[i + 1]; j++, k++) {
      ms->irn[k] = (MUMPS_INT)(rstart + i + 1);
      ms->jcn[k] = (MUMPS_INT)(garray[bj[j]] + 1);
    }
  }
  PetscCall(MatRestoreRowIJ(Ao, 0, PETSC_FALSE, PETSC_FALSE, &mo, &bi, &bj, &done));
  PetscCall(MatRestoreRowIJ(Ad, 0, PETSC_FALSE, PETSC_FALSE, &m, &ai, &aj, &done));
  if (!ms->tozero) {
    Vec xa;
    PetscCall(MatCreateVecs(A, &xa, NULL));
    PetscCall(VecScatterCreateToZero(xa, &ms->tozero, &ms->vzero));
    PetscCall(VecDestroy(&xa));
  }
  ms->id.nnz_loc   = (MUMPS_INT8)ms->nnz;
  ms->id.irn_loc   = ms->irn;
  ms->id.jcn_loc   = ms->jcn;
  ms->id.a_loc     = ms->a;
  ms->id.ICNTL(18) = 3; /* distributed: each rank its own entries */
  PetscFunctionReturn(0);
}

static PetscErrorCode MatLUFactorSymbolic_MumpsSingle(Mat F, Mat A, IS r, IS c, const MatFactorInfo *info)
{
  MumpsSingle *ms = (MumpsSingle *)F->data;
  PetscFunctionBegin;
  (void)r;
  (void)c;
  (void)info;
  PetscCall(PetscFree4(ms->irn, ms->jcn, ms->a, ms->rhs));
  PetscCall(PetscFree2(ms->ai_d, ms->ai_o));
  if (ms->mpi) PetscCall(PatternDistributed(ms, A));
  else PetscCall(PatternCentralised(ms, A));
  PetscCall(EquilibrateSetUp(ms, A));
  PetscCall(FactorInput(ms, A, PETSC_TRUE)); /* the analysis may use the values (maximum transversal, scaling) */
  ms->id.n         = (MUMPS_INT)ms->n;
  ms->id.ICNTL(5)  = 0; /* assembled */
  ms->id.ICNTL(7)  = ordering_icntl[ms->ordering];
  ms->id.ICNTL(14) = (MUMPS_INT)ms->icntl14;
  ms->id.ICNTL(13) = (MUMPS_INT)ms->icntl13;
  ms->id.ICNTL(8)  = ms->equilibrate ? 0 : (MUMPS_INT)ms->icntl8;
  ms->id.CNTL(1)   = (float)ms->cntl1;
  ms->id.ICNTL(20) = 0; /* dense right-hand side */
  ms->id.ICNTL(21) = 0; /* centralised solution, in rhs */
  Run(ms, 1);
  PetscCheck(ms->id.INFOG(1) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Single-precision MUMPS: the analysis failed, INFOG(1) = %d, INFOG(2) = %d (see the MUMPS users' guide)", (int)ms->id.INFOG(1), (int)ms->id.INFOG(2));
  ms->analysed              = PETSC_TRUE;
  F->ops->lufactornumeric   = MatLUFactorNumeric_MumpsSingle;
  F->ops->solve             = MatSolve_MumpsSingle;
  F->factorerrortype        = MAT_FACTOR_NOERROR;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetInfo_MumpsSingle(Mat F, MatInfoType flag, MatInfo *info)
{
  MumpsSingle *ms = (MumpsSingle *)F->data;
  PetscFunctionBegin;
  (void)flag;
  PetscCall(PetscMemzero(info, sizeof *info));
  info->block_size   = 1.0;
  info->nz_allocated = ms->analysed ? (PetscLogDouble)ms->id.INFOG(20) : 0; /* estimated factor entries */
  info->nz_used      = ms->analysed ? (PetscLogDouble)ms->id.INFOG(29) : 0; /* actual, after a factorisation */
  PetscFunctionReturn(0);
}

static PetscErrorCode MatView_MumpsSingle(Mat F, PetscViewer viewer)
{
  MumpsSingle *ms = (MumpsSingle *)F->data;
  PetscBool    ascii;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(0);
  PetscCall(PetscViewerASCIIPrintf(viewer, "single-precision MUMPS LU (a preconditioner: float factor, double vectors)\n"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "  ordering %s (ICNTL(7) = %d), ICNTL(14) = %d, CNTL(1) = %g\n", orderings[ms->ordering], (int)ms->id.ICNTL(7), (int)ms->id.ICNTL(14), (double)ms->id.CNTL(1)));
  if (ms->analysed) PetscCall(PetscViewerASCIIPrintf(viewer, "  %" PetscInt_FMT " rows, %" PetscInt64_FMT " matrix nonzeros, %d factor entries\n", ms->n, ms->nnz, (int)ms->id.INFOG(29)));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatFactorGetSolverType_MumpsSingle(Mat F, MatSolverType *type)
{
  PetscFunctionBegin;
  (void)F;
  *type = MATSOLVERMUMPSSINGLE;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatDestroy_MumpsSingle(Mat F)
{
  MumpsSingle *ms = (MumpsSingle *)F->data;
  PetscFunctionBegin;
  if (ms) {
    if (ms->started) Run(ms, -2);
    PetscCall(PetscFree4(ms->irn, ms->jcn, ms->a, ms->rhs));
    PetscCall(PetscFree2(ms->ai_d, ms->ai_o));
    PetscCall(PetscFree3(ms->dr, ms->dc, ms->colnorm));
    PetscCall(VecDestroy(&ms->drv));
    PetscCall(VecDestroy(&ms->dcv));
    PetscCall(VecDestroy(&ms->bw));
    PetscCall(VecScatterDestroy(&ms->tozero));
    PetscCall(VecDestroy(&ms->vzero));
    if (ms->comm != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&ms->comm));
    PetscCall(PetscFree(F->data));
  }
  PetscCall(PetscObjectComposeFunction((PetscObject)F, "MatFactorGetSolverType_C", NULL));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatGetFactor_AIJ_MumpsSingle(Mat A, MatFactorType ftype, Mat *F)
{
  Mat          B;
  MumpsSingle *ms;
  PetscMPIInt  size;
  PetscInt     m, n;
  PetscFunctionBegin;
  PetscCheck(ftype == MAT_FACTOR_LU, PetscObjectComm((PetscObject)A), PETSC_ERR_SUP, "Single-precision MUMPS provides LU only");
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCheck(m == n, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Single-precision MUMPS: the matrix is not square (%" PetscInt_FMT " x %" PetscInt_FMT ")", m, n);
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &B));
  {
    PetscInt ml, nl;
    PetscCall(MatGetLocalSize(A, &ml, &nl));
    PetscCall(MatSetSizes(B, ml, nl, m, n));
  }
  PetscCall(PetscStrallocpy(MATSOLVERMUMPSSINGLE, &((PetscObject)B)->type_name));
  PetscCall(MatSetUp(B));
  PetscCall(PetscNew(&ms));
  ms->comm                 = MPI_COMM_NULL;
  ms->mpi                  = size > 1 ? PETSC_TRUE : PETSC_FALSE;
  ms->ordering             = 0;
  ms->icntl14              = 30;
  ms->icntl8               = 77;
  ms->equilibrate          = PETSC_TRUE;
  ms->equilibrate_max_its  = 2;
  ms->equilibrate_sum_its  = 3;
  ms->cntl1                = 0.01;
  B->data                  = ms;
  B->ops->lufactorsymbolic = MatLUFactorSymbolic_MumpsSingle;
  B->ops->getinfo          = MatGetInfo_MumpsSingle;
  B->ops->view             = MatView_MumpsSingle;
  B->ops->destroy          = MatDestroy_MumpsSingle;
  PetscCall(PetscObjectComposeFunction((PetscObject)B, "MatFactorGetSolverType_C", MatFactorGetSolverType_MumpsSingle));
  B->factortype     = MAT_FACTOR_LU;
  B->assembled      = PETSC_TRUE; /* -ksp_view asks */
  B->preallocated   = PETSC_TRUE;
  B->canuseordering = PETSC_FALSE; /* MUMPS orders itself (-mat_mumps_single_ordering) */
  PetscCall(PetscFree(B->solvertype));
  PetscCall(PetscStrallocpy(MATSOLVERMUMPSSINGLE, &B->solvertype));
  PetscCall(PetscStrallocpy(MATORDERINGEXTERNAL, (char **)&B->preferredordering[MAT_FACTOR_LU]));

  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, "Single-precision MUMPS LU (tribodyn)", "Mat");
  PetscCall(PetscOptionsEnum("-mat_mumps_single_ordering", "fill-reducing ordering (MUMPS ICNTL(7)); AMD gave the smallest factor and fastest solves on the slider-guide Jacobian", "mumps_single.h", orderings, (PetscEnum)ms->ordering, (PetscEnum *)&ms->ordering, NULL));
  PetscCall(PetscOptionsInt("-mat_mumps_single_icntl_14", "extra working space for pivoting, percent (MUMPS ICNTL(14)); raised and retried when a factorisation needs more", "mumps_single.h", ms->icntl14, &ms->icntl14, NULL));
  PetscCall(PetscOptionsInt("-mat_mumps_single_icntl_13", "the root front: ScaLAPACK over the ranks (0) or one rank (1) (MUMPS ICNTL(13))", "mumps_single.h", ms->icntl13, &ms->icntl13, NULL));
  PetscCall(PetscOptionsBool("-mat_mumps_single_equilibrate", "scale rows and columns by tribodyn's equilibration before MUMPS factors (false: MUMPS scales, -mat_mumps_single_icntl_8)", "mumps_single.h", ms->equilibrate, &ms->equilibrate, NULL));
  PetscCall(PetscOptionsInt("-mat_mumps_single_equilibrate_max_its", "sweeps of the equilibration by the rows' and columns' largest magnitudes (Ruiz), at each factorisation", "mumps_single.h", ms->equilibrate_max_its, &ms->equilibrate_max_its, NULL));
  PetscCall(PetscOptionsInt("-mat_mumps_single_equilibrate_sum_its", "sweeps by their sums (1-norms) after those", "mumps_single.h", ms->equilibrate_sum_its, &ms->equilibrate_sum_its, NULL));
  PetscCall(PetscOptionsInt("-mat_mumps_single_icntl_8", "MUMPS's scaling when -mat_mumps_single_equilibrate false (MUMPS ICNTL(8)): 77 MUMPS's choice, 0 none, 7 or 8 simultaneous row and column iterations", "mumps_single.h", ms->icntl8, &ms->icntl8, NULL));
  PetscCall(PetscOptionsReal("-mat_mumps_single_cntl_1", "relative pivoting threshold (MUMPS CNTL(1))", "mumps_single.h", ms->cntl1, &ms->cntl1, NULL));
  PetscCall(PetscOptionsBool("-mat_mumps_single_verbose", "print MUMPS's own statistics (ICNTL(4) = 2)", "mumps_single.h", ms->verbose, &ms->verbose, NULL));
  PetscOptionsEnd();
  PetscCheck(ms->equilibrate_max_its >= 0 && ms->equilibrate_sum_its >= 0 && ms->equilibrate_max_its + ms->equilibrate_sum_its >= 1, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "Options -mat_mumps_single_equilibrate_max_its (%" PetscInt_FMT ") and -mat_mumps_single_equilibrate_sum_its (%" PetscInt_FMT ") must not be negative and must give at least one sweep; -mat_mumps_single_equilibrate false leaves the scaling to MUMPS", ms->equilibrate_max_its, ms->equilibrate_sum_its);
  PetscCheck(ms->icntl14 >= 0, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "Option -mat_mumps_single_icntl_14 must not be negative (it is a percentage of extra working space)");
  PetscCheck(ms->cntl1 >= 0 && ms->cntl1 <= 1, PETSC_COMM_SELF, PETSC_ERR_USER_INPUT, "Option -mat_mumps_single_cntl_1 must lie in [0, 1] (a relative pivoting threshold)");

  /* MUMPS on its own communicator, so that its messages cannot meet the caller's */
  PetscCallMPI(MPI_Comm_dup(PetscObjectComm((PetscObject)A), &ms->comm));
  ms->id.par          = 1; /* the host works */
  ms->id.sym          = 0; /* unsymmetric */
  ms->id.comm_fortran = (MUMPS_INT)MPI_Comm_c2f(ms->comm);
  Run(ms, -1);
  PetscCheck(ms->id.INFOG(1) >= 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "Single-precision MUMPS: initialisation failed, INFOG(1) = %d", (int)ms->id.INFOG(1));
  ms->started     = PETSC_TRUE;
  ms->id.ICNTL(1) = ms->verbose ? 6 : -1; /* error messages */
  ms->id.ICNTL(2) = -1;                   /* diagnostics */
  ms->id.ICNTL(3) = ms->verbose ? 6 : -1; /* global information */
  ms->id.ICNTL(4) = ms->verbose ? 2 : 0;
  *F              = B;
  PetscFunctionReturn(0);
}

PetscErrorCode TdMumpsSingleRegister(void)
{
  PetscBool         have_mtype, have_stype;
  MatSolverFunction f;
  PetscFunctionBegin;
  PetscCall(MatInitializePackage()); /* PETSc's own solver types first: it registers them lazily */
  PetscCall(MatSolverTypeGet(MATSOLVERMUMPSSINGLE, MATSEQAIJ, MAT_FACTOR_LU, &have_mtype, &have_stype, &f));
  if (!f) {
    PetscCall(MatSolverTypeRegister(MATSOLVERMUMPSSINGLE, MATSEQAIJ, MAT_FACTOR_LU, MatGetFactor_AIJ_MumpsSingle));
    PetscCall(MatSolverTypeRegister(MATSOLVERMUMPSSINGLE, MATMPIAIJ, MAT_FACTOR_LU, MatGetFactor_AIJ_MumpsSingle));
  }
  PetscFunctionReturn(0);
}
