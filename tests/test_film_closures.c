/*
  Mixed-lubrication closures (src/kernels/film_closures.c, formulation.md §2.1):
    - gamma = 1 closures against the reference table of formulation.md §2.1 (5 decimals);
    - F_5/2 against the five exact values (1e-6 relative) and against an independent quadrature
      (exp-sinh, double-exponential, of the integral as defined) at 55 points of [-3, 6] and at
      points beyond (1e-6 relative required; the error is printed), dF_5/2/dH against
      -(5/2) F_3/2 by the same quadrature (d/dH int_H (s-H)^n phi(s) ds = -n F_(n-1));
      F_5/2 C1 at the joins of its pieces, finite, positive and decreasing on [-50, 40];
    - every derivative d/dh against a central finite difference (gamma = 3, sigma_w != sigma_b);
    - phi_y(gamma) = phi_x(1/gamma) for the seven gammas; sigma = 0 gives the smooth limits;
    - consistency of the Patir-Cheng shear-flow rows: both branches of Phi_s meet at H = 5.
  `test_film_closures --generate` prints the Chebyshev tables of film_F52 (the offline generator).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tribodyn/film_kernels.h>

#include "td_check.h"

/* ---------------------------------------------------------------------------------------------- */
/* Independent quadrature: exp-sinh (double exponential) rule for
     F_n(H) = (2 pi)^-1/2 int_0^inf t^n exp(-(t+H)^2/2) dt,   t = exp((pi/2) sinh u),
   trapezoidal in u with step 1/128 on [-6, 6] (the integrand then decays double-exponentially at
   both ends; the t^n singularity at 0 is harmless).  For H > 0 the factor exp(-H^2/2) is taken out
   so that the relative accuracy holds far in the tail. */
static double QuadF(double n, double H)
{
  const double hs = 1.0 / 128.0, c = 1.5707963267948966;
  double       s = 0.0;
  const double pre = H > 0 ? -0.5 * H * H : 0.0;
  for (int k = -6 * 128; k <= 6 * 128; k++) {
    const double u = k * hs, sh = sinh(u), t = exp(c * sh), dt = t * c * cosh(u);
    if (t == 0.0 || !isfinite(dt)) continue;
    const double e = -0.5 * (t + H) * (t + H) - pre; /* = -t^2/2 - H t (- H^2/2 for H <= 0) */
    const double v = exp(n * log(t) + e) * dt;
    if (isfinite(v)) s += v;
  }
  return s * hs / sqrt(2.0 * 3.14159265358979324) * exp(pre);
}

