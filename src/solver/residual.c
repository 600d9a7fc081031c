/*
  The residual of one step (solver.h; formulation.md F15, 4th and 5th lines, at t_{n+1}):
      R_q = M qdd + Q_int(q) + Q_v(q, v) - Q_g - Q_ext(t) + Phi_q^T lambda
      R_c = s (Phi(q) - b(t))              s = row_scale, lambda = s lambda_hat
  each rank its elements and its strip of every film's quads, rank 0 the loads, joints, free rigid
  bodies and constraint rows; summed at the owners of the rows (TdSolverResidualScatter).
*/
#include <tribodyn/solver.h>
#include "solver_private.h"
#include <tribodyn/spring_damper.h>
#include <tribodyn/vec3.h>
#include <omp.h>

#define NDOF ANCF3843_NDOF

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

PetscErrorCode TdSolverFilmsJacobianPass(TdSolver s, const PetscScalar u[], PetscReal ce, PetscReal cv, PetscReal rfull[], PetscScalar r[], PetscReal *load, PetscReal *friction, PetscBool *ok, PetscBool *kept)
{
  TdModel m = s->model;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmStiffnessKeep(s, &m->film_qq_keep));
  *kept = m->film_qq_keep;
  PetscCall(TdSolverFilmsAssemble(s, TdSolverStepTime(s), s->q1, s->v1, u, ce, cv, rfull, r, &s->coo_v[TdSolverCOOAfterElements(s)], load, friction, ok));
  m->film_qq_keep = PETSC_FALSE;
  s->film_qq_passes++;
  if (!*kept) {
    /* the pass zeroed and formed dQ/dq anew: current unless it failed */
    s->film_qq_formed++;
    s->film_qq_valid = *ok && !m->ghost_miss ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscFunctionReturn(0);
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
  const PetscReal    t1    = TdSolverStepTime(s);
  const PetscReal    gscale = s->mode == TD_MODE_STATIC ? s->load_factor : 1;
  PetscBool          finite = PETSC_TRUE, fuse;
  int                nt;
  const PetscInt    *run;
  PetscInt           nrun;
  PetscFunctionBegin;
  *ghost_miss = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  fuse              = s->film_fuse_next && !s->in_test && s->film_jac_any ? PETSC_TRUE : PETSC_FALSE;
  s->film_fuse_next = PETSC_FALSE;
  s->film_jac_ready = PETSC_FALSE;
  PetscCall(TdSolverIterateScatter(s, U, PETSC_FALSE));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  TdSolverIterateFromUnknowns(s, u);
  nrun = TdSolverIterateRuns(s, &run);

  /* elements: inertia, internal and damping forces, gravity (threads over this rank's elements).
     A residual that the Jacobian at its iterate follows also keeps each element's linearisation
     for the matrix-free Krylov operator (element_operator.c): the same pass over the Gauss
     points serves both. */
  const PetscBool lin = fuse && s->mf ? PETSC_TRUE : PETSC_FALSE;
  PetscReal       cM, ce = 0, cv = 0;
  if (lin) TdSolverModeCoefficients(s, &cM, &ce, &cv);
  s->mf_lin_fused = lin;
  PetscCall(PetscLogEventBegin(TD_ElementForces, 0, 0, 0, 0));
  /* the team of this call: the thread governor may run fewer threads than were allocated for */
  nt = PetscMin(omp_get_max_threads(), s->nthreads);
#pragma omp parallel num_threads(nt)
  {
    const int        tid  = omp_get_thread_num();
    PetscReal       *rf   = &s->thread_r[(size_t)tid * nfull];
    Ancf3843Work    *work = &s->work[tid];
    for (PetscInt k = 0; k < nrun; k++)
      for (PetscInt i = run[2 * k]; i < run[2 * k + 1]; i++) rf[i] = 0;
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
      if (lin && s->mf_dense[le] < 0) ancf3843_force_and_linearize(geo, &body->material, eq, ev, ce, cv, Q, &s->elem_strain[le], &s->mf_lin[le], work);
      else ancf3843_internal_force(geo, &body->material, eq, ev, Q, &s->elem_strain[le], work);
      if (m->element_load_offset) /* follower pressures (F16) and tractions (F16b) on the element's faces */
        for (PetscInt j = m->element_load_offset[e]; j < m->element_load_offset[e + 1]; j++) {
          const TdLoad *load = &m->loads[m->element_loads[j].load];
          if (load->type == TD_LOAD_PRESSURE) ancf3843_face_pressure(geo->a, geo->b, geo->c, (int)m->element_loads[j].face, eq, TdSolverPressureAt(s, load, t1), Q, NULL, 0);
          else {
            const PetscReal *A = m->element_loads[j].shape_area;
            PetscReal        tr[3];
            TdSolverTractionAt(s, load, t1, tr);
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
    for (PetscInt k = 0; k < nrun; k++)
      for (PetscInt i = run[2 * k]; i < run[2 * k + 1]; i++) s->thread_r[i] += rt[i];
  }
  PetscCall(PetscLogEventEnd(TD_ElementForces, 0, 0, 0, 0));
  /* this iterate, whose elements' strain energies (and films' loads, below) the output record of
     a converged step takes (TdSolverAtLastResidual); a residual of a derivative check is not an
     iterate */
  s->res_t        = s->in_test ? PETSC_NINFINITY : t1;
  s->film_load_ok = PETSC_FALSE;
  if (!s->in_test) TdSolverCopyRead(s, u, s->res_u);
  PetscCall(VecGetArray(s->Rseq, &r));
  /* the residual's entries are those of the ghost set (TdSolverIterateRuns): only they are zeroed,
     summed and sent */
  TdSolverZeroRead(s, r);
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
      TdSolverTorqueAt(s, load, t1, M);
      AddTorque(&load->point, M, s->q1, rf);
    }
    /* spring-dampers (F17), on rank 0: -S_a g on the first end, +S_b g on the second; the
       damping with the iterate's rates (the initial ones in the initial-acceleration solve, none
       in statics) */
    for (PetscInt l = 0; l < (rank == 0 ? m->nloads : 0); l++) {
      const TdLoad *load = &m->loads[l];
      PetscReal     xa[3], xb[3], va[3], vb[3], g[3];
      if (load->type != TD_LOAD_SPRING) continue;
      TdSolverSpringEnds(s, load, xa, xb, va, vb);
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
        PetscReal       cM = 0, ce = 0, cv = 0;
        const PetscBool miss = m->coupling_miss;
        TdSolverModeCoefficients(s, &cM, &ce, &cv);
        PetscCall(PetscLogEventBegin(TD_FilmFused, 0, 0, 0, 0));
        PetscCall(TdSolverFilmsJacobianPass(s, u, ce, cv, rf, r, s->film_load, s->film_friction, &ok, &s->film_jac_qq_kept));
        PetscCall(PetscLogEventEnd(TD_FilmFused, 0, 0, 0, 0));
        /* a pattern miss concerns the Jacobian pass of this iterate only */
        s->film_jac_miss = m->coupling_miss;
        m->coupling_miss = miss;
        TdSolverCopyRead(s, r, s->film_r); /* only the film rows are set yet */
        s->film_jac_ghost_only = TdSolverGhostOnly(s); /* res_u, copied above, is this pass's iterate */
        s->film_jac_ok    = ok;
        s->film_jac_ready = PETSC_TRUE;
      } else PetscCall(TdSolverFilmsAssemble(s, t1, s->q1, s->v1, u, 0, 0, rf, r, NULL, s->film_load, s->film_friction, &ok));
      if (m->ghost_miss) {
        /* some rank needs more of the iterate: nothing of this pass counts */
        m->coupling_miss  = coupling_miss;
        s->film_jac_ready = PETSC_FALSE;
        *ghost_miss       = PETSC_TRUE;
        PetscCall(PetscLogEventEnd(TD_FilmResidual, 0, 0, 0, 0));
        PetscCall(VecRestoreArray(s->Rseq, &r));
        PetscCall(VecRestoreArrayRead(s->Useq, &u));
        PetscFunctionReturn(0);
      }
      /* the films' loads at this iterate, for the output record of a converged step (the last
         residual SNES evaluates is at its solution) */
      s->film_load_ok = ok;
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
      v = TdSolverMotorValueAt(s, joint, t1);
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
  for (PetscInt k = 0; k < nrun; k++)
    for (PetscInt i = run[2 * k]; i < run[2 * k + 1]; i++) {
      const PetscInt f = m->free_index[i];
      if (f >= 0) r[f] += s->thread_r[i];
    }
  if (TdSolverGhostOnly(s)) {
    for (PetscInt k = 0; k < s->nghost; k++)
      if (PetscIsInfOrNanReal(r[s->ghost[k]])) finite = PETSC_FALSE;
  } else
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

