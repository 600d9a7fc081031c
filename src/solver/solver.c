/*
  Residual and Jacobian of one step, generalised-alpha stepping and statics (solver.h).

  Residual (formulation.md F15, 4th and 5th lines, at t_{n+1}):
      R_q = M qdd + Q_int(q) + Q_v(q, v) - Q_g - Q_ext(t) + Phi_q^T lambda
      R_c = s (Phi(q) - b(t))              s = row_scale, lambda = s lambda_hat
  The rows and multipliers are scaled by s = (mass per node) * dqdd/dq so that the constraint
  block has the size of the inertia block whatever dt (formulation.md §5); the rows then carry
  force units, like R_q, and one SNES tolerance serves both.
  Jacobian: element blocks c_M rho M_e + c_e dQ/de + c_v dQ/dedot assembled in COO form (each
  thread writes its elements' blocks straight into the value array), plus the constant
  constraint blocks s Phi_q.
*/
#include <inttypes.h>
#include <tribodyn/solver.h>
#include <tribodyn/thread_governor.h>
#include "solver_private.h"
#include <tribodyn/options.h>
#include <tribodyn/mumps_single.h>
#include <tribodyn/spring_damper.h>
#include <tribodyn/vec3.h>
#include <petsc/private/petscimpl.h>
#include <omp.h>

#define NDOF ANCF3843_NDOF

/* -log_view events: where a step's time goes besides PETSc's own (MatLUFactorNum, KSPSolve, ...) */
static PetscLogEvent TD_ElementForces, TD_ElementTangents, TD_FilmResidual, TD_FilmJacobian, TD_FilmPattern, TD_JacobianValues, TD_JacobianPattern;
static PetscBool     td_events_registered = PETSC_FALSE;

static PetscErrorCode AllocFull(PetscInt n, PetscReal **p)
{
  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax(n, 1), p));
  PetscFunctionReturn(0);
}

/* The Jacobian with its COO pattern: element blocks of this rank, the film blocks of this rank's
   quads, then (rank 0) one diagonal entry per cavitating film row and the constraint blocks.
   Rebuilt when the film-body coupling pattern changes. */
/* The material points whose element blocks a load's stiffness fills (rank 0): a spring's two
   ends (one for ground), a torque's point; none for point forces and pressures (these are in
   the element loop). */
static PetscInt LoadEnds(const TdLoad *load, const TdMaterialPoint *end[2])
{
  end[0] = &load->point;
  end[1] = &load->point2;
  if (load->type == TD_LOAD_SPRING) return load->body2 >= 0 ? 2 : 1;
  return load->type == TD_LOAD_TORQUE ? 1 : 0;
}

/* Jacobian entries of the loads (rank 0): for each, the blocks (end a, end b) of its ends,
   96 x 96 each, in the order TdSolverBuildJacobian lays them out. */
static PetscCount LoadEntries(TdModel m)
{
  PetscCount n = 0;
  for (PetscInt l = 0; l < m->nloads; l++) {
    const TdMaterialPoint *end[2];
    const PetscInt         nend = LoadEnds(&m->loads[l], end);
    n += (PetscCount)nend * nend * NDOF * NDOF;
  }
  return n;
}

/* Full coordinates (ci, cj) of n pattern entries to free unknowns; an entry on a clamped
   coordinate is dropped (-1, -1). */
static void FreePattern(TdModel m, PetscCount n, PetscInt ci[], PetscInt cj[])
{
  for (PetscCount h = 0; h < n; h++) {
    ci[h] = m->free_index[ci[h]];
    cj[h] = m->free_index[cj[h]];
    if (ci[h] < 0 || cj[h] < 0) ci[h] = cj[h] = -1;
  }
}

/* The 96 x 96 block of material points a (rows) and b (columns) in free unknowns: NDOF * NDOF
   entries, row-major. */
static void PointBlockPattern(TdModel m, const TdMaterialPoint *a, const TdMaterialPoint *b, PetscInt ci[], PetscInt cj[])
{
  TdModelPointBlockPattern(a, b, ci, cj);
  FreePattern(m, (PetscCount)NDOF * NDOF, ci, cj);
}

PetscErrorCode TdSolverBuildJacobian(TdSolver s)
{
  TdModel     model = s->model;
  PetscMPIInt rank;
  PetscFunctionBegin;
  s->film_jac_ready = PETSC_FALSE; /* coo_v is laid out anew */
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(PetscFree(s->coo_v));
  s->nfilm_coo = 0;
  {
    PetscInt   nloc = s->nelem_local, nc = 0;
    PetscInt  *ci, *cj, k = 0;
    PetscBool  seqaij;
    PetscCall(TdFilmsCOOPattern(model, &s->nfilm_coo, NULL, NULL));
    /* the cavitation rows' entries: each film row's by the rank that owns it */
    for (PetscInt i = 0; i < s->nncp; i++) nc += TdSolverRowMine(s, s->ncp_rows[i]);
    for (PetscInt i = 0; i < s->njfo; i++) nc += 2 * TdSolverRowMine(s, s->jfo_theta[i]);
    if (rank == 0) {
      for (PetscInt r = 0; r < model->nrows; r++) nc += 2 * model->rows[r].nterms + 1;
      nc += (PetscInt)LoadEntries(model);
      for (PetscInt b = 0; b < model->nbodies; b++) nc += model->bodies[b].type == TD_BODY_FREE ? 144 : 0;
      for (PetscInt r = 0; r < model->nrows; r++) nc += (PetscInt)TdRowHessianEntries(&model->rows[r]);
      for (PetscInt j = 0; j < model->njoints; j++)
        if (model->joints[j].motor == TD_MOTOR_TORQUE) nc += ((model->joints[j].body[0] >= 0) + (model->joints[j].body[1] >= 0)) * NDOF * NDOF;
      nc += (PetscInt)TdJointsClearanceEntries(model);
    }
    s->ncoo = (PetscCount)nloc * NDOF * NDOF + s->nfilm_coo + nc;
    PetscCall(PetscInfo(NULL, "Jacobian COO entries of this rank: %" PetscCount_FMT " (elements %" PetscCount_FMT ", films %" PetscCount_FMT ", constraints %" PetscInt_FMT ")\n", s->ncoo, (PetscCount)nloc * NDOF * NDOF, s->nfilm_coo, nc));
    /* whether any rank has film entries: the film passes of the Jacobian sum over the ranks,
       so every rank takes them or none */
    s->film_jac_any = s->nfilm_coo > 0 || s->nncp > 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &s->film_jac_any, 1, MPIU_BOOL, MPI_LOR, s->comm));
    PetscCall(PetscMalloc2(s->ncoo, &ci, s->ncoo, &cj));
    for (PetscInt le = 0; le < nloc; le++) {
      PetscInt coord[NDOF], f[NDOF];
      TdModelElementCoordinates(model, s->elem_local[le], coord);
      for (PetscInt i = 0; i < NDOF; i++) f[i] = model->free_index[coord[i]];
      for (PetscInt i = 0; i < NDOF; i++)
        for (PetscInt j = 0; j < NDOF; j++, k++) {
          ci[k] = f[i];
          cj[k] = f[j];
        }
    }
    {
      PetscCount nfc;
      PetscCall(TdFilmsCOOPattern(model, &nfc, &ci[k], &cj[k]));
      if (s->ncp_shift) {
        /* the film rows of this rank's entries: a row on the cavitation bound is cleared by
           every rank, and rank 0's diagonal entry below makes it the unit row (formulation §2) */
        PetscCall(PetscFree(s->film_coo_rows));
        PetscCall(PetscMalloc1(PetscMax(nfc, 1), &s->film_coo_rows));
        for (PetscCount i = 0; i < nfc; i++) s->film_coo_rows[i] = ci[k + i];
      }
      k += (PetscInt)nfc;
    }
    for (PetscInt i = 0; i < s->nncp; i++)
      if (TdSolverRowMine(s, s->ncp_rows[i])) {
        ci[k] = cj[k] = s->ncp_rows[i];
        k++;
      }
    for (PetscInt i = 0; i < s->njfo; i++)
      if (TdSolverRowMine(s, s->jfo_theta[i])) {
        ci[k] = ci[k + 1] = s->jfo_theta[i];
        cj[k]             = s->jfo_p[i];
        cj[k + 1]         = s->jfo_theta[i];
        k += 2;
      }
    if (rank == 0) {
      for (PetscInt r = 0; r < model->nrows; r++) {
        const TdConstraintRow *row = &model->rows[r];
        for (PetscInt t = 0; t < row->nterms; t++, k += 2) {
          ci[k]     = model->row_offset + r;
          cj[k]     = model->free_index[row->coord[t]];
          ci[k + 1] = model->free_index[row->coord[t]];
          cj[k + 1] = model->row_offset + r;
          if (cj[k] < 0) ci[k] = ci[k + 1] = -1; /* a clamped coordinate: a constant term */
        }
        /* the (zero) diagonal of the constraint row: in the pattern, so that factorisations
           that pivot only within it (-pc_factor_mat_solver_type petsc with
           -pc_factor_nonzeros_along_diagonal) can permute a nonzero onto it */
        ci[k] = cj[k] = model->row_offset + r;
        k++;
      }
      /* springs and torques: the blocks of their ends (LoadEntries) */
      for (PetscInt l = 0; l < model->nloads; l++) {
        const TdMaterialPoint *end[2];
        const PetscInt         nend = LoadEnds(&model->loads[l], end);
        for (PetscInt a = 0; a < nend; a++)
          for (PetscInt b = 0; b < nend; b++, k += NDOF * NDOF) PointBlockPattern(model, end[a], end[b], &ci[k], &cj[k]);
      }
      /* free rigid bodies: their 12 x 12 mass blocks */
      for (PetscInt b = 0; b < model->nbodies; b++) {
        const PetscInt base = TD_NODE_DOF * model->bodies[b].node_offset;
        if (model->bodies[b].type != TD_BODY_FREE) continue;
        for (PetscInt i = 0; i < 12; i++)
          for (PetscInt j = 0; j < 12; j++, k++) {
            ci[k] = model->free_index[base + i];
            cj[k] = model->free_index[base + j];
          }
      }
      /* dot rows of ideal joints (F22): their multipliers' Hessians */
      for (PetscInt r = 0; r < model->nrows; r++) {
        const PetscCount nh = TdRowHessianEntries(&model->rows[r]);
        if (!nh) continue;
        TdRowHessianPattern(&model->rows[r], &ci[k], &cj[k]);
        FreePattern(model, nh, &ci[k], &cj[k]);
        k += (PetscInt)nh;
      }
      /* torque motors (F23): the F19 blocks of their joint points */
      for (PetscInt j = 0; j < model->njoints; j++) {
        const TdJoint *joint = &model->joints[j];
        if (joint->motor != TD_MOTOR_TORQUE) continue;
        for (PetscInt side = 0; side < 2; side++) {
          if (joint->body[side] < 0) continue;
          PointBlockPattern(model, &joint->at[side], &joint->at[side], &ci[k], &cj[k]);
          k += NDOF * NDOF;
        }
      }
      /* clearance joints (F24): the blocks of their two points */
      TdJointsClearancePattern(model, &ci[k], &cj[k]);
      FreePattern(model, TdJointsClearanceEntries(model), &ci[k], &cj[k]);
      k += (PetscInt)TdJointsClearanceEntries(model);
    }
    /* the unknowns this rank reads and writes: the rows and columns of its pattern, and more
       (state_ghosts.c) */
    PetscCall(TdSolverGhostsSetUp(s, s->ncoo, ci, cj));
    /* the pattern, built in the natural numbering, in U's (the partition's) */
    for (PetscCount i = 0; i < s->ncoo; i++) {
      if (ci[i] >= 0) ci[i] = s->to_petsc[ci[i]];
      if (cj[i] >= 0) cj[i] = s->to_petsc[cj[i]];
    }
    if (!s->J) {
      /* created once; a changed film-body coupling re-preallocates the same matrix */
      PetscInt nlocal;
      PetscCall(VecGetLocalSize(s->U, &nlocal));
      PetscCall(MatCreate(s->comm, &s->J));
      PetscCall(MatSetSizes(s->J, nlocal, nlocal, s->N, s->N));
      PetscCall(MatSetType(s->J, MATAIJ));
    }
    PetscCall(PetscObjectTypeCompare((PetscObject)s->J, MATSEQAIJ, &seqaij));
    PetscBool info = PETSC_FALSE;
    PetscCall(PetscInfoEnabled(PETSC_SMALLEST_CLASSID, &info)); /* the "sys" class of PetscInfo(NULL, ...) */
    if (!seqaij && info) {
      /* entries of rows another rank owns travel at every Jacobian (MatSetValuesCOO): -info
         tells how many, by kind */
      PetscInt   lo, hi;
      PetscCount off_e = 0, off_f = 0, off_c = 0;
      const PetscCount ne_coo = (PetscCount)nloc * NDOF * NDOF;
      PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
      for (PetscCount i = 0; i < s->ncoo; i++)
        if (ci[i] >= 0 && (ci[i] < lo || ci[i] >= hi)) {
          if (i < ne_coo) off_e++;
          else if (i < ne_coo + s->nfilm_coo) off_f++;
          else off_c++;
        }
      PetscCall(PetscInfo(NULL, "Jacobian COO entries of rows another rank owns: elements %" PetscCount_FMT ", films %" PetscCount_FMT ", constraints %" PetscCount_FMT " (rows %" PetscInt_FMT "-%" PetscInt_FMT " here)\n", off_e, off_f, off_c, lo, hi));
    }
    PetscCall(PetscLogEventBegin(TD_JacobianPattern, 0, 0, 0, 0));
    if (s->coo_map_on) {
      /* the elements' blocks lead the COO array: with -jacobian_direct they may go straight in */
      const TdCOOMapBlocks blocks = {nloc, NDOF * NDOF, s->elem_chunk, s->chunk_elem};
      PetscCall(TdCOOMapPreallocate(s->J, s->ncoo, ci, cj, s->jacobian_direct ? &blocks : NULL, &s->coo_map));
      if (s->coo_map.block_direct) {
        PetscInt nd = 0;
        for (PetscInt b = 0; b < nloc; b++) nd += s->coo_map.block_direct[b];
        PetscCall(PetscInfo(NULL, "Jacobian element blocks added directly: %" PetscInt_FMT " of %" PetscInt_FMT " (%" PetscInt_FMT " chunks)\n", nd, nloc, s->nchunk));
      }
    }
    else PetscCall(MatSetPreallocationCOO(s->J, s->ncoo, ci, cj));
    if (s->threaded_jacobian) {
      PetscBool used;
      PetscCall(TdSeqAIJUseThreadedMult(s->J, &used));
    }
    PetscCall(PetscLogEventEnd(TD_JacobianPattern, 0, 0, 0, 0));
    if (s->snes) {
      /* a new pattern: the factorisation (and the factor's own copy of the pattern, which a
         parallel MUMPS factor keeps) belongs to the old one; the PC starts afresh */
      KSP ksp;
      PC  pc;
      PetscCall(SNESGetKSP(s->snes, &ksp));
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCReset(pc));
    }
    PetscCall(TdSolverKeptLUReset(s));
    s->pc_ready = PETSC_FALSE;
    PetscCall(PetscFree2(ci, cj));
    PetscCall(PetscMalloc1(PetscMax(s->ncoo, 1), &s->coo_v));
  }

  PetscFunctionReturn(0);
}

/* The iterations and reason of the last Krylov solve: the KSP's, or after a restart (until the
   first Jacobian) those of the checkpointed run's last solve. */
PetscErrorCode TdSolverLastKrylov(TdSolver s, PetscInt *lits, KSPConvergedReason *kreason)
{
  KSP ksp;
  PetscFunctionBegin;
  PetscCall(SNESGetKSP(s->snes, &ksp));
  PetscCall(KSPGetIterationNumber(ksp, lits));
  PetscCall(KSPGetConvergedReason(ksp, kreason));
  if (s->restored_ksp) {
    *lits    = s->restored_lits;
    *kreason = (KSPConvergedReason)s->restored_kreason;
  }
  PetscFunctionReturn(0);
}

/* The value arrays of J's diagonal and off-diagonal blocks (NULL on one rank) and their
   lengths. */
