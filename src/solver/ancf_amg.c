/*
  The preconditioner type "ancf_amg" (solver.h): algebraic multigrid for the ANCF bodies on
  whole nodes.

  Why.  Smoothed aggregation (GAMG) builds its coarse spaces node by node: it aggregates the
  graph of the matrix's blocks and interpolates the near-null space (the rigid-body modes of
  preconditioner.c) inside each aggregate.  Both need a block size, every node's coordinates as
  one block of the matrix.  An ANCF node has 12 (its position r and the slopes r_X, r_Y, r_Z,
  formulation §1), but a clamped face eliminates some of them (the positions and the slopes along
  the face, §4), so the bodies' unknowns have no block size and GAMG sees 26 000 scalar
  unknowns with six modes each: on the guide meshed 68x10x2 GMRES needed 100 to over 400
  iterations per Newton step.

  How.  The operator handed to this PC (the bodies block of -pc_type coupled_blocks or
  fieldsplit, or the whole Jacobian of a model of bodies alone) is copied into an augmented
  matrix with 12 rows per node that has any free coordinate, block size 12: the free
  coordinates' rows and columns as they are, a clamped coordinate of such a node a decoupled row
  with the mean diagonal of its kind (positions or slopes).  The six rigid-body modes over all 12
  slots are its near-null space.  The multigrid (ML by default, GAMG without ML;
  -[prefix]ancf_pc_type and -[prefix]ancf_pc_ml_... tune it, [prefix] being this PC's own, for
  instance coupled_bodies_ or fieldsplit_bodies_) runs on the augmented matrix; a residual
  enters with zeros in the clamped slots, and the clamped slots of the result are dropped.  A
  node's free coordinates are all owned by one rank (the partition gives whole nodes to ranks),
  so the augmented rows of a rank are its own rows and the transfers need no messages.
*/
#include <petsc/private/pcimpl.h>
#include <tribodyn/solver.h>
#include "solver_private.h"

typedef struct {
  TdSolver   solver;   /* whose Jacobian (or bodies block) this PC preconditions */
  Mat        A;        /* the augmented matrix, block size 12 */
  Vec        x, y;     /* its vectors */
  PC         inner;    /* the multigrid on A */
  PetscInt   nloc;     /* rows of the operator on this rank */
  PetscInt  *aug_row;  /* nloc: the augmented local index of each row */
  PetscInt   nclamp;   /* clamped slots of this rank's augmented nodes */
  PetscInt  *clamp;    /* nclamp: their augmented local indices */
  PetscBool *clamp_slope;
  PetscInt  *col_aug;  /* the operator's global columns -> augmented global indices */
  PetscInt   aug_start;
  PetscInt   maxcols;
  PetscInt  *cols;     /* one row's augmented columns */
  PetscObjectState nonzero_state;
} PC_AncfAMG;

static PetscErrorCode ResetAncfAMG(PC_AncfAMG *d)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&d->A));
  PetscCall(VecDestroy(&d->x));
  PetscCall(VecDestroy(&d->y));
  PetscCall(PetscFree(d->aug_row));
  PetscCall(PetscFree2(d->clamp, d->clamp_slope));
  PetscCall(PetscFree(d->col_aug));
  PetscCall(PetscFree(d->cols));
  d->nloc = d->nclamp = d->maxcols = 0;
  PetscFunctionReturn(0);
}

/* The maps from the operator's rows and columns to the augmented numbering, A's pattern and its
   near-null space. */
