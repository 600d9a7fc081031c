/*
  Unit tests of the ANCF 3843 kernels (formulation.md §1, F1-F5), each against an independent
  reference: the interpolation conditions of the basis, an affine field, finite differences of
  the shape functions, of the internal force and of the strain energy, exact mass integrals,
  rigid-body invariance, the eigenvalues of the free element, and the analytic uniform-stress
  (patch) states of St. Venant-Kirchhoff with their consistent face loads.
*/
#include "tribodyn/ancf3843.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NS = ANCF3843_NSHAPE, ND = ANCF3843_NDOF };

#include "td_check.h"

/* element used throughout: non-cubic on purpose, steel */
static const double A_ = 0.02, B_ = 0.012, C_ = 0.005;
static const double YOUNG = 210e9, POISSON = 0.3, RHO = 7800.0, BETA = 1e-5;

static Ancf3843Geometry geo;
static Ancf3843Work work;

static double node_xi(int n, int i) { return ((n >> i) & 1) ? 1.0 : -1.0; }

/* rotation matrix from a rotation vector (Rodrigues) */
static void rotation(const double th[3], double R[3][3])
{
  const double t = sqrt(th[0] * th[0] + th[1] * th[1] + th[2] * th[2]);
  const double k[3] = {th[0] / t, th[1] / t, th[2] / t};
  const double c = cos(t), s = sin(t);
  const double Kx[3][3] = {{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double kk = 0.0;
      for (int m = 0; m < 3; m++) kk += Kx[i][m] * Kx[m][j];
      R[i][j] = (i == j ? 1.0 : 0.0) + s * Kx[i][j] + (1.0 - c) * kk;
    }
}

/* element vector of the affine map r = G X + t (X from node 0 of the element) */
static void affine_coordinates(const double G[3][3], const double t[3], double e[ND])
{
  const double h[3] = {A_, B_, C_};
  for (int n = 0; n < 8; n++) {
    double X[3];
    for (int I = 0; I < 3; I++) X[I] = ((n >> I) & 1) ? h[I] : 0.0;
    for (int i = 0; i < 3; i++) {
      e[3 * (4 * n) + i] = t[i] + G[i][0] * X[0] + G[i][1] * X[1] + G[i][2] * X[2];
      for (int I = 0; I < 3; I++) e[3 * (4 * n + 1 + I) + i] = G[i][I];
    }
  }
}

static double max_abs(const double *v, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(v[i]));
  return m;
}

