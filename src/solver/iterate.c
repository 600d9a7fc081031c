/*
  The Newton iterate and what depends on its time (solver_private.h): the Jacobian's mode
  coefficients, the full state (q1, v1, a1, qdd1) from the unknowns, the step's end time, and
  the loads' and motors' values at that time, shared by the residual (residual.c) and the
  Jacobian (jacobian.c).
*/
#include <tribodyn/solver.h>
#include "solver_private.h"

/* Jacobian coefficients of the current mode: c_M (inertia), c_e (stiffness), c_v (damping). */
void TdSolverModeCoefficients(TdSolver s, PetscReal *cM, PetscReal *ce, PetscReal *cv)
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

/* The iterate's q1, v1, a1, qdd1 (full vectors) from the unknown vector u, on the coordinates
   of TdSolverIterateRuns (all of them when u is whole). */
void TdSolverIterateFromUnknowns(TdSolver s, const PetscScalar u[])
{
  TdModel         m = s->model;
  const PetscInt *run;
  const PetscInt  nrun = TdSolverIterateRuns(s, &run);
  for (PetscInt k = 0; k < nrun; k++) {
    const PetscInt i0 = run[2 * k], i1 = run[2 * k + 1];
    switch (s->mode) {
    case TD_MODE_DYNAMIC:
      for (PetscInt i = i0; i < i1; i++) s->q1[i] = m->free_index[i] >= 0 ? u[m->free_index[i]] : m->q_ref[i];
      galpha_rates(&s->ga, s->step_dt, i1 - i0, &s->q1[i0], &s->q[i0], &s->v[i0], &s->a[i0], &s->qdd[i0], &s->v1[i0], &s->a1[i0], &s->qdd1[i0]);
      break;
    case TD_MODE_ACCELERATION:
      for (PetscInt i = i0; i < i1; i++) {
        s->q1[i]   = s->q[i];
        s->v1[i]   = s->v[i];
        s->qdd1[i] = m->free_index[i] >= 0 ? u[m->free_index[i]] : 0;
        s->a1[i]   = s->qdd1[i];
      }
      break;
    case TD_MODE_STATIC:
      for (PetscInt i = i0; i < i1; i++) {
        s->q1[i] = m->free_index[i] >= 0 ? u[m->free_index[i]] : m->q_ref[i];
        s->v1[i] = s->qdd1[i] = s->a1[i] = 0;
      }
      break;
    }
  }
}

/* The iterate of the distributed vector U: U to every rank (Useq, which keeps it; whole, or
   only each rank's ghost set), then TdSolverIterateFromUnknowns. */
PetscErrorCode TdSolverIterateFromVec(TdSolver s, Vec U, PetscBool whole)
{
  const PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverIterateScatter(s, U, whole));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  TdSolverIterateFromUnknowns(s, u);
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscFunctionReturn(0);
}


PetscReal TdSolverStepTime(TdSolver s) { return s->mode == TD_MODE_DYNAMIC ? s->t + s->step_dt : s->t; }

/* A spring's ends at the iterate: positions and velocities (the second end fixed for ground). */
void TdSolverSpringEnds(TdSolver s, const TdLoad *load, PetscReal xa[3], PetscReal xb[3], PetscReal va[3], PetscReal vb[3])
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
void TdSolverTorqueAt(TdSolver s, const TdLoad *load, PetscReal t, PetscReal M[3])
{
  if (s->mode == TD_MODE_STATIC)
    for (PetscInt i = 0; i < 3; i++) M[i] = s->load_factor * load->force[i];
  else TdLoadForce(load, t, M);
}

/* A pressure load's value in this solve: its profile at t, or in a static solve its full value
   times the load factor (as the point loads). */
PetscReal TdSolverPressureAt(TdSolver s, const TdLoad *load, PetscReal t)
{
  return s->mode == TD_MODE_STATIC ? s->load_factor * load->pressure : TdLoadPressure(load, t);
}

/* A torque or force motor's value at t (statics: the full value times the load factor) (F23) */
PetscReal TdSolverMotorValueAt(TdSolver s, const TdJoint *joint, PetscReal t)
{
  PetscReal v[3];
  if (s->mode == TD_MODE_STATIC) return s->load_factor * joint->motor_value;
  TdJointMotorTarget(joint, t, v);
  return v[0];
}

void TdSolverTractionAt(TdSolver s, const TdLoad *load, PetscReal t, PetscReal tr[3])
{
  if (s->mode == TD_MODE_STATIC)
    for (PetscInt i = 0; i < 3; i++) tr[i] = s->load_factor * load->force[i];
  else TdLoadForce(load, t, tr);
}

