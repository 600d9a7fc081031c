/*
  ANCF 3843 solid element: shape functions, mass, internal/damping force and tangent
  (formulation.md §1, F1-F5).

  Kinematics (F2).  With the 32 shape functions S_k and the nodal 3-vectors e_k,
      F = sum_k e_k (x) dS_k/dX,   E = (F^T F - I)/2,   Fdot = sum_k edot_k (x) dS_k/dX,
      Edot = sym(F^T Fdot),
  all in the element's material frame X = (a(1+xi)/2, b(1+eta)/2, c(1+zeta)/2).

  Constitutive law and the Poisson/thickness-locking remedy.
  St. Venant-Kirchhoff, W = lambda/2 (tr E)^2 + mu E:E, is split in the material frame into
      W0(E) = 1/2 Emod sum_I E_II^2 + 2 mu sum_{I<J} E_IJ^2   (Poisson-free, true shear modulus)
      Wv(E) = 1/2 (lambda + 2 mu - Emod) sum_I E_II^2 + lambda sum_{I<J} E_II E_JJ  (Poisson part)
  with W0 + Wv = W exactly.  Stresses: S0_II = Emod E_II, S0_IJ = 2 mu E_IJ (I != J);
  Sv_II = sum_J Cv_IJ E_JJ, Cv_II = lambda + 2 mu - Emod, Cv_IJ = lambda (I != J), Sv_IJ = 0.
  W0 is integrated with 3 x 3 x 3 Gauss points.  Wv is evaluated once per element on the
  element-mean normal strains  Ebar_II = (1/V) int E_II dV  (the same Gauss points, which
  integrate E exactly):  Pi = int W0(E) dV + V Wv(Ebar).

  Why.  With one element through the thickness the cubic interpolation cannot relax the
  transverse normal stress that the full 3-D law couples to the bending strain, so SVK adds the
  Poisson coupling as spurious bending stiffness (Chrono's 3843 has no remedy and is 2.5 % stiff
  on a tip-loaded cantilever).  The bending strain is odd through the thickness, so its element
  mean vanishes: the Poisson part does not see bending and the element bends with Emod, as an
  Euler-Bernoulli or plane-stress beam does.  This is the continuum-beam remedy of Gerstmayr and
  Nachbagauer (Poisson terms evaluated at the beam axis) generalised to a solid.  Uniform strain
  states are exact (Ebar = E), and so is every uniform-stress patch of elements.
  The Poisson part is taken on the element-mean strain rather than on the strain at the element
  centre (one-point rule, weight V), which was the first plan: both have the same energy for
  affine fields and bend alike (on a tip-loaded cantilever, one element through the thickness,
  their deflections agreed to all printed digits), but the centre rule is not a consistent
  quadrature of int Sv : dE dV.  The slope shape functions have dS/dX(0) != (1/V) int dS/dX dV
  (dS_{4n+1}/dX = -1/16 at the centre, 0 on average), so a uniform-stress state is not in
  equilibrium: in a linear 2 x 2 x 2 patch with affine boundary values the free interior node's
  slopes were off by 1.6 times the imposed displacement gradient, and for nu = 0.45 the stiffness
  of a single 10 x 12 x 4 mm element had two negative eigenvalues (Cv is indefinite).  The
  mean-strain version passes the patch test (tests/test_ancf3843.c) and is positive
  semi-definite: W0 is convex and Ebar is the Gauss-weighted mean of the E_q, so by Jensen
  sum_q w_q W0(E_q) >= V W0(Ebar) and Pi >= V W(Ebar) >= 0.  It converges to full SVK under
  refinement (projection of the strain onto element constants).  The same split is applied to
  the damping stress (F5): S_v = beta_d [C0 : Edot at the Gauss points + Cv : Edotbar].

  Forces (F3).  Q_k = sum_q w_q F_q S_q dS_k/dX(q) with S_q = S0(E_q) + beta_d S0(Edot_q)
  + Sbar, Sbar = Cv (Ebar + beta_d Edotbar) (diagonal).  The strain energy returned is
  sum_q w_q W0(E_q) + V Wv(Ebar) (elastic only).

  Tangent.  K = c_e dQ/de + c_v dQ/dedot.  Per Gauss point, P = F S and
      A_aI,bJ = c_e delta_ab S_IJ + sum_{K,M} F_aK C0_KIMJ H_bM,
      H = c_e (F + beta_d Fdot) + c_v beta_d F,
  which for C0 is  A_aI,bI = Emod F_aI H_bI + mu sum_{K != I} F_aK H_bK  and
  A_aI,bJ = mu F_aJ H_bI (I != J), plus the geometric term c_e delta_ab S_IJ (S including the
  damping stress and Sbar).  Then
      K[(k,a)][(l,b)] = sum_{q,I,J} dS_kI(q) w_q A^q_aI,bJ dS_lJ(q)
                      + V sum_{I,J} Cv_IJ bbar_I[(k,a)] g_J[(l,b)],
      g_J = (c_e + c_v beta_d) bbar_J + c_e beta_d dbar_J,
  the second line being the mean-strain Poisson part, bbar_I = d Ebar_II/de =
  (1/V) sum_q w_q F_aI dS_kI and dbar_J = d Edotbar_JJ/de (Fdot for F).  The first line is
  formed as (D^T A) D with the (q, J) pairs as one index of length 81: for a panel of 8 shape
  functions k and one component a, Wp = D^T A (small, stays in L1), then two rows (k, a) at a
  time over all columns, vectorised over l, the components b interleaved in registers on the
  way out (tangent_assemble).  Without damping, or with c_e = 0, A^q is symmetric under
  (aI) <-> (bJ), K is symmetric, and only the columns right of each panel are formed, the rest
  mirrored.  About 0.75 million multiply-adds per call; all scratch lives in Ancf3843Work.
*/
#include "tribodyn/ancf3843.h"
#include "tribodyn/vec3.h"

#include <math.h>
#include <string.h>

enum {
  NS = ANCF3843_NSHAPE,
  NQ = ANCF3843_NQP,
  NR = ANCF3843_NROW,
  NRP = ANCF3843_NROW_PAD,
  ND = ANCF3843_NDOF
};