/* ---------------------------------------------------------------- 1. shape functions */
static void test_shape_functions(void)
{
  /* interpolation conditions at the nodes */
  double err_val = 0.0, err_grad = 0.0;
  for (int m = 0; m < 8; m++) {
    const double xi[3] = {node_xi(m, 0), node_xi(m, 1), node_xi(m, 2)};
    double S[NS], dS[3][NS];
    ancf3843_shape(A_, B_, C_, xi, S);
    ancf3843_shape_gradient(A_, B_, C_, xi, dS);
    for (int n = 0; n < 8; n++)
      for (int j = 0; j < 4; j++) {
        const int k = 4 * n + j;
        const double val = (j == 0 && n == m) ? 1.0 : 0.0;
        err_val = fmax(err_val, fabs(S[k] - val));
        for (int I = 0; I < 3; I++) {
          const double g = (j == I + 1 && n == m) ? 1.0 : 0.0;
          err_grad = fmax(err_grad, fabs(dS[I][k] - g));
        }
      }
  }
  check("shape: S_k at the nodes (Kronecker, slope functions vanish)", err_val, 1e-15);
  check("shape: dS_k/dX at the nodes (unit slope at own node, else 0)", err_grad, 1e-13);

  /* gradient against central differences of the shape functions */
  double err_fd = 0.0, gmax = 0.0;
  const double h[3] = {A_, B_, C_};
  for (int trial = 0; trial < 20; trial++) {
    const double xi[3] = {urand(), urand(), urand()};
    double dS[3][NS];
    ancf3843_shape_gradient(A_, B_, C_, xi, dS);
    for (int I = 0; I < 3; I++) {
      const double d = 1e-5;
      double xp[3] = {xi[0], xi[1], xi[2]}, xm[3] = {xi[0], xi[1], xi[2]}, Sp[NS], Sm[NS];
      xp[I] += d;
      xm[I] -= d;
      ancf3843_shape(A_, B_, C_, xp, Sp);
      ancf3843_shape(A_, B_, C_, xm, Sm);
      for (int k = 0; k < NS; k++) {
        const double fd = (Sp[k] - Sm[k]) / (2.0 * d) * 2.0 / h[I];
        err_fd = fmax(err_fd, fabs(fd - dS[I][k]));
        gmax = fmax(gmax, fabs(dS[I][k]));
      }
    }
  }
  check("shape: dS/dX against central differences of S (20 random points), rel.", err_fd / gmax,
        1e-8);

  /* affine field reproduced exactly (patch test of the interpolation) */
  double G[3][3], t[3], e[ND];
  for (int i = 0; i < 3; i++) {
    t[i] = urand();
    for (int j = 0; j < 3; j++) G[i][j] = urand();
  }
  affine_coordinates(G, t, e);
  double err_r = 0.0, err_dr = 0.0;
  for (int trial = 0; trial < 50; trial++) {
    const double xi[3] = {urand(), urand(), urand()};
    const double X[3] = {A_ * (1 + xi[0]) / 2, B_ * (1 + xi[1]) / 2, C_ * (1 + xi[2]) / 2};
    double r[3], dr[3][3];
    ancf3843_interpolate(A_, B_, C_, xi, e, r, dr);
    for (int i = 0; i < 3; i++) {
      const double ex = t[i] + G[i][0] * X[0] + G[i][1] * X[1] + G[i][2] * X[2];
      err_r = fmax(err_r, fabs(r[i] - ex));
      for (int I = 0; I < 3; I++) err_dr = fmax(err_dr, fabs(dr[I][i] - G[i][I]));
    }
  }
  check("interpolate: affine field r = G X + t at 50 random points", err_r, 1e-14);
  check("interpolate: its gradient dr/dX = G", err_dr, 1e-13);

  /* reference coordinates: nodes at the box corners, slopes the unit axes */
  const double x0[3] = {0.3, -0.1, 0.05}, I3[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double eref[ND], eaff[ND];
  ancf3843_reference_coordinates(A_, B_, C_, x0, eref);
  affine_coordinates(I3, x0, eaff);
  double err_ref = 0.0;
  for (int j = 0; j < ND; j++) err_ref = fmax(err_ref, fabs(eref[j] - eaff[j]));
  check("reference coordinates = identity map of the box", err_ref, 1e-16);
}

/* ---------------------------------------------------------------- 2. mass */
static int cholesky(int n, double *M)
{
  for (int j = 0; j < n; j++) {
    double d = M[j * n + j];
    for (int k = 0; k < j; k++) d -= M[j * n + k] * M[j * n + k];
    if (!(d > 0.0)) return 0;
    d = sqrt(d);
    M[j * n + j] = d;
    for (int i = j + 1; i < n; i++) {
      double s = M[i * n + j];
      for (int k = 0; k < j; k++) s -= M[i * n + k] * M[j * n + k];
      M[i * n + j] = s / d;
    }
  }
  return 1;
}

static void test_mass(void)
{
  const double V = A_ * B_ * C_;
  /* full mass matrix M = rho mass_unit (x) I3, summed over the x-position entries */
  double sum = 0.0;
  for (int n = 0; n < 8; n++)
    for (int m = 0; m < 8; m++) sum += RHO * geo.mass_unit[4 * n][4 * m];
  check("mass: sum of position-position entries in one direction = rho a b c",
        fabs(sum - RHO * V) / (RHO * V), 1e-14);
  double si = 0.0;
  for (int n = 0; n < 8; n++) si += geo.shape_integral[4 * n];
  check("mass: sum of int S_k dV over positions = volume", fabs(si - V) / V, 1e-14);

  /* exactness: the 4-point rule equals a 6-point Gauss-Legendre rule (Newton on P_6) */
  double x6[6], w6[6];
  for (int i = 0; i < 6; i++) {
    double x = cos(3.14159265358979323846 * (i + 0.75) / 6.5), dp = 1.0;
    for (int it = 0; it < 100; it++) {
      double p0 = 1.0, p1 = x;
      for (int n = 2; n <= 6; n++) {
        const double p2 = ((2 * n - 1) * x * p1 - (n - 1) * p0) / n;
        p0 = p1;
        p1 = p2;
      }
      dp = 6.0 * (x * p1 - p0) / (x * x - 1.0);
      const double dx = p1 / dp;
      x -= dx;
      if (fabs(dx) < 1e-17) break;
    }
    x6[i] = x;
    w6[i] = 2.0 / ((1.0 - x * x) * dp * dp);
  }
  static double M6[NS][NS];
  double I6[NS] = {0};
  memset(M6, 0, sizeof(M6));
  for (int m = 0; m < 6; m++)
    for (int j = 0; j < 6; j++)
      for (int i = 0; i < 6; i++) {
        const double xi[3] = {x6[i], x6[j], x6[m]}, w = w6[i] * w6[j] * w6[m] * V / 8.0;
        double S[NS];
        ancf3843_shape(A_, B_, C_, xi, S);
        for (int k = 0; k < NS; k++) {
          I6[k] += w * S[k];
          for (int l = 0; l < NS; l++) M6[k][l] += w * S[k] * S[l];
        }
      }
  double err = 0.0, ref = max_abs(&M6[0][0], NS * NS), erri = 0.0;
  for (int k = 0; k < NS; k++) {
    erri = fmax(erri, fabs(I6[k] - geo.shape_integral[k]) / V);
    for (int l = 0; l < NS; l++) err = fmax(err, fabs(M6[k][l] - geo.mass_unit[k][l]) / ref);
  }
  check("mass: int S_k S_l dV equals a 6x6x6 Gauss rule (exact integration)", err, 1e-12);
  check("mass: int S_k dV equals a 6x6x6 Gauss rule", erri, 1e-12);

  double asym = 0.0;
  for (int k = 0; k < NS; k++)
    for (int l = 0; l < NS; l++) asym = fmax(asym, fabs(geo.mass_unit[k][l] - geo.mass_unit[l][k]));
  check("mass: symmetric", asym / ref, 0.0);
  /* positive definite: Cholesky of the mass with slopes scaled to length units */
  static double Ms[NS * NS];
  const double L = cbrt(V);
  for (int k = 0; k < NS; k++)
    for (int l = 0; l < NS; l++)
      Ms[k * NS + l] = geo.mass_unit[k][l] * ((k % 4) ? L : 1.0) * ((l % 4) ? L : 1.0);
  check("mass: positive definite (Cholesky succeeds)", cholesky(NS, Ms) ? 0.0 : 1.0, 0.0);
}

/* ---------------------------------------------------------------- 3. rigid motion */
static void test_rigid_motion(const Ancf3843Material *mat)
{
  const double fscale = YOUNG * B_ * C_, wscale = YOUNG * A_ * B_ * C_;
  const double x0[3] = {0.0, 0.0, 0.0};
  double e[ND], Q[ND], W;
  ancf3843_reference_coordinates(A_, B_, C_, x0, e);
  ancf3843_internal_force(&geo, mat, e, NULL, Q, &W, &work);
  check("rigid: internal force in the reference state / (E b c)", max_abs(Q, ND) / fscale, 1e-12);
  check("rigid: strain energy in the reference state / (E V)", fabs(W) / wscale, 1e-12);

  const double th[3] = {1.1, -0.7, 2.3}, t[3] = {0.5, -1.2, 0.8};
  double R[3][3];
  rotation(th, R);
  affine_coordinates(R, t, e);
  ancf3843_internal_force(&geo, mat, e, NULL, Q, &W, &work);
  check("rigid: internal force after a large rotation + translation / (E b c)",
        max_abs(Q, ND) / fscale, 1e-12);
  check("rigid: strain energy after a large rotation + translation / (E V)", fabs(W) / wscale,
        1e-12);
}

/* ---------------------------------------------------------------- 4. tangent */
static void deformed_state(double e[ND], double edot[ND], double amp)
{
  const double th[3] = {0.4, -1.3, 0.9}, t[3] = {0.01, 0.02, -0.03};
  double R[3][3];
  rotation(th, R);
  affine_coordinates(R, t, e);
  const double L = C_;
  for (int k = 0; k < NS; k++)
    for (int i = 0; i < 3; i++) {
      const double s = (k % 4) ? 1.0 : L; /* slopes are dimensionless, positions lengths */
      e[3 * k + i] += amp * s * urand();
      edot[3 * k + i] = 2000.0 * s * urand(); /* beta |Fdot| ~ 0.02, comparable to the strain */
    }
}

/* Frobenius relative error of K against c_e dQ/de + c_v dQ/dedot by central differences */
static double tangent_fd_error(const Ancf3843Material *mat, const double e[ND],
                               const double edot[ND], double c_e, double c_v, int use_both)
{
  static double K[ND * ND], Kfd[ND * ND], K2[ND * ND];
  double Q2[ND], Qref[ND];
  ancf3843_tangent(&geo, mat, e, edot, c_e, c_v, K, &work);
  if (use_both) { /* the combined routine must give the same numbers */
    ancf3843_force_and_tangent(&geo, mat, e, edot, c_e, c_v, Q2, K2, &work);
    ancf3843_internal_force(&geo, mat, e, edot, Qref, NULL, &work);
    double d = 0.0;
    for (int i = 0; i < ND * ND; i++) d = fmax(d, fabs(K2[i] - K[i]));
    for (int i = 0; i < ND; i++) d = fmax(d, fabs(Q2[i] - Qref[i]) * max_abs(K, ND * ND) /
                                                 fmax(max_abs(Qref, ND), 1e-300));
    check("tangent: force_and_tangent equals internal_force + tangent", d / max_abs(K, ND * ND),
          1e-14);
  }
  memset(Kfd, 0, sizeof(Kfd));
  double ep[ND], em[ND], vp[ND], vm[ND], Qp[ND], Qm[ND];
  for (int j = 0; j < ND; j++) {
    const double s = ((j / 3) % 4) ? 1.0 : C_;
    if (c_e != 0.0) {
      const double h = 1e-6 * s;
      memcpy(ep, e, sizeof(ep));
      memcpy(em, e, sizeof(em));
      ep[j] += h;
      em[j] -= h;
      ancf3843_internal_force(&geo, mat, ep, edot, Qp, NULL, &work);
      ancf3843_internal_force(&geo, mat, em, edot, Qm, NULL, &work);
      for (int i = 0; i < ND; i++) Kfd[i * ND + j] += c_e * (Qp[i] - Qm[i]) / (2.0 * h);
    }
    if (c_v != 0.0) {
      const double h = 1e-6 * 2000.0 * s;
      memcpy(vp, edot, sizeof(vp));
      memcpy(vm, edot, sizeof(vm));
      vp[j] += h;
      vm[j] -= h;
      ancf3843_internal_force(&geo, mat, e, vp, Qp, NULL, &work);
      ancf3843_internal_force(&geo, mat, e, vm, Qm, NULL, &work);
      for (int i = 0; i < ND; i++) Kfd[i * ND + j] += c_v * (Qp[i] - Qm[i]) / (2.0 * h);
    }
  }
  double num = 0.0, den = 0.0;
  for (int i = 0; i < ND * ND; i++) {
    num += (K[i] - Kfd[i]) * (K[i] - Kfd[i]);
    den += Kfd[i] * Kfd[i];
  }
  return sqrt(num / den);
}

/* The product without the matrix (ancf3843_linearize, ancf3843_tangent_apply) against K v of
   the formed tangent, and against the central difference of the force along (c_e v, c_v v),
   which does not go through K at all.  Returns the larger relative error of the two. */
static double tangent_apply_error(const Ancf3843Material *mat, const double e[ND],
                                  const double edot[ND], double c_e, double c_v, double c_m)
{
  static double K[ND * ND];
  static Ancf3843Linearization lin;
  double v[ND], y[ND], Kv[ND], fd[ND], ep[ND], em[ND], vp[ND], vm[ND], Qp[ND], Qm[ND];
  for (int j = 0; j < ND; j++) v[j] = (((j / 3) % 4) ? 1.0 : C_) * urand();
  ancf3843_tangent(&geo, mat, e, edot, c_e, c_v, K, &work);
  ancf3843_linearize(&geo, mat, e, edot, c_e, c_v, &lin, &work);
  ancf3843_tangent_apply(&geo, mat, &lin, c_m, v, y, &work);
  {
    static Ancf3843Linearization lin2;
    double Qf[ND], Qi[ND], Wf = 0.0, Wi = 1.0, d = 0.0;
    ancf3843_force_and_linearize(&geo, mat, e, edot, c_e, c_v, Qf, &Wf, &lin2, &work);
    ancf3843_internal_force(&geo, mat, e, edot, Qi, &Wi, &work);
    for (int i = 0; i < ND; i++) d = fmax(d, fabs(Qf[i] - Qi[i]));
    check("force_and_linearize: the same force and linearisation (max difference)", d + (memcmp(&lin, &lin2, sizeof lin) ? 1.0 : 0.0), 0.0);
    /* the strain energy of the same pass, which the output record takes from the residual; it is
       elastic only, so the rates of that residual do not enter it (an energy-only pass has none) */
    check("force_and_linearize: the same strain energy (difference)", fabs(Wf - Wi), 0.0);
    {
      double W0 = -1.0;
      ancf3843_internal_force(&geo, mat, e, NULL, NULL, &W0, &work);
      check("internal_force: the strain energy without the rates (difference)", fabs(W0 - Wi), 0.0);
    }
  }
  for (int i = 0; i < ND; i++) {
    double s = 0.0;
    for (int j = 0; j < ND; j++) s += K[i * ND + j] * v[j];
    for (int l = 0; l < NS; l++) s += c_m * geo.mass_unit[i / 3][l] * v[3 * l + i % 3];
    Kv[i] = s;
  }
  /* a step of about 1e-6 relative in e and in edot (|edot| ~ 2000 |e|, deformed_state) */
  const double h = 1e-6 / fmax(c_e, c_v / 2000.0);
  for (int j = 0; j < ND; j++) {
    ep[j] = e[j] + h * c_e * v[j];
    em[j] = e[j] - h * c_e * v[j];
    vp[j] = (edot ? edot[j] : 0.0) + h * c_v * v[j];
    vm[j] = (edot ? edot[j] : 0.0) - h * c_v * v[j];
  }
  ancf3843_internal_force(&geo, mat, ep, vp, Qp, NULL, &work);
  ancf3843_internal_force(&geo, mat, em, vm, Qm, NULL, &work);
  for (int i = 0; i < ND; i++) {
    fd[i] = (Qp[i] - Qm[i]) / (2.0 * h);
    for (int l = 0; l < NS; l++) fd[i] += c_m * geo.mass_unit[i / 3][l] * v[3 * l + i % 3];
  }
  double dK = 0.0, dfd = 0.0;
  for (int i = 0; i < ND; i++) {
    dK  = fmax(dK, fabs(y[i] - Kv[i]));
    dfd = fmax(dfd, fabs(y[i] - fd[i]));
  }
  const double scale = max_abs(Kv, ND);
  check("tangent_apply: y = K v of the formed tangent (max error / max |K v|)", dK / scale, 1e-13);
  return dfd / scale;
}

static void test_tangent_apply(void)
{
  Ancf3843Material elastic, damped;
  ancf3843_material_init(YOUNG, POISSON, RHO, 0.0, &elastic);
  ancf3843_material_init(YOUNG, POISSON, RHO, BETA, &damped);
  double e[ND], edot[ND], zero[ND] = {0};
  deformed_state(e, edot, 0.15);
  /* c_m as in a generalised-alpha step of 50 us: 1/(beta dt^2) ~ 1.6e9 times rho */
  const double cm = 1.6e9 * RHO;
  check("tangent_apply vs FD of the force, no damping, c_e=1 c_v=0", tangent_apply_error(&elastic, e, edot, 1.0, 0.0, 0.0), 1e-7);
  check("tangent_apply vs FD of the force, damping, moving, c_e=1 c_v=3e4", tangent_apply_error(&damped, e, edot, 1.0, 3e4, 0.0), 1e-7);
  check("tangent_apply vs FD of the force, damping, moving, c_e=0 c_v=1", tangent_apply_error(&damped, e, edot, 0.0, 1.0, 0.0), 1e-7);
  check("tangent_apply vs FD of the force, damping, at rest, c_e=1 c_v=3e4", tangent_apply_error(&damped, e, zero, 1.0, 3e4, 0.0), 1e-7);
  check("tangent_apply vs FD of the force, damping, edot NULL, c_e=1 c_v=3e4", tangent_apply_error(&damped, e, NULL, 1.0, 3e4, 0.0), 1e-7);
  check("tangent_apply with the mass, damping, moving", tangent_apply_error(&damped, e, edot, 1.0, 3e4, cm), 1e-7);
}

static void test_tangent(void)
{
  Ancf3843Material elastic, damped;
  ancf3843_material_init(YOUNG, POISSON, RHO, 0.0, &elastic);
  ancf3843_material_init(YOUNG, POISSON, RHO, BETA, &damped);
  double e[ND], edot[ND];
  deformed_state(e, edot, 0.15);
  char what[128];
  static const double cases[][2] = {{1.0, 0.0}, {0.0, 1.0}, {1.0, 3e4}};
  for (int c = 0; c < 3; c++) {
    if (cases[c][0] == 0.0) continue; /* no damping: dQ/dedot = 0 */
    snprintf(what, sizeof what, "tangent vs FD, no damping, c_e=%g c_v=%g", cases[c][0],
             cases[c][1]);
    check(what, tangent_fd_error(&elastic, e, edot, cases[c][0], cases[c][1], c == 0), 1e-6);
  }
  for (int c = 0; c < 3; c++) {
    snprintf(what, sizeof what, "tangent vs FD, damping, moving, c_e=%g c_v=%g", cases[c][0],
             cases[c][1]);
    check(what, tangent_fd_error(&damped, e, edot, cases[c][0], cases[c][1], c == 2), 1e-6);
  }
  double zero[ND] = {0};
  check("tangent vs FD, damping, at rest (edot = 0), c_e=1 c_v=3e4",
        tangent_fd_error(&damped, e, zero, 1.0, 3e4, 0), 1e-6);

  /* edot = NULL means at rest */
  double Q1[ND], Q2[ND];
  static double K1[ND * ND], K2[ND * ND];
  ancf3843_force_and_tangent(&geo, &damped, e, NULL, 1.0, 3e4, Q1, K1, &work);
  ancf3843_force_and_tangent(&geo, &damped, e, zero, 1.0, 3e4, Q2, K2, &work);
  double d = 0.0;
  for (int i = 0; i < ND; i++) d = fmax(d, fabs(Q1[i] - Q2[i]) / max_abs(Q2, ND));
  for (int i = 0; i < ND * ND; i++) d = fmax(d, fabs(K1[i] - K2[i]) / max_abs(K2, ND * ND));
  check("edot = NULL is the same as edot = 0", d, 1e-13);

  /* without damping the force does not depend on edot */
  ancf3843_tangent(&geo, &elastic, e, edot, 0.0, 1.0, K1, &work);
  check("tangent, no damping, c_e=0 c_v=1: zero matrix (max |K|)", max_abs(K1, ND * ND), 0.0);

  /* symmetry without damping */
  ancf3843_tangent(&geo, &elastic, e, edot, 1.0, 0.0, K1, &work);
  double asym = 0.0;
  for (int i = 0; i < ND; i++)
    for (int j = 0; j < ND; j++) asym = fmax(asym, fabs(K1[i * ND + j] - K1[j * ND + i]));
  check("tangent symmetric without damping", asym / max_abs(K1, ND * ND), 1e-14);

  /* internal force against a central difference of the strain energy (no damping) */
  double Q[ND], Qfd[ND], W, Wp, Wm, ep[ND];
  ancf3843_internal_force(&geo, &elastic, e, NULL, Q, &W, &work);
  for (int j = 0; j < ND; j++) {
    const double h = 1e-6 * (((j / 3) % 4) ? 1.0 : C_);
    memcpy(ep, e, sizeof(ep));
    ep[j] = e[j] + h;
    ancf3843_internal_force(&geo, &elastic, ep, NULL, Q1, &Wp, &work);
    ep[j] = e[j] - h;
    ancf3843_internal_force(&geo, &elastic, ep, NULL, Q1, &Wm, &work);
    Qfd[j] = (Wp - Wm) / (2.0 * h);
  }
  double num = 0.0, den = 0.0;
  for (int j = 0; j < ND; j++) {
    num += (Q[j] - Qfd[j]) * (Q[j] - Qfd[j]);
    den += Qfd[j] * Qfd[j];
  }
  check("internal force vs FD of the strain energy (2-norm, relative)", sqrt(num / den), 1e-6);
}

/* ---------------------------------------------------------------- 5. damping objectivity */
static void test_damping_objectivity(void)
{
  Ancf3843Material damped;
  ancf3843_material_init(YOUNG, POISSON, RHO, BETA, &damped);
  const double omega[3] = {300.0, -150.0, 420.0}, v0[3] = {1.5, -2.0, 0.7};
  const double wn = sqrt(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
  const double fscale = BETA * wn * YOUNG * B_ * C_; /* damping force of a strain rate |omega| */
  double e[ND], edot[ND], Q[ND], Q0[ND];

  /* rigidly rotated reference state, rigid velocity: edot_k = omega x e_k (+ v0 for positions) */
  const double th[3] = {0.8, 0.3, -1.7}, t[3] = {0.2, 0.1, -0.4};
  double R[3][3];
  rotation(th, R);
  affine_coordinates(R, t, e);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1) { /* a deformed state: superposed rigid spin still gives Edot = 0 */
      double scratch[ND];
      deformed_state(e, scratch, 0.15);
    }
    for (int k = 0; k < NS; k++) {
      const double *x = &e[3 * k];
      double *v = &edot[3 * k];
      v[0] = omega[1] * x[2] - omega[2] * x[1];
      v[1] = omega[2] * x[0] - omega[0] * x[2];
      v[2] = omega[0] * x[1] - omega[1] * x[0];
      if (k % 4 == 0)
        for (int i = 0; i < 3; i++) v[i] += v0[i];
    }
    ancf3843_internal_force(&geo, &damped, e, edot, Q, NULL, &work);
    ancf3843_internal_force(&geo, &damped, e, NULL, Q0, NULL, &work);
    for (int i = 0; i < ND; i++) Q[i] -= Q0[i];
    check(pass == 0 ? "damping: force of a rigid spin + translation, rotated reference state"
                    : "damping: force of a superposed rigid spin, deformed state",
          max_abs(Q, ND) / fscale, 1e-12);
  }
}

