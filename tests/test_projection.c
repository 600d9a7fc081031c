/*
  Unit tests of the projection kernels (formulation.md §2, F6-F9; src/kernels/projection.c),
  each against an independent reference:
  1. ANCF faces: undeformed (rotated) element, all 6 faces, lines along and oblique to the face
     normal, against the analytic plane intersection; a deformed element (curved faces) against
     points built on the face and against a brute-force solution (grid scan + Gauss-Newton with
     a finite-difference Jacobian); the face tangents and dS_uv against finite differences; a
     strongly deformed face from bad starting guesses (no run-away, no NaN); a parallel line.
  2. Bilinear quads (planar and twisted) against the closed-form inverse of the bilinear map;
     cylinders against the closed-form intersection in the cylinder's frame; a miss.
  3. dh/dt (F9) against a central finite difference in time of h(t) (F7) for tilted, profiled
     (crown, chamfer), sliding, rotating and deforming ANCF wall and base faces, with the film
     point fixed, moving with a translating frame, and carried by a rotating frame; a face
     parallel to the reference gives n . v; a cylinder spinning about its axis gives 0.
  4. d(n . rdot)/dv and d uvdot/dv against finite differences; profile values and gradients.
*/
#include "tribodyn/projection.h"

#include "tribodyn/ancf3843.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NS = ANCF3843_NSHAPE, ND = ANCF3843_NDOF };

#define TD_RNG_SEED 0x2545F4914F6CDD1Dull
#include "td_check.h"

static double dist3(const double a[3], const double b[3])
{
  const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
  return norm3(d);
}