static PetscErrorCode JacobianBlocks(TdSolver s, Mat *Ad, Mat *Ao, PetscInt *nd, PetscInt *no)
{
  MatInfo info;
  PetscFunctionBegin;
  *no = 0;
  PetscCall(TdAIJBlocks(s->J, Ad, Ao));
  PetscCall(MatGetInfo(*Ad, MAT_LOCAL, &info));
  *nd = (PetscInt)info.nz_used;
  if (*Ao) {
    PetscCall(MatGetInfo(*Ao, MAT_LOCAL, &info));
    *no = (PetscInt)info.nz_used;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverJacobianValuesCopy(TdSolver s, PetscInt *n, PetscScalar v[])
{
  Mat      Ad, Ao;
  PetscInt nd = 0, no = 0;
  PetscFunctionBegin;
  PetscCall(JacobianBlocks(s, &Ad, &Ao, &nd, &no));
  *n = nd + no;
  if (v) {
    const PetscScalar *a;
    PetscCall(MatSeqAIJGetArrayRead(Ad, &a));
    PetscCall(PetscArraycpy(v, a, nd));
    PetscCall(MatSeqAIJRestoreArrayRead(Ad, &a));
    if (Ao) {
      PetscCall(MatSeqAIJGetArrayRead(Ao, &a));
      PetscCall(PetscArraycpy(v + nd, a, no));
      PetscCall(MatSeqAIJRestoreArrayRead(Ao, &a));
    }
  }
  PetscFunctionReturn(0);
}

/* Keeps the values of J (just assembled) as those of the factored matrix, for checkpoints. */
static PetscErrorCode KeepFactoredValues(TdSolver s)
{
  PetscInt n = 0;
  PetscFunctionBegin;
  PetscCall(TdSolverJacobianValuesCopy(s, &n, NULL));
  if (n != s->npc_mat_v) {
    PetscCall(PetscFree(s->pc_mat_v));
    PetscCall(PetscMalloc1(PetscMax(n, 1), &s->pc_mat_v));
    s->npc_mat_v = n;
  }
  PetscCall(TdSolverJacobianValuesCopy(s, &n, s->pc_mat_v));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFactorStored(TdSolver s, const PetscScalar v[], PetscBool coo)
{
  KSP ksp;
  PC  pc;
  PetscFunctionBegin;
  if (coo) {
    /* COO values: the direct blocks' from their place in v, in the order the map's first
       touches were set for (the chunks' order, as in TdSolverJacobian), then the rest by the
       map */
    PetscCall(PetscArraycpy(s->coo_v, v, s->ncoo));
    if (s->coo_map.block_direct) {
      PetscScalar *aa, *ba;
      PetscCall(TdCOOMapGetArrays(s->J, &aa, &ba));
      for (PetscInt k = 0; k < s->nelem_local; k++) {
        const PetscInt le = s->chunk_elem[k];
        if (s->coo_map.block_direct[le]) TdCOOMapAddBlock(&s->coo_map, le, &v[(PetscCount)le * s->coo_map.bsize], aa, ba);
      }
      PetscCall(TdCOOMapRestoreArrays(s->J, &aa, &ba));
    }
    if (s->coo_map.entry) PetscCall(TdCOOMapSetValues(s->J, &s->coo_map, s->coo_v));
    else PetscCall(MatSetValuesCOO(s->J, s->coo_v, INSERT_VALUES));
  } else {
    Mat          Ad, Ao;
    PetscInt     nd = 0, no = 0;
    PetscScalar *a;
    PetscCall(JacobianBlocks(s, &Ad, &Ao, &nd, &no));
    PetscCall(MatSeqAIJGetArrayWrite(Ad, &a));
    PetscCall(PetscArraycpy(a, v, nd));
    PetscCall(MatSeqAIJRestoreArrayWrite(Ad, &a));
    if (Ao) {
      PetscCall(MatSeqAIJGetArrayWrite(Ao, &a));
      PetscCall(PetscArraycpy(a, v + nd, no));
      PetscCall(MatSeqAIJRestoreArrayWrite(Ao, &a));
    }
    PetscCall(MatAssemblyBegin(s->J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(s->J, MAT_FINAL_ASSEMBLY));
  }
  PetscCall(KeepFactoredValues(s));
  PetscCall(SNESGetKSP(s->snes, &ksp));
  {
    /* the operators the SNES hands its KSP (the Krylov operator may be a shell around J) */
    Mat A, P;
    PetscCall(SNESGetJacobian(s->snes, &A, &P, NULL, NULL));
    PetscCall(KSPSetOperators(ksp, A, P));
  }
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetUp(pc));
  PetscFunctionReturn(0);
}

/* The partition (TdModelPartition) and the layout of U that follows from it: this rank's
   elements, U numbered rank after rank (to_petsc, owned), U and its copies, and the scatter of
   the whole iterate to every rank in the natural numbering (Useq). */
static PetscErrorCode LayOutUnknowns(TdSolver s)
{
  TdModel        model = s->model;
  const PetscInt ne    = model->nelements;
  PetscMPIInt    rank, size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  s->partition = size > 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TdOptionsBool(NULL, "partition", "on several ranks (the default there; one rank has nothing to divide), divide the elements by a graph partitioner (PT-Scotch through MatPartitioning; -partition_mat_partitioning_type chooses another) and number the unknowns rank after rank, so that each rank owns the rows of its elements and film quads; false: contiguous slices of the elements and of the natural numbering", s->partition, &s->partition, NULL));
  s->state_ghosts = PETSC_TRUE;
  PetscCall(TdOptionsBool(NULL, "state_ghosts", "on several ranks, send each rank only the unknowns its residual and Jacobian read (its elements', the faces around its film quads' points, its quads' and film rows' unknowns, rank 0's joints and loads; state_ghosts.c), and the residual back from those alone; false: the whole iterate to every rank and back", s->state_ghosts, &s->state_ghosts, NULL));
  s->ghost_rings = 1;
  PetscCall(TdOptionsInt(NULL, "state_ghosts_rings", "with -state_ghosts: the rings of faces around each film point's last face that its rank receives; a point that goes beyond makes every rank take the films' whole surfaces until the next step (0: the last faces alone)", s->ghost_rings, &s->ghost_rings, NULL));
  PetscCheck(s->ghost_rings >= 0 && s->ghost_rings < 100, s->comm, PETSC_ERR_USER_INPUT, "-state_ghosts_rings %" PetscInt_FMT ": give a number of rings from 0 to 99", s->ghost_rings);
  s->ghost_output_nodes = PETSC_TRUE;
  PetscCall(TdOptionsBool(NULL, "state_ghosts_output_nodes", "with -state_ghosts: each rank's set also holds the film unknowns and faces of the film nodes whose fields it writes at every record (false: a record whose node search leaves its rank's set takes the whole state from the owners)", s->ghost_output_nodes, &s->ghost_output_nodes, NULL));
  PetscCall(TdOptionsBool(NULL, "state_ghosts_check", "with -state_ghosts: fill the unknowns outside each rank's ghost set with NaN before every residual and Jacobian, and stop if a residual entry outside it is nonzero (a check of the ghost sets; slower)", PETSC_FALSE, &s->ghost_check, NULL));
  PetscCall(PetscMalloc2(PetscMax(ne, 1), &s->element_rank, PetscMax(s->N, 1), &s->to_petsc));
  if (s->partition && size > 1) {
    PetscInt *unknown_rank, *first;
    PetscCall(PetscMalloc2(PetscMax(s->N, 1), &unknown_rank, size + 1, &first));
    PetscCall(TdModelPartition(model, s->element_rank, unknown_rank));
    /* rank after rank, each rank's unknowns in their natural order */
    PetscCall(PetscArrayzero(first, size + 1));
    for (PetscInt i = 0; i < s->N; i++) first[unknown_rank[i] + 1]++;
    s->nowned = first[rank + 1];
    for (PetscMPIInt r = 0; r < size; r++) first[r + 1] += first[r];
    PetscCall(PetscMalloc1(PetscMax(s->nowned, 1), &s->owned));
    for (PetscInt i = 0, k = 0; i < s->N; i++) {
      s->to_petsc[i] = first[unknown_rank[i]]++;
      if (unknown_rank[i] == rank) s->owned[k++] = i;
    }
    PetscCall(PetscFree2(unknown_rank, first));
    {
      /* the partition's sizes and a fingerprint (FNV-1a of the element ranks): runs and
         restarts of one command show the same partition */
      PetscInt *count;
      uint64_t  h = 14695981039346656037ULL;
      PetscCall(PetscCalloc1(size, &count));
      for (PetscInt e = 0; e < ne; e++) {
        count[s->element_rank[e]]++;
        h = (h ^ (uint64_t)s->element_rank[e]) * 1099511628211ULL;
      }
      PetscCall(PetscPrintf(s->comm, "tribodyn: elements per rank ["));
      for (PetscMPIInt r = 0; r < size && r < 16; r++) PetscCall(PetscPrintf(s->comm, "%s%" PetscInt_FMT, r ? " " : "", count[r]));
      PetscCall(PetscPrintf(s->comm, "%s], partition fingerprint %016" PRIx64 "\n", size > 16 ? " ..." : "", h));
      PetscCall(PetscFree(count));
    }
  } else {
    PetscInt lo = 0;
    s->nowned = PETSC_DECIDE;
    PetscCall(PetscSplitOwnership(s->comm, &s->nowned, &s->N));
    PetscCallMPI(MPI_Exscan(&s->nowned, &lo, 1, MPIU_INT, MPI_SUM, s->comm));
    if (rank == 0) lo = 0;
    PetscCall(PetscMalloc1(PetscMax(s->nowned, 1), &s->owned));
    for (PetscInt k = 0; k < s->nowned; k++) s->owned[k] = lo + k;
    for (PetscInt i = 0; i < s->N; i++) s->to_petsc[i] = i;
    for (PetscInt e = 0; e < ne; e++) /* contiguous slices */
      for (PetscMPIInt r = 0; r < size; r++)
        if (e < (PetscInt)(((PetscInt64)ne * (r + 1)) / size)) {
          s->element_rank[e] = r;
          break;
        }
  }
  for (PetscInt e = 0; e < ne; e++) s->nelem_local += s->element_rank[e] == rank;
  PetscCall(PetscMalloc1(PetscMax(s->nelem_local, 1), &s->elem_local));
  for (PetscInt e = 0, k = 0; e < ne; e++)
    if (s->element_rank[e] == rank) s->elem_local[k++] = e;
  PetscCall(TdModelElementTablesSetUp(model, s->nelem_local, s->elem_local));
  PetscCall(VecCreateMPI(s->comm, s->nowned, s->N, &s->U));
  PetscCall(VecGetOwnershipRange(s->U, &s->own_lo, &s->own_hi));
  PetscCall(VecDuplicate(s->U, &s->R));
  PetscCall(VecDuplicate(s->U, &s->U0));
  PetscCall(VecDuplicate(s->U, &s->Uguess));
  if (s->partition && size > 1) {
    /* the whole vector on every rank, in the natural numbering: entry i from U's to_petsc[i] */
    IS from;
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, s->N, &s->Useq));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, s->N, s->to_petsc, PETSC_USE_POINTER, &from));
    PetscCall(VecScatterCreate(s->U, from, s->Useq, NULL, &s->toall));
    PetscCall(ISDestroy(&from));
  } else PetscCall(VecScatterCreateToAll(s->U, &s->toall, &s->Useq));
  PetscCall(TdSolverFilmRowsSetUp(s));
  PetscFunctionReturn(0);
}

/* An element's place in the order of its chunk: its reference centroid on a grid of a quarter
   of the smallest edge, axes from the widest spread to the narrowest. */
typedef struct {
  PetscInt64 cell[3];
  PetscInt   le;
} ChunkKey;

static int CompareChunkKeys(const void *pa, const void *pb)
{
  const ChunkKey *a = (const ChunkKey *)pa, *b = (const ChunkKey *)pb;
  for (int i = 0; i < 3; i++)
    if (a->cell[i] != b->cell[i]) return a->cell[i] < b->cell[i] ? -1 : 1;
  return a->le < b->le ? -1 : a->le > b->le;
}

/* The chunks of -jacobian_direct: this rank's elements cut into nchunk slabs of equal count
   along the axis in which their reference centroids spread most, and ordered within a slab
   along that axis, then the next widest, then the narrowest (on the guide strip: column by
   column, each column's cells across its width and depth).  Few elements then reach the rows of
   two chunks (those go through the COO array), and the rows an element adds to were mostly
   touched by the elements just before it, so they are still in cache.  From the reference
   configuration, so that a restart finds the same chunks and the same sums. */
static PetscErrorCode ChunkElements(TdSolver s)
{
  TdModel    m  = s->model;
  PetscInt   nl = s->nelem_local, axis[3] = {0, 1, 2};
  PetscReal  lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, h = PETSC_MAX_REAL, *cen;
  ChunkKey  *key;
  PetscFunctionBegin;
  s->nchunk = PetscMax(1, PetscMin(s->nchunk, nl));
  PetscCall(PetscMalloc3(s->nchunk + 1, &s->chunk_start, PetscMax(nl, 1), &s->chunk_elem, PetscMax(nl, 1), &s->elem_chunk));
  PetscCall(PetscMalloc2(3 * PetscMax(nl, 1), &cen, PetscMax(nl, 1), &key));
  for (PetscInt le = 0; le < nl; le++) {
    const PetscInt          e    = s->elem_local[le];
    const TdBody           *body = &m->bodies[m->element_body[e]];
    const Ancf3843Geometry *geo  = &body->geometry[body->cell_geometry[m->element_cell[e]]];
    PetscReal               eq[NDOF];
    TdModelElementGather(m, e, m->q_ref, PETSC_TRUE, eq);
    for (PetscInt i = 0; i < 3; i++) {
      cen[3 * le + i] = 0;
      for (PetscInt n = 0; n < ANCF3843_NODES; n++) cen[3 * le + i] += eq[TD_NODE_DOF * n + i] / ANCF3843_NODES;
      lo[i] = PetscMin(lo[i], cen[3 * le + i]);
      hi[i] = PetscMax(hi[i], cen[3 * le + i]);
    }
    h = PetscMin(h, PetscMin(geo->a, PetscMin(geo->b, geo->c)) / 4);
  }
  for (PetscInt i = 0; i < 3; i++) /* widest spread first */
    for (PetscInt j = i + 1; j < 3; j++)
      if (hi[axis[j]] - lo[axis[j]] > hi[axis[i]] - lo[axis[i]]) {
        const PetscInt t = axis[i];
        axis[i]          = axis[j];
        axis[j]          = t;
      }
  for (PetscInt le = 0; le < nl; le++) {
    for (PetscInt i = 0; i < 3; i++) key[le].cell[i] = (PetscInt64)PetscFloorReal((cen[3 * le + axis[i]] - lo[axis[i]]) / h + 0.5);
    key[le].le = le;
  }
  qsort(key, (size_t)nl, sizeof *key, CompareChunkKeys);
  s->chunk_start[0] = 0;
  for (PetscInt c = 0; c < s->nchunk; c++) s->chunk_start[c + 1] = (PetscInt)(((PetscInt64)nl * (c + 1)) / s->nchunk);
  for (PetscInt c = 0; c < s->nchunk; c++)
    for (PetscInt k = s->chunk_start[c]; k < s->chunk_start[c + 1]; k++) {
      s->chunk_elem[k]               = key[k].le;
      s->elem_chunk[key[k].le] = c;
    }
  PetscCall(PetscFree2(cen, key));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverCreate(TdModel model, TdSolver *out)
{
  TdSolver    s;
  PetscMPIInt rank, size;
  PetscInt    nfull;
  PetscFunctionBegin;
  if (!td_events_registered) {
    PetscClassId id;
    PetscCall(PetscClassIdRegister("tribodyn", &id));
    PetscCall(PetscLogEventRegister("TdElementForces", id, &TD_ElementForces));
    PetscCall(PetscLogEventRegister("TdElementTangent", id, &TD_ElementTangents));
    PetscCall(PetscLogEventRegister("TdFilmResidual", id, &TD_FilmResidual));
    PetscCall(PetscLogEventRegister("TdFilmJacobian", id, &TD_FilmJacobian));
    PetscCall(PetscLogEventRegister("TdFilmPattern", id, &TD_FilmPattern));
    PetscCall(PetscLogEventRegister("TdJacobianValues", id, &TD_JacobianValues));
    PetscCall(PetscLogEventRegister("TdJacobianPattern", id, &TD_JacobianPattern));
    td_events_registered = PETSC_TRUE;
  }
  PetscCall(PetscNew(&s));
  s->comm  = model->comm;
  s->model = model;
  nfull    = model->nfull;
  s->N     = model->row_offset + model->nrows;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  PetscCall(AllocFull(nfull, &s->q));
  PetscCall(AllocFull(nfull, &s->v));
  PetscCall(AllocFull(nfull, &s->a));
  PetscCall(AllocFull(nfull, &s->qdd));
  PetscCall(AllocFull(nfull, &s->q1));
  PetscCall(AllocFull(nfull, &s->v1));
  PetscCall(AllocFull(nfull, &s->a1));
  PetscCall(AllocFull(nfull, &s->qdd1));
  PetscCall(AllocFull(model->nrows, &s->lambda));
  s->nthreads = TdThreadsAvailable(); /* the governor may be running fewer for now */
  PetscCall(PetscMalloc1(s->nthreads, &s->work));
  PetscCall(PetscMalloc1((size_t)s->nthreads * PetscMax(nfull, 1), &s->thread_r));
  PetscCall(PetscMalloc1((size_t)s->nthreads * NDOF * NDOF, &s->rot_work));
  PetscCall(PetscMalloc1((size_t)s->nthreads * NDOF * NDOF, &s->tangent_buf));
  PetscCall(AllocFull(model->row_offset + model->nrows, &s->film_r));
  PetscCall(AllocFull(3 * model->nfilms, &s->film_load));
  PetscCall(AllocFull(3 * model->nfilms, &s->film_friction));
  PetscCall(AllocFull(s->N, &s->film_load_u));
  PetscCall(AllocFull(s->N, &s->film_jac_u));
  s->film_load_t = PETSC_NINFINITY;

  PetscCall(LayOutUnknowns(s));
  PetscCall(VecDuplicate(s->Useq, &s->Rseq));
  PetscCall(TdOptionsBool(NULL, "threaded_jacobian", "multiply by the Jacobian (every Krylov iteration) over runs of consecutive columns, on the OpenMP threads (on several ranks: each rank's diagonal and off-diagonal blocks); false: PETSc's product", PETSC_TRUE, &s->threaded_jacobian, NULL));
  PetscCall(TdOptionsBool(NULL, "jacobian_coo_map", "build the Jacobian's pattern and sum its COO values (every Jacobian) by tribodyn's own map, on the OpenMP threads, on any number of ranks; false: PETSc's MatSetPreallocationCOO and MatSetValuesCOO", PETSC_TRUE, &s->coo_map_on, NULL));
  PetscCall(TdOptionsBool(NULL, "jacobian_direct", "with -jacobian_coo_map: add each element's tangent straight into the Jacobian from cache, instead of writing it to the COO array and reading it back (elements that reach rows of other chunks or ranks still go through the array)", PETSC_TRUE, &s->jacobian_direct, NULL));
  s->nchunk = s->nthreads > 1 ? 4 * s->nthreads : 1;
  PetscCall(TdOptionsInt(NULL, "jacobian_direct_chunks", "chunks of nearby elements for -jacobian_direct, each added by one thread (default: 1 on one thread, else 4 per thread); fewer chunks send fewer elements through the COO array, more share the work better", s->nchunk, &s->nchunk, NULL));
  PetscCheck(s->nchunk >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-jacobian_direct_chunks %" PetscInt_FMT ": give at least 1", s->nchunk);
  if (!s->coo_map_on) s->jacobian_direct = PETSC_FALSE;
  PetscCall(ChunkElements(s));

  if (model->nfilms) {
    PetscBool changed;
    PetscCall(TdFilmsCouplingUpdate(model, 0, model->q_ref, s->v, &changed, NULL));
  }
  for (PetscInt fi = 0; fi < model->nfilms; fi++) {
    /* Swift-Stieber films: the bound p_cav/p_ref of each pressure unknown (-inf elsewhere), for
       the semismooth rows or the VI bounds (TdSolverSetFromOptions); BuildJacobian records the
       film rows' diagonal slots when it is set */
    const TdFilm *f = &model->films[fi];
    if (f->cavitation != TD_CAVITATION_SWIFT_STIEBER) continue;
    if (!s->ncp_shift) {
      PetscCall(PetscMalloc1(s->N, &s->ncp_shift));
      PetscCall(PetscCalloc1(s->N, &s->ncp_active));
      PetscCall(PetscCalloc1(s->N, &s->ncp_active_pc));
      for (PetscInt k = 0; k < s->N; k++) s->ncp_shift[k] = PETSC_NINFINITY;
    }
    for (PetscInt k = f->first_unknown; k < f->first_unknown + f->nunknowns; k++) s->ncp_shift[k] = f->p_cav / f->p_ref;
  }
  for (PetscInt fi = 0; fi < model->nfilms; fi++) {
    /* JFO films: their film fractions' complementarity rows (F18), -<f>_theta0 at the start */
    const TdFilm *f = &model->films[fi];
    if (f->cavitation != TD_CAVITATION_JFO) continue;
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) s->njfo += f->theta_unknown[nd] >= 0;
  }
  if (s->njfo) {
    PetscInt lo, hi, i = 0;
    PetscCall(PetscMalloc4(s->njfo, &s->jfo_theta, s->njfo, &s->jfo_p, s->njfo, &s->jfo_shift, s->njfo, &s->jfo_active));
    PetscCall(PetscCalloc1(s->njfo, &s->jfo_active_pc));
    PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
    for (PetscInt fi = 0; fi < model->nfilms; fi++) {
      const TdFilm *f = &model->films[fi];
      if (f->cavitation != TD_CAVITATION_JFO) continue;
      for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) {
        const PetscInt kt = f->theta_unknown[nd];
        if (kt < 0) continue;
        s->jfo_theta[i]  = kt;
        s->jfo_p[i]      = f->unknown[nd];
        s->jfo_shift[i]  = f->p_cav / f->p_ref;
        s->jfo_active[i] = PETSC_FALSE;
        if (s->to_petsc[kt] >= lo && s->to_petsc[kt] < hi) PetscCall(VecSetValue(s->U, s->to_petsc[kt], f->theta0, INSERT_VALUES));
        i++;
      }
    }
    PetscCall(VecAssemblyBegin(s->U));
    PetscCall(VecAssemblyEnd(s->U));
  }
  if (s->ncp_shift) {
    for (PetscInt k = 0; k < s->N; k++)
      if (s->ncp_shift[k] > PETSC_NINFINITY) s->nncp++;
    PetscCall(PetscMalloc1(s->nncp, &s->ncp_rows));
    for (PetscInt k = 0, i = 0; k < s->N; k++)
      if (s->ncp_shift[k] > PETSC_NINFINITY) s->ncp_rows[i++] = k;
  }
  PetscCall(TdSolverBuildJacobian(s));
  PetscCall(SNESCreate(s->comm, &s->snes));
  PetscCall(SNESSetFunction(s->snes, s->R, TdSolverResidual, s));
  PetscCall(SNESSetJacobian(s->snes, s->J, s->J, TdSolverJacobian, s));
  galpha_params(1.0, &s->ga);
  s->max_halvings = 6;
  s->extrapolate_pressure = PETSC_TRUE;
  *out            = s;
  PetscFunctionReturn(0);
}

