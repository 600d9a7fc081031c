/*
  Unit test of film_linearize_ancf_face (src/kernels/projection.c; formulation.md F6-F9, §6):
  the exact derivatives of the projected ANCF face point (uv, n . r*, the normal rate n . rdot,
  the material velocity v, the profile h_prof(X*) and its rate) with respect to the element
  coordinates e and velocities edot, against central finite differences of the same quantities
  recomputed independently: re-projection with film_project_ancf_face (from the converged uv),
  v = sum S_k edot_k, rate and uvdot from film_point_normal_rate, X* = sum S_k eref_k and
  h_prof, grad h_prof from film_profile_eval.
  Element: 20 x 12 x 8 mm, rotated, deformed by 5 % (positions and slopes), moving with random
  nodal velocities; its reference coordinates eref curved by 3 % (so that the second derivatives
  of X* along the face enter); a film point with a frame velocity; the line tilted from the face
  normal.
  All 6 faces, each with a crown and a chamfer profile (point on the ramp); the profile outputs
  are zero without a profile (NULL and NONE); invalid input gives NaN.
  Pass: relative Frobenius error of every output array <= 1e-7.
*/
#include "tribodyn/projection.h"

#include "tribodyn/ancf3843.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { NS = ANCF3843_NSHAPE, ND = ANCF3843_NDOF };

#include "td_check.h"

/* rotation matrix exp(angle K), K the skew matrix of the unit vector k (Rodrigues) */
static void rotation(const double k_in[3], double angle, double R[3][3])
{
  double k[3] = {k_in[0], k_in[1], k_in[2]};
  normalize3(k);
  const double c = cos(angle), s = sin(angle);
  const double K[3][3] = {{0, -k[2], k[1]}, {k[2], 0, -k[0]}, {-k[1], k[0], 0}};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      double kk = 0.0;
      for (int m = 0; m < 3; m++) kk += K[i][m] * K[m][j];
      R[i][j] = (i == j ? 1.0 : 0.0) + s * K[i][j] + (1.0 - c) * kk;
    }
}

/* reference element: corner node 0 at o, material axes = columns of Q */
static void reference_element(double a, double b, double c, const double Q[3][3], const double o[3], double e[ND])
{
  const double h[3] = {a, b, c};
  for (int nd = 0; nd < 8; nd++) {
    double X[3];
    for (int I = 0; I < 3; I++) X[I] = ((nd >> I) & 1) ? h[I] : 0.0;
    for (int i = 0; i < 3; i++) {
      e[3 * (4 * nd) + i] = o[i] + Q[i][0] * X[0] + Q[i][1] * X[1] + Q[i][2] * X[2];
      for (int I = 0; I < 3; I++) e[3 * (4 * nd + 1 + I) + i] = Q[i][I];
    }
  }
}

static void face_xi(int face, const double uv[2], double xi[3])
{
  const int fix = face / 2, i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
  xi[fix] = (face & 1) ? 1.0 : -1.0;
  xi[i0] = uv[0];
  xi[i1] = uv[1];
}

/* The quantities being linearised, recomputed from scratch (no use of the linearisation). */
enum { Q_U, Q_V, Q_NR, Q_RATE, Q_V0, Q_V1, Q_V2, Q_PROF, Q_PRATE, NQ };

typedef struct {
  double a, b, c;
  int face;
  double e[ND], edot[ND], eref[ND];
  double x[3], n[3], xdot[3];
  FilmProfile prof;
} Case;

static int quantities(const Case *C, const double e[ND], const double edot[ND], const double uv0[2],
                      FilmSurfacePoint *pt, double q[NQ])
{
  pt->uv[0] = uv0[0];
  pt->uv[1] = uv0[1];
  const int ret = film_project_ancf_face(C->a, C->b, C->c, C->face, e, C->x, C->n, 1e-9, pt);
  double v[3] = {0, 0, 0}, X[3] = {0, 0, 0}, Xuv[3][2] = {{0, 0}, {0, 0}, {0, 0}};
  for (int k = 0; k < NS; k++)
    for (int i = 0; i < 3; i++) {
      v[i] += pt->S[k] * edot[3 * k + i];
      X[i] += pt->S[k] * C->eref[3 * k + i];
      Xuv[i][0] += pt->dS_uv[0][k] * C->eref[3 * k + i];
      Xuv[i][1] += pt->dS_uv[1][k] * C->eref[3 * k + i];
    }
  double uvdot[2], dh[3];
  q[Q_U] = pt->uv[0];
  q[Q_V] = pt->uv[1];
  q[Q_NR] = dot3(C->n, pt->r);
  q[Q_RATE] = film_point_normal_rate(pt, C->n, v, C->xdot, NULL, uvdot);
  for (int i = 0; i < 3; i++) q[Q_V0 + i] = v[i];
  q[Q_PROF] = film_profile_eval(&C->prof, X, dh);
  q[Q_PRATE] = 0.0;
  for (int i = 0; i < 3; i++) q[Q_PRATE] += dh[i] * (Xuv[i][0] * uvdot[0] + Xuv[i][1] * uvdot[1]);
  return ret;
}

