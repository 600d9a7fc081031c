/*
  Follower pressure on an ANCF 3843 face (ancf3843_face_pressure, formulation.md (F16)), against
  references that do not come from the kernel:
  - the resultant: the position entries of Q summed over the face's nodes equal p A n (A the
    face's area, n its outward normal) on each of the six faces of an undeformed cell, after a
    rigid rotation (the force turns with the face: a follower load) and after a homogeneous
    stretch (the area scales with the two in-face stretches);
  - the moment about the cell's centre of a uniform pressure on a flat face is zero;
  - the Jacobian against central differences of Q on a randomly deformed cell, every face.
*/
#include <tribodyn/ancf3843.h>
#define TD_RNG_SEED 0x51D3F00Dull
#include "td_check.h"
#include <string.h>

#define NDOF ANCF3843_NDOF

static void map_cell(const double F[3][3], const double e0[NDOF], double e[NDOF])
{
  /* x -> F x on positions and slopes alike (an affine map is exact in ANCF) */
  for (int k = 0; k < ANCF3843_NSHAPE; k++)
    for (int i = 0; i < 3; i++) e[3 * k + i] = F[i][0] * e0[3 * k] + F[i][1] * e0[3 * k + 1] + F[i][2] * e0[3 * k + 2];
}

static void resultant(const double Q[NDOF], double f[3])
{
  f[0] = f[1] = f[2] = 0;
  for (int n = 0; n < ANCF3843_NODES; n++)
    for (int i = 0; i < 3; i++) f[i] += Q[3 * (4 * n) + i];
}