static PetscErrorCode ConvergenceTest(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx);
static PetscErrorCode KrylovBlockTest(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx);

/*
  The start of each Krylov solve (KSP pre-solve hook).  Its initial guess, when the KSP takes a
  nonzero one (-newton_initial_guess): the predictor's error changes smoothly from step to step,
  and so does the Newton correction that removes it, so the first Newton iteration of a step
  starts GMRES from the last step's correction and GMRES only has to find their difference;
  every other solve starts from zero.  With -krylov_recycle, the last solve's pairs are taken
  into the preconditioner (krylov_recycle.c).
*/
static PetscErrorCode KrylovPreSolve(KSP ksp, Vec b, Vec x, void *ctx)
{
  TdSolver s = (TdSolver)ctx;
  PetscInt it;
  PetscFunctionBegin;
  PetscCall(SNESGetIterationNumber(s->snes, &it));
  PetscCall(TdSolverRecycleCommit(s, it));
  if (!s->newton_guess) PetscFunctionReturn(0);
  if (it == 0 && s->have_guess && s->mode == TD_MODE_DYNAMIC && s->guess_dt == s->step_dt && !s->in_test) PetscCall(VecCopy(s->Uguess, x));
  else PetscCall(VecZeroEntries(x));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverSetFromOptions(TdSolver s)
{
  KSP       ksp;
  PC        pc;
  PetscReal rho_inf = 0.9, atol;
  PetscFunctionBegin;
  PetscCall(TdOptionsReal(NULL, "rho_inf", "generalised-alpha spectral radius at infinite frequency, in [0, 1]", NULL, rho_inf, &rho_inf, NULL));
  if (!(rho_inf >= 0 && rho_inf <= 1)) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "Option -rho_inf = %g: the spectral radius must lie in [0, 1]", (double)rho_inf);
  galpha_params(rho_inf, &s->ga);
  PetscCall(TdOptionsInt(NULL, "test_jacobian", "check the first N Newton Jacobians against central differences of the residual and print ||J - J_fd||_F/||J||_F (0: off)", 0, &s->test_jacobian, NULL));
  s->test_jacobian_step = 1e-6;
  PetscCall(TdOptionsRealPositive(NULL, "test_jacobian_step", "relative step eps of -test_jacobian's central differences, h_j = eps max(|U_j|, 1e-2) (a smooth residual's error falls as eps^2, a kink's does not)", NULL, s->test_jacobian_step, PETSC_TRUE, &s->test_jacobian_step, NULL));
  PetscCall(TdOptionsReal(NULL, "test_jacobian_time", "start the -test_jacobian checks with the first time step that ends after this time (0: with the first Jacobian, also of the initial acceleration solve)", "s", s->test_jacobian_time, &s->test_jacobian_time, NULL));
  {
    PetscInt n = 0;
    PetscCall(TdOptionsBool(NULL, "extrapolate_pressure", "start each step's Newton solve from film pressures extrapolated linearly from the last step (false: from the last pressures)", s->extrapolate_pressure, &s->extrapolate_pressure, NULL));
    PetscCall(TdSolverFilmSlice(s, NULL, &n, NULL));
    if (n && !s->film_u_start) PetscCall(PetscMalloc2(n, &s->film_u_start, n, &s->film_u_rate));
  }
  PetscCall(TdOptionsInt(NULL, "max_step_halvings", "times a step whose Newton solve fails is halved before the run stops", s->max_halvings, &s->max_halvings, NULL));
  if (s->max_halvings < 0) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "Option -max_step_halvings must not be negative");
  PetscCall(TdOptionsInt(NULL, "jfo_refactor_rows", "JFO films: keep the kept LU while at most this many film-fraction rows have changed branch since it was factored (0: factor at every change)", 8, &s->jfo_refactor_rows, NULL));
  PetscCall(TdOptionsInt(NULL, "refactor_its", "Newton-Krylov: keep the LU of an earlier Jacobian as the preconditioner while the Krylov solves take at most this many iterations (0: factor every Jacobian)", 12, &s->refactor_its, NULL));
  if (s->refactor_its < 0) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "Option -refactor_its must not be negative (0 factors every Jacobian)");
  /* Defaults that work out of the box; every -snes_/-ksp_/-pc_ option overrides them.
     Newton-Krylov: (flexible) GMRES, right-preconditioned (its test is on the true residual), with MUMPS LU
     of the Jacobian as the preconditioner.  The LU is kept across Newton iterations and steps
     while GMRES converges within -refactor_its iterations: the structures are nearly linear, so
     an earlier factorisation preconditions the current Jacobian well, and the Jacobian itself is
     assembled fresh every iteration, so Newton keeps its quadratic convergence. */
  PetscCall(SNESGetKSP(s->snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPFGMRES)); /* right-preconditioned; keeping the preconditioned
                                            directions saves the extra solve at the end */
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(KSPGMRESSetRestart(ksp, 60));
  PetscCall(KSPSetTolerances(ksp, 1e-10, 1e-50, PETSC_DEFAULT, 60));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  {
    /* the LU in single precision (mumps_single.h), half the bytes for the triangular solves of
       every Krylov iteration; it preconditions as well as the double one.  On several ranks too:
       2 ranks, lubricated 0-5 ms, a solve 1.95 ms against 2.9 ms for MUMPS's double factor */
    PetscCall(TdMumpsSingleRegister());
    /* -pc_type ancf_amg (ancf_amg.c), -pc_type coupled_blocks (coupled_blocks.c) */
    PetscCall(TdSolverPCTypesUse(s));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPSSINGLE));
  }
  PetscCall(SNESSetMaxLinearSolveFailures(s->snes, 0));
  atol = 1e-10 * PetscMax(s->model->force_scale, 1e-12);
  for (PetscInt l = 0; l < s->model->nloads; l++) {
    const TdLoad    *load = &s->model->loads[l];
    const PetscReal *f    = load->force;
    /* a pressure's force scale: |p| times the face's area */
    atol = PetscMax(atol, 1e-10 * (load->type == TD_LOAD_PRESSURE ? PetscAbsReal(load->pressure) * load->area : PetscSqrtReal(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) * (load->type == TD_LOAD_TRACTION ? load->area : 1)));
  }
  PetscCall(SNESSetTolerances(s->snes, atol, 1e-9, 1e-14, 25, 10000));
  PetscCall(TdOptionsBool(NULL, "monitor_blocks", "print the norms of the residual blocks (bodies, films, drives) at every Newton iteration", PETSC_FALSE, &s->monitor_blocks, NULL));
  /* Film rows are dimensionless (-R/scale, scale = rho h_ref^3 p_ref / 12 mu): a row of size
     eps is a pressure error of about eps p_ref at that node.  1e-9 per node, i.e. 1e-9 of the
     pressure scale over the film, matches the body block's floor below (1e-9 of the film's force
     scale p_ref x area); the relative test resolves small films further. */
  s->block_atol[0] = s->block_atol[2] = atol;
  {
    PetscInt nfilm = 0;
    for (PetscInt fi = 0; fi < s->model->nfilms; fi++) nfilm += s->model->films[fi].nunknowns;
    s->block_atol[1] = 1e-9 * PetscSqrtReal((PetscReal)PetscMax(nfilm, 1));
  }
  /* with a film the body forces are of the film's scale p_ref x area: their rounding floor too */
  for (PetscInt fi = 0; fi < s->model->nfilms; fi++) {
    const TdFilm *f = &s->model->films[fi];
    s->block_atol[0] = PetscMax(s->block_atol[0], 1e-9 * f->p_ref * f->area);
  }
  PetscCall(SNESSetFromOptions(s->snes));
  /* after SNESSetFromOptions: a VI type chosen there installs its own test */
  PetscCall(SNESSetConvergenceTest(s->snes, ConvergenceTest, s, NULL));
  {
    /* Full Newton steps (basic): in a total-Lagrangian structure the first step of a bending
       load stretches the rotated fibres (by theta^2/2), so the residual norm rises before
       Newton converges quadratically and a backtracking search (bt) stalls; the critical-point
       search (cp) assumes a symmetric Jacobian and stops moving on the film-body coupling.
       Iterates outside the film's domain (h <= 0, a point off its surface) are domain errors,
       and a failed step is halved by the time stepper.  -snes_linesearch_type overrides.  Set after
       SNESSetFromOptions: a VI type chosen there configures its own (bt) line search. */
    SNESLineSearch ls;
    PetscBool      given;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-snes_linesearch_type", &given));
    if (!given) {
      PetscCall(SNESGetLineSearch(s->snes, &ls));
      PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHBASIC));
    }
  }
  {
    /* Swift-Stieber cavitation (formulation §2): the complementarity p >= p_cav, F >= 0,
       (p - p_cav) F = 0 on the pressure unknowns.  Default: semismooth Newton in the full space
       (the film row becomes min(p - p_cav, F), whose Jacobian row is the film row or the unit
       row), so the matrix keeps its pattern and the factorisation can be reused.  With -snes_type
       vinewtonrsls (or vinewtonssls) PETSc's VI solver takes bounds instead; it factors the
       reduced matrix of the inactive set at every iteration. */
    const PetscBool cav = s->ncp_shift ? PETSC_TRUE : PETSC_FALSE; /* set in TdSolverCreate */
    PetscCall(PetscObjectTypeCompareAny((PetscObject)s->snes, &s->vi, SNESVINEWTONRSLS, SNESVINEWTONSSLS, ""));
    s->ncp = cav && !s->vi ? PETSC_TRUE : PETSC_FALSE;
    if (cav && s->vi) {
      Vec          lo, up;
      PetscInt     rlo, rhi;
      PetscScalar *l;
      PetscCall(VecDuplicate(s->U, &lo));
      PetscCall(VecDuplicate(s->U, &up));
      PetscCall(VecSet(up, PETSC_INFINITY));
      PetscCall(VecGetOwnershipRange(lo, &rlo, &rhi));
      PetscCall(VecGetArray(lo, &l));
      for (PetscInt k = 0; k < rhi - rlo; k++) l[k] = s->ncp_shift[s->owned[k]];
      PetscCall(VecRestoreArray(lo, &l));
      PetscCall(SNESVISetVariableBounds(s->snes, lo, up));
      PetscCall(VecDestroy(&lo));
      PetscCall(VecDestroy(&up));
    }
    {
      /* the factorisation is reused only under a Krylov method (a direct solve with an old
         factor would give wrong Newton steps) and in the full space (a VI solver changes the
         size of its reduced system) */
      PetscBool preonly;
      PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
      if (preonly) {
        /* a direct solve takes the factor's solution as the Newton step: it must be the double
           LU, not the single-precision preconditioner (about 1e-7 relative) */
        PC            pc1;
        PetscBool     islu, given;
        MatSolverType st;
        PetscCall(KSPGetPC(ksp, &pc1));
        PetscCall(PetscObjectTypeCompare((PetscObject)pc1, PCLU, &islu));
        if (islu) {
          PetscCall(PCFactorGetMatSolverType(pc1, &st));
          PetscCall(PetscStrcmp(st, MATSOLVERMUMPSSINGLE, &islu));
        }
        if (islu) {
          PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_factor_mat_solver_type", &given));
          PetscCheck(!given, s->comm, PETSC_ERR_USER_INPUT, "-pc_factor_mat_solver_type mumps_single is a single-precision preconditioner for a Krylov method; with -ksp_type preonly use -pc_factor_mat_solver_type mumps");
          PetscCall(PCReset(pc1)); /* a factor may exist already (the initial accelerations) */
          PetscCall(PCFactorSetMatSolverType(pc1, MATSOLVERMUMPS));
        }
      }
      s->pc_reuse_ok = !preonly && !s->vi && s->refactor_its > 0 ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(TdOptionsBool(NULL, "newton_initial_guess", "start the first Krylov solve of each step from the last step's Newton correction (false: from zero)", PETSC_TRUE, &s->newton_guess, NULL));
      if (preonly || s->vi) s->newton_guess = PETSC_FALSE; /* a direct solve needs no guess; a VI solver changes the system's size */
      if (s->newton_guess) PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    }
  }
  /* the kept LU's shell: corrected by the film block for cavitating films
     (film_correction.c), by the last solve's pairs (krylov_recycle.c) */
  PetscCall(TdSolverKeptLUSetUp(s, ksp));
  if (s->newton_guess || s->recycle_max) PetscCall(KSPSetPreSolve(ksp, KrylovPreSolve, s));
  PetscCall(KSPGetPC(ksp, &pc));
  /* -pc_type fieldsplit: the named blocks; fieldsplit, gamg or ml: the bodies' rigid-body
     modes as the near-null space (preconditioner.c) */
  PetscCall(TdSolverSetUpPreconditioner(s, pc));
  {
    PetscReal atol_opt, rtol;
    PetscCall(SNESGetTolerances(s->snes, &atol_opt, &rtol, NULL, NULL, NULL));
    s->block_rtol = rtol;
    if (atol_opt != atol) s->block_atol[0] = s->block_atol[2] = atol_opt; /* -snes_atol given: it rules */
    PetscCall(PetscOptionsHasName(NULL, NULL, "-ksp_atol", &s->ksp_atol_given));
  }
  {
    /* the Krylov test by blocks (KrylovBlockTest): for a Krylov method whose norm is the true
       residual's (right preconditioning, the default), in the full space (a VI solver solves a
       reduced system) and unless -ksp_atol sets the Krylov tolerance */
    KSPNormType nt;
    PetscBool   preonly, usable;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
    PetscCall(KSPGetNormType(ksp, &nt));
    usable               = !s->vi && !s->ksp_atol_given && nt == KSP_NORM_UNPRECONDITIONED ? PETSC_TRUE : PETSC_FALSE;
    s->krylov_block_test = usable && !preonly ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(TdOptionsBool(NULL, "krylov_block_test", "Krylov solves of time steps stop once each residual block (bodies, films, drives) is below its share of its own Newton tolerance (-krylov_block_fraction; false, and always in static solves: once the whole residual is below a tenth of the smallest); needs right preconditioning and no -ksp_atol", s->krylov_block_test, &s->krylov_block_test, NULL));
    if (s->krylov_block_test) {
      PetscCheck(usable, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_block_test needs a Krylov method that measures the true residual (right preconditioning: -ksp_pc_side right), the full-space Newton (not a -snes_type vi* solver) and no -ksp_atol; drop it or set -krylov_block_test false");
      if (!s->krylov_default_ctx) {
        PetscCall(KSPConvergedDefaultCreate(&s->krylov_default_ctx));
        PetscCall(VecDuplicate(s->U, &s->krylov_t));
        PetscCall(VecDuplicate(s->U, &s->krylov_r));
      }
      PetscCall(KSPSetConvergenceTest(ksp, KrylovBlockTest, s, NULL));
    }
    {
      /* A tenth leaves the body rows a linear residual of up to 1.6e-7 N on the paper's meshes,
         which the converged positions keep (Newton stops below 1.6e-6 N after that step): where
         each Krylov solve stops, which the ranks and the kept LU's ordering change, moves the far
         guide sensor's axial acceleration by 1.3e-8 of its peak.  0.001 for the bodies holds
         those runs within 4e-9 of each other, free on the paper's case but 14 % dearer over the
         finest level (README, "How closely one rank reproduces itself"). */
      const PetscReal def[3] = {0.1, 0.1, 0.1};
      PetscCall(TdOptionsRealArray(NULL, "krylov_block_fraction", "with -krylov_block_test: the fraction of its Newton tolerance below which each block's linear residual (bodies, films, drives) ends a Krylov solve, in (0, 1]", NULL, 3, def, s->krylov_block_fraction, NULL));
      for (PetscInt b = 0; b < 3; b++) PetscCheck(s->krylov_block_fraction[b] > 0 && s->krylov_block_fraction[b] <= 1, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_block_fraction: %g is not a fraction; give three numbers in (0, 1] (bodies, films, drives), e.g. 0.1,0.1,0.1", (double)s->krylov_block_fraction[b]);
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverDestroy(TdSolver *solver)
{
  TdSolver s = *solver;
  PetscFunctionBegin;
  if (!s) PetscFunctionReturn(0);
  PetscCall(SNESDestroy(&s->snes));
  PetscCall(TdSolverPCTypesForget(s));
  if (s->krylov_default_ctx) PetscCall(KSPConvergedDefaultDestroy(s->krylov_default_ctx));
  PetscCall(VecDestroy(&s->krylov_t));
  PetscCall(VecDestroy(&s->krylov_r));
  PetscCall(TdSolverKeptLUDestroy(s));
  PetscCall(MatDestroy(&s->J));
  PetscCall(VecDestroy(&s->U));
  PetscCall(VecDestroy(&s->R));
  PetscCall(VecDestroy(&s->U0));
  PetscCall(VecDestroy(&s->Uguess));
  PetscCall(VecDestroy(&s->Useq));
  PetscCall(VecDestroy(&s->Rseq));
  PetscCall(VecScatterDestroy(&s->toall));
  PetscCall(TdSolverGhostsDestroy(s));
  PetscCall(VecDestroy(&s->ck_natural));
  PetscCall(VecDestroy(&s->ck_full));
  PetscCall(VecScatterDestroy(&s->ck_tonatural));
  PetscCall(VecScatterDestroy(&s->ck_tofull));
  PetscCall(PetscFree(s->coo_v));
  PetscCall(PetscFree(s->pc_mat_v));
  PetscCall(PetscFree3(s->chunk_start, s->chunk_elem, s->elem_chunk));
  PetscCall(PetscFree(s->tangent_buf));
  PetscCall(VecDestroy(&s->floor_u));
  PetscCall(VecDestroy(&s->floor_r));
  PetscCall(PetscFree(s->q));
  PetscCall(PetscFree(s->v));
  PetscCall(PetscFree(s->a));
  PetscCall(PetscFree(s->qdd));
  PetscCall(PetscFree(s->q1));
  PetscCall(PetscFree(s->v1));
  PetscCall(PetscFree(s->a1));
  PetscCall(PetscFree(s->qdd1));
  PetscCall(PetscFree(s->lambda));
  PetscCall(PetscFree(s->work));
  PetscCall(PetscFree(s->thread_r));
  PetscCall(PetscFree(s->rot_work));
  PetscCall(PetscFree(s->film_r));
  PetscCall(PetscFree(s->film_reduce));
  PetscCall(TdSolverFilmRowsDestroy(s));
  PetscCall(PetscFree(s->film_jac_u));
  PetscCall(TdCOOMapDestroy(&s->coo_map));
  PetscCall(PetscFree(s->film_load));
  PetscCall(PetscFree(s->film_friction));
  PetscCall(PetscFree(s->film_load_u));
  PetscCall(PetscFree4(s->jfo_theta, s->jfo_p, s->jfo_shift, s->jfo_active));
  PetscCall(PetscFree(s->jfo_active_pc));
  PetscCall(PetscFree(s->ncp_shift));
  PetscCall(PetscFree(s->ncp_active));
  PetscCall(PetscFree(s->ncp_active_pc));
  PetscCall(PetscFree2(s->film_u_start, s->film_u_rate));
  PetscCall(PetscFree(s->film_coo_rows));
  PetscCall(PetscFree(s->ncp_rows));
  PetscCall(PetscFree2(s->element_rank, s->to_petsc));
  PetscCall(PetscFree(s->owned));
  PetscCall(PetscFree(s->elem_local));
  PetscCall(PetscFree(s));
  *solver = NULL;
  PetscFunctionReturn(0);
}

/* Jacobian coefficients of the current mode: c_M (inertia), c_e (stiffness), c_v (damping). */
static void ModeCoefficients(TdSolver s, PetscReal *cM, PetscReal *ce, PetscReal *cv)
{
  switch (s->mode) {
  case TD_MODE_DYNAMIC:
    *cM = galpha_mass_coefficient(&s->ga, s->step_dt);
    *ce = 1;
    *cv = galpha_velocity_coefficient(&s->ga, s->step_dt);
    break;
  case TD_MODE_ACCELERATION:
    *cM = 1;
    *ce = 0;
    *cv = 0;
    break;
  case TD_MODE_STATIC:
    *cM = 0;
    *ce = 1;
    *cv = 0;
    break;
  }
}

/* The iterate's q1, v1, qdd1 (full vectors) from the whole unknown vector u. */
static void IterateFromUnknowns(TdSolver s, const PetscScalar u[])
{
  TdModel         m = s->model;
  const PetscInt  n = m->nfull;
  switch (s->mode) {
  case TD_MODE_DYNAMIC:
    for (PetscInt i = 0; i < n; i++) s->q1[i] = m->free_index[i] >= 0 ? u[m->free_index[i]] : m->q_ref[i];
    galpha_rates(&s->ga, s->step_dt, n, s->q1, s->q, s->v, s->a, s->qdd, s->v1, s->a1, s->qdd1);
    break;
  case TD_MODE_ACCELERATION:
    for (PetscInt i = 0; i < n; i++) {
      s->q1[i]   = s->q[i];
      s->v1[i]   = s->v[i];
      s->qdd1[i] = m->free_index[i] >= 0 ? u[m->free_index[i]] : 0;
      s->a1[i]   = s->qdd1[i];
    }
    break;
  case TD_MODE_STATIC:
    for (PetscInt i = 0; i < n; i++) {
      s->q1[i] = m->free_index[i] >= 0 ? u[m->free_index[i]] : m->q_ref[i];
      s->v1[i] = s->qdd1[i] = s->a1[i] = 0;
    }
    break;
  }
}

/* The iterate of the distributed vector U: U to every rank (Useq, which keeps it; whole, or
   only each rank's ghost set), then IterateFromUnknowns. */
static PetscErrorCode IterateFromVec(TdSolver s, Vec U, PetscBool whole)
{
  const PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverIterateScatter(s, U, whole));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  IterateFromUnknowns(s, u);
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestJacobianCentral(TdSolver s, SNES snes, Vec U, Mat J);

static PetscReal StepTime(TdSolver s) { return s->mode == TD_MODE_DYNAMIC ? s->t + s->step_dt : s->t; }

/* JFO rows (F18): whether each row's pressure branch is the smaller.  Ties take the film
   fraction's branch (full film): a film at rest with p = p_cav and theta = 1 everywhere (a
   journal starting from rest with p_cav at ambient) then has theta = 1 held and its pressures
   set by the full-film rows, which the ambient edges make regular; the pressure branch would
   leave theta to the mass rows, singular without transport or time term (the initial
   accelerations, statics). */
static void JfoActiveSet(TdSolver s, const PetscScalar u[])
{
  for (PetscInt i = 0; i < s->njfo; i++) s->jfo_active[i] = PetscRealPart(u[s->jfo_p[i]]) - s->jfo_shift[i] < 1 - PetscRealPart(u[s->jfo_theta[i]]) ? PETSC_TRUE : PETSC_FALSE;
}

PetscErrorCode TdSolverFilmsAssemble(TdSolver s, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscScalar u[], PetscReal ce, PetscReal cv, PetscReal rfull[], PetscScalar r[], PetscScalar *jac, PetscReal *load, PetscReal *friction, PetscBool *ok)
{
  TdModel        m  = s->model;
  const PetscInt nf = m->nfilms;
  PetscMPIInt    size, rank;
  PetscReal     *buf;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  /* JFO films: the time term of the film fractions, (theta - theta_old)/dt in a step, none in a
     quasi-static solve (the initial accelerations, statics) */
  for (PetscInt fi = 0; fi < nf; fi++) m->films[fi].inv_dt = s->mode == TD_MODE_DYNAMIC && s->step_dt > 0 ? 1 / s->step_dt : 0;
  if (!s->film_reduce) PetscCall(PetscMalloc1(6 * nf + 2, &s->film_reduce));
  buf            = s->film_reduce;
  m->ghost_miss = PETSC_FALSE;
  PetscCall(TdFilmsAssemble(m, t, q, v, u, ce, cv, rfull, r, jac, buf, buf + 3 * nf, ok));
  if (size > 1) {
    /* the film rows summed at their owners (a node's quads may lie on two ranks; film_rows.c),
       and one sum over the ranks of the loads and frictions, the count of ranks whose points
       left the film's domain, and of those whose points came to faces outside their ghost sets
       (model.h's ghost_miss: the caller assembles again with more of the iterate, and no
       failure is reported) */
    PetscInt fmiss = -1;
    PetscCall(TdSolverFilmRowsToOwners(s, r));
    buf[6 * nf]     = *ok ? 0 : 1;
    buf[6 * nf + 1] = m->ghost_miss ? 1 : 0;
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, buf, 6 * nf + 2, MPIU_REAL, MPIU_SUM, s->comm));
    *ok           = buf[6 * nf] > 0 ? PETSC_FALSE : PETSC_TRUE;
    m->ghost_miss = buf[6 * nf + 1] > 0 ? PETSC_TRUE : PETSC_FALSE;
    if (!*ok && !m->ghost_miss) {
      /* the message of the lowest rank that met the failure, on every rank */
      PetscMPIInt src;
      PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
      for (PetscInt fi = 0; fi < nf && fmiss < 0; fi++)
        if (m->films[fi].miss[0]) fmiss = fi;
      src = fmiss >= 0 ? rank : size;
      PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &src, 1, MPI_INT, MPI_MIN, s->comm));
      if (src < size) {
        PetscCallMPI(MPI_Bcast(&fmiss, 1, MPIU_INT, src, s->comm));
        PetscCallMPI(MPI_Bcast(m->films[fmiss].miss, sizeof m->films[fmiss].miss, MPI_CHAR, src, s->comm));
      }
    }
  }
  if (load) PetscCall(PetscArraycpy(load, buf, 3 * nf));
  if (friction) PetscCall(PetscArraycpy(friction, buf + 3 * nf, 3 * nf));
  PetscFunctionReturn(0);
}

