/*
  What the preconditioners other than the default LU need from the model (solver.h): the named
  blocks of -pc_type fieldsplit and the near-null space of the bodies for algebraic multigrid,
  and what tribodyn's own preconditioner types (ancf_amg.c, coupled_blocks.c) share: the solver
  they work for, the rigid-body modes, and the creation of their inner preconditioners.

  Blocks.  The unknowns U = [free body coordinates | film pressures | scaled multipliers] split
  into the blocks `bodies`, `films` and `drives` (-fieldsplit_bodies_pc_type ..., each rank its
  part of each range).

  Near-null space (rigid-body modes in ANCF coordinates).  An ANCF node carries its position r and
  the slopes r_X, r_Y, r_Z (formulation §1).  A rigid translation by c adds c to every position and
  nothing to the slopes; an infinitesimal rotation by w adds w x r to every position and w x r_X,
  w x r_Y, w x r_Z to the slopes (the slopes are material line elements, turned with the body).
  These six vectors, taken at the reference configuration and restricted to the free coordinates
  (a clamped coordinate is not an unknown), are the modes on which the elastic forces vanish
  (test_ancf3843: internal force zero under rigid rotation): the near-null space that smoothed
  aggregation (GAMG) needs to build coarse spaces of an elastic body.  They are attached to the
  Jacobian (MatSetNearNullSpace: -pc_type gamg on the whole system) and to the `bodies` block's
  index set (PCFieldSplit hands them to the block's matrix), orthonormalised as PETSc requires.
*/
#include <tribodyn/solver.h>
#include "solver_private.h"

/* The solver whose Jacobian tribodyn's own preconditioner types (ancf_amg, coupled_blocks)
   precondition: a PC of a registered type has no user context, and these need the model's
   numbering.  One tribodyn solver per process. */
static TdSolver pc_types_solver = NULL;