int main(void)
{
  const double a = 0.3, b = 0.2, c = 0.1, x0[3] = {0.1, -0.2, 0.05}, p = 2.5e6;
  const double L[3] = {a, b, c};
  double       e0[NDOF], e[NDOF], Q[NDOF], f[3];
  static double K[NDOF * NDOF];
  char         what[160];
  ancf3843_reference_coordinates(a, b, c, x0, e0);

  /* a rigid rotation about an oblique axis (Rodrigues), and a stretch */
  double R[3][3], U[3][3] = {{1.3, 0, 0}, {0, 0.8, 0}, {0, 0, 1.1}};
  {
    double ax[3] = {1, 2, 2}, th = 0.7, l = 3;
    for (int i = 0; i < 3; i++) ax[i] /= l;
    const double cth = cos(th), sth = sin(th);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) R[i][j] = (i == j ? cth : 0) + (1 - cth) * ax[i] * ax[j];
    R[0][1] -= sth * ax[2]; R[0][2] += sth * ax[1];
    R[1][0] += sth * ax[2]; R[1][2] -= sth * ax[0];
    R[2][0] -= sth * ax[1]; R[2][1] += sth * ax[0];
  }
  for (int face = 0; face < 6; face++) {
    const int fix = face / 2, side = face & 1;
    const int I0 = fix == 0 ? 1 : 0, I1 = fix == 2 ? 1 : 2;
    double    n0[3] = {0, 0, 0}, A0 = L[I0] * L[I1], err = 0;
    n0[fix] = side ? 1 : -1;
    /* undeformed: Q's resultant = p A n (the residual holds minus the external force -p n A) */
    memset(Q, 0, sizeof Q);
    ancf3843_face_pressure(a, b, c, face, e0, p, Q, NULL, 0);
    resultant(Q, f);
    for (int i = 0; i < 3; i++) err = fmax(err, fabs(f[i] - p * A0 * n0[i]) / (p * A0));
    snprintf(what, sizeof what, "face %d, undeformed: resultant = p A n", face);
    check(what, err, 1e-13);
    /* moment about the centre: sum over nodes of (r_n - x_c) x Q_n plus the slope terms vanish
       for a uniform pressure on a flat face; checked through the virtual work of a small rigid
       rotation, dW = Q . (W e0) with W a skew matrix about the centre */
    {
      double xc[3] = {x0[0] + a / 2, x0[1] + b / 2, x0[2] + c / 2}, work = 0, Wm[3][3] = {{0, -0.3, 0.2}, {0.3, 0, -0.5}, {-0.2, 0.5, 0}};
      for (int k = 0; k < ANCF3843_NSHAPE; k++) {
        double v[3] = {e0[3 * k], e0[3 * k + 1], e0[3 * k + 2]};
        if (k % 4 == 0)
          for (int i = 0; i < 3; i++) v[i] -= xc[i];
        for (int i = 0; i < 3; i++) work += Q[3 * k + i] * (Wm[i][0] * v[0] + Wm[i][1] * v[1] + Wm[i][2] * v[2]);
      }
      snprintf(what, sizeof what, "face %d, undeformed: no moment about the centre", face);
      check(what, fabs(work) / (p * A0 * a), 1e-13);
    }
    /* rotated: the resultant turns with the face */
    map_cell(R, e0, e);
    memset(Q, 0, sizeof Q);
    ancf3843_face_pressure(a, b, c, face, e, p, Q, NULL, 0);
    resultant(Q, f);
    err = 0;
    for (int i = 0; i < 3; i++) err = fmax(err, fabs(f[i] - p * A0 * (R[i][0] * n0[0] + R[i][1] * n0[1] + R[i][2] * n0[2])) / (p * A0));
    snprintf(what, sizeof what, "face %d, rotated 0.7 rad: resultant = p A (R n) (follower)", face);
    check(what, err, 1e-13);
    /* stretched: area U_I0 U_I1 A */
    map_cell(U, e0, e);
    memset(Q, 0, sizeof Q);
    ancf3843_face_pressure(a, b, c, face, e, p, Q, NULL, 0);
    resultant(Q, f);
    err = 0;
    for (int i = 0; i < 3; i++) err = fmax(err, fabs(f[i] - p * A0 * U[I0][I0] * U[I1][I1] * n0[i]) / (p * A0));
    snprintf(what, sizeof what, "face %d, stretched 1.3/0.8/1.1: resultant = p (U0 U1 A) n", face);
    check(what, err, 1e-13);
  }
  /* Jacobian against central differences on a randomly deformed, rotated cell */
  {
    double eb[NDOF], ed[NDOF], Qp[NDOF], Qm[NDOF];
    map_cell(R, e0, eb);
    for (int k = 0; k < ANCF3843_NSHAPE; k++)
      for (int i = 0; i < 3; i++) eb[3 * k + i] += (k % 4 == 0 ? 0.02 * c : 0.08) * urand();
    for (int face = 0; face < 6; face++) {
      double num = 0, den = 0;
      memset(K, 0, sizeof K);
      memset(Q, 0, sizeof Q);
      ancf3843_face_pressure(a, b, c, face, eb, p, Q, K, 2.0); /* kscale 2: the block scales */
      for (int col = 0; col < NDOF; col++) {
        const double hstep = 1e-6 * (col % 12 < 3 ? c : 1.0);
        memcpy(ed, eb, sizeof ed);
        ed[col] += hstep;
        memset(Qp, 0, sizeof Qp);
        ancf3843_face_pressure(a, b, c, face, ed, p, Qp, NULL, 0);
        ed[col] -= 2 * hstep;
        memset(Qm, 0, sizeof Qm);
        ancf3843_face_pressure(a, b, c, face, ed, p, Qm, NULL, 0);
        for (int row = 0; row < NDOF; row++) {
          const double fd = 2.0 * (Qp[row] - Qm[row]) / (2 * hstep);
          num += (K[row * NDOF + col] - fd) * (K[row * NDOF + col] - fd);
          den += fd * fd;
        }
      }
      snprintf(what, sizeof what, "face %d, deformed and rotated: ||K - K_fd||_F / ||K_fd||_F", face);
      check(what, sqrt(num / den), 1e-8);
    }
  }
  return td_finish();
}