/* A spring's ends at the iterate: positions and velocities (the second end fixed for ground). */
static void SpringEnds(TdSolver s, const TdLoad *load, PetscReal xa[3], PetscReal xb[3], PetscReal va[3], PetscReal vb[3])
{
  TdModel m = s->model;
  TdModelPointValue(m, &load->point, s->q1, xa);
  TdModelPointValue(m, &load->point, s->v1, va);
  if (load->body2 >= 0) {
    TdModelPointValue(m, &load->point2, s->q1, xb);
    TdModelPointValue(m, &load->point2, s->v1, vb);
  } else
    for (PetscInt i = 0; i < 3; i++) {
      xb[i] = load->ground[i];
      vb[i] = 0;
    }
}

/* A torque's moment in this solve: its profile at t, or in a static solve its full value times
   the load factor. */
static void TorqueAt(TdSolver s, const TdLoad *load, PetscReal t, PetscReal M[3])
{
  if (s->mode == TD_MODE_STATIC)
    for (PetscInt i = 0; i < 3; i++) M[i] = s->load_factor * load->force[i];
  else TdLoadForce(load, t, M);
}

/* A pressure load's value in this solve: its profile at t, or in a static solve its full value
   times the load factor (as the point loads). */
static inline PetscReal PressureAt(TdSolver s, const TdLoad *load, PetscReal t)
{
  return s->mode == TD_MODE_STATIC ? s->load_factor * load->pressure : TdLoadPressure(load, t);
}

/* A moment M applied at material point mp through its gradients (F19): subtracts
   Q_k = sum_j G_j,k (1/2) M x r_,j, r_,j from the full coordinates q, from the residual rf. */
static void AddTorque(const TdMaterialPoint *mp, const PetscReal M[3], const PetscReal q[], PetscReal rf[])
{
  PetscReal rj[3][3] = {{0}};
  for (PetscInt j = 0; j < 3; j++)
    for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
      for (PetscInt i = 0; i < 3; i++) rj[j][i] += mp->G[j][k] * q[mp->coord[3 * k + i]];
  for (PetscInt j = 0; j < 3; j++) {
    PetscReal h[3];
    h[0] = 0.5 * (M[1] * rj[j][2] - M[2] * rj[j][1]);
    h[1] = 0.5 * (M[2] * rj[j][0] - M[0] * rj[j][2]);
    h[2] = 0.5 * (M[0] * rj[j][1] - M[1] * rj[j][0]);
    for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
      for (PetscInt i = 0; i < 3; i++) rf[mp->coord[3 * k + i]] -= mp->G[j][k] * h[i];
  }
}

/* Its Jacobian block (F19), 96 x 96 over mp's coordinates: d(-Q_k)/de_l = -ce (sum_j G_j,k G_j,l)
   (1/2)[M]x, with [M]x v = M x v. */
static void TorqueBlock(const TdMaterialPoint *mp, const PetscReal M[3], PetscReal ce, PetscScalar v[])
{
  const PetscReal W[3][3] = {{0, -M[2], M[1]}, {M[2], 0, -M[0]}, {-M[1], M[0], 0}};
  PetscReal       GG[ANCF3843_NSHAPE][ANCF3843_NSHAPE];
  for (PetscInt a = 0; a < ANCF3843_NSHAPE; a++)
    for (PetscInt b = 0; b < ANCF3843_NSHAPE; b++) GG[a][b] = mp->G[0][a] * mp->G[0][b] + mp->G[1][a] * mp->G[1][b] + mp->G[2][a] * mp->G[2][b];
  for (PetscInt r = 0; r < NDOF; r++)
    for (PetscInt q = 0; q < NDOF; q++) v[r * NDOF + q] = -ce * 0.5 * GG[r / 3][q / 3] * W[r % 3][q % 3];
}

/* A torque or force motor's value at t (statics: the full value times the load factor) (F23) */
static PetscReal MotorValueAt(TdSolver s, const TdJoint *joint, PetscReal t)
{
  PetscReal v[3];
  if (s->mode == TD_MODE_STATIC) return s->load_factor * joint->motor_value;
  TdJointMotorTarget(joint, t, v);
  return v[0];
}

static inline void TractionAt(TdSolver s, const TdLoad *load, PetscReal t, PetscReal tr[3])
{
  if (s->mode == TD_MODE_STATIC)
    for (PetscInt i = 0; i < 3; i++) tr[i] = s->load_factor * load->force[i];
  else TdLoadForce(load, t, tr);
}

/* The residual at U (TdSolverResidual); *ghost_miss: a film point came to a face outside some
   rank's ghost set, and nothing was assembled. */
