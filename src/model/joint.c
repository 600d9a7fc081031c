/*
  Joints (model.h): read from the options and turned into linear constraint rows on the full
  coordinates (formulation.md §4): a point joint holds components of a material point, a
  crank-slider drive moves a point along x with the crank-slider kinematics and holds its y and
  its yaw, and a spin drive turns a body about a fixed axis direction at a prescribed speed
  (formulation.md (F20)), leaving its translation free.  The prescribed value of each row at a
  time t.
*/
#include "model_private.h"
#include <tribodyn/options.h>
#include <string.h>

static const char *const joint_types[] = {"point", "crank_slider", "spin", "spherical", "revolute", "universal", "fixed", "distance", "cylindrical", "prismatic", "inline", "clearance", NULL};

/* x_P - x_c = r cos(th) + l cos(phi), sin(phi) = lambda sin(th) - e/l (formulation.md §4). */
void TdCrankSlider(const TdJoint *j, PetscReal t, PetscReal *x, PetscReal *xdot, PetscReal *xddot)
{
  const PetscReal r = j->crank_radius, lam = j->rod_ratio, l = r / lam, w = 2 * PETSC_PI * j->rpm / 60;
  const PetscReal th = j->theta0 * PETSC_PI / 180 + w * t;
  const PetscReal sphi = lam * PetscSinReal(th) - j->offset / l, cphi = PetscSqrtReal(1 - sphi * sphi);
  const PetscReal phid  = lam * w * PetscCosReal(th) / cphi;
  const PetscReal phidd = (-lam * w * w * PetscSinReal(th) + sphi * phid * phid) / cphi;
  *x                    = r * PetscCosReal(th) + l * cphi;
  *xdot                 = -r * w * PetscSinReal(th) - l * sphi * phid;
  *xddot                = -r * w * w * PetscCosReal(th) - l * (cphi * phid * phid + sphi * phidd);
}

/* Spin angle about the axis (F20): a cosine ramp of the speed over T = ramp from rest, so that
   the drive starts with the body's zero velocity and acceleration, then omega. */
void TdSpinAngle(const TdJoint *j, PetscReal t, PetscReal *th, PetscReal *thd, PetscReal *thdd)
{
  const PetscReal w = 2 * PETSC_PI * j->rpm / 60, T = j->ramp;
  if (t < T) {
    *th   = 0.5 * w * (t - T / PETSC_PI * PetscSinReal(PETSC_PI * t / T));
    *thd  = 0.5 * w * (1 - PetscCosReal(PETSC_PI * t / T));
    *thdd = 0.5 * w * PETSC_PI / T * PetscSinReal(PETSC_PI * t / T);
  } else {
    *th   = 0.5 * w * T + w * (t - T);
    *thd  = w;
    *thdd = 0;
  }
}

void TdConstraintTarget(TdModel model, PetscInt r, PetscReal t, PetscReal *b, PetscReal *bdot, PetscReal *bddot)
{
  const TdConstraintRow *row = &model->rows[r];
  if (row->kind == 5 && row->driven) { /* a prismatic motor's slide: b0 + s(t) (F23) */
    PetscReal v[3];
    TdJointMotorTarget(&model->joints[row->joint], t, v);
    *b     = row->b0 + v[0];
    *bdot  = v[1];
    *bddot = v[2];
  } else if (row->kind >= 5) { /* dot rows (orthonormality included) and turn rows: their second rate depends on the state (the residual forms it) */
    *b     = row->b0;
    *bdot  = 0;
    *bddot = 0;
  } else if (row->kind == 2 || row->kind == 3) { /* spin: (F d0).d0 = cos(theta), (F d0).w0 = sin(theta) */
    PetscReal th, thd, thdd;
    const PetscReal c0 = row->b0;          /* the fibre's reference length in the plane (1) */
    TdSpinAngle(&model->joints[row->joint], t, &th, &thd, &thdd);
    if (row->kind == 2) {
      *b     = c0 * PetscCosReal(th);
      *bdot  = -c0 * PetscSinReal(th) * thd;
      *bddot = -c0 * (PetscCosReal(th) * thd * thd + PetscSinReal(th) * thdd);
    } else {
      *b     = c0 * PetscSinReal(th);
      *bdot  = c0 * PetscCosReal(th) * thd;
      *bddot = c0 * (-PetscSinReal(th) * thd * thd + PetscCosReal(th) * thdd);
    }
  } else if (row->kind == 1) {
    const TdJoint *j = &model->joints[row->joint];
    PetscReal      x, xd, xdd;
    TdCrankSlider(j, t, &x, &xd, &xdd);
    *b     = j->crank_center + x;
    *bdot  = xd;
    *bddot = xdd;
  } else {
    *b     = row->b0;
    *bdot  = 0;
    *bddot = 0;
  }
}