/* rotation matrix exp(angle K), K the skew matrix of the unit vector k (Rodrigues) */
static void rotation(const double k_in[3], double angle, double R[3][3])
{
  double k[3] = {k_in[0], k_in[1], k_in[2]};
  normalize3(k);
  const double c = cos(angle), s = sin(angle);
  const double K[3][3] = {{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double kk = 0.0;
      for (int m = 0; m < 3; m++) kk += K[i][m] * K[m][j];
      R[i][j] = (i == j ? 1.0 : 0.0) + s * K[i][j] + (1.0 - c) * kk;
    }
}
static void matvec(const double R[3][3], const double x[3], double y[3])
{
  for (int i = 0; i < 3; i++) y[i] = R[i][0] * x[0] + R[i][1] * x[1] + R[i][2] * x[2];
}

/* reference element: corner node 0 at o, material axes = columns of Q */
static void reference_element(double a, double b, double c, const double Q[3][3], const double o[3],
                              double e[ND])
{
  const double h[3] = {a, b, c};
  for (int n = 0; n < 8; n++) {
    double X[3], QX[3];
    for (int I = 0; I < 3; I++) X[I] = ((n >> I) & 1) ? h[I] : 0.0;
    matvec(Q, X, QX);
    for (int i = 0; i < 3; i++) {
      e[3 * (4 * n) + i] = o[i] + QX[i];
      for (int I = 0; I < 3; I++) e[3 * (4 * n + 1 + I) + i] = Q[i][I];
    }
  }
}

/* random perturbation: positions amp_pos * size, slopes amp_slope */
static void perturb(double e[ND], double size, double amp_pos, double amp_slope)
{
  for (int k = 0; k < NS; k++)
    for (int i = 0; i < 3; i++) e[3 * k + i] += urand() * ((k & 3) == 0 ? amp_pos * size : amp_slope);
}

static void face_xi(int face, const double uv[2], double xi[3])
{
  const int fix = face / 2, i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
  xi[fix] = (face & 1) ? 1.0 : -1.0;
  xi[i0] = uv[0];
  xi[i1] = uv[1];
}

static void face_point(double a, double b, double c, int face, const double e[ND], const double uv[2],
                       double r[3])
{
  double xi[3];
  face_xi(face, uv, xi);
  ancf3843_interpolate(a, b, c, xi, e, r, NULL);
}

/* orthonormal basis of the plane normal to n (independent of the kernel's choice) */
static void plane_basis(const double n[3], double t1[3], double t2[3])
{
  double g[3] = {0.3, -0.7, 0.5};
  const double gn = dot3(g, n);
  for (int i = 0; i < 3; i++) t1[i] = g[i] - gn * n[i];
  normalize3(t1);
  cross3(n, t1, t2);
}

static double line_residual(const double r[3], const double x[3], const double n[3])
{
  double t1[3], t2[3], d[3];
  plane_basis(n, t1, t2);
  for (int i = 0; i < 3; i++) d[i] = r[i] - x[i];
  return hypot(dot3(t1, d), dot3(t2, d));
}

/* brute force: scan a grid of uv for the smallest |P (r - x)|, then Gauss-Newton with a
   central-difference Jacobian (no analytic tangents) */
static void brute_force(double a, double b, double c, int face, const double e[ND], const double x[3],
                        const double n[3], double uv[2])
{
  double t1[3], t2[3];
  plane_basis(n, t1, t2);
  double best = INFINITY;
  const int M = 60;
  for (int i = 0; i <= M; i++)
    for (int j = 0; j <= M; j++) {
      const double w[2] = {-1.2 + 2.4 * i / M, -1.2 + 2.4 * j / M};
      double r[3];
      face_point(a, b, c, face, e, w, r);
      const double res = line_residual(r, x, n);
      if (res < best) {
        best = res;
        uv[0] = w[0];
        uv[1] = w[1];
      }
    }
  for (int it = 0; it < 30; it++) {
    double r[3], R[2], J[2][2];
    face_point(a, b, c, face, e, uv, r);
    double d[3] = {r[0] - x[0], r[1] - x[1], r[2] - x[2]};
    R[0] = dot3(t1, d);
    R[1] = dot3(t2, d);
    const double hfd = 1e-6;
    for (int m = 0; m < 2; m++) {
      double up[2] = {uv[0], uv[1]}, um[2] = {uv[0], uv[1]}, rp[3], rm[3], dr[3];
      up[m] += hfd;
      um[m] -= hfd;
      face_point(a, b, c, face, e, up, rp);
      face_point(a, b, c, face, e, um, rm);
      for (int i = 0; i < 3; i++) dr[i] = (rp[i] - rm[i]) / (2 * hfd);
      J[0][m] = dot3(t1, dr);
      J[1][m] = dot3(t2, dr);
    }
    const double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    uv[0] -= (J[1][1] * R[0] - J[0][1] * R[1]) / det;
    uv[1] -= (-J[1][0] * R[0] + J[0][0] * R[1]) / det;
  }
}

/* ---------------------------------------------------------------- 1. ANCF faces */
static void test_ancf_faces(void)
{
  const double a = 0.02, b = 0.012, c = 0.005;
  const double h[3] = {a, b, c};
  double Q[3][3], e[ND];
  const double axis[3] = {0.3, -0.5, 0.8}, o[3] = {0.01, -0.02, 0.03};
  rotation(axis, 0.4, Q);
  reference_element(a, b, c, Q, o, e);

  /* undeformed: analytic intersection of the line with the face plane */
  double err_res = 0, err_r = 0, err_uv = 0, err_s = 0, err_t = 0, err_S = 0;
  int bad_ret = 0, maxit = 0;
  for (int face = 0; face < 6; face++) {
    const int fix = face / 2, i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
    double N[3], T0[3], T1[3];
    for (int i = 0; i < 3; i++) {
      N[i] = ((face & 1) ? 1.0 : -1.0) * Q[i][fix]; /* outward normal */
      T0[i] = Q[i][i0];
      T1[i] = Q[i][i1];
    }
    for (int dir = 0; dir < 4; dir++) {
      double n[3];
      for (int i = 0; i < 3; i++)
        n[i] = dir < 2 ? -N[i] : -N[i] + (dir == 2 ? 0.5 : -0.8) * T0[i] + (dir == 2 ? -0.3 : 0.6) * T1[i];
      normalize3(n);
      for (int trial = 0; trial < 3; trial++) {
        const double uvt[2] = {0.9 * urand(), 0.9 * urand()};
        const int outside = trial == 2;
        double uvw[2] = {uvt[0], uvt[1]};
        if (outside) uvw[0] = 1.35; /* a point beyond the face edge */
        /* analytic point on the (planar) face and the film point at distance s0 along -n */
        double xi[3], X[3], p[3];
        face_xi(face, uvw, xi);
        for (int I = 0; I < 3; I++) X[I] = h[I] * (1 + xi[I]) / 2;
        matvec(Q, X, p);
        for (int i = 0; i < 3; i++) p[i] += o[i];
        const double s0 = (dir == 1 ? -1.0 : 1.0) * 7e-4;
        double x[3];
        for (int i = 0; i < 3; i++) x[i] = p[i] - s0 * n[i];
        FilmSurfacePoint pt;
        pt.uv[0] = dir & 1 ? 0.9 : 0.0; /* two starting guesses */
        pt.uv[1] = dir & 1 ? -0.9 : 0.0;
        const int ret = film_project_ancf_face(a, b, c, face, e, x, n, 1e-9, &pt);
        if (ret != (outside ? 1 : 0)) bad_ret++;
        if (pt.iterations > maxit) maxit = pt.iterations;
        err_res = fmax(err_res, line_residual(pt.r, x, n) / a);
        err_r = fmax(err_r, dist3(pt.r, p) / a);
        err_uv = fmax(err_uv, fmax(fabs(pt.uv[0] - uvw[0]), fabs(pt.uv[1] - uvw[1])));
        err_uv = fmax(err_uv, dist3(pt.xi, xi));
        err_s = fmax(err_s, fabs(pt.s - s0) / a);
        for (int i = 0; i < 3; i++) {
          err_t = fmax(err_t, fabs(pt.r_uv[i][0] - T0[i] * h[i0] / 2) / a);
          err_t = fmax(err_t, fabs(pt.r_uv[i][1] - T1[i] * h[i1] / 2) / a);
        }
        double S[NS];
        ancf3843_shape(a, b, c, xi, S);
        for (int k = 0; k < NS; k++) err_S = fmax(err_S, fabs(S[k] - pt.S[k]));
      }
    }
  }
  printf("undeformed element, 6 faces x 4 lines x 3 points: at most %d Newton steps\n", maxit);
  check("undeformed: return codes (0 inside, 1 outside)", bad_ret, 0);
  check("undeformed: |P(r - x)| / a", err_res, 1e-12);
  check("undeformed: |r - analytic point| / a", err_r, 1e-12);
  check("undeformed: uv and xi against analytic", err_uv, 1e-12);
  check("undeformed: s against analytic / a", err_s, 1e-12);
  check("undeformed: r_uv against the element axes / a", err_t, 1e-13);
  check("undeformed: S at the found point", err_S, 1e-13);

  /* deformed element (~5 %): points built on the curved face, and brute force */
  double ed[ND];
  memcpy(ed, e, sizeof(ed));
  perturb(ed, 0.012, 0.05, 0.05);
  double e_built_uv = 0, e_built_res = 0, e_bf = 0, e_bf_r = 0, e_tan = 0, e_dS = 0, e_res2 = 0;
  bad_ret = 0;
  maxit = 0;
  for (int face = 0; face < 6; face++) {
    const int fix = face / 2;
    double N[3];
    for (int i = 0; i < 3; i++) N[i] = ((face & 1) ? 1.0 : -1.0) * Q[i][fix];
    for (int trial = 0; trial < 6; trial++) {
      double n[3];
      for (int i = 0; i < 3; i++) n[i] = -N[i] + 0.4 * urand();
      normalize3(n);
      const double uvt[2] = {0.85 * urand(), 0.85 * urand()};
      double p[3], x[3];
      face_point(a, b, c, face, ed, uvt, p);
      const double s0 = 5e-4 * urand();
      for (int i = 0; i < 3; i++) x[i] = p[i] - s0 * n[i];
      FilmSurfacePoint pt;
      pt.uv[0] = pt.uv[1] = 0.0;
      const int ret = film_project_ancf_face(a, b, c, face, ed, x, n, 1e-9, &pt);
      if (ret != 0) bad_ret++;
      if (pt.iterations > maxit) maxit = pt.iterations;
      e_built_uv = fmax(e_built_uv, fmax(fabs(pt.uv[0] - uvt[0]), fabs(pt.uv[1] - uvt[1])));
      e_built_res = fmax(e_built_res, fmax(line_residual(pt.r, x, n) / a, fabs(pt.s - s0) / a));

      /* a random film point near the face: brute force */
      double x2[3], ubf[2] = {0.0, 0.0};
      for (int i = 0; i < 3; i++) x2[i] = p[i] + 2e-4 * urand();
      brute_force(a, b, c, face, ed, x2, n, ubf);
      FilmSurfacePoint q;
      q.uv[0] = 0.5 * urand();
      q.uv[1] = 0.5 * urand();
      const int ret2 = film_project_ancf_face(a, b, c, face, ed, x2, n, 1e-9, &q);
      if (ret2 < 0) bad_ret++;
      double rbf[3];
      face_point(a, b, c, face, ed, ubf, rbf);
      e_bf = fmax(e_bf, fmax(fabs(q.uv[0] - ubf[0]), fabs(q.uv[1] - ubf[1])));
      e_bf_r = fmax(e_bf_r, dist3(q.r, rbf) / a);
      e_res2 = fmax(e_res2, line_residual(q.r, x2, n) / a);
      /* the point's own fields: r = sum S e, s = n.(r - x), tangents and dS_uv by differences */
      double r2[3] = {0, 0, 0};
      for (int k = 0; k < NS; k++)
        for (int i = 0; i < 3; i++) r2[i] += q.S[k] * ed[3 * k + i];
      double dx[3] = {q.r[0] - x2[0], q.r[1] - x2[1], q.r[2] - x2[2]};
      e_res2 = fmax(e_res2, fmax(dist3(r2, q.r) / a, fabs(dot3(n, dx) - q.s) / a));
      const double hfd = 1e-6;
      for (int m = 0; m < 2; m++) {
        double up[2] = {q.uv[0], q.uv[1]}, um[2] = {q.uv[0], q.uv[1]}, rp[3], rm[3], xp[3], xm[3];
        up[m] += hfd;
        um[m] -= hfd;
        face_point(a, b, c, face, ed, up, rp);
        face_point(a, b, c, face, ed, um, rm);
        for (int i = 0; i < 3; i++) e_tan = fmax(e_tan, fabs((rp[i] - rm[i]) / (2 * hfd) - q.r_uv[i][m]) / a);
        double Sp[NS], Sm[NS];
        face_xi(face, up, xp);
        face_xi(face, um, xm);
        ancf3843_shape(a, b, c, xp, Sp);
        ancf3843_shape(a, b, c, xm, Sm);
        for (int k = 0; k < NS; k++) {
          const double sc = (k & 3) ? a : 1.0; /* slope functions carry a length */
          e_dS = fmax(e_dS, fabs((Sp[k] - Sm[k]) / (2 * hfd) - q.dS_uv[m][k]) / sc);
        }
      }
    }
  }
  printf("deformed element (5 %%), 6 faces x 6 lines x 2: at most %d Newton steps\n", maxit);
  check("deformed: return codes", bad_ret, 0);
  check("deformed: points built on the face: uv", e_built_uv, 1e-12);
  check("deformed: points built on the face: |P(r - x)|/a, |s - s0|/a", e_built_res, 1e-12);
  check("deformed: random points: |P(r - x)|/a, r = sum S e, s = n.(r - x)", e_res2, 1e-12);
  check("deformed: uv against brute force (scan + FD Gauss-Newton)", e_bf, 1e-10);
  check("deformed: r against brute force / a", e_bf_r, 1e-10);
  check("deformed: r_uv against central differences / a", e_tan, 1e-8);
  check("deformed: dS_uv against central differences", e_dS, 1e-8);

  /* strongly deformed face (30 %), bad starts: no NaN, no run-away, any converged point valid */
  double es[ND];
  memcpy(es, e, sizeof(es));
  perturb(es, 0.012, 0.3, 0.3);
  int n0 = 0, n1 = 0, nm = 0, invalid = 0;
  double worst = 0.0;
  for (int trial = 0; trial < 200; trial++) {
    const int face = trial % 6, fix = face / 2;
    double n[3], p[3], x[3];
    for (int i = 0; i < 3; i++) n[i] = -((face & 1) ? 1.0 : -1.0) * Q[i][fix] + 0.5 * urand();
    normalize3(n);
    const double uvt[2] = {1.1 * urand(), 1.1 * urand()};
    face_point(a, b, c, face, es, uvt, p);
    for (int i = 0; i < 3; i++) x[i] = p[i] + 1e-3 * urand();
    FilmSurfacePoint pt;
    pt.uv[0] = 3.0 * urand();
    pt.uv[1] = 3.0 * urand();
    const int ret = film_project_ancf_face(a, b, c, face, es, x, n, 1e-9, &pt);
    if (ret == 0) n0++;
    else if (ret == 1) n1++;
    else nm++;
    if (!isfinite(pt.uv[0]) || !isfinite(pt.uv[1]) || pt.iterations > 40) invalid++;
    if (ret >= 0) worst = fmax(worst, line_residual(pt.r, x, n) / a);
    if (ret >= 0 && (fabs(pt.uv[0]) > 4.0 || fabs(pt.uv[1]) > 4.0)) invalid++;
  }
  printf("strongly deformed (30 %%), starts in [-3,3]^2: %d inside, %d outside, %d failed of 200\n", n0,
         n1, nm);
  check("strongly deformed: finite iterates, <= 2 x 20 steps, |uv| <= 4 when converged", invalid, 0);
  check("strongly deformed: converged points lie on the line (/a)", worst, 1e-12);

  /* 15 % deformed face, starts anywhere in [-3, 3]^2 (the extrapolated cubic has spurious roots
     and run-offs out there; the retry from the centre must recover the point on the face) */
  {
    double em[ND];
    memcpy(em, e, sizeof(em));
    perturb(em, 0.012, 0.15, 0.15);
    int found = 0, ntr = 300, maxit15 = 0;
    for (int trial = 0; trial < ntr; trial++) {
      const int face = trial % 6, fix = face / 2;
      double n[3], p[3], x[3];
      for (int i = 0; i < 3; i++) n[i] = -((face & 1) ? 1.0 : -1.0) * Q[i][fix] + 0.5 * urand();
      normalize3(n);
      const double uvt[2] = {0.95 * urand(), 0.95 * urand()};
      face_point(a, b, c, face, em, uvt, p);
      for (int i = 0; i < 3; i++) x[i] = p[i] - 5e-4 * n[i];
      FilmSurfacePoint pt;
      pt.uv[0] = 3.0 * urand();
      pt.uv[1] = 3.0 * urand();
      const int ret = film_project_ancf_face(a, b, c, face, em, x, n, 1e-9, &pt);
      if (ret == 0 && fabs(pt.uv[0] - uvt[0]) < 1e-10 && fabs(pt.uv[1] - uvt[1]) < 1e-10) found++;
      if (pt.iterations > maxit15) maxit15 = pt.iterations;
    }
    printf("15 %% deformed, starts in [-3,3]^2: point found in %d of %d, at most %d Newton steps\n", found,
           ntr, maxit15);
    check("15 % deformed, far starts: every point on the face found", ntr - found, 0);
  }

  /* a line parallel to the face */
  {
    double x[3], n[3], p[3];
    const double uv0[2] = {0.1, 0.2};
    face_point(a, b, c, 4, e, uv0, p);
    for (int i = 0; i < 3; i++) {
      n[i] = Q[i][0];
      x[i] = p[i] - 1e-3 * Q[i][2];
    }
    FilmSurfacePoint pt;
    pt.uv[0] = pt.uv[1] = 0.0;
    const int ret = film_project_ancf_face(a, b, c, 4, e, x, n, 1e-9, &pt);
    check("line parallel to the face returns -1", ret == -1 ? 0 : 1, 0);
  }
}

/* ---------------------------------------------------------------- 2. bilinear quads, cylinder */
static void test_bilinear_cylinder(void)
{
  const double Cq[2][4][3] = {
      /* planar trapezoid in a tilted plane */
      {{0.0, 0.0, 0.0}, {0.03, 0.002, 0.003}, {0.025, 0.02, 0.004}, {0.004, 0.017, 0.0015}},
      /* twisted (non-planar) quad */
      {{0.0, 0.0, 0.0}, {0.03, 0.0, 0.002}, {0.028, 0.021, -0.001}, {0.002, 0.02, 0.003}}};
  double err_uv = 0, err_r = 0, err_res = 0, err_S = 0;
  int bad = 0;
  for (int qd = 0; qd < 2; qd++)
    for (int trial = 0; trial < 20; trial++) {
      double n[3] = {0.3 * urand(), 0.3 * urand(), -1.0};
      normalize3(n);
      double x[3] = {0.015 + 0.016 * urand(), 0.01 + 0.012 * urand(), 0.002 + 0.002 * urand()};
      /* closed form: A + B u + C v + D uv = 0 in the plane normal to n */
      double t1[3], t2[3];
      plane_basis(n, t1, t2);
      const double(*X)[3] = Cq[qd];
      double a0[3], a1[3], a2[3], a3[3];
      for (int i = 0; i < 3; i++) {
        a0[i] = 0.25 * (X[0][i] + X[1][i] + X[2][i] + X[3][i]) - x[i];
        a1[i] = 0.25 * (-X[0][i] + X[1][i] + X[2][i] - X[3][i]);
        a2[i] = 0.25 * (-X[0][i] - X[1][i] + X[2][i] + X[3][i]);
        a3[i] = 0.25 * (X[0][i] - X[1][i] + X[2][i] - X[3][i]);
      }
      const double A[2] = {dot3(t1, a0), dot3(t2, a0)}, B[2] = {dot3(t1, a1), dot3(t2, a1)};
      const double C[2] = {dot3(t1, a2), dot3(t2, a2)}, D[2] = {dot3(t1, a3), dot3(t2, a3)};
#define CR(p, q) ((p)[0] * (q)[1] - (p)[1] * (q)[0])
      /* (A + B u) x (C + D u) = 0 */
      const double qa = CR(B, D), qb = CR(A, D) + CR(B, C), qc = CR(A, C);
#undef CR
      double u;
      if (fabs(qa) < 1e-14 * fabs(qb)) u = -qc / qb;
      else {
        const double disc = qb * qb - 4 * qa * qc;
        const double qq = -0.5 * (qb + copysign(sqrt(disc), qb));
        const double u1 = qq / qa, u2 = qc / qq;
        u = fabs(u1) < fabs(u2) ? u1 : u2;
      }
      const double den0 = C[0] + D[0] * u, den1 = C[1] + D[1] * u;
      const double v = fabs(den0) > fabs(den1) ? -(A[0] + B[0] * u) / den0 : -(A[1] + B[1] * u) / den1;
      FilmSurfacePoint pt;
      pt.uv[0] = pt.uv[1] = 0.0;
      const int ret = film_project_bilinear(Cq[qd], x, n, 1e-9, &pt);
      const int inside = fabs(u) <= 1 + 1e-9 && fabs(v) <= 1 + 1e-9;
      if (ret != (inside ? 0 : 1)) bad++;
      err_uv = fmax(err_uv, fmax(fabs(pt.uv[0] - u), fabs(pt.uv[1] - v)));
      const double N[4] = {0.25 * (1 - u) * (1 - v), 0.25 * (1 + u) * (1 - v), 0.25 * (1 + u) * (1 + v),
                           0.25 * (1 - u) * (1 + v)};
      double r[3] = {0, 0, 0};
      for (int k = 0; k < 4; k++)
        for (int i = 0; i < 3; i++) r[i] += N[k] * X[k][i];
      err_r = fmax(err_r, dist3(r, pt.r) / 0.03);
      double dx[3] = {pt.r[0] - x[0], pt.r[1] - x[1], pt.r[2] - x[2]};
      err_res = fmax(err_res, fmax(line_residual(pt.r, x, n), fabs(dot3(n, dx) - pt.s)) / 0.03);
      for (int k = 0; k < 4; k++) err_S = fmax(err_S, fabs(pt.S[k] - N[k]));
      for (int k = 4; k < 32; k++) err_S = fmax(err_S, fabs(pt.S[k]) + fabs(pt.dS_uv[0][k]) + fabs(pt.dS_uv[1][k]));
      for (int i = 0; i < 3; i++) { /* r_uv = a1 + a3 v, a2 + a3 u */
        err_r = fmax(err_r, fabs(pt.r_uv[i][0] - (a1[i] + a3[i] * v)) / 0.03);
        err_r = fmax(err_r, fabs(pt.r_uv[i][1] - (a2[i] + a3[i] * u)) / 0.03);
      }
    }
  check("bilinear: return codes", bad, 0);
  check("bilinear: uv against the closed-form inverse", err_uv, 1e-12);
  check("bilinear: r and r_uv against closed form / size", err_r, 1e-12);
  check("bilinear: |P(r - x)|, s / size", err_res, 1e-12);
  check("bilinear: S = N_k, rest 0", err_S, 1e-13);

  /* cylinder: canonical frame (axis y through 0, line along -z), then rotated and shifted */
  double Rm[3][3];
  const double ax[3] = {0.4, 0.2, -0.7};
  rotation(ax, 0.9, Rm);
  const double p0[3] = {0.01, 0.02, -0.03}, Rc = 0.015;
  double d[3], e_cyl = 0, e_tan = 0, e_fd = 0;
  const double ey[3] = {0, 1, 0}, mz[3] = {0, 0, -1};
  matvec(Rm, ey, d);
  double n[3];
  matvec(Rm, mz, n);
  int bad_c = 0;
  for (int trial = 0; trial < 20; trial++) {
    const double xc[3] = {0.9 * Rc * urand(), 0.02 * urand(), 0.03 * urand()};
    /* roots: z = +-sqrt(R^2 - x^2), s = z_c - z (the line goes along -z) */
    const double zr = sqrt(Rc * Rc - xc[0] * xc[0]);
    const double s1 = xc[2] - zr, s2 = xc[2] + zr;
    const double s = fabs(s1) < fabs(s2) ? s1 : s2;
    const double rc[3] = {xc[0], xc[1], xc[2] - s};
    double x[3], r[3];
    matvec(Rm, xc, x);
    matvec(Rm, rc, r);
    for (int i = 0; i < 3; i++) {
      x[i] += p0[i];
      r[i] += p0[i];
    }
    FilmSurfacePoint pt;
    const int ret = film_project_cylinder(p0, d, Rc, x, n, &pt);
    if (ret != 0) bad_c++;
    e_cyl = fmax(e_cyl, fmax(dist3(pt.r, r), fabs(pt.s - s)) / Rc);
    e_cyl = fmax(e_cyl, line_residual(pt.r, x, n) / Rc);
    /* tangents: r_u normal to the axis and the radius, |r_u| = R; r_v = d */
    double rad[3];
    for (int i = 0; i < 3; i++) rad[i] = pt.r[i] - p0[i];
    const double z = dot3(rad, d);
    for (int i = 0; i < 3; i++) rad[i] -= z * d[i];
    const double ru[3] = {pt.r_uv[0][0], pt.r_uv[1][0], pt.r_uv[2][0]};
    const double rv[3] = {pt.r_uv[0][1], pt.r_uv[1][1], pt.r_uv[2][1]};
    e_tan = fmax(e_tan, fabs(dot3(ru, d)) / Rc + fabs(dot3(ru, rad)) / (Rc * Rc) + fabs(norm3(ru) - Rc) / Rc);
    e_tan = fmax(e_tan, dist3(rv, d) + fabs(z - pt.uv[1]) / Rc);
    /* r_uv by a shifted line: r' - r = r_uv duv + O(delta^2) */
    double t1[3], t2[3];
    plane_basis(n, t1, t2);
    const double del = 1e-7;
    double xp[3], xm[3];
    for (int i = 0; i < 3; i++) {
      xp[i] = x[i] + del * t1[i];
      xm[i] = x[i] - del * t1[i];
    }
    FilmSurfacePoint qp, qm;
    film_project_cylinder(p0, d, Rc, xp, n, &qp);
    film_project_cylinder(p0, d, Rc, xm, n, &qm);
    for (int i = 0; i < 3; i++) {
      const double pred = pt.r_uv[i][0] * (qp.uv[0] - qm.uv[0]) + pt.r_uv[i][1] * (qp.uv[1] - qm.uv[1]);
      e_fd = fmax(e_fd, fabs(pred - (qp.r[i] - qm.r[i])) / (2 * del));
    }
  }
  check("cylinder: return codes", bad_c, 0);
  check("cylinder: r, s against the closed form, |P(r - x)| (/R)", e_cyl, 1e-13);
  check("cylinder: r_u normal to axis and radius, |r_u| = R, r_v = d, v = z", e_tan, 1e-13);
  check("cylinder: r_uv duv against shifted lines", e_fd, 1e-7);
  {
    const double xc[3] = {1.2 * Rc, 0.0, 0.01};
    double x[3];
    matvec(Rm, xc, x);
    for (int i = 0; i < 3; i++) x[i] += p0[i];
    FilmSurfacePoint pt;
    check("cylinder: a line that misses returns -1", film_project_cylinder(p0, d, Rc, x, n, &pt) == -1 ? 0 : 1, 0);
    check("cylinder: a line along the axis returns -1", film_project_cylinder(p0, d, Rc, x, d, &pt) == -1 ? 0 : 1, 0);
  }
  /* a journal spinning about its axis and sliding along it: the surface does not move, so the
     projected point of a fixed film point does not move along n (F9) */
  {
    double emax = 0.0;
    for (int trial = 0; trial < 10; trial++) {
      const double xc[3] = {0.8 * Rc * urand(), 0.02 * urand(), 0.03};
      double x[3];
      matvec(Rm, xc, x);
      for (int i = 0; i < 3; i++) x[i] += p0[i];
      FilmSurfacePoint pt;
      film_project_cylinder(p0, d, Rc, x, n, &pt);
      const double omega = 150.0, V = 0.7;
      double rad[3], v[3], uvdot[2];
      for (int i = 0; i < 3; i++) rad[i] = pt.r[i] - p0[i];
      cross3(d, rad, v);
      for (int i = 0; i < 3; i++) v[i] = omega * v[i] + V * d[i];
      const double rate = film_point_normal_rate(&pt, n, v, NULL, NULL, uvdot);
      emax = fmax(emax, fabs(rate) / (omega * Rc));
      emax = fmax(emax, fabs(uvdot[0] + omega) / omega); /* the angle slides back at -omega */
      emax = fmax(emax, fabs(uvdot[1] + V) / V);
    }
    check("cylinder spinning about its axis: n.rdot = 0, uvdot = (-omega, -V)", emax, 1e-12);
  }
}

/* ---------------------------------------------------------------- 3. dh/dt (F9) */

/* A body: reference element E_ref, e(t) = Q(t) (E_ref + D0 + t D1) + c(t) (c on positions) with
   Q(t) = rotation by omega t about k, c(t) = V t. */
typedef struct {
  double a, b, c;
  int face;
  double Eref[ND], D0[ND], D1[ND];
  double k[3], omega, V[3];
  FilmProfile prof;
} Body;

static void body_state(const Body *B, double t, double e[ND], double edot[ND])
{
  double Q[3][3], K[3][3], k[3] = {B->k[0], B->k[1], B->k[2]};
  normalize3(k);
  rotation(k, B->omega * t, Q);
  const double Ks[3][3] = {{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      K[i][j] = 0.0;
      for (int m = 0; m < 3; m++) K[i][j] += B->omega * Ks[i][m] * Q[m][j]; /* Qdot = omega K Q */
    }
  for (int kk = 0; kk < NS; kk++) {
    double w[3], d1[3], Qw[3], Kw[3], Qd1[3];
    for (int i = 0; i < 3; i++) {
      w[i] = B->Eref[3 * kk + i] + B->D0[3 * kk + i] + t * B->D1[3 * kk + i];
      d1[i] = B->D1[3 * kk + i];
    }
    matvec(Q, w, Qw);
    matvec(K, w, Kw);
    matvec(Q, d1, Qd1);
    const int pos = (kk & 3) == 0;
    for (int i = 0; i < 3; i++) {
      e[3 * kk + i] = Qw[i] + (pos ? B->V[i] * t : 0.0);
      if (edot) edot[3 * kk + i] = Kw[i] + Qd1[i] + (pos ? B->V[i] : 0.0);
    }
  }
}

/* the film frame: x = c_f + R_f(t) X_f, n = R_f(t) n0 */
typedef struct {
  double X[3], n0[3], k[3], omega, V[3];
} Frame;

static void frame_state(const Frame *F, double t, double x[3], double n[3], double xdot[3], double ndot[3])
{
  double Q[3][3], k[3] = {F->k[0], F->k[1], F->k[2]};
  normalize3(k);
  rotation(k, F->omega * t, Q);
  double QX[3], Qn[3];
  matvec(Q, F->X, QX);
  matvec(Q, F->n0, Qn);
  double wx[3], wn[3];
  cross3(k, QX, wx);
  cross3(k, Qn, wn);
  for (int i = 0; i < 3; i++) {
    x[i] = QX[i] + F->V[i] * t;
    n[i] = Qn[i];
    xdot[i] = F->omega * wx[i] + F->V[i];
    ndot[i] = F->omega * wn[i];
  }
}

/* one side: project, profile at the material point; rate terms if requested */
static double side_eval(const Body *B, double t, const double x[3], const double n[3], const double xdot[3],
                        const double ndot[3], double uv_guess[2], double *rate, double *prof_rate,
                        double *h_prof)
{
  double e[ND], edot[ND];
  body_state(B, t, e, edot);
  FilmSurfacePoint pt;
  pt.uv[0] = uv_guess[0];
  pt.uv[1] = uv_guess[1];
  const int ret = film_project_ancf_face(B->a, B->b, B->c, B->face, e, x, n, 1e-9, &pt);
  if (ret != 0) {
    printf("FAIL projection returned %d at t = %g\n", ret, t);
    failures++;
  }
  uv_guess[0] = pt.uv[0];
  uv_guess[1] = pt.uv[1];
  /* material coordinates X = sum S_k Eref_k and X_uv */
  double X[3] = {0, 0, 0}, Xuv[3][2] = {{0, 0}, {0, 0}, {0, 0}}, v[3] = {0, 0, 0};
  for (int k = 0; k < NS; k++)
    for (int i = 0; i < 3; i++) {
      X[i] += pt.S[k] * B->Eref[3 * k + i];
      Xuv[i][0] += pt.dS_uv[0][k] * B->Eref[3 * k + i];
      Xuv[i][1] += pt.dS_uv[1][k] * B->Eref[3 * k + i];
      v[i] += pt.S[k] * edot[3 * k + i]; /* F8 */
    }
  double dhdX[3];
  const double hp = film_profile_eval(&B->prof, X, dhdX);
  if (h_prof) *h_prof = hp;
  if (rate) {
    double uvdot[2], ddv[3];
    *rate = film_point_normal_rate_frame(&pt, n, ndot, v, xdot, ddv, uvdot, NULL);
    double Xdot[3];
    for (int i = 0; i < 3; i++) Xdot[i] = Xuv[i][0] * uvdot[0] + Xuv[i][1] * uvdot[1];
    *prof_rate = dot3(dhdX, Xdot);
  }
  return dot3(n, pt.r) + hp; /* n . r + h_prof */
}

/* h = n.(r_b - r_w) + h_prof,w + h_prof,b (F7) */
static double film_h(const Body *W, const Body *Bb, const Frame *F, double t, double uvw[2], double uvb[2],
                     double *dhdt, double parts[4])
{
  double x[3], n[3], xdot[3], ndot[3];
  frame_state(F, t, x, n, xdot, ndot);
  double rw, rb, pw, pb, hpw, hpb;
  const double sw = side_eval(W, t, x, n, xdot, ndot, uvw, dhdt ? &rw : NULL, &pw, &hpw);
  const double sb = side_eval(Bb, t, x, n, xdot, ndot, uvb, dhdt ? &rb : NULL, &pb, &hpb);
  if (dhdt) {
    *dhdt = rb - rw + pw + pb;
    parts[0] = rb;
    parts[1] = rw;
    parts[2] = pw;
    parts[3] = pb;
  }
  return (sb - hpb) - (sw - hpw) + hpw + hpb;
}

static void test_dhdt(void)
{
  Body W, B;
  memset(&W, 0, sizeof(W));
  memset(&B, 0, sizeof(B));
  const double yax[3] = {0, 1, 0};
  /* wall 20 x 10 x 5 mm above, tilted 2 degrees about y, its face zeta = -1 */
  W.a = 0.02;
  W.b = 0.01;
  W.c = 0.005;
  W.face = 4;
  double Qw[3][3], Qb[3][3];
  rotation(yax, 2.0 * M_PI / 180, Qw);
  const double ow[3] = {-0.005, -0.005, 0.0006};
  reference_element(W.a, W.b, W.c, Qw, ow, W.Eref);
  perturb(W.D0, 0.01, 0.01, 0.02);
  perturb(W.D1, 0.01, 1.0, 1.0); /* deformation rate: ~1 %/ms */
  W.k[0] = 0.1;
  W.k[1] = 1.0;
  W.k[2] = 0.3;
  W.omega = 2.0;
  W.V[0] = 1.0;
  W.V[1] = 0.05;
  W.V[2] = 0.02;
  W.prof.type = FILM_PROFILE_CROWN;
  {
    const double Xc[3] = {W.a / 2, W.b / 2, 0}, ex[3] = {1, 0, 0};
    matvec(Qw, Xc, W.prof.center);
    for (int i = 0; i < 3; i++) W.prof.center[i] += ow[i];
    matvec(Qw, ex, W.prof.axis);
  }
  W.prof.amplitude = 5e-6;
  W.prof.half_length = 0.01;
  /* base 40 x 12 x 5 mm below, tilted -1.5 degrees, its face zeta = +1, chamfered */
  B.a = 0.04;
  B.b = 0.012;
  B.c = 0.005;
  B.face = 5;
  rotation(yax, -1.5 * M_PI / 180, Qb);
  const double ob[3] = {0.0005, -0.006, -0.005};
  reference_element(B.a, B.b, B.c, Qb, ob, B.Eref);
  perturb(B.D0, 0.01, 0.01, 0.02);
  perturb(B.D1, 0.01, 1.0, 1.0);
  B.k[0] = 0.2;
  B.k[1] = 0.5;
  B.k[2] = 1.0;
  B.omega = -1.0;
  B.V[0] = -0.3;
  B.V[2] = 0.01;
  B.prof.type = FILM_PROFILE_CHAMFER;
  {
    const double Xc[3] = {B.a / 2, B.b / 2, B.c}, ex[3] = {1, 0, 0};
    matvec(Qb, Xc, B.prof.center);
    for (int i = 0; i < 3; i++) B.prof.center[i] += ob[i];
    matvec(Qb, ex, B.prof.axis);
  }
  B.prof.amplitude = 20e-6;
  B.prof.half_length = 0.02;
  B.prof.width = 0.004;

  Frame F[3];
  memset(F, 0, sizeof(F));
  const char *names[3] = {"film point fixed", "film point in a translating frame",
                          "film point in a rotating frame (n rotates)"};
  for (int m = 0; m < 3; m++) {
    F[m].X[0] = 0.003;
    F[m].X[1] = 0.0005;
    F[m].X[2] = 0.0001;
    F[m].n0[2] = -1.0; /* from the wall (above) towards the base */
    F[m].k[1] = 1.0;
  }
  F[1].V[0] = 0.4;
  F[1].V[1] = -0.1;
  F[1].V[2] = 0.05;
  F[2].V[0] = 0.2;
  F[2].k[0] = 0.3;
  F[2].k[2] = 0.2;
  F[2].omega = 3.0;

  const double t0 = 1e-3, dt = 2e-6;
  for (int m = 0; m < 3; m++) {
    double uvw[2] = {0, 0}, uvb[2] = {0, 0}, dhdt, parts[4], hprof[2];
    const double h0 = film_h(&W, &B, &F[m], t0, uvw, uvb, &dhdt, parts);
    double uw1[2] = {uvw[0], uvw[1]}, ub1[2] = {uvb[0], uvb[1]};
    double uw2[2] = {uvw[0], uvw[1]}, ub2[2] = {uvb[0], uvb[1]};
    const double hp = film_h(&W, &B, &F[m], t0 + dt, uw1, ub1, NULL, NULL);
    const double hm = film_h(&W, &B, &F[m], t0 - dt, uw2, ub2, NULL, NULL);
    const double hp2 = film_h(&W, &B, &F[m], t0 + 2 * dt, uw1, ub1, NULL, NULL);
    const double hm2 = film_h(&W, &B, &F[m], t0 - 2 * dt, uw2, ub2, NULL, NULL);
    /* 4th-order central difference */
    const double fd = (8 * (hp - hm) - (hp2 - hm2)) / (12 * dt);
    (void)hprof;
    printf("%s: h = %.6e m, dh/dt = %.9e m/s (rate_b %.3e, rate_w %.3e, profile w %.3e, b %.3e), FD %.9e\n",
           names[m], h0, dhdt, parts[0], parts[1], parts[2], parts[3], fd);
    char what[128];
    snprintf(what, sizeof(what), "dh/dt (F9) vs FD in time: %s", names[m]);
    check(what, fabs(dhdt - fd) / fabs(fd), 1e-6);
    if (m == 0) {
      /* the profile terms must matter for the check to mean something */
      check("  (profile rates are a significant part of dh/dt)",
            (fabs(parts[2]) > 1e-3 * fabs(dhdt) && fabs(parts[3]) > 1e-3 * fabs(dhdt)) ? 0 : 1, 0);
    }
  }

  /* a face parallel to the reference plane: n . rdot = n . v whatever v and xdot */
  {
    double e[ND], Q[3][3];
    const double zax[3] = {0, 0, 1}, o[3] = {0.0, 0.0, 0.001};
    rotation(zax, 0.3, Q); /* rotated about the normal: the face stays parallel */
    reference_element(0.02, 0.01, 0.005, Q, o, e);
    double emax = 0.0;
    for (int trial = 0; trial < 10; trial++) {
      const double x[3] = {0.004 + 0.002 * urand(), 0.004 + 0.002 * urand(), 0.0};
      const double n[3] = {0, 0, 1};
      FilmSurfacePoint pt;
      pt.uv[0] = pt.uv[1] = 0;
      if (film_project_ancf_face(0.02, 0.01, 0.005, 4, e, x, n, 1e-9, &pt) != 0) emax = INFINITY;
      const double v[3] = {urand(), urand(), urand()}, xdot[3] = {urand(), urand(), urand()};
      const double rate = film_point_normal_rate(&pt, n, v, xdot, NULL, NULL);
      emax = fmax(emax, fabs(rate - v[2]));
    }
    check("parallel face: film_point_normal_rate = n . v", emax, 1e-14);
  }
}

/* ---------------------------------------------------------------- 4. gradients, profiles */
static void test_gradients_profiles(void)
{
  const double a = 0.02, b = 0.012, c = 0.005;
  double Q[3][3], e[ND];
  const double axis[3] = {0.2, 1.0, -0.1}, o[3] = {0, 0, 0};
  rotation(axis, 0.15, Q);
  reference_element(a, b, c, Q, o, e);
  perturb(e, 0.012, 0.05, 0.05);
  double err = 0.0, err_uv = 0.0, err_nd = 0.0;
  for (int trial = 0; trial < 10; trial++) {
    double n[3] = {0.2 * urand(), 0.2 * urand(), 1.0}, p[3], x[3];
    normalize3(n);
    const double uvt[2] = {0.8 * urand(), 0.8 * urand()};
    face_point(a, b, c, 5, e, uvt, p);
    for (int i = 0; i < 3; i++) x[i] = p[i] - 3e-4 * n[i];
    FilmSurfacePoint pt;
    pt.uv[0] = pt.uv[1] = 0;
    film_project_ancf_face(a, b, c, 5, e, x, n, 1e-9, &pt);
    const double v[3] = {urand(), urand(), urand()}, xdot[3] = {urand(), urand(), urand()};
    double ndot[3] = {urand(), urand(), urand()};
    const double nd = dot3(ndot, n);
    for (int i = 0; i < 3; i++) ndot[i] -= nd * n[i];
    double g[3], G[2][3], uvdot[2], g2[3], uvdot2[2];
    const double rate = film_point_normal_rate(&pt, n, v, xdot, g, uvdot);
    const double rate2 = film_point_normal_rate_frame(&pt, n, NULL, v, xdot, g2, uvdot2, G);
    err_nd = fmax(err_nd, fabs(rate - rate2) + dist3(g, g2) + fabs(uvdot[0] - uvdot2[0]) + fabs(uvdot[1] - uvdot2[1]));
    double gn[3];
    film_point_normal_rate_frame(&pt, n, ndot, v, xdot, gn, NULL, NULL);
    err_nd = fmax(err_nd, dist3(g, gn)); /* ndot does not change d/dv */
    const double del = 1e-3;
    for (int j = 0; j < 3; j++) {
      double vp[3] = {v[0], v[1], v[2]}, vm[3] = {v[0], v[1], v[2]}, up[2], um[2];
      vp[j] += del;
      vm[j] -= del;
      const double fp = film_point_normal_rate(&pt, n, vp, xdot, NULL, up);
      const double fm = film_point_normal_rate(&pt, n, vm, xdot, NULL, um);
      err = fmax(err, fabs((fp - fm) / (2 * del) - g[j]));
      for (int m = 0; m < 2; m++) err_uv = fmax(err_uv, fabs((up[m] - um[m]) / (2 * del) - G[m][j]) * a);
    }
    /* the map to the element velocities: n.rdot = sum_k (ddot_dv . S_k) edot_k + const(xdot) */
    (void)rate;
  }
  check("ddot_dv = d(n . rdot)/dv against central differences", err, 1e-12);
  check("duvdot_dv = d uvdot/dv against central differences (x size)", err_uv, 1e-11);
  check("frame variant: same rate without ndot; d/dv independent of ndot", err_nd, 1e-13);

  /* profiles: values and gradients */
  FilmProfile pr;
  memset(&pr, 0, sizeof(pr));
  pr.center[0] = 0.01;
  pr.center[1] = -0.002;
  pr.axis[0] = 0.6;
  pr.axis[1] = 0.8;
  double eval = 0.0, egrad = 0.0;
  const double ts[4] = {-0.01, 0.0, 0.004, 0.01}, th[4] = {3e-6, 0.0, 1e-6, 4e-6};
  for (int type = 0; type < 4; type++) {
    pr.type = (FilmProfileType)type;
    pr.amplitude = 10e-6;
    pr.half_length = 0.015;
    pr.width = 0.004;
    pr.ntable = 4;
    pr.table_s = ts;
    pr.table_h = th;
    for (int trial = 0; trial < 40; trial++) {
      const double s = 0.02 * urand();
      const double perp = 0.01 * urand();
      double X[3];
      for (int i = 0; i < 3; i++) X[i] = pr.center[i] + s * pr.axis[i];
      X[0] += -0.8 * perp;
      X[1] += 0.6 * perp; /* normal to the axis: no effect */
      X[2] += 0.003 * urand();
      double ref;
      switch (type) {
      case 1: ref = 10e-6 * (s / 0.015) * (s / 0.015); break;
      case 2: ref = fabs(s) > 0.011 ? 10e-6 * (fabs(s) - 0.011) / 0.004 : 0.0; break;
      case 3:
        if (s <= ts[0]) ref = th[0];
        else if (s >= ts[3]) ref = th[3];
        else {
          int j = 0;
          while (s > ts[j + 1]) j++;
          ref = th[j] + (th[j + 1] - th[j]) * (s - ts[j]) / (ts[j + 1] - ts[j]);
        }
        break;
      default: ref = 0.0;
      }
      double g[3];
      const double hv = film_profile_eval(&pr, X, g);
      eval = fmax(eval, fabs(hv - ref) / 10e-6);
      /* gradient by differences (skip points within the step of a kink) */
      const double del = 1e-7;
      int near_kink = 0;
      if (type == 2) near_kink = fabs(fabs(s) - 0.011) < 2 * del;
      if (type == 3)
        for (int j = 0; j < 4; j++) near_kink |= fabs(s - ts[j]) < 2 * del;
      if (near_kink) continue;
      for (int i = 0; i < 3; i++) {
        double Xp[3] = {X[0], X[1], X[2]}, Xm[3] = {X[0], X[1], X[2]};
        Xp[i] += del;
        Xm[i] -= del;
        const double fdv = (film_profile_eval(&pr, Xp, NULL) - film_profile_eval(&pr, Xm, NULL)) / (2 * del);
        egrad = fmax(egrad, fabs(fdv - g[i]) * 0.01 / 10e-6);
      }
    }
  }
  check("profiles (none, crown, chamfer, table): values / amplitude", eval, 1e-12);
  check("profiles: gradients against differences (x length / amplitude)", egrad, 1e-6);
}

int main(void)
{
  printf("== 1. ANCF faces ==\n");
  test_ancf_faces();
  printf("== 2. bilinear quads and cylinders ==\n");
  test_bilinear_cylinder();
  printf("== 3. dh/dt (F9) against finite differences in time ==\n");
  test_dhdt();
  printf("== 4. rate gradients and profiles ==\n");
  test_gradients_profiles();
  return td_finish();
}