/* The four shape functions of corner node n (F1) at xi, S4[j] = S_(4n+j), and their material
   gradients G4[I][j] = dS_(4n+j)/dX_I.  r2 = |xi|^2 and g = (2/a, 2/b, 2/c) = dxi/dX are the
   node-independent factors.  One body for the whole-cell and the face evaluations, so that both
   give the same numbers. */
static inline void shape_node(double a, double b, double c, const double xi[3], double r2, const double g[3],
                              int n, double S4[4], double G4[3][4])
{
  const double x = xi[0], y = xi[1], z = xi[2];
  const double ga = g[0], gb = g[1], gc = g[2];
  const double xn = (n & 1) ? 1.0 : -1.0, yn = (n & 2) ? 1.0 : -1.0, zn = (n & 4) ? 1.0 : -1.0;
  const double u = 1.0 + x * xn, v = 1.0 + y * yn, w = 1.0 + z * zn;
  const double gg = 2.0 + x * xn + y * yn + z * zn - r2;
  /* slope factors: p(t) = t_n (1 + t t_n)^2 (t t_n - 1), p'(t) = (1 + t t_n)(3 t t_n - 1) */
  const double px = xn * u * u * (x * xn - 1.0), py = yn * v * v * (y * yn - 1.0),
               pz = zn * w * w * (z * zn - 1.0);
  const double dpx = u * (3.0 * x * xn - 1.0), dpy = v * (3.0 * y * yn - 1.0),
               dpz = w * (3.0 * z * zn - 1.0);
  if (S4) {
    S4[0] = u * v * w * gg / 16.0;
    S4[1] = a / 32.0 * px * v * w;
    S4[2] = b / 32.0 * u * py * w;
    S4[3] = c / 32.0 * u * v * pz;
  }
  if (G4) {
    G4[0][0] = v * w * (xn * gg + u * (xn - 2.0 * x)) / 16.0 * ga;
    G4[1][0] = u * w * (yn * gg + v * (yn - 2.0 * y)) / 16.0 * gb;
    G4[2][0] = u * v * (zn * gg + w * (zn - 2.0 * z)) / 16.0 * gc;
    /* the factor a/32 times 2/a is 1/16, likewise for b and c */
    G4[0][1] = dpx * v * w / 16.0;
    G4[1][1] = a / 32.0 * px * yn * w * gb;
    G4[2][1] = a / 32.0 * px * v * zn * gc;
    G4[0][2] = b / 32.0 * xn * py * w * ga;
    G4[1][2] = u * dpy * w / 16.0;
    G4[2][2] = b / 32.0 * u * py * zn * gc;
    G4[0][3] = c / 32.0 * xn * v * pz * ga;
    G4[1][3] = c / 32.0 * u * yn * pz * gb;
    G4[2][3] = u * v * dpz / 16.0;
  }
}

/* Shape functions (F1) and their material gradients at xi; S or dSdX may be NULL. */
static void shape_eval(double a, double b, double c, const double xi[3], double *S,
                       double (*dSdX)[NS])
{
  const double r2 = xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2];
  const double g[3] = {2.0 / a, 2.0 / b, 2.0 / c}; /* dxi/dX, deta/dY, dzeta/dZ */
  for (int n = 0; n < ANCF3843_NODES; n++) {
    double S4[4], G4[3][4];
    shape_node(a, b, c, xi, r2, g, n, S ? S4 : NULL, dSdX ? G4 : NULL);
    for (int j = 0; j < 4; j++) {
      if (S) S[4 * n + j] = S4[j];
      if (dSdX)
        for (int I = 0; I < 3; I++) dSdX[I][4 * n + j] = G4[I][j];
    }
  }
}

void ancf3843_face_shapes(int face, int k[ANCF3843_FACE_NSHAPE])
{
  const int fix = face / 2, side = face & 1;
  int j = 0;
  for (int n = 0; n < ANCF3843_NODES; n++) {
    if (((n >> fix) & 1) != side) continue;
    for (int s = 0; s < 4; s++)
      if (s != 1 + fix) k[j++] = 4 * n + s;
  }
}

void ancf3843_face_shape_and_gradient(double a, double b, double c, int face, const double uv[2],
                                      double S[ANCF3843_FACE_NSHAPE], double dSdX[2][ANCF3843_FACE_NSHAPE])
{
  /* face and axes stay run-time values: specialised on them, the compiler folds the fixed
     coordinate's +-1 into the sums (r2, g) and rounds differently from the whole-cell routine */
  const int fix = face / 2, side = face & 1;
  const int I0 = fix == 0 ? 1 : 0, I1 = fix == 2 ? 1 : 2;
  double xi[3];
  xi[fix] = side ? 1.0 : -1.0;
  xi[I0] = uv[0];
  xi[I1] = uv[1];
  const double r2 = xi[0] * xi[0] + xi[1] * xi[1] + xi[2] * xi[2];
  const double g[3] = {2.0 / a, 2.0 / b, 2.0 / c};
  int j = 0;
  for (int n = 0; n < ANCF3843_NODES; n++) {
    double S4[4], G4[3][4];
    if (((n >> fix) & 1) != side) continue;
    shape_node(a, b, c, xi, r2, g, n, S4, G4);
    for (int s = 0; s < 4; s++) {
      if (s == 1 + fix) continue;
      S[j] = S4[s];
      dSdX[0][j] = G4[I0][s];
      dSdX[1][j] = G4[I1][s];
      j++;
    }
  }
}

void ancf3843_shape(double a, double b, double c, const double xi[3], double S[ANCF3843_NSHAPE])
{
  shape_eval(a, b, c, xi, S, NULL);
}

void ancf3843_shape_gradient(double a, double b, double c, const double xi[3],
                             double dSdX[3][ANCF3843_NSHAPE])
{
  shape_eval(a, b, c, xi, NULL, dSdX);
}

void ancf3843_shape_and_gradient(double a, double b, double c, const double xi[3], double S[ANCF3843_NSHAPE],
                                 double dSdX[3][ANCF3843_NSHAPE])
{
  shape_eval(a, b, c, xi, S, dSdX);
}