static PetscErrorCode ResidualOnce(SNES snes, Vec U, Vec R, void *ctx, PetscBool *ghost_miss)
{
  TdSolver           s = (TdSolver)ctx;
  TdModel            m = s->model;
  const PetscScalar *u;
  PetscScalar       *r;
  PetscMPIInt        rank;
  const PetscInt     nfull = m->nfull;
  const PetscReal    t1    = StepTime(s);
  const PetscReal    gscale = s->mode == TD_MODE_STATIC ? s->load_factor : 1;
  PetscBool          finite = PETSC_TRUE, fuse;
  int                nt;
  PetscFunctionBegin;
  *ghost_miss = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  fuse              = s->film_fuse_next && !s->in_test && s->film_jac_any ? PETSC_TRUE : PETSC_FALSE;
  s->film_fuse_next = PETSC_FALSE;
  s->film_jac_ready = PETSC_FALSE;
  PetscCall(TdSolverIterateScatter(s, U, PETSC_FALSE));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  IterateFromUnknowns(s, u);

  /* elements: inertia, internal and damping forces, gravity (threads over this rank's elements) */
  PetscCall(PetscLogEventBegin(TD_ElementForces, 0, 0, 0, 0));
  /* the team of this call: the thread governor may run fewer threads than were allocated for */
  nt = PetscMin(omp_get_max_threads(), s->nthreads);
#pragma omp parallel num_threads(nt)
  {
    const int        tid  = omp_get_thread_num();
    PetscReal       *rf   = &s->thread_r[(size_t)tid * nfull];
    Ancf3843Work    *work = &s->work[tid];
    for (PetscInt i = 0; i < nfull; i++) rf[i] = 0;
    /* static: each thread sums its own elements into its own array, so that the residual is the
       same function of the iterate at every call (central differences of it check the Jacobian;
       a dynamic split changed the rounding from call to call: 2e-6 in the slider-guide qp
       block).  A busy neighbour is the thread governor's concern (thread_governor.h). */
#pragma omp for schedule(static)
    for (PetscInt le = 0; le < s->nelem_local; le++) {
      const PetscInt          e    = s->elem_local[le];
      const TdBody           *body = &m->bodies[m->element_body[e]];
      const Ancf3843Geometry *geo  = &body->geometry[body->cell_geometry[m->element_cell[e]]];
      PetscReal               eq[NDOF], ev[NDOF], ea[NDOF], Q[NDOF];
      PetscInt                coord[NDOF];
      TdModelElementGather(m, e, s->q1, PETSC_TRUE, eq);
      TdModelElementGather(m, e, s->v1, PETSC_FALSE, ev);
      TdModelElementGather(m, e, s->qdd1, PETSC_FALSE, ea);
      ancf3843_internal_force(geo, &body->material, eq, ev, Q, NULL, work);
      if (m->element_load_offset) /* follower pressures (F16) and tractions (F16b) on the element's faces */
        for (PetscInt j = m->element_load_offset[e]; j < m->element_load_offset[e + 1]; j++) {
          const TdLoad *load = &m->loads[m->element_loads[j].load];
          if (load->type == TD_LOAD_PRESSURE) ancf3843_face_pressure(geo->a, geo->b, geo->c, (int)m->element_loads[j].face, eq, PressureAt(s, load, t1), Q, NULL, 0);
          else {
            const PetscReal *A = m->element_loads[j].shape_area;
            PetscReal        tr[3];
            TractionAt(s, load, t1, tr);
            for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
              for (PetscInt i = 0; i < 3; i++) Q[3 * k + i] -= A[k] * tr[i];
          }
        }
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
        PetscReal mk[3] = {0, 0, 0};
        for (PetscInt l = 0; l < ANCF3843_NSHAPE; l++) {
          const PetscReal mkl = geo->mass_unit[k][l];
          mk[0] += mkl * ea[3 * l];
          mk[1] += mkl * ea[3 * l + 1];
          mk[2] += mkl * ea[3 * l + 2];
        }
        for (PetscInt i = 0; i < 3; i++) Q[3 * k + i] += body->rho * (mk[i] - gscale * m->gravity[i] * geo->shape_integral[k]);
      }
      TdModelElementRotateForce(m, e, Q);
      TdModelElementCoordinates(m, e, coord);
      for (PetscInt i = 0; i < NDOF; i++) rf[coord[i]] += Q[i];
    }
  }
  for (PetscInt t = 1; t < nt; t++) {
    const PetscReal *rt = &s->thread_r[(size_t)t * nfull];
    for (PetscInt i = 0; i < nfull; i++) s->thread_r[i] += rt[i];
  }
  PetscCall(PetscLogEventEnd(TD_ElementForces, 0, 0, 0, 0));
  PetscCall(VecZeroEntries(s->Rseq));
  PetscCall(VecGetArray(s->Rseq, &r));
  {
    PetscReal *rf = s->thread_r;
    /* point loads (static: the full force times the load factor), on rank 0 */
    for (PetscInt l = 0; l < (rank == 0 ? m->nloads : 0); l++) {
      const TdLoad *load = &m->loads[l];
      PetscReal     f[3];
      if (load->type != TD_LOAD_POINT) continue; /* pressures: in the element loop */
      if (s->mode == TD_MODE_STATIC)
        for (PetscInt i = 0; i < 3; i++) f[i] = s->load_factor * load->force[i];
      else TdLoadForce(load, t1, f);
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
        for (PetscInt i = 0; i < 3; i++) rf[load->point.coord[3 * k + i]] -= load->point.S[k] * f[i];
    }
    /* torques (F19), on rank 0: Q_k = sum_j G_j,k (1/2) M x r_,j, the moment applied through
       the gradients r_,j of the material point (sum_j r_,j x (M x r_,j)/2 = M for orthonormal
       gradients, a rigid rotation) */
    for (PetscInt l = 0; l < (rank == 0 ? m->nloads : 0); l++) {
      const TdLoad *load = &m->loads[l];
      PetscReal     M[3];
      if (load->type != TD_LOAD_TORQUE) continue;
      TorqueAt(s, load, t1, M);
      AddTorque(&load->point, M, s->q1, rf);
    }
    /* spring-dampers (F17), on rank 0: -S_a g on the first end, +S_b g on the second; the
       damping with the iterate's rates (the initial ones in the initial-acceleration solve, none
       in statics) */
    for (PetscInt l = 0; l < (rank == 0 ? m->nloads : 0); l++) {
      const TdLoad *load = &m->loads[l];
      PetscReal     xa[3], xb[3], va[3], vb[3], g[3];
      if (load->type != TD_LOAD_SPRING) continue;
      SpringEnds(s, load, xa, xb, va, vb);
      if (spring_damper(xa, xb, va, vb, load->stiffness, load->damping, load->length, g, NULL, NULL, NULL)) {
        finite = PETSC_FALSE; /* the ends met: no direction */
        continue;
      }
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
        for (PetscInt i = 0; i < 3; i++) {
          rf[load->point.coord[3 * k + i]] -= load->point.S[k] * g[i];
          if (load->body2 >= 0) rf[load->point2.coord[3 * k + i]] += load->point2.S[k] * g[i];
        }
    }
    /* clearance joints (F24), on rank 0: the pin-hole contact forces (v1: the initial rates in
       the initial-acceleration solve, zero in statics) */
    if (rank == 0) TdJointsClearanceResidual(m, s->q1, s->v1, rf);
    /* films (F11, F14): pressure rows and the film forces on ANCF faces, each rank its quads;
       each film row is then whole at its owner (TdSolverFilmsAssemble) */
    if (m->nfilms) {
      PetscBool       ok;
      const PetscBool coupling_miss = m->coupling_miss;
      PetscCall(PetscLogEventBegin(TD_FilmResidual, 0, 0, 0, 0));
      if (fuse) {
        /* a solve's first residual: the film's Jacobian entries of this iterate as well, for the
           Jacobian pass that follows (it then skips the films) */
        PetscReal  cM = 0, ce = 0, cv = 0;
        PetscCount k = (PetscCount)s->nelem_local * NDOF * NDOF;
        const PetscBool miss = m->coupling_miss;
        ModeCoefficients(s, &cM, &ce, &cv);
        PetscCall(TdSolverFilmsAssemble(s, t1, s->q1, s->v1, u, ce, cv, rf, r, &s->coo_v[k], s->film_load, s->film_friction, &ok));
        /* a pattern miss concerns the Jacobian pass of this iterate only */
        s->film_jac_miss = m->coupling_miss;
        m->coupling_miss = miss;
        PetscCall(PetscArraycpy(s->film_r, r, s->N)); /* only the film rows are set yet */
        PetscCall(PetscArraycpy(s->film_jac_u, u, s->N));
        s->film_jac_ok    = ok;
        s->film_jac_ready = PETSC_TRUE;
      } else PetscCall(TdSolverFilmsAssemble(s, t1, s->q1, s->v1, u, 0, 0, rf, r, NULL, s->film_load, s->film_friction, &ok));
      if (m->ghost_miss) {
        /* some rank needs more of the iterate: nothing of this pass counts */
        m->coupling_miss  = coupling_miss;
        s->film_jac_ready = PETSC_FALSE;
        s->film_load_t    = PETSC_NINFINITY;
        *ghost_miss       = PETSC_TRUE;
        PetscCall(PetscLogEventEnd(TD_FilmResidual, 0, 0, 0, 0));
        PetscCall(VecRestoreArray(s->Rseq, &r));
        PetscCall(VecRestoreArrayRead(s->Useq, &u));
        PetscFunctionReturn(0);
      }
      /* the films' loads at this iterate, for the output record of a converged step (the last
         residual SNES evaluates is at its solution) */
      s->film_load_t = ok && !s->in_test ? t1 : PETSC_NINFINITY;
      if (ok && !s->in_test) PetscCall(PetscArraycpy(s->film_load_u, u, s->N));
      PetscCall(PetscLogEventEnd(TD_FilmResidual, 0, 0, 0, 0));
      if (!ok) {
        finite = PETSC_FALSE;
        for (PetscInt fi = 0; fi < m->nfilms; fi++)
          if (m->films[fi].miss[0]) PetscCall(PetscStrncpy(s->film_miss, m->films[fi].miss, sizeof s->film_miss));
        if (s->in_setup) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "%s", s->film_miss);
      } else if (s->njfo) {
        /* JFO: min((p - p_cav)/p_ref, 1 - theta) on the film fractions' rows (F18); the central-
           difference check keeps the active set of the Jacobian it checks */
        for (PetscInt i = 0; i < s->njfo; i++) {
          PetscReal a, b;
          if (!TdSolverRowMine(s, s->jfo_theta[i])) continue;
          a                  = PetscRealPart(u[s->jfo_p[i]]) - s->jfo_shift[i];
          b                  = 1 - PetscRealPart(u[s->jfo_theta[i]]);
          r[s->jfo_theta[i]] = s->in_test ? (s->jfo_active[i] ? a : b) : PetscMin(a, b);
        }
      }
      if (ok && s->ncp) {
        /* Swift-Stieber: min(p - p_cav, F) on cavitating rows (formulation §2); the central-
           difference check keeps the active set of the Jacobian it checks */
        for (PetscInt i = 0; i < s->nncp; i++) {
          const PetscInt  k = s->ncp_rows[i];
          const PetscReal x = PetscRealPart(u[k]) - s->ncp_shift[k];
          if (!TdSolverRowMine(s, k)) continue;
          if (s->in_test ? s->ncp_active[k] : x < PetscRealPart(r[k])) r[k] = x;
        }
      }
      /* the reverse scatter adds the ranks' rows: each film row counts once, from the rank that
         owns it, which formed its cavitation branch above (its unknowns are in that rank's ghost
         set; the other film unknowns need not be); the other ranks' film rows are 0
         (TdSolverFilmsAssemble) */
    }
    /* constraints: Phi_q^T lambda and the scaled rows, on rank 0 */
    TdJointsUpdate(m, t1);
    for (PetscInt c = 0; c < (rank == 0 ? m->nrows : 0); c++) {
      const TdConstraintRow *row = &m->rows[c];
      const PetscReal        lam = s->row_scale * u[m->row_offset + c];
      PetscReal              b, bd, bdd, phi = 0, coef[TD_ROW_TERMS];
      const PetscReal       *x = s->mode == TD_MODE_ACCELERATION ? s->qdd1 : s->q1;
      if (row->kind == 7) { /* a redundant row left out: lambda = 0 */
        r[m->row_offset + c] = s->row_scale * u[m->row_offset + c];
        continue;
      }
      TdConstraintTarget(m, c, t1, &b, &bd, &bdd);
      TdConstraintRowCoefficients(row, s->q1, coef);
      for (PetscInt k = 0; k < row->nterms; k++) {
        rf[row->coord[k]] += coef[k] * lam;
        phi += coef[k] * x[row->coord[k]];
      }
      if (row->kind == 5) {
        /* dot rows of ideal joints (F22): U . W - b (b0, or b0 + s(t) for a motor's slide); in the
           initial accelerations U'' . W + U . W'' + 2 U' . W' - b'' (phi holds the first two) */
        PetscReal U[3], W[3];
        if (s->mode == TD_MODE_ACCELERATION) {
          TdRowFormValues(row, s->v1, PETSC_TRUE, U, W);
          r[m->row_offset + c] = s->row_scale * (phi + 2 * (U[0] * W[0] + U[1] * W[1] + U[2] * W[2]) - bdd);
        } else {
          TdRowFormValues(row, s->q1, PETSC_FALSE, U, W);
          r[m->row_offset + c] = s->row_scale * (U[0] * W[0] + U[1] * W[1] + U[2] * W[2] - b);
        }
        continue;
      }
      if (row->kind == 6) {
        /* a motor's turn row (F23): c2 U2 . W + c1 U1 . W, c1 = -sin th, c2 = cos th; in the initial
           accelerations its second rate (phi holds c1 (U1 . W)'' + c2 (U2 . W)'' in q'') */
        const PetscReal th = row->theta[0], thd = row->theta[1], thdd = row->theta[2];
        const PetscReal c1 = -PetscSinReal(th), c2 = PetscCosReal(th);
        PetscReal       U1[3], W[3], U2[3];
        TdRowFormValues(row, s->q1, PETSC_FALSE, U1, W);
        TdRowFormValue(row->form[2], s->q1, PETSC_FALSE, U2);
        if (s->mode == TD_MODE_ACCELERATION) {
          const PetscReal d1 = -PetscCosReal(th) * thd, d2 = -PetscSinReal(th) * thd;
          const PetscReal dd1 = PetscSinReal(th) * thd * thd - PetscCosReal(th) * thdd, dd2 = -PetscCosReal(th) * thd * thd - PetscSinReal(th) * thdd;
          PetscReal       U1d[3], Wd[3], U2d[3];
          TdRowFormValues(row, s->v1, PETSC_TRUE, U1d, Wd);
          TdRowFormValue(row->form[2], s->v1, PETSC_TRUE, U2d);
          r[m->row_offset + c] = s->row_scale * (phi + 2 * c1 * vec3_dot(U1d, Wd) + 2 * c2 * vec3_dot(U2d, Wd) + 2 * d1 * (vec3_dot(U1d, W) + vec3_dot(U1, Wd)) + 2 * d2 * (vec3_dot(U2d, W) + vec3_dot(U2, Wd)) + dd1 * vec3_dot(U1, W) + dd2 * vec3_dot(U2, W));
        } else r[m->row_offset + c] = s->row_scale * (c1 * vec3_dot(U1, W) + c2 * vec3_dot(U2, W));
        continue;
      }
      r[m->row_offset + c] = s->row_scale * (phi - (s->mode == TD_MODE_ACCELERATION ? bdd : b));
    }
    /* joint motors' torques and forces (F23), on rank 0: +-T u through the joint points'
       gradients (F19) on B and A, +-F u at their points */
    for (PetscInt j = 0; j < (rank == 0 ? m->njoints : 0); j++) {
      const TdJoint *joint = &m->joints[j];
      PetscReal      v;
      if (joint->motor != TD_MOTOR_TORQUE && joint->motor != TD_MOTOR_FORCE) continue;
      v = MotorValueAt(s, joint, t1);
      for (PetscInt side = 0; side < 2; side++) {
        const TdMaterialPoint *mp = &joint->at[side];
        PetscReal              f[3];
        if (joint->body[side] < 0) continue;
        for (PetscInt i = 0; i < 3; i++) f[i] = (side ? 1 : -1) * v * joint->u[i];
        if (joint->motor == TD_MOTOR_TORQUE) AddTorque(mp, f, s->q1, rf);
        else
          for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
            for (PetscInt i = 0; i < 3; i++) rf[mp->coord[3 * k + i]] -= mp->S[k] * f[i];
      }
    }
    /* free rigid bodies (F21), on rank 0: the constant mass matrix diag(m I, J (x) I) on
       [r, a1, a2, a3] and gravity on the centre of mass */
    for (PetscInt b = 0; b < (rank == 0 ? m->nbodies : 0); b++) {
      const TdBody  *body = &m->bodies[b];
      const PetscInt base = TD_NODE_DOF * body->node_offset;
      if (body->type != TD_BODY_FREE) continue;
      for (PetscInt i = 0; i < 3; i++) rf[base + i] += body->mass * (s->qdd1[base + i] - gscale * m->gravity[i]);
      for (PetscInt k = 0; k < 3; k++)
        for (PetscInt l = 0; l < 3; l++)
          for (PetscInt i = 0; i < 3; i++) rf[base + 3 * (1 + k) + i] += body->J[3 * k + l] * s->qdd1[base + 3 * (1 + l) + i];
    }
  }
  for (PetscInt i = 0; i < nfull; i++) {
    const PetscInt f = m->free_index[i];
    if (f >= 0) r[f] += s->thread_r[i];
  }
  for (PetscInt i = 0; i < s->N; i++)
    if (PetscIsInfOrNanReal(r[i])) finite = PETSC_FALSE;
  PetscCall(VecRestoreArray(s->Rseq, &r));
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscCall(TdSolverResidualScatter(s, R));
  {
    /* a non-finite entry on any rank makes the iterate invalid on all */
    PetscMPIInt bad = finite ? 0 : 1;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, s->comm));
    finite = bad ? PETSC_FALSE : PETSC_TRUE;
  }
  if (!finite) PetscCall(SNESSetFunctionDomainError(snes));
  PetscFunctionReturn(0);
}

/* The residual at U.  A film point that comes to a face outside its rank's ghost set makes every
   rank take the films' whole surfaces (state_ghosts.c) and assemble again; the next step goes
   back to the faces around the points. */
PetscErrorCode TdSolverResidual(SNES snes, Vec U, Vec R, void *ctx)
{
  TdSolver        s    = (TdSolver)ctx;
  const PetscBool fuse = s->film_fuse_next;
  PetscBool       miss;
  PetscFunctionBegin;
  PetscCall(ResidualOnce(snes, U, R, ctx, &miss));
  if (miss) {
    PetscCall(TdSolverGhostsUpdate(s, PETSC_TRUE));
    s->ghost_widenings++;
    s->film_fuse_next = fuse;
    PetscCall(ResidualOnce(snes, U, R, ctx, &miss));
    PetscCheck(!miss, s->comm, PETSC_ERR_PLIB, "A film point still needs a face outside its rank's ghost set after the films' whole surfaces were added; run with -state_ghosts false and report this");
  }
  PetscFunctionReturn(0);
}

/* Whether the film-block stage (film_correction.c) runs for this Jacobian.  It corrects what
   the kept LU does not know of the film block, and that is mostly the rows that changed branch
   (cavitation) since the factorisation: with none changed it did not save a Krylov iteration
   (finest level, settled, 100-106 ms on 2 ranks: 237 Krylov iterations without it, 240-241
   with) and cost its factorisation per Jacobian and a solve per iteration (64.6-65.0 s against
   70.8-71.2 s).  A fresh factorisation needs no stage. */
/* The JFO rows (and with ncp the Swift-Stieber rows) whose branch changed since the last
   factorisation, over all ranks: each rank counts the rows it owns, the only ones whose branch
   it knows (collective). */
static PetscErrorCode FilmRowsChanged(TdSolver s, PetscBool ncp, PetscInt *changed)
{
  PetscFunctionBegin;
  *changed = 0;
  for (PetscInt i = 0; i < s->njfo; i++) *changed += TdSolverRowMine(s, s->jfo_theta[i]) && s->jfo_active[i] != s->jfo_active_pc[i];
  if (ncp && s->ncp_active)
    for (PetscInt i = 0; i < s->nncp; i++) *changed += TdSolverRowMine(s, s->ncp_rows[i]) && s->ncp_active[s->ncp_rows[i]] != s->ncp_active_pc[s->ncp_rows[i]];
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, changed, 1, MPIU_INT, MPI_SUM, s->comm));
  PetscFunctionReturn(0);
}

static PetscErrorCode FilmStageDecide(TdSolver s, Mat P, PetscBool reuse)
{
  PetscInt changed;
  PetscFunctionBegin;
  s->film_stage_on = PETSC_FALSE;
  if (!s->film_correction) PetscFunctionReturn(0);
  if (s->film_stage_rows < 0 || !s->pc_reuse_ok) s->film_stage_on = PETSC_TRUE;
  else if (reuse) {
    PetscCall(FilmRowsChanged(s, PETSC_TRUE, &changed));
    s->film_stage_on = changed > s->film_stage_rows ? PETSC_TRUE : PETSC_FALSE;
  }
  if (s->film_stage_on) PetscCall(TdSolverFilmCorrectionUpdate(s, P));
  PetscFunctionReturn(0);
}

/* The tangent block K (96 x 96, row-major, in the element's coordinates as listed by the
   pattern) of local element le: cM M (F4) + ce dQ_int/de + cv dQ_int/dedot (F3, F5) and the
   follower pressures' stiffness (F16), turned to global slopes; on thread tid's work arrays. */
static void ElementTangent(TdSolver s, PetscInt le, int tid, PetscReal t1, PetscReal cM, PetscReal ce, PetscReal cv, PetscReal K[])
{
  TdModel                 m    = s->model;
  const PetscInt          e    = s->elem_local[le];
  const TdBody           *body = &m->bodies[m->element_body[e]];
  const Ancf3843Geometry *geo  = &body->geometry[body->cell_geometry[m->element_cell[e]]];
  Ancf3843Work           *work = &s->work[tid];
  PetscReal              *rot  = &s->rot_work[(size_t)tid * NDOF * NDOF];
  PetscReal               eq[NDOF], ev[NDOF];
  if (ce != 0 || cv != 0) {
    TdModelElementGather(m, e, s->q1, PETSC_TRUE, eq);
    TdModelElementGather(m, e, s->v1, PETSC_FALSE, ev);
    ancf3843_tangent(geo, &body->material, eq, ev, ce, cv, K, work);
    if (m->element_load_offset && ce != 0) { /* the follower pressures' stiffness (F16) */
      PetscReal Qp[NDOF];
      for (PetscInt j = m->element_load_offset[e]; j < m->element_load_offset[e + 1]; j++) /* tractions: dead loads, no stiffness */
        if (m->loads[m->element_loads[j].load].type == TD_LOAD_PRESSURE) ancf3843_face_pressure(geo->a, geo->b, geo->c, (int)m->element_loads[j].face, eq, PressureAt(s, &m->loads[m->element_loads[j].load], t1), Qp, K, ce);
    }
  } else
    for (PetscInt i = 0; i < NDOF * NDOF; i++) K[i] = 0;
  if (cM != 0) {
    const PetscReal c = cM * body->rho;
    for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
      for (PetscInt l = 0; l < ANCF3843_NSHAPE; l++) {
        const PetscReal mkl = c * geo->mass_unit[k][l];
        for (PetscInt i = 0; i < 3; i++) K[(3 * k + i) * NDOF + 3 * l + i] += mkl;
      }
  }
  TdModelElementRotateMatrix(m, e, K, rot);
}

