/*
  Follower pressure on a face of an ANCF 3843 cell (ancf3843.h, formulation.md (F16)).  Pure C:
  no allocation, no globals.

  On local face f the position is r(u, v) = sum_j S_j e_j over the face's 12 functions (F1), with
  a1 = dr/dX_I0 and a2 = dr/dX_I1 its material derivatives along the in-face axes I0 < I1.  The
  deformed area element is n da = s (a1 x a2) dX_I0 dX_I1, s = +-1 making n the outward normal:
  e_I0 x e_I1 = +e_fix for the xi and zeta faces, -e_fix for the eta faces, so
  s = (side ? +1 : -1) (fix == 1 ? -1 : +1).  A pressure p (positive pushes on the face, against
  its outward normal) exerts f = -p n da, and the residual (internal minus external forces) gets
      Q_j += p s int S_j (a1 x a2) dX_I0 dX_I1                                    (F16)
  Its derivative with respect to the coordinates e_l (component m) follows from
      d(a1 x a2)/de_lm = dS_l/dX_I0 (E_m x a2) + dS_l/dX_I1 (a1 x E_m),
  E_m the unit vector m: the pressure follows the face (a follower load), so the block is not
  symmetric.  The integrand is a polynomial of the face coordinates; 4 x 4 Gauss points make the
  reference-configuration integrals exact and the deformed ones accurate to the element's order.

  Traction t on face f (a dead load: force per unit reference area, fixed in space, F16b): the
  external force is t int S_j dA_0 with dA_0 = |a1_0 x a2_0| dX_I0 dX_I1 from the reference element
  vector e0, a constant table int S_j dA_0 (ancf3843_face_shape_area), so the residual gets
  Q_j -= t int S_j dA_0 and no stiffness.  For a curved cell e0 carries its corner maps (the
  reference area of its curved face); for a box, the box's.
*/
#include <tribodyn/ancf3843.h>
#include <tribodyn/vec3.h>
#include <math.h>

#define NQ1 4

/* 4 x 4 Gauss points on the face: coordinates and weights */
static const double gx[NQ1] = {-0.86113631159405258, -0.33998104358485626, 0.33998104358485626, 0.86113631159405258};
static const double gw[NQ1] = {0.34785484513745385, 0.65214515486254614, 0.65214515486254614, 0.34785484513745385};

/* At face point uv of element vector e: the face's 12 shape functions S, their in-face
   derivatives dS, the tangents a1, a2 and n = a1 x a2 (k: the face's functions). */
static void face_point(double a, double b, double c, int face, const int k[ANCF3843_FACE_NSHAPE], const double e[ANCF3843_NDOF], const double uv[2], double S[ANCF3843_FACE_NSHAPE], double dS[2][ANCF3843_FACE_NSHAPE], double a1[3], double a2[3], double n[3])
{
  ancf3843_face_shape_and_gradient(a, b, c, face, uv, S, dS);
  a1[0] = a1[1] = a1[2] = a2[0] = a2[1] = a2[2] = 0;
  for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++)
    for (int i = 0; i < 3; i++) {
      a1[i] += dS[0][j] * e[3 * k[j] + i];
      a2[i] += dS[1][j] * e[3 * k[j] + i];
    }
  vec3_cross(a1, a2, n);
}

/* dX_I0 dX_I1 = jac du dv on face f of an a x b x c box */
static double face_jacobian(double a, double b, double c, int face)
{
  const int    fix = face / 2, I0 = fix == 0 ? 1 : 0, I1 = fix == 2 ? 1 : 2;
  const double L[3] = {a, b, c};
  return 0.25 * L[I0] * L[I1];
}

void ancf3843_face_pressure(double a, double b, double c, int face, const double e[ANCF3843_NDOF], double p, double Q[ANCF3843_NDOF],
                            double *K, double kscale)
{
  const int    fix = face / 2, side = face & 1;
  const double s   = (side ? 1.0 : -1.0) * (fix == 1 ? -1.0 : 1.0);
  const double jac = face_jacobian(a, b, c, face);
  int          k[ANCF3843_FACE_NSHAPE];

  if (p == 0.0) return;
  ancf3843_face_shapes(face, k);
  for (int qu = 0; qu < NQ1; qu++)
    for (int qv = 0; qv < NQ1; qv++) {
      const double uv[2] = {gx[qu], gx[qv]};
      const double w     = p * s * jac * gw[qu] * gw[qv];
      double       S[ANCF3843_FACE_NSHAPE], dS[2][ANCF3843_FACE_NSHAPE], a1[3], a2[3], n[3];
      face_point(a, b, c, face, k, e, uv, S, dS, a1, a2, n);
      for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++)
        for (int i = 0; i < 3; i++) Q[3 * k[j] + i] += w * S[j] * n[i];
      if (!K) continue;
      for (int m = 0; m < 3; m++) {
        double E[3] = {0, 0, 0}, t2[3], t1[3];
        E[m] = 1.0;
        vec3_cross(E, a2, t2); /* d(a1 x a2)/d a1_m */
        vec3_cross(a1, E, t1); /* d(a1 x a2)/d a2_m */
        for (int l = 0; l < ANCF3843_FACE_NSHAPE; l++) {
          const double g0 = kscale * w * dS[0][l], g1 = kscale * w * dS[1][l];
          const int    col = 3 * k[l] + m;
          for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++)
            for (int i = 0; i < 3; i++) K[(3 * k[j] + i) * ANCF3843_NDOF + col] += S[j] * (g0 * t2[i] + g1 * t1[i]);
        }
      }
    }
}

void ancf3843_face_shape_area(double a, double b, double c, int face, const double e0[ANCF3843_NDOF], double A[ANCF3843_NSHAPE])
{
  const double jac = face_jacobian(a, b, c, face);
  int          k[ANCF3843_FACE_NSHAPE];
  for (int j = 0; j < ANCF3843_NSHAPE; j++) A[j] = 0;
  ancf3843_face_shapes(face, k);
  for (int qu = 0; qu < NQ1; qu++)
    for (int qv = 0; qv < NQ1; qv++) {
      const double uv[2] = {gx[qu], gx[qv]};
      double       S[ANCF3843_FACE_NSHAPE], dS[2][ANCF3843_FACE_NSHAPE], a1[3], a2[3], n[3], dA;
      face_point(a, b, c, face, k, e0, uv, S, dS, a1, a2, n);
      dA = jac * gw[qu] * gw[qv] * vec3_norm(n);
      for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++) A[k[j]] += dA * S[j];
    }
}