/* The Gauss rules of the element: 3 points for the stiffness, 4 for the mass (exact for S_k S_l,
   of degree <= 6 in each local coordinate, F4). */
static void gauss_rules(double x3[3], double w3[3], double x4[4], double w4[4])
{
  const double g3 = sqrt(0.6), s30 = sqrt(30.0), t = 2.0 / 7.0 * sqrt(6.0 / 5.0);
  const double pi = sqrt(3.0 / 7.0 - t), po = sqrt(3.0 / 7.0 + t);
  x3[0] = -g3, x3[1] = 0.0, x3[2] = g3;
  w3[0] = 5.0 / 9.0, w3[1] = 8.0 / 9.0, w3[2] = 5.0 / 9.0;
  x4[0] = -po, x4[1] = -pi, x4[2] = pi, x4[3] = po;
  w4[0] = (18.0 - s30) / 36.0, w4[1] = (18.0 + s30) / 36.0, w4[2] = (18.0 + s30) / 36.0, w4[3] = (18.0 - s30) / 36.0;
}

/* dSdXt from dSdX (the transposed table of the vectorised gradient loop) */
static void transpose_gradients(Ancf3843Geometry *geo)
{
  for (int q = 0; q < NQ; q++)
    for (int I = 0; I < 3; I++)
      for (int k = 0; k < NS; k++) geo->dSdXt[k][3 * q + I] = geo->dSdX[q][I][k];
}

void ancf3843_geometry_init(double a, double b, double c, Ancf3843Geometry *geo)
{
  memset(geo, 0, sizeof(*geo));
  geo->a = a;
  geo->b = b;
  geo->c = c;
  geo->volume = a * b * c;
  const double detJ = geo->volume / 8.0;

  /* 3-point Gauss rule for the stiffness; point q = i + 3 j + 9 m */
  double x3[3], w3[3], x4[4], w4[4];
  gauss_rules(x3, w3, x4, w4);
  for (int m = 0; m < 3; m++)
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) {
        const int q = i + 3 * j + 9 * m;
        const double xi[3] = {x3[i], x3[j], x3[m]};
        geo->w[q] = w3[i] * w3[j] * w3[m] * detJ;
        shape_eval(a, b, c, xi, NULL, geo->dSdX[q]);
      }
  transpose_gradients(geo);

  /* 4-point Gauss rule for the mass: S_k S_l is of degree <= 6 in each local coordinate (F4) */
  for (int m = 0; m < 4; m++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++) {
        const double xi[3] = {x4[i], x4[j], x4[m]};
        const double wq = w4[i] * w4[j] * w4[m] * detJ;
        double S[NS];
        shape_eval(a, b, c, xi, S, NULL);
        for (int k = 0; k < NS; k++) {
          geo->shape_integral[k] += wq * S[k];
          for (int l = k; l < NS; l++) geo->mass_unit[k][l] += wq * S[k] * S[l];
        }
      }
  for (int k = 0; k < NS; k++) /* exactly symmetric */
    for (int l = 0; l < k; l++) geo->mass_unit[k][l] = geo->mass_unit[l][k];
}

/* J[i][I] = dX_i/dXbar_I of the reference map X(Xbar) = sum_k S_k(xi) e0_k at xi; the shape
   functions S and their box gradients dS as well if wanted. */
static void reference_jacobian(double a, double b, double c, const double e0[ANCF3843_NDOF], const double xi[3], double J[3][3], double *S, double (*dSout)[NS])
{
  double dSloc[3][NS], (*dS)[NS] = dSout ? dSout : dSloc;
  shape_eval(a, b, c, xi, S, dS);
  for (int i = 0; i < 3; i++)
    for (int I = 0; I < 3; I++) {
      double s = 0.0;
      for (int k = 0; k < NS; k++) s += dS[I][k] * e0[3 * k + i];
      J[i][I] = s;
    }
}

int ancf3843_geometry_init_mapped(double a, double b, double c, const double e0[ANCF3843_NDOF], Ancf3843Geometry *geo, double *min_det_ratio)
{
  const double box = a * b * c / 8.0;
  double       R[3][3], Jc[3][3], mindet = 1e300;
  memset(geo, 0, sizeof(*geo));
  geo->a = a;
  geo->b = b;
  geo->c = c;

  /* The local frame R (columns: axes): the reference tangents at the centre, made orthonormal in
     the order X, Y, Z = X x Y.  It only decides which normal strains the Poisson term averages
     (the element-mean E_II of the locking remedy are taken along the cell's own directions, as
     for a box); strains, stresses and forces are frame-invariant otherwise. */
  reference_jacobian(a, b, c, e0, (const double[3]){0, 0, 0}, Jc, NULL, NULL);
  {
    double nx = 0, s = 0, ny = 0;
    for (int i = 0; i < 3; i++) nx += Jc[i][0] * Jc[i][0];
    nx = sqrt(nx);
    for (int i = 0; i < 3; i++) R[i][0] = Jc[i][0] / nx;
    for (int i = 0; i < 3; i++) s += R[i][0] * Jc[i][1];
    for (int i = 0; i < 3; i++) R[i][1] = Jc[i][1] - s * R[i][0];
    for (int i = 0; i < 3; i++) ny += R[i][1] * R[i][1];
    ny = sqrt(ny);
    for (int i = 0; i < 3; i++) R[i][1] /= ny;
    R[0][2] = R[1][0] * R[2][1] - R[2][0] * R[1][1];
    R[1][2] = R[2][0] * R[0][1] - R[0][0] * R[2][1];
    R[2][2] = R[0][0] * R[1][1] - R[1][0] * R[0][1];
  }

  /* stiffness points: dS/dX_loc = (dS/dXbar) J^-1 R, weight w det J (F2 on the mapped cell) */
  double x3[3], w3[3], x4[4], w4[4];
  gauss_rules(x3, w3, x4, w4);
  for (int m = 0; m < 3; m++)
    for (int j = 0; j < 3; j++)
      for (int i = 0; i < 3; i++) {
        const int    q     = i + 3 * j + 9 * m;
        const double xi[3] = {x3[i], x3[j], x3[m]};
        double       J[3][3], Ji[3][3], det, dS[3][NS], JiR[3][3];
        reference_jacobian(a, b, c, e0, xi, J, NULL, dS);
        det    = mat3_det((const double(*)[3])J);
        mindet = fmin(mindet, det);
        if (!(det > 0)) continue;
        mat3_inverse((const double(*)[3])J, det, Ji);
        for (int I = 0; I < 3; I++) /* (J^-1 R)[I][L] */
          for (int L = 0; L < 3; L++) JiR[I][L] = Ji[I][0] * R[0][L] + Ji[I][1] * R[1][L] + Ji[I][2] * R[2][L];
        geo->w[q] = w3[i] * w3[j] * w3[m] * box * det;
        for (int L = 0; L < 3; L++)
          for (int k = 0; k < NS; k++) geo->dSdX[q][L][k] = dS[0][k] * JiR[0][L] + dS[1][k] * JiR[1][L] + dS[2][k] * JiR[2][L];
        geo->volume += geo->w[q];
      }
  transpose_gradients(geo);

  /* mass and gravity integrals with det J on the 4-point rule (F4) */
  for (int m = 0; m < 4; m++)
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++) {
        const double xi[3] = {x4[i], x4[j], x4[m]};
        double       S[NS], J[3][3], det, wq;
        reference_jacobian(a, b, c, e0, xi, J, S, NULL);
        det    = mat3_det((const double(*)[3])J);
        mindet = fmin(mindet, det);
        wq     = w4[i] * w4[j] * w4[m] * box * det;
        for (int k = 0; k < NS; k++) {
          geo->shape_integral[k] += wq * S[k];
          for (int l = k; l < NS; l++) geo->mass_unit[k][l] += wq * S[k] * S[l];
        }
      }
  for (int k = 0; k < NS; k++)
    for (int l = 0; l < k; l++) geo->mass_unit[k][l] = geo->mass_unit[l][k];
  if (min_det_ratio) *min_det_ratio = mindet;
  return mindet > 0 ? 0 : -1;
}

