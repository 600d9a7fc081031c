/*
  Curved (mapped) ANCF 3843 cells, ancf3843_geometry_init_mapped (formulation.md §1, curved
  cells), against references that do not come from the mapped code:

  1. a box and a rotated box given as mapped cells give the box tables of
     ancf3843_geometry_init (an independent construction);
  2. a cylindrical-shell sector (a cell of a tube, 30 degrees): its volume against the exact
     (theta1 - theta0)(r1^2 - r0^2) L / 2, converging at fourth order with the sector angle (the
     cubic Hermite interpolation of a circle);
  3. on that curved cell, a homogeneous deformation r = A X + t (exactly representable: the
     element vector is A times the reference one) has the strain energy psi(E) V of St.
     Venant-Kirchhoff with E = (A^T A - I)/2, and a rigid motion gives no force;
  4. the tangent against central differences of the force at a non-homogeneous deformed,
     moving state of the curved cell;
  5. an inverted cell is refused.
*/
#define TD_RNG_SEED 20261125u
#include "td_check.h"
#include <string.h>
#include <tribodyn/ancf3843.h>

#define ND ANCF3843_NDOF
static Ancf3843Geometry geo, ref;
static Ancf3843Work     work;

static double rel_table_diff(const Ancf3843Geometry *g, const Ancf3843Geometry *r)
{
  double err = 0, sw = 0, sd = 0, sm = 0;
  for (int q = 0; q < ANCF3843_NQP; q++) sw = fmax(sw, fabs(r->w[q]));
  for (int q = 0; q < ANCF3843_NQP; q++) err = fmax(err, fabs(g->w[q] - r->w[q]) / sw);
  for (int q = 0; q < ANCF3843_NQP; q++)
    for (int I = 0; I < 3; I++)
      for (int k = 0; k < ANCF3843_NSHAPE; k++) sd = fmax(sd, fabs(r->dSdX[q][I][k]));
  for (int q = 0; q < ANCF3843_NQP; q++)
    for (int I = 0; I < 3; I++)
      for (int k = 0; k < ANCF3843_NSHAPE; k++) err = fmax(err, fabs(g->dSdX[q][I][k] - r->dSdX[q][I][k]) / sd);
  for (int k = 0; k < ANCF3843_NSHAPE; k++)
    for (int l = 0; l < ANCF3843_NSHAPE; l++) sm = fmax(sm, fabs(r->mass_unit[k][l]));
  for (int k = 0; k < ANCF3843_NSHAPE; k++)
    for (int l = 0; l < ANCF3843_NSHAPE; l++) err = fmax(err, fabs(g->mass_unit[k][l] - r->mass_unit[k][l]) / sm);
  for (int k = 0; k < ANCF3843_NSHAPE; k++) err = fmax(err, fabs(g->shape_integral[k] - r->shape_integral[k]) / r->volume);
  return fmax(err, fabs(g->volume - r->volume) / r->volume);
}

static void rotation(double ang, const double axis[3], double R[3][3])
{
  const double n = sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const double k[3] = {axis[0] / n, axis[1] / n, axis[2] / n}, c = cos(ang), s = sin(ang);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[i][j] = (i == j ? c : 0) + (1 - c) * k[i] * k[j];
  R[0][1] -= s * k[2];
  R[0][2] += s * k[1];
  R[1][0] += s * k[2];
  R[1][2] -= s * k[0];
  R[2][0] -= s * k[1];
  R[2][1] += s * k[0];
}

/* Sector cell: xi -> radius r0..r1, eta -> angle t0..t1, zeta -> z 0..L.  Parametric box: the
   mean arc length, the wall thickness and the length; slopes dX/dXbar = (dX/dxi) 2 / a_I. */
static void sector(double r0, double r1, double t0, double t1, double L, double abc[3], double e0[ND])
{
  abc[0] = r1 - r0;
  abc[1] = 0.5 * (r0 + r1) * (t1 - t0);
  abc[2] = L;
  for (int n = 0; n < 8; n++) {
    const double r = (n & 1) ? r1 : r0, t = (n & 2) ? t1 : t0, z = (n & 4) ? L : 0;
    const double X[3] = {r * cos(t), r * sin(t), z};
    const double d[3][3] = {
      {cos(t), sin(t), 0},
      {-r * sin(t) * (t1 - t0) / abc[1], r * cos(t) * (t1 - t0) / abc[1], 0},
      {0, 0, 1}
    };
    for (int i = 0; i < 3; i++) {
      e0[12 * n + i] = X[i];
      for (int I = 0; I < 3; I++) e0[12 * n + 3 + 3 * I + i] = d[I][i];
    }
  }
}

static void affine(const double A[3][3], const double t[3], const double e0[ND], double e[ND])
{
  for (int n = 0; n < 8; n++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 3; i++) e[12 * n + 3 * j + i] = (j == 0 ? t[i] : 0) + A[i][0] * e0[12 * n + 3 * j] + A[i][1] * e0[12 * n + 3 * j + 1] + A[i][2] * e0[12 * n + 3 * j + 2];
}