PetscErrorCode TdSolverJacobian(SNES snes, Vec U, Mat J, Mat P, void *ctx)
{
  TdSolver           s = (TdSolver)ctx;
  TdModel            m = s->model;
  const PetscScalar *u;
  PetscReal          cM, ce, cv;
  PetscMPIInt        rank;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  ModeCoefficients(s, &cM, &ce, &cv);
  const PetscReal t1 = StepTime(s);
  s->jacobian_dt = s->mode == TD_MODE_DYNAMIC ? s->step_dt : -1;
  PetscCall(TdSolverIterateScatter(s, U, PETSC_FALSE));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  IterateFromUnknowns(s, u);
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscCall(PetscLogEventBegin(TD_ElementTangents, 0, 0, 0, 0));
  {
    /* An element's tangent goes straight into J when its block is direct (coo_map.h): the
       chunks, each by one thread in its order (ChunkElements), so that each nonzero's sum has
       one order whatever the threads; the other elements write their blocks to the COO array,
       in small dynamic shares (each its own block). */
    const PetscBool direct = s->coo_map.block_direct && P == s->J ? PETSC_TRUE : PETSC_FALSE;
    PetscScalar    *aa = NULL, *ba = NULL;
    if (direct) PetscCall(TdCOOMapGetArrays(P, &aa, &ba));
#pragma omp parallel
    {
      const int tid = omp_get_thread_num();
      if (direct) {
        PetscReal *K = &s->tangent_buf[(size_t)tid * NDOF * NDOF];
#pragma omp for schedule(dynamic, 1) nowait
        for (PetscInt c = 0; c < s->nchunk; c++)
          for (PetscInt k = s->chunk_start[c]; k < s->chunk_start[c + 1]; k++) {
            const PetscInt le = s->chunk_elem[k];
            if (!s->coo_map.block_direct[le]) continue;
            ElementTangent(s, le, tid, t1, cM, ce, cv, K);
            TdCOOMapAddBlock(&s->coo_map, le, K, aa, ba);
          }
      }
#pragma omp for schedule(dynamic, 2)
      for (PetscInt le = 0; le < s->nelem_local; le++)
        if (!direct || !s->coo_map.block_direct[le]) ElementTangent(s, le, tid, t1, cM, ce, cv, &s->coo_v[(size_t)le * NDOF * NDOF]);
    }
    if (direct) PetscCall(TdCOOMapRestoreArrays(P, &aa, &ba));
  }
  PetscCall(PetscLogEventEnd(TD_ElementTangents, 0, 0, 0, 0));
  {
    /* films: this rank's entries; rank 0 then the cavitating rows' diagonals and the constraint
       blocks */
    PetscCount k = (PetscCount)s->nelem_local * NDOF * NDOF;
    PetscBool  ok = PETSC_TRUE;
    if (s->film_jac_any) {
      PetscBool same = PETSC_FALSE;
      PetscCall(VecGetArrayRead(s->Useq, &u));
      if (s->film_jac_ready) PetscCall(PetscArraycmp(u, s->film_jac_u, s->N, &same));
      if (same) {
        /* filled by this iterate's residual */
        ok = s->film_jac_ok;
        if (s->film_jac_miss) m->coupling_miss = PETSC_TRUE;
      } else {
        PetscCall(PetscArrayzero(s->film_r, s->N));
        PetscCall(PetscLogEventBegin(TD_FilmJacobian, 0, 0, 0, 0));
        PetscCall(TdSolverFilmsAssemble(s, StepTime(s), s->q1, s->v1, u, ce, cv, NULL, s->film_r, &s->coo_v[k], NULL, NULL, &ok));
        PetscCall(PetscLogEventEnd(TD_FilmJacobian, 0, 0, 0, 0));
        if (m->ghost_miss) {
          /* a point came to a face outside some rank's ghost set (TdSolverResidual): the films'
             whole surfaces, and this Jacobian again */
          PetscCall(VecRestoreArrayRead(s->Useq, &u));
          PetscCall(TdSolverGhostsUpdate(s, PETSC_TRUE));
          s->ghost_widenings++;
          PetscCall(TdSolverJacobian(snes, U, J, P, ctx));
          PetscFunctionReturn(0);
        }
      }
      s->film_jac_ready = PETSC_FALSE;
      if (!s->in_test) JfoActiveSet(s, u);
      if (!ok)
        for (PetscCount i = 0; i < s->nfilm_coo; i++) s->coo_v[k + i] = 0;
      else if (s->ncp) {
        /* rows on the cavitation bound become unit rows: d(p - p_cav)/dp (formulation §2); the
           film rows are whole at their owners, which find the branches, and the ranks whose
           quads fill a row take its owner's (film_rows.c); the others' are not used */
        for (PetscInt i = 0; i < s->nncp; i++) {
          const PetscInt k = s->ncp_rows[i];
          if (!TdSolverRowMine(s, k)) continue;
          s->ncp_active[k] = PetscRealPart(u[k]) - s->ncp_shift[k] < PetscRealPart(s->film_r[k]) ? PETSC_TRUE : PETSC_FALSE;
        }
        if (s->film_quad_rows_sc) PetscCall(TdSolverFilmFlagsFromOwners(s, s->ncp_active));
        for (PetscCount i = 0; i < s->nfilm_coo; i++) {
          const PetscInt row = s->film_coo_rows[i];
          if (row >= 0 && s->ncp_active[row]) s->coo_v[k + i] = 0;
        }
      }
      PetscCall(VecRestoreArrayRead(s->Useq, &u));
    }
    k += s->nfilm_coo;
    /* the cavitation rows this rank owns (BuildJacobian) */
    for (PetscInt i = 0; i < s->nncp; i++)
      if (TdSolverRowMine(s, s->ncp_rows[i])) s->coo_v[k++] = ok && s->ncp && s->ncp_active[s->ncp_rows[i]] ? 1 : 0;
    for (PetscInt i = 0; i < s->njfo; i++)
      if (TdSolverRowMine(s, s->jfo_theta[i])) {
        /* min((p - p_cav)/p_ref, 1 - theta): the derivative of its smaller branch (F18) */
        s->coo_v[k]     = s->jfo_active[i] ? 1 : 0;
        s->coo_v[k + 1] = s->jfo_active[i] ? 0 : -1;
        k += 2;
      }
    if (rank == 0) {
      TdJointsUpdate(m, StepTime(s));
      for (PetscInt c = 0; c < m->nrows; c++) {
        const TdConstraintRow *row = &m->rows[c];
        PetscReal              coef[TD_ROW_TERMS];
        TdConstraintRowCoefficients(row, s->q1, coef);
        for (PetscInt t = 0; t < row->nterms; t++, k += 2) s->coo_v[k] = s->coo_v[k + 1] = s->row_scale * coef[t];
        s->coo_v[k++] = row->kind == 7 ? s->row_scale : 0; /* the diagonal (a redundant row: lambda = 0) */
      }
      for (PetscInt l = 0; l < m->nloads; l++) {
        const TdLoad          *load = &m->loads[l];
        const TdMaterialPoint *end[2];
        const PetscReal        sig[2] = {-1, 1};
        const PetscInt         nend   = LoadEnds(load, end);
        PetscReal              xa[3], xb[3], va[3], vb[3], g[3], Kd[3][3], Kv[3][3], B[3][3];
        const PetscReal        c = load->damping;
        if (load->type == TD_LOAD_TORQUE) {
          PetscReal M[3];
          TorqueAt(s, load, StepTime(s), M);
          TorqueBlock(&load->point, M, ce, &s->coo_v[k]);
          k += NDOF * NDOF;
          continue;
        }
        /* springs (F17): d(sigma_a S_a g)/dq_b = sigma_a sigma_b S_a S_b (ce Kd + cv Kv),
           sigma = -1 on the first end and +1 on the second */
        if (load->type != TD_LOAD_SPRING) continue;
        SpringEnds(s, load, xa, xb, va, vb);
        if (spring_damper(xa, xb, va, vb, load->stiffness, c, load->length, g, NULL, Kd, Kv)) {
          for (PetscInt i = 0; i < 3; i++)
            for (PetscInt j = 0; j < 3; j++) Kd[i][j] = Kv[i][j] = 0;
        }
        for (PetscInt i = 0; i < 3; i++)
          for (PetscInt j = 0; j < 3; j++) B[i][j] = ce * Kd[i][j] + cv * Kv[i][j];
        for (PetscInt a = 0; a < nend; a++)
          for (PetscInt b = 0; b < nend; b++)
            for (PetscInt r = 0; r < NDOF; r++)
              for (PetscInt q = 0; q < NDOF; q++, k++) s->coo_v[k] = sig[a] * sig[b] * end[a]->S[r / 3] * end[b]->S[q / 3] * B[r % 3][q % 3];
      }
      /* free rigid bodies (F21): cM times the mass matrix diag(m I, J (x) I) (their
         orthonormality rows are dot rows, whose Hessians follow) */
      {
        const PetscScalar *uu;
        PetscCall(VecGetArrayRead(s->Useq, &uu));
        for (PetscInt b = 0; b < m->nbodies; b++) {
          const TdBody *body = &m->bodies[b];
          PetscReal     B[12][12];
          if (body->type != TD_BODY_FREE) continue;
          PetscCall(PetscArrayzero(&B[0][0], 144));
          for (PetscInt i = 0; i < 3; i++) B[i][i] = cM * body->mass;
          for (PetscInt kk = 0; kk < 3; kk++)
            for (PetscInt l = 0; l < 3; l++)
              for (PetscInt i = 0; i < 3; i++) B[3 * (1 + kk) + i][3 * (1 + l) + i] += cM * body->J[3 * kk + l];
          for (PetscInt i = 0; i < 12; i++)
            for (PetscInt j = 0; j < 12; j++, k++) s->coo_v[k] = B[i][j];
        }
        for (PetscInt c = 0; c < m->nrows; c++) { /* dot rows' Hessians, ce lambda d^2Phi/dq^2 */
          const PetscCount nh = TdRowHessianEntries(&m->rows[c]);
          if (!nh) continue;
          TdRowHessianValues(&m->rows[c], ce * s->row_scale * PetscRealPart(uu[m->row_offset + c]), &s->coo_v[k]);
          k += nh;
        }
        for (PetscInt j = 0; j < m->njoints; j++) { /* torque motors: each side's F19 block */
          const TdJoint *joint = &m->joints[j];
          PetscReal      v;
          if (joint->motor != TD_MOTOR_TORQUE) continue;
          v = MotorValueAt(s, joint, StepTime(s));
          for (PetscInt side = 0; side < 2; side++) {
            PetscReal M[3];
            if (joint->body[side] < 0) continue;
            for (PetscInt i = 0; i < 3; i++) M[i] = (side ? 1 : -1) * v * joint->u[i];
            TorqueBlock(&joint->at[side], M, ce, &s->coo_v[k]);
            k += NDOF * NDOF;
          }
        }
        /* clearance joints (F24): ce d(-Q)/dq + cv d(-Q)/dqdot of the contact forces */
        TdJointsClearanceValues(m, s->q1, s->v1, ce, cv, &s->coo_v[k]);
        k += (PetscInt)TdJointsClearanceEntries(m);
        PetscCall(VecRestoreArrayRead(s->Useq, &uu));
      }
    }
  }
  {
    /* a pattern miss on any rank: every rank rebuilds (re-preallocation is collective) */
    PetscMPIInt miss = m->coupling_miss ? 1 : 0;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &miss, 1, MPI_INT, MPI_MAX, s->comm));
    m->coupling_miss = miss ? PETSC_TRUE : PETSC_FALSE;
  }
  if (m->coupling_miss) {
    /* a film point moved onto a face pair outside the pattern (bodies slid within the step):
       the pattern of this iterate, the same matrix re-preallocated, assembled again */
    PetscBool changed;
    m->coupling_miss = PETSC_FALSE;
    PetscCall(PetscLogEventBegin(TD_FilmPattern, 0, 0, 0, 0));
    PetscCall(TdFilmsCouplingUpdate(m, StepTime(s), s->q1, s->v1, &changed, NULL));
    m->ghost_miss = PETSC_FALSE; /* look-ahead points on faces outside the ghost set keep their faces */
    PetscCall(PetscLogEventEnd(TD_FilmPattern, 0, 0, 0, 0));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPIU_BOOL, MPI_LOR, s->comm));
    if (changed) {
      PetscCall(TdSolverBuildJacobian(s));
      s->pattern_rebuilds++;
      PetscCall(TdSolverJacobian(snes, U, J, P, ctx));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(PetscLogEventBegin(TD_JacobianValues, 0, 0, 0, 0));
  if (s->coo_map.entry && P == s->J) PetscCall(TdCOOMapSetValues(P, &s->coo_map, s->coo_v));
  else PetscCall(MatSetValuesCOO(P, s->coo_v, INSERT_VALUES));
  PetscCall(PetscLogEventEnd(TD_JacobianValues, 0, 0, 0, 0));
  {
    /* Keep the factorisation of an earlier Jacobian while it preconditions well: the last Krylov
       solve converged within -refactor_its iterations, in the same mode, step size and pattern.
       The operator is always this Jacobian, so the Newton step stays exact. */
    KSP       ksp;
    PetscBool reuse = PETSC_FALSE;
    PetscCall(SNESGetKSP(snes, &ksp));
    if (s->pc_reuse_ok && s->pc_ready && s->pc_mode == s->mode && s->pc_dt == s->jacobian_dt) {
      PetscInt           lits;
      KSPConvergedReason kreason;
      PetscCall(TdSolverLastKrylov(s, &lits, &kreason));
      reuse = lits <= s->refactor_its && kreason >= 0 ? PETSC_TRUE : PETSC_FALSE;
      if (reuse && s->njfo && !s->film_correction) {
        /* each JFO row that changed branch since the factorisation changes the matrix by one
           row, a rank-one change the Krylov method absorbs in about one iteration: beyond
           -jfo_refactor_rows of them, factor anew (the film-block correction absorbs them
           instead) */
        PetscInt changed;
        PetscCall(FilmRowsChanged(s, PETSC_FALSE, &changed));
        if (changed > s->jfo_refactor_rows) reuse = PETSC_FALSE;
      }
    }
    s->restored_ksp = PETSC_FALSE;
    if (!reuse) {
      s->pc_ready = PETSC_TRUE;
      s->pc_mode  = s->mode;
      s->pc_dt    = s->jacobian_dt;
      s->factorizations++;
      if (s->njfo) PetscCall(PetscArraycpy(s->jfo_active_pc, s->jfo_active, s->njfo));
      if (s->ncp_active) PetscCall(PetscArraycpy(s->ncp_active_pc, s->ncp_active, s->N));
      /* the values of the factored matrix, for a checkpoint: a restart factors the same matrix
         and so continues on the same Newton-Krylov path (src/solver/checkpoint.c) */
      if (P == s->J) PetscCall(KeepFactoredValues(s));
    }
    /* SNES sets the KSP's reuse flag from its preconditioner lag after this callback:
       -1 keeps the factorisation, -2 factors once (then -1) */
    if (s->pc_reuse_ok) PetscCall(SNESSetLagPreconditioner(snes, reuse ? -1 : -2));
    PetscCall(FilmStageDecide(s, P, reuse));
  }
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  if (s->test_jacobian > 0 && !s->in_test && (s->test_jacobian_time <= 0 || (s->mode == TD_MODE_DYNAMIC && StepTime(s) > s->test_jacobian_time))) {
    s->test_jacobian--;
    PetscCall(TestJacobianCentral(s, snes, U, P));
  }
  PetscFunctionReturn(0);
}

