#ifndef TRIBODYN_PROJECTION_H
#define TRIBODYN_PROJECTION_H
#include <tribodyn/ancf3843.h>
/*
  Projection of a film point onto the bounding surfaces (formulation.md F6-F9) and surface
  profiles (F7).  Pure kernels (src/kernels/projection.c).

  A face of an ANCF 3843 cell: local face f = 0..5 (xi = -1, +1, eta = -1, +1, zeta = -1, +1) as
  in mesh.h; its face coordinates (u, v) in [-1, 1]^2 are the two free element coordinates in
  increasing order (f = 0,1: (eta, zeta); 2,3: (xi, zeta); 4,5: (xi, eta)).
*/

/* A projected point on a surface: where the line x + s n meets it.  n is normalised inside the
   kernels; s is measured along the unit n. */
typedef struct {
  double uv[2];          /* face coordinates (cylinder: angle [rad] about the axis, axial coordinate [m]) */
  double xi[3];          /* element coordinates (ANCF faces); bilinear quad and cylinder: (u, v, 0) */
  double r[3];           /* the point [m] */
  double r_uv[3][2];     /* tangents dr/du, dr/dv */
  double S[32];          /* ANCF shape functions at xi (global-axis slopes NOT applied);
                            bilinear quad: S[0..3] = N_k, the rest 0; cylinder: all 0 */
  double dS_uv[2][32];   /* their derivatives along u and v (same conventions) */
  double s;              /* n . (r - x) [m] */
  int    iterations;
} FilmSurfacePoint;

/* The line x + s n of a film point, in the form the kernels use: n normalised and the
   orthonormal basis P = [t1; t2] of the plane normal to it (t1 x t2 = n; t1 from the coordinate
   axis least aligned with n).  ok = 0 if n is zero or not finite (then every kernel given the
   line fails as it does for such an n).  Each kernel below that takes n forms the line itself;
   its *_line variant takes one formed once by film_line_init, with the same results, for a
   caller that projects one film point onto several surfaces and evaluates rates and
   linearisations there (forming the line, two square roots and six divisions on one dependency
   chain, is a good part of a warm-started projection). */
typedef struct {
  double n[3], t1[3], t2[3];
  int    ok;
} FilmLine;
void film_line_init(const double n[3], FilmLine *line);

/* (F6) Newton on the face coordinates for T (r(u,v) - x) = 0, T = I - n n^T, starting from uv.
   e: the cell's 96 coordinates in its material frame (as ancf3843.h).  Returns 0 if converged
   inside the face (|u|, |v| <= 1 + tol), 1 if converged outside it, -1 if Newton failed (line
   parallel to the face, no convergence in 20 steps, or the iterate ran off beyond |u| or |v| > 4;
   pt then holds the last iterate, whose uv shows the direction).  Every field of pt is filled at
   the returned point. */
int film_project_ancf_face(double a, double b, double c, int face, const double e[96],
                           const double x[3], const double n[3], double tol, FilmSurfacePoint *pt);
int film_project_ancf_face_line(double a, double b, double c, int face, const double e[96],
                                const double x[3], const FilmLine *line, double tol, FilmSurfacePoint *pt);

/* The same for a bilinear quad given by its 4 current corner positions (rigid faces), corners
   counter-clockwise: r(u,v) = sum N_k(u,v) X_k. */
int film_project_bilinear(const double corners[4][3], const double x[3], const double n[3], double tol,
                          FilmSurfacePoint *pt);
int film_project_bilinear_line(const double corners[4][3], const double x[3], const FilmLine *line, double tol,
                               FilmSurfacePoint *pt);

/* Intersection of the line x + s n with the cylinder of axis point p0, unit axis d, radius R:
   the root with the smallest |s|.  Returns 0, or -1 if the line misses the cylinder (or is
   parallel to its axis).  uv = (theta, z): r = p0 + z d + R (cos theta e1 + sin theta e2) with
   e1 the unit projection normal to d of the coordinate axis least aligned with d, e2 = d x e1;
   r_uv = [R d x (cos theta e1 + sin theta e2), d]. */
