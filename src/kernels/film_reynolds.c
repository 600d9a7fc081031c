/*
  Average-Reynolds element kernel on a bilinear quad of a (possibly curved) reference surface,
  the surface tractions, and the Lankarani-Nikravesh dry-contact pressure
  (film_kernels.h, formulation.md F10-F14 and §3).  Pure C: no allocation, no globals.
*/
#include <math.h>
#include <stddef.h>
#include <tribodyn/film_kernels.h>
#include <tribodyn/vec3.h>

/* T v = v - n (n . v) */
static inline void TangentialPart(const double n[3], const double v[3], double out[3])
{
  const double nv = vec3_dot(n, v);
  for (int k = 0; k < 3; k++) out[k] = v[k] - n[k] * nv;
}

/* -------------------------------------------------------------------------------------------- */
/* (F11, paper eqs. 17, 20, 21) Geometry of a bilinear quad, 2 x 2 Gauss.
   Corners (xi_i, eta_i) = (-1,-1), (1,-1), (1,1), (-1,1); N_i = (1 + xi xi_i)(1 + eta eta_i)/4.
   J = [x_xi; x_eta] (2 x 3, the rows a1 = dx/dxi, a2 = dx/deta); metric G = J J^T;
   w = sqrt(det G) (the 2 x 2 Gauss weights are 1); surface gradient
   grad_s N = J^T G^-1 (dN/dxi, dN/deta) (tangent to the quad at the Gauss point);
   n = -(a1 x a2)/|a1 x a2| (counter-clockwise seen from the wall: a1 x a2 points to the wall),
   flipped if n . normal_hint < 0 (normal_hint may be NULL);
   t1 = a1/|a1|, t2 = n x t1.  A degenerate point (det G <= 0) gets w = 0 and grad_s N = 0. */
void film_quad_geometry(const double X[4][3], const double normal_hint[3], FilmQuadGeometry *g)
{
  static const double xi_n[4] = {-1, 1, 1, -1}, eta_n[4] = {-1, -1, 1, 1};
  const double        a       = 0.57735026918962576; /* 1/sqrt(3) */
  const double        xq[4] = {-a, a, a, -a}, eq[4] = {-a, -a, a, a};

  for (int i = 0; i < 4; i++)
    for (int k = 0; k < 3; k++) g->X[i][k] = X[i][k];
  for (int q = 0; q < 4; q++) {
    double dNx[4], dNe[4], a1[3] = {0, 0, 0}, a2[3] = {0, 0, 0}, x[3] = {0, 0, 0};
    for (int i = 0; i < 4; i++) {
      const double fx = 1.0 + xq[q] * xi_n[i], fe = 1.0 + eq[q] * eta_n[i];
      g->N[q][i] = 0.25 * fx * fe;
      dNx[i]     = 0.25 * xi_n[i] * fe;
      dNe[i]     = 0.25 * eta_n[i] * fx;
      for (int k = 0; k < 3; k++) {
        a1[k] += dNx[i] * X[i][k];
        a2[k] += dNe[i] * X[i][k];
        x[k] += g->N[q][i] * X[i][k];
      }
    }
    for (int k = 0; k < 3; k++) g->x[q][k] = x[k];
    const double G11 = vec3_dot(a1, a1), G12 = vec3_dot(a1, a2), G22 = vec3_dot(a2, a2);
    const double det = G11 * G22 - G12 * G12;
    double       c[3] = {a1[1] * a2[2] - a1[2] * a2[1], a1[2] * a2[0] - a1[0] * a2[2], a1[0] * a2[1] - a1[1] * a2[0]};
    const double cn = sqrt(vec3_dot(c, c)), l1 = sqrt(G11);
    if (!(det > 0.0) || !(cn > 0.0) || !(l1 > 0.0)) {
      g->w[q] = 0.0;
      for (int i = 0; i < 4; i++)
        for (int k = 0; k < 3; k++) g->gradN[q][i][k] = 0.0;
      for (int k = 0; k < 3; k++) {
        g->n[q][k]  = normal_hint ? normal_hint[k] : 0.0;
        g->t1[q][k] = g->t2[q][k] = 0.0;
      }
      continue;
    }
    g->w[q] = sqrt(det);
    const double i11 = G22 / det, i12 = -G12 / det, i22 = G11 / det;
    for (int i = 0; i < 4; i++) {
      const double c1 = i11 * dNx[i] + i12 * dNe[i], c2 = i12 * dNx[i] + i22 * dNe[i];
      for (int k = 0; k < 3; k++) g->gradN[q][i][k] = c1 * a1[k] + c2 * a2[k];
    }
    double sgn = -1.0 / cn;
    if (normal_hint && sgn * vec3_dot(c, normal_hint) < 0.0) sgn = -sgn;
    for (int k = 0; k < 3; k++) {
      g->n[q][k]  = sgn * c[k];
      g->t1[q][k] = a1[k] / l1;
    }
    const double *n = g->n[q], *t1 = g->t1[q];
    g->t2[q][0] = n[1] * t1[2] - n[2] * t1[1];
    g->t2[q][1] = n[2] * t1[0] - n[0] * t1[2];
    g->t2[q][2] = n[0] * t1[1] - n[1] * t1[0];
  }
}

