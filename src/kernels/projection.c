/*
  Projection of film points onto the bounding surfaces, the normal rate of the projected point,
  and surface profiles (formulation.md §2, F6-F9).  Plain C: no PETSc, no allocation, no globals.

  Projection (F6).  A film point x and the unit reference normal n define the line x + s n.  With
  P = [t1; t2] (2 x 3) an orthonormal basis of the plane normal to n (P n = 0, P P^T = I, so
  P^T P = T = I - n n^T), the surface point r(u, v) lies on the line iff
      R(u, v) = P (r(u, v) - x) = 0,                                     (two equations)
  and then r - x = s n with s = n . (r - x).  For a face of an ANCF 3843 cell,
  r(u, v) = sum_k S_k(xi(u, v)) e_k with the face's fixed coordinate at -1 or +1 (F1); for a
  bilinear quad r = sum_k N_k(u, v) X_k.  Newton on (u, v):
      J = P r_uv (2 x 2),  J duv = -R,
  with r_uv = [dr/du, dr/dv].  det J = n . (r_u x r_v): J is singular exactly when the line is
  parallel to the surface, which is reported (-1) when |det J| <= 1e-10 |r_u| |r_v|.
  Globalisation, for strongly deformed (cubic) faces: the step is limited to |duv| <= 1 (half the
  face), and larger steps (|duv| > 1e-6) backtrack by halving until |R| decreases (Armijo,
  c = 1e-4, at most 12 halvings; the last trial is taken if none decreases, and the iteration
  limit decides).  An iterate with |u| or |v| > 4 has run off the face (the cubic extrapolation
  is meaningless there): -1, with the last iterate left in pt->uv so the caller sees the direction.
  Converged when |R| <= 1e-14 size + 4 eps |r - x| (size = the larger face edge; the second term
  is the rounding floor of R when x is far from the face) or when the Newton step |duv| < 1e-13
  (the step is then taken).  At most 20 Newton steps.  If Newton from the caller's guess fails,
  or converges outside the face from a guess outside it (spurious roots of the extrapolated cubic),
  it is run once more from the face centre and the better result kept (so at most 40 steps).
  r - x is accumulated as sum_{position k} S_k (e_k - x) + sum_{slope k} S_k e_k (the position
  functions sum to 1), so that its rounding scales with the element, not with |x|.

  Normal rate (F9).  For a film point x(t) (velocity xdot, zero for a fixed frame) and a surface
  moving with the material velocity v = sum_k S_k edot_k at the projected material point, the
  projected point slides: differentiating P(t) (r(uv(t), t) - x(t)) = 0,
      Pdot (r - x) + P (v + r_uv uvdot - xdot) = 0,   Pdot (r - x) = s Pdot n = -s P ndot,
      uvdot = (P r_uv)^-1 [ s P ndot - P (v - xdot) ],     rdot = v + r_uv uvdot,
  (ndot = 0 when the frame does not rotate, the F9 formula).  Since r - x = s n and n . ndot = 0,
      ds/dt = n . (rdot - xdot),
  so dh/dt of (F7) is n . (rdot_b - rdot_w) + dh_prof,w/dt + dh_prof,b/dt (n . xdot cancels),
  with dh_prof/dt = grad_X h_prof . X_uv uvdot through the slide of the material point (X_uv the
  reference-configuration tangents, sum_k dS_uv,k e_ref,k for an ANCF face).  n . rdot is
  affine in v with
      d(n . rdot)/dv = n - P^T (P r_uv)^-T (r_uv^T n),     d uvdot/dv = -(P r_uv)^-1 P.
  The result does not depend on the choice of t1, t2 (P -> Q P leaves (P r_uv)^-1 P unchanged).
  For a surface parallel to the reference, r_uv^T n = 0 and n . rdot = n . v.

  Profiles (F7): crown h = A (s/L)^2; chamfer h = A (|s| - (L - w))/w for |s| > L - w, else 0
  (C0 at |s| = L - w; the ramp is continued linearly beyond |s| = L so that points projected
  slightly outside the face, within the caller's tolerance, stay consistent); table: piecewise
  linear, constant beyond the ends.  s = axis . (X - center).
*/
#include "tribodyn/projection.h"

#include "tribodyn/ancf3843.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define PROJ_MAX_IT 20
#define PROJ_MAX_STEP 1.0
#define PROJ_MAX_UV 4.0
#define PROJ_SINGULAR 1e-10
#define PROJ_STEP_TOL 1e-13
#define PROJ_RES_TOL 1e-14
#define PROJ_LS_MIN_STEP 1e-6
#define PROJ_LS_MAX 12

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double norm3(const double a[3]) { return sqrt(dot3(a, a)); }