/* ---------------------------------------------------------------- 6. eigenvalues */
static void jacobi_eigenvalues(int n, double *A, double *ev)
{
  for (int sweep = 0; sweep < 60; sweep++) {
    double off = 0.0, diag = 0.0;
    for (int i = 0; i < n; i++) {
      diag += A[i * n + i] * A[i * n + i];
      for (int j = i + 1; j < n; j++) off += A[i * n + j] * A[i * n + j];
    }
    if (off <= 1e-32 * diag) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        const double apq = A[p * n + q];
        if (apq == 0.0) continue;
        const double th = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
        const double t = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
        const double c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < n; k++) {
          const double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p] = c * akp - s * akq;
          A[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) {
          const double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k] = c * apk - s * aqk;
          A[q * n + k] = s * apk + c * aqk;
        }
      }
  }
  for (int i = 0; i < n; i++) ev[i] = A[i * n + i];
}

static int cmp_double(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static void test_free_element_modes(double nu)
{
  Ancf3843Material mat;
  ancf3843_material_init(YOUNG, nu, RHO, 0.0, &mat);
  const double x0[3] = {0.0, 0.0, 0.0};
  double e[ND];
  static double K[ND * ND];
  ancf3843_reference_coordinates(A_, B_, C_, x0, e);
  ancf3843_tangent(&geo, &mat, e, NULL, 1.0, 0.0, K, &work);
  /* slopes scaled to length units so that all eigenvalues carry the same unit */
  const double L = C_;
  for (int i = 0; i < ND; i++)
    for (int j = 0; j < ND; j++)
      K[i * ND + j] *= (((i / 3) % 4) ? 1.0 / L : 1.0) * (((j / 3) % 4) ? 1.0 / L : 1.0);
  double ev[ND];
  jacobi_eigenvalues(ND, K, ev);
  qsort(ev, ND, sizeof(double), cmp_double);
  const double lmax = ev[ND - 1];
  int zeros = 0, negative = 0;
  for (int i = 0; i < ND; i++) {
    if (fabs(ev[i]) < 1e-10 * lmax) zeros++;
    else if (ev[i] < 0.0) negative++;
  }
  char what[160];
  snprintf(what, sizeof what,
           "free element, nu=%.2f: %d zero and %d negative eigenvalues (want 6, 0)", nu, zeros,
           negative);
  check(what, fabs(zeros - 6.0) + negative, 0.0);
  printf("     eigenvalues/max: zero modes <= %.1e, smallest nonzero %.3e\n",
         fabs(ev[5]) > fabs(ev[0]) ? fabs(ev[5]) / lmax : fabs(ev[0]) / lmax, ev[6] / lmax);
}

/* ---------------------------------------------------------------- 7. uniform stress patches */
/* consistent load of a uniform first Piola stress P on the element faces: f_k = oint S_k P N dA */
static void consistent_face_loads(const double P[3][3], double f[ND])
{
  const double h[3] = {A_, B_, C_};
  const double s30 = sqrt(30.0), tt = 2.0 / 7.0 * sqrt(6.0 / 5.0);
  const double x4[4] = {-sqrt(3.0 / 7.0 + tt), -sqrt(3.0 / 7.0 - tt), sqrt(3.0 / 7.0 - tt),
                        sqrt(3.0 / 7.0 + tt)};
  const double w4[4] = {(18.0 - s30) / 36.0, (18.0 + s30) / 36.0, (18.0 + s30) / 36.0,
                        (18.0 - s30) / 36.0};
  memset(f, 0, sizeof(double) * ND);
  for (int d = 0; d < 3; d++)
    for (int side = -1; side <= 1; side += 2) {
      const int d1 = (d + 1) % 3, d2 = (d + 2) % 3;
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
          double xi[3];
          xi[d] = side;
          xi[d1] = x4[i];
          xi[d2] = x4[j];
          const double w = w4[i] * w4[j] * h[d1] * h[d2] / 4.0;
          double S[NS];
          ancf3843_shape(A_, B_, C_, xi, S);
          for (int k = 0; k < NS; k++)
            for (int a = 0; a < 3; a++) f[3 * k + a] += w * S[k] * P[a][d] * side;
        }
    }
}