void ancf3843_material_init(double E, double nu, double rho, double damping, Ancf3843Material *mat)
{
  mat->E = E;
  mat->nu = nu;
  mat->rho = rho;
  mat->lambda = E * nu / ((1.0 + nu) * (1.0 - 2.0 * nu));
  mat->mu = E / (2.0 * (1.0 + nu));
  mat->damping = damping;
}

void ancf3843_reference_coordinates(double a, double b, double c, const double x0[3],
                                    double e[ANCF3843_NDOF])
{
  const double h[3] = {a, b, c};
  for (int n = 0; n < ANCF3843_NODES; n++) {
    for (int i = 0; i < 3; i++) {
      e[3 * (4 * n) + i] = x0[i] + (((n >> i) & 1) ? h[i] : 0.0);
      for (int I = 0; I < 3; I++) e[3 * (4 * n + 1 + I) + i] = (i == I) ? 1.0 : 0.0;
    }
  }
}

void ancf3843_interpolate(double a, double b, double c, const double xi[3],
                          const double e[ANCF3843_NDOF], double r[3], double dr[3][3])
{
  double S[NS], dS[3][NS];
  shape_eval(a, b, c, xi, S, dr ? dS : NULL);
  for (int i = 0; i < 3; i++) {
    double s = 0.0;
    for (int k = 0; k < NS; k++) s += S[k] * e[3 * k + i];
    r[i] = s;
  }
  if (dr)
    for (int I = 0; I < 3; I++)
      for (int i = 0; i < 3; i++) {
        double s = 0.0;
        for (int k = 0; k < NS; k++) s += dS[I][k] * e[3 * k + i];
        dr[I][i] = s;
      }
}

/* Short vectors for the dense loops below: GCC/Clang vector extensions, because gcc fully
   unrolls the fixed-length inner loops of the plain-C version before its vectoriser runs and
   then emits scalar code (measured: 3x slower).  The native width: eight doubles with AVX-512,
   four with AVX, two otherwise; loads and stores are unaligned (aligned(8)), since the
   structures come from any allocator. */
#ifndef VL
#if defined(__AVX512F__)
#define VL 8
#elif defined(__AVX__)
#define VL 4
#else
#define VL 2
#endif
#endif
typedef double vd __attribute__((vector_size(VL * sizeof(double)), aligned(sizeof(double))));
#define NSV (ANCF3843_NSHAPE / VL) /* vectors per row of 32 shape functions */

static inline vd vload(const double *p) { return *(const vd *)p; }
static inline void vstore(double *p, vd v) { *(vd *)p = v; }
#if VL == 8
static inline vd vsplat(double x) { return (vd){x, x, x, x, x, x, x, x}; }
#elif VL == 4
static inline vd vsplat(double x) { return (vd){x, x, x, x}; }
#else
static inline vd vsplat(double x) { return (vd){x, x}; }
#endif

/* 3-way interleave: x0, x1, x2 hold the components b = 0, 1, 2 for VL consecutive shape
   functions l; out receives the 3 VL doubles of the element layout 3 l + b. */
static inline void interleave3(vd x0, vd x1, vd x2, vd out[3])
{
#if VL == 8
  const vd t0 = __builtin_shufflevector(x0, x1, 0, 8, 0, 1, 9, 0, 2, 10);
  const vd t1 = __builtin_shufflevector(x0, x1, 0, 3, 11, 0, 4, 12, 0, 5);
  const vd t2 = __builtin_shufflevector(x0, x1, 13, 0, 6, 14, 0, 7, 15, 0);
  out[0] = __builtin_shufflevector(t0, x2, 0, 1, 8, 3, 4, 9, 6, 7);
  out[1] = __builtin_shufflevector(t1, x2, 10, 1, 2, 11, 4, 5, 12, 7);
  out[2] = __builtin_shufflevector(t2, x2, 0, 13, 2, 3, 14, 5, 6, 15);
#elif VL == 4
  const vd t0 = __builtin_shufflevector(x0, x1, 0, 4, 0, 1);
  const vd t1 = __builtin_shufflevector(x0, x1, 5, 0, 2, 6);
  const vd t2 = __builtin_shufflevector(x0, x1, 0, 3, 7, 0);
  out[0] = __builtin_shufflevector(t0, x2, 0, 1, 4, 3);
  out[1] = __builtin_shufflevector(t1, x2, 0, 5, 2, 3);
  out[2] = __builtin_shufflevector(t2, x2, 6, 1, 2, 7);
#else
  out[0] = __builtin_shufflevector(x0, x1, 0, 2);
  out[1] = __builtin_shufflevector(x2, x0, 0, 3);
  out[2] = __builtin_shufflevector(x1, x2, 1, 3);
#endif
}