static PetscErrorCode AddRowFromPoint(TdModel model, const TdMaterialPoint *mp, PetscInt comp, PetscInt joint, PetscInt kind, TdConstraintRow *row)
{
  PetscFunctionBegin;
  row->nterms = ANCF3843_NSHAPE;
  for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
    row->coord[k] = mp->coord[3 * k + comp];
    row->coef[k]  = mp->S[k];
  }
  row->joint = joint;
  row->kind  = kind;
  row->b0    = 0;
  for (PetscInt k = 0; k < row->nterms; k++) row->b0 += row->coef[k] * model->q_ref[row->coord[k]];
  PetscFunctionReturn(0);
}

/* joints: linear constraint rows, at most three per joint */
PetscErrorCode TdJointsFromOptionsInternal(TdModel model, PetscInt nj, char (*names)[64])
{
  PetscFunctionBegin;
  model->njoints = nj;
  PetscCall(PetscCalloc1(PetscMax(nj, 1), &model->joints));
  {
    PetscInt nfree_bodies = 0;
    for (PetscInt b = 0; b < model->nbodies; b++) nfree_bodies += model->bodies[b].type == TD_BODY_FREE;
    PetscCall(PetscCalloc1(6 * PetscMax(nj, 1) + 6 * nfree_bodies, &model->rows));
  }
  model->nrows = 0;
  for (PetscInt j = 0; j < nj; j++) {
    TdJoint  *joint = &model->joints[j];
    PetscInt  b, type;
    PetscCall(PetscStrncpy(joint->name, names[j], TD_NAME_LEN));
    PetscCall(TdOptionsEnum(joint->name, "type", "point: hold components of a material point; crank_slider: drive (formulation §4); spin: turn the body about a fixed axis direction (F20); spherical, revolute, universal, fixed, distance, cylindrical, prismatic, inline: ideal joints between -<j>_bodies A,B (F22); clearance: a pin on A in a hole on B with radial clearance, dry contact (F24)", joint_types, 0, &type, NULL));
    joint->type = (TdJointType)type;
    if (joint->type >= TD_JOINT_SPHERICAL) { /* between two bodies (joint_ideal.c) */
      PetscCall(TdJointIdealFromOptionsInternal(model, j));
      continue;
    }
    PetscCall(TdModelReadPointInternal(model, joint->name, "joint", &b, &joint->point));
    if (joint->type == TD_JOINT_POINT) {
      char    (*comps)[64];
      PetscInt ncomp;
      PetscCall(TdOptionsNameList(joint->name, "components", "held components of the point, a list of x,y,z (default all)", &ncomp, &comps));
      if (!ncomp) joint->component[0] = joint->component[1] = joint->component[2] = PETSC_TRUE;
      for (PetscInt c = 0; c < ncomp; c++) {
        if (!strcmp(comps[c], "x")) joint->component[0] = PETSC_TRUE;
        else if (!strcmp(comps[c], "y")) joint->component[1] = PETSC_TRUE;
        else if (!strcmp(comps[c], "z")) joint->component[2] = PETSC_TRUE;
        else SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_components: unknown component '%s'; use x, y and z", joint->name, comps[c]);
      }
      PetscCall(PetscFree(comps));
    } else if (joint->type == TD_JOINT_SPIN) {
      const PetscReal zaxis[3] = {0, 0, 1};
      PetscCall(TdOptionsRealArray(joint->name, "axis", "spin: the fixed axis direction the body turns about (right-handed)", NULL, 3, zaxis, joint->axis, NULL));
      PetscCall(TdOptionsReal(joint->name, "rpm", "spin: speed about the axis after the ramp", "r/min", 60, &joint->rpm, NULL));
      PetscCall(TdOptionsReal(joint->name, "ramp", "spin: time over which the speed rises from 0 (a cosine ramp; the body starts at rest)", "s", 0.25 * 60 / PetscMax(PetscAbsReal(joint->rpm), 1e-300), &joint->ramp, NULL));
      if (!TdOptionsHelpRequested()) {
        const PetscReal na = PetscSqrtReal(joint->axis[0] * joint->axis[0] + joint->axis[1] * joint->axis[1] + joint->axis[2] * joint->axis[2]);
        if (!(na > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_axis: the axis has zero length; give its direction ax,ay,az", joint->name);
        if (!(joint->ramp > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_ramp = %g s: a spin drive starts from rest and needs a positive ramp time", joint->name, (double)joint->ramp);
        for (PetscInt i = 0; i < 3; i++) joint->axis[i] /= na;
      }
    } else {
      PetscCall(TdOptionsRealPositive(joint->name, "crank_radius", "crank radius r", "m", 0.1, PETSC_TRUE, &joint->crank_radius, NULL));
      PetscCall(TdOptionsRealPositive(joint->name, "rod_ratio", "rod ratio lambda = r/l", NULL, 0.64, PETSC_TRUE, &joint->rod_ratio, NULL));
      PetscCall(TdOptionsReal(joint->name, "rpm", "crank speed", "r/min", 60, &joint->rpm, NULL));
      PetscCall(TdOptionsReal(joint->name, "theta0", "crank angle at t = 0", "deg", 90, &joint->theta0, NULL));
      PetscCall(TdOptionsReal(joint->name, "offset", "offset e of the slider line from the crank centre", "m", 0, &joint->offset, NULL));
      if (!TdOptionsHelpRequested() && !(joint->rod_ratio < 1 - PetscAbsReal(joint->offset) * joint->rod_ratio / joint->crank_radius))
        SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_rod_ratio = %g: the rod must be longer than the crank (lambda = r/l < 1, including the offset)", joint->name, (double)joint->rod_ratio);
    }
    if (TdOptionsHelpRequested()) continue;
    if (model->bodies[b].type == TD_BODY_RIGID) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_body: body '%s' is rigid with prescribed motion; joints act on ancf bodies and free rigid bodies (-%s_motion free)", joint->name, model->bodies[b].name, model->bodies[b].name);
    if (model->bodies[b].type == TD_BODY_FREE && joint->type != TD_JOINT_POINT) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_type: a %s drive acts on an ancf body; on the free rigid body '%s' only point joints are implemented so far", joint->name, joint_types[joint->type], model->bodies[b].name);
    joint->first_row = model->nrows;
    if (joint->type == TD_JOINT_POINT) {
      for (PetscInt c = 0; c < 3; c++)
        if (joint->component[c]) PetscCall(AddRowFromPoint(model, &joint->point, c, j, 0, &model->rows[model->nrows++]));
    } else if (joint->type == TD_JOINT_SPIN) {
      /* (F20): the material fibre d0 (unit, normal to the axis a) at the point, F d0 = sum_j d0_j
         dr/dx_j, held on the turning unit vector cos(theta) d0 + sin(theta) w0, w0 = a x d0, in
         the plane normal to a: two rows with fixed coefficients (u . F d0 for u = d0, w0) */
      PetscReal d0[3], w0[3];
      TdAxisNormalsInternal(joint->axis, d0, w0);
      for (PetscInt r = 0; r < 2; r++) {
        const PetscReal *u   = r == 0 ? d0 : w0;
        TdConstraintRow *row = &model->rows[model->nrows++];
        row->nterms          = 0;
        for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
          const PetscReal fk = d0[0] * joint->point.G[0][k] + d0[1] * joint->point.G[1][k] + d0[2] * joint->point.G[2][k];
          for (PetscInt i = 0; i < 3; i++) {
            row->coef[row->nterms]    = u[i] * fk;
            row->coord[row->nterms++] = joint->point.coord[3 * k + i];
          }
        }
        row->joint = j;
        row->kind  = 2 + r;
        row->b0    = 0; /* the kind-2 row's reference value, (F d0) . d0 = 1, scales both */
        for (PetscInt k = 0; k < row->nterms; k++) row->b0 += row->coef[k] * model->q_ref[row->coord[k]];
      }
      model->rows[model->nrows - 1].b0 = model->rows[model->nrows - 2].b0;
      for (PetscInt i = 0; i < 3; i++) {
        joint->spin_d0[i] = d0[i];
        joint->spin_w0[i] = w0[i];
      }
    } else {
      /* x follows the crank; y held; yaw held: r_X(P) . e_y = reference value, r_X(P) through the
         point's global-axis gradient functions (material_point.c) */
      PetscReal        x, xd, xdd;
      TdBody          *body = &model->bodies[b];
      TdConstraintRow *row;
      PetscCall(AddRowFromPoint(model, &joint->point, 0, j, 1, &model->rows[model->nrows++]));
      TdCrankSlider(joint, 0, &x, &xd, &xdd);
      joint->crank_center = joint->point.X[0] - x;
      PetscCall(AddRowFromPoint(model, &joint->point, 1, j, 0, &model->rows[model->nrows++]));
      row = &model->rows[model->nrows++];
      row->nterms = ANCF3843_NSHAPE;
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
        row->coef[k]  = joint->point.G[0][k];
        row->coord[k] = joint->point.coord[3 * k + 1];
      }
      row->joint = j;
      row->kind  = 0;
      row->b0    = 0;
      for (PetscInt k = 0; k < row->nterms; k++) row->b0 += row->coef[k] * model->q_ref[row->coord[k]];
      /* the driven body starts moving with its drive */
      body->initial_velocity[0] = xd;
    }
    joint->nrows = model->nrows - joint->first_row;
  }
  if (!TdOptionsHelpRequested()) PetscCall(TdFreeBodyRowsInternal(model));
  PetscFunctionReturn(0);
}

void TdConstraintRowCoefficients(const TdConstraintRow *row, const PetscReal q[], PetscReal coef[])
{
  if (row->kind == 7) { /* left out as redundant */
    for (PetscInt t = 0; t < row->nterms; t++) coef[t] = 0;
    return;
  }
  if (row->kind == 6) { /* cos(th) U2 . W - sin(th) U1 . W */
    const PetscReal c1 = -PetscSinReal(row->theta[0]), c2 = PetscCosReal(row->theta[0]);
    const PetscInt  n0 = row->form[0]->n, n1 = row->form[1]->n;
    PetscReal       U1[3], W[3], U2[3];
    TdRowFormValues(row, q, PETSC_FALSE, U1, W);
    TdRowFormValue(row->form[2], q, PETSC_FALSE, U2);
    for (PetscInt t = 0; t < n0; t++) coef[t] = c1 * row->form[0]->coef[t] * W[row->form[0]->coord[t] % 3];
    for (PetscInt t = 0; t < n1; t++) coef[n0 + t] = row->form[1]->coef[t] * (c1 * U1[row->form[1]->coord[t] % 3] + c2 * U2[row->form[1]->coord[t] % 3]);
    for (PetscInt t = 0; t < row->form[2]->n; t++) coef[n0 + n1 + t] = c2 * row->form[2]->coef[t] * W[row->form[2]->coord[t] % 3];
    return;
  }
  if (row->kind == 5) { /* U . W: dPhi/dq = coef_U W_i on U's terms, coef_W U_i on W's */
    PetscReal U[3], W[3];
    TdRowFormValues(row, q, PETSC_FALSE, U, W);
    for (PetscInt t = 0; t < row->form[0]->n; t++) coef[t] = row->form[0]->coef[t] * W[row->form[0]->coord[t] % 3];
    for (PetscInt t = 0; t < row->form[1]->n; t++) coef[row->form[0]->n + t] = row->form[1]->coef[t] * U[row->form[1]->coord[t] % 3];
    return;
  }
  for (PetscInt t = 0; t < row->nterms; t++) coef[t] = row->coef[t];
}