int main(void)
{
  const double     E = 210e9, nu = 0.3;
  Ancf3843Material mat;
  double           e0[ND], abc[3], ratio;
  ancf3843_material_init(E, nu, 7800, 0, &mat);

  /* 1. boxes */
  {
    const double a = 0.02, b = 0.012, c = 0.005, x0[3] = {0.3, -0.1, 0.2}, axis[3] = {1, 2, -0.5};
    double       R[3][3], er[ND];
    ancf3843_geometry_init(a, b, c, &ref);
    ancf3843_reference_coordinates(a, b, c, x0, e0);
    CHECKF(ancf3843_geometry_init_mapped(a, b, c, e0, &geo, &ratio) == 0, "box accepted");
    check("box as a mapped cell: tables against ancf3843_geometry_init", rel_table_diff(&geo, &ref), 1e-13);
    check("box: smallest det J ratio 1", fabs(ratio - 1), 1e-13);
    rotation(0.7, axis, R);
    affine((const double(*)[3])R, x0, e0, er);
    CHECKF(ancf3843_geometry_init_mapped(a, b, c, er, &geo, NULL) == 0, "rotated box accepted");
    check("rotated box as a mapped cell: tables against the box's", rel_table_diff(&geo, &ref), 1e-13);
  }

  /* 2. sector volume, fourth-order convergence with the angle */
  {
    const double r0 = 0.05, r1 = 0.1, L = 0.02;
    double       err[3];
    for (int l = 0; l < 3; l++) {
      const double dt = (M_PI / 6) / (1 << l);
      sector(r0, r1, 0.3, 0.3 + dt, L, abc, e0);
      CHECKF(ancf3843_geometry_init_mapped(abc[0], abc[1], abc[2], e0, &geo, NULL) == 0, "sector accepted");
      err[l] = fabs(geo.volume - 0.5 * dt * (r1 * r1 - r0 * r0) * L) / (0.5 * dt * (r1 * r1 - r0 * r0) * L);
      printf("     sector %.4f rad: volume relative error %.3e\n", dt, err[l]);
    }
    check("30 degree sector: volume against the exact sector (cubic Hermite arc)", err[0], 3e-4);
    check("sector volume: observed order log2(e1/e2) >= 3.8", fmax(0, 3.8 - log2(err[1] / err[2])), 0);
  }

  /* 3. homogeneous deformation and rigid motion on the curved cell */
  sector(0.05, 0.1, 0.3, 0.3 + M_PI / 6, 0.02, abc, e0);
  ancf3843_geometry_init_mapped(abc[0], abc[1], abc[2], e0, &geo, NULL);
  {
    const double A[3][3] = {
      {1.010, 0.004, -0.002},
      {0.003, 0.995, 0.006},
      {-0.001, 0.002, 1.007}
    };
    const double t[3] = {0.01, -0.02, 0.005}, axis[3] = {0.3, -1, 0.4};
    double       e[ND], Q[ND], W, Es[3][3], trE = 0, EE = 0, R[3][3], ev[ND];
    affine(A, t, e0, e);
    ancf3843_internal_force(&geo, &mat, e, NULL, Q, &W, &work);
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        Es[i][j] = -0.5 * (i == j);
        for (int k = 0; k < 3; k++) Es[i][j] += 0.5 * A[k][i] * A[k][j];
      }
    for (int i = 0; i < 3; i++) trE += Es[i][i];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) EE += Es[i][j] * Es[i][j];
    check("curved cell, homogeneous strain: energy against psi(E) V", fabs(W - geo.volume * (0.5 * mat.lambda * trE * trE + mat.mu * EE)) / W, 1e-11);
    rotation(1.1, axis, R);
    affine((const double(*)[3])R, t, e0, e);
    for (int i = 0; i < ND; i++) ev[i] = 0;
    ancf3843_internal_force(&geo, &mat, e, ev, Q, &W, &work);
    {
      double qmax = 0;
      for (int i = 0; i < ND; i++) qmax = fmax(qmax, fabs(Q[i]));
      check("curved cell, rigid rotation: |Q| / (E V / L)", qmax / (E * geo.volume / 0.02), 1e-12);
    }
  }

  /* 4. tangent against central differences, deformed and moving, with damping */
  {
    double           e[ND], ed[ND], K[ND * ND], Qp[ND], Qm[ND], err = 0, scale = 0;
    const double     ce = 1.0, cv = 0.0, h = 1e-7;
    Ancf3843Material matd;
    ancf3843_material_init(E, nu, 7800, 1e-5, &matd);
    for (int i = 0; i < ND; i++) {
      e[i]  = e0[i] + 2e-3 * (urand() - 0.5) * (i % 12 < 3 ? 0.05 : 1);
      ed[i] = 0.1 * (urand() - 0.5);
    }
    ancf3843_tangent(&geo, &matd, e, ed, ce, cv, K, &work);
    for (int i = 0; i < ND * ND; i++) scale = fmax(scale, fabs(K[i]));
    for (int j = 0; j < ND; j++) {
      const double hj = h * (j % 12 < 3 ? 0.05 : 1), s = e[j];
      e[j] = s + hj;
      ancf3843_internal_force(&geo, &matd, e, ed, Qp, NULL, &work);
      e[j] = s - hj;
      ancf3843_internal_force(&geo, &matd, e, ed, Qm, NULL, &work);
      e[j] = s;
      for (int i = 0; i < ND; i++) err = fmax(err, fabs((Qp[i] - Qm[i]) / (2 * hj) - K[i * ND + j]));
    }
    check("curved cell: tangent against central differences (relative)", err / scale, 1e-6);
  }

  /* 5. inverted: the radial direction reversed (nodes mirrored through the cell) */
  {
    double ei[ND];
    memcpy(ei, e0, sizeof ei);
    for (int n = 0; n < 8; n++)
      for (int i = 0; i < 3; i++) ei[12 * n + 3 + i] = -e0[12 * n + 3 + i]; /* dX/dXbar_0 reversed */
    CHECKF(ancf3843_geometry_init_mapped(abc[0], abc[1], abc[2], ei, &geo, &ratio) == -1, "an inverted cell is refused (smallest det ratio %g)", ratio);
  }
  return td_finish();
}
