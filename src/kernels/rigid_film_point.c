/*
  A film point between two rigid cylinders in natural coordinates (rigid_film_point.h,
  formulation.md (F25)).  Written once in complex arithmetic: the real evaluation has zero
  imaginary parts and the Jacobian is the complex-step derivative.  Every operation is analytic
  away from the branch points (csqrt of a sum of squares or of the discriminant, no cabs); the
  choice of root is taken on real parts.
*/
#include <complex.h>
#include <math.h>
#include <stddef.h>
#include <tribodyn/rigid_film_point.h>

typedef double complex cplx;

static cplx Dot(const cplx a[3], const cplx b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

typedef struct {
  cplx kin[8], s[2], xi[2][3], A[3][3];
  cplx nu[2][3], nun[2], rate[2], v[2][3]; /* per side: the radial vector at the hit, nu . n, the hit's rate, its material velocity */
} State;

/* (F25) at z: returns 1 when the line misses a cylinder.  sides (bits 0, 1) says which sides to
   evaluate; the others keep their values in S (a perturbation that cannot change them).  With
   rates_only, the sides' hits and material points are kept from S too (the rates do not move
   them) and only their velocities are formed anew. */
static int Evaluate(const RigidFilmPair *P, const double X[3], const double n[3], const cplx z[48], State *S, int sides, int rates_only)
{
  const cplx *zs[2] = {z, z + 24}, *zd[2] = {z + 12, z + 36};
  cplx        AF[3][3], AFd[3][3], rF[3], rFd[3], comF[3];
  if (P->frame < 0)
    for (int i = 0; i < 3; i++) {
      rF[i] = rFd[i] = comF[i] = 0;
      for (int k = 0; k < 3; k++) {
        AF[i][k]  = i == k ? 1 : 0;
        AFd[i][k] = 0;
      }
    }
  else
    for (int i = 0; i < 3; i++) {
      rF[i]   = zs[P->frame][i];
      rFd[i]  = zd[P->frame][i];
      comF[i] = P->com[P->frame][i];
      for (int k = 0; k < 3; k++) {
        AF[i][k]  = zs[P->frame][3 + 3 * k + i];
        AFd[i][k] = zd[P->frame][3 + 3 * k + i];
      }
    }
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) S->A[i][k] = AF[i][k];
  for (int side = 0; side < 2; side++) {
    const cplx *r = zs[side], *rd = zd[side];
    cplx        rpd[3], Apd[3][3];
    if (!(sides & (1 << side))) continue;
    if (!rates_only) {
      cplx p[2][3], d[3], w[3], wp[3], np[3], xh[3], rp[3], Ap[3][3], ld, wd, nd, A, B, C, disc, sq, q, s;
      /* the axis ends in space, then in the frame */
      for (int e = 0; e < 2; e++) {
        const double *Pk = e ? P->P1[side] : P->P0[side];
        cplx          x[3];
        for (int i = 0; i < 3; i++) {
          x[i] = r[i];
          for (int k = 0; k < 3; k++) x[i] += (Pk[k] - P->com[side][k]) * r[3 + 3 * k + i];
        }
        for (int i = 0; i < 3; i++) {
          p[e][i] = comF[i];
          for (int j = 0; j < 3; j++) p[e][i] += AF[j][i] * (x[j] - rF[j]);
        }
      }
      for (int i = 0; i < 3; i++) d[i] = p[1][i] - p[0][i];
      ld = csqrt(Dot(d, d));
      for (int i = 0; i < 3; i++) d[i] /= ld;
      /* |w_perp + s n_perp|^2 = R^2 */
      for (int i = 0; i < 3; i++) w[i] = X[i] - p[0][i];
      wd = Dot(w, d);
      nd = n[0] * d[0] + n[1] * d[1] + n[2] * d[2];
      for (int i = 0; i < 3; i++) {
        wp[i] = w[i] - wd * d[i];
        np[i] = n[i] - nd * d[i];
      }
      A    = Dot(np, np);
      B    = Dot(wp, np);
      C    = Dot(wp, wp) - P->R[side] * P->R[side];
      disc = B * B - A * C;
      if (!(creal(A) > 1e-24) || !(creal(disc) >= 0)) return 1;
      sq = csqrt(disc);
      q  = -(B + (creal(B) >= 0 ? sq : -sq));
      if (creal(q) == 0) s = 0;
      else {
        const cplx s1 = q / A, s2 = C / q;
        s = fabs(creal(s1)) <= fabs(creal(s2)) ? s1 : s2;
      }
      for (int i = 0; i < 3; i++) {
        S->nu[side][i] = wp[i] + s * np[i]; /* radial: from the axis to the hit */
        xh[i]          = X[i] + s * n[i];
      }
      S->nun[side] = S->nu[side][0] * n[0] + S->nu[side][1] * n[1] + S->nu[side][2] * n[2];
      S->s[side]   = s;
      /* the body's origin and axes in the frame; the material point hit */
      for (int i = 0; i < 3; i++) {
        rp[i] = comF[i];
        for (int j = 0; j < 3; j++) rp[i] += AF[j][i] * (r[j] - rF[j]);
        for (int k = 0; k < 3; k++) {
          Ap[i][k] = 0;
          for (int j = 0; j < 3; j++) Ap[i][k] += AF[j][i] * r[3 + 3 * k + j];
        }
      }
      for (int k = 0; k < 3; k++) {
        S->xi[side][k] = 0;
        for (int i = 0; i < 3; i++) S->xi[side][k] += Ap[i][k] * (xh[i] - rp[i]);
      }
    }
    /* the rates of the body's origin and axes in the frame; the hit's material velocity */
    for (int i = 0; i < 3; i++) {
      rpd[i] = 0;
      for (int j = 0; j < 3; j++) rpd[i] += AFd[j][i] * (r[j] - rF[j]) + AF[j][i] * (rd[j] - rFd[j]);
      for (int k = 0; k < 3; k++) {
        Apd[i][k] = 0;
        for (int j = 0; j < 3; j++) Apd[i][k] += AFd[j][i] * r[3 + 3 * k + j] + AF[j][i] * rd[3 + 3 * k + j];
      }
    }
    for (int i = 0; i < 3; i++) {
      S->v[side][i] = rpd[i];
      for (int k = 0; k < 3; k++) S->v[side][i] += S->xi[side][k] * Apd[i][k];
    }
    S->rate[side] = Dot(S->nu[side], S->v[side]) / S->nun[side];
  }
  S->kin[0] = S->s[1] - S->s[0];
  S->kin[1] = S->rate[1] - S->rate[0];
  for (int i = 0; i < 3; i++) {
    S->kin[2 + i] = S->v[0][i];
    S->kin[5 + i] = S->v[1][i];
  }
  return 0;
}

