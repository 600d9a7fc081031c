/*
  Rigid bodies (model.h): their prescribed motion, a constant velocity and angular velocity about
  the body's centre after an initial rotation, plus a harmonic displacement, read from the options, and the pose and velocity
  of their points at a time t.  The geometry options they share with ANCF bodies (-<b>_box,
  -<b>_mesh, material) are read in body_ancf.c, which calls the readers here at their place.
*/
#include "model_private.h"
#include <tribodyn/options.h>

static void RotationMatrix(const PetscReal axis_angle[3], PetscReal R[9])
{
  PetscReal th = PetscSqrtReal(axis_angle[0] * axis_angle[0] + axis_angle[1] * axis_angle[1] + axis_angle[2] * axis_angle[2]);
  PetscReal k[3] = {0, 0, 1}, c, s;
  if (th > 0)
    for (PetscInt i = 0; i < 3; i++) k[i] = axis_angle[i] / th;
  c = PetscCosReal(th);
  s = PetscSinReal(th);
  /* Rodrigues: R = c ax + s [k]x + (1 - c) k k^T */
  R[0] = c + (1 - c) * k[0] * k[0];
  R[1] = -s * k[2] + (1 - c) * k[0] * k[1];
  R[2] = s * k[1] + (1 - c) * k[0] * k[2];
  R[3] = s * k[2] + (1 - c) * k[1] * k[0];
  R[4] = c + (1 - c) * k[1] * k[1];
  R[5] = -s * k[0] + (1 - c) * k[1] * k[2];
  R[6] = -s * k[1] + (1 - c) * k[2] * k[0];
  R[7] = s * k[0] + (1 - c) * k[2] * k[1];
  R[8] = c + (1 - c) * k[2] * k[2];
}

static void MatMul3(const PetscReal A[9], const PetscReal B[9], PetscReal C[9])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

