#ifndef TRIBODYN_ANCF3843_H
#define TRIBODYN_ANCF3843_H
/*
  ANCF 3843 solid element: pure kernels (formulation.md §1, F1-F5).

  Plain C on arrays: no PETSc, no allocation, no globals, so the kernels can be
  tested alone, threaded (one Ancf3843Work per thread) and vectorised.

  Element data layout
  -------------------
  Corner node n = 0..7 sits at (xi_n, eta_n, zeta_n) with
      xi_n = (n & 1) ? +1 : -1,  eta_n = (n & 2) ? +1 : -1,  zeta_n = (n & 4) ? +1 : -1.
  Node n carries 12 coordinates [r, r_X, r_Y, r_Z] (position and the gradients with respect
  to the element's material axes X, Y, Z).  Shape function k = 4 n + j (j = 0 position,
  j = 1,2,3 slope along X,Y,Z) multiplies the 3-vector e_k, and the element vector is
      e[3 k + i]  (i = 0,1,2 the spatial component),   96 entries.
  Element matrices are row-major 96 x 96 with the same index 3 k + i.

  X = a (1 + xi)/2, Y = b (1 + eta)/2, Z = c (1 + zeta)/2 in the element's material frame.
*/

#define ANCF3843_NODES 8
#define ANCF3843_NSHAPE 32
#define ANCF3843_NDOF 96
#define ANCF3843_NQP 27 /* 3 x 3 x 3 Gauss points for the stiffness */
#define ANCF3843_NQP_MASS 64 /* 4 x 4 x 4 Gauss points for the mass matrix (exact) */
#define ANCF3843_NROW (3 * ANCF3843_NQP) /* (Gauss point q, material direction I) pairs */
#define ANCF3843_NROW_PAD 96             /* NROW rounded up to a multiple of 32 */

/* Tables that depend only on the element's edge lengths (shared by all equal elements). */
typedef struct {
  double a, b, c;   /* edge lengths along the material axes [m] */
  double volume;    /* a b c */
  double w[ANCF3843_NQP];                            /* Gauss weight times det J */
  double dSdX[ANCF3843_NQP][3][ANCF3843_NSHAPE];     /* dS_k/dX_I at Gauss point q */
  double mass_unit[ANCF3843_NSHAPE][ANCF3843_NSHAPE];/* int S_k S_l dV (unit density) */
  double shape_integral[ANCF3843_NSHAPE];            /* int S_k dV (gravity load) */
  /* dSdX transposed, dSdXt[k][3 q + I] (rows padded with zeros to ANCF3843_NROW_PAD) so that
     the deformation gradients of all Gauss points come out of one vectorised loop. */
  double dSdXt[ANCF3843_NSHAPE][ANCF3843_NROW_PAD];
} Ancf3843Geometry;

/* St. Venant-Kirchhoff material with strain-rate damping, and the split of its elasticity
   tensor used against Poisson/thickness locking: the Poisson part acts on the element-mean
   normal strains (see ancf3843.c for the choice and why). */
typedef struct {
  double E, nu, rho;     /* Young's modulus [Pa], Poisson's ratio, density [kg/m^3] */
  double lambda, mu;     /* Lame constants */
  double damping;        /* beta_d [s] (F5) */
} Ancf3843Material;

/* Per-thread scratch space: the kernels never allocate.  Contents are private to ancf3843.c. */
typedef struct {
  double et[3][ANCF3843_NSHAPE], edt[3][ANCF3843_NSHAPE]; /* e, edot by component */
  double F[3][ANCF3843_NROW_PAD], Fd[3][ANCF3843_NROW_PAD]; /* F[a][3q+I], Fdot */
  double P[3][ANCF3843_NROW_PAD];                   /* weighted first Piola stress P[a][3q+I] */
  double St[ANCF3843_NQP][3][3];                    /* total second Piola stress at q */
  double A[ANCF3843_NQP][3][3][3][3];               /* weighted dP_aI/dF_bJ: [q][a][b][I][J] */
  double Wp[ANCF3843_NROW][3][8];                   /* A times dS/dX for a panel of 8 rows k */
  double bbar[3][ANCF3843_NDOF];                    /* d(mean E_II)/de */
  double dbar[3][ANCF3843_NDOF];                    /* d(mean Edot_II)/de */
  double g[3][ANCF3843_NDOF];                       /* row factors of the Poisson term */
} Ancf3843Work;

