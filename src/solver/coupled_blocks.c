/*
  The preconditioner type "coupled_blocks" (solver.h): the whole Jacobian of bodies, films and
  drives by its blocks, each with a solver that scales, for models too large for the LU.

  U = [bodies b | films f | drive multipliers d] (formulation §6), and

        J = [ K  B ]    K = [ J_bb  J_bf ]   (bodies and films)
            [ C  D ]        [ J_fb  J_ff ]

  with B, C the drives' columns and rows (the joints' constraint gradients) and D their small
  diagonal block (zero for ideal constraints: a saddle point, which no block smoother can invert
  row by row).  K is approximated by block Gauss-Seidel: the bodies by algebraic multigrid on
  whole nodes (ancf_amg.c, options -coupled_bodies_...), then the films by LU of their own block
  (single-precision MUMPS by default, options -coupled_films_...) on the rest of their rows:

        z_b = M_b^{-1} r_b,    z_f = J_ff^{-1} (r_f - J_fb z_b)
        (-coupled_symmetric: then z_b += M_b^{-1} (r_b - J_bb z_b - J_bf z_f))

  The drives, a handful of rows, are eliminated exactly through the Schur complement of that
  approximation, formed at set-up from one application per drive row:

        W = K~^{-1} B,   S = D - C W   (dense, nd x nd, on every rank)
        y = K~^{-1} r_K,  z_d = S^{-1} (r_d - C y),  z_K = y - W z_d

  which is the block-LU inverse of J when K~ = K.  With exact inner solves and no films the
  preconditioner is J^{-1} (test coupled_blocks checks one GMRES iteration per solve).
*/
#include <petsc/private/pcimpl.h>
#include <tribodyn/mumps_single.h>
#include <tribodyn/solver.h>
#include "solver_private.h"

typedef struct {
  TdSolver         solver;
  PetscObjectState nonzero_state;
  PetscBool        symmetric;
  PetscInt         nb, nf, nd;        /* local rows of each block */
  PetscInt         Nf, Nd;            /* global rows of films and drives */
  IS               isb, isf, isd, isK;
  Mat              Jbb, Jff, Jfb, Jbf, B, C, D;
  PC               pcb, pcf;
  Vec              rb, rf, zb, zf;         /* views of K-sized vectors' parts (VecPlaceArray) */
  Vec              tb, eb, tf;             /* bodies- and film-sized work */
  Vec              rK, yK, td;             /* K-sized and drive-sized work */
  Vec             *W;                      /* Nd vectors of K's size */
  PetscScalar     *Sinv;                   /* Nd x Nd, row-major, on every rank */
  VecScatter       dall;                   /* a drive-sized vector to every rank */
  Vec              dseq;
} PC_CoupledBlocks;

static PetscErrorCode ResetBlocks(PC_CoupledBlocks *d)
{
  PetscFunctionBegin;
  PetscCall(ISDestroy(&d->isb));
  PetscCall(ISDestroy(&d->isf));
  PetscCall(ISDestroy(&d->isd));
  PetscCall(ISDestroy(&d->isK));
  PetscCall(MatDestroy(&d->Jbb));
  PetscCall(MatDestroy(&d->Jff));
  PetscCall(MatDestroy(&d->Jfb));
  PetscCall(MatDestroy(&d->Jbf));
  PetscCall(MatDestroy(&d->B));
  PetscCall(MatDestroy(&d->C));
  PetscCall(MatDestroy(&d->D));
  PetscCall(VecDestroy(&d->rb));
  PetscCall(VecDestroy(&d->rf));
  PetscCall(VecDestroy(&d->zb));
  PetscCall(VecDestroy(&d->zf));
  PetscCall(VecDestroy(&d->tb));
  PetscCall(VecDestroy(&d->eb));
  PetscCall(VecDestroy(&d->tf));
  PetscCall(VecDestroy(&d->rK));
  PetscCall(VecDestroy(&d->yK));
  PetscCall(VecDestroy(&d->td));
  if (d->W) PetscCall(VecDestroyVecs(d->Nd, &d->W));
  PetscCall(PetscFree(d->Sinv));
  PetscCall(VecScatterDestroy(&d->dall));
  PetscCall(VecDestroy(&d->dseq));
  PetscFunctionReturn(0);
}

