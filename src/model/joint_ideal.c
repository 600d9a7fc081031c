/*
  Ideal joints between two bodies, or a body and ground (model.h, formulation.md (F22)):
  spherical, revolute, universal, fixed, distance, cylindrical, prismatic and inline (a point
  on a line), for any pair of
  ANCF bodies and free rigid bodies.  Every row is linear in the coordinates (the spherical
  rows: the two material points' positions agree) or the dot product of two affine vector forms
  U . W = b0 (kind 5): a material direction F u at the joint point (the point's global-axis
  gradient functions, which for a free rigid body are its axes), the vector between the two
  material points, or a constant on ground.  Such a row's Jacobian comes from the state, and its
  multiplier's Hessian, lambda (dU/dq^T dW/dq + dW/dq^T dU/dq), enters the bodies' blocks.
*/
#include "model_private.h"
#include <tribodyn/options.h>
#include <tribodyn/vec3.h>
#include <string.h>

/* F u at the joint point of side s as a form (ground: the constant u) */
static void FormDirection(const TdJoint *j, PetscInt s, const PetscReal u[3], PetscReal sign, TdVectorForm *f)
{
  if (j->body[s] < 0) {
    for (PetscInt i = 0; i < 3; i++) f->c0[i] += sign * u[i];
    return;
  }
  for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
    const PetscReal g = u[0] * j->at[s].G[0][k] + u[1] * j->at[s].G[1][k] + u[2] * j->at[s].G[2][k];
    if (g == 0) continue;
    for (PetscInt i = 0; i < 3; i++) {
      f->coord[f->n]  = j->at[s].coord[3 * k + i];
      f->coef[f->n++] = sign * g;
    }
  }
}

/* the position of side s's material point as a form (ground: the point X) */
static void FormPosition(const TdJoint *j, PetscInt s, const PetscReal X[3], PetscReal sign, TdVectorForm *f)
{
  if (j->body[s] < 0) {
    for (PetscInt i = 0; i < 3; i++) f->c0[i] += sign * X[i];
    return;
  }
  for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
    if (j->at[s].S[k] == 0) continue;
    for (PetscInt i = 0; i < 3; i++) {
      f->coord[f->n]  = j->at[s].coord[3 * k + i];
      f->coef[f->n++] = sign * j->at[s].S[k];
    }
  }
}

static PetscReal FormComponent(const TdVectorForm *f, const PetscReal q[], PetscBool rates, PetscInt i)
{
  PetscReal v = rates ? 0 : f->c0[i];
  for (PetscInt t = 0; t < f->n; t++)
    if (f->coord[t] % 3 == i) v += f->coef[t] * q[f->coord[t]];
  return v;
}

void TdRowFormValue(const TdVectorForm *f, const PetscReal q[], PetscBool rates, PetscReal V[3])
{
  for (PetscInt i = 0; i < 3; i++) V[i] = FormComponent(f, q, rates, i);
}

void TdRowFormValues(const TdConstraintRow *row, const PetscReal q[], PetscBool rates, PetscReal U[3], PetscReal W[3])
{
  for (PetscInt i = 0; i < 3; i++) {
    U[i] = FormComponent(row->form[0], q, rates, i);
    W[i] = FormComponent(row->form[1], q, rates, i);
  }
}

/* the (U, W) pairs of a row's Hessian: kind 5: (form0, form1), weight 1; kind 6: (U1 = form0, W =
   form1) with -sin(th), (U2 = form2, W) with cos(th) */
static PetscInt HessianPairs(const TdConstraintRow *row, const TdVectorForm *U[2], const TdVectorForm **W, PetscReal w[2])
{
  U[0] = row->form[0];
  *W   = row->form[1];
  w[0] = 1;
  if (row->kind != 6) return 1;
  U[1] = row->form[2];
  w[0] = -PetscSinReal(row->theta[0]);
  w[1] = PetscCosReal(row->theta[0]);
  return 2;
}