static void svk_first_piola(const double F[3][3], double P[3][3])
{
  const double lam = YOUNG * POISSON / ((1 + POISSON) * (1 - 2 * POISSON));
  const double mu = YOUNG / (2 * (1 + POISSON));
  double E[3][3], S[3][3];
  for (int I = 0; I < 3; I++)
    for (int J = 0; J < 3; J++) {
      double s = 0.0;
      for (int a = 0; a < 3; a++) s += F[a][I] * F[a][J];
      E[I][J] = 0.5 * (s - (I == J));
    }
  const double tr = E[0][0] + E[1][1] + E[2][2];
  for (int I = 0; I < 3; I++)
    for (int J = 0; J < 3; J++) S[I][J] = lam * tr * (I == J) + 2 * mu * E[I][J];
  for (int a = 0; a < 3; a++)
    for (int I = 0; I < 3; I++) {
      double s = 0.0;
      for (int K = 0; K < 3; K++) s += F[a][K] * S[K][I];
      P[a][I] = s;
    }
}

static void test_uniform_stress(void)
{
  Ancf3843Material mat;
  ancf3843_material_init(YOUNG, POISSON, RHO, 0.0, &mat);
  const double t0[3] = {0.1, 0.2, 0.3};
  double e[ND], Q[ND], f[ND], W;

  /* uniaxial stress: Green strains E_yy = E_zz = -nu E_xx make S_yy = S_zz = 0 exactly.
     Small strain: the axial force against E s b c.  Finite strain (s = 2 %): against the exact
     SVK values, to round-off (F is formed from absolute coordinates ~ 20 element sizes from the
     origin, and S_yy is the difference of the Poisson-free and the Poisson parts, so a few
     1e-13 of the axial force is the floating-point floor). */
  const double strains[2] = {1e-7, 2e-2};
  for (int c = 0; c < 2; c++) {
    const double s = strains[c];
    const double Exx = ((1 + s) * (1 + s) - 1) / 2, Eyy = -POISSON * Exx;
    const double ty = sqrt(1 + 2 * Eyy) - 1;
    const double F[3][3] = {{1 + s, 0, 0}, {0, 1 + ty, 0}, {0, 0, 1 + ty}};
    affine_coordinates(F, t0, e);
    ancf3843_internal_force(&geo, &mat, e, NULL, Q, &W, &work);
    /* axial force = virtual work of a uniform x-stretch (positions X e_x, slope r_X e_x) / a */
    double vw = 0.0, face = 0.0;
    for (int n = 0; n < 8; n++) {
      vw += Q[3 * (4 * n)] * (((n & 1) ? A_ : 0.0)) + Q[3 * (4 * n + 1)];
      if (n & 1) face += Q[3 * (4 * n)];
    }
    char what[160];
    if (c == 0) {
      const double N = YOUNG * s * B_ * C_;
      snprintf(what, sizeof what, "uniaxial stress s=%g: axial force (virtual work) vs E s b c", s);
      check(what, fabs(vw / A_ - N) / N, 1e-6);
      snprintf(what, sizeof what, "uniaxial stress s=%g: sum of x-face nodal forces vs E s b c", s);
      check(what, fabs(face - N) / N, 1e-6);
      continue;
    }
    const double N_exact = (1 + s) * YOUNG * Exx * B_ * C_; /* P_xx b c, S_xx = E E_xx */
    snprintf(what, sizeof what, "uniaxial stress s=%g: axial force (virtual work) vs P_xx b c", s);
    check(what, fabs(vw / A_ - N_exact) / N_exact, 1e-11);
    snprintf(what, sizeof what, "uniaxial stress s=%g: sum of x-face nodal forces vs P_xx b c", s);
    check(what, fabs(face - N_exact) / N_exact, 1e-11);
    snprintf(what, sizeof what, "uniaxial stress s=%g: energy vs V E E_xx^2/2", s);
    const double W_exact = A_ * B_ * C_ * YOUNG * Exx * Exx / 2;
    check(what, fabs(W - W_exact) / W_exact, 1e-11);
    /* equilibrium with the consistent face loads, every coordinate */
    double P[3][3];
    svk_first_piola(F, P);
    consistent_face_loads(P, f);
    double d = 0.0;
    for (int i = 0; i < ND; i++) d = fmax(d, fabs(Q[i] - f[i]));
    snprintf(what, sizeof what, "uniaxial stress s=%g: Q = consistent face loads (all 96)", s);
    check(what, d / max_abs(f, ND), 1e-11);
  }

  /* general uniform stress: random affine map; Q equals the consistent loads of its exact SVK
     stress, which is what makes a patch of elements pass the patch test */
  double G[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) G[i][j] = (i == j) + 0.15 * urand();
  affine_coordinates(G, t0, e);
  ancf3843_internal_force(&geo, &mat, e, NULL, Q, &W, &work);
  double P[3][3];
  svk_first_piola(G, P);
  consistent_face_loads(P, f);
  double d = 0.0;
  for (int i = 0; i < ND; i++) d = fmax(d, fabs(Q[i] - f[i]));
  check("general uniform strain (15 %): Q = consistent face loads of exact SVK", d / max_abs(f, ND),
        1e-11);
}