/* The flow terms of the average Reynolds equation at Gauss point q (F10): the closures at h,
   the tangential sums and differences of the surface velocities, the pressure gradient along
   t1 and t2, and the Poiseuille, Couette and shear-flow coefficients rho h^3/(12 mu),
   rho h phi_c / 2 and rho phi_s sigma / 2.  Shared by the full-film and the JFO elements. */
typedef struct {
  FilmClosures cl;
  double       Tvs[3], Tvd[3], g1, g2, cP, cC, cS;
} GaussFlow;

static void GaussPointFlow(const FilmQuadGeometry *g, const FilmFluid *fluid, const FilmPointState *s, const double p[4], int q, GaussFlow *f)
{
  const double  rho = fluid->rho, c12 = rho / (12.0 * fluid->mu), sigma = fluid->rough.sigma, h = s->h;
  const double *n = g->n[q];
  double        vs[3], vd[3], gp[3] = {0, 0, 0};
  film_flow_closures_eval(&fluid->rough, h, &f->cl);
  for (int k = 0; k < 3; k++) {
    vs[k] = s->vw[k] + s->vb[k];
    vd[k] = s->vw[k] - s->vb[k];
  }
  TangentialPart(n, vs, f->Tvs);
  TangentialPart(n, vd, f->Tvd);
  for (int j = 0; j < 4; j++)
    for (int k = 0; k < 3; k++) gp[k] += p[j] * g->gradN[q][j][k];
  f->g1 = vec3_dot(g->t1[q], gp);
  f->g2 = vec3_dot(g->t2[q], gp);
  f->cP = c12 * h * h * h;
  f->cC = 0.5 * rho * h * f->cl.phi_c;
  f->cS = 0.5 * rho * f->cl.phi_s * sigma;
}

/* -------------------------------------------------------------------------------------------- */
/* (F10, F11; paper eqs. 15, 18, 19) Element residual of the average Reynolds equation, per node i:

     R_i = sum_q w_q { [ rho h (phi_c/2) T (vw + vb) + (rho/2) phi_s sigma T (vw - vb)
                         - rho h^3/(12 mu) Phi_p grad_s p ] . grad_s N_i  - phi_c rho dhdt N_i }

   with Phi_p = phi_x t1 t1^T + phi_y t2 t2^T and T = I - n n^T at Gauss point q (rho constant,
   so d(rho h)/dt = rho dhdt).  K_ij = dR_i/dp_j = -sum_q w_q rho h^3/(12 mu) grad N_i . Phi_p grad N_j
   (symmetric, negative semi-definite).  Sensitivities to the Gauss-point state include the
   h-dependence of every closure (phi_c, phi_s, phi_x, phi_y).  Note that h is used as given:
   the caller keeps h > 0 where the film law applies (h^3 changes sign at h = 0). */
