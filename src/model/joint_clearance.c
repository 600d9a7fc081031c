/*
  Revolute clearance joints (-<j>_type clearance; model.h, formulation.md (F24)): a pin on body A
  in a hole on body B (or ground), both centred on the joint point in the reference
  configuration, with the hole's axis -<j>_axis.  The joint has no constraint rows: the pin is
  free inside the hole and the two meet through the dry contact force of the kernel
  clearance_contact (Lankarani-Nikravesh with regularised Coulomb friction).  The pin's axial
  position and its tilt are left to the rest of the mechanism (a planar mechanism holds them with
  its other joints).  This file reads the options, gathers the kernel's inputs from the
  coordinates (the joint points' positions and global-axis gradients, TdMaterialPoint S and G),
  and scatters its generalised forces and their Jacobian blocks (-P^T f, -P^T (ce df/dz + cv
  df/dzdot) P) over the two points' element coordinates.
*/
#include "model_private.h"
#include <tribodyn/options.h>

/* The kernel inputs of side s (A = 0, B = 1) from full coordinates q and rates v (NULL: at rest):
   the point's position and its gradient columns; ground: its reference point and the identity. */
static void GatherSide(const TdJoint *joint, PetscInt s, const PetscReal q[], const PetscReal v[], PetscReal z[12], PetscReal zd[12])
{
  const TdMaterialPoint *mp = &joint->at[s];
  for (PetscInt i = 0; i < 12; i++) z[i] = zd[i] = 0;
  if (joint->body[s] < 0) {
    for (PetscInt i = 0; i < 3; i++) {
      z[i]             = mp->X[i];
      z[3 + 3 * i + i] = 1;
    }
    return;
  }
  for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
    const PetscReal w[4] = {mp->S[k], mp->G[0][k], mp->G[1][k], mp->G[2][k]};
    for (PetscInt p = 0; p < 4; p++) {
      if (w[p] == 0) continue;
      for (PetscInt i = 0; i < 3; i++) {
        z[3 * p + i] += w[p] * q[mp->coord[3 * k + i]];
        if (v) zd[3 * p + i] += w[p] * v[mp->coord[3 * k + i]];
      }
    }
  }
}

static void Gather(const TdJoint *joint, const PetscReal q[], const PetscReal v[], PetscReal z[24], PetscReal zd[24])
{
  GatherSide(joint, 0, q, v, z, zd);
  GatherSide(joint, 1, q, v, z + 12, zd + 12);
}