/*
  Central-difference check of the assembled Jacobian: column j of J_fd is
  (R(U + h_j e_j) - R(U - h_j e_j)) / (2 h_j), h_j = eps max(|U_j|, 1e-2), eps = -test_jacobian_step
  (1e-6).  The truncation error
  is O(h^2), so unlike a one-sided difference it resolves the Jacobian far below 1e-6 even where
  the inertia term 1/(beta dt^2) makes the residual's roundoff large.
*/
static PetscErrorCode TestJacobianCentral(TdSolver s, SNES snes, Vec U, Mat J)
{
  Mat          Jfd, Jd;
  Vec          Up, Rp, Rm;
  PetscInt     lo, hi, N = s->N;
  PetscReal    nd, nj;
  PetscScalar *col;
  PetscFunctionBegin;
  s->in_test      = PETSC_TRUE;
  s->film_miss[0] = 0;
  PetscCall(VecDuplicate(U, &Up));
  PetscCall(VecDuplicate(U, &Rp));
  PetscCall(VecDuplicate(U, &Rm));
  PetscCall(TdSolverResidual(snes, U, Rp, s)); /* the iterate itself: is it in the film's domain? */
  {
    PetscInt nlocal;
    PetscCall(VecGetLocalSize(U, &nlocal));
    PetscCall(MatCreateDense(s->comm, nlocal, nlocal, N, N, NULL, &Jfd));
  }
  PetscCall(VecGetOwnershipRange(U, &lo, &hi));
  PetscCall(MatDenseGetArray(Jfd, &col));
  for (PetscInt j = 0; j < N; j++) {
    PetscScalar uj = 0, h;
    const PetscScalar *rp, *rm;
    if (j >= lo && j < hi) {
      const PetscScalar *u;
      PetscCall(VecGetArrayRead(U, &u));
      uj = u[j - lo];
      PetscCall(VecRestoreArrayRead(U, &u));
    }
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &uj, 1, MPIU_SCALAR, MPIU_SUM, s->comm));
    h = s->test_jacobian_step * PetscMax(PetscAbsScalar(uj), 1e-2);
    PetscCall(VecCopy(U, Up));
    PetscCall(VecSetValue(Up, j, uj + h, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(Up));
    PetscCall(VecAssemblyEnd(Up));
    PetscCall(TdSolverResidual(snes, Up, Rp, s));
    PetscCall(VecSetValue(Up, j, uj - h, INSERT_VALUES));
    PetscCall(VecAssemblyBegin(Up));
    PetscCall(VecAssemblyEnd(Up));
    PetscCall(TdSolverResidual(snes, Up, Rm, s));
    PetscCall(VecGetArrayRead(Rp, &rp));
    PetscCall(VecGetArrayRead(Rm, &rm));
    for (PetscInt i = 0; i < hi - lo; i++) col[(size_t)j * (hi - lo) + i] = (rp[i] - rm[i]) / (2 * h);
    PetscCall(VecRestoreArrayRead(Rp, &rp));
    PetscCall(VecRestoreArrayRead(Rm, &rm));
  }
  PetscCall(MatDenseRestoreArray(Jfd, &col));
  if (s->film_miss[0]) {
    /* a film point misses its surface in this iterate or its perturbations: the residual is
       not defined there (Newton rejects the step), so there is nothing to compare */
    PetscCall(PetscPrintf(s->comm, "tribodyn: Jacobian test at t = %g skipped: %s\n", (double)StepTime(s), s->film_miss));
    s->film_miss[0] = 0;
    PetscCall(MatDestroy(&Jfd));
    PetscCall(VecDestroy(&Up));
    PetscCall(VecDestroy(&Rp));
    PetscCall(VecDestroy(&Rm));
    s->in_test = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  PetscCall(MatAssemblyBegin(Jfd, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Jfd, MAT_FINAL_ASSEMBLY));
  PetscCall(MatConvert(J, MATDENSE, MAT_INITIAL_MATRIX, &Jd));
  PetscCall(MatNorm(Jd, NORM_FROBENIUS, &nj));
  {
    /* block by block: rows and columns of body coordinates (q), film pressures (p) and
       constraint multipliers (c), so that small coupling blocks are not hidden by the stiffness */
    const PetscInt     bounds[4] = {0, s->model->nfree, s->model->row_offset, N};
    const char        *names     = "qpc";
    PetscReal          sums[18]  = {0};
    const PetscScalar *a, *b;
    PetscInt           lda;
    PetscCall(MatDenseGetArrayRead(Jd, &a));
    PetscCall(MatDenseGetArrayRead(Jfd, &b));
    PetscInt          *natural; /* of each column of U's numbering */
    PetscCall(MatDenseGetLDA(Jd, &lda));
    PetscCall(PetscMalloc1(N, &natural));
    for (PetscInt i = 0; i < N; i++) natural[s->to_petsc[i]] = i;
    for (PetscInt j = 0; j < N; j++)
      for (PetscInt i = lo; i < hi; i++) {
        PetscInt bi = 0, bj = 0;
        while (s->owned[i - lo] >= bounds[bi + 1]) bi++;
        while (natural[j] >= bounds[bj + 1]) bj++;
        sums[2 * (3 * bi + bj)] += PetscSqr(PetscRealPart(a[(size_t)j * lda + (i - lo)] - b[(size_t)j * lda + (i - lo)]));
        sums[2 * (3 * bi + bj) + 1] += PetscSqr(PetscRealPart(a[(size_t)j * lda + (i - lo)]));
      }
    PetscCall(PetscFree(natural));
    PetscCall(MatDenseRestoreArrayRead(Jd, &a));
    PetscCall(MatDenseRestoreArrayRead(Jfd, &b));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sums, 18, MPIU_REAL, MPIU_SUM, s->comm));
    for (PetscInt bi = 0; bi < 3; bi++)
      for (PetscInt bj = 0; bj < 3; bj++) {
        const PetscReal dn = PetscSqrtReal(sums[2 * (3 * bi + bj)]), jn = PetscSqrtReal(sums[2 * (3 * bi + bj) + 1]);
        if (jn > 0 || dn > 0) {
          PetscCall(PetscPrintf(s->comm, "tribodyn: Jacobian test block %c%c at t = %g: ||J - J_fd||_F/||J||_F = %g, ||J||_F = %g\n", names[bi], names[bj], (double)StepTime(s), (double)(jn > 0 ? dn / jn : dn), (double)jn));
          if (jn > 0) s->test_jacobian_max = PetscMax(s->test_jacobian_max, dn / jn);
        }
      }
  }
  PetscCall(MatAXPY(Jfd, -1.0, Jd, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(Jfd, NORM_FROBENIUS, &nd));
  PetscCall(PetscPrintf(s->comm, "tribodyn: Jacobian test (central differences) at t = %g: ||J - J_fd||_F/||J||_F = %g, ||J||_F = %g\n", (double)StepTime(s), (double)(nd / nj), (double)nj));
  s->test_jacobian_max = PetscMax(s->test_jacobian_max, nd / nj);
  PetscCall(MatDestroy(&Jd));
  PetscCall(MatDestroy(&Jfd));
  PetscCall(VecDestroy(&Up));
  PetscCall(VecDestroy(&Rp));
  PetscCall(VecDestroy(&Rm));
  PetscCall(IterateFromVec(s, U, PETSC_FALSE)); /* restore the iterate of U */
  s->in_test = PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* Norms of the residual blocks: body coordinates, film pressures, constraint rows. */
static PetscErrorCode BlockNorms(TdSolver s, Vec F, PetscReal nrm[3])
{
  const PetscScalar *f;
  PetscInt           lo, hi;
  const PetscInt     bounds[4] = {0, s->model->nfree, s->model->row_offset, s->N};
  PetscFunctionBegin;
  nrm[0] = nrm[1] = nrm[2] = 0;
  PetscCall(VecGetOwnershipRange(F, &lo, &hi));
  PetscCall(VecGetArrayRead(F, &f));
  for (PetscInt k = 0; k < hi - lo; k++) {
    PetscInt b = 0;
    while (s->owned[k] >= bounds[b + 1]) b++;
    nrm[b] += PetscSqr(PetscRealPart(f[k]));
  }
  PetscCall(VecRestoreArrayRead(F, &f));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, nrm, 3, MPIU_REAL, MPIU_SUM, s->comm));
  for (PetscInt b = 0; b < 3; b++) nrm[b] = PetscSqrtReal(nrm[b]);
  PetscFunctionReturn(0);
}

/*
  The Krylov test of -krylov_block_test: PETSc's default test (relative 1e-10, absolute a tenth
  of the smallest block tolerance, divergence, iteration limit), and besides it convergence once
  every block of the linear residual b - J x (bodies, films, drives) lies below its share of its
  own Newton tolerance (-krylov_block_fraction, default a tenth; set by ConvergenceTest at Newton
  iteration 0).  Why: the film block's
  tolerance (1e-9 per node) lies orders below the bodies' (1e-9 of p_ref x area), and holding the
  whole residual to the smaller one over-solved the body rows; a tenth of its tolerance is what
  the Newton test needs (a smaller share for the bodies makes the converged positions depend
  less on where each Krylov solve stops: see -krylov_block_fraction).  The residual is built (one product with
  J) only when the Krylov method's residual norm (the true one, under right preconditioning)
  could pass: every block below its bound implies a 2-norm below the bounds' 2-norm.
  Time steps only: a static solve (no mass term) of a stiff, spring-held body is
  ill-conditioned, and there the over-solving is what makes its displacements accurate beyond
  the Newton test (curved_bodies: 5e-6 relative with the test by blocks, against 1e-6 asked); a
  static solve is also done once, not at every step.
*/
static PetscErrorCode KrylovBlockTest(KSP ksp, PetscInt it, PetscReal rnorm, KSPConvergedReason *reason, void *ctx)
{
  TdSolver  s = (TdSolver)ctx;
  Vec       r;
  PetscReal nrm[3];
  PetscFunctionBegin;
  PetscCall(KSPConvergedDefault(ksp, it, rnorm, reason, s->krylov_default_ctx));
  if (*reason != KSP_CONVERGED_ITERATING || it == 0 || s->mode != TD_MODE_DYNAMIC || !(rnorm <= s->krylov_block_tol_norm)) PetscFunctionReturn(0);
  PetscCall(KSPBuildResidual(ksp, s->krylov_t, s->krylov_r, &r));
  PetscCall(BlockNorms(s, r, nrm));
  for (PetscInt b = 0; b < 3; b++)
    if (nrm[b] > s->krylov_block_tol[b]) PetscFunctionReturn(0);
  PetscCall(PetscInfo(ksp, "Krylov residual blocks %g %g %g below a tenth of their Newton tolerances at iteration %" PetscInt_FMT "\n", (double)nrm[0], (double)nrm[1], (double)nrm[2], it));
  *reason = KSP_CONVERGED_ATOL;
  PetscFunctionReturn(0);
}

/*
  The bodies' rounding floor.  ANCF coordinates are absolute positions: a coordinate known to its
  last bit is uncertain by half an ulp, which the stiffness turns into a residual of about
  K ulp(q)/2 per coordinate, however exact the arithmetic.  At the finest slider-guide level
  Newton's body residual stopped falling at 1.25e-6 N (109 000 coordinates), 0.8 of the bodies'
  fixed tolerance (1.6e-6 N); the paper's rig placed 10 m from the origin (ulp 30 times larger)
  took 14.8 Newton iterations per step instead of 1.9, ending its steps by the
  three-iterations-without-halving rule or halving them.  The estimate below gave 6.0e-7 N on the
  paper's meshes (their residual stops at 6.9e-7 N) and 1.9e-6 N at the finest level.
  Measured, not modelled: the body residual at U with every body coordinate moved by one ulp
  (signs from a hash of its natural index, so that the estimate is the same on any partition and
  every run) minus the residual at U is about sqrt(12) times the rms of the half-ulp rounding a
  converged iterate carries; the Newton test holds the bodies to at least twice that rms
  (BlockTolerance).  One extra residual every TD_FLOOR_PERIOD Newton solves of time steps (a
  retried step counts); static solves keep the floor rule of ConvergenceTest.
*/
#define TD_FLOOR_PERIOD 50
static PetscErrorCode EstimateBodyFloor(TdSolver s, SNES snes, Vec F)
{
  Vec                U;
  PetscInt           n, off;
  PetscScalar       *u;
  PetscReal          nrm[3];
  const PetscBool    jac_ready = s->film_jac_ready;
  TdFilmHit        **hits, **node_hits;
  PetscFunctionBegin;
  PetscCall(PetscMalloc2(PetscMax(s->model->nfilms, 1), &hits, PetscMax(s->model->nfilms, 1), &node_hits));
  PetscCall(SNESGetSolution(snes, &U));
  if (!s->floor_u) {
    PetscCall(VecDuplicate(U, &s->floor_u));
    PetscCall(VecDuplicate(U, &s->floor_r));
  }
  PetscCall(VecCopy(U, s->floor_u));
  PetscCall(TdSolverOwnedSlice(s, 0, s->model->nfree, NULL, &n, &off));
  PetscCall(VecGetArray(s->floor_u, &u));
  for (PetscInt k = 0; k < n; k++) {
    const PetscReal x  = PetscRealPart(u[off + k]);
    const PetscInt  up = (PetscInt)((((uint64_t)s->owned[off + k] + 1) * 2654435761u >> 13) & 1); /* natural index: any partition */
    u[off + k]         = nextafter(x, up ? PETSC_INFINITY : PETSC_NINFINITY);
  }
  PetscCall(VecRestoreArray(s->floor_u, &u));
  /* no side effects on the Newton solve: the cavitation branches are kept (in_test) and the
     projections' starting faces (hits) restored, so that a run whose floor lies below its
     tolerance is bitwise what it was without the estimate */
  for (PetscInt fi = 0; fi < s->model->nfilms; fi++) {
    const TdFilm  *f  = &s->model->films[fi];
    const PetscInt nq = 8 * (f->quad_end - f->quad_start), nn = 2 * (f->node_end - f->node_start); /* this rank's (film.h) */
    PetscCall(PetscMalloc2(PetscMax(nq, 1), &hits[fi], PetscMax(nn, 1), &node_hits[fi]));
    PetscCall(PetscArraycpy(hits[fi], f->hits, nq));
    PetscCall(PetscArraycpy(node_hits[fi], f->node_hits, nn));
  }
  s->in_test = PETSC_TRUE;
  PetscCall(TdSolverResidual(snes, s->floor_u, s->floor_r, s));
  s->in_test = PETSC_FALSE;
  for (PetscInt fi = 0; fi < s->model->nfilms; fi++) {
    TdFilm *f = &s->model->films[fi];
    PetscCall(PetscArraycpy(f->hits, hits[fi], 8 * (f->quad_end - f->quad_start)));
    PetscCall(PetscArraycpy(f->node_hits, node_hits[fi], 2 * (f->node_end - f->node_start)));
    PetscCall(PetscFree2(hits[fi], node_hits[fi]));
  }
  PetscCall(PetscFree2(hits, node_hits));
  PetscCall(VecAXPY(s->floor_r, -1, F));
  PetscCall(BlockNorms(s, s->floor_r, nrm));
  s->body_floor = nrm[0] / PetscSqrtReal(12.0);
  /* back to the iterate U (the state arrays, and the film Jacobian its first residual filled) */
  s->film_jac_ready = jac_ready;
  PetscCall(IterateFromVec(s, U, PETSC_FALSE));
  PetscCall(PetscInfo(snes, "bodies' rounding floor %g (tolerance %g)\n", (double)s->body_floor, (double)s->block_atol[0]));
  PetscFunctionReturn(0);
}

/* The Newton tolerance of block b (bodies, films, drives) in the current solve. */
static PetscReal BlockTolerance(TdSolver s, PetscInt b)
{
  PetscReal tol = PetscMax(s->block_atol[b], s->block_rtol * s->block_norm0[b]);
  if (b == 0 && s->mode == TD_MODE_DYNAMIC) tol = PetscMax(tol, 2 * s->body_floor);
  return tol;
}

/*
  Newton convergence judged on the scaled residual blocks separately (formulation.md §6): the
  body forces [N], the film rows (dimensionless, -R/scale) and the constraint rows [N] each
  converge when ||F_b|| <= max(atol_b, rtol ||F_b,0||).  A Newton step below 1e-12 ||x|| is
  converged too, and so is a residual that has fallen 1e-5 below its start and then stopped
  halving for three iterations: it has reached its rounding floor, which for stiff bodies and
  films under large loads lies above rtol.  PETSc's divergence tests (NaN, iteration limit)
  still apply.
*/
static PetscErrorCode ConvergenceTest(SNES snes, PetscInt it, PetscReal xnorm, PetscReal snorm, PetscReal fnorm, SNESConvergedReason *reason, void *ctx)
{
  TdSolver  s = (TdSolver)ctx;
  Vec       F;
  PetscReal nrm[3];
  PetscInt  maxit;
  PetscFunctionBegin;
  *reason = SNES_CONVERGED_ITERATING;
  PetscCall(SNESGetFunction(snes, &F, NULL, NULL));
  PetscCall(BlockNorms(s, F, nrm));
  if (it == 0) {
    for (PetscInt b = 0; b < 3; b++) s->block_norm0[b] = nrm[b];
    s->fnorm0 = s->fnorm_best = fnorm;
    s->it_best = 0;
    if (s->mode == TD_MODE_DYNAMIC && !s->in_test && s->floor_steps_left-- <= 0) {
      PetscCall(EstimateBodyFloor(s, snes, F));
      s->floor_steps_left = TD_FLOOR_PERIOD - 1;
    }
  } else if (fnorm < 0.5 * s->fnorm_best) {
    s->fnorm_best = fnorm;
    s->it_best    = it;
  }
  if (s->monitor_blocks) PetscCall(PetscPrintf(s->comm, "    %2" PetscInt_FMT " |R_bodies| %.6e  |R_films| %.6e  |R_drives| %.6e  |dx| %.3e\n", it, (double)nrm[0], (double)nrm[1], (double)nrm[2], (double)snorm));
  if (PetscIsInfOrNanReal(fnorm)) {
    *reason = SNES_DIVERGED_FNORM_NAN;
    PetscFunctionReturn(0);
  }
  {
    PetscBool ok = PETSC_TRUE;
    for (PetscInt b = 0; b < 3; b++)
      if (nrm[b] > BlockTolerance(s, b)) ok = PETSC_FALSE;
    if (ok) {
      *reason = it == 0 ? SNES_CONVERGED_FNORM_ABS : SNES_CONVERGED_FNORM_RELATIVE;
      PetscFunctionReturn(0);
    }
  }
  if (it == 0 && !s->ksp_atol_given) {
    /* The Krylov solves of this Newton solve need only a linear residual well below the
       smallest block tolerance (a tenth of it: each block's share of the 2-norm is then below a
       tenth of its own tolerance); the quadratic error of the Newton step is usually larger.
       Below that the relative tolerance (1e-10) rules, as before.  Solving to 1e-10 of a
       predictor residual dominated by the bodies over-solved by about two orders.  Set once
       per solve: the block tolerances are fixed at iteration 0.  With -krylov_block_test
       (KrylovBlockTest) each block is held to its share of its own tolerance instead
       (-krylov_block_fraction, a tenth by default). */
    KSP       ksp;
    PetscReal rtol, atol, dtol, thr = PETSC_MAX_REAL;
    PetscInt  maxits;
    s->krylov_block_tol_norm = 0;
    for (PetscInt b = 0; b < 3; b++) {
      const PetscReal tol_b = BlockTolerance(s, b);
      thr                   = PetscMin(thr, tol_b);
      s->krylov_block_tol[b] = s->krylov_block_fraction[b] * tol_b;
      s->krylov_block_tol_norm += PetscSqr(s->krylov_block_tol[b]);
    }
    s->krylov_block_tol_norm = PetscSqrtReal(s->krylov_block_tol_norm);
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetTolerances(ksp, &rtol, &atol, &dtol, &maxits));
    PetscCall(KSPSetTolerances(ksp, rtol, 0.1 * thr, dtol, maxits));
  }
  if (it > 0 && snorm <= 1e-12 * xnorm) {
    *reason = SNES_CONVERGED_SNORM_RELATIVE;
    PetscFunctionReturn(0);
  }
  /* the rounding floor: at least 1e-5 below the start, and three iterations without halving it */
  if (it >= s->it_best + 3 && s->fnorm_best <= 1e-5 * s->fnorm0) {
    *reason = SNES_CONVERGED_FNORM_RELATIVE;
    PetscFunctionReturn(0);
  }
  PetscCall(SNESGetTolerances(snes, NULL, NULL, NULL, &maxit, NULL));
  if (it >= maxit) *reason = SNES_DIVERGED_MAX_IT;
  PetscFunctionReturn(0);
}

/* Fills U from the full vector x (free entries) and the multipliers. */
static PetscErrorCode SetUnknowns(TdSolver s, const PetscReal x[], const PetscReal lambda[])
{
  TdModel     m = s->model;
  PetscInt    lo, hi;
  PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
  PetscCall(VecGetArray(s->U, &u));
  for (PetscInt i = 0; i < m->nfull; i++) {
    const PetscInt f = m->free_index[i] >= 0 ? s->to_petsc[m->free_index[i]] : -1;
    if (f >= lo && f < hi) u[f - lo] = x[i];
  }
  for (PetscInt c = 0; c < m->nrows; c++) {
    const PetscInt f = s->to_petsc[m->row_offset + c];
    if (f >= lo && f < hi) u[f - lo] = lambda[c] / s->row_scale;
  }
  PetscCall(VecRestoreArray(s->U, &u));
  PetscFunctionReturn(0);
}

/* After a converged solve: the state of the solution and its multipliers, on this rank's ghost
   set (state_ghosts.c: what its residuals, Jacobians and output records read; rank 0's holds
   every multiplier, each rank's the rows it owns).  The rest of the state arrays keeps older
   values until a new set or a whole record asks the owners (TdSolverStateFromOwners). */