void film_reynolds_quad(const FilmQuadGeometry *g, const FilmFluid *fluid, const FilmPointState st[4],
                        const double p[4], double R[4], double K[4][4], FilmReynoldsSensitivity *sens)
{
  const double rho = fluid->rho, c12 = rho / (12.0 * fluid->mu), sigma = fluid->rough.sigma;

  for (int i = 0; i < 4; i++) {
    R[i] = 0.0;
    if (K)
      for (int j = 0; j < 4; j++) K[i][j] = 0.0;
  }
  for (int q = 0; q < 4; q++) {
    const FilmPointState *s = &st[q];
    const double         *n = g->n[q], *t1 = g->t1[q], *t2 = g->t2[q], w = g->w[q], h = s->h;
    GaussFlow             gf;
    double                flux[3];
    GaussPointFlow(g, fluid, s, p, q, &gf);
    const FilmClosures cl = gf.cl;
    const double      *Tvs = gf.Tvs, *Tvd = gf.Tvd, g1 = gf.g1, g2 = gf.g2, cP = gf.cP, cC = gf.cC, cS = gf.cS;
    for (int k = 0; k < 3; k++) flux[k] = cC * Tvs[k] + cS * Tvd[k] - cP * (cl.phi_x * g1 * t1[k] + cl.phi_y * g2 * t2[k]);
    const double src = cl.phi_c * rho * s->dhdt;

    double gi1[4], gi2[4];
    for (int i = 0; i < 4; i++) {
      const double *gN = g->gradN[q][i];
      R[i] += w * (vec3_dot(flux, gN) - src * g->N[q][i]);
      gi1[i] = vec3_dot(t1, gN);
      gi2[i] = vec3_dot(t2, gN);
    }
    if (K)
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) K[i][j] -= w * cP * (cl.phi_x * gi1[i] * gi1[j] + cl.phi_y * gi2[i] * gi2[j]);
    if (sens) {
      /* d flux / d h */
      const double dcC = 0.5 * rho * (cl.phi_c + h * cl.dphi_c), dcS = 0.5 * rho * cl.dphi_s * sigma;
      const double dcP = 3.0 * c12 * h * h;
      double       dflux[3];
      for (int k = 0; k < 3; k++)
        dflux[k] = dcC * Tvs[k] + dcS * Tvd[k] - dcP * (cl.phi_x * g1 * t1[k] + cl.phi_y * g2 * t2[k]) - cP * (cl.dphi_x * g1 * t1[k] + cl.dphi_y * g2 * t2[k]);
      const double dsrc = cl.dphi_c * rho * s->dhdt;
      for (int i = 0; i < 4; i++) {
        const double *gN = g->gradN[q][i];
        double        TgN[3];
        TangentialPart(n, gN, TgN);
        sens->dh[i][q]    = w * (vec3_dot(dflux, gN) - dsrc * g->N[q][i]);
        sens->ddhdt[i][q] = -w * cl.phi_c * rho * g->N[q][i];
        for (int k = 0; k < 3; k++) {
          sens->dvw[i][q][k] = w * (cC + cS) * TgN[k];
          sens->dvb[i][q][k] = w * (cC - cS) * TgN[k];
        }
      }
    }
  }
}

/* -------------------------------------------------------------------------------------------- */
/* (F18) Discrete upwinding of a 4 x 4 transport matrix A: D_ij = max(0, m_ij) for i != j,
   D_ii = -sum_j D_ij, with m_ij = -(A_ij + A_ji)/2 + sqrt((A_ij - A_ji)^2 + delta^2 (A_ij^2 +
   A_ji^2))/2, a smooth upper bound of max(-A_ij, -A_ji) (equal to it for delta = 0).  The exact
   max has a kink where A_ij = A_ji, which a structured mesh meets along every row of nodes
   across the flow; the smooth form keeps the residual differentiable there (Newton, and the
   finite-difference checks of its Jacobian) and adds a little diffusion (at a tie, delta/sqrt(2)
   of |A_ij|).  D stays symmetric with zero row sums, and A + D keeps non-negative off-diagonals.
   With dA (the derivative of A with respect to one parameter) it returns dD. */
