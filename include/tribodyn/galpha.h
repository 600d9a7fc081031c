#ifndef TRIBODYN_GALPHA_H
#define TRIBODYN_GALPHA_H
/*
  Generalised-alpha with every equation at t_{n+1} (formulation.md §5, F15; Chung & Hulbert
  1993 parameters, Arnold & Bruls 2007 form).  Pure functions on arrays.

  Given q_n, v_n (= qdot_n), a_n (algorithmic acceleration), qdd_n (true acceleration) and the
  unknown q_{n+1}:
      a_{n+1}   = (q_{n+1} - q_n - dt v_n - dt^2 (1/2 - beta) a_n) / (beta dt^2)
      v_{n+1}   = v_n + dt ((1 - gamma) a_n + gamma a_{n+1})
      qdd_{n+1} = ((1 - alpha_m) a_{n+1} + alpha_m a_n - alpha_f qdd_n) / (1 - alpha_f)
  so d qdd_{n+1}/d q_{n+1} = 1/(beta' dt^2), d v_{n+1}/d q_{n+1} = gamma/(beta dt), with
  beta' = beta (1 - alpha_f)/(1 - alpha_m).
*/

typedef struct {
  double rho_inf, alpha_m, alpha_f, gamma, beta;
} GalphaParams;

/* alpha_m = (2 rho - 1)/(rho + 1), alpha_f = rho/(rho + 1), gamma = 1/2 - alpha_m + alpha_f,
   beta = (gamma + 1/2)^2 / 4  (paper eq. 25). */
void galpha_params(double rho_inf, GalphaParams *p);
/* Coefficients of the Newton matrix: dqdd/dq and dv/dq. */
double galpha_mass_coefficient(const GalphaParams *p, double dt);
double galpha_velocity_coefficient(const GalphaParams *p, double dt);
/* The rates at t_{n+1} from q_{n+1}, for n entries. */
void galpha_rates(const GalphaParams *p, double dt, long n, const double q1[], const double q0[], const double v0[], const double a0[], const double qdd0[], double v1[], double a1[], double qdd1[]);
/* The predictor q_{n+1} for a_{n+1} = a_n. */
void galpha_predict(const GalphaParams *p, double dt, long n, const double q0[], const double v0[], const double a0[], double q1[]);

#endif
