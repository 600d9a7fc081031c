/*
  Mass-conserving (JFO) element kernel film_reynolds_quad_jfo (formulation.md (F18)), against
  references outside it:
    - theta = 1 (full film): R, dR/dp and every sensitivity equal those of film_reynolds_quad;
    - dR/dp, dR/dtheta and the sensitivities to h, dh/dt, vw, vb at a partly cavitated state
      (theta from 0.3 to 1, a step's time term) against central finite differences;
    - mass: the transport part of the residuals sums to zero over the element (sum_i R_i is
      minus the lumped time terms exactly), so the assembled film conserves mass;
    - upwinding: the off-diagonal entries of dR/dtheta are non-negative (a monotone transport
      operator), for Couette flow along and across the quad.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tribodyn/film_kernels.h>

#include "td_check.h"

static const double XQ[4][3] = {{0.0, 0.0, 0.0}, {1.2e-3, 0.1e-3, 0.08e-3}, {1.1e-3, 1.0e-3, 0.15e-3}, {-0.1e-3, 0.9e-3, -0.05e-3}};

static void Setup(FilmFluid *f, FilmPointState st[4])
{
  static const double H[4] = {1.3, 2.2, 3.6, 4.4};
  f->rho = 889.0;
  f->mu  = 0.045;
  film_roughness_init(0.8e-6, 0.5e-6, 3.0, &f->rough);
  for (int q = 0; q < 4; q++) {
    st[q].h    = H[q] * f->rough.sigma;
    st[q].dhdt = 1e-5 * (q - 1.5);
    for (int k = 0; k < 3; k++) {
      st[q].vw[k] = 0.6 * (k == 0) + 0.1 * sin(1.0 + q + 2.0 * k);
      st[q].vb[k] = -0.2 * (k == 1) + 0.05 * cos(0.5 + 3.0 * q + k);
    }
  }
}

static double RelErr(double a, double b, double scale) { return fabs(a - b) / scale; }

int main(void)
{
  const double            hint[3] = {0.0, 0.0, -1.0};
  FilmQuadGeometry        g;
  FilmFluid               fl;
  FilmPointState          st[4];
  FilmReynoldsSensitivity s0, s1;
  double                  p[4] = {1.2e6, 0.8e6, 1.5e6, 0.3e6}, one[4] = {1, 1, 1, 1};
  double                  R0[4], R1[4], K0[4][4], Kp[4][4], Kt[4][4];
  film_quad_geometry(XQ, hint, &g);
  Setup(&fl, st);

  /* 1. full film */
  {
    double e = 0, scale = 0;
    film_reynolds_quad(&g, &fl, st, p, R0, K0, &s0);
    film_reynolds_quad_jfo(&g, &fl, st, p, one, one, 1e3, R1, Kp, Kt, &s1);
    for (int i = 0; i < 4; i++) scale = fmax(scale, fabs(R0[i]));
    for (int i = 0; i < 4; i++) {
      e = fmax(e, fabs(R1[i] - R0[i]) / scale);
      for (int j = 0; j < 4; j++) e = fmax(e, fabs(Kp[i][j] - K0[i][j]) / fabs(K0[0][0]));
    }
    check("theta = 1: R and dR/dp equal the full-film kernel's", e, 1e-13);
    e = 0;
    double sh = 0, st_ = 0, sv = 0;
    for (int i = 0; i < 4; i++)
      for (int q = 0; q < 4; q++) {
        sh  = fmax(sh, fabs(s0.dh[i][q]));
        st_ = fmax(st_, fabs(s0.ddhdt[i][q]));
        for (int k = 0; k < 3; k++) sv = fmax(sv, fmax(fabs(s0.dvw[i][q][k]), fabs(s0.dvb[i][q][k])));
      }
    for (int i = 0; i < 4; i++)
      for (int q = 0; q < 4; q++) {
        e = fmax(e, RelErr(s1.dh[i][q], s0.dh[i][q], sh));
        e = fmax(e, RelErr(s1.ddhdt[i][q], s0.ddhdt[i][q], st_));
        for (int k = 0; k < 3; k++) e = fmax(e, fmax(RelErr(s1.dvw[i][q][k], s0.dvw[i][q][k], sv), RelErr(s1.dvb[i][q][k], s0.dvb[i][q][k], sv)));
      }
    check("theta = 1: the sensitivities equal the full-film kernel's", e, 1e-12);
  }

  /* 2. partly cavitated: derivatives against central differences */
  {
    double theta[4] = {0.3, 0.55, 1.0, 0.8}, told[4] = {0.4, 0.5, 0.9, 1.0}, inv_dt = 2e3;
    double R[4], Rp[4], Rm[4], e;
    film_reynolds_quad_jfo(&g, &fl, st, p, theta, told, inv_dt, R, Kp, Kt, &s1);
    double scale = 0;
    for (int i = 0; i < 4; i++) scale = fmax(scale, fabs(R[i]));
    /* p */
    e = 0;
    for (int j = 0; j < 4; j++) {
      const double x0 = p[j], dx = 1e-4 * fabs(x0);
      p[j] = x0 + dx; film_reynolds_quad_jfo(&g, &fl, st, p, theta, told, inv_dt, Rp, NULL, NULL, NULL);
      p[j] = x0 - dx; film_reynolds_quad_jfo(&g, &fl, st, p, theta, told, inv_dt, Rm, NULL, NULL, NULL);
      p[j] = x0;
      for (int i = 0; i < 4; i++) e = fmax(e, fabs(Kp[i][j] * dx - 0.5 * (Rp[i] - Rm[i])) / scale);
    }
    check("cavitated: dR/dp vs central differences (per 1e-4 p step, of max |R|)", e, 1e-9);
    e = 0;
    for (int j = 0; j < 4; j++) {
      const double x0 = theta[j], dx = 1e-6;
      theta[j] = x0 + dx; film_reynolds_quad_jfo(&g, &fl, st, p, theta, told, inv_dt, Rp, NULL, NULL, NULL);
      theta[j] = x0 - dx; film_reynolds_quad_jfo(&g, &fl, st, p, theta, told, inv_dt, Rm, NULL, NULL, NULL);
      theta[j] = x0;
      for (int i = 0; i < 4; i++) e = fmax(e, fabs(Kt[i][j] - 0.5 * (Rp[i] - Rm[i]) / dx) / (scale));
    }
    check("cavitated: dR/dtheta vs central differences (of max |R|)", e, 1e-8);
    /* Gauss-point state */
    double eh = 0, et = 0, ev = 0;
    for (int q = 0; q < 4; q++) {
      double *fields[8] = {&st[q].h, &st[q].dhdt, &st[q].vw[0], &st[q].vw[1], &st[q].vw[2], &st[q].vb[0], &st[q].vb[1], &st[q].vb[2]};
      for (int f = 0; f < 8; f++) {
        const double x0 = *fields[f], dx = f == 0 ? 1e-6 * x0 : (f == 1 ? 1e-8 : 1e-6);
        *fields[f] = x0 + dx; film_reynolds_quad_jfo(&g, &fl, st, p, theta, told, inv_dt, Rp, NULL, NULL, NULL);
        *fields[f] = x0 - dx; film_reynolds_quad_jfo(&g, &fl, st, p, theta, told, inv_dt, Rm, NULL, NULL, NULL);
        *fields[f] = x0;
        for (int i = 0; i < 4; i++) {
          const double fd = 0.5 * (Rp[i] - Rm[i]) / dx;
          if (f == 0) eh = fmax(eh, fabs(s1.dh[i][q] - fd) * x0 / scale);
          else if (f == 1) et = fmax(et, fabs(s1.ddhdt[i][q] - fd) * 1e-5 / scale);
          else ev = fmax(ev, fabs((f < 5 ? s1.dvw[i][q][f - 2] : s1.dvb[i][q][f - 5]) - fd) / scale);
        }
      }
    }
    check("cavitated: dR/dh vs central differences (times h, of max |R|)", eh, 1e-7);
    check("cavitated: dR/d(dh/dt) vs central differences", et, 1e-9);
    check("cavitated: dR/dv (wall and base) vs central differences (per m/s, of max |R|)", ev, 1e-8);
    /* 3. mass: with p uniform, sum_i R_i = -sum of the lumped time terms */
    {
      double pu[4] = {5e5, 5e5, 5e5, 5e5}, sumR = 0, sumT = 0;
      film_reynolds_quad_jfo(&g, &fl, st, pu, theta, told, inv_dt, R, NULL, NULL, NULL);
      for (int i = 0; i < 4; i++) sumR += R[i];
      for (int q = 0; q < 4; q++) {
        FilmClosures cl;
        film_flow_closures_eval(&fl.rough, st[q].h, &cl);
        for (int i = 0; i < 4; i++) sumT += g.w[q] * cl.phi_c * fl.rho * g.N[q][i] * (theta[i] * st[q].dhdt + st[q].h * (theta[i] - told[i]) * inv_dt);
      }
      check("mass: sum_i R_i = -(lumped time terms): the transport conserves mass", fabs(sumR + sumT) / scale, 1e-13);
    }
  }

  /* 4. upwinding: non-negative off-diagonals of dR/dtheta (no time term) */
  {
    const double Xf[4][3] = {{0, 0, 0}, {1e-3, 0, 0}, {1e-3, 1e-3, 0}, {0, 1e-3, 0}};
    double       theta[4] = {1, 1, 1, 1}, worst = 0;
    film_quad_geometry(Xf, hint, &g);
    for (int dir = 0; dir < 3; dir++) {
      for (int q = 0; q < 4; q++) {
        st[q].dhdt = 0;
        for (int k = 0; k < 3; k++) st[q].vw[k] = st[q].vb[k] = 0;
        st[q].vb[0] = dir == 0 ? 1.0 : (dir == 1 ? 0.0 : 0.7);
        st[q].vb[1] = dir == 0 ? 0.0 : (dir == 1 ? -1.0 : 0.7);
      }
      film_reynolds_quad_jfo(&g, &fl, st, p, theta, theta, 0, R0, NULL, Kt, NULL);
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
          if (i != j) worst = fmin(worst, Kt[i][j]);
    }
    check("upwinding: smallest off-diagonal of dR/dtheta (>= 0 for a monotone transport)", -worst, 0.0);
  }
  return td_finish();
}