int film_project_cylinder(const double p0[3], const double d[3], double R, const double x[3],
                          const double n[3], FilmSurfacePoint *pt);

/* (F9) n . (total velocity of the projected point) for a fixed film point moving with velocity
   xdot: the material velocity v of the surface point minus its slide along the surface,
       rdot = v - r_uv (P r_uv)^-1 P (v - xdot),  P = [t1; t2],
   returned as n . rdot; also ddot_dv[3] = d(n . rdot)/dv (so that for ANCF faces the map to the
   element velocities is ddot_dv . S_k) and uvdot (the slide rate of the face coordinates).
   xdot (NULL = 0), ddot_dv and uvdot may be NULL.  NaN if P r_uv is singular. */
double film_point_normal_rate(const FilmSurfacePoint *pt, const double n[3], const double v[3],
                              const double xdot[3], double ddot_dv[3], double uvdot[2]);
/* The same for a frame that also rotates (n = n(t), ndot = dn/dt, may be NULL):
       uvdot = (P r_uv)^-1 [s P ndot - P (v - xdot)],  rdot = v + r_uv uvdot,
   and ds/dt = n . (rdot - xdot), so dh/dt (F7) = rate_b - rate_w + profile rates in any frame.
   duvdot_dv[2][3] = d uvdot/dv = -(P r_uv)^-1 P (for the profile term of dh/dt, which is
   grad_X h_prof . X_uv uvdot).  xdot and every output may be NULL.  NaN if P r_uv is singular. */
double film_point_normal_rate_frame(const FilmSurfacePoint *pt, const double n[3],
                                    const double ndot[3], const double v[3], const double xdot[3],
                                    double ddot_dv[3], double uvdot[2], double duvdot_dv[2][3]);
double film_point_normal_rate_line(const FilmSurfacePoint *pt, const FilmLine *line, const double ndot[3],
                                   const double v[3], const double xdot[3], double ddot_dv[3], double uvdot[2],
                                   double duvdot_dv[2][3]);
/* The same from the point's tangents r_uv and its s alone (all that the rate reads of it). */
double film_point_normal_rate_tangents(const double r_uv[3][2], double s, const FilmLine *line, const double ndot[3],
                                       const double v[3], const double xdot[3], double ddot_dv[3], double uvdot[2],
                                       double duvdot_dv[2][3]);

/* Surface profiles carried by the material points (F7): h_prof(X) >= 0 opens the film. */
typedef enum { FILM_PROFILE_NONE, FILM_PROFILE_CROWN, FILM_PROFILE_CHAMFER, FILM_PROFILE_TABLE } FilmProfileType;
typedef struct {
  FilmProfileType type;
  double center[3];      /* crown: apex; chamfer/table: origin of the coordinate */
  double axis[3];        /* unit direction of the profile coordinate s = axis . (X - center) */
  double amplitude;      /* crown: drop at |s| = half_length; chamfer: depth at the edge [m] */
  double half_length;    /* crown: h = amplitude (s / half_length)^2; chamfer: edges at |s| = half_length */
  double width;          /* chamfer: length of the ramp [m] */
  int    ntable;         /* table: h(s) sampled at increasing s, linear interpolation */
  const double *table_s, *table_h;
} FilmProfile;
/* h_prof and its gradient with respect to the material coordinates X (dhdX may be NULL).
   Crown: h = amplitude (s/half_length)^2.  Chamfer: 0 for |s| <= half_length - width, then
   amplitude (|s| - half_length + width)/width (C0 at the start of the ramp, gradient of the ramp
   there; continued linearly beyond |s| = half_length); width <= 0 gives 0.  Table: linear
   interpolation, constant beyond the ends (gradient 0 there).  NONE: 0. */
double film_profile_eval(const FilmProfile *prof, const double X[3], double dhdX[3]);

/* Linearisation of a projected ANCF face point with respect to the element's coordinates e and
   velocities edot (for the coupled Jacobian of formulation.md §6; src/kernels/projection.c).
   With the projection held by P (r(uv, e) - x) = 0 for fixed film point x and normal n:
     nr    = n . r*                      (the point's contribution to h: + for a base, - for a wall)
     rate  = n . rdot (F9)              (its contribution to dh/dt)
     v     = sum_k S_k(uv) edot_k       (material velocity)
     prof  = h_prof(X*(uv)),  prof_rate = grad h_prof . X*_uv uvdot   (X* = sum S_k eref_k)
   All derivatives are exact (analytic, through uv(e) and the second derivatives of S). */