/* unit n and an orthonormal basis t1, t2 of the plane normal to it (t1 x t2 = n); -1 if n = 0 */
static int tangent_basis(const double n_in[3], double n[3], double t1[3], double t2[3])
{
  const double nn = norm3(n_in);
  if (!(nn > 0.0) || !isfinite(nn)) return -1;
  for (int i = 0; i < 3; i++) n[i] = n_in[i] / nn;
  /* the coordinate axis least aligned with n */
  int m = 0;
  if (fabs(n[1]) < fabs(n[m])) m = 1;
  if (fabs(n[2]) < fabs(n[m])) m = 2;
  double a[3] = {0.0, 0.0, 0.0};
  a[m] = 1.0;
  const double an = dot3(a, n);
  for (int i = 0; i < 3; i++) t1[i] = a[i] - an * n[i];
  const double tn = norm3(t1);
  for (int i = 0; i < 3; i++) t1[i] /= tn;
  t2[0] = n[1] * t1[2] - n[2] * t1[1];
  t2[1] = n[2] * t1[0] - n[0] * t1[2];
  t2[2] = n[0] * t1[1] - n[1] * t1[0];
  return 0;
}

/* The surface being projected on. */
typedef struct {
  int kind; /* 0 ANCF face, 1 bilinear quad */
  double h[3];
  int face;
  const double *e;
  const double (*corners)[3];
  const double *x;
} Surface;

/* r, r_uv, S, dS_uv, xi at uv, and d = r - x (accumulated relative to x) */
static void surface_eval(const Surface *sf, const double uv[2], FilmSurfacePoint *p, double d[3])
{
  p->uv[0] = uv[0];
  p->uv[1] = uv[1];
  const double *x = sf->x;
  for (int i = 0; i < 3; i++) {
    p->r[i] = d[i] = 0.0;
    p->r_uv[i][0] = p->r_uv[i][1] = 0.0;
  }
  if (sf->kind == 0) {
    const int fix = sf->face / 2;
    const int i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
    p->xi[fix] = (sf->face & 1) ? 1.0 : -1.0;
    p->xi[i0] = uv[0];
    p->xi[i1] = uv[1];
    double dSdX[3][ANCF3843_NSHAPE];
    ancf3843_shape(sf->h[0], sf->h[1], sf->h[2], p->xi, p->S);
    ancf3843_shape_gradient(sf->h[0], sf->h[1], sf->h[2], p->xi, dSdX);
    const double g0 = 0.5 * sf->h[i0], g1 = 0.5 * sf->h[i1]; /* dX/dxi */
    const double *e = sf->e;
    for (int k = 0; k < ANCF3843_NSHAPE; k++) {
      const double S = p->S[k], Su = dSdX[i0][k] * g0, Sv = dSdX[i1][k] * g1;
      p->dS_uv[0][k] = Su;
      p->dS_uv[1][k] = Sv;
      const int pos = (k & 3) == 0;
      for (int i = 0; i < 3; i++) {
        const double ek = e[3 * k + i];
        p->r[i] += S * ek;
        d[i] += S * (pos ? ek - x[i] : ek);
        p->r_uv[i][0] += Su * ek;
        p->r_uv[i][1] += Sv * ek;
      }
    }
  } else {
    const double u = uv[0], v = uv[1];
    const double N[4] = {0.25 * (1 - u) * (1 - v), 0.25 * (1 + u) * (1 - v), 0.25 * (1 + u) * (1 + v),
                         0.25 * (1 - u) * (1 + v)};
    const double Nu[4] = {-0.25 * (1 - v), 0.25 * (1 - v), 0.25 * (1 + v), -0.25 * (1 + v)};
    const double Nv[4] = {-0.25 * (1 - u), -0.25 * (1 + u), 0.25 * (1 + u), 0.25 * (1 - u)};
    memset(p->S, 0, sizeof(p->S));
    memset(p->dS_uv, 0, sizeof(p->dS_uv));
    p->xi[0] = u;
    p->xi[1] = v;
    p->xi[2] = 0.0;
    for (int k = 0; k < 4; k++) {
      p->S[k] = N[k];
      p->dS_uv[0][k] = Nu[k];
      p->dS_uv[1][k] = Nv[k];
      for (int i = 0; i < 3; i++) {
        const double X = sf->corners[k][i];
        p->r[i] += N[k] * X;
        d[i] += N[k] * (X - x[i]);
        p->r_uv[i][0] += Nu[k] * X;
        p->r_uv[i][1] += Nv[k] * X;
      }
    }
  }
}