PetscCount TdRowHessianEntries(const TdConstraintRow *row)
{
  const TdVectorForm *U[2], *W;
  PetscReal           w[2];
  PetscCount          n = 0;
  if (row->kind != 5 && row->kind != 6) return 0;
  for (PetscInt pr = 0, np = HessianPairs(row, U, &W, w); pr < np; pr++)
    for (PetscInt t = 0; t < U[pr]->n; t++)
      for (PetscInt s = 0; s < W->n; s++) n += U[pr]->coord[t] % 3 == W->coord[s] % 3 ? 2 : 0;
  return n;
}

/* the Hessian's entries in one order: their full-coordinate rows and columns (ci, cj) and their
   values times scale (v), each if not NULL */
static void HessianWalk(const TdConstraintRow *row, PetscReal scale, PetscInt ci[], PetscInt cj[], PetscReal v[])
{
  const TdVectorForm *U[2], *W;
  PetscReal           w[2];
  PetscCount          k = 0;
  for (PetscInt pr = 0, np = HessianPairs(row, U, &W, w); pr < np; pr++)
    for (PetscInt t = 0; t < U[pr]->n; t++)
      for (PetscInt s = 0; s < W->n; s++) {
        const PetscInt a = U[pr]->coord[t], b = W->coord[s];
        if (a % 3 != b % 3) continue;
        if (ci) ci[k] = a, cj[k] = b, ci[k + 1] = b, cj[k + 1] = a;
        if (v) v[k] = v[k + 1] = scale * w[pr] * U[pr]->coef[t] * W->coef[s];
        k += 2;
      }
}

void TdRowHessianPattern(const TdConstraintRow *row, PetscInt ci[], PetscInt cj[])
{
  HessianWalk(row, 0, ci, cj, NULL);
}

void TdRowHessianValues(const TdConstraintRow *row, PetscReal scale, PetscReal v[])
{
  HessianWalk(row, scale, NULL, NULL, v);
}

/* a linear row: component i of W (U unused), held at its reference value */
static PetscErrorCode AddLinearRow(TdModel model, PetscInt j, const TdVectorForm *f, PetscInt i)
{
  TdConstraintRow *row = &model->rows[model->nrows++];
  PetscFunctionBegin;
  row->kind   = 0;
  row->joint  = j;
  row->nterms = 0;
  for (PetscInt t = 0; t < f->n; t++)
    if (f->coord[t] % 3 == i) {
      row->coord[row->nterms]  = f->coord[t];
      row->coef[row->nterms++] = f->coef[t];
    }
  /* the row's value in the reference configuration (the constant moves to the right side) */
  row->b0 = 0;
  for (PetscInt t = 0; t < row->nterms; t++) row->b0 += row->coef[t] * model->q_ref[row->coord[t]];
  PetscFunctionReturn(0);
}

/* a kind-5 row U . W = its reference value */
static PetscErrorCode AddDotRow(TdModel model, PetscInt j, const TdVectorForm *U, const TdVectorForm *W)
{
  TdConstraintRow *row = &model->rows[model->nrows++];
  PetscReal        u[3], w[3];
  PetscFunctionBegin;
  PetscCall(PetscNew(&row->form[0]));
  PetscCall(PetscNew(&row->form[1]));
  *row->form[0] = *U;
  *row->form[1] = *W;
  row->kind     = 5;
  row->joint    = j;
  row->nterms   = U->n + W->n;
  for (PetscInt t = 0; t < U->n; t++) row->coord[t] = U->coord[t];
  for (PetscInt t = 0; t < W->n; t++) row->coord[U->n + t] = W->coord[t];
  TdRowFormValues(row, model->q_ref, PETSC_FALSE, u, w);
  row->b0 = vec3_dot(u, w);
  TdConstraintRowCoefficients(row, model->q_ref, row->coef);
  PetscFunctionReturn(0);
}

void TdAxisNormalsInternal(const PetscReal u[3], PetscReal v1[3], PetscReal v2[3])
{
  const PetscInt ex = PetscAbsReal(u[0]) < 0.9 ? 0 : 1;
  PetscReal      n;
  for (PetscInt i = 0; i < 3; i++) v1[i] = (i == ex) - u[i] * u[ex];
  n = vec3_norm(v1);
  for (PetscInt i = 0; i < 3; i++) v1[i] /= n;
  vec3_cross(u, v1, v2);
}