/* out[3 k + a] = x[a][k] for the 32 shape functions */
static inline void store_interleaved(const vd x[3][NSV], double out[ND])
{
  for (int j = 0; j < NSV; j++) {
    vd o[3];
    interleave3(x[0][j], x[1][j], x[2][j], o);
    for (int m = 0; m < 3; m++) vstore(out + 3 * VL * j + m * VL, o[m]);
  }
}

/* G[a][3q+I] = sum_k v[a][k] dS_k/dX_I(q) for all Gauss points at once: F from e, Fdot from
   edot.  Vectorised over the (q, I) rows, CV vectors at a time, accumulators in registers. */
static void gradients_all_points(const Ancf3843Geometry *geo, const double v[3][NS],
                                 double G[3][NRP])
{
  enum { CV = 4, RB = CV * VL };
  _Static_assert(NRP % RB == 0, "row padding must be a multiple of the row block");
  for (int r0 = 0; r0 < NRP; r0 += RB) {
    vd acc0[CV], acc1[CV], acc2[CV];
    for (int j = 0; j < CV; j++) acc0[j] = acc1[j] = acc2[j] = vsplat(0.0);
    for (int k = 0; k < NS; k++) {
      const double *d = &geo->dSdXt[k][r0];
      const vd v0 = vsplat(v[0][k]), v1 = vsplat(v[1][k]), v2 = vsplat(v[2][k]);
      for (int j = 0; j < CV; j++) {
        const vd dj = vload(d + j * VL);
        acc0[j] += v0 * dj;
        acc1[j] += v1 * dj;
        acc2[j] += v2 * dj;
      }
    }
    for (int j = 0; j < CV; j++) {
      vstore(&G[0][r0 + j * VL], acc0[j]);
      vstore(&G[1][r0 + j * VL], acc1[j]);
      vstore(&G[2][r0 + j * VL], acc2[j]);
    }
  }
}

/* out[3k+a] = sum_r M[a][r] dSdX[r][k] over the rows r = r0, r0 + dr, ... < 81, each row
   scaled by s[r / 3]: the transpose of the gradient map.  Force: M = weighted P, all rows.
   bbar_I: M = F, rows 3q + I, s = w_q / V. */
static void gradient_transpose_product(const Ancf3843Geometry *geo, const double M[3][NRP],
                                       int r0, int dr, const double *s, double out[ND])
{
  const double(*D)[NS] = (const double(*)[NS])geo->dSdX;
  vd acc[3][NSV];
  for (int j = 0; j < NSV; j++) acc[0][j] = acc[1][j] = acc[2][j] = vsplat(0.0);
  for (int r = r0; r < NR; r += dr) {
    const double sr = s ? s[r / 3] : 1.0;
    const vd m0 = vsplat(sr * M[0][r]), m1 = vsplat(sr * M[1][r]), m2 = vsplat(sr * M[2][r]);
    for (int j = 0; j < NSV; j++) {
      const vd dj = vload(D[r] + j * VL);
      acc[0][j] += m0 * dj;
      acc[1][j] += m1 * dj;
      acc[2][j] += m2 * dj;
    }
  }
  store_interleaved((const vd(*)[NSV])acc, out);
}

/* The tangent is formed in panels of KO shape functions k and one component a: first
   Wp[3q+J][b][k] = sum_I w_q A^q_{aI,bJ} dS_kI(q) for the KO k of the panel (L1-resident), then
   KB rows (k, a) at a time, all columns (l, b) with l >= j0 VL:
       K[(k,a)][(l,b)] = sum_r Wp[r][b][k] dS_l(r) + sum_I bbar_I[(k,a)] g_I[(l,b)],
   with the l loop in registers and the three components b interleaved on the way out, so
   every row of K is written once, contiguously. */
enum { KO = 8, KB = (VL == 8) ? 2 : 1 };

static inline __attribute__((always_inline)) void
tangent_rows(const double (*D)[NS], const double (*Wp)[3][KO], int ip, int k0, int a, int j0,
             const Ancf3843Work *wk, double *K)
{
  vd acc[KB][3][NSV];
  for (int i = 0; i < KB; i++)
    for (int b = 0; b < 3; b++)
      for (int j = j0; j < NSV; j++) acc[i][b][j] = vsplat(0.0);
  for (int r = 0; r < NR; r++) {
    vd d[NSV];
    for (int j = j0; j < NSV; j++) d[j] = vload(D[r] + j * VL);
    for (int i = 0; i < KB; i++)
      for (int b = 0; b < 3; b++) {
        const vd w = vsplat(Wp[r][b][ip + i]);
        for (int j = j0; j < NSV; j++) acc[i][b][j] += w * d[j];
      }
  }
  for (int i = 0; i < KB; i++) {
    const int row = 3 * (k0 + i) + a;
    double *Kr = K + (size_t)row * ND;
    const vd b0 = vsplat(wk->bbar[0][row]), b1 = vsplat(wk->bbar[1][row]),
             b2 = vsplat(wk->bbar[2][row]);
    for (int j = j0; j < NSV; j++) {
      vd o[3];
      interleave3(acc[i][0][j], acc[i][1][j], acc[i][2][j], o);
      for (int m = 0; m < 3; m++) {
        const int c = 3 * VL * j + m * VL;
        vstore(Kr + c, o[m] + b0 * vload(&wk->g[0][c]) + b1 * vload(&wk->g[1][c]) +
                           b2 * vload(&wk->g[2][c]));
      }
    }
  }
}