/* ---------------------------------------------------------------- 8. patch and bending */
/* 2 x 2 x 2 elements, grid node g = i + 3 j + 9 m carries 12 coordinates [r, r_X, r_Y, r_Z];
   element node n of element (ex, ey, ez) is grid node (ex + (n&1), ey + (n>>1&1), ez + (n>>2&1)) */
static int patch_node(int el, int n)
{
  const int ex = el & 1, ey = (el >> 1) & 1, ez = (el >> 2) & 1;
  return (ex + (n & 1)) + 3 * (ey + ((n >> 1) & 1)) + 9 * (ez + ((n >> 2) & 1));
}

static void solve_dense(int n, double *A, double *b) /* Gaussian elimination, partial pivoting */
{
  for (int p = 0; p < n; p++) {
    int piv = p;
    for (int i = p + 1; i < n; i++)
      if (fabs(A[i * n + p]) > fabs(A[piv * n + p])) piv = i;
    for (int j = 0; j < n; j++) {
      const double t = A[p * n + j];
      A[p * n + j] = A[piv * n + j];
      A[piv * n + j] = t;
    }
    const double t = b[p];
    b[p] = b[piv];
    b[piv] = t;
    for (int i = p + 1; i < n; i++) {
      const double l = A[i * n + p] / A[p * n + p];
      for (int j = p; j < n; j++) A[i * n + j] -= l * A[p * n + j];
      b[i] -= l * b[p];
    }
  }
  for (int i = n - 1; i >= 0; i--) {
    double r = b[i];
    for (int j = i + 1; j < n; j++) r -= A[i * n + j] * b[j];
    b[i] = r / A[i * n + i];
  }
}

