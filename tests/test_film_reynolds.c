/*
  Average-Reynolds element kernel, tractions and dry-contact pressure
  (src/kernels/film_reynolds.c, formulation.md F10-F13 and §3):
    - geometry of a warped (non-planar) quad: sum_i X_i grad_s N_i^T = I - n n^T at every Gauss
      point (the surface gradient reproduces the tangential projector), sum_i grad_s N_i = 0,
      orthonormal (t1, t2, n), n . hint > 0, area of a flat parallelogram;
    - element residual on the warped quad with a varying film height, rough surfaces (gamma = 3,
      sigma_w != sigma_b) and 3-D velocities: K = dR/dp and every sensitivity (h, dhdt, vw, vb)
      against central finite differences of R;
    - a uniform pressure carries no Poiseuille flux (R unchanged, rows of K sum to 0);
    - patch test: on a flat patch of distorted quads, a linear pressure, a uniform film and uniform
      tangential velocities give zero residual at the interior nodes (isotropic roughness);
    - conservation: over a closed patch of curved elements the residuals sum to
      -int phi_c rho dh/dt (computed independently), and to 0 for dh/dt = 0;
    - tractions: every derivative against finite differences, the pressures act along -n on the
      wall and +n on the base, f_w + f_b = -phi_fp h grad p + 2 (mu/h) phi_fs T(vb - vw);
      sigma = 0 gives p_c = 0; v_eps = 0 with vw = vb gives no NaN;
    - dry pressure: the lumped Lankarani-Nikravesh law beyond the smoothing width, zero for h >= 0,
      p >= 0, C1 across the smoothing joins, derivatives against finite differences.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tribodyn/film_kernels.h>

#include "td_check.h"

/* a warped quad (mm scale), counter-clockwise seen from +z */
static const double XQ[4][3] = {{0.0, 0.0, 0.0}, {1.2e-3, 0.1e-3, 0.08e-3}, {1.1e-3, 1.0e-3, 0.15e-3}, {-0.1e-3, 0.9e-3, -0.05e-3}};

static void SetupFluid(FilmFluid *f, double gamma)
{
  f->rho = 889.0;
  f->mu  = 0.045;
  film_roughness_init(0.8e-6, 0.5e-6, gamma, &f->rough);
}

static void SetupState(FilmPointState st[4])
{
  /* sigma = 0.943 um: H = 1.3, 2.2, 3.6, 4.4 (away from the kinks at 0.5, 3, 5, 7) */
  static const double H[4] = {1.3, 2.2, 3.6, 4.4};
  const double        sigma = sqrt(0.8e-6 * 0.8e-6 + 0.5e-6 * 0.5e-6);
  for (int q = 0; q < 4; q++) {
    st[q].h    = H[q] * sigma;
    st[q].dhdt = 1e-5 * (q - 1.5);
    for (int k = 0; k < 3; k++) {
      st[q].vw[k] = 0.6 * (k == 0) + 0.1 * sin(1.0 + q + 2.0 * k);
      st[q].vb[k] = -0.2 * (k == 1) + 0.05 * cos(0.5 + 3.0 * q + k);
    }
  }
}