typedef struct {
  double duv_de[2][96];     /* d uv / d e */
  double dnr_de[96];        /* d (n . r*) / d e */
  double drate_de[96];      /* d rate / d e     (at fixed edot, xdot) */
  double drate_dedot[96];   /* d rate / d edot */
  double dv_de[3][96];      /* d v / d e        (through uv) */
  double dprof_de[96];      /* d prof / d e */
  double dprofrate_de[96];  /* d prof_rate / d e */
  double dprofrate_dedot[96];
} FilmFaceLinearization;

/* pt: the converged projection of film point x (film_project_ancf_face) on face `face` of the
   a x b x c cell with coordinates e, velocities edot, reference coordinates eref; prof may be
   NULL (no profile); xdot the film point's (frame) velocity. */
void film_linearize_ancf_face(double a, double b, double c, int face, const double e[96], const double edot[96],
                              const double eref[96], const FilmProfile *prof, const double x[3], const double n[3],
                              const double xdot[3], const FilmSurfacePoint *pt, FilmFaceLinearization *lin);
void film_linearize_ancf_face_line(double a, double b, double c, int face, const double e[96], const double edot[96],
                                   const double eref[96], const FilmProfile *prof, const double x[3],
                                   const FilmLine *line, const double xdot[3], const FilmSurfacePoint *pt,
                                   FilmFaceLinearization *lin);
/* The same, packed: only the face's 36 active coordinates (the 12 shape functions act[] of
   ancf3843_face_shapes, times 3), coordinate 3 act[ja] + i in entry 3 ja + i of each array; the
   entries from 36 on are left as they are.  For a caller that needs only the active coordinates:
   the full structure (9 KB, cleared) was a good part of the film's Jacobian pass, and the packed
   entries lie together.  An invalid face or line fills the whole structure with NaN, as the full
   version does. */
void film_linearize_ancf_face_line_packed(double a, double b, double c, int face, const double e[96], const double edot[96],
                                          const double eref[96], const FilmProfile *prof, const double x[3], const FilmLine *line,
                                          const double xdot[3], const FilmSurfacePoint *pt, FilmFaceLinearization *lin);

/* The packed linearisation in factored form.  Every array of it is a sum of two Kronecker
   products over (active function ja, component i): entry 3 ja + i = S[ja] alpha[i] + D[ja] beta[i],
   with S the 12 active shape functions at the point and D their rate dS/duv . uvdot, since the
   projection moves the point along the face by duv = -A (S (x) I) de (A = (P r_uv)^-1 P) and the
   velocity and the profile enter through the same uv.  Read off the packed expressions:
     duv_de[m]       = S (x) duv[m]               dnr_de = drate_dedot = S (x) g
     drate_de        = D (x) g + S (x) rate       dv_de[l] = S (x) v[l]
     dprof_de        = S (x) prof                 dprofrate_de = D (x) mp + S (x) profrate
     dprofrate_dedot = S (x) mp
   (prof, profrate, mp are 0 without a profile).  A caller that combines the arrays linearly (the
   film's coupling blocks) combines the 3-vectors instead and expands once: 2 multiply-adds per
   entry instead of one per array.  An invalid face or line gives NaN everywhere, as above. */
typedef struct {
  double S[ANCF3843_FACE_NSHAPE], D[ANCF3843_FACE_NSHAPE];
  double duv[2][3], g[3], rate[3], v[3][3], prof[3], profrate[3], mp[3];
} FilmFaceLinFactors;
void film_linearize_ancf_face_line_factors(double a, double b, double c, int face, const double e[96], const double edot[96],
                                           const double eref[96], const FilmProfile *prof, const FilmLine *line,
                                           const double xdot[3], const FilmSurfacePoint *pt, FilmFaceLinFactors *fac);

#endif