PetscErrorCode TdRigidBodyCylinderFromOptionsInternal(TdModel model, TdBody *body, PetscBool geometry_given, PetscBool *given)
{
  const char *p = body->name;
  PetscFunctionBegin;
  PetscCall(TdOptionsRealArray(p, "cylinder", "rigid body: an exact cylinder surface x0,y0,z0,x1,y1,z1,R (axis end points, radius) instead of a box or mesh; its face is 'surface' (a free rigid body: with -mass, -inertia, -com)", "m", 7, NULL, body->cylinder, given));
  if (*given) {
    PetscReal d[3], len;
    if (geometry_given) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s': give one of -%s_box, -%s_mesh, -%s_cylinder", p, p, p, p);
    for (PetscInt i = 0; i < 3; i++) d[i] = body->cylinder[3 + i] - body->cylinder[i];
    len = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    if (!(len > 0) || !(body->cylinder[6] > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_cylinder: the axis end points must differ and the radius must be positive", p);
    body->is_cylinder = PETSC_TRUE;
    PetscCall(PetscStrcpy(body->mesh.source, "cylinder"));
    for (PetscInt i = 0; i < 3; i++) {
      body->mesh.bbox[i]     = PetscMin(body->cylinder[i], body->cylinder[3 + i]) - body->cylinder[6];
      body->mesh.bbox[i + 3] = PetscMax(body->cylinder[i], body->cylinder[3 + i]) + body->cylinder[6];
    }
    body->mesh.axis_aligned = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

/* body->center holds the default centre (the centroid of the bounding box) on entry. */
PetscErrorCode TdRigidBodyMotionFromOptionsInternal(TdModel model, TdBody *body)
{
  const char     *p        = body->name;
  const PetscReal zero3[3] = {0, 0, 0};
  PetscReal       aa[3], Rx[9], Ry[9], Rz[9], T[9];
  PetscFunctionBegin;
  PetscCall(TdOptionsRealArray(p, "velocity", "rigid body: constant velocity vx,vy,vz", "m/s", 3, zero3, body->velocity, NULL));
  PetscCall(TdOptionsRealArray(p, "rotation", "rigid body: initial rotation about x, then y, then z, about its centre", "deg", 3, zero3, body->rotation, NULL));
  PetscCall(TdOptionsRealArray(p, "angular_velocity", "rigid body: constant angular velocity wx,wy,wz about its centre", "rad/s", 3, zero3, body->angular_velocity, NULL));
  PetscCall(TdOptionsRealArray(p, "center", "rigid body: centre of rotation x,y,z (default: the centroid)", "m", 3, body->center, body->center, NULL));
  {
    /* ax,ay,az,f[,phase]: the phase is given in degrees and kept in radians */
    const PetscReal zero5[5] = {0, 0, 0, 0, 0};
    PetscBool       set;
    PetscCall(TdOptionsRealArrayRange(p, "oscillation", "rigid body: a harmonic displacement a sin(2 pi f t + phase) added to its motion: ax,ay,az [m], f [Hz][, phase [deg]]", NULL, 4, 5, zero5, body->oscillation, &set));
    if (set && !(body->oscillation[3] > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_oscillation: the frequency (4th value) must be positive, got %g Hz", p, (double)body->oscillation[3]);
    body->oscillation[4] *= PETSC_PI / 180;
  }
  aa[0] = body->rotation[0] * PETSC_PI / 180; aa[1] = 0; aa[2] = 0;
  RotationMatrix(aa, Rx);
  aa[0] = 0; aa[1] = body->rotation[1] * PETSC_PI / 180;
  RotationMatrix(aa, Ry);
  aa[1] = 0; aa[2] = body->rotation[2] * PETSC_PI / 180;
  RotationMatrix(aa, Rz);
  MatMul3(Ry, Rx, T);
  MatMul3(Rz, T, body->R0);
  PetscFunctionReturn(0);
}

/* Rigid pose: x = c + v t + u(t) + R(w t) R0 (X - c), v_X = v + u'(t) + w x (x - c - v t - u(t)),
   u(t) = a sin(2 pi f t + phase) the harmonic displacement of -<b>_oscillation. */
/* The harmonic displacement of -<b>_oscillation at t and its rate (zero without one). */
static void Oscillation(const TdBody *body, PetscReal t, PetscReal u[3], PetscReal udot[3])
{
  const PetscReal om = 2 * PETSC_PI * body->oscillation[3], ph = om * t + body->oscillation[4];
  const PetscReal s = om > 0 ? PetscSinReal(ph) : 0, c = om > 0 ? om * PetscCosReal(ph) : 0;
  for (PetscInt i = 0; i < 3; i++) {
    u[i]    = body->oscillation[i] * s;
    udot[i] = body->oscillation[i] * c;
  }
}

/* v = V + u' + w x d: the velocity of the point at d from the body's (moving) centre, u' the
   rate of the harmonic displacement */
static void RigidVelocity(const TdBody *body, const PetscReal udot[3], const PetscReal d[3], PetscReal v[3])
{
  const PetscReal *w = body->angular_velocity;
  v[0] = body->velocity[0] + udot[0] + w[1] * d[2] - w[2] * d[1];
  v[1] = body->velocity[1] + udot[1] + w[2] * d[0] - w[0] * d[2];
  v[2] = body->velocity[2] + udot[2] + w[0] * d[1] - w[1] * d[0];
}

void TdRigidBodyPoint(const TdBody *body, const PetscReal X[3], PetscReal t, PetscReal x[3], PetscReal v[3])
{
  PetscReal aa[3], R[9], RR0[9], d[3], rd[3], u[3], udot[3];
  for (PetscInt i = 0; i < 3; i++) aa[i] = body->angular_velocity[i] * t;
  RotationMatrix(aa, R);
  MatMul3(R, body->R0, RR0);
  for (PetscInt i = 0; i < 3; i++) d[i] = X[i] - body->center[i];
  for (PetscInt i = 0; i < 3; i++) rd[i] = RR0[3 * i] * d[0] + RR0[3 * i + 1] * d[1] + RR0[3 * i + 2] * d[2];
  Oscillation(body, t, u, udot);
  for (PetscInt i = 0; i < 3; i++) x[i] = body->center[i] + body->velocity[i] * t + u[i] + rd[i];
  if (v) RigidVelocity(body, udot, rd, v);
}

void TdRigidBodyVelocityAt(const TdBody *body, const PetscReal x[3], PetscReal t, PetscReal v[3])
{
  PetscReal d[3], u[3], udot[3];
  Oscillation(body, t, u, udot);
  for (PetscInt i = 0; i < 3; i++) d[i] = x[i] - body->center[i] - body->velocity[i] * t - u[i];
  RigidVelocity(body, udot, d, v);
}