/* The index sets and work vectors of the blocks (a new pattern starts here). */
static PetscErrorCode LayOutBlocks(PC pc, PC_CoupledBlocks *d)
{
  TdSolver s = d->solver;
  TdModel  m = s->model;
  MPI_Comm comm;
  PetscInt first_b, first_f, first_d, N;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)pc, &comm));
  PetscCall(MatGetSize(pc->pmat, &N, NULL));
  PetscCheck(N == s->N, comm, PETSC_ERR_USER_INPUT, "-pc_type coupled_blocks works on the whole Jacobian (%" PetscInt_FMT " rows), not on a block of %" PetscInt_FMT "; use it as the top-level -pc_type", s->N, N);
  PetscCall(TdSolverOwnedSlice(s, 0, m->nfree, &first_b, &d->nb, NULL));
  PetscCall(TdSolverOwnedSlice(s, m->nfree, m->row_offset, &first_f, &d->nf, NULL));
  PetscCall(TdSolverOwnedSlice(s, m->row_offset, s->N, &first_d, &d->nd, NULL));
  d->Nf = m->nfilm_unknowns;
  d->Nd = s->N - m->row_offset;
  PetscCheck(m->nfree > 0, comm, PETSC_ERR_USER_INPUT, "-pc_type coupled_blocks needs flexible (ANCF) bodies; this model has no free body coordinates");
  PetscCall(ISCreateStride(comm, d->nb, first_b, 1, &d->isb));
  PetscCall(ISCreateStride(comm, d->nf, first_f, 1, &d->isf));
  PetscCall(ISCreateStride(comm, d->nd, first_d, 1, &d->isd));
  PetscCall(ISCreateStride(comm, d->nb + d->nf, first_b, 1, &d->isK)); /* bodies then films: contiguous on each rank */
  PetscCall(VecCreateMPIWithArray(comm, 1, d->nb, PETSC_DECIDE, NULL, &d->rb));
  PetscCall(VecDuplicate(d->rb, &d->zb));
  PetscCall(VecCreateMPI(comm, d->nb, PETSC_DECIDE, &d->tb));
  PetscCall(VecDuplicate(d->tb, &d->eb));
  PetscCall(VecCreateMPIWithArray(comm, 1, d->nf, PETSC_DECIDE, NULL, &d->rf));
  PetscCall(VecDuplicate(d->rf, &d->zf));
  PetscCall(VecCreateMPI(comm, d->nf, PETSC_DECIDE, &d->tf));
  PetscCall(VecCreateMPI(comm, d->nb + d->nf, PETSC_DECIDE, &d->rK));
  PetscCall(VecDuplicate(d->rK, &d->yK));
  if (d->Nd) {
    PetscCall(VecCreateMPI(comm, d->nd, PETSC_DECIDE, &d->td));
    PetscCall(VecScatterCreateToAll(d->td, &d->dall, &d->dseq));
    PetscCall(VecDuplicateVecs(d->rK, d->Nd, &d->W));
    PetscCall(PetscMalloc1(d->Nd * d->Nd, &d->Sinv));
  }
  PetscFunctionReturn(0);
}

/* z_K = K~^{-1} r_K (block Gauss-Seidel, see the header) */
static PetscErrorCode ApplyK(PC_CoupledBlocks *d, Vec r, Vec z)
{
  const PetscScalar *rv;
  PetscScalar       *zv;
  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(r, &rv));
  PetscCall(VecGetArray(z, &zv));
  PetscCall(VecPlaceArray(d->rb, rv));
  PetscCall(VecPlaceArray(d->zb, zv));
  PetscCall(PCApply(d->pcb, d->rb, d->zb));
  if (d->Nf) {
    PetscCall(VecPlaceArray(d->rf, rv + d->nb));
    PetscCall(VecPlaceArray(d->zf, zv + d->nb));
    PetscCall(MatMult(d->Jfb, d->zb, d->tf));
    PetscCall(VecAYPX(d->tf, -1, d->rf));
    PetscCall(PCApply(d->pcf, d->tf, d->zf));
    if (d->symmetric) {
      /* z_b += M_b^{-1} (r_b - J_bb z_b - J_bf z_f) */
      PetscCall(MatMult(d->Jbb, d->zb, d->tb));
      PetscCall(MatMultAdd(d->Jbf, d->zf, d->tb, d->tb));
      PetscCall(VecAYPX(d->tb, -1, d->rb));
      PetscCall(PCApply(d->pcb, d->tb, d->eb));
      PetscCall(VecAXPY(d->zb, 1, d->eb));
    }
    PetscCall(VecResetArray(d->rf));
    PetscCall(VecResetArray(d->zf));
  }
  PetscCall(VecResetArray(d->rb));
  PetscCall(VecResetArray(d->zb));
  PetscCall(VecRestoreArray(z, &zv));
  PetscCall(VecRestoreArrayRead(r, &rv));
  PetscFunctionReturn(0);
}