#define TD_JFO_UPWIND_DELTA 0.05
static void UpwindTerm(const double A[4][4], const double dA[4][4], double D[4][4])
{
  const double d2 = TD_JFO_UPWIND_DELTA * TD_JFO_UPWIND_DELTA;
  for (int i = 0; i < 4; i++) D[i][i] = 0.0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      if (i == j) continue;
      const double a = A[i][j], b = A[j][i], x = a - b, r = sqrt(x * x + d2 * (a * a + b * b));
      const double m = -0.5 * (a + b) + 0.5 * r;
      double       d = 0.0;
      if (m > 0.0) {
        if (!dA) d = m;
        else {
          const double da = dA[i][j], db = dA[j][i];
          d = -0.5 * (da + db) + (r > 0.0 ? 0.5 * (x * (da - db) + d2 * (a * da + b * db)) / r : 0.0);
        }
      }
      D[i][j] = d;
      D[i][i] -= d;
    }
}

void film_reynolds_quad_jfo(const FilmQuadGeometry *g, const FilmFluid *fluid, const FilmPointState st[4], const double p[4],
                            const double theta[4], const double theta_old[4], double inv_dt, double R[4], double Kp[4][4],
                            double Kt[4][4], FilmReynoldsSensitivity *sens)
{
  const double rho = fluid->rho, c12 = rho / (12.0 * fluid->mu), sigma = fluid->rough.sigma;
  double       A[4][4] = {{0}}, D[4][4], cq[4][3], dcq[4][3], cCS[4][2], TgN[4][4][3], lump[4] = {0, 0, 0, 0};

  for (int i = 0; i < 4; i++) {
    R[i] = 0.0;
    if (Kp)
      for (int j = 0; j < 4; j++) Kp[i][j] = 0.0;
  }
  for (int q = 0; q < 4; q++) {
    const FilmPointState *s = &st[q];
    const double         *n = g->n[q], *t1 = g->t1[q], *t2 = g->t2[q], w = g->w[q], h = s->h;
    GaussFlow             gf;
    double                pflux[3];
    GaussPointFlow(g, fluid, s, p, q, &gf);
    const FilmClosures cl = gf.cl;
    const double      *Tvs = gf.Tvs, *Tvd = gf.Tvd, g1 = gf.g1, g2 = gf.g2, cP = gf.cP, cC = gf.cC, cS = gf.cS;
    const double dcC = 0.5 * rho * (cl.phi_c + h * cl.dphi_c), dcS = 0.5 * rho * cl.dphi_s * sigma;
    for (int k = 0; k < 3; k++) {
      pflux[k]  = -cP * (cl.phi_x * g1 * t1[k] + cl.phi_y * g2 * t2[k]);
      cq[q][k]  = cC * Tvs[k] + cS * Tvd[k];
      dcq[q][k] = dcC * Tvs[k] + dcS * Tvd[k];
    }
    cCS[q][0] = cC + cS; /* d c / d vw = (cC + cS) T, d c / d vb = (cC - cS) T */
    cCS[q][1] = cC - cS;
    double gi1[4], gi2[4];
    for (int i = 0; i < 4; i++) {
      const double *gN = g->gradN[q][i];
      R[i] += w * vec3_dot(pflux, gN);
      for (int j = 0; j < 4; j++) A[i][j] += w * vec3_dot(cq[q], gN) * g->N[q][j];
      TangentialPart(n, gN, TgN[q][i]);
      gi1[i] = vec3_dot(t1, gN);
      gi2[i] = vec3_dot(t2, gN);
      /* the lumped time terms of node i */
      const double wN = w * cl.phi_c * rho * g->N[q][i];
      R[i] -= wN * (theta[i] * s->dhdt + h * (theta[i] - theta_old[i]) * inv_dt);
      lump[i] += wN * (s->dhdt + h * inv_dt);
    }
    if (Kp)
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) Kp[i][j] -= w * cP * (cl.phi_x * gi1[i] * gi1[j] + cl.phi_y * gi2[i] * gi2[j]);
    if (sens) {
      const double dcP = 3.0 * c12 * h * h;
      double       dpflux[3];
      for (int k = 0; k < 3; k++) dpflux[k] = -dcP * (cl.phi_x * g1 * t1[k] + cl.phi_y * g2 * t2[k]) - cP * (cl.dphi_x * g1 * t1[k] + cl.dphi_y * g2 * t2[k]);
      for (int i = 0; i < 4; i++) {
        const double wN = w * rho * g->N[q][i];
        sens->dh[i][q]    = w * vec3_dot(dpflux, g->gradN[q][i]) - wN * (cl.dphi_c * theta[i] * s->dhdt + (cl.dphi_c * h + cl.phi_c) * (theta[i] - theta_old[i]) * inv_dt);
        sens->ddhdt[i][q] = -wN * cl.phi_c * theta[i];
      }
    }
  }
  UpwindTerm(A, NULL, D);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) R[i] += (A[i][j] + D[i][j]) * theta[j];
  if (Kt)
    for (int i = 0; i < 4; i++)
      for (int j = 0; j < 4; j++) Kt[i][j] = A[i][j] + D[i][j] - (i == j ? lump[i] : 0.0);
  if (sens)
    /* the transport term's dependence on h and on the velocities at each Gauss point */
    for (int q = 0; q < 4; q++) {
      const double w = g->w[q];
      double       dA[4][4], dD[4][4];
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) dA[i][j] = w * vec3_dot(dcq[q], g->gradN[q][i]) * g->N[q][j];
      UpwindTerm(A, dA, dD);
      for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) sens->dh[i][q] += (dA[i][j] + dD[i][j]) * theta[j];
      for (int s = 0; s < 2; s++)
        for (int k = 0; k < 3; k++) {
          for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) dA[i][j] = w * cCS[q][s] * TgN[q][i][k] * g->N[q][j];
          UpwindTerm(A, dA, dD);
          for (int i = 0; i < 4; i++) {
            double v = 0;
            for (int j = 0; j < 4; j++) v += (dA[i][j] + dD[i][j]) * theta[j];
            if (s == 0) sens->dvw[i][q][k] = v;
            else sens->dvb[i][q][k] = v;
          }
        }
    }
}