/* residual and tangent at the interior grid node 13 of the patch */
static void patch_interior(const Ancf3843Material *mat, const double u[27 * 12], double R[12],
                           double Kii[144])
{
  static double K[ND * ND];
  double e[ND], Q[ND];
  memset(R, 0, 12 * sizeof(double));
  memset(Kii, 0, 144 * sizeof(double));
  for (int el = 0; el < 8; el++) {
    int local = -1;
    for (int n = 0; n < 8; n++) {
      const int g = patch_node(el, n);
      if (g == 13) local = n;
      for (int j = 0; j < 12; j++) e[12 * n + j] = u[12 * g + j];
    }
    ancf3843_force_and_tangent(&geo, mat, e, NULL, 1.0, 0.0, Q, K, &work);
    for (int j = 0; j < 12; j++) {
      R[j] += Q[12 * local + j];
      for (int m = 0; m < 12; m++) Kii[j * 12 + m] += K[(12 * local + j) * ND + 12 * local + m];
    }
  }
}

static void test_patch_and_bending(void)
{
  Ancf3843Material mat;
  ancf3843_material_init(YOUNG, POISSON, RHO, 0.0, &mat);
  /* patch test: a large affine deformation of a 2 x 2 x 2 patch is in equilibrium at the
     interior node, and Newton from a perturbed interior node returns to it */
  double G[3][3], t[3] = {0.01, -0.02, 0.03}, u[27 * 12], uex[27 * 12];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) G[i][j] = (i == j) + 0.15 * urand();
  const double h[3] = {A_, B_, C_};
  for (int g = 0; g < 27; g++) {
    const double X[3] = {h[0] * (g % 3), h[1] * ((g / 3) % 3), h[2] * (g / 9)};
    for (int i = 0; i < 3; i++) {
      uex[12 * g + i] = t[i] + G[i][0] * X[0] + G[i][1] * X[1] + G[i][2] * X[2];
      for (int I = 0; I < 3; I++) uex[12 * g + 3 + 3 * I + i] = G[i][I];
    }
  }
  double R[12], Kii[144];
  patch_interior(&mat, uex, R, Kii);
  const double fscale = YOUNG * B_ * C_ * 0.15;
  check("patch 2x2x2, 15 % affine strain: interior residual / (E b c eps)",
        max_abs(R, 12) / fscale, 1e-11);
  memcpy(u, uex, sizeof(u));
  for (int j = 0; j < 12; j++) u[12 * 13 + j] += 0.1 * (j < 3 ? C_ : 1.0) * urand();
  for (int it = 0; it < 12; it++) {
    patch_interior(&mat, u, R, Kii);
    solve_dense(12, Kii, R);
    for (int j = 0; j < 12; j++) u[12 * 13 + j] -= R[j];
  }
  double err = 0.0;
  for (int j = 0; j < 12; j++)
    err = fmax(err, fabs(u[12 * 13 + j] - uex[12 * 13 + j]) / (j < 3 ? C_ : 1.0));
  check("patch 2x2x2: Newton from a perturbed interior node returns to affine", err,
        1e-10);

  /* bending: the field r = (X - kappa X Z', Y, Z' + kappa X^2/2), Z' = Z - c/2, has the bending
     strain E_XX = -kappa Z' (+ O(kappa^2)) with zero element mean, so the Poisson part stays
     inactive and the energy is E I kappa^2 a / 2 (full 3-D SVK would give (lambda + 2 mu) in
     place of E, 35 % more for nu = 0.3) */
  const double kappa = 1e-5 / A_;
  double e[ND], W, Q[ND];
  for (int n = 0; n < 8; n++) {
    const double X = ((n & 1) ? A_ : 0.0), Y = ((n & 2) ? B_ : 0.0),
                 Zp = ((n & 4) ? C_ : 0.0) - C_ / 2;
    double *r = &e[12 * n];
    r[0] = X - kappa * X * Zp, r[1] = Y, r[2] = Zp + kappa * X * X / 2;
    r[3] = 1 - kappa * Zp, r[4] = 0, r[5] = kappa * X; /* r_X */
    r[6] = 0, r[7] = 1, r[8] = 0;                      /* r_Y */
    r[9] = -kappa * X, r[10] = 0, r[11] = 1;           /* r_Z */
  }
  ancf3843_internal_force(&geo, &mat, e, NULL, Q, &W, &work);
  const double W_exact = 0.5 * YOUNG * (B_ * C_ * C_ * C_ / 12.0) * kappa * kappa * A_;
  check("pure bending: energy / (E I kappa^2 a / 2) - 1 (Poisson part inactive)",
        fabs(W / W_exact - 1.0), 1e-7);
}

int main(void)
{
  ancf3843_geometry_init(A_, B_, C_, &geo);
  Ancf3843Material elastic, damped;
  ancf3843_material_init(YOUNG, POISSON, RHO, 0.0, &elastic);
  ancf3843_material_init(YOUNG, POISSON, RHO, BETA, &damped);

  test_shape_functions();
  test_mass();
  test_rigid_motion(&elastic);
  test_rigid_motion(&damped);
  test_tangent();
  test_tangent_apply();
  test_damping_objectivity();
  test_free_element_modes(0.3);
  test_free_element_modes(0.49);
  test_uniform_stress();
  test_patch_and_bending();

  return td_finish();
}