PetscErrorCode TdSolverPCTypesUse(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(TdAncfAMGRegister());
  PetscCall(TdCoupledBlocksRegister());
  pc_types_solver = s;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverPCTypesForget(TdSolver s)
{
  PetscFunctionBegin;
  if (pc_types_solver == s) pc_types_solver = NULL;
  PetscFunctionReturn(0);
}

TdSolver TdSolverOfPCTypes(void) { return pc_types_solver; }

/* A preconditioner inside another (solver_private.h) */
PetscErrorCode TdInnerPCCreate(PC outer, const char suffix[], PCType type, PC *inner)
{
  const char *prefix;
  PetscFunctionBegin;
  PetscCall(PCCreate(PetscObjectComm((PetscObject)outer), inner));
  PetscCall(PetscObjectIncrementTabLevel((PetscObject)*inner, (PetscObject)outer, 1));
  PetscCall(PCGetOptionsPrefix(outer, &prefix));
  PetscCall(PCSetOptionsPrefix(*inner, prefix));
  PetscCall(PCAppendOptionsPrefix(*inner, suffix));
  PetscCall(PCSetType(*inner, type));
  PetscFunctionReturn(0);
}

/* The value of rigid-body mode k (translations x, y, z, then rotations about x, y, z) at slot
   (0..11) of a node whose reference coordinates are x12: a translation moves the position and
   no slope, a rotation w turns the position and the slopes alike, w x r, w x r_X, ... */
PetscReal TdRigidModeValue(const PetscReal x12[TD_NODE_DOF], PetscInt slot, PetscInt k)
{
  const PetscInt   comp = slot % 3;
  const PetscReal *x    = &x12[3 * (slot / 3)];
  if (k < 3) return slot < 3 && comp == k ? 1 : 0;
  {
    const PetscInt a = k - 3, b = (a + 1) % 3, d = (a + 2) % 3; /* e_a x e_b = e_d, e_a x e_d = -e_b */
    if (comp == d) return x[b];
    if (comp == b) return -x[d];
    return 0;
  }
}

/* Orthonormalises n vectors in place (modified Gram-Schmidt), as MatNullSpaceCreate expects. */
PetscErrorCode TdOrthonormalize(PetscInt n, Vec v[])
{
  PetscFunctionBegin;
  for (PetscInt k = 0; k < n; k++) {
    PetscReal nrm;
    for (PetscInt j = 0; j < k; j++) {
      PetscScalar dot;
      PetscCall(VecDot(v[k], v[j], &dot));
      PetscCall(VecAXPY(v[k], -dot, v[j]));
    }
    PetscCall(VecNormalize(v[k], &nrm));
    PetscCheck(nrm > 0, PetscObjectComm((PetscObject)v[k]), PETSC_ERR_PLIB, "Rigid-body mode %" PetscInt_FMT " vanishes: the model has no free body coordinates", k);
  }
  PetscFunctionReturn(0);
}

/* The six rigid-body modes over this rank's part of U (zero outside the body coordinates). */
static PetscErrorCode RigidModes(TdSolver s, Vec modes[6])
{
  TdModel      m = s->model;
  PetscInt     lo, hi, *full_of_free;
  PetscScalar *v[6];
  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
  /* free number -> full coordinate */
  PetscCall(PetscMalloc1(PetscMax(m->nfree, 1), &full_of_free));
  for (PetscInt c = 0; c < m->nfull; c++)
    if (m->free_index[c] >= 0) full_of_free[m->free_index[c]] = c;
  for (PetscInt k = 0; k < 6; k++) {
    PetscCall(VecDuplicate(s->U, &modes[k]));
    PetscCall(VecZeroEntries(modes[k]));
    PetscCall(VecGetArray(modes[k], &v[k]));
  }
  for (PetscInt k = 0; k < hi - lo && s->owned[k] < m->nfree; k++) { /* owned: ascending */
    const PetscInt c = full_of_free[s->owned[k]], node = c / TD_NODE_DOF;
    for (PetscInt j = 0; j < 6; j++) v[j][k] = TdRigidModeValue(&m->q_ref[TD_NODE_DOF * node], c % TD_NODE_DOF, j);
  }
  for (PetscInt k = 0; k < 6; k++) PetscCall(VecRestoreArray(modes[k], &v[k]));
  PetscCall(PetscFree(full_of_free));
  PetscCall(TdOrthonormalize(6, modes));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverSetUpPreconditioner(TdSolver s, PC pc)
{
  PetscBool isfs, isgamg, ismg;
  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCFIELDSPLIT, &isfs));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCGAMG, &isgamg));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCML, &ismg));
  if (!isfs && !isgamg && !ismg) PetscFunctionReturn(0);
  {
    Vec          modes[6];
    MatNullSpace nns = NULL;
    if (s->model->nfree > 0) {
      PetscCall(RigidModes(s, modes));
      PetscCall(MatNullSpaceCreate(s->comm, PETSC_FALSE, 6, modes, &nns));
      for (PetscInt k = 0; k < 6; k++) PetscCall(VecDestroy(&modes[k]));
      PetscCall(MatSetNearNullSpace(s->J, nns));
    }
    if (isfs) {
      /* -pc_type fieldsplit: the blocks are named bodies, films and drives, so that
         -pc_fieldsplit_type, -fieldsplit_bodies_pc_type, ... address them */
      const char    *names[3]  = {"bodies", "films", "drives"};
      const PetscInt bounds[4] = {0, s->model->nfree, s->model->row_offset, s->N};
      for (PetscInt b = 0; b < 3; b++) {
        IS       is;
        PetscInt first, n;
        if (bounds[b + 1] == bounds[b]) continue; /* no such unknowns in this model */
        PetscCall(TdSolverOwnedSlice(s, bounds[b], bounds[b + 1], &first, &n, NULL));
        PetscCall(ISCreateStride(s->comm, n, first, 1, &is));
        if (b == 0 && nns) {
          /* the bodies block's own near-null space: the modes restricted to its rows */
          Vec          sub[6], full[6];
          const Vec   *vecs;
          PetscInt     nv;
          PetscBool    has_const;
          MatNullSpace bns;
          PetscCall(MatNullSpaceGetVecs(nns, &has_const, &nv, &vecs));
          for (PetscInt k = 0; k < nv; k++) {
            full[k] = vecs[k];
            PetscCall(VecGetSubVector(full[k], is, &sub[k]));
          }
          {
            Vec copies[6];
            for (PetscInt k = 0; k < nv; k++) {
              PetscCall(VecDuplicate(sub[k], &copies[k]));
              PetscCall(VecCopy(sub[k], copies[k]));
              PetscCall(VecRestoreSubVector(full[k], is, &sub[k]));
            }
            /* the restriction of orthonormal vectors is orthonormal (they vanish off the block) */
            PetscCall(MatNullSpaceCreate(s->comm, PETSC_FALSE, nv, copies, &bns));
            for (PetscInt k = 0; k < nv; k++) PetscCall(VecDestroy(&copies[k]));
          }
          PetscCall(PetscObjectCompose((PetscObject)is, "nearnullspace", (PetscObject)bns));
          PetscCall(MatNullSpaceDestroy(&bns));
        }
        PetscCall(PCFieldSplitSetIS(pc, names[b], is));
        PetscCall(ISDestroy(&is));
      }
    }
    PetscCall(MatNullSpaceDestroy(&nns));
  }
  PetscFunctionReturn(0);
}