static void tangent_assemble(const Ancf3843Geometry *geo, int symmetric, Ancf3843Work *wk,
                             double *K)
{
  const double(*D)[NS] = (const double(*)[NS])geo->dSdX;
  enum { NV = KO / VL }; /* vectors per panel row */
  _Static_assert(NS / KO == 4, "four panels");
  for (int a = 0; a < 3; a++)
    for (int p = 0; p < NS / KO; p++) {
      for (int q = 0; q < NQ; q++) {
        vd dI[3][NV];
        for (int I = 0; I < 3; I++)
          for (int v = 0; v < NV; v++) dI[I][v] = vload(&D[3 * q + I][KO * p + VL * v]);
        for (int b = 0; b < 3; b++) {
          const double(*Aq)[3] = wk->A[q][a][b];
          for (int J = 0; J < 3; J++)
            for (int v = 0; v < NV; v++)
              vstore(&wk->Wp[3 * q + J][b][VL * v],
                     Aq[0][J] * dI[0][v] + Aq[1][J] * dI[1][v] + Aq[2][J] * dI[2][v]);
        }
      }
      /* symmetric: only the columns l >= the panel's first k, the rest mirrored below.
         j0 is a constant in each call, so that the accumulators stay in registers. */
      const double(*Wp)[3][KO] = (const double(*)[3][KO])wk->Wp;
      for (int ip = 0; ip < KO; ip += KB) {
        const int k0 = KO * p + ip;
        if (!symmetric || p == 0) tangent_rows(D, Wp, ip, k0, a, 0, wk, K);
        else if (p == 1) tangent_rows(D, Wp, ip, k0, a, 1 * NV, wk, K);
        else if (p == 2) tangent_rows(D, Wp, ip, k0, a, 2 * NV, wk, K);
        else tangent_rows(D, Wp, ip, k0, a, 3 * NV, wk, K);
      }
    }
  if (symmetric)
    for (int p = 1; p < NS / KO; p++)
      for (int row = 3 * KO * p; row < 3 * KO * (p + 1); row++)
        for (int col = 0; col < 3 * KO * p; col++)
          K[(size_t)row * ND + col] = K[(size_t)col * ND + row];
}

/* 3x3 helpers on row-major F[a][I] */
static inline void green_strain(const double F[3][3], double E[3][3])
{
  for (int I = 0; I < 3; I++)
    for (int J = I; J < 3; J++) {
      const double s = F[0][I] * F[0][J] + F[1][I] * F[1][J] + F[2][I] * F[2][J];
      E[I][J] = E[J][I] = 0.5 * (s - (I == J ? 1.0 : 0.0));
    }
}

static inline void strain_rate(const double F[3][3], const double Fd[3][3], double Ed[3][3])
{
  for (int I = 0; I < 3; I++)
    for (int J = I; J < 3; J++) {
      double s = 0.0;
      for (int a = 0; a < 3; a++) s += F[a][I] * Fd[a][J] + Fd[a][I] * F[a][J];
      Ed[I][J] = Ed[J][I] = 0.5 * s;
    }
}

/* Poisson-free part S0 = C0 : E (see the header comment) */
static inline void stress_poisson_free(double Emod, double mu, const double E[3][3], double S[3][3])
{
  for (int I = 0; I < 3; I++)
    for (int J = 0; J < 3; J++) S[I][J] = (I == J) ? Emod * E[I][I] : 2.0 * mu * E[I][J];
}

