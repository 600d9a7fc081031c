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
  (the step is then taken).  A Newton step |duv| <= 1e-8 is the last: it is taken to first order,
  r += r_uv duv, S_k += dS_k/duv duv, without evaluating the face again.  On an ANCF face r and S
  are then exact to O(|duv|^2) = 1e-16 (below the tolerance on R), and r_uv and dS_uv are those
  of the previous iterate, 1e-8 away (a relative error of about 1e-8 in what only the rates and
  the Jacobian use); on a bilinear quad the step is exact (its second derivative is the twist).
  Warm-started projections mostly end with such a step (the film point moved by about 1e-3 of
  the face since the last call: the step after it is about 1e-10, or the first step is already
  tiny on a face that only deforms), so this saves a quarter of the face evaluations.  At most
  20 Newton steps.  If Newton from the caller's guess fails,
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
#include <tribodyn/vec3.h>

#include <float.h>
#include <math.h>
#include <string.h>

#define PROJ_MAX_IT 20
#define PROJ_MAX_STEP 1.0
#define PROJ_MAX_UV 4.0
#define PROJ_SINGULAR 1e-10
#define PROJ_STEP_TOL 1e-13
#define PROJ_LINEAR_STEP 1e-8
#define PROJ_RES_TOL 1e-14
#define PROJ_LS_MIN_STEP 1e-6
#define PROJ_LS_MAX 12

/* unit n and an orthonormal basis t1, t2 of the plane normal to it (t1 x t2 = n); -1 if n = 0.
   t1 is e_m - n_m n normalised, e_m the coordinate axis least aligned with n.  Written on scalars
   (the axis picked by selects, one rounding per component of e_m - n_m n by fma) so that nothing
   goes through memory: the version on small arrays indexed by m stalled on store forwarding, in a
   function called two or three times per projected point. */
static int tangent_basis(const double n_in[3], double n[3], double t1[3], double t2[3])
{
  const double nn = vec3_norm(n_in);
  if (!(nn > 0.0) || !isfinite(nn)) return -1;
  const double u0 = n_in[0] / nn, u1 = n_in[1] / nn, u2 = n_in[2] / nn;
  int m = 0;
  double um = u0; /* n_m = e_m . n */
  if (fabs(u1) < fabs(um)) {
    m = 1;
    um = u1;
  }
  if (fabs(u2) < fabs(um)) {
    m = 2;
    um = u2;
  }
  const double w[3] = {fma(-um, u0, m == 0 ? 1.0 : 0.0), fma(-um, u1, m == 1 ? 1.0 : 0.0), fma(-um, u2, m == 2 ? 1.0 : 0.0)};
  const double tn = vec3_norm(w);
  const double w0 = w[0] / tn, w1 = w[1] / tn, w2 = w[2] / tn;
  n[0] = u0;
  n[1] = u1;
  n[2] = u2;
  t1[0] = w0;
  t1[1] = w1;
  t1[2] = w2;
  t2[0] = u1 * w2 - u2 * w1;
  t2[1] = u2 * w0 - u0 * w2;
  t2[2] = u0 * w1 - u1 * w0;
  return 0;
}

void film_line_init(const double n[3], FilmLine *line)
{
  line->ok = tangent_basis(n, line->n, line->t1, line->t2) == 0;
  if (!line->ok)
    for (int i = 0; i < 3; i++) line->n[i] = line->t1[i] = line->t2[i] = NAN;
}

/* The surface being projected on.  An ANCF face is set up once per projection (face_setup):
   its 12 active functions' coordinates gathered (E), with x taken off the position functions'
   (Ed: r - x = sum S_k Ed_k, the header comment), and the in-face signs of its 4 nodes, so that
   an evaluation forms only what the face needs. */
typedef struct {
  int kind; /* 0 ANCF face, 1 bilinear quad */
  double h[3];
  int face;
  int active[ANCF3843_FACE_NSHAPE]; /* ANCF face: the shape functions that can be nonzero on it */
  const double *e;
  const double (*corners)[3];
  const double *x;
  /* ANCF face (face_setup) */
  int fix, i0, i1;                          /* fixed and free element coordinates */
  double tu[4], tv[4];                      /* the face nodes' signs along the free ones */
  double cu, cv;                            /* h[i0]/16, h[i1]/16: slope factors h/32 times L_fix = 2 */
  double E[ANCF3843_FACE_NSHAPE][3], Ed[ANCF3843_FACE_NSHAPE][3];
} Surface;

static void face_setup(Surface *sf)
{
  const int fix = sf->face / 2, side = sf->face & 1;
  sf->fix = fix;
  sf->i0 = fix == 0 ? 1 : 0;
  sf->i1 = fix == 2 ? 1 : 2;
  sf->cu = sf->h[sf->i0] / 16.0;
  sf->cv = sf->h[sf->i1] / 16.0;
  ancf3843_face_shapes(sf->face, sf->active);
  for (int nd = 0, c = 0; nd < ANCF3843_NODES; nd++) {
    if (((nd >> fix) & 1) != side) continue;
    sf->tu[c] = ((nd >> sf->i0) & 1) ? 1.0 : -1.0;
    sf->tv[c] = ((nd >> sf->i1) & 1) ? 1.0 : -1.0;
    c++;
  }
  for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++) {
    const int k = sf->active[j], pos = (k & 3) == 0;
    for (int i = 0; i < 3; i++) {
      sf->E[j][i] = sf->e[3 * k + i];
      sf->Ed[j][i] = pos ? sf->e[3 * k + i] - sf->x[i] : sf->e[3 * k + i];
    }
  }
}