/* ---------------------------------------------------------------------------------------------- */
/* Generator of the film_F52 tables (composite Gauss-Legendre, Chebyshev-Lobatto interpolation). */
static double GLx[40], GLw[40];
static void GaussLegendre(int n)
{
  for (int i = 1; i <= n; i++) {
    double x = cos(3.14159265358979324 * (i - 0.25) / (n + 0.5)), p0, p1, dp;
    for (int it = 0; it < 100; it++) {
      p0 = 1.0; p1 = x;
      for (int k = 2; k <= n; k++) { const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k; p0 = p1; p1 = p2; }
      dp = n * (x * p1 - p0) / (x * x - 1);
      const double dx = p1 / dp;
      x -= dx;
      if (fabs(dx) < 1e-16) break;
    }
    p0 = 1.0; p1 = x;
    for (int k = 2; k <= n; k++) { const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k; p0 = p1; p1 = p2; }
    dp = n * (x * p1 - p0) / (x * x - 1);
    GLx[i - 1] = x; GLw[i - 1] = 2.0 / ((1 - x * x) * dp * dp);
  }
}
typedef double (*Fn1)(double, double);
static double Integrate(Fn1 f, double par, double a, double b, int panels)
{
  double s = 0.0, h = (b - a) / panels;
  for (int p = 0; p < panels; p++) {
    const double c = a + (p + 0.5) * h;
    for (int j = 0; j < 40; j++) s += GLw[j] * f(c + 0.5 * h * GLx[j], par);
  }
  return s * 0.5 * h;
}
static double IntA(double u, double H) { return 2 * pow(u, 6) * exp(-0.5 * (u * u + H) * (u * u + H)); }
static double IntB(double w, double y) { return 2 * pow(w, 6) * exp(-w * w - 0.5 * y * pow(w, 4)); }
static double GenA(double H) { return log(Integrate(IntA, H, 0.0, sqrt(fmax(0.0, -H) + 12.0), 16) / sqrt(2 * 3.14159265358979324)); }
static double GenB(double y) { return y == 0 ? 0.0 : log(Integrate(IntB, y, 0.0, 7.0, 16) / 3.3233509704478426); }
static double GenC(double y)
{
  if (y == 0) return 0.0;
  const double a = 1 / sqrt(y), lo = sqrt(fmax(a - 12, 0.0)), hi = sqrt(a + 12);
  return log(Integrate(IntA, -a, lo, hi, 16) / sqrt(2 * 3.14159265358979324) / pow(a, 2.5));
}
static void Emit(const char *name, double (*f)(double), double a, double b, int N)
{
  double fv[64];
  printf("static const double %s[%d] = {\n", name, N + 1);
  for (int k = 0; k <= N; k++) fv[k] = f(a + (b - a) * (cos(3.14159265358979324 * k / N) + 1) / 2);
  for (int j = 0; j <= N; j++) {
    double s = 0.0;
    for (int k = 0; k <= N; k++) s += (k == 0 || k == N ? 0.5 : 1.0) * fv[k] * cos(3.14159265358979324 * j * k / N);
    s *= 2.0 / N;
    if (j == 0 || j == N) s *= 0.5;
    printf("%s%.17e,%s", j % 3 == 0 ? "  " : " ", s, j % 3 == 2 || j == N ? "\n" : "");
  }
  printf("};\n");
}

/* ---------------------------------------------------------------------------------------------- */
static const char *NAMES[8] = {"phi_x", "phi_y", "phi_s", "phi_c", "phi_f", "phi_fs", "phi_fp", "F52"};
static void Values(const FilmClosures *c, double v[8], double d[8])
{
  v[0] = c->phi_x; v[1] = c->phi_y; v[2] = c->phi_s; v[3] = c->phi_c; v[4] = c->phi_f; v[5] = c->phi_fs; v[6] = c->phi_fp; v[7] = c->F52;
  d[0] = c->dphi_x; d[1] = c->dphi_y; d[2] = c->dphi_s; d[3] = c->dphi_c; d[4] = c->dphi_f; d[5] = c->dphi_fs; d[6] = c->dphi_fp; d[7] = c->dF52;
}