/* The common pass: kinematics, stresses, and (as requested) force, energy and tangent. */
static void evaluate(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                     const double *e, const double *edot, double c_e, double c_v, double *Q,
                     double *K, double *energy, Ancf3843Work *wk)
{
  const double Emod = mat->E, mu = mat->mu, lam = mat->lambda, beta = mat->damping;
  const double V = geo->volume;
  const double cvd = lam + 2.0 * mu - Emod, cvo = lam; /* Cv: diagonal and off-diagonal */
  const int damped = (beta != 0.0);
  const int moving = damped && edot != NULL; /* Fdot terms present */

  for (int k = 0; k < NS; k++)
    for (int a = 0; a < 3; a++) wk->et[a][k] = e[3 * k + a];
  gradients_all_points(geo, wk->et, wk->F);
  if (moving) {
    for (int k = 0; k < NS; k++)
      for (int a = 0; a < 3; a++) wk->edt[a][k] = edot[3 * k + a];
    gradients_all_points(geo, wk->edt, wk->Fd);
  }

  /* Gauss-point stresses of the Poisson-free part and the element-mean normal strains */
  double Ebar[3] = {0, 0, 0}, Edbar[3] = {0, 0, 0}, W0 = 0.0;
  for (int q = 0; q < NQ; q++) {
    double F[3][3], E[3][3], S[3][3];
    for (int a = 0; a < 3; a++)
      for (int I = 0; I < 3; I++) F[a][I] = wk->F[a][3 * q + I];
    green_strain(F, E);
    stress_poisson_free(Emod, mu, E, S);
    const double w = geo->w[q];
    double Wq = 0.0;
    for (int I = 0; I < 3; I++) {
      Ebar[I] += w * E[I][I];
      for (int J = 0; J < 3; J++) Wq += S[I][J] * E[I][J];
    }
    W0 += 0.5 * w * Wq;
    if (moving) {
      double Fd[3][3], Ed[3][3], Sd[3][3];
      for (int a = 0; a < 3; a++)
        for (int I = 0; I < 3; I++) Fd[a][I] = wk->Fd[a][3 * q + I];
      strain_rate(F, Fd, Ed);
      stress_poisson_free(Emod, mu, Ed, Sd);
      for (int I = 0; I < 3; I++) {
        Edbar[I] += w * Ed[I][I];
        for (int J = 0; J < 3; J++) S[I][J] += beta * Sd[I][J];
      }
    }
    memcpy(wk->St[q], S, sizeof(S));
  }
  for (int I = 0; I < 3; I++) {
    Ebar[I] /= V;
    Edbar[I] /= V;
  }
  /* Poisson part on the mean strains: Sbar = Cv (Ebar + beta Edotbar), diagonal */
  double Sbar[3];
  for (int I = 0; I < 3; I++) {
    double s = 0.0;
    for (int J = 0; J < 3; J++) s += (I == J ? cvd : cvo) * (Ebar[J] + beta * Edbar[J]);
    Sbar[I] = s;
  }
  for (int q = 0; q < NQ; q++)
    for (int I = 0; I < 3; I++) wk->St[q][I][I] += Sbar[I];

  if (energy) {
    const double Wv = 0.5 * cvd * (Ebar[0] * Ebar[0] + Ebar[1] * Ebar[1] + Ebar[2] * Ebar[2]) +
                      cvo * (Ebar[0] * Ebar[1] + Ebar[1] * Ebar[2] + Ebar[0] * Ebar[2]);
    *energy = W0 + V * Wv;
  }

  if (Q) { /* (F3): Q_k = sum_q w_q F S dS_k/dX */
    for (int q = 0; q < NQ; q++) {
      const double w = geo->w[q];
      for (int a = 0; a < 3; a++)
        for (int I = 0; I < 3; I++) {
          double s = 0.0;
          for (int Kx = 0; Kx < 3; Kx++) s += wk->F[a][3 * q + Kx] * wk->St[q][Kx][I];
          wk->P[a][3 * q + I] = w * s;
        }
    }
    gradient_transpose_product(geo, (const double(*)[NRP])wk->P, 0, 1, NULL, Q);
  }

  if (!K) return;

  /* weighted tangent moduli per Gauss point, A[q][a][b][I][J] */
  const double ch = c_e + c_v * beta; /* H = ch F + c_e beta Fdot */
  for (int q = 0; q < NQ; q++) {
    double F[3][3], H[3][3];
    for (int a = 0; a < 3; a++)
      for (int I = 0; I < 3; I++) {
        F[a][I] = wk->F[a][3 * q + I];
        H[a][I] = ch * F[a][I] + (moving ? c_e * beta * wk->Fd[a][3 * q + I] : 0.0);
      }
    const double w = geo->w[q];
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) {
        double FH[3]; /* F_aK H_bK */
        for (int Kx = 0; Kx < 3; Kx++) FH[Kx] = F[a][Kx] * H[b][Kx];
        const double sFH = FH[0] + FH[1] + FH[2];
        for (int I = 0; I < 3; I++)
          for (int J = 0; J < 3; J++) {
            double m = (I == J) ? Emod * FH[I] + mu * (sFH - FH[I]) : mu * F[a][J] * H[b][I];
            if (a == b) m += c_e * wk->St[q][I][J];
            wk->A[q][a][b][I][J] = w * m;
          }
      }
  }

  /* Poisson part on the mean strains: V sum_IJ Cv_IJ bbar_I (x) [ch bbar_J + c_e beta dbar_J],
     bbar_I[3k+a] = (1/V) sum_q w_q F_aI dS_kI, dbar_I likewise with Fdot */
  double wV[NQ];
  for (int q = 0; q < NQ; q++) wV[q] = geo->w[q] / V;
  for (int I = 0; I < 3; I++) {
    gradient_transpose_product(geo, (const double(*)[NRP])wk->F, I, 3, wV, wk->bbar[I]);
    if (moving)
      gradient_transpose_product(geo, (const double(*)[NRP])wk->Fd, I, 3, wV, wk->dbar[I]);
  }
  for (int I = 0; I < 3; I++) {
    double cI[3];
    for (int J = 0; J < 3; J++) cI[J] = V * (I == J ? cvd : cvo);
    for (int j = 0; j < ND; j++) {
      double s = 0.0;
      for (int J = 0; J < 3; J++) {
        double h = ch * wk->bbar[J][j];
        if (moving) h += c_e * beta * wk->dbar[J][j];
        s += cI[J] * h;
      }
      wk->g[I][j] = s;
    }
  }

  /* without damping (or with c_e = 0) A^q is symmetric in (aI) <-> (bJ) and so is K */
  tangent_assemble(geo, !moving || c_e == 0.0, wk, K);
}

void ancf3843_internal_force(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                             const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                             double Q[ANCF3843_NDOF], double *strain_energy, Ancf3843Work *work)
{
  evaluate(geo, mat, e, edot, 0.0, 0.0, Q, NULL, strain_energy, work);
}

void ancf3843_tangent(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                      const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                      double c_e, double c_v, double K[ANCF3843_NDOF * ANCF3843_NDOF],
                      Ancf3843Work *work)
{
  evaluate(geo, mat, e, edot, c_e, c_v, NULL, K, NULL, work);
}

void ancf3843_force_and_tangent(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                                const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                                double c_e, double c_v, double Q[ANCF3843_NDOF],
                                double K[ANCF3843_NDOF * ANCF3843_NDOF], Ancf3843Work *work)
{
  evaluate(geo, mat, e, edot, c_e, c_v, Q, K, NULL, work);
}