static PetscErrorCode GetMultipliers(TdSolver s)
{
  const PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(IterateFromVec(s, s->U, PETSC_FALSE));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  for (PetscInt c = 0; c < s->model->nrows; c++) s->lambda[c] = s->row_scale * u[s->model->row_offset + c];
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(TdSolver s, PetscBool *converged)
{
  SNESConvergedReason reason;
  PetscInt            its, lits, lag;
  PetscFunctionBegin;
  /* A Jacobian kept by -snes_lag_jacobian -1/-2 (modified Newton, e.g. for small vibrations)
     must be rebuilt when it belongs to another mode or step size: the Newton matrix carries
     1/(beta' dt^2) and gamma/(beta dt). */
  PetscCall(SNESGetLagJacobian(s->snes, &lag));
  if (lag < 0 && (s->mode != TD_MODE_DYNAMIC || s->jacobian_dt != s->step_dt)) PetscCall(SNESSetLagJacobian(s->snes, -2));
  s->film_fuse_next = PETSC_TRUE;
  PetscCall(SNESSolve(s->snes, NULL, s->U));
  s->film_fuse_next = s->film_jac_ready = PETSC_FALSE;
  PetscCall(SNESGetConvergedReason(s->snes, &reason));
  PetscCall(SNESGetIterationNumber(s->snes, &its));
  PetscCall(SNESGetLinearSolveIterations(s->snes, &lits));
  s->newton_its += its;
  s->linear_its += lits;
  *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverInitialize(TdSolver s)
{
  TdModel   m = s->model;
  PetscBool ok;
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m->nfull; i++) {
    s->q[i] = m->q_ref[i];
    s->v[i] = s->a[i] = s->qdd[i] = 0;
  }
  for (PetscInt b = 0; b < m->nbodies; b++) {
    const TdBody *body = &m->bodies[b];
    if (body->type == TD_BODY_FREE) { /* r' = v0, a_k' = w x a_k with a_k = e_k */
      const PetscReal *w = body->initial_angular_velocity;
      PetscReal       *v = &s->v[TD_NODE_DOF * body->node_offset];
      for (PetscInt i = 0; i < 3; i++) v[i] = body->initial_velocity[i];
      for (PetscInt kk = 0; kk < 3; kk++) {
        const PetscReal e[3] = {kk == 0, kk == 1, kk == 2};
        vec3_cross(w, e, &v[3 * (1 + kk)]);
      }
      continue;
    }
    if (body->type != TD_BODY_ANCF) continue;
    for (PetscInt n = 0; n < body->mesh.nnodes; n++)
      for (PetscInt i = 0; i < 3; i++)
        if (!((body->clamped[n] >> i) & 1)) s->v[TD_NODE_DOF * (body->node_offset + n) + i] = body->initial_velocity[i];
  }
  s->t = 0;
  if (s->mode == TD_MODE_STATIC) PetscFunctionReturn(0);
  /* consistent initial accelerations: M qdd + Phi_q^T lambda = Q(q0, v0, 0), Phi_q qdd = b''(0) */
  s->mode      = TD_MODE_ACCELERATION;
  s->row_scale = m->mass_per_node;
  PetscCall(SetUnknowns(s, s->qdd, s->lambda));
  s->in_setup = PETSC_TRUE;
  {
    /* JFO film fractions: by default this quasi-static solve (no time term in (F18)) sets them
       to the film's quasi-steady balance at t = 0, starting from a full film, which a steadily
       running bearing wants.  A film given -<f>_theta0 has them as its initial condition (a
       starved film), which that balance would overwrite (to an empty film under a squeeze):
       they are kept as they were */
    PetscScalar *u, *theta0 = NULL;
    PetscInt     lo, hi;
    PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
    if (s->njfo) PetscCall(PetscMalloc1(s->njfo, &theta0));
    PetscCall(VecGetArray(s->U, &u));
    for (PetscInt i = 0; i < s->njfo; i++) {
      const PetscInt kt = s->to_petsc[s->jfo_theta[i]];
      theta0[i]         = kt >= lo && kt < hi ? u[kt - lo] : 0;
    }
    PetscCall(VecRestoreArray(s->U, &u));
    PetscCall(Solve(s, &ok));
    PetscCall(VecGetArray(s->U, &u));
    for (PetscInt i = 0, fi = -1, left = 0; i < s->njfo; i++, left--) {
      if (left == 0) /* the next JFO film's rows */
        for (fi++; fi < m->nfilms; fi++)
          if (m->films[fi].cavitation == TD_CAVITATION_JFO && (left = m->films[fi].nunknowns / 2) > 0) break;
      const PetscInt kt = s->to_petsc[s->jfo_theta[i]];
      if (m->films[fi].theta0_set && kt >= lo && kt < hi) u[kt - lo] = theta0[i];
    }
    PetscCall(VecRestoreArray(s->U, &u));
    PetscCall(PetscFree(theta0));
  }
  s->in_setup = PETSC_FALSE;
  if (!ok) SETERRQ(s->comm, PETSC_ERR_NOT_CONVERGED, "The consistent initial accelerations could not be computed (the linear solve failed); check that every body is held or free to move as intended (-snes_monitor -ksp_view show more)");
  PetscCall(GetMultipliers(s));
  for (PetscInt i = 0; i < m->nfull; i++) s->a[i] = s->qdd[i] = s->qdd1[i];
  s->newton_its = s->linear_its = 0;
  PetscFunctionReturn(0);
}

/*
  Film pressure predictor.  The bodies' predictor is generalised-alpha's (q + dt v + dt^2/2 a);
  the film unknowns have no rate of their own, and keeping p_n made them the largest part of the
  first Newton step.  Extrapolating linearly, p = p_n + dt (p_n - p_{n-1})/dt_{n-1}, starts
  Newton nearer the solution; on the cavitation bound the prediction is cut at p_cav.  The film
  range of the unknowns is [nfree, row_offset); TdSolverFilmSlice gives this rank's part of it
  (solver_private.h).
*/
PetscErrorCode TdSolverOwnedSlice(TdSolver s, PetscInt begin, PetscInt end, PetscInt *first, PetscInt *n, PetscInt *offset)
{
  PetscInt rlo, rhi, a = 0, b;
  PetscFunctionBegin;
  /* owned is ascending: this rank's unknowns of [begin, end) are the entries [a, b) of its part
     of U */
  PetscCall(VecGetOwnershipRange(s->U, &rlo, &rhi));
  while (a < rhi - rlo && s->owned[a] < begin) a++;
  b = a;
  while (b < rhi - rlo && s->owned[b] < end) b++;
  if (first) *first = rlo + a;
  *n = b - a;
  if (offset) *offset = a;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmSlice(TdSolver s, PetscInt *first, PetscInt *n, PetscInt *offset)
{
  PetscFunctionBegin;
  PetscCall(TdSolverOwnedSlice(s, s->model->nfree, s->model->row_offset, first, n, offset));
  PetscFunctionReturn(0);
}

static PetscErrorCode PredictPressures(TdSolver s, PetscReal dt)
{
  PetscInt     first = 0, n = 0, off = 0;
  PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmSlice(s, &first, &n, &off)); /* first: in U's numbering */
  if (!n || !s->film_u_start) PetscFunctionReturn(0);
  PetscCall(VecGetArray(s->U, &u));
  for (PetscInt k = 0; k < n; k++) {
    PetscScalar *uk = &u[off + k];
    s->film_u_start[k] = *uk;
    if (s->extrapolate_pressure && s->have_pressure_rate) {
      *uk += dt * s->film_u_rate[k];
      if (s->ncp_shift && PetscRealPart(*uk) < s->ncp_shift[s->owned[off + k]]) *uk = s->ncp_shift[s->owned[off + k]];
    }
  }
  if (s->extrapolate_pressure && s->have_pressure_rate)
    for (PetscInt i = 0; i < s->njfo; i++) {
      /* a film fraction stays a fraction */
      const PetscInt kt = s->to_petsc[s->jfo_theta[i]];
      if (kt >= first && kt < first + n) u[off + kt - first] = PetscMax(0, PetscMin(1, PetscRealPart(u[off + kt - first])));
    }
  PetscCall(VecRestoreArray(s->U, &u));
  PetscFunctionReturn(0);
}

/* before halving a failed step: the film unknowns of the step's start (p_n) */
static PetscErrorCode RestorePressures(TdSolver s)
{
  PetscInt     n = 0, off = 0;
  PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmSlice(s, NULL, &n, &off));
  if (!n || !s->film_u_start) PetscFunctionReturn(0);
  PetscCall(VecGetArray(s->U, &u));
  for (PetscInt k = 0; k < n; k++) u[off + k] = s->film_u_start[k];
  PetscCall(VecRestoreArray(s->U, &u));
  PetscFunctionReturn(0);
}

static PetscErrorCode UpdatePressureRate(TdSolver s, PetscReal dt)
{
  PetscInt           n = 0, off = 0;
  const PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmSlice(s, NULL, &n, &off));
  if (!n || !s->film_u_start) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(s->U, &u));
  for (PetscInt k = 0; k < n; k++) s->film_u_rate[k] = (u[off + k] - s->film_u_start[k]) / dt;
  PetscCall(VecRestoreArrayRead(s->U, &u));
  s->have_pressure_rate = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode StepRecursive(TdSolver s, PetscReal dt, PetscInt depth)
{
  TdModel   m = s->model;
  PetscBool ok;
  PetscFunctionBegin;
  s->mode      = TD_MODE_DYNAMIC;
  s->step_dt   = dt;
  s->film_miss[0] = 0;
  s->row_scale = m->mass_per_node * galpha_mass_coefficient(&s->ga, dt);
  TdJointsStepStart(m, s->q, s->v); /* clearance joints' approach speeds (F24) */
  PetscCall(TdSolverGhostsUpdate(s, PETSC_FALSE)); /* the faces around the films' points now */
  galpha_predict(&s->ga, dt, m->nfull, s->q, s->v, s->a, s->q1);
  if (s->njfo) {
    /* the film fractions at the start of the step, for their time term (F18) */
    const PetscScalar *u;
    PetscCall(TdSolverIterateScatter(s, s->U, PETSC_FALSE)); /* the fractions of this rank's quads, the only ones it uses */
    PetscCall(VecGetArrayRead(s->Useq, &u));
    TdFilmsStepStart(m, u);
    PetscCall(VecRestoreArrayRead(s->Useq, &u));
  }
  /* The film-body coupling pattern follows the iterates: the first Jacobian that meets a face
     pair outside it rebuilds it (TdSolverJacobian). */
  PetscCall(SetUnknowns(s, s->q1, s->lambda));
  PetscCall(PredictPressures(s, dt));
  PetscCall(VecCopy(s->U, s->U0));
  PetscCall(Solve(s, &ok));
  if (!ok && m->nfilms) {
    SNESConvergedReason reason;
    PetscInt            its;
    PetscCall(SNESGetConvergedReason(s->snes, &reason));
    PetscCall(SNESGetIterationNumber(s->snes, &its));
    if (reason == SNES_DIVERGED_FUNCTION_DOMAIN && its == 0) {
      /* the predictor drives a film point off its surface or through the film (after a strong
         deceleration by the film, say): start Newton from the last converged state instead */
      PetscCall(PetscInfo(s->snes, "predictor outside the film's domain at t = %g s (%s): Newton starts from the last state\n", (double)(s->t + dt), s->film_miss));
      for (PetscInt i = 0; i < m->nfull; i++) s->q1[i] = s->q[i];
      PetscCall(SetUnknowns(s, s->q1, s->lambda));
      PetscCall(VecCopy(s->U, s->U0));
      PetscCall(Solve(s, &ok));
    }
  }
  if (!ok && s->pc_reuse_ok) {
    /* a kept factorisation may have preconditioned this step badly (GMRES did not converge):
       the same step again from the same start with a fresh one, before halving */
    s->pc_ready = PETSC_FALSE;
    PetscCall(VecCopy(s->U0, s->U));
    PetscCall(Solve(s, &ok));
  }
  if (!ok) {
    SNESConvergedReason reason;
    PetscCall(SNESGetConvergedReason(s->snes, &reason));
    s->rejected++;
    if (depth >= s->max_halvings)
      SETERRQ(s->comm, PETSC_ERR_NOT_CONVERGED, "Newton did not converge at t = %g s (%s) even after halving the step %" PetscInt_FMT " times (dt = %g s)%s%s; try a smaller -dt, more -max_step_halvings, or look at -snes_monitor -snes_converged_reason", (double)s->t, SNESConvergedReasons[reason], depth, (double)dt, s->film_miss[0] ? "; last film problem: " : "", s->film_miss);
    PetscCall(PetscInfo(s->snes, "step at t = %g with dt = %g failed (%s); halving\n", (double)s->t, (double)dt, SNESConvergedReasons[reason]));
    PetscCall(RestorePressures(s));
    PetscCall(StepRecursive(s, dt / 2, depth + 1));
    PetscCall(StepRecursive(s, dt / 2, depth + 1));
    PetscFunctionReturn(0);
  }
  PetscCall(GetMultipliers(s));
  PetscCall(UpdatePressureRate(s, dt));
  if (s->newton_guess) {
    /* this step's Newton correction (SNES's sign: U = U0 - Y), the next one's first guess */
    PetscCall(VecWAXPY(s->Uguess, -1, s->U, s->U0));
    s->have_guess = PETSC_TRUE;
    s->guess_dt   = dt;
  }
  for (PetscInt i = 0; i < m->nfull; i++) {
    s->q[i]   = s->q1[i];
    s->v[i]   = s->v1[i];
    s->a[i]   = s->a1[i];
    s->qdd[i] = s->qdd1[i];
  }
  s->t += dt;
  s->steps++;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverStep(TdSolver s, PetscReal dt)
{
  PetscFunctionBegin;
  PetscCall(StepRecursive(s, dt, 0));
  PetscFunctionReturn(0);
}

static PetscReal StaticRowScale(TdModel m)
{
  PetscReal scale = 0;
  for (PetscInt b = 0; b < m->nbodies; b++) {
    const TdBody *body = &m->bodies[b];
    if (body->type == TD_BODY_ANCF && body->mesh.ncells) scale = PetscMax(scale, body->E * PetscMin(body->mesh.size[0], PetscMin(body->mesh.size[1], body->mesh.size[2])));
  }
  return scale > 0 ? scale : 1;
}

static PetscErrorCode StaticRecursive(TdSolver s, PetscReal from, PetscReal to, PetscInt depth)
{
  TdModel   m = s->model;
  PetscBool ok;
  PetscFunctionBegin;
  s->mode        = TD_MODE_STATIC;
  s->load_factor = to;
  s->row_scale   = StaticRowScale(m);
  PetscCall(SetUnknowns(s, s->q, s->lambda));
  PetscCall(Solve(s, &ok));
  if (!ok) {
    s->rejected++;
    if (depth >= s->max_halvings)
      SETERRQ(s->comm, PETSC_ERR_NOT_CONVERGED, "Static Newton did not converge at load factor %g even after halving the increment %" PetscInt_FMT " times; use more -load_steps or look at -snes_monitor", (double)to, depth);
    PetscCall(StaticRecursive(s, from, 0.5 * (from + to), depth + 1));
    PetscCall(StaticRecursive(s, 0.5 * (from + to), to, depth + 1));
    PetscFunctionReturn(0);
  }
  PetscCall(GetMultipliers(s));
  for (PetscInt i = 0; i < m->nfull; i++) s->q[i] = s->q1[i];
  s->steps++;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverStatic(TdSolver s, PetscReal load_factor)
{
  PetscFunctionBegin;
  PetscCall(StaticRecursive(s, s->load_factor, load_factor, 0));
  s->t = load_factor;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverEnergy(TdSolver s, PetscReal *kinetic, PetscReal *strain)
{
  TdModel   m  = s->model;
  PetscReal ek = 0, es = 0, sum[2];
  PetscFunctionBegin;
#pragma omp parallel reduction(+ : ek, es)
  {
    Ancf3843Work *work = &s->work[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (PetscInt le = 0; le < s->nelem_local; le++) {
      const PetscInt          e    = s->elem_local[le];
      const TdBody           *body = &m->bodies[m->element_body[e]];
      const Ancf3843Geometry *geo  = &body->geometry[body->cell_geometry[m->element_cell[e]]];
      PetscReal               eq[NDOF], ev[NDOF], w;
      TdModelElementGather(m, e, s->q, PETSC_TRUE, eq);
      TdModelElementGather(m, e, s->v, PETSC_FALSE, ev);
      ancf3843_internal_force(geo, &body->material, eq, NULL, NULL, &w, work); /* the energy only */
      es += w;
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
        for (PetscInt l = 0; l < ANCF3843_NSHAPE; l++) ek += 0.5 * body->rho * geo->mass_unit[k][l] * (ev[3 * k] * ev[3 * l] + ev[3 * k + 1] * ev[3 * l + 1] + ev[3 * k + 2] * ev[3 * l + 2]);
    }
  }
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
    for (PetscInt b = 0; b < (rank == 0 ? m->nbodies : 0); b++) { /* free rigid bodies: (1/2) v^T M v */
      const TdBody    *body = &m->bodies[b];
      const PetscReal *v    = &s->v[TD_NODE_DOF * body->node_offset];
      if (body->type != TD_BODY_FREE) continue;
      ek += 0.5 * body->mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      for (PetscInt kk = 0; kk < 3; kk++)
        for (PetscInt l = 0; l < 3; l++) ek += 0.5 * body->J[3 * kk + l] * (v[3 + 3 * kk] * v[3 + 3 * l] + v[4 + 3 * kk] * v[4 + 3 * l] + v[5 + 3 * kk] * v[5 + 3 * l]);
    }
  }
  sum[0] = ek;
  sum[1] = es;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 2, MPIU_REAL, MPIU_SUM, s->comm));
  *kinetic = sum[0];
  *strain  = sum[1];
  PetscFunctionReturn(0);
}

void TdSolverJointOutput(TdSolver s, PetscInt j, PetscReal f[3], PetscReal moment[3], PetscReal *angle, ClearanceContactState *contact)
{
  const TdJoint        *joint = &s->model->joints[j];
  PetscInt              r     = joint->first_row;
  PetscReal             mom[3] = {0, 0, 0};
  ClearanceContactState st;
  f[0] = f[1] = f[2] = 0;
  if (joint->type == TD_JOINT_CLEARANCE) {
    TdJointClearanceOutput(s->model, j, s->q, s->v, f, mom, &st);
    if (contact) *contact = st;
  } else if (joint->type >= TD_JOINT_SPHERICAL) TdJointIdealOutput(s->model, j, s->q, s->lambda, f, mom, angle);
  else if (joint->type == TD_JOINT_POINT) {
    for (PetscInt c = 0; c < 3; c++)
      if (joint->component[c]) f[c] = -s->lambda[r++];
  } else {
    f[0] = -s->lambda[r];
    f[1] = -s->lambda[r + 1];
  }
  if (moment)
    for (PetscInt i = 0; i < 3; i++) moment[i] = mom[i];
}