/* (F1) the 32 shape functions at local point xi[3] of an a x b x c element. */
void ancf3843_shape(double a, double b, double c, const double xi[3], double S[ANCF3843_NSHAPE]);
/* dS_k/dX_I at xi: dSdX[I][k]. */
void ancf3843_shape_gradient(double a, double b, double c, const double xi[3],
                             double dSdX[3][ANCF3843_NSHAPE]);
/* Both at once (one pass over the shared one-dimensional factors). */
void ancf3843_shape_and_gradient(double a, double b, double c, const double xi[3], double S[ANCF3843_NSHAPE],
                                 double dSdX[3][ANCF3843_NSHAPE]);
void ancf3843_geometry_init(double a, double b, double c, Ancf3843Geometry *geo);
/* A curved (mapped) cell, formulation.md §1 "Curved cells": the element interpolates on the
   parametric box a x b x c as always, and its reference configuration is the element vector e0
   (positions, and slopes along the box axes Xbar_I), which need not be a box.  The deformation
   gradient is F = (dr/dXbar) J^-1 with J = dX/dXbar = sum_k e0_k (x) dS_k/dXbar at each Gauss
   point, taken in the cell's local orthonormal frame R (the centre's tangents, Gram-Schmidt), so
   that the tables hold dS_k/dX_loc = (dS_k/dXbar) J^-1 R and the weights carry det J; the mass
   and gravity integrals carry det J on the 4-point rule.  The force and tangent kernels then run
   unchanged on the element vector in parametric slopes (the model turns global slopes into them
   node by node).  For a box e0 (ancf3843_reference_coordinates) the tables equal
   ancf3843_geometry_init's to rounding.  Returns 0, or -1 if det J <= 0 at a Gauss point (an
   inverted or degenerate cell); *min_det_ratio (if not NULL) gets the smallest det J seen, as a
   ratio to the parametric box's (1 for a box with e0 slopes of unit length). */
int ancf3843_geometry_init_mapped(double a, double b, double c, const double e0[ANCF3843_NDOF], Ancf3843Geometry *geo, double *min_det_ratio);
void ancf3843_material_init(double E, double nu, double rho, double damping, Ancf3843Material *mat);
/* Reference-configuration element vector of an a x b x c element with corner node 0 at
   x0 and material axes equal to the global axes. */
void ancf3843_reference_coordinates(double a, double b, double c, const double x0[3],
                                     double e[ANCF3843_NDOF]);

/* (F2, F3, F5) Q = Q_int(e) + Q_v(e, edot): generalised internal and damping force.
   If strain_energy is not NULL it receives the elastic strain energy of the element [J].
   edot may be NULL (at rest) in these three functions; Q may be NULL here (the energy only). */
void ancf3843_internal_force(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                             const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                             double Q[ANCF3843_NDOF], double *strain_energy, Ancf3843Work *work);
/* K = c_e dQ/de + c_v dQ/dedot (96 x 96 row-major), material and geometric terms included.
   With damping = 0 and c_v arbitrary, K is symmetric. */
void ancf3843_tangent(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                      const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                      double c_e, double c_v, double K[ANCF3843_NDOF * ANCF3843_NDOF],
                      Ancf3843Work *work);
/* Q = Q_int + Q_v and K together (one pass over the Gauss points). */
void ancf3843_force_and_tangent(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                                const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                                double c_e, double c_v, double Q[ANCF3843_NDOF],
                                double K[ANCF3843_NDOF * ANCF3843_NDOF], Ancf3843Work *work);
/* Products with the tangent without forming it (the matrix-free Krylov operator,
   src/solver/element_operator.c).  ancf3843_linearize keeps what ancf3843_tangent contracts at
   (e, edot) for the coefficients c_e, c_v: per Gauss point F, H = c_h F + c_e beta_d Fdot
   (c_h = c_e + c_v beta_d) and c_e S (S the total second Piola stress, Poisson part included).
   ancf3843_tangent_apply then gives y = (c_m M_unit + c_e dQ/de + c_v dQ/dedot) v, the product
   of ancf3843_tangent's K (plus c_m times the unit-density mass matrix) with v, in about
   22 000 multiply-adds against the 0.75 million of forming K. */
