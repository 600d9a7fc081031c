/*
  The Jacobian of one step (solver.h, formulation.md F15-F24): its COO pattern
  (TdSolverBuildJacobian: element blocks of this rank, the film blocks of this rank's quads, then
  on rank 0 one diagonal entry per cavitating film row, the constraint, load, rigid-body and joint
  blocks), its values (TdSolverJacobian: element blocks c_M rho M_e + c_e dQ/de + c_v dQ/dedot
  written by each thread straight into J's value arrays, the films' blocks, the constant
  constraint blocks s Phi_q), the kept LU's decision (renew or keep the factorisation), the
  factored matrix kept for checkpoints, and the central-difference check of -test_jacobian.
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/spring_damper.h>
#include <omp.h>

#define NDOF ANCF3843_NDOF

static PetscErrorCode TestJacobianCentral(TdSolver s, SNES snes, Vec U, Mat J);

/* whether this Jacobian is checked by central differences (-test_jacobian) */
static PetscBool TestJacobianDue(TdSolver s)
{
  return s->test_jacobian > 0 && !s->in_test && (s->test_jacobian_time <= 0 || (s->mode == TD_MODE_DYNAMIC && TdSolverStepTime(s) > s->test_jacobian_time)) ? PETSC_TRUE : PETSC_FALSE;
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
  s->film_qq_valid  = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(PetscFree(s->coo_v));
  s->nfilm_coo = 0;
  {
    PetscInt         nloc = s->nelem_local, nc = 0;
    PetscInt        *ci, *cj, k = 0;
    PetscBool        seqaij;
    const PetscCount ne = TdSolverCOOAfterElements(s); /* the element blocks' entries, first in coo_v */
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
    s->ncoo = ne + s->nfilm_coo + nc;
    PetscCall(PetscInfo(NULL, "Jacobian COO entries of this rank: %" PetscCount_FMT " (elements %" PetscCount_FMT ", films %" PetscCount_FMT ", constraints %" PetscInt_FMT ")\n", s->ncoo, ne, s->nfilm_coo, nc));
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
      PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
      for (PetscCount i = 0; i < s->ncoo; i++)
        if (ci[i] >= 0 && (ci[i] < lo || ci[i] >= hi)) {
          if (i < ne) off_e++;
          else if (i < ne + s->nfilm_coo) off_f++;
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
    /* -matrix_free_elements: Jrest, the pattern without the element blocks */
    {
      const PetscCount nr = s->ncoo - ne;
      if (s->Jrest) PetscCall(TdSolverElementOperatorPattern(s, nr, ci + ne, cj + ne));
      else if (!s->snes) {
        /* the first pattern (TdSolverCreate), before the option is read: kept for the set-up */
        PetscCall(PetscFree2(s->mf_stash_i, s->mf_stash_j));
        PetscCall(PetscMalloc2(PetscMax(nr, 1), &s->mf_stash_i, PetscMax(nr, 1), &s->mf_stash_j));
        PetscCall(PetscArraycpy(s->mf_stash_i, ci + ne, nr));
        PetscCall(PetscArraycpy(s->mf_stash_j, cj + ne, nr));
        s->mf_stash_n = nr;
      }
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

/* Whether the Jacobian at the current iterate keeps the factorisation of an earlier one: the
   last Krylov solve converged within -refactor_its iterations, in the same mode, step size and
   pattern (TdSolverJacobian adds the JFO rows' test when there is no film stage).  The same at
   the iterate's residual as at its Jacobian: no Krylov solve comes between them. */
PetscErrorCode TdSolverKeptLUReuse(TdSolver s, PetscBool *reuse)
{
  const PetscReal dt = s->mode == TD_MODE_DYNAMIC ? s->step_dt : -1;
  PetscFunctionBegin;
  *reuse = PETSC_FALSE;
  if (s->pc_reuse_ok && s->pc_ready && s->pc_mode == s->mode && s->pc_dt == dt) {
    PetscInt           lits;
    KSPConvergedReason kreason;
    PetscCall(TdSolverLastKrylov(s, &lits, &kreason));
    *reuse = lits <= s->refactor_its && kreason >= 0 ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(0);
}

/* -film_stiffness_lag: the film pass at the current iterate may keep coo_v's dQ/dq blocks when
   they are those of a pass of the current pattern, the kept LU is not factored at this
   iterate's Jacobian, and nothing compares J with differences. */
PetscErrorCode TdSolverFilmStiffnessKeep(TdSolver s, PetscBool *keep)
{
  PetscBool reuse;
  PetscFunctionBegin;
  *keep = PETSC_FALSE;
  if (!s->film_qq_lag || !s->film_qq_valid || s->in_test || s->mf_form_all || TestJacobianDue(s)) PetscFunctionReturn(0);
  PetscCall(TdSolverKeptLUReuse(s, &reuse));
  *keep = reuse;
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
void TdSolverElementTangent(TdSolver s, PetscInt le, int tid, PetscReal t1, PetscReal cM, PetscReal ce, PetscReal cv, PetscReal K[])
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
        if (m->loads[m->element_loads[j].load].type == TD_LOAD_PRESSURE) ancf3843_face_pressure(geo->a, geo->b, geo->c, (int)m->element_loads[j].face, eq, TdSolverPressureAt(s, &m->loads[m->element_loads[j].load], t1), Qp, K, ce);
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

/* The element tangents of the iterate into P (direct blocks) and into the COO array (the rest). */
static PetscErrorCode FormElementTangents(TdSolver s, Mat P, PetscReal t1, PetscReal cM, PetscReal ce, PetscReal cv)
{
  PetscFunctionBegin;
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
            TdSolverElementTangent(s, le, tid, t1, cM, ce, cv, K);
            TdCOOMapAddBlock(&s->coo_map, le, K, aa, ba);
          }
      }
#pragma omp for schedule(dynamic, 2)
      for (PetscInt le = 0; le < s->nelem_local; le++)
        if (!direct || !s->coo_map.block_direct[le]) TdSolverElementTangent(s, le, tid, t1, cM, ce, cv, &s->coo_v[(size_t)le * NDOF * NDOF]);
    }
    if (direct) PetscCall(TdCOOMapRestoreArrays(P, &aa, &ba));
  }
  PetscCall(PetscLogEventEnd(TD_ElementTangents, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverJacobian(SNES snes, Vec U, Mat J, Mat P, void *ctx)
{
  TdSolver           s = (TdSolver)ctx;
  TdModel            m = s->model;
  const PetscScalar *u;
  PetscReal          cM, ce, cv;
  PetscMPIInt        rank;
  PetscBool          fused_iterate = PETSC_FALSE; /* the residual at this iterate came just before (its film pass and element linearisations serve) */
  PetscBool          film_qq_kept  = PETSC_FALSE; /* the film pass kept the dQ/dq blocks of an earlier Jacobian (-film_stiffness_lag) */
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  TdSolverModeCoefficients(s, &cM, &ce, &cv);
  const PetscReal t1 = TdSolverStepTime(s);
  s->jacobian_dt = s->mode == TD_MODE_DYNAMIC ? s->step_dt : -1;
  PetscCall(TdSolverIterateScatter(s, U, PETSC_FALSE));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  TdSolverIterateFromUnknowns(s, u);
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  {
    /* films: this rank's entries; rank 0 then the cavitating rows' diagonals and the constraint
       blocks */
    PetscCount k  = TdSolverCOOAfterElements(s);
    PetscBool  ok = PETSC_TRUE;
    if (s->film_jac_any) {
      PetscBool same = PETSC_FALSE;
      PetscCall(VecGetArrayRead(s->Useq, &u));
      if (s->film_jac_ready && s->film_jac_ghost_only == TdSolverGhostOnly(s)) same = TdSolverEqualRead(s, u, s->res_u);
      fused_iterate = same;
      if (same) {
        /* filled by this iterate's residual */
        ok           = s->film_jac_ok;
        film_qq_kept = s->film_jac_qq_kept;
        if (s->film_jac_miss) m->coupling_miss = PETSC_TRUE;
      } else {
        TdSolverZeroRead(s, s->film_r);
        PetscCall(PetscLogEventBegin(TD_FilmJacobian, 0, 0, 0, 0));
        PetscCall(TdSolverFilmsJacobianPass(s, u, ce, cv, NULL, s->film_r, NULL, NULL, &ok, &film_qq_kept));
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
      if (!ok) {
        s->film_qq_valid = PETSC_FALSE;
        for (PetscCount i = 0; i < s->nfilm_coo; i++) s->coo_v[k + i] = 0;
      }
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
      TdJointsUpdate(m, TdSolverStepTime(s));
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
          TdSolverTorqueAt(s, load, TdSolverStepTime(s), M);
          TorqueBlock(&load->point, M, ce, &s->coo_v[k]);
          k += NDOF * NDOF;
          continue;
        }
        /* springs (F17): d(sigma_a S_a g)/dq_b = sigma_a sigma_b S_a S_b (ce Kd + cv Kv),
           sigma = -1 on the first end and +1 on the second */
        if (load->type != TD_LOAD_SPRING) continue;
        TdSolverSpringEnds(s, load, xa, xb, va, vb);
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
          v = TdSolverMotorValueAt(s, joint, TdSolverStepTime(s));
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
    PetscCall(TdFilmsCouplingUpdate(m, TdSolverStepTime(s), s->q1, s->v1, &changed, NULL));
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
  {
    /* Keep the factorisation of an earlier Jacobian while it preconditions well: the last Krylov
       solve converged within -refactor_its iterations, in the same mode, step size and pattern.
       The operator is this Jacobian, so the Newton step stays exact, except for the films' dQ/dq
       blocks under -film_stiffness_lag (kept from the last factorisation, kept_lu.c). */
    PetscBool reuse, form;
    PetscCall(TdSolverKeptLUReuse(s, &reuse));
    if (reuse && s->njfo && !s->film_correction) {
      /* each JFO row that changed branch since the factorisation changes the matrix by one
         row, a rank-one change the Krylov method absorbs in about one iteration: beyond
         -jfo_refactor_rows of them, factor anew (the film-block correction absorbs them
         instead) */
      PetscInt changed;
      PetscCall(FilmRowsChanged(s, PETSC_FALSE, &changed));
      if (changed > s->jfo_refactor_rows) reuse = PETSC_FALSE;
    }
    /* the element tangents are formed into J unless the Krylov operator multiplies without
       them (-matrix_free_elements) and J is not factored (nor checked: -test_jacobian,
       -snes_test_jacobian) at this iterate */
    form = !s->mf || !reuse || s->mf_form_all || TestJacobianDue(s) ? PETSC_TRUE : PETSC_FALSE;
    s->mf_jacobians++;
    if (form) {
      s->mf_formed++;
      PetscCall(FormElementTangents(s, P, t1, cM, ce, cv));
      PetscCall(PetscLogEventBegin(TD_JacobianValues, 0, 0, 0, 0));
      if (s->coo_map.entry && P == s->J) PetscCall(TdCOOMapSetValues(P, &s->coo_map, s->coo_v));
      else PetscCall(MatSetValuesCOO(P, s->coo_v, INSERT_VALUES));
      PetscCall(PetscLogEventEnd(TD_JacobianValues, 0, 0, 0, 0));
    }
    PetscCall(TdSolverElementOperatorLinearize(s, t1, cM, ce, cv, fused_iterate && s->mf_lin_fused ? PETSC_TRUE : PETSC_FALSE));
    s->mf_lin_fused = PETSC_FALSE;
    if (form) PetscCall(TdSolverElementOperatorCheck(s, P));
    s->restored_ksp = PETSC_FALSE;
    /* a factorisation needs this iterate's dQ/dq: TdSolverFilmStiffnessKeep foresaw it */
    PetscCheck(reuse || !film_qq_kept, s->comm, PETSC_ERR_PLIB, "Internal error: the film pass kept the dQ/dq blocks of an earlier Jacobian for a Jacobian that is factored; run with -film_stiffness_lag false and report this");
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
    /* the film rows are whole in Jrest too, and current there at every Jacobian */
    PetscCall(FilmStageDecide(s, s->mf ? s->Jrest : P, reuse));
  }
  if (J != P) {
    PetscCall(MatAssemblyBegin(J, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(J, MAT_FINAL_ASSEMBLY));
  }
  if (TestJacobianDue(s)) {
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
    PetscCall(PetscPrintf(s->comm, "tribodyn: Jacobian test at t = %g skipped: %s\n", (double)TdSolverStepTime(s), s->film_miss));
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
          PetscCall(PetscPrintf(s->comm, "tribodyn: Jacobian test block %c%c at t = %g: ||J - J_fd||_F/||J||_F = %g, ||J||_F = %g\n", names[bi], names[bj], (double)TdSolverStepTime(s), (double)(jn > 0 ? dn / jn : dn), (double)jn));
          if (jn > 0) s->test_jacobian_max = PetscMax(s->test_jacobian_max, dn / jn);
        }
      }
  }
  PetscCall(MatAXPY(Jfd, -1.0, Jd, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(Jfd, NORM_FROBENIUS, &nd));
  PetscCall(PetscPrintf(s->comm, "tribodyn: Jacobian test (central differences) at t = %g: ||J - J_fd||_F/||J||_F = %g, ||J||_F = %g\n", (double)TdSolverStepTime(s), (double)(nd / nj), (double)nj));
  s->test_jacobian_max = PetscMax(s->test_jacobian_max, nd / nj);
  PetscCall(MatDestroy(&Jd));
  PetscCall(MatDestroy(&Jfd));
  PetscCall(VecDestroy(&Up));
  PetscCall(VecDestroy(&Rp));
  PetscCall(VecDestroy(&Rm));
  PetscCall(TdSolverIterateFromVec(s, U, PETSC_FALSE)); /* restore the iterate of U */
  s->in_test = PETSC_FALSE;
  PetscFunctionReturn(0);
}