/* The values of a drive-sized vector on every rank */
static PetscErrorCode DriveValues(PC_CoupledBlocks *d, Vec v, PetscScalar out[])
{
  const PetscScalar *a;
  PetscFunctionBegin;
  PetscCall(VecScatterBegin(d->dall, v, d->dseq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(d->dall, v, d->dseq, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(d->dseq, &a));
  PetscCall(PetscArraycpy(out, a, d->Nd));
  PetscCall(VecRestoreArrayRead(d->dseq, &a));
  PetscFunctionReturn(0);
}

/* In place inverse of the n x n row-major matrix a (Gauss-Jordan with partial pivoting). */
static PetscErrorCode InvertDense(MPI_Comm comm, PetscInt n, PetscScalar a[])
{
  PetscInt    *piv;
  PetscScalar *inv;
  PetscFunctionBegin;
  PetscCall(PetscMalloc2(n, &piv, n * n, &inv));
  for (PetscInt i = 0; i < n * n; i++) inv[i] = 0;
  for (PetscInt i = 0; i < n; i++) inv[i * n + i] = 1;
  for (PetscInt c = 0; c < n; c++) {
    PetscInt  p   = c;
    PetscReal big = PetscAbsScalar(a[c * n + c]);
    for (PetscInt r = c + 1; r < n; r++)
      if (PetscAbsScalar(a[r * n + c]) > big) {
        big = PetscAbsScalar(a[r * n + c]);
        p   = r;
      }
    PetscCheck(big > 0, comm, PETSC_ERR_MAT_LU_ZRPVT, "coupled_blocks: the drives' Schur complement is singular (column %" PetscInt_FMT "); are the joints' constraints independent?", c);
    if (p != c)
      for (PetscInt k = 0; k < n; k++) {
        PetscScalar t = a[c * n + k];
        a[c * n + k]  = a[p * n + k];
        a[p * n + k]  = t;
        t             = inv[c * n + k];
        inv[c * n + k] = inv[p * n + k];
        inv[p * n + k] = t;
      }
    {
      const PetscScalar q = 1 / a[c * n + c];
      for (PetscInt k = 0; k < n; k++) {
        a[c * n + k] *= q;
        inv[c * n + k] *= q;
      }
    }
    for (PetscInt r = 0; r < n; r++)
      if (r != c) {
        const PetscScalar f = a[r * n + c];
        for (PetscInt k = 0; k < n; k++) {
          a[r * n + k] -= f * a[c * n + k];
          inv[r * n + k] -= f * inv[c * n + k];
        }
      }
  }
  PetscCall(PetscArraycpy(a, inv, n * n));
  PetscCall(PetscFree2(piv, inv));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetUp_CoupledBlocks(PC pc)
{
  PC_CoupledBlocks *d      = (PC_CoupledBlocks *)pc->data;
  TdSolver          solver = TdSolverOfPCTypes();
  MPI_Comm          comm;
  PetscObjectState  state;
  MatReuse          reuse = MAT_REUSE_MATRIX;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)pc, &comm));
  PetscCheck(solver, comm, PETSC_ERR_ORDER, "-pc_type coupled_blocks preconditions the Jacobian of a tribodyn solver, and none is set up");
  PetscCall(MatGetNonzeroState(pc->pmat, &state));
  if (!d->isb || d->solver != solver || state != d->nonzero_state) {
    PetscCall(ResetBlocks(d));
    d->solver = solver;
    PetscCall(LayOutBlocks(pc, d));
    d->nonzero_state = state;
    reuse            = MAT_INITIAL_MATRIX;
  }
  PetscCall(MatCreateSubMatrix(pc->pmat, d->isb, d->isb, reuse, &d->Jbb));
  if (d->Nf) {
    PetscCall(MatCreateSubMatrix(pc->pmat, d->isf, d->isf, reuse, &d->Jff));
    PetscCall(MatCreateSubMatrix(pc->pmat, d->isf, d->isb, reuse, &d->Jfb));
    PetscCall(MatCreateSubMatrix(pc->pmat, d->isb, d->isf, reuse, &d->Jbf));
  }
  if (d->Nd) {
    PetscCall(MatCreateSubMatrix(pc->pmat, d->isK, d->isd, reuse, &d->B));
    PetscCall(MatCreateSubMatrix(pc->pmat, d->isd, d->isK, reuse, &d->C));
    PetscCall(MatCreateSubMatrix(pc->pmat, d->isd, d->isd, reuse, &d->D));
  }
  if (!d->pcb) {
    PetscCall(TdInnerPCCreate(pc, "coupled_bodies_", PCANCFAMG, &d->pcb));
    PetscCall(PCSetOperators(d->pcb, d->Jbb, d->Jbb));
    PetscCall(PCSetFromOptions(d->pcb));
  } else PetscCall(PCSetOperators(d->pcb, d->Jbb, d->Jbb));
  PetscCall(PCSetUp(d->pcb));
  if (d->Nf) {
    if (!d->pcf) {
      PetscCall(TdInnerPCCreate(pc, "coupled_films_", PCLU, &d->pcf));
      PetscCall(PCFactorSetMatSolverType(d->pcf, MATSOLVERMUMPSSINGLE));
      PetscCall(PCSetOperators(d->pcf, d->Jff, d->Jff));
      PetscCall(PCSetFromOptions(d->pcf));
    } else PetscCall(PCSetOperators(d->pcf, d->Jff, d->Jff));
    PetscCall(PCSetUp(d->pcf));
  }
  if (d->Nd) {
    /* W = K~^{-1} B and S = D - C W, column by column; then S^{-1} */
    PetscScalar *col;
    PetscCall(PetscMalloc1(d->Nd, &col));
    for (PetscInt j = 0; j < d->Nd; j++) {
      PetscCall(MatGetColumnVector(d->B, d->rK, j));
      PetscCall(ApplyK(d, d->rK, d->W[j]));
      PetscCall(MatMult(d->C, d->W[j], d->td));
      PetscCall(DriveValues(d, d->td, col));
      for (PetscInt i = 0; i < d->Nd; i++) d->Sinv[i * d->Nd + j] = -col[i];
      PetscCall(MatGetColumnVector(d->D, d->td, j));
      PetscCall(DriveValues(d, d->td, col));
      for (PetscInt i = 0; i < d->Nd; i++) d->Sinv[i * d->Nd + j] += col[i];
    }
    PetscCall(PetscFree(col));
    PetscCall(InvertDense(comm, d->Nd, d->Sinv));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_CoupledBlocks(PC pc, Vec r, Vec z)
{
  PC_CoupledBlocks  *d = (PC_CoupledBlocks *)pc->data;
  const PetscScalar *rv;
  PetscScalar       *zv, *a;
  const PetscInt     nK = d->nb + d->nf;
  PetscFunctionBegin;
  PetscCall(VecGetArrayRead(r, &rv));
  PetscCall(VecGetArray(d->rK, &a));
  PetscCall(PetscArraycpy(a, rv, nK));
  PetscCall(VecRestoreArray(d->rK, &a));
  PetscCall(ApplyK(d, d->rK, d->yK));
  PetscCall(VecGetArray(z, &zv));
  if (d->Nd) {
    /* z_d = S^{-1} (r_d - C y), z_K = y - W z_d */
    PetscScalar *g, *zd;
    PetscInt     lo;
    PetscCall(PetscMalloc2(d->Nd, &g, d->Nd, &zd));
    PetscCall(MatMult(d->C, d->yK, d->td));
    PetscCall(VecGetArray(d->td, &a));
    for (PetscInt i = 0; i < d->nd; i++) a[i] = rv[nK + i] - a[i];
    PetscCall(VecRestoreArray(d->td, &a));
    PetscCall(DriveValues(d, d->td, g));
    for (PetscInt i = 0; i < d->Nd; i++) {
      zd[i] = 0;
      for (PetscInt k = 0; k < d->Nd; k++) zd[i] += d->Sinv[i * d->Nd + k] * g[k];
    }
    PetscCall(VecGetOwnershipRange(d->td, &lo, NULL));
    for (PetscInt i = 0; i < d->nd; i++) zv[nK + i] = zd[lo + i];
    for (PetscInt i = 0; i < d->Nd; i++) g[i] = -zd[i];
    PetscCall(VecMAXPY(d->yK, d->Nd, g, d->W));
    PetscCall(PetscFree2(g, zd));
  }
  PetscCall(VecRestoreArrayRead(r, &rv));
  PetscCall(VecGetArray(d->yK, &a));
  PetscCall(PetscArraycpy(zv, a, nK));
  PetscCall(VecRestoreArray(d->yK, &a));
  PetscCall(VecRestoreArray(z, &zv));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetFromOptions_CoupledBlocks(PC pc, PetscOptionItems *PetscOptionsObject)
{
  PC_CoupledBlocks *d = (PC_CoupledBlocks *)pc->data;
  PetscFunctionBegin;
  PetscOptionsHeadBegin(PetscOptionsObject, "Coupled blocks: bodies by multigrid, films by LU, drives by Schur complement");
  PetscCall(PetscOptionsBool("-pc_coupled_symmetric", "symmetric block Gauss-Seidel over bodies and films (a second bodies' solve after the films')", "", d->symmetric, &d->symmetric, NULL));
  PetscOptionsHeadEnd();
  PetscFunctionReturn(0);
}

static PetscErrorCode PCReset_CoupledBlocks(PC pc)
{
  PC_CoupledBlocks *d = (PC_CoupledBlocks *)pc->data;
  PetscFunctionBegin;
  PetscCall(ResetBlocks(d));
  if (d->pcb) PetscCall(PCReset(d->pcb));
  if (d->pcf) PetscCall(PCReset(d->pcf));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_CoupledBlocks(PC pc)
{
  PC_CoupledBlocks *d = (PC_CoupledBlocks *)pc->data;
  PetscFunctionBegin;
  PetscCall(ResetBlocks(d));
  PetscCall(PCDestroy(&d->pcb));
  PetscCall(PCDestroy(&d->pcf));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_CoupledBlocks(PC pc, PetscViewer viewer)
{
  PC_CoupledBlocks *d = (PC_CoupledBlocks *)pc->data;
  PetscBool         ascii;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) PetscCall(PetscViewerASCIIPrintf(viewer, "  block Gauss-Seidel (%s) over bodies and %" PetscInt_FMT " film unknowns, %" PetscInt_FMT " drive rows by Schur complement\n", d->symmetric ? "symmetric" : "forward", d->Nf, d->Nd));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (d->pcb) PetscCall(PCView(d->pcb, viewer));
  if (d->pcf) PetscCall(PCView(d->pcf, viewer));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCCreate_CoupledBlocks(PC pc)
{
  PC_CoupledBlocks *d;
  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  pc->data                = d;
  pc->ops->setup          = PCSetUp_CoupledBlocks;
  pc->ops->apply          = PCApply_CoupledBlocks;
  pc->ops->setfromoptions = PCSetFromOptions_CoupledBlocks;
  pc->ops->reset          = PCReset_CoupledBlocks;
  pc->ops->destroy        = PCDestroy_CoupledBlocks;
  pc->ops->view           = PCView_CoupledBlocks;
  PetscFunctionReturn(0);
}

PetscErrorCode TdCoupledBlocksRegister(void)
{
  static PetscBool registered = PETSC_FALSE;
  PetscFunctionBegin;
  if (!registered) PetscCall(PCRegister(PCCOUPLEDBLOCKS, PCCreate_CoupledBlocks));
  registered = PETSC_TRUE;
  PetscFunctionReturn(0);
}
