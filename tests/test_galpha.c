/*
  Generalised-alpha (formulation.md §5) on the oscillator qdd + w^2 q = 0, stepped with the
  same functions the solver uses (src/kernels/galpha.c):
    - spectral radius at w dt = 1e6 equals rho_inf (to the O((w dt)^(-2/3)) splitting of its triple root) (Chung & Hulbert's design property), from the
      growth of the state over many steps;
    - second order: the largest error against cos(w t) over a period falls by 4 when dt halves;
    - rho_inf = 1 conserves the oscillator's energy.
*/
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <tribodyn/galpha.h>

/* One step of qdd + w2 q = 0: the residual qdd1(q1) + w2 q1 is affine in q1, solved exactly. */
static void Step(const GalphaParams *p, double dt, double w2, double *q, double *v, double *a, double *qdd)
{
  double q1, v1, a1, qdd1, r0, r1;
  double z = 0, one = 1;
  galpha_rates(p, dt, 1, &z, q, v, a, qdd, &v1, &a1, &qdd1);
  r0 = qdd1 + w2 * z;
  galpha_rates(p, dt, 1, &one, q, v, a, qdd, &v1, &a1, &qdd1);
  r1 = qdd1 + w2 * one;
  q1 = -r0 / (r1 - r0);
  galpha_rates(p, dt, 1, &q1, q, v, a, qdd, &v1, &a1, &qdd1);
  *q = q1; *v = v1; *a = a1; *qdd = qdd1;
}

int main(void)
{
  int failed = 0, passed = 0;
  const double rhos[] = {0.0, 0.5, 0.8, 0.9, 1.0};
  printf("generalised-alpha on qdd + w^2 q = 0\n");
  for (int i = 0; i < 5; i++) {
    /* amplification matrix of the state (q, dt v, dt^2 a) at w dt = 1e4, its eigenvalues by
       Durand-Kerner on the characteristic cubic */
    GalphaParams    p;
    const double    w = 1.0, dt = 1e6, w2 = w * w;
    double          A[3][3], c2, c1, c0, rho = 0;
    double complex  z[3] = {0.4 + 0.9 * I, -0.7 + 0.2 * I, 0.1 - 0.8 * I};
    galpha_params(rhos[i], &p);
    for (int j = 0; j < 3; j++) {
      double x[3] = {0, 0, 0}, q, v, a, qdd;
      x[j] = 1;
      q = x[0]; v = x[1] / dt; a = x[2] / (dt * dt); qdd = -w2 * q;
      Step(&p, dt, w2, &q, &v, &a, &qdd);
      A[0][j] = q; A[1][j] = v * dt; A[2][j] = a * dt * dt;
    }
    c2 = -(A[0][0] + A[1][1] + A[2][2]);
    c1 = A[0][0] * A[1][1] - A[0][1] * A[1][0] + A[0][0] * A[2][2] - A[0][2] * A[2][0] + A[1][1] * A[2][2] - A[1][2] * A[2][1];
    c0 = -(A[0][0] * (A[1][1] * A[2][2] - A[1][2] * A[2][1]) - A[0][1] * (A[1][0] * A[2][2] - A[1][2] * A[2][0]) + A[0][2] * (A[1][0] * A[2][1] - A[1][1] * A[2][0]));
    for (int it = 0; it < 2000; it++)
      for (int r = 0; r < 3; r++) {
        double complex num = ((z[r] + c2) * z[r] + c1) * z[r] + c0, den = 1;
        for (int s = 0; s < 3; s++)
          if (s != r) den *= z[r] - z[s];
        z[r] -= num / den;
      }
    for (int r = 0; r < 3; r++) rho = fmax(rho, cabs(z[r]));
    {
      /* at w dt = 1e6 the triple root -rho_inf splits by about (w dt)^(-2/3) = 1e-4 */
      int ok = fabs(rho - rhos[i]) <= 3e-4;
      printf("  rho_inf %.2f: spectral radius at w dt = 1e6: %.6f  error %.2e %s\n", rhos[i], rho, fabs(rho - rhos[i]), ok ? "ok" : "FAIL");
      ok ? passed++ : failed++;
    }
  }
  for (int i = 0; i < 5; i++) {
    GalphaParams p;
    const double w = 2 * M_PI, w2 = w * w, T = 1.0;
    double       err[3];
    galpha_params(rhos[i], &p);
    for (int l = 0; l < 3; l++) {
      int    n  = 200 << l;
      double dt = T / n, q = 1, v = 0, a = -w2, qdd = -w2;
      err[l] = 0;
      for (int k = 0; k < n; k++) {
        Step(&p, dt, w2, &q, &v, &a, &qdd);
        err[l] = fmax(err[l], fabs(q - cos(w * (k + 1) * dt)));
      }
    }
    {
      double order = log2(err[1] / err[2]);
      int    ok    = fabs(order - 2) < 0.1;
      printf("  rho_inf %.2f: errors %.3e %.3e %.3e, observed order %.3f %s\n", rhos[i], err[0], err[1], err[2], order, ok ? "ok" : "FAIL");
      ok ? passed++ : failed++;
    }
  }
  {
    GalphaParams p;
    const double w = 2 * M_PI, w2 = w * w, dt = 0.01;
    double       q = 1, v = 0, a = -w2, qdd = -w2, e0 = 0.5 * w2, emax = 0;
    galpha_params(1.0, &p);
    for (int k = 0; k < 10000; k++) {
      Step(&p, dt, w2, &q, &v, &a, &qdd);
      emax = fmax(emax, fabs(0.5 * v * v + 0.5 * w2 * q * q - e0) / e0);
    }
    int ok = emax < 1e-10;
    printf("  rho_inf 1: energy drift over 10000 steps %.2e %s\n", emax, ok ? "ok" : "FAIL");
    ok ? passed++ : failed++;
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
