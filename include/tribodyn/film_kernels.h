#ifndef TRIBODYN_FILM_KERNELS_H
#define TRIBODYN_FILM_KERNELS_H
/*
  Lubricant-film kernels (formulation.md §2-§3): mixed-lubrication closures, the Greenwood-Tripp
  integral, the average-Reynolds element residual on a bilinear quad of a curved reference
  surface, the surface tractions, and the Lankarani-Nikravesh dry-contact pressure.
  Plain C on arrays: no PETSc, no allocation, no globals (src/kernels/film_*.c).

  Units SI.  H = h / sigma with sigma = sqrt(sigma_w^2 + sigma_b^2); sigma = 0 (smooth
  surfaces) means H = +infinity, where every closure takes its smooth limit (phi_x = phi_y =
  phi_c = phi_f = phi_fp = 1, phi_s = phi_fs = 0, F_5/2 = 0), so the caller never special-cases
  the classical Reynolds equation.
*/

/* Patir-Cheng coefficients for one surface pattern parameter gamma (1978, 1979 tables). */
typedef struct {
  double gamma;
  double C, r;                     /* pressure flow factor */
  double A1, a1, a2, a3, A2;       /* shear flow factor Phi_s */
  double A3, a4, a5, a6;           /* shear stress factor Phi_fs */
  double D, s;                     /* phi_fp */
} FilmPatirCheng;

/* Coefficients for gamma in the published table {1/9, 1/6, 1/3, 1, 3, 6, 9} (relative tolerance
   1e-6); returns 0, or -1 for a gamma not in the table. */
int film_patir_cheng(double gamma, FilmPatirCheng *c);

typedef struct {
  double sigma_w, sigma_b, sigma;  /* RMS roughness [m] */
  FilmPatirCheng along, across;    /* gamma and 1/gamma: flow factors along t1 and t2 */
} FilmRoughness;
/* returns -1 if gamma is not in the table */
int film_roughness_init(double sigma_w, double sigma_b, double gamma, FilmRoughness *r);

/* Closures at film height h [m] and their derivatives with respect to h. */
typedef struct {
  double phi_x, phi_y;   /* pressure flow factors along t1, t2 (H clamped at 0.5 from below) */
  double phi_s;          /* shear flow factor (sigma_w/sigma)^2 Phi_s - (sigma_b/sigma)^2 Phi_s */
                         /* (phi_s, phi_fs, phi_fp: the 'along' gamma, i.e. sliding along t1) */
  double phi_c;          /* Wu-Zheng contact factor (H clamped to [0, 3]) */
  double phi_f, phi_fs, phi_fp; /* shear stress factors (H clamped at 0.5; phi_fs = 0 for H >= 7) */
  double F52;            /* Greenwood-Tripp F_5/2(H) (no clamp) */
  double dphi_x, dphi_y, dphi_s, dphi_c, dphi_f, dphi_fs, dphi_fp, dF52; /* d/dh [1/m] */
} FilmClosures;
void film_closures_eval(const FilmRoughness *r, double h, FilmClosures *c);
/* Only what the Reynolds equation needs: phi_x, phi_y, phi_s, phi_c and their derivatives (the
   other fields are not written); half the cost of film_closures_eval. */
void film_flow_closures_eval(const FilmRoughness *r, double h, FilmClosures *c);

/* F_n(H) = (2 pi)^(-1/2) int_H^inf (s - H)^n exp(-s^2/2) ds for n = 5/2, accurate to 1e-6
   relative on -3 <= H <= 6 (verified: 2e-14 there, 1e-13 on [-20, 30]; finite, C1, decreasing
   everywhere); dF = dF_5/2/dH = -(5/2) F_3/2(H) (d/dH F_n = -n F_(n-1)); dF may be NULL. */
double film_F52(double H, double *dF);

/* Geometry of one bilinear quad of the reference surface, 2 x 2 Gauss points q. */
typedef struct {
  double X[4][3];        /* nodes (frame coordinates), counter-clockwise seen from the wall */
  double x[4][3];        /* Gauss points */
  double w[4];           /* Gauss weight times surface Jacobian sqrt(det(J J^T)) */
  double N[4][4];        /* N[q][i] */
  double gradN[4][4][3]; /* surface gradient of N_i at q: J^T (J J^T)^-1 grad_xi N (paper eq. 21) */
  double n[4][3];        /* unit reference normal at q, pointing from the wall to the base */
  double t1[4][3], t2[4][3]; /* orthonormal tangents; t1 along d x / d xi */
} FilmQuadGeometry;
/* orientation: the normal is flipped if needed so that n . normal_hint > 0; normal_hint may be
   NULL, then n = -(x_xi x x_eta)/|.| (nodes counter-clockwise seen from the wall).  t2 = n x t1.
   For gamma != 1 the roughness axes (t1, t2) follow each quad's xi direction. */
void film_quad_geometry(const double X[4][3], const double normal_hint[3], FilmQuadGeometry *g);

/* Film state at one Gauss point. */
typedef struct {
  double h;              /* film height [m] (F7) */
  double dhdt;           /* its rate at the fixed film point [m/s] (F9) */
  double vw[3], vb[3];   /* surface velocities relative to the frame [m/s] (F8) */
} FilmPointState;

typedef struct {
  double rho, mu;        /* density [kg/m^3], viscosity [Pa s] */
  FilmRoughness rough;
} FilmFluid;