PetscErrorCode TdJointClearanceFromOptionsInternal(TdModel model, PetscInt j)
{
  TdJoint             *joint = &model->joints[j];
  const char          *p     = joint->name;
  ClearanceContactLaw *law   = &joint->contact;
  PetscReal            R = 0, c = 0, K = 0;
  PetscBool            has_R, has_c, has_K;
  PetscFunctionBegin;
  PetscCall(TdOptionsReal(p, "radius", "clearance joint: radius R of the hole (bearing) on the second body", "m", 0, &R, &has_R));
  PetscCall(TdOptionsReal(p, "clearance", "clearance joint: radial clearance c, the hole's radius minus the pin's", "m", 0, &c, &has_c));
  PetscCall(TdOptionsReal(p, "Kg", "clearance joint: contact stiffness K of F_N = K delta^n (default: from the bodies' -E and -nu, F24)", "N/m^n", 0, &K, &has_K));
  PetscCall(TdOptionsRealPositive(p, "n", "clearance joint: contact force exponent n", NULL, 1.5, PETSC_TRUE, &law->exponent, NULL));
  PetscCall(TdOptionsReal(p, "restitution", "clearance joint: coefficient of restitution c_e of the Lankarani-Nikravesh damping, in [0, 1]", NULL, 0.9, &law->restitution, NULL));
  PetscCall(TdOptionsRealPositive(p, "mu_dry", "clearance joint: Coulomb friction coefficient", NULL, 0.03, PETSC_FALSE, &law->mu, NULL));
  PetscCall(TdOptionsRealPositive(p, "friction_velocity", "clearance joint: slip speed over which friction reaches its full value (regularised Coulomb, F24)", "m/s", 1e-3, PETSC_TRUE, &law->v_eps, NULL));
  PetscCall(TdOptionsRealPositive(p, "impact_speed_min", "clearance joint: floor of the approach speed that scales the Lankarani-Nikravesh damping", "m/s", 1e-3, PETSC_TRUE, &joint->impact_speed_min, NULL));
  if (TdOptionsHelpRequested()) PetscFunctionReturn(0);
  if (!has_R) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Joint '%s' is a clearance joint: set -%s_radius R, the radius of the hole [m]", p, p);
  if (!has_c) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Joint '%s' is a clearance joint: set -%s_clearance c, the radial clearance [m]", p, p);
  if (!(R > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_radius = %g: the hole's radius must be positive", p, (double)R);
  if (!(c > 0 && c < R)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_clearance = %g: the radial clearance must lie in (0, R) with R = -%s_radius = %g m", p, (double)c, p, (double)R);
  if (!(law->restitution >= 0 && law->restitution <= 1)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_restitution = %g: the coefficient of restitution must lie in [0, 1]", p, (double)law->restitution);
  if (joint->body[0] < 0) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_bodies: the first body of a clearance joint carries the pin; it cannot be ground (put ground second: it then holds the hole)", p);
  law->radius_hole = R;
  law->clearance   = c;
  law->radius_pin  = R - c;
  for (PetscInt i = 0; i < 3; i++) law->u0[i] = joint->u[i];
  if (has_K) {
    if (!(K > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_Kg = %g: the contact stiffness must be positive", p, (double)K);
    law->K = K;
  } else {
    /* ground takes the pin's material */
    const TdBody *a = &model->bodies[joint->body[0]], *b = joint->body[1] >= 0 ? &model->bodies[joint->body[1]] : a;
    law->K = clearance_contact_stiffness(a->E, a->nu, b->E, b->nu, law->radius_pin, law->radius_hole);
  }
  joint->impact_speed = joint->impact_speed_min;
  joint->nforce       = 0;
  PetscFunctionReturn(0);
}

void TdJointsStepStart(TdModel model, const PetscReal q[], const PetscReal v[])
{
  for (PetscInt j = 0; j < model->njoints; j++) {
    TdJoint              *joint = &model->joints[j];
    PetscReal             z[24], zd[24], f[24];
    ClearanceContactState st;
    if (joint->type != TD_JOINT_CLEARANCE) continue;
    Gather(joint, q, v, z, zd);
    (void)clearance_contact(&joint->contact, joint->impact_speed, z, zd, f, &st);
    /* apart at the start of the step: a contact in this step begins at about the approach speed
       now; in contact: keep the speed its contact began with */
    if (!(st.delta > 0)) joint->impact_speed = PetscMax(st.deltadot, joint->impact_speed_min);
  }
}

void TdJointClearanceOutput(TdModel model, PetscInt j, const PetscReal q[], const PetscReal v[], PetscReal force[3], PetscReal moment[3], ClearanceContactState *st)
{
  const TdJoint *joint = &model->joints[j];
  PetscReal      z[24], zd[24], f[24];
  Gather(joint, q, v, z, zd);
  (void)clearance_contact(&joint->contact, joint->impact_speed, z, zd, f, st);
  for (PetscInt i = 0; i < 3; i++) {
    force[i]  = f[i];
    moment[i] = joint->contact.radius_pin * st->FT * st->u[i];
  }
}

/* -Q on the element coordinates of side s from the kernel's f (of that side, 12 values) */
static void Scatter(const TdJoint *joint, PetscInt s, const PetscReal f[12], PetscReal rf[])
{
  const TdMaterialPoint *mp = &joint->at[s];
  if (joint->body[s] < 0) return;
  for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
    const PetscReal w[4] = {mp->S[k], mp->G[0][k], mp->G[1][k], mp->G[2][k]};
    for (PetscInt i = 0; i < 3; i++) rf[mp->coord[3 * k + i]] -= w[0] * f[i] + w[1] * f[3 + i] + w[2] * f[6 + i] + w[3] * f[9 + i];
  }
}

void TdJointsClearanceResidual(TdModel model, const PetscReal q[], const PetscReal v[], PetscReal rf[])
{
  for (PetscInt j = 0; j < model->njoints; j++) {
    const TdJoint *joint = &model->joints[j];
    PetscReal      z[24], zd[24], f[24];
    if (joint->type != TD_JOINT_CLEARANCE) continue;
    Gather(joint, q, v, z, zd);
    (void)clearance_contact(&joint->contact, joint->impact_speed, z, zd, f, NULL); /* centres on the axis: apart, f = 0 */
    for (PetscInt s = 0; s < 2; s++) Scatter(joint, s, &f[12 * s], rf);
  }
}

PetscCount TdJointsClearanceEntries(TdModel model)
{
  PetscCount n = 0;
  for (PetscInt j = 0; j < model->njoints; j++) {
    const TdJoint *joint = &model->joints[j];
    PetscInt       ns;
    if (joint->type != TD_JOINT_CLEARANCE) continue;
    ns = (joint->body[0] >= 0) + (joint->body[1] >= 0);
    n += (PetscCount)ns * ns * ANCF3843_NDOF * ANCF3843_NDOF;
  }
  return n;
}

void TdJointsClearancePattern(TdModel model, PetscInt ci[], PetscInt cj[])
{
  PetscCount k = 0;
  for (PetscInt j = 0; j < model->njoints; j++) {
    const TdJoint *joint = &model->joints[j];
    if (joint->type != TD_JOINT_CLEARANCE) continue;
    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt b = 0; b < 2; b++) {
        if (joint->body[a] < 0 || joint->body[b] < 0) continue;
        TdModelPointBlockPattern(&joint->at[a], &joint->at[b], &ci[k], &cj[k]);
        k += ANCF3843_NDOF * ANCF3843_NDOF;
      }
  }
}

void TdJointsClearanceValues(TdModel model, const PetscReal q[], const PetscReal v[], PetscReal ce, PetscReal cv, PetscScalar vals[])
{
  PetscCount k = 0;
  for (PetscInt j = 0; j < model->njoints; j++) {
    const TdJoint *joint = &model->joints[j];
    PetscReal      z[24], zd[24], D[24][24], Dd[24][24], B[24][24];
    if (joint->type != TD_JOINT_CLEARANCE) continue;
    Gather(joint, q, v, z, zd);
    clearance_contact_jacobian(&joint->contact, joint->impact_speed, z, zd, D, Dd);
    for (PetscInt i = 0; i < 24; i++)
      for (PetscInt l = 0; l < 24; l++) B[i][l] = ce * D[i][l] + (v ? cv * Dd[i][l] : 0);
    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt b = 0; b < 2; b++) {
        const TdMaterialPoint *pa = &joint->at[a], *pb = &joint->at[b];
        if (joint->body[a] < 0 || joint->body[b] < 0) continue;
        /* d(-P_a^T f_a)/de_b = -P_a^T B_ab P_b; P's rows for entry 3k+i: weights (S_k, G_0k,
           G_1k, G_2k) on z entries (i, 3+i, 6+i, 9+i) */
        for (PetscInt r = 0; r < ANCF3843_NDOF; r++) {
          const PetscInt  kr = r / 3, ir = r % 3;
          const PetscReal wr[4] = {pa->S[kr], pa->G[0][kr], pa->G[1][kr], pa->G[2][kr]};
          for (PetscInt c = 0; c < ANCF3843_NDOF; c++, k++) {
            const PetscInt  kc = c / 3, ic = c % 3;
            const PetscReal wc[4] = {pb->S[kc], pb->G[0][kc], pb->G[1][kc], pb->G[2][kc]};
            PetscReal       sum = 0;
            for (PetscInt pr = 0; pr < 4; pr++) {
              if (wr[pr] == 0) continue;
              for (PetscInt pc = 0; pc < 4; pc++)
                if (wc[pc] != 0) sum += wr[pr] * wc[pc] * B[12 * a + 3 * pr + ir][12 * b + 3 * pc + ic];
            }
            vals[k] = -sum;
          }
        }
      }
  }
}