/* r, r_uv, S, dS_uv, xi at uv, and d = r - x (accumulated relative to x).  On an ANCF face only
   the entries of S and dS_uv of the face's 12 active functions are written: the caller clears p
   once, and the other 20 stay 0, which they are exactly (ancf3843.h).  Skipping them leaves every
   sum unchanged (each skipped term is an exact 0).
   The face's functions (F1) written on the face: with U, V the free coordinates (xi_i0, xi_i1),
   a face node's signs t_u, t_v (its sign along the fixed coordinate equals the face's, so that
   linear factor is 2), L_u = 1 + U t_u, L_v = 1 + V t_v and g = 2 + U t_u + V t_v - U^2 - V^2
   (= 2 + xi . xi_n - |xi|^2 on the face):
     position      S = L_u L_v g / 8,  S_U = L_v (t_u g + L_u (t_u - 2 U)) / 8,  S_V likewise;
     slope along U S = (h_U/16) p_u L_v,  S_U = (h_U/16) p_u' L_v,  S_V = (h_U/16) p_u t_v,
                   p_u = t_u L_u^2 (U t_u - 1),  p_u' = L_u (3 U t_u - 1);  along V likewise.
   The same functions as ancf3843_face_shape_and_gradient, formed directly on the face and in
   face coordinates (equal to rounding; that routine goes through the material gradients). */
static void surface_eval(const Surface *sf, const double uv[2], FilmSurfacePoint *p, double d[3])
{
  p->uv[0] = uv[0];
  p->uv[1] = uv[1];
  const double *x = sf->x;
  if (sf->kind == 0) {
    const double U = uv[0], V = uv[1];
    p->xi[sf->fix] = (sf->face & 1) ? 1.0 : -1.0;
    p->xi[sf->i0] = U;
    p->xi[sf->i1] = V;
    const double g0 = 2.0 - U * U - V * V;
    double S[ANCF3843_FACE_NSHAPE], Su[ANCF3843_FACE_NSHAPE], Sv[ANCF3843_FACE_NSHAPE];
    for (int c = 0; c < 4; c++) {
      const double tu = sf->tu[c], tv = sf->tv[c];
      const double Lu = 1.0 + U * tu, Lv = 1.0 + V * tv, g = g0 + U * tu + V * tv;
      const double pu = tu * Lu * Lu * (U * tu - 1.0), pv = tv * Lv * Lv * (V * tv - 1.0);
      S[3 * c] = 0.125 * Lu * Lv * g;
      Su[3 * c] = 0.125 * Lv * (tu * g + Lu * (tu - 2.0 * U));
      Sv[3 * c] = 0.125 * Lu * (tv * g + Lv * (tv - 2.0 * V));
      S[3 * c + 1] = sf->cu * pu * Lv;
      Su[3 * c + 1] = sf->cu * Lu * (3.0 * U * tu - 1.0) * Lv;
      Sv[3 * c + 1] = sf->cu * pu * tv;
      S[3 * c + 2] = sf->cv * pv * Lu;
      Su[3 * c + 2] = sf->cv * pv * tu;
      Sv[3 * c + 2] = sf->cv * Lv * (3.0 * V * tv - 1.0) * Lu;
    }
    double r[3] = {0, 0, 0}, dd[3] = {0, 0, 0}, ru[3] = {0, 0, 0}, rv[3] = {0, 0, 0};
    for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++) {
      const int k = sf->active[j];
      p->S[k] = S[j];
      p->dS_uv[0][k] = Su[j];
      p->dS_uv[1][k] = Sv[j];
      for (int i = 0; i < 3; i++) {
        r[i] += S[j] * sf->E[j][i];
        dd[i] += S[j] * sf->Ed[j][i];
        ru[i] += Su[j] * sf->E[j][i];
        rv[i] += Sv[j] * sf->E[j][i];
      }
    }
    for (int i = 0; i < 3; i++) {
      p->r[i] = r[i];
      d[i] = dd[i];
      p->r_uv[i][0] = ru[i];
      p->r_uv[i][1] = rv[i];
    }
  } else {
    for (int i = 0; i < 3; i++) {
      p->r[i] = d[i] = 0.0;
      p->r_uv[i][0] = p->r_uv[i][1] = 0.0;
    }
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

/* p (evaluated at p->uv, with d = r - x) moved to p->uv + du: an ANCF face to first order (the
   header comment; r_uv and dS_uv stay), a bilinear quad exactly */
static void surface_step_linear(const Surface *sf, const double du[2], FilmSurfacePoint *p, double d[3])
{
  p->uv[0] += du[0];
  p->uv[1] += du[1];
  for (int i = 0; i < 3; i++) {
    const double dr = p->r_uv[i][0] * du[0] + p->r_uv[i][1] * du[1];
    p->r[i] += dr;
    d[i] += dr;
  }
  if (sf->kind == 0) {
    const int fix = sf->face / 2;
    const int i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
    p->xi[i0] = p->uv[0];
    p->xi[i1] = p->uv[1];
    for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++) {
      const int k = sf->active[j];
      p->S[k] += p->dS_uv[0][k] * du[0] + p->dS_uv[1][k] * du[1];
    }
  } else {
    /* bilinear: exact, with the twist term d2N_k/dudv = sg_k / 4 (r_uv and dS_uv updated too) */
    const double sg[4] = {0.25, -0.25, 0.25, -0.25};
    p->xi[0] = p->uv[0];
    p->xi[1] = p->uv[1];
    for (int k = 0; k < 4; k++) {
      p->S[k] += p->dS_uv[0][k] * du[0] + p->dS_uv[1][k] * du[1] + sg[k] * du[0] * du[1];
      p->dS_uv[0][k] += sg[k] * du[1];
      p->dS_uv[1][k] += sg[k] * du[0];
    }
    for (int i = 0; i < 3; i++) {
      double twist = 0.0;
      for (int k = 0; k < 4; k++) twist += sg[k] * sf->corners[k][i];
      p->r[i] += twist * du[0] * du[1];
      d[i] += twist * du[0] * du[1];
      p->r_uv[i][0] += twist * du[1];
      p->r_uv[i][1] += twist * du[0];
    }
  }
}

