#ifndef TRIBODYN_RIGID_FILM_POINT_H
#define TRIBODYN_RIGID_FILM_POINT_H
/*
  A film point between two rigid cylinders whose poses are natural coordinates (free rigid bodies,
  formulation (F21), or prescribed motion written the same way): the film state of (F6)-(F9) and
  the generalised forces of the tractions (F14) on the bodies' coordinates, for films on free
  rigid bodies (formulation (F25); src/kernels/rigid_film_point.c).

  Each side s (0: the wall's body, 1: the base's body) is z_s = [r, a1, a2, a3] (12 values: the
  body's reference centre com_s and its axes) with its rate; z = [z_0, zdot_0, z_1, zdot_1] (48).
  A point X of the body's reference configuration is at r + sum_k (X - com)_k a_k.  The film
  lives in a frame: static, or carried by one of the two bodies (frame = 0 or 1), a point x in
  space being at T(x) = com_F + A_F^T (x - r_F) in the frame (its reference configuration).
  In the frame, the line X + s n through the film point X along its reference normal n meets each
  cylinder (axis ends P0, P1 and radius R of the body's reference configuration, carried to the
  frame) at the root s_s nearest to X; the material point there is xi_s = A'_s^T (x' - r'_s)
  (A'_s = A_F^T A_s, r'_s = T(r_s)) and its velocity in the frame v'_s = d/dt T(r_s) +
  sum_k xi_s,k d/dt(A_F^T a_s,k); the point's rate along the line is sdot_s = (nu . v'_s)/(nu . n)
  with nu the cylinder's radial vector at the hit.  Then (F7)-(F9):
      h = s_1 - s_0,  dh/dt = sdot_1 - sdot_0,  vw = v'_0,  vb = v'_1  (the frame point at rest).
  Tractions f_s (per area, frame components) act on side s at its material point: Q_s = w [A_F f_s;
  xi_s,1 A_F f_s; xi_s,2 A_F f_s; xi_s,3 A_F f_s] (virtual work of a force at a point of a rigid
  body in natural coordinates).

  rigid_film_point_jacobian differentiates the state and Q by the complex step (exact to
  rounding), the tractions linearised about their value by their sensitivities to the state
  (f_s = f_s0 + T_s (kin - kin0), kin = (h, dh/dt, vw, vb)); only the inputs listed in vary are
  perturbed (a side at rest or prescribed has none).  Pure C99: no allocation, no globals.
*/

typedef struct {
  double P0[2][3], P1[2][3], R[2]; /* cylinders: axis ends and radius, reference configuration */
  double com[2][3];                /* the origin of each body's axes (its centre of mass) */
  int    frame;                    /* -1: static; 0, 1: carried by that side's body */
} RigidFilmPair;

typedef struct {
  double kin[8];     /* h, dh/dt, vw[3], vb[3] (frame components) */
  double s[2];       /* the hits along the line: wall, base */
  double xi[2][3];   /* their material points, relative to com_s */
  double A[3][3];    /* the frame's axes, A[i][k] = component i of a_k (static: identity) */
} RigidFilmState;

/* The state at film point X (normal n) for coordinates z; returns 1 when the line misses a
   cylinder, else 0. */
int rigid_film_point(const RigidFilmPair *pair, const double X[3], const double n[3], const double z[48], RigidFilmState *st);

/* Q (24: wall's 12, base's 12) of tractions fw, fb (frame components) times the weight w. */
void rigid_film_point_forces(const RigidFilmState *st, double w, const double fw[3], const double fb[3], double Q[24]);

/* dkin/dz (8 x 48) and dQ/dz (24 x 48, the tractions fw0, fb0 at the state, linearised with
   T[s][i][j] = d f_s,i / d kin_j) in the columns listed in vary (nvary of them; the others are
   left untouched). */
void rigid_film_point_jacobian(const RigidFilmPair *pair, const double X[3], const double n[3], const double z[48], double w, const double fw0[3], const double fb0[3], const double T[2][3][8], const int vary[], int nvary,
                               double dkin[8][48], double dQ[24][48]);
#endif