static void residual(const double t1[3], const double t2[3], const double d[3], double R[2])
{
  R[0] = dot3(t1, d);
  R[1] = dot3(t2, d);
}

/* Newton for P (r(uv) - x) = 0 from pt->uv (F6); see the header comment */
static int project_newton(const Surface *sf, double size, const double n_in[3], double tol,
                          FilmSurfacePoint *pt)
{
  double n[3], t1[3], t2[3];
  FilmSurfacePoint cur, trial;
  double uv[2] = {pt->uv[0], pt->uv[1]};
  if (!isfinite(uv[0]) || !isfinite(uv[1])) uv[0] = uv[1] = 0.0;
  memset(&cur, 0, sizeof(cur));
  if (tangent_basis(n_in, n, t1, t2)) {
    *pt = cur;
    pt->s = NAN;
    return -1;
  }
  double d[3], R[2];
  surface_eval(sf, uv, &cur, d);
  residual(t1, t2, d, R);
  int it = 0, converged = 0;
  for (;;) {
    const double rn = hypot(R[0], R[1]);
    const double rtol = PROJ_RES_TOL * size + 4.0 * DBL_EPSILON * norm3(d);
    if (rn <= rtol) {
      converged = 1;
      break;
    }
    if (it >= PROJ_MAX_IT || !isfinite(rn)) break;
    double ru[3], rv[3];
    for (int i = 0; i < 3; i++) {
      ru[i] = cur.r_uv[i][0];
      rv[i] = cur.r_uv[i][1];
    }
    const double J00 = dot3(t1, ru), J01 = dot3(t1, rv), J10 = dot3(t2, ru), J11 = dot3(t2, rv);
    const double det = J00 * J11 - J01 * J10;
    if (!(fabs(det) > PROJ_SINGULAR * norm3(ru) * norm3(rv))) break; /* line parallel to surface */
    double du[2] = {-(J11 * R[0] - J01 * R[1]) / det, -(-J10 * R[0] + J00 * R[1]) / det};
    double step = hypot(du[0], du[1]);
    if (!isfinite(step)) break;
    if (step > PROJ_MAX_STEP) {
      du[0] *= PROJ_MAX_STEP / step;
      du[1] *= PROJ_MAX_STEP / step;
      step = PROJ_MAX_STEP;
    }
    it++;
    double lam = 1.0, uvt[2], dt[3], Rt[2];
    for (int ls = 0;; ls++) {
      uvt[0] = uv[0] + lam * du[0];
      uvt[1] = uv[1] + lam * du[1];
      surface_eval(sf, uvt, &trial, dt);
      residual(t1, t2, dt, Rt);
      if (step <= PROJ_LS_MIN_STEP || ls >= PROJ_LS_MAX) break;
      const double rnt = hypot(Rt[0], Rt[1]);
      if (rnt <= (1.0 - 1e-4 * lam) * rn) break;
      lam *= 0.5;
    }
    cur = trial;
    uv[0] = uvt[0];
    uv[1] = uvt[1];
    for (int i = 0; i < 3; i++) d[i] = dt[i];
    R[0] = Rt[0];
    R[1] = Rt[1];
    if (step < PROJ_STEP_TOL) {
      converged = 1;
      break;
    }
    if (fabs(uv[0]) > PROJ_MAX_UV || fabs(uv[1]) > PROJ_MAX_UV) break; /* ran off the face */
  }
  *pt = cur;
  pt->s = dot3(n, d);
  pt->iterations = it;
  if (!converged) return -1;
  return (fabs(uv[0]) <= 1.0 + tol && fabs(uv[1]) <= 1.0 + tol) ? 0 : 1;
}

/* Newton from the caller's guess; if that fails, or converges outside the face from a start
   outside it (the cubic extrapolation of a face has spurious roots out there), once more from the
   face centre, whose result is taken if it is better (inside, or converged where the first was
   not).  pt->iterations counts both runs. */
static int project(const Surface *sf, double size, const double n[3], double tol, FilmSurfacePoint *pt)
{
  const double u0 = pt->uv[0], v0 = pt->uv[1];
  const int start_outside = !(fabs(u0) <= 1.0 + tol && fabs(v0) <= 1.0 + tol); /* NaN: outside */
  const int ret = project_newton(sf, size, n, tol, pt);
  if (ret == 0 || (ret == 1 && !start_outside) || (u0 == 0.0 && v0 == 0.0)) return ret;
  FilmSurfacePoint q;
  q.uv[0] = q.uv[1] = 0.0;
  const int ret2 = project_newton(sf, size, n, tol, &q);
  q.iterations += pt->iterations;
  if (ret2 == 0 || (ret2 == 1 && ret == -1)) {
    *pt = q;
    return ret2;
  }
  pt->iterations = q.iterations;
  return ret;
}