static void residual(const double t1[3], const double t2[3], const double d[3], double R[2])
{
  R[0] = vec3_dot(t1, d);
  R[1] = vec3_dot(t2, d);
}

/* *pt = *p with the inactive shape functions of an ANCF face (left unset by surface_eval) 0:
   the whole point is 900 bytes, of which an ANCF face sets a third */
static void point_result(const Surface *sf, const FilmSurfacePoint *p, FilmSurfacePoint *pt)
{
  if (sf->kind != 0) {
    *pt = *p;
    return;
  }
  pt->uv[0] = p->uv[0];
  pt->uv[1] = p->uv[1];
  for (int i = 0; i < 3; i++) {
    pt->xi[i] = p->xi[i];
    pt->r[i] = p->r[i];
    pt->r_uv[i][0] = p->r_uv[i][0];
    pt->r_uv[i][1] = p->r_uv[i][1];
  }
  memset(pt->S, 0, sizeof(pt->S));
  memset(pt->dS_uv, 0, sizeof(pt->dS_uv));
  for (int j = 0; j < ANCF3843_FACE_NSHAPE; j++) {
    const int k = sf->active[j];
    pt->S[k] = p->S[k];
    pt->dS_uv[0][k] = p->dS_uv[0][k];
    pt->dS_uv[1][k] = p->dS_uv[1][k];
  }
}

