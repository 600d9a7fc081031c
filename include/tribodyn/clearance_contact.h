#ifndef TRIBODYN_CLEARANCE_CONTACT_H
#define TRIBODYN_CLEARANCE_CONTACT_H
/*
  Dry contact of a pin in a hole with radial clearance: the force law of a revolute clearance
  joint (src/kernels/clearance_contact.c, formulation.md (F24)).

  Each side s (A: the pin's body, B: the hole's body) is described at the joint centre by its
  position x_s and the gradient columns r_s,j = dx/dX_j (j = 1, 2, 3, global reference axes) of
  the material point there, and by their rates; z = [x_A, r_A,1, r_A,2, r_A,3, x_B, r_B,1, r_B,2,
  r_B,3] (24 values) and zdot.  With the hole axis u = F_B u0 / |F_B u0| (F_B = [r_B,1 r_B,2
  r_B,3]):
      d = x_A - x_B,  e = d - (d.u) u,  delta = |e| - c,  n = e / |e|,  t = u x n,
      w_s = (1/2) sum_j r_s,j x rdot_s,j                       (angular velocity, F19)
      deltadot = n . ddot,   v_t = t . ddot + R_A w_A . u - R_B w_B . u  (slip at the contact)
      F_N = max(0, K delta^n (1 + 3 (1 - c_e^2) / 4 deltadot / v_imp))   for delta > 0, else 0
            (Lankarani-Nikravesh; v_imp the approach speed at the start of the contact)
      F_T = -mu F_N v_t / sqrt(v_t^2 + v_eps^2)                  (regularised Coulomb)
  The force on the pin is g = -F_N n + F_T t, its moment about the pin centre M_A = R_A F_T u;
  the hole takes -g and M_B = -R_B F_T u.  f is their virtual-power conjugate on z: f_xA = g,
  f_rA,j = (1/2) M_A x r_A,j, f_xB = -g, f_rB,j = (1/2) M_B x r_B,j, so that f . zdot =
  -F_N deltadot + F_T v_t (friction dissipates).

  clearance_contact_jacobian differentiates f with respect to z and zdot by the complex step
  (f evaluated in complex arithmetic with z_k + i h, h = 1e-30: df/dz_k = Im f / h, exact to
  rounding since no difference is taken), so the force law is written once.  Pure C99: no
  allocation, no globals.
*/

typedef struct {
  double K;            /* contact stiffness [N/m^n] */
  double exponent;     /* n */
  double restitution;  /* c_e */
  double mu;           /* friction coefficient */
  double v_eps;        /* friction regularisation speed [m/s] */
  double clearance;    /* c = R_B - R_A [m] */
  double radius_pin;   /* R_A [m] */
  double radius_hole;  /* R_B [m] */
  double u0[3];        /* hole axis in B's reference configuration (unit) */
} ClearanceContactLaw;

typedef struct {
  double delta, deltadot; /* penetration [m] and its rate [m/s] */
  double FN, FT;          /* normal and friction force [N] */
  double n[3], u[3];      /* contact normal (hole centre towards pin centre), hole axis */
  double eccentricity[3]; /* e [m] */
  double slip;            /* v_t [m/s] */
} ClearanceContactState;

/* Generalised forces f (24) at (z, zdot) with the approach speed v_imp > 0; st may be NULL.
   Returns 1 when the centres coincide in the radial plane (|e| = 0: no normal), with f = 0. */
int clearance_contact(const ClearanceContactLaw *law, double v_imp, const double z[24], const double zdot[24], double f[24], ClearanceContactState *st);

/* df/dz and df/dzdot (24 x 24, row-major: [i][k] = df_i/dz_k). */
void clearance_contact_jacobian(const ClearanceContactLaw *law, double v_imp, const double z[24], const double zdot[24], double dfdz[24][24], double dfdzdot[24][24]);

/* Stiffness of a pin in a hole (Flores et al. 2006, after Johnson):
   K = 4 / (3 (s_A + s_B)) sqrt(R_A R_B / (R_B - R_A)), s = (1 - nu^2) / E. */
double clearance_contact_stiffness(double E_A, double nu_A, double E_B, double nu_B, double R_A, double R_B);
#endif