typedef struct {
  double F[3][ANCF3843_NROW_PAD]; /* F[a][3q+I] */
  double H[3][ANCF3843_NROW_PAD]; /* c_h F + c_e beta_d Fdot, same layout */
  double S[ANCF3843_NQP][6];      /* c_e S at q: components 00 11 22 01 12 02 */
} Ancf3843Linearization;
void ancf3843_linearize(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                        const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                        double c_e, double c_v, Ancf3843Linearization *lin, Ancf3843Work *work);
/* The same, with the internal force Q and (if strain_energy is not NULL) the strain energy of
   ancf3843_internal_force from the same pass (a residual followed by a Jacobian at its iterate). */
void ancf3843_force_and_linearize(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                                  const double e[ANCF3843_NDOF], const double edot[ANCF3843_NDOF],
                                  double c_e, double c_v, double Q[ANCF3843_NDOF],
                                  double *strain_energy, Ancf3843Linearization *lin,
                                  Ancf3843Work *work);
void ancf3843_tangent_apply(const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                            const Ancf3843Linearization *lin, double c_m,
                            const double v[ANCF3843_NDOF], double y[ANCF3843_NDOF],
                            Ancf3843Work *work);
/* On a face of the cell.  Local face f = 0..5 lies at xi = -1, +1, eta = -1, +1, zeta = -1, +1;
   its face coordinates (u, v) are the two free element coordinates in increasing order
   (f = 0,1: (eta, zeta); 2,3: (xi, zeta); 4,5: (xi, eta)), and I0 < I1 the two in-face material
   axes.  There only 12 of the 32 shape functions can be nonzero: those of the 4 nodes on the face
   without their normal-slope function.  Every other one is exactly 0, value and in-face
   derivatives alike: a function of a node off the face carries the linear factor
   (1 + xi_f xi_n) = 0, and the normal-slope function of a face node carries
   (1 + xi_f xi_n)^2 (xi_f xi_n - 1) = 0 (F1). */
#define ANCF3843_FACE_NSHAPE 12
/* The shape functions that can be nonzero on face f, in increasing order (node by node). */
void ancf3843_face_shapes(int face, int k[ANCF3843_FACE_NSHAPE]);
/* Those functions at face coordinates uv, S[j] = S_k(j), and their material derivatives along
   the two in-face axes, dSdX[0][j] = dS_k(j)/dX_I0, dSdX[1][j] = dS_k(j)/dX_I1: the values of
   ancf3843_shape_and_gradient at the face point, computed by the same expressions (so the same
   numbers), at about a quarter of the cost. */
void ancf3843_face_shape_and_gradient(double a, double b, double c, int face, const double uv[2],
                                      double S[ANCF3843_FACE_NSHAPE], double dSdX[2][ANCF3843_FACE_NSHAPE]);
/* Follower pressure p on face f (formulation.md (F16), ancf3843_face_load.c): adds its share of
   the residual (internal minus external forces), p s int S_k (a1 x a2) dX_I0 dX_I1, to Q, and if
   K is not NULL kscale times its derivative with respect to e to the row-major NDOF x NDOF block
   K.  p > 0 pushes on the face (against its outward normal).  e and Q in the cell's material
   frame. */
/* Traction (force per unit reference area, fixed direction: a dead load, formulation.md (F16b))
   on face f: the table A_k = int S_k dA_0 of the face, dA_0 the reference area element of the
   reference element vector e0 (in the cell's parametric slopes, as the element sees it); the
   traction t then adds Q_k -= t A_k to the residual, with no stiffness. */
void ancf3843_face_shape_area(double a, double b, double c, int face, const double e0[ANCF3843_NDOF], double A[ANCF3843_NSHAPE]);
void ancf3843_face_pressure(double a, double b, double c, int face, const double e[ANCF3843_NDOF], double p, double Q[ANCF3843_NDOF],
                            double *K, double kscale);
/* r = sum_k S_k e_k at xi; dr[I] = dr/dX_I if dr is not NULL (3 x 3, dr[I][i]). */
void ancf3843_interpolate(double a, double b, double c, const double xi[3],
                          const double e[ANCF3843_NDOF], double r[3], double dr[3][3]);

#endif