/* Motors (F23): -<j>_motor angle|speed|torque on a revolute, position|speed|force on a prismatic,
   the quantity V f(t) with -<j>_motor_value V and the profile f of -<j>_motor_profile
   constant|ramp|table (-<j>_motor_start, -<j>_motor_duration, -<j>_motor_table). */
static PetscErrorCode MotorFromOptions(TdModel model, PetscInt j)
{
  static const char *const motors[] = {"none", "angle", "speed", "torque", "position", "force", NULL};
  static const char *const profiles[] = {"constant", "ramp", "table", NULL};
  TdJoint *joint = &model->joints[j];
  TdLoad  *mp    = &joint->motor_profile;
  PetscInt motor, profile;
  char     prefix[TD_NAME_LEN + 8], table[PETSC_MAX_PATH_LEN], opt[256];
  PetscBool set, tset;
  PetscFunctionBegin;
  PetscCall(TdOptionsEnum(joint->name, "motor", "motor on a revolute (angle [rad], speed [rad/s], torque [N m]) or prismatic joint (position [m], speed [m/s], force [N]), F23", motors, 0, &motor, &set));
  PetscCall(PetscSNPrintf(prefix, sizeof prefix, "%s_motor", joint->name));
  PetscCall(TdOptionsReal(prefix, "value", "motor: its value V (the driven quantity is V f(t))", NULL, 1, &joint->motor_value, NULL));
  PetscCall(TdOptionsEnum(prefix, "profile", "motor: time profile f: constant (1), ramp (0 to 1 over -<j>_motor_duration from -<j>_motor_start), table (CSV time [s], f)", profiles, 0, &profile, NULL));
  PetscCall(TdOptionsReal(prefix, "start", "motor: start of the ramp", "s", 0, &mp->start, NULL));
  PetscCall(TdOptionsReal(prefix, "duration", "motor: duration of the ramp", "s", 0, &mp->duration, NULL));
  PetscCall(TdOptionsString(prefix, "table", "motor: CSV with columns time [s], f", NULL, table, sizeof table, &tset));
  if (TdOptionsHelpRequested()) PetscFunctionReturn(0);
  joint->motor    = motor;
  mp->profile     = profile == 0 ? TD_PROFILE_CONSTANT : (profile == 1 ? TD_PROFILE_RAMP : TD_PROFILE_TABLE);
  mp->force[0]    = 1; /* a table's values are f itself */
  if (motor == TD_MOTOR_NONE) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_motor", joint->name));
  if (joint->type == TD_JOINT_REVOLUTE && (motor == TD_MOTOR_POSITION || motor == TD_MOTOR_FORCE)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s %s: a revolute joint's motor drives an angle, a speed or a torque", opt, motors[motor]);
  if (joint->type == TD_JOINT_PRISMATIC && (motor == TD_MOTOR_ANGLE || motor == TD_MOTOR_TORQUE)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s %s: a prismatic joint's motor drives a position, a speed or a force", opt, motors[motor]);
  if (joint->type != TD_JOINT_REVOLUTE && joint->type != TD_JOINT_PRISMATIC) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: joint '%s' is not a revolute or a prismatic joint; motors drive revolute and prismatic joints", opt, joint->name);
  if (mp->profile == TD_PROFILE_RAMP && !(mp->duration > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_motor_duration = %g: a ramp needs a positive duration", joint->name, (double)mp->duration);
  PetscCall(PetscStrncpy(mp->name, prefix, TD_NAME_LEN));
  if (mp->profile == TD_PROFILE_TABLE) {
    PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_motor_table", joint->name));
    if (!tset) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Motor of joint '%s' has profile table but no %s FILE.csv", joint->name, opt);
    PetscCall(TdLoadReadTableInternal(model, mp, table, opt));
  }
  if (motor == TD_MOTOR_ANGLE || (motor == TD_MOTOR_SPEED && joint->type == TD_JOINT_REVOLUTE)) {
    /* the turn row (kind 6): F_B v1 on cos(th) F_A v1 + sin(th) F_A v2, i.e.
       cos(th) F_A v2 . F_B v1 - sin(th) F_A v1 . F_B v1 = 0 */
    TdConstraintRow *row = &model->rows[model->nrows++];
    PetscCall(PetscNew(&row->form[0]));
    PetscCall(PetscNew(&row->form[1]));
    PetscCall(PetscNew(&row->form[2]));
    FormDirection(joint, 0, joint->v1, 1, row->form[0]);
    FormDirection(joint, 1, joint->v1, 1, row->form[1]);
    FormDirection(joint, 0, joint->v2, 1, row->form[2]);
    row->kind   = 6;
    row->joint  = j;
    row->nterms = row->form[0]->n + row->form[1]->n + row->form[2]->n;
    for (PetscInt t = 0; t < row->form[0]->n; t++) row->coord[t] = row->form[0]->coord[t];
    for (PetscInt t = 0; t < row->form[1]->n; t++) row->coord[row->form[0]->n + t] = row->form[1]->coord[t];
    for (PetscInt t = 0; t < row->form[2]->n; t++) row->coord[row->form[0]->n + row->form[1]->n + t] = row->form[2]->coord[t];
    TdConstraintRowCoefficients(row, model->q_ref, row->coef);
  } else if (motor == TD_MOTOR_POSITION || motor == TD_MOTOR_SPEED) {
    /* the slide along the axis: (x_B - x_A) . F_A u = its reference value + s(t) */
    TdVectorForm U, W;
    PetscCall(PetscMemzero(&U, sizeof U));
    PetscCall(PetscMemzero(&W, sizeof W));
    FormPosition(joint, 1, joint->at[1].X, 1, &W);
    FormPosition(joint, 0, joint->body[0] >= 0 ? joint->at[0].X : joint->at[1].X, -1, &W);
    FormDirection(joint, 0, joint->u, 1, &U);
    PetscCall(AddDotRow(model, j, &W, &U));
    model->rows[model->nrows - 1].driven = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* the profile f, its rate (d = 1) and second rate (2), or its integral from 0 (d = -1) */
static PetscReal Profile(const TdLoad *mp, PetscReal t, PetscInt d)
{
  const PetscReal tau = t - mp->start, T = mp->duration;
  switch (mp->profile) {
  case TD_PROFILE_RAMP:
    if (d == 0) return tau <= 0 ? 0 : (tau >= T ? 1 : tau / T);
    if (d == 1) return tau > 0 && tau < T ? 1 / T : 0;
    if (d == 2) return 0;
    return tau <= 0 ? 0 : (tau < T ? 0.5 * tau * tau / T : 0.5 * T + (tau - T));
  case TD_PROFILE_TABLE: {
    const PetscInt n = mp->ntable;
    PetscReal      integral = 0;
    if (d == 2) return 0;
    if (t < mp->table_t[0] || t > mp->table_t[n - 1]) {
      if (d >= 0) return 0;
      if (t < mp->table_t[0]) return 0;
    }
    for (PetscInt k = 0; k + 1 < n; k++) {
      const PetscReal t0 = mp->table_t[k], t1 = mp->table_t[k + 1], f0 = mp->table_f[k], f1 = mp->table_f[k + 1];
      if (t >= t1 && d == -1) {
        integral += 0.5 * (f0 + f1) * (t1 - t0);
        continue;
      }
      if (t < t0 || t > t1) continue;
      {
        const PetscReal w = (t - t0) / (t1 - t0), f = (1 - w) * f0 + w * f1;
        if (d == 0) return f;
        if (d == 1) return (f1 - f0) / (t1 - t0);
        return integral + 0.5 * (f0 + f) * (t - t0);
      }
    }
    return d == -1 ? integral : 0;
  }
  default: /* constant */
    return d == 0 ? 1 : (d == -1 ? t : 0);
  }
}

void TdJointMotorTarget(const TdJoint *joint, PetscReal t, PetscReal v[3])
{
  const PetscReal V = joint->motor_value;
  if (joint->motor == TD_MOTOR_SPEED) {
    v[0] = V * Profile(&joint->motor_profile, t, -1);
    v[1] = V * Profile(&joint->motor_profile, t, 0);
    v[2] = V * Profile(&joint->motor_profile, t, 1);
  } else
    for (PetscInt d = 0; d < 3; d++) v[d] = V * Profile(&joint->motor_profile, t, d);
}

void TdJointsUpdate(TdModel model, PetscReal t)
{
  for (PetscInt r = 0; r < model->nrows; r++) {
    TdConstraintRow *row = &model->rows[r];
    if (row->kind == 6) TdJointMotorTarget(&model->joints[row->joint], t, row->theta);
  }
}

/* Free rigid bodies (F21): the orthonormality of their axes as dot rows a_i . a_j = delta_ij,
   i <= j, owned by no joint (joint -1). */
PetscErrorCode TdFreeBodyRowsInternal(TdModel model)
{
  PetscFunctionBegin;
  for (PetscInt b = 0; b < model->nbodies; b++) {
    const TdBody  *body = &model->bodies[b];
    const PetscInt base = TD_NODE_DOF * body->node_offset;
    if (body->type != TD_BODY_FREE) continue;
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt k = i; k < 3; k++) {
        TdVectorForm U, W;
        PetscCall(PetscMemzero(&U, sizeof U));
        PetscCall(PetscMemzero(&W, sizeof W));
        for (PetscInt c = 0; c < 3; c++) {
          U.coord[U.n]  = base + 3 * (1 + i) + c;
          U.coef[U.n++] = 1;
          W.coord[W.n]  = base + 3 * (1 + k) + c;
          W.coef[W.n++] = 1;
        }
        PetscCall(AddDotRow(model, -1, &U, &W));
      }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdJointIdealFromOptionsInternal(TdModel model, PetscInt j)
{
  TdJoint     *joint = &model->joints[j];
  const char  *p     = joint->name;
  char       (*names)[64];
  PetscInt     nb;
  PetscReal    X[3], X2[3], axis[3] = {0, 0, 1};
  PetscBool    has_point, has_point2;
  TdVectorForm U, W;
  char         opt[256], what[256];
  PetscFunctionBegin;
  PetscCall(TdOptionsNameList(p, "bodies", "ideal joint: the two bodies A,B (ground for the fixed frame); reactions are those on A", &nb, &names));
  PetscCall(TdOptionsRealArray(p, "point", "ideal joint: the joint point (reference configuration; distance: the point on A)", "m", 3, NULL, X, &has_point));
  PetscCall(TdOptionsRealArray(p, "point2", "distance joint: the point on B; clearance joint: the hole's centre on B (default: -<j>_point, the pin centred) (reference configuration)", "m", 3, NULL, X2, &has_point2));
  PetscCall(TdOptionsRealArray(p, "axis", "revolute, cylindrical, prismatic, universal, fixed: the joint axis (reference configuration; universal: the axis on A; clearance: the hole's axis on B)", NULL, 3, axis, axis, NULL));
  if (TdOptionsHelpRequested()) {
    PetscCall(PetscFree(names));
    if (joint->type == TD_JOINT_CLEARANCE) PetscCall(TdJointClearanceFromOptionsInternal(model, j));
    else PetscCall(MotorFromOptions(model, j));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_bodies", p));
  if (nb != 2) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: an ideal joint joins two bodies, A,B (ground for the fixed frame); got %" PetscInt_FMT " names", opt, nb);
  for (PetscInt s = 0; s < 2; s++) {
    PetscBool ground;
    PetscCall(PetscStrcmp(names[s], "ground", &ground));
    joint->body[s] = -1;
    if (ground) continue;
    PetscCall(TdModelFindBodyInternal(model, names[s], opt, &joint->body[s]));
    if (model->bodies[joint->body[s]].type == TD_BODY_RIGID) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' moves as prescribed; joints join ancf bodies, free rigid bodies (-%s_motion free) and ground", opt, names[s], names[s]);
  }
  if (joint->body[0] < 0 && joint->body[1] < 0) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: both bodies are ground; a joint needs at least one body", opt);
  if (joint->body[0] >= 0 && joint->body[0] == joint->body[1]) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: a joint joins two different bodies (got '%s' twice)", opt, names[0]);
  PetscCall(PetscFree(names));
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_point", p));
  if (!has_point) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Joint '%s' has no joint point: set %s x,y,z", p, opt);
  if (joint->type == TD_JOINT_DISTANCE && !has_point2) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Joint '%s' is a distance joint: set -%s_point2 x,y,z, its point on the second body", p, p);
  if (joint->type != TD_JOINT_DISTANCE && !(joint->type == TD_JOINT_CLEARANCE && has_point2))
    for (PetscInt i = 0; i < 3; i++) X2[i] = X[i];
  {
    const PetscReal na = vec3_norm(axis);
    if (!(na > 1e-12)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_axis: the axis has zero length; give its direction ax,ay,az", p);
    for (PetscInt i = 0; i < 3; i++) joint->u[i] = axis[i] / na;
    TdAxisNormalsInternal(joint->u, joint->v1, joint->v2);
  }
  for (PetscInt i = 0; i < 3; i++) { /* a ground side keeps its point (the other fields unused) */
    joint->at[0].X[i] = X[i];
    joint->at[1].X[i] = X2[i];
  }
  for (PetscInt s = 0; s < 2; s++)
    if (joint->body[s] >= 0) {
      PetscCall(PetscSNPrintf(what, sizeof what, "Option -%s_%s of joint '%s'", p, s == 0 ? "point" : (has_point2 && (joint->type == TD_JOINT_DISTANCE || joint->type == TD_JOINT_CLEARANCE) ? "point2" : "point"), p));
      PetscCall(TdModelMaterialPoint(model, joint->body[s], s == 0 ? X : X2, what, &joint->at[s]));
    }
  joint->first_row = model->nrows;
  if (joint->type == TD_JOINT_CLEARANCE) { /* no rows: a contact force (joint_clearance.c) */
    PetscCall(TdJointClearanceFromOptionsInternal(model, j));
    joint->nrows = 0;
    PetscFunctionReturn(0);
  }
  /* positions: x_B - x_A */
  PetscCall(PetscMemzero(&W, sizeof W));
  FormPosition(joint, 1, X2, 1, &W);
  FormPosition(joint, 0, X, -1, &W);
  if (joint->type == TD_JOINT_DISTANCE) {
    PetscCall(AddDotRow(model, j, &W, &W)); /* |x_B - x_A|^2 = d^2 */
    joint->nforce         = 0;
    joint->first_rotation = 1;
  } else if (joint->type == TD_JOINT_CYLINDRICAL || joint->type == TD_JOINT_PRISMATIC || joint->type == TD_JOINT_INLINE) {
    /* the vector between the points stays along the axis of A: (x_B - x_A) . F_A v_m = 0 (inline:
       these two rows alone, a point on a line, which closes a planar loop without the three
       constraints a revolute would repeat out of the plane) */
    for (PetscInt m = 0; m < 2; m++) {
      PetscCall(PetscMemzero(&U, sizeof U));
      FormDirection(joint, 0, m ? joint->v2 : joint->v1, 1, &U);
      PetscCall(AddDotRow(model, j, &W, &U));
    }
    joint->nforce         = 0;
    joint->first_rotation = 2;
  } else {
    for (PetscInt i = 0; i < 3; i++) PetscCall(AddLinearRow(model, j, &W, i));
    joint->nforce         = 3;
    joint->first_rotation = 3;
  }
  /* rotations: F_A u . F_B v_m = 0 (the axes stay aligned), F_A v1 . F_B v2 = 0 (no turn about it) */
  {
    const PetscBool axis_rows = joint->type == TD_JOINT_REVOLUTE || joint->type == TD_JOINT_FIXED || joint->type == TD_JOINT_CYLINDRICAL || joint->type == TD_JOINT_PRISMATIC;
    const PetscBool turn_row  = joint->type == TD_JOINT_FIXED || joint->type == TD_JOINT_PRISMATIC;
    if (axis_rows || joint->type == TD_JOINT_UNIVERSAL)
      for (PetscInt m = 0; m < (joint->type == TD_JOINT_UNIVERSAL ? 1 : 2); m++) {
        PetscCall(PetscMemzero(&U, sizeof U));
        PetscCall(PetscMemzero(&W, sizeof W));
        FormDirection(joint, 0, joint->u, 1, &U);
        FormDirection(joint, 1, m ? joint->v2 : joint->v1, 1, &W);
        PetscCall(AddDotRow(model, j, &U, &W));
      }
    if (turn_row) {
      PetscCall(PetscMemzero(&U, sizeof U));
      PetscCall(PetscMemzero(&W, sizeof W));
      FormDirection(joint, 0, joint->v1, 1, &U);
      FormDirection(joint, 1, joint->v2, 1, &W);
      PetscCall(AddDotRow(model, j, &U, &W));
    }
  }
  PetscCall(MotorFromOptions(model, j));
  joint->nrows = model->nrows - joint->first_row;
  PetscFunctionReturn(0);
}

void TdJointIdealOutput(TdModel model, PetscInt j, const PetscReal q[], const PetscReal lambda[], PetscReal force[3], PetscReal moment[3], PetscReal *angle)
{
  TdJoint *joint = &model->joints[j];
  force[0] = force[1] = force[2] = moment[0] = moment[1] = moment[2] = 0;
  /* spherical rows x_B - x_A = 0: the force on A is +lambda (R = ... + Phi_q^T lambda) */
  for (PetscInt i = 0; i < joint->nforce; i++) force[i] = lambda[joint->first_row + i];
  for (PetscInt r = joint->first_row + joint->nforce; r < joint->first_row + joint->nrows; r++) {
    const TdConstraintRow *row = &model->rows[r];
    PetscReal              U[3], W[3], c[3];
    if (r < joint->first_row + joint->first_rotation || row->driven) {
      /* a slide row (x_B - x_A) . F_A w (cylindrical, prismatic, a prismatic motor): the force
         -lambda dPhi/dx_A = lambda F_A w on A's point; distance |x_B - x_A|^2: 2 lambda (x_B - x_A) */
      TdRowFormValues(row, q, PETSC_FALSE, U, W);
      for (PetscInt i = 0; i < 3; i++) force[i] += lambda[r] * (joint->type == TD_JOINT_DISTANCE ? 2 * U[i] : W[i]);
      continue;
    }
    if (row->kind == 6) { /* the motor's turn row: -lambda (-sin th U1 x W + cos th U2 x W) */
      PetscReal U2[3], c2[3];
      TdRowFormValues(row, q, PETSC_FALSE, U, W);
      TdRowFormValue(row->form[2], q, PETSC_FALSE, U2);
      vec3_cross(U, W, c);
      vec3_cross(U2, W, c2);
      for (PetscInt i = 0; i < 3; i++) moment[i] -= lambda[r] * (-PetscSinReal(row->theta[0]) * c[i] + PetscCosReal(row->theta[0]) * c2[i]);
      continue;
    }
    /* a rotation row F_A u . F_B v: a turn dth of A changes it by dth . (U x W), so the row's
       constraint force, -lambda dPhi/dq, is the moment -lambda U x W on A */
    TdRowFormValues(row, q, PETSC_FALSE, U, W);
    vec3_cross(U, W, c);
    for (PetscInt i = 0; i < 3; i++) moment[i] -= lambda[r] * c[i];
  }
  if (angle) {
    PetscReal a1[3], b1[3], ua[3], c[3], th, d;
    TdVectorForm A1, B1, UA;
    memset(&A1, 0, sizeof A1);
    memset(&B1, 0, sizeof B1);
    memset(&UA, 0, sizeof UA);
    FormDirection(joint, 0, joint->v1, 1, &A1);
    FormDirection(joint, 1, joint->v1, 1, &B1);
    FormDirection(joint, 0, joint->u, 1, &UA);
    for (PetscInt i = 0; i < 3; i++) {
      a1[i] = FormComponent(&A1, q, PETSC_FALSE, i);
      b1[i] = FormComponent(&B1, q, PETSC_FALSE, i);
      ua[i] = FormComponent(&UA, q, PETSC_FALSE, i);
    }
    vec3_cross(a1, b1, c);
    th = PetscAtan2Real(vec3_dot(c, ua) / PetscMax(vec3_norm(ua), 1e-300), vec3_dot(a1, b1));
    d  = th - joint->angle_prev;
    d -= 2 * PETSC_PI * PetscFloorReal((d + PETSC_PI) / (2 * PETSC_PI));
    joint->angle += d;
    joint->angle_prev = th;
    *angle            = joint->angle;
  }
}