/*
  Products with the tangent (ancf3843.h: ancf3843_linearize, ancf3843_tangent_apply).

  With G = grad v at the Gauss points (G_bJ = sum_l v_(l,b) dS_lJ, the F of v) the tangent's
  first line above contracts to
      sum_{b,J} A_aI,bJ G_bJ = c_e sum_J G_aJ S_IJ + sum_K F_aK sigma_KI,
      Z = H^T G,  sigma_II = Emod Z_II,  sigma_KI = mu (Z_KI + Z_IK) (K != I),
  which is C0 : sym(H^T G) as the entries A_aI,bI = Emod F_aI H_bI + mu sum_{K != I} F_aK H_bK,
  A_aI,bJ = mu F_aJ H_bI (I != J) give it.  The Poisson line gives g_J . v =
  (1/V) sum_q w_q Z_JJ(q) (H = c_h F + c_e beta Fdot is exactly the combination in g_J), and
  V bbar_I[(k,a)] = sum_q w_q F_aI dS_kI, so it adds sum_J Cv_IJ (g_J . v) to sigma_II.  Then
      y_(k,a) = sum_q sum_I w_q T_aI(q) dS_kI(q),  T = c_e G S + F sigma,
  the transpose of the gradient map, as for the force.  The same sums as K v, in another order:
  the two agree to rounding (tests/test_ancf3843.c).
*/
void ancf3843_force_and_linearize(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                                  const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                                  double c_e, double c_v, double Q[ANCF3843_NDOF],
                                  double *strain_energy, Ancf3843Linearization *lin,
                                  Ancf3843Work *wk)
{
  const double beta   = mat->damping;
  const int    moving = beta != 0.0 && edot != NULL;
  const double ch     = c_e + c_v * beta;
  /* kinematics and the total stress (Sbar included) in wk->F, wk->Fd, wk->St; Q if asked */
  evaluate(geo, mat, e, edot, 0.0, 0.0, Q, NULL, strain_energy, wk);
  for (int a = 0; a < 3; a++)
    for (int r = 0; r < NRP; r++) {
      lin->F[a][r] = wk->F[a][r];
      lin->H[a][r] = ch * wk->F[a][r] + (moving ? c_e * beta * wk->Fd[a][r] : 0.0);
    }
  for (int q = 0; q < NQ; q++) {
    const double(*S)[3] = wk->St[q];
    lin->S[q][0] = c_e * S[0][0];
    lin->S[q][1] = c_e * S[1][1];
    lin->S[q][2] = c_e * S[2][2];
    lin->S[q][3] = c_e * S[0][1];
    lin->S[q][4] = c_e * S[1][2];
    lin->S[q][5] = c_e * S[0][2];
  }
}

void ancf3843_linearize(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                        const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                        double c_e, double c_v, Ancf3843Linearization *lin, Ancf3843Work *wk)
{
  ancf3843_force_and_linearize(geo, mat, e, edot, c_e, c_v, NULL, NULL, lin, wk);
}

void ancf3843_tangent_apply(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                            const Ancf3843Linearization *lin, double c_m,
                            const double v[ANCF3843_NDOF], double y[ANCF3843_NDOF],
                            Ancf3843Work *wk)
{
  const double Emod = mat->E, mu = mat->mu, lam = mat->lambda;
  const double cvd = lam + 2.0 * mu - Emod, cvo = lam; /* Cv: diagonal and off-diagonal */
  double(*G)[NRP] = wk->P; /* grad v at the Gauss points, G[b][3q+J] */
  double(*T)[NRP] = wk->Fd; /* w_q T_aI(q) */
  for (int k = 0; k < NS; k++)
    for (int a = 0; a < 3; a++) wk->et[a][k] = v[3 * k + a];
  gradients_all_points(geo, wk->et, G);

  /* the Poisson part: c_I = sum_J Cv_IJ (g_J . v), g_J . v = (1/V) sum_q w_q Z_JJ(q) */
  double gv[3] = {0, 0, 0}, cI[3];
  for (int q = 0; q < NQ; q++)
    for (int J = 0; J < 3; J++) {
      const int r = 3 * q + J;
      gv[J] += geo->w[q] * (lin->H[0][r] * G[0][r] + lin->H[1][r] * G[1][r] + lin->H[2][r] * G[2][r]);
    }
  for (int I = 0; I < 3; I++) {
    double s = 0.0;
    for (int J = 0; J < 3; J++) s += (I == J ? cvd : cvo) * gv[J];
    cI[I] = s / geo->volume;
  }

  for (int q = 0; q < NQ; q++) {
    double F[3][3], H[3][3], Gq[3][3], Z[3][3], sig[3][3], S[3][3];
    const double *Sq = lin->S[q];
    for (int a = 0; a < 3; a++)
      for (int I = 0; I < 3; I++) {
        F[a][I]  = lin->F[a][3 * q + I];
        H[a][I]  = lin->H[a][3 * q + I];
        Gq[a][I] = G[a][3 * q + I];
      }
    for (int M = 0; M < 3; M++)
      for (int J = 0; J < 3; J++) Z[M][J] = H[0][M] * Gq[0][J] + H[1][M] * Gq[1][J] + H[2][M] * Gq[2][J];
    for (int K = 0; K < 3; K++)
      for (int I = 0; I < 3; I++) sig[K][I] = (K == I) ? Emod * Z[I][I] + cI[I] : mu * (Z[K][I] + Z[I][K]);
    S[0][0] = Sq[0];
    S[1][1] = Sq[1];
    S[2][2] = Sq[2];
    S[0][1] = S[1][0] = Sq[3];
    S[1][2] = S[2][1] = Sq[4];
    S[0][2] = S[2][0] = Sq[5];
    const double w = geo->w[q];
    for (int a = 0; a < 3; a++)
      for (int I = 0; I < 3; I++) {
        double t = 0.0;
        for (int J = 0; J < 3; J++) t += Gq[a][J] * S[J][I] + F[a][J] * sig[J][I];
        T[a][3 * q + I] = w * t;
      }
  }
  gradient_transpose_product(geo, (const double(*)[NRP])T, 0, 1, NULL, y);
  if (c_m != 0.0) {
    /* y_(k,a) += c_m sum_l M_kl v_(l,a): the rows k of M (symmetric) in vectors, half of them
       at a time so that the accumulators stay in registers */
    enum { HV = NSV / 2 > 0 ? NSV / 2 : 1 };
    vd acc[3][NSV];
    for (int j0 = 0; j0 < NSV; j0 += HV) {
      for (int a = 0; a < 3; a++)
        for (int j = j0; j < j0 + HV; j++) acc[a][j] = vsplat(0.0);
      for (int l = 0; l < NS; l++) {
        const vd v0 = vsplat(c_m * v[3 * l]), v1 = vsplat(c_m * v[3 * l + 1]), v2 = vsplat(c_m * v[3 * l + 2]);
        for (int j = j0; j < j0 + HV; j++) {
          const vd m = vload(&geo->mass_unit[l][j * VL]);
          acc[0][j] += v0 * m;
          acc[1][j] += v1 * m;
          acc[2][j] += v2 * m;
        }
      }
    }
    double my[ND];
    store_interleaved((const vd(*)[NSV])acc, my);
    for (int i = 0; i < ND; i++) y[i] += my[i];
  }
}