int film_project_ancf_face(double a, double b, double c, int face, const double e[96],
                           const double x[3], const double n[3], double tol, FilmSurfacePoint *pt)
{
  if (face < 0 || face > 5) return -1;
  Surface sf = {0};
  sf.kind = 0;
  sf.h[0] = a;
  sf.h[1] = b;
  sf.h[2] = c;
  sf.face = face;
  sf.e = e;
  sf.x = x;
  const int fix = face / 2;
  const int i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
  const double size = fmax(sf.h[i0], sf.h[i1]);
  return project(&sf, size, n, tol, pt);
}

int film_project_bilinear(const double corners[4][3], const double x[3], const double n[3], double tol,
                          FilmSurfacePoint *pt)
{
  Surface sf = {0};
  sf.kind = 1;
  sf.corners = corners;
  sf.x = x;
  double d02[3], d13[3];
  for (int i = 0; i < 3; i++) {
    d02[i] = corners[2][i] - corners[0][i];
    d13[i] = corners[3][i] - corners[1][i];
  }
  const double size = fmax(norm3(d02), norm3(d13));
  return project(&sf, size, n, tol, pt);
}

int film_project_cylinder(const double p0[3], const double d_in[3], double R, const double x[3],
                          const double n_in[3], FilmSurfacePoint *pt)
{
  memset(pt, 0, sizeof(*pt));
  double n[3], t1[3], t2[3], d[3], e1[3], e2[3];
  if (tangent_basis(n_in, n, t1, t2) || tangent_basis(d_in, d, e1, e2) || !(R > 0.0)) {
    pt->s = NAN;
    return -1;
  }
  /* |w_perp + s n_perp|^2 = R^2 with the components normal to the axis */
  double w[3], wp[3], np[3];
  for (int i = 0; i < 3; i++) w[i] = x[i] - p0[i];
  const double wd = dot3(w, d), nd = dot3(n, d);
  for (int i = 0; i < 3; i++) {
    wp[i] = w[i] - wd * d[i];
    np[i] = n[i] - nd * d[i];
  }
  const double A = dot3(np, np), B = dot3(wp, np), C = dot3(wp, wp) - R * R;
  pt->s = NAN;
  if (!(A > 1e-24)) return -1; /* line parallel to the axis */
  const double disc = B * B - A * C;
  if (!(disc >= 0.0)) return -1; /* misses */
  const double q = -(B + copysign(sqrt(disc), B));
  double s;
  if (q == 0.0) s = 0.0; /* B = 0 and C = 0: x on the surface, tangent line */
  else {
    const double s1 = q / A, s2 = C / q;
    s = fabs(s1) <= fabs(s2) ? s1 : s2;
  }
  double rad[3];
  for (int i = 0; i < 3; i++) pt->r[i] = x[i] + s * n[i];
  for (int i = 0; i < 3; i++) rad[i] = wp[i] + s * np[i]; /* r - axis point, normal to d */
  const double z = wd + s * nd;
  const double theta = atan2(dot3(rad, e2), dot3(rad, e1));
  /* r(theta, z) = p0 + z d + R (cos theta e1 + sin theta e2), e2 = d x e1 */
  const double ct = cos(theta), st = sin(theta);
  for (int i = 0; i < 3; i++) {
    pt->r_uv[i][0] = R * (-st * e1[i] + ct * e2[i]);
    pt->r_uv[i][1] = d[i];
  }
  pt->uv[0] = theta;
  pt->uv[1] = z;
  pt->xi[0] = theta;
  pt->xi[1] = z;
  pt->xi[2] = 0.0;
  pt->s = s;
  pt->iterations = 0;
  return 0;
}