/* Sensitivities of the element residual to the Gauss-point state (for the coupled Jacobian). */
typedef struct {
  double dh[4][4];       /* dR_i / dh_q        [i][q] */
  double ddhdt[4][4];    /* dR_i / d(dhdt)_q */
  double dvw[4][4][3];   /* dR_i / d vw_q */
  double dvb[4][4][3];   /* dR_i / d vb_q */
} FilmReynoldsSensitivity;

/* (F10, F11) element residual R_i [kg/s] of the average Reynolds equation for nodal pressures
   p[4] [Pa, gauge] and K[i][j] = dR_i/dp_j; K (symmetric, negative semi-definite) and sens may
   be NULL.  R_i = sum_q w_q [flux . grad N_i - phi_c rho dhdt N_i] with the mass flux
   rho h (phi_c/2) T(vw+vb) + (rho/2) phi_s sigma T(vw-vb) - rho h^3/(12 mu) Phi_p grad p, so the
   assembled system is K p = -R(0).  h is used as given (the caller keeps h > 0 where the film law
   applies: h^3 changes sign at 0). */
void film_reynolds_quad(const FilmQuadGeometry *g, const FilmFluid *fluid, const FilmPointState st[4],
                        const double p[4], double R[4], double K[4][4], FilmReynoldsSensitivity *sens);

/* (F18) The mass-conserving (JFO, Elrod-Adams p-theta) form of the element residual, film
   fraction theta[4] at the nodes (1: full film) and theta_old[4] at the start of the step:
     R_i = sum_q w_q [-rho h^3/(12 mu) Phi_p grad p . grad N_i]
           + sum_j (A_ij + D_ij) theta_j
           - sum_q w_q phi_c rho N_i(q) [theta_i dhdt_q + h_q (theta_i - theta_old_i) inv_dt]
   with the transport matrix A_ij = sum_q w_q (c_q . grad N_i) N_j(q) of the flux per unit
   fraction c = rho h (phi_c/2) T(vw+vb) + (rho/2) phi_s sigma T(vw-vb), made upwind by
   D_ij = max(0, m_ij) (i != j), m_ij a smooth bound of max(-A_ij, -A_ji) (film_reynolds.c),
   D_ii = -sum_{j != i} D_ij (discrete upwinding: symmetric with zero row sums, so mass is
   conserved and theta = 1 is transported unchanged),
   and a lumped time term (inv_dt = 1/dt; 0 in a quasi-static solve).  With theta = 1 it is
   film_reynolds_quad.  Kp = dR/dp, Kt = dR/dtheta (4 x 4) and sens may be NULL. */
void film_reynolds_quad_jfo(const FilmQuadGeometry *g, const FilmFluid *fluid, const FilmPointState st[4], const double p[4],
                            const double theta[4], const double theta_old[4], double inv_dt, double R[4], double Kp[4][4],
                            double Kt[4][4], FilmReynoldsSensitivity *sens);

/* Asperity contact and friction parameters (F12-F13). */
typedef struct {
  double K;              /* Greenwood-Tripp coefficient */
  double E_star;         /* composite modulus [Pa]: 1/E* = (1-nu_w^2)/E_w + (1-nu_b^2)/E_b */
  double mu_asperity;    /* asperity friction coefficient */
  double v_eps;          /* regularisation speed of the friction direction [m/s] */
} FilmContact;

/* (F12, F13) tractions per unit reference area on the wall and on the base at a Gauss point, for
   pressure p [Pa] and its surface gradient; pc receives the asperity pressure [Pa] (pc may be
   NULL).  Requires h > 0 (Couette shear mu/h). */
void film_tractions(const FilmFluid *fluid, const FilmContact *contact, const double n[3],
                    const FilmPointState *st, double p, const double gradp[3],
                    double fw[3], double fb[3], double *pc);

/* Derivatives of the tractions of film_tractions (index 0: wall f_w, 1: base f_b). */
typedef struct {
  double dp[2][3];          /* d f / d p */
  double dgradp[2][3][3];   /* d f_a / d (gradp)_b   [surface][a][b] */
  double dh[2][3];          /* d f / d h (every closure and p_c included) */
  double dvw[2][3][3];      /* d f_a / d (vw)_b */
  double dvb[2][3][3];      /* d f_a / d (vb)_b */
  double dpc_dh;            /* d p_c / d h */
} FilmTractionSensitivity;
/* film_tractions and its derivatives (sens may be NULL: then it is film_tractions). */
void film_tractions_sens(const FilmFluid *fluid, const FilmContact *contact, const double n[3],
                         const FilmPointState *st, double p, const double gradp[3],
                         double fw[3], double fb[3], double *pc, FilmTractionSensitivity *sens);

/* (formulation.md §3) Lankarani-Nikravesh pressure for a film height h (penetration -h) and rate
   dhdt: p = (Kg d^e + eta d^e ddot)/Ac, d = max(0, -h), ddot = -dhdt, and p >= 0, both smoothed
   so that Newton sees a C1 law: d by a C1 cubic blend over the penetration width eps [m], the
   clamp p >= 0 over the elastic pressure at that penetration, Kg eps^e/Ac; both exact beyond
   their widths (eps <= 0: no smoothing).  Derivatives with respect to h, dhdt (either pointer may
   be NULL). */
double film_dry_pressure(double h, double dhdt, double Kg, double eta, double exponent, double Ac,
                         double eps, double *dp_dh, double *dp_ddhdt);

#endif
