/* Generalised-alpha time discretisation (galpha.h, formulation.md F15). */
#include <tribodyn/galpha.h>

void galpha_params(double rho_inf, GalphaParams *p)
{
  p->rho_inf = rho_inf;
  p->alpha_m = (2 * rho_inf - 1) / (rho_inf + 1);
  p->alpha_f = rho_inf / (rho_inf + 1);
  p->gamma   = 0.5 - p->alpha_m + p->alpha_f;
  p->beta    = 0.25 * (p->gamma + 0.5) * (p->gamma + 0.5);
}

double galpha_mass_coefficient(const GalphaParams *p, double dt) { return (1 - p->alpha_m) / ((1 - p->alpha_f) * p->beta * dt * dt); }

double galpha_velocity_coefficient(const GalphaParams *p, double dt) { return p->gamma / (p->beta * dt); }

void galpha_rates(const GalphaParams *p, double dt, long n, const double q1[], const double q0[], const double v0[], const double a0[], const double qdd0[], double v1[], double a1[], double qdd1[])
{
  const double ib = 1 / (p->beta * dt * dt), h = 0.5 - p->beta, g = p->gamma;
  const double cm = (1 - p->alpha_m) / (1 - p->alpha_f), ca = p->alpha_m / (1 - p->alpha_f), cq = p->alpha_f / (1 - p->alpha_f);
  for (long i = 0; i < n; i++) {
    double a = (q1[i] - q0[i] - dt * v0[i] - dt * dt * h * a0[i]) * ib;
    v1[i]    = v0[i] + dt * ((1 - g) * a0[i] + g * a);
    qdd1[i]  = cm * a + ca * a0[i] - cq * qdd0[i];
    if (a1) a1[i] = a;
  }
}

void galpha_predict(const GalphaParams *p, double dt, long n, const double q0[], const double v0[], const double a0[], double q1[])
{
  for (long i = 0; i < n; i++) q1[i] = q0[i] + dt * v0[i] + dt * dt * 0.5 * a0[i];
}