/* relative Frobenius error accumulators */
typedef struct {
  double num, den;
} Err;
static void acc(Err *E, double an, double fd)
{
  E->num += (an - fd) * (an - fd);
  E->den += fd * fd;
}
static double rel(const Err *E) { return E->den > 0.0 ? sqrt(E->num / E->den) : sqrt(E->num); }

/* A case: face `face` of the deformed, moving element; profile type 1 crown, 2 chamfer. */
static void build_case(Case *C, int face, int ptype, double uv_target[2])
{
  memset(C, 0, sizeof(*C));
  C->a = 0.020;
  C->b = 0.012;
  C->c = 0.008;
  C->face = face;
  const double size = 0.020;
  double Q[3][3], I3[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const double kax[3] = {0.3, -0.5, 0.8}, o[3] = {0.11, -0.04, 0.025}, o0[3] = {0, 0, 0};
  rotation(kax, 0.4, Q);
  reference_element(C->a, C->b, C->c, Q, o, C->e);
  reference_element(C->a, C->b, C->c, I3, o0, C->eref); /* material frame */
  const double vslide[3] = {0.6, 0.2, -0.1};
  for (int k = 0; k < NS; k++)
    for (int i = 0; i < 3; i++) {
      const int pos = (k & 3) == 0;
      C->e[3 * k + i] += 0.05 * urand() * (pos ? size : 1.0); /* 5 % deformation */
      C->edot[3 * k + i] = pos ? vslide[i] + 0.5 * urand() : 2.0 * urand();
      C->eref[3 * k + i] += 0.03 * urand() * (pos ? size : 1.0); /* curved reference: X*_uvuv != 0 */
    }
  for (int i = 0; i < 3; i++) C->xdot[i] = 0.4 * urand();
  /* the line through a face point, tilted from the face normal */
  uv_target[0] = 0.7 * urand();
  uv_target[1] = 0.7 * urand();
  double xi[3], r[3], dr[3][3];
  face_xi(face, uv_target, xi);
  ancf3843_interpolate(C->a, C->b, C->c, xi, C->e, r, dr);
  const int fix = face / 2, i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
  double nf[3];
  cross3(dr[i0], dr[i1], nf);
  normalize3(nf);
  for (int i = 0; i < 3; i++) C->n[i] = nf[i] + 0.3 * urand();
  normalize3(C->n);
  for (int i = 0; i < 3; i++) C->x[i] = r[i] - 2e-4 * C->n[i];
  /* profile anchored at the material point of uv_target */
  double X[3];
  ancf3843_interpolate(C->a, C->b, C->c, xi, C->eref, X, NULL);
  FilmProfile *P = &C->prof;
  P->axis[0] = urand();
  P->axis[1] = urand();
  P->axis[2] = urand();
  normalize3(P->axis);
  double s_target;
  if (ptype == 1) {
    P->type = FILM_PROFILE_CROWN;
    P->amplitude = 20e-6;
    P->half_length = 0.015;
    s_target = 0.3 * P->half_length;
  } else {
    P->type = FILM_PROFILE_CHAMFER;
    P->amplitude = 15e-6;
    P->half_length = 0.010;
    P->width = 0.004;
    s_target = P->half_length - 0.5 * P->width; /* mid-ramp */
  }
  for (int i = 0; i < 3; i++) P->center[i] = X[i] - s_target * P->axis[i];
}

static void run_case(int face, int ptype, double worst[12])
{
  Case C;
  double uvt[2];
  build_case(&C, face, ptype, uvt);
  FilmSurfacePoint pt;
  double q0[NQ];
  const double zero[2] = {0.0, 0.0};
  int ret = quantities(&C, C.e, C.edot, zero, &pt, q0);
  if (ret != 0) {
    printf("FAIL face %d: projection returned %d\n", face, ret);
    failures++;
    return;
  }
  FilmFaceLinearization L;
  film_linearize_ancf_face(C.a, C.b, C.c, face, C.e, C.edot, C.eref, &C.prof, C.x, C.n, C.xdot, &pt, &L);

  /* derivatives w.r.t. e: central differences with re-projection from the converged uv */
  Err E[12];
  memset(E, 0, sizeof(E));
  const double uv0[2] = {pt.uv[0], pt.uv[1]};
  double ep[ND], em[ND], qp[NQ], qm[NQ];
  FilmSurfacePoint pp, pm;
  for (int j = 0; j < ND; j++) {
    const double del = ((j / 3) & 3) == 0 ? 1e-5 * 0.020 : 1e-5;
    memcpy(ep, C.e, sizeof(ep));
    memcpy(em, C.e, sizeof(em));
    ep[j] += del;
    em[j] -= del;
    ret = quantities(&C, ep, C.edot, uv0, &pp, qp);
    ret |= quantities(&C, em, C.edot, uv0, &pm, qm);
    if (ret != 0) {
      printf("FAIL face %d: re-projection returned %d\n", face, ret);
      failures++;
      return;
    }
    double fd[NQ];
    for (int m = 0; m < NQ; m++) fd[m] = (qp[m] - qm[m]) / (2.0 * del);
    acc(&E[0], L.duv_de[0][j], fd[Q_U]);
    acc(&E[0], L.duv_de[1][j], fd[Q_V]);
    acc(&E[1], L.dnr_de[j], fd[Q_NR]);
    acc(&E[2], L.drate_de[j], fd[Q_RATE]);
    for (int i = 0; i < 3; i++) acc(&E[3], L.dv_de[i][j], fd[Q_V0 + i]);
    acc(&E[4], L.dprof_de[j], fd[Q_PROF]);
    acc(&E[5], L.dprofrate_de[j], fd[Q_PRATE]);
  }
  /* derivatives w.r.t. edot (rate and profile rate are affine in edot; uv, nr do not depend on it) */
  double dp[ND], dm[ND];
  for (int j = 0; j < ND; j++) {
    const double del = 1e-3;
    memcpy(dp, C.edot, sizeof(dp));
    memcpy(dm, C.edot, sizeof(dm));
    dp[j] += del;
    dm[j] -= del;
    quantities(&C, C.e, dp, uv0, &pp, qp);
    quantities(&C, C.e, dm, uv0, &pm, qm);
    double fd[NQ];
    for (int m = 0; m < NQ; m++) fd[m] = (qp[m] - qm[m]) / (2.0 * del);
    acc(&E[6], L.drate_dedot[j], fd[Q_RATE]);
    acc(&E[7], L.dprofrate_dedot[j], fd[Q_PRATE]);
    for (int i = 0; i < 3; i++) acc(&E[8], (j % 3 == i) ? pt.S[j / 3] : 0.0, fd[Q_V0 + i]); /* dv/dedot = S_k I */
    acc(&E[9], 0.0, fd[Q_U] + fd[Q_V] + fd[Q_NR] + fd[Q_PROF]);                          /* no edot dependence */
  }
  static const char *names[10] = {"duv_de",        "dnr_de",        "drate_de",          "dv_de",          "dprof_de",
                                  "dprofrate_de", "drate_dedot", "dprofrate_dedot", "dv/dedot = S I", "uv, nr, prof vs edot"};
  const char *pname = ptype == 1 ? "crown" : "chamfer";
  char what[128];
  for (int m = 0; m < 10; m++) {
    const double err = m == 9 ? sqrt(E[m].num) : rel(&E[m]);
    snprintf(what, sizeof(what), "face %d %-7s %-22s (|fd| %.2e)", face, pname, names[m], sqrt(E[m].den));
    check(what, err, m == 9 ? 1e-10 : 1e-7);
    if (!(err <= worst[m])) worst[m] = err; /* NaN propagates */
  }

  /* no profile (NULL, NONE): profile outputs zero, the rest unchanged */
  FilmFaceLinearization L0, L1;
  FilmProfile none;
  memset(&none, 0, sizeof(none));
  none.type = FILM_PROFILE_NONE;
  film_linearize_ancf_face(C.a, C.b, C.c, face, C.e, C.edot, C.eref, NULL, C.x, C.n, C.xdot, &pt, &L0);
  film_linearize_ancf_face(C.a, C.b, C.c, face, C.e, C.edot, C.eref, &none, C.x, C.n, C.xdot, &pt, &L1);
  double ez = 0.0, esame = 0.0;
  for (int j = 0; j < ND; j++) {
    ez = fmax(ez, fabs(L0.dprof_de[j]) + fabs(L0.dprofrate_de[j]) + fabs(L0.dprofrate_dedot[j]));
    ez = fmax(ez, fabs(L1.dprof_de[j]) + fabs(L1.dprofrate_de[j]) + fabs(L1.dprofrate_dedot[j]));
    esame = fmax(esame, fabs(L0.dnr_de[j] - L.dnr_de[j]) + fabs(L0.drate_de[j] - L.drate_de[j]) +
                            fabs(L1.drate_dedot[j] - L.drate_dedot[j]) + fabs(L1.duv_de[1][j] - L.duv_de[1][j]) +
                            fabs(L1.dv_de[2][j] - L.dv_de[2][j]));
  }
  if (!(ez == 0.0 && esame == 0.0)) {
    printf("FAIL face %d: without a profile: |profile outputs| %.3e, |others - with profile| %.3e\n", face, ez,
           esame);
    failures++;
  }

  /* the packed variant: over a structure filled with a marker, entry 3 ja + i of each array equals
     the full version's entry 3 act[ja] + i bitwise (with and without profile), and the entries
     from 36 on are not written */
  {
    int act[ANCF3843_FACE_NSHAPE], bad = 0;
    const FilmProfile *profs[2] = {&C.prof, NULL};
    ancf3843_face_shapes(face, act);
    for (int v = 0; v < 2; v++) {
      FilmFaceLinearization Lf, Lp;
      FilmLine line;
      double *f = (double *)&Lf, *p = (double *)&Lp;
      const size_t narrays = sizeof(Lf) / sizeof(double) / ND;
      film_line_init(C.n, &line);
      for (size_t j = 0; j < narrays * ND; j++) p[j] = 12345.0;
      film_linearize_ancf_face_line(C.a, C.b, C.c, face, C.e, C.edot, C.eref, profs[v], C.x, &line, C.xdot, &pt, &Lf);
      film_linearize_ancf_face_line_packed(C.a, C.b, C.c, face, C.e, C.edot, C.eref, profs[v], C.x, &line, C.xdot, &pt, &Lp);
      for (size_t arr = 0; arr < narrays; arr++) {
        for (int ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++)
          for (int i = 0; i < 3; i++)
            if (p[arr * ND + 3 * ja + i] != f[arr * ND + 3 * act[ja] + i]) bad++;
        for (int j = 3 * ANCF3843_FACE_NSHAPE; j < ND; j++)
          if (p[arr * ND + j] != 12345.0) bad++;
      }
    }
    check("packed linearisation: the active entries bitwise, the rest untouched", (double)bad, 0.0);
  }

  /* the factored form: S (x) alpha + D (x) beta expanded over (ja, i) equals each packed array
     (itself checked bitwise above, and through the full one against central differences) to
     rounding, relative to the array's largest entry, with and without profile */
  {
    const FilmProfile *profs[2] = {&C.prof, NULL};
    double worst_rel = 0.0;
    for (int v = 0; v < 2; v++) {
      FilmFaceLinearization Lp;
      FilmFaceLinFactors F;
      FilmLine line;
      film_line_init(C.n, &line);
      film_linearize_ancf_face_line_packed(C.a, C.b, C.c, face, C.e, C.edot, C.eref, profs[v], C.x, &line, C.xdot, &pt, &Lp);
      film_linearize_ancf_face_line_factors(C.a, C.b, C.c, face, C.e, C.edot, C.eref, profs[v], &line, C.xdot, &pt, &F);
      const double zero[3] = {0, 0, 0};
      const struct {
        const double *arr, *alpha, *beta;
      } terms[11] = {{Lp.duv_de[0], F.duv[0], zero}, {Lp.duv_de[1], F.duv[1], zero}, {Lp.dnr_de, F.g, zero},
                     {Lp.drate_dedot, F.g, zero},   {Lp.drate_de, F.rate, F.g},    {Lp.dv_de[0], F.v[0], zero},
                     {Lp.dv_de[1], F.v[1], zero},   {Lp.dv_de[2], F.v[2], zero},   {Lp.dprof_de, F.prof, zero},
                     {Lp.dprofrate_de, F.profrate, F.mp}, {Lp.dprofrate_dedot, F.mp, zero}};
      for (int t = 0; t < 11; t++) {
        double amax = 0.0, emax = 0.0;
        for (int ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++)
          for (int i = 0; i < 3; i++) {
            const double x = F.S[ja] * terms[t].alpha[i] + F.D[ja] * terms[t].beta[i];
            amax = fmax(amax, fabs(terms[t].arr[3 * ja + i]));
            emax = fmax(emax, fabs(x - terms[t].arr[3 * ja + i]));
          }
        if (amax > 0.0) worst_rel = fmax(worst_rel, emax / amax);
        else if (emax > 0.0) worst_rel = 1.0; /* an array that is 0 must expand to 0 */
      }
    }
    check("factored linearisation: S (x) alpha + D (x) beta equals the packed arrays", worst_rel, 1e-13);
  }
}

int main(void)
{
  const clock_t t0 = clock();
  double worst[12];
  for (int m = 0; m < 12; m++) worst[m] = 0.0;
  for (int face = 0; face < 6; face++)
    for (int ptype = 1; ptype <= 2; ptype++) run_case(face, ptype, worst);
  printf("worst relative Frobenius errors over 6 faces x {crown, chamfer}:\n"
         "  duv_de %.2e  dnr_de %.2e  drate_de %.2e  dv_de %.2e  dprof_de %.2e  dprofrate_de %.2e\n"
         "  drate_dedot %.2e  dprofrate_dedot %.2e  dv/dedot %.2e\n",
         worst[0], worst[1], worst[2], worst[3], worst[4], worst[5], worst[6], worst[7], worst[8]);

  /* invalid input: NaN everywhere (face index; line parallel to the face) */
  {
    Case C;
    double uvt[2];
    build_case(&C, 5, 1, uvt);
    FilmSurfacePoint pt;
    double q[NQ];
    const double zero[2] = {0.0, 0.0};
    quantities(&C, C.e, C.edot, zero, &pt, q);
    FilmFaceLinearization L;
    film_linearize_ancf_face(C.a, C.b, C.c, 7, C.e, C.edot, C.eref, &C.prof, C.x, C.n, C.xdot, &pt, &L);
    int nan1 = isnan(L.dnr_de[0]) && isnan(L.dprofrate_dedot[ND - 1]);
    /* n along the face tangent r_u: P r_uv singular */
    double tang[3] = {0, 0, 0};
    for (int k = 0; k < NS; k++)
      for (int i = 0; i < 3; i++) tang[i] += pt.dS_uv[0][k] * C.e[3 * k + i];
    film_linearize_ancf_face(C.a, C.b, C.c, 5, C.e, C.edot, C.eref, &C.prof, C.x, tang, C.xdot, &pt, &L);
    nan1 = nan1 && isnan(L.drate_de[3]) && isnan(L.duv_de[1][0]);
    {
      FilmFaceLinFactors F;
      FilmLine line;
      film_line_init(C.n, &line);
      film_linearize_ancf_face_line_factors(C.a, C.b, C.c, 7, C.e, C.edot, C.eref, &C.prof, &line, C.xdot, &pt, &F);
      nan1 = nan1 && isnan(F.S[0]) && isnan(F.mp[2]);
      film_line_init(tang, &line);
      film_linearize_ancf_face_line_factors(C.a, C.b, C.c, 5, C.e, C.edot, C.eref, &C.prof, &line, C.xdot, &pt, &F);
      nan1 = nan1 && isnan(F.D[11]) && isnan(F.g[0]);
    }
    check("invalid face index / line parallel to the face: NaN outputs", nan1 ? 0.0 : 1.0, 0.0);
  }
  printf("time %.3f s\n", (double)(clock() - t0) / CLOCKS_PER_SEC);
  return td_finish();
}