static PetscErrorCode BuildAugmented(PC pc, PC_AncfAMG *d)
{
  TdSolver        s = d->solver;
  TdModel         m = s->model;
  Mat             P = pc->pmat;
  MPI_Comm        comm;
  PetscMPIInt     rank, size;
  PetscInt        M, rstart, rend, nnode = m->nnodes, naug_local = 0, aug_start = 0;
  const PetscInt *urange, *crange;
  PetscLayout     ulayout;
  PetscInt       *full_of_free, *node_rank, *aug_node, *count, *d_nnz, *o_nnz;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetComm((PetscObject)P, &comm));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetSize(P, &M, NULL));
  PetscCall(MatGetOwnershipRange(P, &rstart, &rend));
  d->nloc = rend - rstart;
  PetscCheck(M == m->nfree, comm, PETSC_ERR_USER_INPUT, "-pc_type ancf_amg works on the bodies' coordinates: the bodies block of -pc_type fieldsplit (-fieldsplit_bodies_pc_type ancf_amg) or the whole Jacobian of a model of bodies alone (a model with films or drives: -pc_type coupled_blocks); this operator has %" PetscInt_FMT " rows, the bodies %" PetscInt_FMT, M, m->nfree);
  for (PetscInt r = 0; r < d->nloc; r++) PetscCheck(s->owned[r] < m->nfree, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ancf_amg: row %" PetscInt_FMT " of this rank is not a body coordinate", r);
  /* each body unknown's rank: U's numbering is rank after rank, bodies first in each rank's
     range, so the operator's global index of natural unknown i is its rank's first row of the
     operator plus its offset in the rank's range of U */
  PetscCall(VecGetLayout(s->U, &ulayout));
  PetscCall(VecGetOwnershipRanges(s->U, &urange));
  PetscCall(MatGetOwnershipRangesColumn(P, &crange));
  PetscCall(PetscMalloc3(PetscMax(m->nfree, 1), &full_of_free, PetscMax(nnode, 1), &node_rank, PetscMax(nnode, 1), &aug_node));
  for (PetscInt c = 0; c < m->nfull; c++)
    if (m->free_index[c] >= 0) full_of_free[m->free_index[c]] = c;
  for (PetscInt n = 0; n < nnode; n++) node_rank[n] = -1;
  for (PetscInt i = 0; i < m->nfree; i++) {
    const PetscInt n = full_of_free[i] / TD_NODE_DOF;
    PetscMPIInt    r;
    PetscCall(PetscLayoutFindOwner(ulayout, s->to_petsc[i], &r));
    PetscCheck(node_rank[n] < 0 || node_rank[n] == r, comm, PETSC_ERR_USER_INPUT, "-pc_type ancf_amg needs each ANCF node's coordinates on one rank; node %" PetscInt_FMT " is shared by ranks %" PetscInt_FMT " and %d: keep -partition true (the default)", n, node_rank[n], (int)r);
    node_rank[n] = r;
  }
  /* augmented nodes: rank after rank, each rank's in the natural order */
  PetscCall(PetscCalloc1(size + 1, &count));
  for (PetscInt n = 0; n < nnode; n++)
    if (node_rank[n] >= 0) count[node_rank[n] + 1]++;
  for (PetscMPIInt r = 0; r < size; r++) count[r + 1] += count[r];
  naug_local = TD_NODE_DOF * (count[rank + 1] - count[rank]);
  aug_start  = TD_NODE_DOF * count[rank];
  for (PetscInt n = 0; n < nnode; n++) aug_node[n] = node_rank[n] >= 0 ? count[node_rank[n]]++ : -1;
  PetscCall(PetscFree(count));
  /* columns: the operator's global index of each body unknown -> its augmented index */
  PetscCall(PetscMalloc1(PetscMax(m->nfree, 1), &d->col_aug));
  for (PetscInt i = 0; i < m->nfree; i++) {
    const PetscInt c = full_of_free[i], pi = s->to_petsc[i];
    PetscMPIInt    r;
    PetscInt       g;
    PetscCall(PetscLayoutFindOwner(ulayout, pi, &r));
    g = crange[r] + pi - urange[r];
    PetscCheck(g >= crange[r] && g < crange[r + 1], comm, PETSC_ERR_PLIB, "ancf_amg: the operator's columns are not the bodies' unknowns rank after rank");
    d->col_aug[g] = TD_NODE_DOF * aug_node[c / TD_NODE_DOF] + c % TD_NODE_DOF;
  }
  /* rows */
  PetscCall(PetscMalloc1(PetscMax(d->nloc, 1), &d->aug_row));
  for (PetscInt r = 0; r < d->nloc; r++) d->aug_row[r] = d->col_aug[rstart + r] - aug_start;
  /* clamped slots of this rank's augmented nodes */
  d->nclamp = 0;
  for (PetscInt n = 0; n < nnode; n++)
    if (node_rank[n] == rank)
      for (PetscInt sl = 0; sl < TD_NODE_DOF; sl++) d->nclamp += m->free_index[TD_NODE_DOF * n + sl] < 0;
  PetscCall(PetscMalloc2(PetscMax(d->nclamp, 1), &d->clamp, PetscMax(d->nclamp, 1), &d->clamp_slope));
  for (PetscInt n = 0, j = 0; n < nnode; n++)
    if (node_rank[n] == rank)
      for (PetscInt sl = 0; sl < TD_NODE_DOF; sl++)
        if (m->free_index[TD_NODE_DOF * n + sl] < 0) {
          d->clamp[j]         = TD_NODE_DOF * aug_node[n] + sl - aug_start;
          d->clamp_slope[j++] = sl >= 3 ? PETSC_TRUE : PETSC_FALSE;
        }
  /* A's pattern: the operator's rows (their columns mapped keep their order: both numberings
     run node by node, rank after rank) and the clamped slots' diagonals, preallocated exactly
     (no COO maps: they would double the memory of the copy) */
  PetscCall(PetscCalloc2(PetscMax(naug_local, 1), &d_nnz, PetscMax(naug_local, 1), &o_nnz));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt        nc;
    const PetscInt *cols;
    const PetscInt  a = d->aug_row[r - rstart];
    PetscCall(MatGetRow(P, r, &nc, &cols, NULL));
    for (PetscInt j = 0; j < nc; j++) {
      const PetscInt g = d->col_aug[cols[j]];
      if (g >= aug_start && g < aug_start + naug_local) d_nnz[a]++;
      else o_nnz[a]++;
    }
    d->maxcols = PetscMax(d->maxcols, nc);
    PetscCall(MatRestoreRow(P, r, &nc, &cols, NULL));
  }
  for (PetscInt j = 0; j < d->nclamp; j++) d_nnz[d->clamp[j]] = 1;
  PetscCall(PetscMalloc1(PetscMax(d->maxcols, 1), &d->cols));
  d->aug_start = aug_start;
  PetscCall(MatCreate(comm, &d->A));
  PetscCall(MatSetSizes(d->A, naug_local, naug_local, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(d->A, TD_NODE_DOF));
  PetscCall(MatSetType(d->A, MATAIJ));
  /* (not MatXAIJSetPreallocation: its block size argument would replace the nodes' 12) */
  PetscCall(MatSeqAIJSetPreallocation(d->A, 0, d_nnz));
  PetscCall(MatMPIAIJSetPreallocation(d->A, 0, d_nnz, 0, o_nnz));
  PetscCall(MatSetOption(d->A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscFree2(d_nnz, o_nnz));
  PetscCall(MatCreateVecs(d->A, &d->x, &d->y));
  {
    /* near-null space: the rigid-body modes at the reference configuration, all 12 slots */
    Vec          modes[6];
    PetscScalar *mv;
    MatNullSpace nns;
    for (PetscInt j = 0; j < 6; j++) {
      PetscCall(VecDuplicate(d->x, &modes[j]));
      PetscCall(VecGetArray(modes[j], &mv));
      for (PetscInt n = 0; n < nnode; n++)
        if (node_rank[n] == rank)
          for (PetscInt sl = 0; sl < TD_NODE_DOF; sl++) mv[TD_NODE_DOF * aug_node[n] + sl - aug_start] = TdRigidModeValue(&m->q_ref[TD_NODE_DOF * n], sl, j);
      PetscCall(VecRestoreArray(modes[j], &mv));
    }
    PetscCall(TdOrthonormalize(6, modes));
    PetscCall(MatNullSpaceCreate(comm, PETSC_FALSE, 6, modes, &nns));
    PetscCall(MatSetNearNullSpace(d->A, nns));
    PetscCall(MatNullSpaceDestroy(&nns));
    for (PetscInt j = 0; j < 6; j++) PetscCall(VecDestroy(&modes[j]));
  }
  PetscCall(PetscFree3(full_of_free, node_rank, aug_node));
  PetscFunctionReturn(0);
}

/* A's values from the operator's */
static PetscErrorCode FillAugmented(PC pc, PC_AncfAMG *d)
{
  Mat       P = pc->pmat;
  PetscInt  rstart, rend;
  PetscReal sum[4] = {0, 0, 0, 0}; /* |diagonal| of positions, their count, of slopes, count */
  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(P, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt           nc;
    const PetscInt    *cols;
    const PetscScalar *vals;
    const PetscInt     a = d->aug_row[r - rstart] + d->aug_start;
    PetscCall(MatGetRow(P, r, &nc, &cols, &vals));
    PetscCheck(nc <= d->maxcols, PETSC_COMM_SELF, PETSC_ERR_PLIB, "ancf_amg: the operator's pattern changed without a new nonzero state");
    for (PetscInt j = 0; j < nc; j++) {
      d->cols[j] = d->col_aug[cols[j]];
      if (cols[j] == r) {
        const PetscBool slope = a % TD_NODE_DOF >= 3;
        sum[slope ? 2 : 0] += PetscAbsScalar(vals[j]);
        sum[slope ? 3 : 1] += 1;
      }
    }
    PetscCall(MatSetValues(d->A, 1, &a, nc, d->cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(P, r, &nc, &cols, &vals));
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 4, MPIU_REAL, MPIU_SUM, PetscObjectComm((PetscObject)P)));
  for (PetscInt j = 0; j < d->nclamp; j++) {
    const PetscInt    b = d->clamp_slope[j] ? 2 : 0, a = d->clamp[j] + d->aug_start;
    const PetscScalar v = sum[b + 1] > 0 ? sum[b] / sum[b + 1] : 1;
    PetscCall(MatSetValues(d->A, 1, &a, 1, &a, &v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(d->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(d->A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/* The multigrid: ML's smoothed aggregation where PETSc has it.  Measured on the guide alone
   (cases/guide_impact.opts, 5 steps, one rank): GAMG needed 86 to over 500 GMRES iterations per
   solve on the guide meshed 68x10x2 (with rejected steps), whatever its smoother, threshold or
   coarsening; ML 22. */
static PCType InnerDefault(void)
{
#if defined(PETSC_HAVE_ML)
  return PCML;
#else
  return PCGAMG;
#endif
}

/* The smoother, unless the options name one: Chebyshev on the 12 x 12 (then 6 x 6) node blocks
   of the diagonal.  ML's own default (Richardson with SOR) took 24.1 s against 14.8 s on the
   guide meshed 136x20x2 (5 steps, one rank; 125 and 145 GMRES iterations). */
static PetscErrorCode SmootherDefaults(const char prefix[])
{
  const char *keys[2] = {"mg_levels_ksp_type", "mg_levels_pc_type"}, *values[2] = {KSPCHEBYSHEV, PCPBJACOBI};
  char        type[64], name[256];
  PetscBool   set;
  PetscFunctionBegin;
  /* only for the multigrids (-[prefix]ancf_pc_type lu, say, has no levels) */
  PetscCall(PetscSNPrintf(name, sizeof name, "-%sancf_pc_type", prefix ? prefix : ""));
  PetscCall(PetscOptionsGetString(NULL, NULL, name, type, sizeof type, &set));
  if (set) {
    PetscBool ml, gamg;
    PetscCall(PetscStrcmp(type, PCML, &ml));
    PetscCall(PetscStrcmp(type, PCGAMG, &gamg));
    if (!ml && !gamg) PetscFunctionReturn(0);
  }
  for (PetscInt i = 0; i < 2; i++) {
    PetscCall(PetscSNPrintf(name, sizeof name, "-%sancf_%s", prefix ? prefix : "", keys[i]));
    PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, name, values[i]));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCSetUp_AncfAMG(PC pc)
{
  PC_AncfAMG      *d      = (PC_AncfAMG *)pc->data;
  TdSolver         solver = TdSolverOfPCTypes();
  PetscObjectState state;
  PetscFunctionBegin;
  PetscCheck(solver, PetscObjectComm((PetscObject)pc), PETSC_ERR_ORDER, "-pc_type ancf_amg preconditions the Jacobian of a tribodyn solver, and none is set up");
  PetscCall(MatGetNonzeroState(pc->pmat, &state));
  if (!d->A || d->solver != solver || state != d->nonzero_state) {
    PetscCall(ResetAncfAMG(d));
    d->solver = solver;
    PetscCall(BuildAugmented(pc, d));
    d->nonzero_state = state;
  }
  PetscCall(FillAugmented(pc, d));
  if (!d->inner) {
    const char *prefix;
    PetscCall(PCGetOptionsPrefix(pc, &prefix));
    PetscCall(TdInnerPCCreate(pc, "ancf_", InnerDefault(), &d->inner));
    PetscCall(PCSetOperators(d->inner, d->A, d->A));
    PetscCall(SmootherDefaults(prefix));
    PetscCall(PCSetFromOptions(d->inner));
  } else PetscCall(PCSetOperators(d->inner, d->A, d->A));
  PetscCall(PCSetUp(d->inner));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCApply_AncfAMG(PC pc, Vec r, Vec z)
{
  PC_AncfAMG        *d = (PC_AncfAMG *)pc->data;
  const PetscScalar *rv, *yv;
  PetscScalar       *xv, *zv;
  PetscFunctionBegin;
  PetscCall(VecZeroEntries(d->x));
  PetscCall(VecGetArrayRead(r, &rv));
  PetscCall(VecGetArray(d->x, &xv));
  for (PetscInt i = 0; i < d->nloc; i++) xv[d->aug_row[i]] = rv[i];
  PetscCall(VecRestoreArray(d->x, &xv));
  PetscCall(VecRestoreArrayRead(r, &rv));
  PetscCall(PCApply(d->inner, d->x, d->y));
  PetscCall(VecGetArrayRead(d->y, &yv));
  PetscCall(VecGetArray(z, &zv));
  for (PetscInt i = 0; i < d->nloc; i++) zv[i] = yv[d->aug_row[i]];
  PetscCall(VecRestoreArray(z, &zv));
  PetscCall(VecRestoreArrayRead(d->y, &yv));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCReset_AncfAMG(PC pc)
{
  PC_AncfAMG *d = (PC_AncfAMG *)pc->data;
  PetscFunctionBegin;
  PetscCall(ResetAncfAMG(d));
  if (d->inner) PetscCall(PCReset(d->inner));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCDestroy_AncfAMG(PC pc)
{
  PC_AncfAMG *d = (PC_AncfAMG *)pc->data;
  PetscFunctionBegin;
  PetscCall(ResetAncfAMG(d));
  PetscCall(PCDestroy(&d->inner));
  PetscCall(PetscFree(pc->data));
  PetscFunctionReturn(0);
}

static PetscErrorCode PCView_AncfAMG(PC pc, PetscViewer viewer)
{
  PC_AncfAMG *d = (PC_AncfAMG *)pc->data;
  PetscBool   ascii;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (ascii) {
    PetscInt n = 0;
    if (d->A) PetscCall(MatGetSize(d->A, &n, NULL));
    PetscCall(PetscViewerASCIIPrintf(viewer, "  ANCF nodes as blocks of 12: %" PetscInt_FMT " augmented rows, the rigid-body modes as near-null space\n", n));
  }
  if (d->inner) {
    PetscCall(PetscViewerASCIIPushTab(viewer));
    PetscCall(PCView(d->inner, viewer));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode PCCreate_AncfAMG(PC pc)
{
  PC_AncfAMG *d;
  PetscFunctionBegin;
  PetscCall(PetscNew(&d));
  pc->data         = d;
  pc->ops->setup   = PCSetUp_AncfAMG;
  pc->ops->apply   = PCApply_AncfAMG;
  pc->ops->reset   = PCReset_AncfAMG;
  pc->ops->destroy = PCDestroy_AncfAMG;
  pc->ops->view    = PCView_AncfAMG;
  PetscFunctionReturn(0);
}

PetscErrorCode TdAncfAMGRegister(void)
{
  static PetscBool registered = PETSC_FALSE;
  PetscFunctionBegin;
  if (!registered) PetscCall(PCRegister(PCANCFAMG, PCCreate_AncfAMG));
  registered = PETSC_TRUE;
  PetscFunctionReturn(0);
}