/* -------------------------------------------------------------------------------------------- */
/* (F12, F13; paper eqs. 4-8) Tractions per unit reference area on the wall and on the base:

     f_w = -(p + p_c) n + (mu/h)(phi_f + phi_fs) T(vb - vw) - phi_fp (h/2) grad_s p + mu_f p_c t(vb - vw)
     f_b = +(p + p_c) n + (mu/h)(phi_f - phi_fs) T(vw - vb) - phi_fp (h/2) grad_s p + mu_f p_c t(vw - vb)

   p_c = K E* F_5/2(h/sigma) (0 for sigma = 0), t(v) = T v / sqrt(|T v|^2 + v_eps^2) (0 when both
   vanish).  The pressures act along the reference normal n (thin film).  h > 0 is required
   (the Couette shear is mu/h). */
void film_tractions_sens(const FilmFluid *fluid, const FilmContact *contact, const double n[3],
                         const FilmPointState *st, double p, const double gradp[3],
                         double fw[3], double fb[3], double *pc_out, FilmTractionSensitivity *sens)
{
  const double mu = fluid->mu, h = st->h, muf = contact->mu_asperity, ve = contact->v_eps;
  FilmClosures cl;
  double       d[3], Td[3], that[3];

  film_closures_eval(&fluid->rough, h, &cl);
  const double KE  = contact->K * contact->E_star;
  const double pc  = KE * cl.F52, dpc = KE * cl.dF52;
  const double cw  = mu / h * (cl.phi_f + cl.phi_fs), cb = mu / h * (cl.phi_f - cl.phi_fs);
  const double cpp = cl.phi_fp * 0.5 * h;
  for (int k = 0; k < 3; k++) d[k] = st->vb[k] - st->vw[k];
  TangentialPart(n, d, Td);
  const double sn = sqrt(vec3_dot(Td, Td) + ve * ve), is = sn > 0.0 ? 1.0 / sn : 0.0;
  for (int k = 0; k < 3; k++) that[k] = Td[k] * is;

  for (int k = 0; k < 3; k++) {
    fw[k] = -(p + pc) * n[k] + cw * Td[k] - cpp * gradp[k] + muf * pc * that[k];
    fb[k] = +(p + pc) * n[k] - cb * Td[k] - cpp * gradp[k] - muf * pc * that[k];
  }
  if (pc_out) *pc_out = pc;
  if (!sens) return;

  const double dcw  = -cw / h + mu / h * (cl.dphi_f + cl.dphi_fs);
  const double dcb  = -cb / h + mu / h * (cl.dphi_f - cl.dphi_fs);
  const double dcpp = 0.5 * (cl.dphi_fp * h + cl.phi_fp);
  double       T[3][3], M[3][3], MT[3][3];
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      T[a][b] = (a == b ? 1.0 : 0.0) - n[a] * n[b];
      M[a][b] = ((a == b ? 1.0 : 0.0) - that[a] * that[b]) * is; /* d that / d(Td) */
    }
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      MT[a][b] = 0.0;
      for (int c = 0; c < 3; c++) MT[a][b] += M[a][c] * T[c][b];
    }
  sens->dpc_dh = dpc;
  for (int a = 0; a < 3; a++) {
    sens->dp[0][a] = -n[a];
    sens->dp[1][a] = n[a];
    sens->dh[0][a] = -dpc * n[a] + dcw * Td[a] - dcpp * gradp[a] + muf * dpc * that[a];
    sens->dh[1][a] = dpc * n[a] - dcb * Td[a] - dcpp * gradp[a] - muf * dpc * that[a];
    for (int b = 0; b < 3; b++) {
      const double dw = cw * T[a][b] + muf * pc * MT[a][b]; /* d f_w / d vb */
      const double db = cb * T[a][b] + muf * pc * MT[a][b]; /* -d f_b / d vb */
      sens->dgradp[0][a][b] = sens->dgradp[1][a][b] = (a == b) ? -cpp : 0.0;
      sens->dvb[0][a][b] = dw;
      sens->dvw[0][a][b] = -dw;
      sens->dvb[1][a][b] = -db;
      sens->dvw[1][a][b] = db;
    }
  }
}