static double MaxAbs(const double *a, int n)
{
  double m = 0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

int main(void)
{
  const double hint[3] = {0.0, 0.0, -1.0}; /* base below the reference surface */

  /* 1. geometry */
  {
    FilmQuadGeometry g;
    double           eP = 0, eS = 0, eO = 0;
    int              orient = 1;
    film_quad_geometry(XQ, hint, &g);
    for (int q = 0; q < 4; q++) {
      double P[3][3] = {{0}}, S[3] = {0};
      for (int i = 0; i < 4; i++)
        for (int a = 0; a < 3; a++) {
          S[a] += g.gradN[q][i][a];
          for (int b = 0; b < 3; b++) P[a][b] += XQ[i][a] * g.gradN[q][i][b];
        }
      for (int a = 0; a < 3; a++) {
        eS = fmax(eS, fabs(S[a]) * 1e-3);
        for (int b = 0; b < 3; b++) eP = fmax(eP, fabs(P[a][b] - ((a == b) - g.n[q][a] * g.n[q][b])));
      }
      const double *n = g.n[q], *t1 = g.t1[q], *t2 = g.t2[q];
      double        nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2], tt1 = t1[0] * t1[0] + t1[1] * t1[1] + t1[2] * t1[2];
      double        tt2 = t2[0] * t2[0] + t2[1] * t2[1] + t2[2] * t2[2];
      double        o1 = t1[0] * n[0] + t1[1] * n[1] + t1[2] * n[2], o2 = t2[0] * n[0] + t2[1] * n[1] + t2[2] * n[2];
      double        o3 = t1[0] * t2[0] + t1[1] * t2[1] + t1[2] * t2[2];
      eO = fmax(eO, fmax(fmax(fabs(nn - 1), fabs(tt1 - 1)), fmax(fmax(fabs(tt2 - 1), fabs(o1)), fmax(fabs(o2), fabs(o3)))));
      orient = orient && (n[0] * hint[0] + n[1] * hint[1] + n[2] * hint[2] > 0);
    }
    printf("geometry of a warped quad: |sum X grad N^T - (I - n n^T)| = %.1e, |sum grad N| L = %.1e, orthonormality %.1e, n . hint > 0: %s\n", eP, eS, eO, orient ? "yes" : "NO");
    Check(eP < 1e-12 && eS < 1e-12 && eO < 1e-14 && orient, "quad geometry");
    /* flat parallelogram: area |a x b| */
    const double Xp[4][3] = {{0, 0, 0}, {2e-3, 0.5e-3, 0}, {2.7e-3, 2.0e-3, 0}, {0.7e-3, 1.5e-3, 0}};
    film_quad_geometry(Xp, NULL, &g);
    const double area = g.w[0] + g.w[1] + g.w[2] + g.w[3], exact = 2e-3 * 1.5e-3 - 0.5e-3 * 0.7e-3;
    printf("flat parallelogram: sum of weights %.12e, area %.12e; no hint: n = (%g, %g, %g) (counter-clockwise from +z: the wall is above, n points down)\n", area, exact, g.n[0][0], g.n[0][1], g.n[0][2]);
    Check(fabs(area / exact - 1) < 1e-13 && g.n[0][2] == -1.0, "parallelogram area and default orientation");
  }

  /* 2. residual derivatives against finite differences */
  {
    FilmQuadGeometry        g;
    FilmFluid               fl;
    FilmPointState          st[4];
    FilmReynoldsSensitivity sn;
    double                  p[4] = {1.2e6, 0.8e6, 1.5e6, 0.3e6}, R[4], K[4][4], Rp[4], Rm[4];
    double                  eK = 0, eh = 0, et = 0, ew = 0, eb = 0;
    film_quad_geometry(XQ, hint, &g);
    SetupFluid(&fl, 3.0);
    SetupState(st);
    film_reynolds_quad(&g, &fl, st, p, R, K, &sn);
    const double Rs = MaxAbs(R, 4) + 1e-30;
    for (int j = 0; j < 4; j++) { /* K: R is linear in p */
      const double dp = 1e3, p0 = p[j];
      p[j] = p0 + dp; film_reynolds_quad(&g, &fl, st, p, Rp, NULL, NULL);
      p[j] = p0 - dp; film_reynolds_quad(&g, &fl, st, p, Rm, NULL, NULL);
      p[j] = p0;
      for (int i = 0; i < 4; i++) eK = fmax(eK, fabs((Rp[i] - Rm[i]) / (2 * dp) - K[i][j]) / (fabs(K[i][i]) + 1e-30));
    }
    for (int q = 0; q < 4; q++) {
      double *fields[1 + 1 + 6];
      fields[0] = &st[q].h; fields[1] = &st[q].dhdt;
      for (int k = 0; k < 3; k++) { fields[2 + k] = &st[q].vw[k]; fields[5 + k] = &st[q].vb[k]; }
      for (int f = 0; f < 8; f++) {
        const double x0 = *fields[f], dx = f == 0 ? 1e-7 * x0 : (f == 1 ? 1e-7 : 1e-4);
        *fields[f] = x0 + dx; film_reynolds_quad(&g, &fl, st, p, Rp, NULL, NULL);
        *fields[f] = x0 - dx; film_reynolds_quad(&g, &fl, st, p, Rm, NULL, NULL);
        *fields[f] = x0;
        for (int i = 0; i < 4; i++) {
          const double fd = (Rp[i] - Rm[i]) / (2 * dx);
          double       an, sc;
          if (f == 0) { an = sn.dh[i][q]; sc = Rs / st[q].h; eh = fmax(eh, fabs(fd - an) / sc); }
          else if (f == 1) { an = sn.ddhdt[i][q]; sc = fabs(sn.ddhdt[i][q]) + 1e-30; et = fmax(et, fabs(fd - an) / sc); }
          else if (f < 5) { an = sn.dvw[i][q][f - 2]; sc = Rs; ew = fmax(ew, fabs(fd - an) / sc); }
          else { an = sn.dvb[i][q][f - 5]; sc = Rs; eb = fmax(eb, fabs(fd - an) / sc); }
        }
      }
    }
    printf("element residual on the warped quad (gamma = 3, rough, varying h): R = (%.4e, %.4e, %.4e, %.4e) kg/s\n", R[0], R[1], R[2], R[3]);
    printf("  relative errors against central differences: K %.1e, dR/dh %.1e, dR/d(dhdt) %.1e, dR/dvw %.1e, dR/dvb %.1e\n", eK, eh, et, ew, eb);
    Check(eK < 1e-8, "K = dR/dp");
    Check(eh < 1e-6, "dR/dh (closures included)");
    Check(et < 1e-8 && ew < 1e-8 && eb < 1e-8, "dR/d(dhdt), dR/dvw, dR/dvb");
    /* symmetric negative semi-definite K */
    double asym = 0;
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) asym = fmax(asym, fabs(K[i][j] - K[j][i]) / fabs(K[0][0]));
    Check(asym < 1e-14 && K[0][0] < 0 && K[1][1] < 0, "K symmetric, negative diagonal");

    /* 3. uniform pressure: no Poiseuille flux */
    double pu[4] = {2e6, 2e6, 2e6, 2e6}, zero[4] = {0, 0, 0, 0}, R0[4], Ru[4], rs = 0, du = 0;
    film_reynolds_quad(&g, &fl, st, zero, R0, NULL, NULL);
    film_reynolds_quad(&g, &fl, st, pu, Ru, NULL, NULL);
    for (int i = 0; i < 4; i++) {
      du = fmax(du, fabs(Ru[i] - R0[i]) / Rs);
      rs = fmax(rs, fabs(K[i][0] + K[i][1] + K[i][2] + K[i][3]) / fabs(K[i][i]));
    }
    printf("uniform pressure 2 MPa: |R(p) - R(0)| / |R| = %.1e, row sums of K / diagonal = %.1e\n", du, rs);
    Check(du < 1e-12 && rs < 1e-12, "uniform pressure carries no Poiseuille flux");
  }

  /* 4. patch test on a flat patch of distorted quads (3 x 3 elements, 4 interior nodes) */
  {
    double    X[16][3], Rg[16] = {0};
    FilmFluid fl;
    SetupFluid(&fl, 1.0); /* isotropic: for gamma != 1 the roughness axes follow each quad's xi direction */
    /* plane through the origin spanned by e1, e2 (tilted in 3-D) */
    const double e1[3] = {0.8, 0.6, 0.0}, e2[3] = {-0.36, 0.48, 0.8}, n0[3] = {0.48, -0.64, 0.6};
    for (int j = 0; j < 4; j++)
      for (int i = 0; i < 4; i++) {
        double s1 = i * 1e-3, s2 = j * 1e-3;
        if (i > 0 && i < 3 && j > 0 && j < 3) { s1 += 0.23e-3 * sin(3.0 * i + j); s2 += 0.19e-3 * cos(i + 2.0 * j); }
        for (int k = 0; k < 3; k++) X[4 * j + i][k] = s1 * e1[k] + s2 * e2[k];
      }
    const double gp[3] = {3e8 * e1[0] - 1e8 * e2[0], 3e8 * e1[1] - 1e8 * e2[1], 3e8 * e1[2] - 1e8 * e2[2]}; /* Pa/m */
    double       Rmax = 0;
    for (int ej = 0; ej < 3; ej++)
      for (int ei = 0; ei < 3; ei++) {
        const int        nd[4] = {4 * ej + ei, 4 * ej + ei + 1, 4 * (ej + 1) + ei + 1, 4 * (ej + 1) + ei};
        double           Xe[4][3], p[4], R[4];
        FilmQuadGeometry g;
        FilmPointState   st[4];
        for (int a = 0; a < 4; a++) {
          for (int k = 0; k < 3; k++) Xe[a][k] = X[nd[a]][k];
          p[a] = 1e5 + gp[0] * Xe[a][0] + gp[1] * Xe[a][1] + gp[2] * Xe[a][2];
        }
        film_quad_geometry(Xe, n0, &g);
        for (int q = 0; q < 4; q++) {
          st[q].h = 2.0e-6; st[q].dhdt = 0;
          for (int k = 0; k < 3; k++) { st[q].vw[k] = 0.5 * e1[k] + 0.2 * e2[k] + 0.3 * n0[k]; st[q].vb[k] = -0.1 * e1[k] + 0.4 * e2[k] - 0.2 * n0[k]; }
        }
        film_reynolds_quad(&g, &fl, st, p, R, NULL, NULL);
        for (int a = 0; a < 4; a++) { Rg[nd[a]] += R[a]; Rmax = fmax(Rmax, fabs(R[a])); }
      }
    const double inner = fmax(fmax(fabs(Rg[5]), fabs(Rg[6])), fmax(fabs(Rg[9]), fabs(Rg[10])));
    printf("patch test (tilted flat patch, distorted quads, linear p, uniform film): interior residual / element residual = %.1e\n", inner / Rmax);
    Check(inner / Rmax < 1e-12, "patch test");
  }

  /* 5. conservation over a closed patch of curved elements (on a sphere, R = 5 mm) */
  {
    FilmFluid fl;
    SetupFluid(&fl, 3.0);
    const int    nt = 4, np = 3;
    double       sumR = 0, sumS = 0, sumR0 = 0, scale = 0;
    for (int a = 0; a < nt; a++)
      for (int b = 0; b < np; b++) {
        double Xe[4][3], p[4], R[4];
        const double th[4] = {0.3 + 0.1 * a, 0.3 + 0.1 * (a + 1), 0.3 + 0.1 * (a + 1), 0.3 + 0.1 * a};
        const double ph[4] = {0.1 * b, 0.1 * b, 0.1 * (b + 1), 0.1 * (b + 1)};
        for (int v = 0; v < 4; v++) {
          Xe[v][0] = 5e-3 * sin(th[v]) * cos(ph[v]);
          Xe[v][1] = 5e-3 * sin(th[v]) * sin(ph[v]);
          Xe[v][2] = 5e-3 * cos(th[v]);
          p[v]     = 1e6 * (1 + sin(3.0 * a + v + b));
        }
        const double     out[3] = {Xe[0][0], Xe[0][1], Xe[0][2]};
        FilmQuadGeometry g;
        FilmPointState   st[4];
        film_quad_geometry(Xe, out, &g);
        for (int q = 0; q < 4; q++) {
          FilmClosures c;
          st[q].h    = (1.5 + 0.4 * sin(a + 2.0 * q + b)) * 1e-6;
          st[q].dhdt = 2e-5 * cos(a + q - b);
          for (int k = 0; k < 3; k++) { st[q].vw[k] = 0.3 * sin(k + q + a); st[q].vb[k] = 0.2 * cos(k - q + b); }
          film_closures_eval(&fl.rough, st[q].h, &c);
          sumS += g.w[q] * c.phi_c * fl.rho * st[q].dhdt;
        }
        film_reynolds_quad(&g, &fl, st, p, R, NULL, NULL);
        for (int v = 0; v < 4; v++) { sumR += R[v]; scale = fmax(scale, fabs(R[v])); }
        /* uniform h, vw = vb tangential (the same vector, T applied by the kernel), dhdt = 0 */
        for (int q = 0; q < 4; q++) {
          st[q].h = 1.7e-6; st[q].dhdt = 0;
          for (int k = 0; k < 3; k++) st[q].vb[k] = st[q].vw[k];
        }
        film_reynolds_quad(&g, &fl, st, p, R, NULL, NULL);
        for (int v = 0; v < 4; v++) sumR0 += R[v];
      }
    printf("closed patch of 12 curved elements: sum of residuals %.6e, -int phi_c rho dh/dt %.6e (rel. diff %.1e); with dh/dt = 0: sum %.1e (element residuals ~%.1e)\n",
           sumR, -sumS, fabs(sumR + sumS) / fabs(sumS), sumR0, scale);
    Check(fabs(sumR + sumS) <= 1e-12 * scale * 48 && fabs(sumR0) <= 1e-13 * scale * 48, "conservation over a closed patch");
  }

  /* 6. tractions */
  {
    FilmFluid                 fl;
    FilmContact               ct = {0.003, 1.1538e11, 0.1, 1e-3};
    FilmPointState            st;
    FilmTractionSensitivity   s;
    FilmClosures              c;
    const double              n[3] = {0.1, -0.2, -0.97467943448089633}; /* unit */
    double                    gp[3] = {2e8, -1e8, 0}, fw[3], fb[3], pc, fwp[3], fbp[3], fwm[3], fbm[3], pcp, pcm;
    double                    e[5] = {0, 0, 0, 0, 0};
    SetupFluid(&fl, 3.0);
    { /* make gp tangential */
      const double d = gp[0] * n[0] + gp[1] * n[1] + gp[2] * n[2];
      for (int k = 0; k < 3; k++) gp[k] -= d * n[k];
    }
    st.h = 1.9 * fl.rough.sigma; st.dhdt = 0;
    for (int k = 0; k < 3; k++) { st.vw[k] = 0.4 * (k == 0) + 0.05 * k; st.vb[k] = -0.1 * (k == 1) + 0.02; }
    const double p = 3e6;
    film_tractions_sens(&fl, &ct, n, &st, p, gp, fw, fb, &pc, &s);
    film_closures_eval(&fl.rough, st.h, &c);
    const double fs = fmax(MaxAbs(fw, 3), MaxAbs(fb, 3));
    for (int f = 0; f < 11; f++) {
      double *x, dx;
      if (f == 0) { x = &st.h; dx = 1e-7 * st.h; }
      else if (f < 4) { x = &st.vw[f - 1]; dx = 1e-6; }
      else if (f < 7) { x = &st.vb[f - 4]; dx = 1e-6; }
      else if (f < 10) { x = &gp[f - 7]; dx = 1e2; }
      else { x = NULL; dx = 10.0; }
      const double x0 = x ? *x : p;
      if (x) *x = x0 + dx;
      film_tractions(&fl, &ct, n, &st, x ? p : p + dx, gp, fwp, fbp, &pcp);
      if (x) *x = x0 - dx;
      film_tractions(&fl, &ct, n, &st, x ? p : p - dx, gp, fwm, fbm, &pcm);
      if (x) *x = x0;
      for (int a = 0; a < 3; a++)
        for (int sfc = 0; sfc < 2; sfc++) {
          const double fd = ((sfc ? fbp[a] : fwp[a]) - (sfc ? fbm[a] : fwm[a])) / (2 * dx);
          double       an;
          int          slot;
          if (f == 0) { an = s.dh[sfc][a]; slot = 0; }
          else if (f < 4) { an = s.dvw[sfc][a][f - 1]; slot = 1; }
          else if (f < 7) { an = s.dvb[sfc][a][f - 4]; slot = 2; }
          else if (f < 10) { an = s.dgradp[sfc][a][f - 7]; slot = 3; }
          else { an = s.dp[sfc][a]; slot = 4; }
          const double sc = f == 0 ? fs / st.h : (f < 7 ? fs : (f < 10 ? fs / MaxAbs(gp, 3) : 1.0));
          e[slot] = fmax(e[slot], fabs(fd - an) / sc);
        }
      if (f == 0) e[0] = fmax(e[0], fabs((pcp - pcm) / (2 * dx) - s.dpc_dh) / (fabs(s.dpc_dh)));
    }
    printf("tractions (p = 3 MPa, H = 1.9, p_c = %.4e Pa): f_w = (%.4e, %.4e, %.4e), f_b = (%.4e, %.4e, %.4e)\n", pc, fw[0], fw[1], fw[2], fb[0], fb[1], fb[2]);
    printf("  relative errors against central differences: d/dh %.1e, d/dvw %.1e, d/dvb %.1e, d/dgradp %.1e, d/dp %.1e\n", e[0], e[1], e[2], e[3], e[4]);
    Check(e[0] < 1e-6 && e[1] < 1e-7 && e[2] < 1e-7 && e[3] < 1e-9 && e[4] < 1e-9, "traction derivatives");
    /* pc, normal parts, and the sum identity */
    const double pcx = ct.K * ct.E_star * c.F52;
    double       fnw = 0, fnb = 0, sumerr = 0, Td[3], d[3];
    for (int k = 0; k < 3; k++) { fnw += fw[k] * n[k]; fnb += fb[k] * n[k]; d[k] = st.vb[k] - st.vw[k]; }
    const double dn = d[0] * n[0] + d[1] * n[1] + d[2] * n[2];
    for (int k = 0; k < 3; k++) Td[k] = d[k] - dn * n[k];
    for (int k = 0; k < 3; k++) {
      const double want = -c.phi_fp * st.h * gp[k] + 2 * fl.mu / st.h * c.phi_fs * Td[k];
      sumerr = fmax(sumerr, fabs(fw[k] + fb[k] - want) / fs);
    }
    printf("  p_c = K E* F52(H) to %.1e; f_w . n = %.6e = -(p + p_c) (%.1e); f_b . n = %.6e (%.1e); f_w + f_b identity %.1e\n",
           fabs(pc / pcx - 1), fnw, fabs(fnw + p + pc) / p, fnb, fabs(fnb - p - pc) / p, sumerr);
    Check(fabs(pc / pcx - 1) < 1e-15 && fabs(fnw + p + pc) / p < 1e-14 && fabs(fnb - p - pc) / p < 1e-14 && sumerr < 1e-14, "traction normal parts and sum identity");
    /* smooth surfaces, no regularisation, equal velocities: finite */
    FilmFluid   sm = fl;
    FilmContact c0 = ct;
    film_roughness_init(0, 0, 1, &sm.rough);
    c0.v_eps = 0;
    for (int k = 0; k < 3; k++) st.vb[k] = st.vw[k];
    film_tractions_sens(&sm, &c0, n, &st, p, gp, fw, fb, &pc, &s);
    int finite = pc == 0;
    for (int k = 0; k < 3; k++) finite = finite && isfinite(fw[k]) && isfinite(fb[k]) && isfinite(s.dvw[0][k][0]) && isfinite(s.dh[1][k]);
    printf("  sigma = 0, v_eps = 0, vw = vb: p_c = %g, tractions and derivatives finite: %s\n", pc, finite ? "yes" : "NO");
    Check(finite, "smooth, unregularised limit finite");
  }

  /* 7. dry contact pressure */
  {
    const double Kg = 70e6, eta = 50e7, ex = 1.5, Ac = 1.6e-3, eps = 1e-7;
    double       eL = 0, eD = 0, eC = 0, dh, dd;
    int          nonneg = 1;
    /* lumped law beyond the smoothing width */
    for (int k = 0; k < 5; k++) {
      const double delta = (2 + 3 * k) * eps, ddot = -0.05 + 0.02 * k, hh = -delta;
      const double pN = film_dry_pressure(hh, -ddot, Kg, eta, ex, Ac, eps, &dh, &dd);
      const double F  = Kg * pow(delta, ex) + eta * pow(delta, ex) * ddot;
      if (F > Kg * pow(eps, ex)) eL = fmax(eL, fabs(pN * Ac / F - 1));
    }
    /* derivatives against central differences over the smoothing zones and beyond */
    for (int i = 0; i < 40; i++)
      for (int j = 0; j < 9; j++) {
        const double hh = -3.1e-7 + 3.4e-7 * i / 39.0 + 1.3e-10, v = -0.3 + 0.07 * j + 1e-4; /* dhdt */
        const double p0 = film_dry_pressure(hh, v, Kg, eta, ex, Ac, eps, &dh, &dd);
        const double sh = 1e-13, sv = 1e-7;
        const double fdh = (film_dry_pressure(hh + sh, v, Kg, eta, ex, Ac, eps, NULL, NULL) - film_dry_pressure(hh - sh, v, Kg, eta, ex, Ac, eps, NULL, NULL)) / (2 * sh);
        const double fdv = (film_dry_pressure(hh, v + sv, Kg, eta, ex, Ac, eps, NULL, NULL) - film_dry_pressure(hh, v - sv, Kg, eta, ex, Ac, eps, NULL, NULL)) / (2 * sv);
        const double sc  = Kg * pow(eps, ex) / Ac; /* pressure scale */
        eD = fmax(eD, fmax(fabs(fdh - dh) / (sc / eps), fabs(fdv - dd) / (sc / 0.1)));
        nonneg = nonneg && p0 >= 0 && (hh < 0 || (p0 == 0 && dh == 0 && dd == 0));
      }
    /* C1 at the joins: h = 0, h = -eps, and where the raw pressure meets its smoothing width */
    {
      const double joins[2] = {0.0, -eps};
      for (int k = 0; k < 2; k++) {
        double d1, d2, v1, v2;
        const double a = 1e-15;
        film_dry_pressure(joins[k] - a, 0.01, Kg, eta, ex, Ac, eps, &d1, &v1);
        film_dry_pressure(joins[k] + a, 0.01, Kg, eta, ex, Ac, eps, &d2, &v2);
        eC = fmax(eC, fabs(d1 - d2) / (Kg * pow(eps, ex) / Ac / eps));
      }
      /* delta = 2 eps: the raw pressure equals the width when Kg + eta ddot = Kg 2^-1.5 */
      const double delta = 2 * eps, ddot = (Kg * pow(2.0, -ex) - Kg) / eta;
      double       d1, d2, v1, v2;
      film_dry_pressure(-delta, -(ddot - 1e-9), Kg, eta, ex, Ac, eps, &d1, &v1);
      film_dry_pressure(-delta, -(ddot + 1e-9), Kg, eta, ex, Ac, eps, &d2, &v2);
      eC = fmax(eC, fabs(v1 - v2) / fabs(v2));
    }
    printf("dry pressure: lumped law beyond eps to %.1e, derivatives vs central differences %.1e, jumps of the derivatives at the joins %.1e, p >= 0 and 0 for h >= 0: %s\n", eL, eD, eC, nonneg ? "yes" : "NO");
    Check(eL < 1e-14 && eD < 1e-6 && eC < 1e-6 && nonneg, "dry pressure");
  }

  return td_finish();
}