int main(int argc, char **argv)
{
  char msg[256];
  if (argc > 1 && !strcmp(argv[1], "--generate")) {
    GaussLegendre(40);
    Emit("F52_CHEB_A", GenA, -3.0, 6.0, 32);
    Emit("F52_CHEB_B", GenB, 0.0, 1.0 / 36, 18);
    Emit("F52_CHEB_C", GenC, 0.0, 1.0 / 9, 28);
    return 0;
  }

  /* 1. gamma = 1 against formulation.md §2.1 (sigma_b = 0 so that phi_s = Phi_s, phi_fs = Phi_fs) */
  {
    static const double Hs[5] = {0.5, 1.0, 2.0, 3.0, 5.0};
    static const double ref[5][6] = {
      {0.31979, 0.61542, 0.90700, 0.69997, -0.00649, 0.68991},
      {0.48591, 0.79559, 1.63659, 1.14677, 0.27641, 0.84105},
      {0.70635, 0.72659, 1.74598, 0.73207, 0.62601, 0.97785},
      {0.83226, 0.55320, 1.16667, 0.29961, 0.80670, 1.00000},
      {0.94527, 0.32257, 1.04458, 0.04855, 0.94836, 1.00000},
    };
    FilmRoughness r;
    double        worst = 0;
    Check(film_roughness_init(0.8e-6, 0.0, 1.0, &r) == 0, "roughness init gamma = 1");
    printf("closures at gamma = 1 against formulation.md 2.1 (phi_x Phi_s phi_f Phi_fs phi_fp phi_c):\n");
    for (int k = 0; k < 5; k++) {
      FilmClosures c;
      film_closures_eval(&r, Hs[k] * r.sigma, &c);
      const double v[6] = {c.phi_x, c.phi_s, c.phi_f, c.phi_fs, c.phi_fp, c.phi_c};
      printf("  H = %.1f:", Hs[k]);
      for (int j = 0; j < 6; j++) {
        const double e = fabs(v[j] - ref[k][j]);
        worst = fmax(worst, e);
        printf(" %9.5f", v[j]);
        snprintf(msg, sizeof msg, "closure %d at H = %g: %.7f vs %.5f", j, Hs[k], v[j], ref[k][j]);
        Check(e <= 5.0e-6 + 1e-12, msg);
      }
      printf("\n");
    }
    printf("  largest difference from the table %.2e (table rounded to 5e-6)\n", worst);
  }

  /* 2. F_5/2: exact values, independent quadrature, derivative = -(5/2) F_3/2 */
  {
    static const double Hx[5] = {0, 1, 2, 3, 4}, Fx[5] = {0.61663422, 0.080562336, 0.0054237052, 1.70873e-4, 2.3533811e-6};
    double              e1 = 0, e2 = 0, e3 = 0, e4 = 0, e5 = 0;
    printf("F_5/2 against the exact values of formulation.md 2.1:\n");
    for (int k = 0; k < 5; k++) {
      const double F = film_F52(Hx[k], NULL), e = fabs(F / Fx[k] - 1);
      e1 = fmax(e1, e);
      printf("  F(%g) = %.10e  (ref %.8e, rel. err %.1e)\n", Hx[k], F, Fx[k], e);
      snprintf(msg, sizeof msg, "F52(%g)", Hx[k]);
      Check(e <= 1e-6, msg);
    }
    /* the reference quadrature against the same values first (validates the reference) */
    for (int k = 0; k < 5; k++) e2 = fmax(e2, fabs(QuadF(2.5, Hx[k]) / Fx[k] - 1));
    printf("  reference quadrature vs the exact values: largest rel. err %.1e\n", e2);
    Check(e2 <= 1e-6, "reference quadrature reproduces the exact values");
    for (int k = 0; k <= 54; k++) { /* 55 points on [-3, 6] */
      const double H = -3.0 + 9.0 * k / 54.0 + (k > 0 && k < 54 ? 0.0123 : 0.0);
      double       dF;
      const double F = film_F52(H, &dF), Fq = QuadF(2.5, H), F32 = QuadF(1.5, H);
      e3 = fmax(e3, fabs(F / Fq - 1));
      e4 = fmax(e4, fabs(dF / (-2.5 * F32) - 1));
    }
    printf("  55 points on [-3, 6]: largest rel. err of F_5/2 %.2e, of dF/dH vs -(5/2)F_3/2 %.2e\n", e3, e4);
    Check(e3 <= 1e-6, "F52 vs independent quadrature on [-3, 6]");
    Check(e4 <= 1e-6, "dF52 vs -(5/2) F_3/2 on [-3, 6]");
    for (int k = 0; k <= 40; k++) { /* beyond: [-20, -3] and [6, 30] */
      const double H = k <= 20 ? -20.0 + 17.0 * k / 20.0 - 0.011 : 6.0 + 24.0 * (k - 21) / 19.0 + 0.017;
      double       dF;
      const double F = film_F52(H, &dF);
      e5 = fmax(e5, fmax(fabs(F / QuadF(2.5, H) - 1), fabs(dF / (-2.5 * QuadF(1.5, H)) - 1)));
    }
    printf("  41 points on [-20, -3] and [6, 30]: largest rel. err of F_5/2 and of its derivative %.2e\n", e5);
    Check(e5 <= 1e-6, "F52 beyond [-3, 6]");
    /* continuity at the joins and monotonicity */
    {
      double jumpF = 0, jumpD = 0, Fprev = INFINITY, dprev;
      int    mono = 1;
      for (int s = 0; s < 2; s++) { /* each side extrapolated to the join to second order */
        const double Hj = s ? 6.0 : -3.0, eps = 1e-7;
        double       dl, dr, da, db;
        const double Fl = film_F52(Hj - eps, &dl), Fr = film_F52(Hj + eps, &dr);
        film_F52(Hj - 1e-3, &da);
        film_F52(Hj + 1e-3, &db);
        const double d2 = (db - da) / 2e-3;
        jumpF = fmax(jumpF, fabs((Fl + dl * eps) - (Fr - dr * eps)) / Fr);
        jumpD = fmax(jumpD, fabs((dl + d2 * eps) - (dr - d2 * eps)) / fabs(dr));
      }
      printf("  joins at H = -3, 6: relative jump of F %.1e, of dF/dH %.1e\n", jumpF, jumpD);
      Check(jumpF <= 1e-12 && jumpD <= 1e-9, "F52 continuous and C1 at the joins");
      for (double H = -50; H <= 40; H += 0.01) { /* strictly decreasing while F is a normal number */
        const double F = film_F52(H, &dprev);
        if (!isfinite(F) || !isfinite(dprev) || F < 0 || F > Fprev || dprev > 0 || (F > 1e-300 && !(F < Fprev && dprev < 0))) mono = 0;
        Fprev = F;
      }
      double d;
      const double Fbig = film_F52(-1e6, &d), Finf = film_F52(INFINITY, &d);
      printf("  F_5/2 on [-50, 40] finite, positive, decreasing: %s; F(-1e6) = %.4e (1e15 = (1e6)^2.5), F(inf) = %g\n", mono ? "yes" : "NO", Fbig, Finf);
      Check(mono && isfinite(Fbig) && fabs(Fbig / 1e15 - 1) < 1e-11 && Finf == 0 && d == 0, "F52 finite and monotone");
    }
  }

  /* 3. derivatives against central differences: gamma = 3 and 1/9, sigma_w != sigma_b */
  {
    static const double gam[2] = {3.0, 1.0 / 9};
    static const double Hs[] = {-0.7, 0.3, 0.8, 1.7, 2.6, 3.4, 4.2, 5.6, 6.5, 8.0, 12.0, 30.0};
    double              worst = 0;
    printf("derivatives d/dh against central differences (relative step 1e-6):\n");
    for (int gi = 0; gi < 2; gi++) {
      FilmRoughness r;
      film_roughness_init(0.8e-6, 0.5e-6, gam[gi], &r);
      for (size_t k = 0; k < sizeof Hs / sizeof Hs[0]; k++) {
        const double h = Hs[k] * r.sigma, dh = 1e-6 * fmax(fabs(h), r.sigma);
        FilmClosures c0, cp, cm;
        double       v0[8], d0[8], vp[8], dp[8], vm[8], dm[8];
        film_closures_eval(&r, h, &c0);
        film_closures_eval(&r, h + dh, &cp);
        film_closures_eval(&r, h - dh, &cm);
        Values(&c0, v0, d0); Values(&cp, vp, dp); Values(&cm, vm, dm);
        for (int j = 0; j < 8; j++) {
          const double fd = (vp[j] - vm[j]) / (2 * dh);
          const double sc = fmax(fabs(d0[j]), 1e-3 * fmax(fabs(v0[j]), 1e-3) / r.sigma);
          const double e  = fabs(fd - d0[j]) / sc;
          worst = fmax(worst, e);
          snprintf(msg, sizeof msg, "d%s/dh at H = %g, gamma = %g: %.8e vs FD %.8e", NAMES[j], Hs[k], gam[gi], d0[j], fd);
          Check(e <= 1e-6, msg);
        }
      }
    }
    printf("  8 closures x 12 film heights x 2 gammas: largest relative error %.2e\n", worst);
  }

  /* 4. directional roughness: phi_y(gamma) = phi_x(1/gamma) */
  {
    static const double gam[7] = {1.0 / 9, 1.0 / 6, 1.0 / 3, 1.0, 3.0, 6.0, 9.0};
    double              worst = 0;
    for (int g = 0; g < 7; g++) {
      FilmRoughness a, b;
      int           ok = !film_roughness_init(1e-6, 0.3e-6, gam[g], &a) && !film_roughness_init(1e-6, 0.3e-6, 1.0 / gam[g], &b);
      Check(ok, "roughness init for every gamma of the table");
      for (double H = 0.2; H < 9; H += 0.37) {
        FilmClosures ca, cb;
        film_closures_eval(&a, H * a.sigma, &ca);
        film_closures_eval(&b, H * b.sigma, &cb);
        worst = fmax(worst, fmax(fabs(ca.phi_y - cb.phi_x), fabs(ca.dphi_y - cb.dphi_x) * a.sigma));
      }
    }
    FilmPatirCheng pc;
    printf("phi_y(H, gamma) = phi_x(H, 1/gamma), 7 gammas x 24 heights: largest difference %.1e\n", worst);
    Check(worst == 0.0, "phi_y(gamma) = phi_x(1/gamma)");
    Check(film_patir_cheng(2.0, &pc) == -1 && film_patir_cheng(0.3333333, &pc) == 0 && film_patir_cheng(3.00001, &pc) == -1, "table lookup with relative tolerance 1e-6");
  }

  /* 5. sigma = 0: smooth limits, no NaN */
  {
    FilmRoughness r;
    FilmClosures  c;
    double        v[8], d[8];
    const double  want[8] = {1, 1, 0, 1, 1, 0, 1, 0};
    int           ok = film_roughness_init(0.0, 0.0, 3.0, &r) == 0;
    for (int k = 0; k < 3; k++) {
      film_closures_eval(&r, k == 0 ? 1e-6 : (k == 1 ? 0.0 : -1e-6), &c);
      Values(&c, v, d);
      for (int j = 0; j < 8; j++) ok = ok && v[j] == want[j] && d[j] == 0.0;
    }
    printf("sigma = 0: phi_x = phi_y = phi_c = phi_f = phi_fp = 1, phi_s = phi_fs = F52 = 0, derivatives 0: %s\n", ok ? "yes" : "NO");
    Check(ok, "sigma = 0 limits");
  }

  /* 6. consistency of the Patir-Cheng shear-flow rows: the two branches of Phi_s at H = 5 */
  {
    static const double gam[7] = {1.0 / 9, 1.0 / 6, 1.0 / 3, 1.0, 3.0, 6.0, 9.0};
    double              worst = 0;
    for (int g = 0; g < 7; g++) {
      FilmPatirCheng c;
      film_patir_cheng(gam[g], &c);
      const double lo = c.A1 * pow(5.0, c.a1) * exp(-c.a2 * 5 + c.a3 * 25), hi = c.A2 * exp(-1.25);
      worst = fmax(worst, fabs(lo / hi - 1));
    }
    printf("Patir-Cheng shear-flow rows: branches of Phi_s meet at H = 5 within %.2e relative (all gammas)\n", worst);
    Check(worst < 1e-3, "Phi_s branches meet at H = 5");
  }

  return td_finish();
}