void film_tractions(const FilmFluid *fluid, const FilmContact *contact, const double n[3],
                    const FilmPointState *st, double p, const double gradp[3],
                    double fw[3], double fb[3], double *pc)
{
  film_tractions_sens(fluid, contact, n, st, p, gradp, fw, fb, pc, NULL);
}

/* -------------------------------------------------------------------------------------------- */
/* C1 smooth max(0, x) over width w: 0 (x <= 0), w (2 s^2 - s^3) with s = x/w (0 < x < w),
   x (x >= w).  Exact beyond w, below x everywhere, monotone; w <= 0 gives max(0, x). */
static double SmoothPos(double x, double w, double *d)
{
  if (x <= 0.0) {
    *d = 0.0;
    return 0.0;
  }
  if (!(w > 0.0) || x >= w) {
    *d = 1.0;
    return x;
  }
  const double s = x / w;
  *d = s * (4.0 - 3.0 * s);
  return w * s * s * (2.0 - s);
}

/* (formulation.md §3, paper eq. 28) Lankarani-Nikravesh pressure distributed over A_c:
     delta = smax(-h; eps), delta_dot = -dhdt,
     p = smax( delta^e (Kg + eta delta_dot) / Ac ; Kg eps^e / Ac )
   smax(x; w) the C1 smooth max(0, x) of width w (exact for x >= w): the penetration is smoothed
   over eps, and the no-adhesion clamp p >= 0 over the elastic pressure at penetration eps (the
   same width, in pressure units).  A uniform penetration delta >= eps over A_c gives exactly the
   lumped law F = Kg delta^e + eta delta^e delta_dot while that is positive. */
double film_dry_pressure(double h, double dhdt, double Kg, double eta, double exponent, double Ac,
                         double eps, double *dp_dh, double *dp_ddhdt)
{
  double       dd, dsp;
  const double delta = SmoothPos(-h, eps, &dd);
  const double f     = Kg - eta * dhdt; /* Kg + eta delta_dot */
  double       de = 0.0, dde = 0.0;   /* delta^e and d(delta^e)/d delta */
  if (delta > 0.0) {
    de  = pow(delta, exponent);
    dde = exponent * de / delta;
  }
  const double praw = de * f / Ac;
  const double pw   = eps > 0.0 ? Kg * pow(eps, exponent) / Ac : 0.0;
  const double pN   = SmoothPos(praw, pw, &dsp);
  if (dp_dh) *dp_dh = dsp * dde * (-dd) * f / Ac;
  if (dp_ddhdt) *dp_ddhdt = dsp * de * (-eta) / Ac;
  return pN;
}