static void Forces(const State *S, double w, const cplx fw[3], const cplx fb[3], cplx Q[24])
{
  const cplx *f[2] = {fw, fb};
  for (int side = 0; side < 2; side++) {
    cplx g[3];
    for (int i = 0; i < 3; i++) g[i] = w * (S->A[i][0] * f[side][0] + S->A[i][1] * f[side][1] + S->A[i][2] * f[side][2]);
    for (int i = 0; i < 3; i++) {
      Q[12 * side + i] = g[i];
      for (int k = 0; k < 3; k++) Q[12 * side + 3 + 3 * k + i] = S->xi[side][k] * g[i];
    }
  }
}

int rigid_film_point(const RigidFilmPair *pair, const double X[3], const double n[3], const double z[48], RigidFilmState *st)
{
  cplx  zc[48];
  State S;
  for (int i = 0; i < 48; i++) zc[i] = z[i];
  if (Evaluate(pair, X, n, zc, &S, 3, 0)) return 1;
  for (int i = 0; i < 8; i++) st->kin[i] = creal(S.kin[i]);
  for (int s = 0; s < 2; s++) {
    st->s[s] = creal(S.s[s]);
    for (int k = 0; k < 3; k++) st->xi[s][k] = creal(S.xi[s][k]);
  }
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) st->A[i][k] = creal(S.A[i][k]);
  return 0;
}

void rigid_film_point_forces(const RigidFilmState *st, double w, const double fw[3], const double fb[3], double Q[24])
{
  State S;
  cplx  f[2][3], Qc[24];
  for (int s = 0; s < 2; s++)
    for (int k = 0; k < 3; k++) S.xi[s][k] = st->xi[s][k];
  for (int i = 0; i < 3; i++) {
    f[0][i] = fw[i];
    f[1][i] = fb[i];
    for (int k = 0; k < 3; k++) S.A[i][k] = st->A[i][k];
  }
  Forces(&S, w, f[0], f[1], Qc);
  for (int i = 0; i < 24; i++) Q[i] = creal(Qc[i]);
}

void rigid_film_point_jacobian(const RigidFilmPair *pair, const double X[3], const double n[3], const double z[48], double w, const double fw0[3], const double fb0[3], const double T[2][3][8], const int vary[], int nvary,
                               double dkin[8][48], double dQ[24][48])
{
  const double h = 1e-30;
  cplx         zc[48], f[2][3], Q[24];
  State        S0, S;
  for (int i = 0; i < 48; i++) zc[i] = z[i];
  if (Evaluate(pair, X, n, zc, &S0, 3, 0)) return;
  for (int c = 0; c < nvary; c++) {
    /* a perturbation of one side's coordinates moves that side only, unless the side carries the
       frame; a rate moves no hit */
    const int j = vary[c], side = j / 24, sides = side == pair->frame ? 3 : 1 << side, rates_only = j % 24 >= 12;
    S     = S0;
    zc[j] = z[j] + I * h;
    if (Evaluate(pair, X, n, zc, &S, sides, rates_only)) S = S0;
    for (int s = 0; s < 2; s++)
      for (int i = 0; i < 3; i++) {
        f[s][i] = s ? fb0[i] : fw0[i];
        for (int k = 0; k < 8; k++) f[s][i] += T[s][i][k] * (S.kin[k] - creal(S0.kin[k]));
      }
    Forces(&S, w, f[0], f[1], Q);
    for (int i = 0; i < 8; i++) dkin[i][j] = cimag(S.kin[i]) / h;
    for (int i = 0; i < 24; i++) dQ[i][j] = cimag(Q[i]) / h;
    zc[j] = z[j];
  }
}