/* Newton for P (r(uv) - x) = 0 from pt->uv (F6); see the header comment */
static int project_newton(const Surface *sf, double size, const FilmLine *line, double tol,
                          FilmSurfacePoint *pt)
{
  const double *n = line->n, *t1 = line->t1, *t2 = line->t2;
  /* the current point and the trial of the line search, swapped rather than copied (the point
     is large).  Not cleared: surface_eval writes every field but an ANCF face's 20 inactive
     shape functions, which point_result sets to 0 in the result */
  FilmSurfacePoint buf[2], *cur = &buf[0], *trial = &buf[1];
  double uv[2] = {pt->uv[0], pt->uv[1]};
  if (!isfinite(uv[0]) || !isfinite(uv[1])) uv[0] = uv[1] = 0.0;
  if (!line->ok) {
    memset(pt, 0, sizeof(*pt));
    pt->s = NAN;
    return -1;
  }
  double d[3], R[2];
  surface_eval(sf, uv, cur, d);
  residual(t1, t2, d, R);
  int it = 0, converged = 0;
  for (;;) {
    const double rn = sqrt(R[0] * R[0] + R[1] * R[1]); /* moderate sizes: no need of hypot's scaling */
    const double rtol = PROJ_RES_TOL * size + 4.0 * DBL_EPSILON * vec3_norm(d);
    if (rn <= rtol) {
      converged = 1;
      break;
    }
    if (it >= PROJ_MAX_IT || !isfinite(rn)) break;
    double ru[3], rv[3];
    for (int i = 0; i < 3; i++) {
      ru[i] = cur->r_uv[i][0];
      rv[i] = cur->r_uv[i][1];
    }
    const double J00 = vec3_dot(t1, ru), J01 = vec3_dot(t1, rv), J10 = vec3_dot(t2, ru), J11 = vec3_dot(t2, rv);
    const double det = J00 * J11 - J01 * J10;
    if (!(fabs(det) > PROJ_SINGULAR * vec3_norm(ru) * vec3_norm(rv))) break; /* line parallel to surface */
    double du[2] = {-(J11 * R[0] - J01 * R[1]) / det, -(-J10 * R[0] + J00 * R[1]) / det};
    double step = sqrt(du[0] * du[0] + du[1] * du[1]);
    if (!isfinite(step)) break;
    if (step > PROJ_MAX_STEP) {
      du[0] *= PROJ_MAX_STEP / step;
      du[1] *= PROJ_MAX_STEP / step;
      step = PROJ_MAX_STEP;
    }
    it++;
    if (step <= PROJ_LINEAR_STEP) {
      /* the last step, to first order (the header comment) */
      surface_step_linear(sf, du, cur, d);
      uv[0] = cur->uv[0];
      uv[1] = cur->uv[1];
      converged = 1;
      break;
    }
    double lam = 1.0, uvt[2], dt[3], Rt[2];
    for (int ls = 0;; ls++) {
      uvt[0] = uv[0] + lam * du[0];
      uvt[1] = uv[1] + lam * du[1];
      surface_eval(sf, uvt, trial, dt);
      residual(t1, t2, dt, Rt);
      if (step <= PROJ_LS_MIN_STEP || ls >= PROJ_LS_MAX) break;
      const double rnt = sqrt(Rt[0] * Rt[0] + Rt[1] * Rt[1]);
      if (rnt <= (1.0 - 1e-4 * lam) * rn) break;
      lam *= 0.5;
    }
    FilmSurfacePoint *const accepted = trial;
    trial = cur;
    cur = accepted;
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
  point_result(sf, cur, pt);
  pt->s = vec3_dot(n, d);
  pt->iterations = it;
  if (!converged) return -1;
  return (fabs(uv[0]) <= 1.0 + tol && fabs(uv[1]) <= 1.0 + tol) ? 0 : 1;
}

/* Newton from the caller's guess; if that fails, or converges outside the face from a start
   outside it (the cubic extrapolation of a face has spurious roots out there), once more from the
   face centre, whose result is taken if it is better (inside, or converged where the first was
   not).  pt->iterations counts both runs. */
static int project(const Surface *sf, double size, const FilmLine *line, double tol, FilmSurfacePoint *pt)
{
  const double u0 = pt->uv[0], v0 = pt->uv[1];
  const int start_outside = !(fabs(u0) <= 1.0 + tol && fabs(v0) <= 1.0 + tol); /* NaN: outside */
  const int ret = project_newton(sf, size, line, tol, pt);
  if (ret == 0 || (ret == 1 && !start_outside) || (u0 == 0.0 && v0 == 0.0)) return ret;
  FilmSurfacePoint q;
  q.uv[0] = q.uv[1] = 0.0;
  const int ret2 = project_newton(sf, size, line, tol, &q);
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
  FilmLine line;
  film_line_init(n, &line);
  return film_project_ancf_face_line(a, b, c, face, e, x, &line, tol, pt);
}

int film_project_ancf_face_line(double a, double b, double c, int face, const double e[96],
                                const double x[3], const FilmLine *line, double tol, FilmSurfacePoint *pt)
{
  if (face < 0 || face > 5) return -1;
  Surface sf;
  sf.kind = 0;
  sf.h[0] = a;
  sf.h[1] = b;
  sf.h[2] = c;
  sf.face = face;
  sf.e = e;
  sf.x = x;
  face_setup(&sf);
  const int fix = face / 2;
  const int i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
  const double size = fmax(sf.h[i0], sf.h[i1]);
  return project(&sf, size, line, tol, pt);
}

int film_project_bilinear(const double corners[4][3], const double x[3], const double n[3], double tol,
                          FilmSurfacePoint *pt)
{
  FilmLine line;
  film_line_init(n, &line);
  return film_project_bilinear_line(corners, x, &line, tol, pt);
}

int film_project_bilinear_line(const double corners[4][3], const double x[3], const FilmLine *line, double tol,
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
  const double size = fmax(vec3_norm(d02), vec3_norm(d13));
  return project(&sf, size, line, tol, pt);
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
  const double wd = vec3_dot(w, d), nd = vec3_dot(n, d);
  for (int i = 0; i < 3; i++) {
    wp[i] = w[i] - wd * d[i];
    np[i] = n[i] - nd * d[i];
  }
  const double A = vec3_dot(np, np), B = vec3_dot(wp, np), C = vec3_dot(wp, wp) - R * R;
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
  const double theta = atan2(vec3_dot(rad, e2), vec3_dot(rad, e1));
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
  FilmLine line;
  film_line_init(n_in, &line);
  return film_point_normal_rate_line(pt, &line, ndot, v, xdot, ddot_dv, uvdot, duvdot_dv);
}

double film_point_normal_rate_line(const FilmSurfacePoint *pt, const FilmLine *line, const double ndot[3],
                                   const double v[3], const double xdot[3], double ddot_dv[3], double uvdot[2],
                                   double duvdot_dv[2][3])
{
  return film_point_normal_rate_tangents((const double(*)[2])pt->r_uv, pt->s, line, ndot, v, xdot, ddot_dv, uvdot, duvdot_dv);
}

double film_point_normal_rate_tangents(const double r_uv[3][2], double s, const FilmLine *line, const double ndot[3],
                                       const double v[3], const double xdot[3], double ddot_dv[3], double uvdot[2],
                                       double duvdot_dv[2][3])
{
  const double *n = line->n, *t1 = line->t1, *t2 = line->t2;
  if (!line->ok) return NAN;
  double ru[3], rv[3];
  for (int i = 0; i < 3; i++) {
    ru[i] = r_uv[i][0];
    rv[i] = r_uv[i][1];
  }
  const double J00 = vec3_dot(t1, ru), J01 = vec3_dot(t1, rv), J10 = vec3_dot(t2, ru), J11 = vec3_dot(t2, rv);
  const double det = J00 * J11 - J01 * J10;
  if (!(fabs(det) > PROJ_SINGULAR * vec3_norm(ru) * vec3_norm(rv))) {
    if (ddot_dv) ddot_dv[0] = ddot_dv[1] = ddot_dv[2] = NAN;
    if (uvdot) uvdot[0] = uvdot[1] = NAN;
    if (duvdot_dv)
      for (int i = 0; i < 3; i++) duvdot_dv[0][i] = duvdot_dv[1][i] = NAN;
    return NAN;
  }
  /* g = P (v - xdot) - s P ndot,  uvdot = -J^-1 g */
  double w[3];
  for (int i = 0; i < 3; i++) w[i] = v[i] - (xdot ? xdot[i] : 0.0) - (ndot ? s * ndot[i] : 0.0);
  const double g0 = vec3_dot(t1, w), g1 = vec3_dot(t2, w);
  const double ud[2] = {-(J11 * g0 - J01 * g1) / det, -(-J10 * g0 + J00 * g1) / det};
  double rate = 0.0;
  for (int i = 0; i < 3; i++) rate += n[i] * (v[i] + ru[i] * ud[0] + rv[i] * ud[1]);
  if (uvdot) {
    uvdot[0] = ud[0];
    uvdot[1] = ud[1];
  }
  if (ddot_dv) {
    /* n - P^T J^-T m,  m = r_uv^T n */
    const double m0 = vec3_dot(ru, n), m1 = vec3_dot(rv, n);
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
  const double s = vec3_dot(prof->axis, Xc);
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

/*
  Linearisation of a projected ANCF face point (film_linearize_ancf_face, for the coupled Jacobian
  of formulation.md §6).  At the converged point, with J = P r_uv (2 x 2), A = J^-1 P (2 x 3),
  m = r_uv^T n and g = n - A^T m (= ddot_dv of film_point_normal_rate), and a variation of the
  nodal vector e_k along axis i (de_k = eps e_i):
      P (S_k e_i + r_uv duv) = 0             =>  duv/de_(k,i)  = -S_k A[:, i]
      nr = n . r                             =>  dnr/de_(k,i)  = S_k n_i + m . duv = S_k g_i
  Rate (F9, frame not rotating): uvdot = -A w, w = v - xdot, rate = n . (v + r_uv uvdot).  Any
  variation of r_uv and v gives d uvdot = -A (d r_uv uvdot + d v), hence
      d rate = g . (d v + d r_uv uvdot),
  with d v = v_uv duv (+ S_k e_i for edot_k) and d r_uv uvdot = (dS_uv,k . uvdot) e_i +
  r_uvuv[uvdot] duv (r_uvuv = sum_k d2S/duv2 e_k, v_uv = sum_k dS_uv,k edot_k).  With
  W = v_uv + r_uvuv[uvdot] (3 x 2, column b: v_,b + sum_a uvdot_a r_,ab):
      drate/dedot_(k,i) = S_k g_i,   drate/de_(k,i) = g_i (dS_uv,k . uvdot) + (g^T W) . duv.
      dv/de_(k,i) = v_uv duv.
  Profile: X* = sum S_k eref_k, q = X*_uv^T grad h (2-vector), prof = h(X*), prof_rate = q . uvdot:
      dprof/de = q . duv,
      dprof_rate = dq . uvdot + q . d uvdot,  dq_a = X*_,a^T H X*_,b duv_b + grad h . X*_,ab duv_b,
  with H the Hessian of h_prof; with p = A^T q:
      dprof_rate/dedot_(k,i) = -S_k p_i,
      dprof_rate/de_(k,i) = -p_i (dS_uv,k . uvdot) + d . duv,
      d_b = (X*_uv uvdot)^T H X*_,b + sum_a uvdot_a grad h . X*_,ab - p . W_b.
  The second derivatives of the shape functions along the face are those of (F1) with respect to
  the two free element coordinates (u, v are xi, eta or zeta themselves, so the slope functions
  keep their factor a/32, b/32, c/32 as in dS_uv).  The Hessian of a chamfer or table profile is
  zero almost everywhere (piecewise linear); that of a crown is 2 A/L^2 axis axis^T.
  If the face index or n is invalid, or P r_uv is singular, every output is NaN.
*/

/* Second derivatives along face `face` (free coordinates p < q, fixed coordinate xi[face / 2] =
   +-1) of its 12 active shape functions (ancf3843_face_shapes, same order): d2S[0][j] =
   d2S_k/dp2, d2S[1][j] = d2S_k/dp dq, d2S[2][j] = d2S_k/dq2 (F1).  The other 20 functions vanish
   on the face with all their in-face derivatives (ancf3843.h).  Written on the face as the
   values in surface_eval (U = xi_p, V = xi_q, a face node's signs t_u, t_v, L_u = 1 + U t_u,
   L_v = 1 + V t_v, g = 2 + U t_u + V t_v - U^2 - V^2, the fixed linear factor 2):
     position      S_UU = -(3/4) U t_u L_v,  S_UV = (t_v (t_u g + L_u (t_u - 2U)) + L_v t_u (t_v - 2V)) / 8,
                   S_VV = -(3/4) V t_v L_u;
     slope along U S_UU = (h_U/16) p_u'' L_v,  S_UV = (h_U/16) p_u' t_v,  S_VV = 0,
                   p_u' = L_u (3 U t_u - 1),  p_u'' = t_u (6 U t_u + 2);  along V likewise. */
static void shape_hessian_face(const double h[3], int face, const double xi[3], double d2S[3][ANCF3843_FACE_NSHAPE])
{
  const int fix = face / 2, side = face & 1;
  const int i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2; /* the free coordinates */
  const double U = xi[i0], V = xi[i1], cu = h[i0] / 16.0, cv = h[i1] / 16.0;
  const double g0 = 2.0 - U * U - V * V;
  int c = 0;
  for (int nd = 0; nd < ANCF3843_NODES; nd++) {
    if (((nd >> fix) & 1) != side) continue;
    const double tu = ((nd >> i0) & 1) ? 1.0 : -1.0, tv = ((nd >> i1) & 1) ? 1.0 : -1.0;
    const double Lu = 1.0 + U * tu, Lv = 1.0 + V * tv, g = g0 + U * tu + V * tv;
    d2S[0][3 * c] = -0.75 * U * tu * Lv;
    d2S[1][3 * c] = 0.125 * (tv * (tu * g + Lu * (tu - 2.0 * U)) + Lv * tu * (tv - 2.0 * V));
    d2S[2][3 * c] = -0.75 * V * tv * Lu;
    d2S[0][3 * c + 1] = cu * tu * (6.0 * U * tu + 2.0) * Lv;
    d2S[1][3 * c + 1] = cu * Lu * (3.0 * U * tu - 1.0) * tv;
    d2S[2][3 * c + 1] = 0.0;
    d2S[0][3 * c + 2] = 0.0;
    d2S[1][3 * c + 2] = cv * Lv * (3.0 * V * tv - 1.0) * tu;
    d2S[2][3 * c + 2] = cv * tv * (6.0 * V * tv + 2.0) * Lu;
    c++;
  }
}

/* Hessian of film_profile_eval with respect to X (crown: constant; chamfer, table: piecewise
   linear, zero almost everywhere; none: zero). */
static void profile_hessian(const FilmProfile *prof, double H[3][3])
{
  for (int i = 0; i < 3; i++) H[i][0] = H[i][1] = H[i][2] = 0.0;
  if (!prof || prof->type != FILM_PROFILE_CROWN || !(prof->half_length > 0.0)) return;
  const double f = 2.0 * prof->amplitude / (prof->half_length * prof->half_length);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) H[i][j] = f * prof->axis[i] * prof->axis[j];
}

void film_linearize_ancf_face(double a, double b, double c, int face, const double e[96], const double edot[96],
                              const double eref[96], const FilmProfile *prof, const double x[3], const double n_in[3],
                              const double xdot[3], const FilmSurfacePoint *pt, FilmFaceLinearization *lin)
{
  FilmLine line;
  film_line_init(n_in, &line);
  film_linearize_ancf_face_line(a, b, c, face, e, edot, eref, prof, x, &line, xdot, pt, lin);
}

/* The profile's part of the linearisation (F6-F9 with h_prof(X*(uv))): the factors of
   dprof_de = qp . duv_de, dprofrate_de = -pp (x) dS.uvdot + dd . duv_de and
   dprofrate_dedot = -S (x) pp, from X*, X*_uv, X*_uvuv over the reference coordinates. */
static void profile_terms(const double eref[96], const FilmProfile *prof, const int act[ANCF3843_FACE_NSHAPE],
                          const double *S, const double *Su, const double *Sv, const double d2S[3][ANCF3843_FACE_NSHAPE],
                          const double A[2][3], const double ud[2], const double W[3][2], double qp[2], double pp[3],
                          double dd[2])
{
  enum { NA = ANCF3843_FACE_NSHAPE };
  double X[3] = {0, 0, 0}, Xu[3][2] = {{0, 0}, {0, 0}, {0, 0}}, X2[3][2][2];
  memset(X2, 0, sizeof(X2));
  /* over all 32 functions (the second derivatives scattered, 0 off the face): gcc vectorises
     this loop, adding rounded products in order; a loop over the 12 would fuse multiply-adds
     and change the last bits of the profile terms against the whole-cell evaluation */
  double d2full[3][ANCF3843_NSHAPE];
  memset(d2full, 0, sizeof(d2full));
  for (int ja = 0; ja < NA; ja++)
    for (int pq = 0; pq < 3; pq++) d2full[pq][act[ja]] = d2S[pq][ja];
  for (int k = 0; k < ANCF3843_NSHAPE; k++)
    for (int i = 0; i < 3; i++) {
      const double ek = eref[3 * k + i];
      X[i] += S[k] * ek;
      Xu[i][0] += Su[k] * ek;
      Xu[i][1] += Sv[k] * ek;
      X2[i][0][0] += d2full[0][k] * ek;
      X2[i][0][1] += d2full[1][k] * ek;
      X2[i][1][1] += d2full[2][k] * ek;
    }
  for (int i = 0; i < 3; i++) X2[i][1][0] = X2[i][0][1];
  double dh[3], H[3][3];
  film_profile_eval(prof, X, dh);
  profile_hessian(prof, H);
  double Xdot[3], HXdot[3];
  qp[0] = qp[1] = 0;
  for (int i = 0; i < 3; i++) {
    qp[0] += dh[i] * Xu[i][0];
    qp[1] += dh[i] * Xu[i][1];
    Xdot[i] = Xu[i][0] * ud[0] + Xu[i][1] * ud[1];
  }
  for (int i = 0; i < 3; i++) {
    pp[i] = A[0][i] * qp[0] + A[1][i] * qp[1];
    HXdot[i] = vec3_dot(H[i], Xdot);
  }
  for (int bb = 0; bb < 2; bb++) {
    dd[bb] = 0.0;
    for (int i = 0; i < 3; i++)
      dd[bb] += HXdot[i] * Xu[i][bb] + dh[i] * (X2[i][0][bb] * ud[0] + X2[i][1][bb] * ud[1]) - pp[i] * W[i][bb];
  }
}

/* packed = 0: every entry, coordinate j at index j (film_linearize_ancf_face_line); packed = 1:
   only the active coordinates', coordinate 3 act[ja] + i at index 3 ja + i
   (film_linearize_ancf_face_line_packed).  fac: the factors instead (lin unused,
   film_linearize_ancf_face_line_factors). */
static void linearize(double a, double b, double c, int face, const double e[96], const double edot[96],
                      const double eref[96], const FilmProfile *prof, const FilmLine *line, const double xdot[3],
                      const FilmSurfacePoint *pt, FilmFaceLinearization *lin, int packed, FilmFaceLinFactors *fac)
{
  enum { NA = ANCF3843_FACE_NSHAPE };
  /* Only the face's 12 active shape functions (ancf3843.h) enter the sums and give nonzero
     derivatives: the others vanish on the face, with their in-face derivatives, and so does every
     term they contribute (skipped, their entries of lin stay 0). */
  if (!fac && !packed) memset(lin, 0, sizeof(*lin));
  const double *n = line->n, *t1 = line->t1, *t2 = line->t2;
  int bad = face < 0 || face > 5 || !line->ok;
  /* second derivatives of S along the face at the projected point */
  const double h[3] = {a, b, c};
  const int fface = bad ? 0 : face, fix = fface / 2;
  const int i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
  double xi[3];
  xi[fix] = (fface & 1) ? 1.0 : -1.0;
  xi[i0] = pt->uv[0];
  xi[i1] = pt->uv[1];
  int act[NA];
  double d2S[3][NA];
  ancf3843_face_shapes(fface, act);
  shape_hessian_face(h, fface, xi, d2S);
  const double *S = pt->S, *Su = pt->dS_uv[0], *Sv = pt->dS_uv[1];
  const double *Suu = d2S[0], *Suv = d2S[1], *Svv = d2S[2]; /* by active index ja */
  /* r_uvuv (r2[i][a][b]), v, v_uv; r_uv is the converged point's (surface_eval's sums over the
     same 12 functions in the same order, which r_uv keeps through the last linear step) */
  double ru[3][2], r2[3][2][2], v[3] = {0, 0, 0}, vuv[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  memset(r2, 0, sizeof(r2));
  for (int i = 0; i < 3; i++) {
    ru[i][0] = pt->r_uv[i][0];
    ru[i][1] = pt->r_uv[i][1];
  }
  for (int ja = 0; ja < NA; ja++)
    for (int i = 0; i < 3; i++) {
      const int k = act[ja];
      const double ek = e[3 * k + i], edk = edot ? edot[3 * k + i] : 0.0;
      r2[i][0][0] += Suu[ja] * ek;
      r2[i][0][1] += Suv[ja] * ek;
      r2[i][1][1] += Svv[ja] * ek;
      v[i] += S[k] * edk;
      vuv[i][0] += Su[k] * edk;
      vuv[i][1] += Sv[k] * edk;
    }
  for (int i = 0; i < 3; i++) r2[i][1][0] = r2[i][0][1];
  double rucol[3] = {ru[0][0], ru[1][0], ru[2][0]}, rvcol[3] = {ru[0][1], ru[1][1], ru[2][1]};
  const double J00 = vec3_dot(t1, rucol), J01 = vec3_dot(t1, rvcol), J10 = vec3_dot(t2, rucol), J11 = vec3_dot(t2, rvcol);
  const double det = J00 * J11 - J01 * J10;
  if (!bad && !(fabs(det) > PROJ_SINGULAR * vec3_norm(rucol) * vec3_norm(rvcol))) bad = 1;
  if (bad) {
    double *all = fac ? (double *)fac : (double *)lin;
    const size_t nall = fac ? sizeof(*fac) / sizeof(double) : sizeof(*lin) / sizeof(double);
    for (size_t j = 0; j < nall; j++) all[j] = NAN;
    return;
  }
  /* A = J^-1 P, m = r_uv^T n, g = n - A^T m, uvdot = -A (v - xdot) */
  double A[2][3];
  for (int i = 0; i < 3; i++) {
    A[0][i] = (J11 * t1[i] - J01 * t2[i]) / det;
    A[1][i] = (-J10 * t1[i] + J00 * t2[i]) / det;
  }
  const double m[2] = {vec3_dot(rucol, n), vec3_dot(rvcol, n)};
  double g[3], w[3];
  for (int i = 0; i < 3; i++) {
    g[i] = n[i] - A[0][i] * m[0] - A[1][i] * m[1];
    w[i] = v[i] - (xdot ? xdot[i] : 0.0);
  }
  const double ud[2] = {-vec3_dot(A[0], w), -vec3_dot(A[1], w)};
  /* W = v_uv + r_uvuv[uvdot], cr = g^T W */
  double W[3][2];
  for (int i = 0; i < 3; i++)
    for (int bb = 0; bb < 2; bb++) W[i][bb] = vuv[i][bb] + r2[i][0][bb] * ud[0] + r2[i][1][bb] * ud[1];
  double cr[2] = {0, 0};
  for (int bb = 0; bb < 2; bb++)
    for (int i = 0; i < 3; i++) cr[bb] += g[i] * W[i][bb];
  const int profiled = prof && prof->type != FILM_PROFILE_NONE && eref;
  if (fac) {
    /* every array of the packed linearisation is S (x) alpha + D (x) beta (entry 3 ja + i =
       S_ja alpha_i + D_ja beta_i), read off the expressions below with du_m = -S (x) A_m */
    for (int ja = 0; ja < NA; ja++) {
      const int k = act[ja];
      fac->S[ja] = S[k];
      fac->D[ja] = Su[k] * ud[0] + Sv[k] * ud[1];
    }
    for (int i = 0; i < 3; i++) {
      fac->duv[0][i] = -A[0][i];
      fac->duv[1][i] = -A[1][i];
      fac->g[i] = g[i];
      fac->rate[i] = -(cr[0] * A[0][i] + cr[1] * A[1][i]);
      for (int l = 0; l < 3; l++) fac->v[l][i] = -(vuv[l][0] * A[0][i] + vuv[l][1] * A[1][i]);
      fac->prof[i] = fac->profrate[i] = fac->mp[i] = 0.0;
    }
    if (profiled) {
      double qp[2], pp[3], dd[2];
      profile_terms(eref, prof, act, S, Su, Sv, (const double(*)[NA])d2S, (const double(*)[3])A, ud, (const double(*)[2])W, qp, pp, dd);
      for (int i = 0; i < 3; i++) {
        fac->prof[i] = -(qp[0] * A[0][i] + qp[1] * A[1][i]);
        fac->profrate[i] = -(dd[0] * A[0][i] + dd[1] * A[1][i]);
        fac->mp[i] = -pp[i];
      }
    }
    return;
  }
  if (packed) {
    /* the same entries over the 36 contiguous packed ones, the factors of function ja and
       component i spread to entry 3 ja + i first, so that the loop vectorises */
    enum { NP = 3 * NA };
    double Sx[NP], dSx[NP], gx[NP], A0x[NP], A1x[NP];
    for (int ja = 0; ja < NA; ja++) {
      const int k = act[ja];
      const double dSud = Su[k] * ud[0] + Sv[k] * ud[1];
      for (int i = 0; i < 3; i++) {
        Sx[3 * ja + i] = S[k];
        dSx[3 * ja + i] = dSud;
        gx[3 * ja + i] = g[i];
        A0x[3 * ja + i] = A[0][i];
        A1x[3 * ja + i] = A[1][i];
      }
    }
    for (int j = 0; j < NP; j++) {
      const double du0 = -Sx[j] * A0x[j], du1 = -Sx[j] * A1x[j];
      lin->duv_de[0][j] = du0;
      lin->duv_de[1][j] = du1;
      lin->dnr_de[j] = Sx[j] * gx[j];
      lin->drate_dedot[j] = Sx[j] * gx[j];
      lin->drate_de[j] = gx[j] * dSx[j] + cr[0] * du0 + cr[1] * du1;
      for (int l = 0; l < 3; l++) lin->dv_de[l][j] = vuv[l][0] * du0 + vuv[l][1] * du1;
    }
  } else
  for (int ja = 0; ja < NA; ja++) {
    const int k = act[ja];
    const double dSud = Su[k] * ud[0] + Sv[k] * ud[1];
    for (int i = 0; i < 3; i++) {
      const int j = 3 * k + i;
      const double du0 = -S[k] * A[0][i], du1 = -S[k] * A[1][i];
      lin->duv_de[0][j] = du0;
      lin->duv_de[1][j] = du1;
      lin->dnr_de[j] = S[k] * g[i];
      lin->drate_dedot[j] = S[k] * g[i];
      lin->drate_de[j] = g[i] * dSud + cr[0] * du0 + cr[1] * du1;
      for (int l = 0; l < 3; l++) lin->dv_de[l][j] = vuv[l][0] * du0 + vuv[l][1] * du1;
    }
  }
  if (!profiled) {
    if (packed)
      for (int ja = 0; ja < NA; ja++)
        for (int i = 0; i < 3; i++) {
          const int j = 3 * ja + i;
          lin->dprof_de[j] = lin->dprofrate_de[j] = lin->dprofrate_dedot[j] = 0.0;
        }
    return;
  }
  double qp[2], pp[3], dd[2];
  profile_terms(eref, prof, act, S, Su, Sv, (const double(*)[NA])d2S, (const double(*)[3])A, ud, (const double(*)[2])W, qp, pp, dd);
  for (int ja = 0; ja < NA; ja++) {
    const int k = act[ja];
    const double dSud = Su[k] * ud[0] + Sv[k] * ud[1];
    for (int i = 0; i < 3; i++) {
      const int j = packed ? 3 * ja + i : 3 * k + i;
      const double du0 = lin->duv_de[0][j], du1 = lin->duv_de[1][j];
      lin->dprof_de[j] = qp[0] * du0 + qp[1] * du1;
      lin->dprofrate_de[j] = -pp[i] * dSud + dd[0] * du0 + dd[1] * du1;
      lin->dprofrate_dedot[j] = -S[k] * pp[i];
    }
  }
}

void film_linearize_ancf_face_line(double a, double b, double c, int face, const double e[96], const double edot[96],
                                   const double eref[96], const FilmProfile *prof, const double x[3], const FilmLine *line,
                                   const double xdot[3], const FilmSurfacePoint *pt, FilmFaceLinearization *lin)
{
  (void)x; /* enters through pt (the converged projection) */
  linearize(a, b, c, face, e, edot, eref, prof, line, xdot, pt, lin, 0, NULL);
}

void film_linearize_ancf_face_line_packed(double a, double b, double c, int face, const double e[96], const double edot[96],
                                          const double eref[96], const FilmProfile *prof, const double x[3], const FilmLine *line,
                                          const double xdot[3], const FilmSurfacePoint *pt, FilmFaceLinearization *lin)
{
  (void)x;
  linearize(a, b, c, face, e, edot, eref, prof, line, xdot, pt, lin, 1, NULL);
}

void film_linearize_ancf_face_line_factors(double a, double b, double c, int face, const double e[96], const double edot[96],
                                           const double eref[96], const FilmProfile *prof, const FilmLine *line,
                                           const double xdot[3], const FilmSurfacePoint *pt, FilmFaceLinFactors *fac)
{
  linearize(a, b, c, face, e, edot, eref, prof, line, xdot, pt, NULL, 1, fac);
}
