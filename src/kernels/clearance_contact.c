/*
  Dry contact of a pin in a hole with clearance (clearance_contact.h, formulation.md (F24)).  The
  force law is written once, in complex arithmetic: the real evaluation has zero imaginary parts,
  and the Jacobian is its complex-step derivative (each input perturbed by i h in turn).  Every
  operation below is analytic in the inputs away from the branch points |e| = 0 and delta = 0
  (csqrt of a sum of squares, not cabs; cpow of a base with positive real part), which the
  complex step needs; the branches (contact or not, F_N clipped at 0) are taken on real parts.
*/
#include <complex.h>
#include <math.h>
#include <stddef.h>
#include <tribodyn/clearance_contact.h>

typedef double complex cplx;

static cplx cdot3(const cplx a[3], const cplx b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void ccross3(const cplx a[3], const cplx b[3], cplx c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* (F24) at (z, zdot); st (real parts) may be NULL; returns 1 where |e| = 0. */
static int Evaluate(const ClearanceContactLaw *law, double v_imp, const cplx z[24], const cplx zd[24], cplx f[24], ClearanceContactState *st)
{
  cplx Fu[3] = {0, 0, 0}, u[3], d[3], dd[3], e[3], n[3], t[3], wA[3] = {0, 0, 0}, wB[3] = {0, 0, 0}, g[3];
  cplx lu, du, le2, le, delta, deltadot, vt, FN = 0, FT = 0;
  for (int i = 0; i < 24; i++) f[i] = 0;
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) Fu[i] += z[15 + 3 * j + i] * law->u0[j];
  lu = csqrt(cdot3(Fu, Fu));
  for (int i = 0; i < 3; i++) {
    u[i]  = Fu[i] / lu;
    d[i]  = z[i] - z[12 + i];
    dd[i] = zd[i] - zd[12 + i];
  }
  du = cdot3(d, u);
  for (int i = 0; i < 3; i++) e[i] = d[i] - du * u[i];
  le2 = cdot3(e, e);
  if (st) {
    for (int i = 0; i < 3; i++) {
      st->u[i]            = creal(u[i]);
      st->eccentricity[i] = creal(e[i]);
      st->n[i]            = 0;
    }
    st->delta = -law->clearance;
    st->deltadot = st->FN = st->FT = st->slip = 0;
  }
  if (!(creal(le2) > 0)) return 1;
  le = csqrt(le2);
  for (int i = 0; i < 3; i++) n[i] = e[i] / le;
  ccross3(u, n, t);
  for (int j = 0; j < 3; j++) {
    cplx c[3];
    ccross3(&z[3 + 3 * j], &zd[3 + 3 * j], c);
    for (int i = 0; i < 3; i++) wA[i] += 0.5 * c[i];
    ccross3(&z[15 + 3 * j], &zd[15 + 3 * j], c);
    for (int i = 0; i < 3; i++) wB[i] += 0.5 * c[i];
  }
  delta    = le - law->clearance;
  deltadot = cdot3(n, dd);
  vt       = cdot3(t, dd) + law->radius_pin * cdot3(wA, u) - law->radius_hole * cdot3(wB, u);
  if (creal(delta) > 0) {
    FN = law->K * cpow(delta, law->exponent) * (1 + 0.75 * (1 - law->restitution * law->restitution) * deltadot / v_imp);
    if (!(creal(FN) > 0)) FN = 0; /* a separating surface does not pull */
  }
  FT = -law->mu * FN * vt / csqrt(vt * vt + law->v_eps * law->v_eps);
  for (int i = 0; i < 3; i++) {
    g[i]      = -FN * n[i] + FT * t[i];
    f[i]      = g[i];
    f[12 + i] = -g[i];
  }
  for (int j = 0; j < 3; j++) {
    /* (1/2) M x r_,j with M_A = R_A F_T u, M_B = -R_B F_T u */
    cplx c[3];
    ccross3(u, &z[3 + 3 * j], c);
    for (int i = 0; i < 3; i++) f[3 + 3 * j + i] = 0.5 * law->radius_pin * FT * c[i];
    ccross3(u, &z[15 + 3 * j], c);
    for (int i = 0; i < 3; i++) f[15 + 3 * j + i] = -0.5 * law->radius_hole * FT * c[i];
  }
  if (st) {
    st->delta    = creal(delta);
    st->deltadot = creal(deltadot);
    st->FN       = creal(FN);
    st->FT       = creal(FT);
    st->slip     = creal(vt);
    for (int i = 0; i < 3; i++) st->n[i] = creal(n[i]);
  }
  return 0;
}

int clearance_contact(const ClearanceContactLaw *law, double v_imp, const double z[24], const double zdot[24], double f[24], ClearanceContactState *st)
{
  cplx zc[24], zdc[24], fc[24];
  int  ret;
  for (int i = 0; i < 24; i++) {
    zc[i]  = z[i];
    zdc[i] = zdot[i];
  }
  ret = Evaluate(law, v_imp, zc, zdc, fc, st);
  for (int i = 0; i < 24; i++) f[i] = creal(fc[i]);
  return ret;
}

void clearance_contact_jacobian(const ClearanceContactLaw *law, double v_imp, const double z[24], const double zdot[24], double dfdz[24][24], double dfdzdot[24][24])
{
  const double h = 1e-30;
  cplx         zc[24], zdc[24], fc[24];
  for (int i = 0; i < 24; i++) {
    zc[i]  = z[i];
    zdc[i] = zdot[i];
  }
  for (int k = 0; k < 24; k++) {
    zc[k] = z[k] + I * h;
    (void)Evaluate(law, v_imp, zc, zdc, fc, NULL);
    for (int i = 0; i < 24; i++) dfdz[i][k] = cimag(fc[i]) / h;
    zc[k]  = z[k];
    zdc[k] = zdot[k] + I * h;
    (void)Evaluate(law, v_imp, zc, zdc, fc, NULL);
    for (int i = 0; i < 24; i++) dfdzdot[i][k] = cimag(fc[i]) / h;
    zdc[k] = zdot[k];
  }
}

double clearance_contact_stiffness(double E_A, double nu_A, double E_B, double nu_B, double R_A, double R_B)
{
  const double sA = (1 - nu_A * nu_A) / E_A, sB = (1 - nu_B * nu_B) / E_B;
  return 4.0 / (3.0 * (sA + sB)) * sqrt(R_A * R_B / (R_B - R_A));
}