double film_point_normal_rate_frame(const FilmSurfacePoint *pt, const double n_in[3],
                                    const double ndot[3], const double v[3], const double xdot[3],
                                    double ddot_dv[3], double uvdot[2], double duvdot_dv[2][3])
{
  double n[3], t1[3], t2[3];
  if (tangent_basis(n_in, n, t1, t2)) return NAN;
  double ru[3], rv[3];
  for (int i = 0; i < 3; i++) {
    ru[i] = pt->r_uv[i][0];
    rv[i] = pt->r_uv[i][1];
  }
  const double J00 = dot3(t1, ru), J01 = dot3(t1, rv), J10 = dot3(t2, ru), J11 = dot3(t2, rv);
  const double det = J00 * J11 - J01 * J10;
  if (!(fabs(det) > PROJ_SINGULAR * norm3(ru) * norm3(rv))) {
    if (ddot_dv) ddot_dv[0] = ddot_dv[1] = ddot_dv[2] = NAN;
    if (uvdot) uvdot[0] = uvdot[1] = NAN;
    if (duvdot_dv)
      for (int i = 0; i < 3; i++) duvdot_dv[0][i] = duvdot_dv[1][i] = NAN;
    return NAN;
  }
  /* g = P (v - xdot) - s P ndot,  uvdot = -J^-1 g */
  double w[3];
  for (int i = 0; i < 3; i++) w[i] = v[i] - (xdot ? xdot[i] : 0.0) - (ndot ? pt->s * ndot[i] : 0.0);
  const double g0 = dot3(t1, w), g1 = dot3(t2, w);
  const double ud[2] = {-(J11 * g0 - J01 * g1) / det, -(-J10 * g0 + J00 * g1) / det};
  double rate = 0.0;
  for (int i = 0; i < 3; i++) rate += n[i] * (v[i] + ru[i] * ud[0] + rv[i] * ud[1]);
  if (uvdot) {
    uvdot[0] = ud[0];
    uvdot[1] = ud[1];
  }
  if (ddot_dv) {
    /* n - P^T J^-T m,  m = r_uv^T n */
    const double m0 = dot3(ru, n), m1 = dot3(rv, n);
    const double y0 = (J11 * m0 - J10 * m1) / det, y1 = (-J01 * m0 + J00 * m1) / det;
    for (int i = 0; i < 3; i++) ddot_dv[i] = n[i] - y0 * t1[i] - y1 * t2[i];
  }
  if (duvdot_dv) {
    /* -J^-1 P */
    for (int i = 0; i < 3; i++) {
      duvdot_dv[0][i] = -(J11 * t1[i] - J01 * t2[i]) / det;
      duvdot_dv[1][i] = -(-J10 * t1[i] + J00 * t2[i]) / det;
    }
  }
  return rate;
}

double film_point_normal_rate(const FilmSurfacePoint *pt, const double n[3], const double v[3],
                              const double xdot[3], double ddot_dv[3], double uvdot[2])
{
  return film_point_normal_rate_frame(pt, n, NULL, v, xdot, ddot_dv, uvdot, NULL);
}

double film_profile_eval(const FilmProfile *prof, const double X[3], double dhdX[3])
{
  double h = 0.0, dhds = 0.0;
  if (dhdX) dhdX[0] = dhdX[1] = dhdX[2] = 0.0;
  if (!prof) return 0.0;
  double Xc[3];
  for (int i = 0; i < 3; i++) Xc[i] = X[i] - prof->center[i];
  const double s = dot3(prof->axis, Xc);
  switch (prof->type) {
  case FILM_PROFILE_CROWN:
    if (prof->half_length > 0.0) {
      const double L2 = prof->half_length * prof->half_length;
      h = prof->amplitude * s * s / L2;
      dhds = 2.0 * prof->amplitude * s / L2;
    }
    break;
  case FILM_PROFILE_CHAMFER:
    if (prof->width > 0.0) {
      const double s0 = prof->half_length - prof->width, as = fabs(s);
      if (as > s0) {
        h = prof->amplitude * (as - s0) / prof->width;
        dhds = copysign(prof->amplitude / prof->width, s);
      }
    }
    break;
  case FILM_PROFILE_TABLE: {
    const int m = prof->ntable;
    const double *ts = prof->table_s, *th = prof->table_h;
    if (m <= 0 || !ts || !th) break;
    if (m == 1 || s <= ts[0]) {
      h = th[0];
      break;
    }
    if (s >= ts[m - 1]) {
      h = th[m - 1];
      break;
    }
    int lo = 0, hi = m - 1; /* ts[lo] <= s < ts[hi] */
    while (hi - lo > 1) {
      const int mid = (lo + hi) / 2;
      if (ts[mid] <= s) lo = mid;
      else hi = mid;
    }
    const double ds = ts[hi] - ts[lo];
    if (ds > 0.0) {
      dhds = (th[hi] - th[lo]) / ds;
      h = th[lo] + dhds * (s - ts[lo]);
    } else h = th[lo];
  } break;
  default:
    break;
  }
  if (dhdX)
    for (int i = 0; i < 3; i++) dhdX[i] = dhds * prof->axis[i];
  return h;
}
