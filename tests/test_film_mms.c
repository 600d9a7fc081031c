/*
  Method of manufactured solutions for the average Reynolds equation (formulation.md F10, F11)
  assembled with the element kernel film_reynolds_quad (src/kernels/film_reynolds.c):

    div_s q + phi_c rho dh/dt = f,
    q = rho h (phi_c/2) T(vw + vb) + (rho/2) phi_s sigma T(vw - vb) - rho h^3/(12 mu) Phi_p grad_s p,

  with rough surfaces (sigma_w = 0.8, sigma_b = 0.6, sigma = 1, gamma = 3: phi_x != phi_y and
  phi_s != 0), a varying film height h(x) (H in [1.1, 1.9], away from the kinks of the closures), a
  varying dh/dt, varying velocities, and the manufactured pressure
    p = (1 + s1/2 - 3 s2/10) sin(pi s1/L1) sin(pi s2/L2)      (0 on the boundary),
  in nondimensional units (rho = 1, mu = 1/12).  On
    (a) a flat square [0,1]^2 in a tilted plane of R^3, the velocities with normal components
        (removed by T), and
    (b) a cylindrical patch, radius 1, angle span 1.2 rad, axial length 1, nodes exactly on the
        cylinder, tangential velocities,
  (s1, s2) are arclength coordinates (s1 = R theta on the cylinder, where the surface divergence
  (1/R) d q_theta/d theta + d q_z/dz = d q1/ds1 + d q2/ds2), t1 = e_s1 (the xi direction of the
  mesh), t2 = e_s2, and f is computed analytically from the strong form (chain rule through every
  closure; its derivation is checked against a central-difference divergence of q).  The FEM adds
  int f N_i to the kernel's residual, imposes p = 0 on the boundary and solves the linear system
  (PETSc KSP, LU) on 8, 16, 32 and 64 quads per side; the L2 pressure error must converge at an
  observed order in [1.8, 2.2] between the two finest meshes.
*/
#include <math.h>
#include <petscksp.h>
#include <tribodyn/film_kernels.h>

typedef struct {
  int    cyl;
  double L1, L2, R;
  double e1[3], e2[3], n0[3];
} Geo;

static const double PI = 3.14159265358979324;

static void Map(const Geo *G, double s1, double s2, double X[3])
{
  if (G->cyl) {
    const double th = s1 / G->R;
    X[0] = G->R * cos(th); X[1] = G->R * sin(th); X[2] = s2;
  } else
    for (int k = 0; k < 3; k++) X[k] = s1 * G->e1[k] + s2 * G->e2[k];
}

/* surface coordinates of a point (on the cylinder: of its radial projection) and the frame there */
static void Inverse(const Geo *G, const double X[3], double *s1, double *s2, double E1[3], double E2[3], double N[3])
{
  if (G->cyl) {
    const double th = atan2(X[1], X[0]);
    *s1 = G->R * th; *s2 = X[2];
    E1[0] = -sin(th); E1[1] = cos(th); E1[2] = 0;
    E2[0] = 0; E2[1] = 0; E2[2] = 1;
    N[0] = cos(th); N[1] = sin(th); N[2] = 0;
  } else {
    *s1 = X[0] * G->e1[0] + X[1] * G->e1[1] + X[2] * G->e1[2];
    *s2 = X[0] * G->e2[0] + X[1] * G->e2[1] + X[2] * G->e2[2];
    for (int k = 0; k < 3; k++) { E1[k] = G->e1[k]; E2[k] = G->e2[k]; N[k] = G->n0[k]; }
  }
}

/* ---------------------------------------------------------------------------------------------- */
/* manufactured fields and their derivatives */
typedef struct {
  double h, h1, h2, dhdt;
  double p, p1, p2, p11, p22;
  double vw[3], vb[3];     /* components along (E1, E2, N) */
  double dS1, dD1, dS2, dD2; /* d(vw1 + vb1)/ds1, d(vw1 - vb1)/ds1, d(vw2 + vb2)/ds2, d(vw2 - vb2)/ds2 */
} Fields;

static void EvalFields(const Geo *G, double s1, double s2, Fields *F)
{
  const double a = PI / G->L1, b = PI / G->L2;
  const double Sa = sin(a * s1), Ca = cos(a * s1), Sb = sin(b * s2), Cb = cos(b * s2), L = 1 + 0.5 * s1 - 0.3 * s2;
  F->h    = 1.5 + 0.4 * sin(1.3 * s1 + 0.4) * cos(0.9 * s2);
  F->h1   = 0.4 * 1.3 * cos(1.3 * s1 + 0.4) * cos(0.9 * s2);
  F->h2   = -0.4 * 0.9 * sin(1.3 * s1 + 0.4) * sin(0.9 * s2);
  F->dhdt = 0.3 * cos(s1) * sin(2 * s2) - 0.1;
  F->p    = L * Sa * Sb;
  F->p1   = 0.5 * Sa * Sb + L * a * Ca * Sb;
  F->p11  = a * Ca * Sb - L * a * a * Sa * Sb;
  F->p2   = -0.3 * Sa * Sb + L * Sa * b * Cb;
  F->p22  = -0.6 * b * Sa * Cb - L * b * b * Sa * Sb;
  /* velocities: wall (1 + 0.3 sin 2 s2, 0.2 cos s1 + 0.3 s2, 0.7), base (-0.4 + 0.2 s2^2 + 0.1 s1, 0.5 sin(s1 + s2), -0.3 s1) */
  F->vw[0] = 1.0 + 0.3 * sin(2 * s2);
  F->vw[1] = 0.2 * cos(s1) + 0.3 * s2;
  F->vb[0] = -0.4 + 0.2 * s2 * s2 + 0.1 * s1;
  F->vb[1] = 0.5 * sin(s1 + s2);
  F->vw[2] = G->cyl ? 0.0 : 0.7;
  F->vb[2] = G->cyl ? 0.0 : -0.3 * s1;
  const double dvw11 = 0.0, dvb11 = 0.1, dvw22 = 0.3, dvb22 = 0.5 * cos(s1 + s2);
  F->dS1 = dvw11 + dvb11; F->dD1 = dvw11 - dvb11;
  F->dS2 = dvw22 + dvb22; F->dD2 = dvw22 - dvb22;
}

static void Flux(const FilmFluid *fl, const Fields *F, double q[2])
{
  FilmClosures c;
  film_closures_eval(&fl->rough, F->h, &c);
  const double A = 0.5 * fl->rho * F->h * c.phi_c, B = 0.5 * fl->rho * c.phi_s * fl->rough.sigma;
  const double C = fl->rho * F->h * F->h * F->h / (12 * fl->mu);
  q[0] = A * (F->vw[0] + F->vb[0]) + B * (F->vw[0] - F->vb[0]) - C * c.phi_x * F->p1;
  q[1] = A * (F->vw[1] + F->vb[1]) + B * (F->vw[1] - F->vb[1]) - C * c.phi_y * F->p2;
}

/* f = div q + phi_c rho dh/dt, analytically */
static double Source(const FilmFluid *fl, const Fields *F)
{
  FilmClosures c;
  film_closures_eval(&fl->rough, F->h, &c);
  const double rho = fl->rho, h = F->h, k12 = rho / (12 * fl->mu);
  const double A = 0.5 * rho * h * c.phi_c, dA = 0.5 * rho * (c.phi_c + h * c.dphi_c);
  const double B = 0.5 * rho * c.phi_s * fl->rough.sigma, dB = 0.5 * rho * c.dphi_s * fl->rough.sigma;
  const double Cx = k12 * h * h * h * c.phi_x, dCx = k12 * (3 * h * h * c.phi_x + h * h * h * c.dphi_x);
  const double Cy = k12 * h * h * h * c.phi_y, dCy = k12 * (3 * h * h * c.phi_y + h * h * h * c.dphi_y);
  const double S1 = F->vw[0] + F->vb[0], D1 = F->vw[0] - F->vb[0], S2 = F->vw[1] + F->vb[1], D2 = F->vw[1] - F->vb[1];
  const double div1 = dA * F->h1 * S1 + A * F->dS1 + dB * F->h1 * D1 + B * F->dD1 - dCx * F->h1 * F->p1 - Cx * F->p11;
  const double div2 = dA * F->h2 * S2 + A * F->dS2 + dB * F->h2 * D2 + B * F->dD2 - dCy * F->h2 * F->p2 - Cy * F->p22;
  return div1 + div2 + c.phi_c * rho * F->dhdt;
}

/* ---------------------------------------------------------------------------------------------- */
static PetscErrorCode Solve(const Geo *G, const FilmFluid *fl, PetscInt n, PetscReal *errL2, PetscReal *relL2)
{
  const PetscInt nn = (n + 1) * (n + 1);
  Mat            A;
  Vec            b, x;
  KSP            ksp;
  PC             pc;
  double (*X)[3];
  const PetscScalar *xv;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(nn, &X));
  for (PetscInt j = 0; j <= n; j++)
    for (PetscInt i = 0; i <= n; i++) Map(G, G->L1 * i / n, G->L2 * j / n, X[j * (n + 1) + i]);
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nn, nn, 9, NULL, &A));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, nn, &b));
  PetscCall(VecDuplicate(b, &x));
  for (PetscInt ej = 0; ej < n; ej++)
    for (PetscInt ei = 0; ei < n; ei++) {
      const PetscInt   nd[4] = {ej * (n + 1) + ei, ej * (n + 1) + ei + 1, (ej + 1) * (n + 1) + ei + 1, (ej + 1) * (n + 1) + ei};
      double           Xe[4][3], zero[4] = {0, 0, 0, 0}, R[4], K[4][4], hint[3], c[3] = {0, 0, 0};
      FilmQuadGeometry g;
      FilmPointState   st[4];
      double           Fs[4] = {0, 0, 0, 0};
      for (int a = 0; a < 4; a++)
        for (int k = 0; k < 3; k++) { Xe[a][k] = X[nd[a]][k]; c[k] += 0.25 * Xe[a][k]; }
      if (G->cyl) { hint[0] = c[0]; hint[1] = c[1]; hint[2] = 0; }
      else for (int k = 0; k < 3; k++) hint[k] = G->n0[k];
      film_quad_geometry(Xe, hint, &g);
      for (int q = 0; q < 4; q++) {
        double s1, s2, E1[3], E2[3], N[3];
        Fields F;
        Inverse(G, g.x[q], &s1, &s2, E1, E2, N);
        EvalFields(G, s1, s2, &F);
        st[q].h = F.h; st[q].dhdt = F.dhdt;
        for (int k = 0; k < 3; k++) {
          st[q].vw[k] = F.vw[0] * E1[k] + F.vw[1] * E2[k] + F.vw[2] * N[k];
          st[q].vb[k] = F.vb[0] * E1[k] + F.vb[1] * E2[k] + F.vb[2] * N[k];
        }
        const double f = Source(fl, &F);
        for (int a = 0; a < 4; a++) Fs[a] += g.w[q] * f * g.N[q][a];
      }
      film_reynolds_quad(&g, fl, st, zero, R, K, NULL);
      for (int a = 0; a < 4; a++) {
        const PetscInt i = nd[a] % (n + 1), j = nd[a] / (n + 1);
        if (i == 0 || j == 0 || i == n || j == n) continue; /* Dirichlet row */
        PetscScalar row[4];
        for (int bb = 0; bb < 4; bb++) row[bb] = K[a][bb];
        PetscCall(MatSetValues(A, 1, &nd[a], 4, nd, row, ADD_VALUES));
        PetscCall(VecSetValue(b, nd[a], -(R[a] + Fs[a]), ADD_VALUES));
      }
    }
  for (PetscInt j = 0; j <= n; j++)
    for (PetscInt i = 0; i <= n; i++)
      if (i == 0 || j == 0 || i == n || j == n) PetscCall(MatSetValue(A, j * (n + 1) + i, j * (n + 1) + i, 1.0, ADD_VALUES)); /* p = p_exact = 0 */
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscCall(KSPSetOptionsPrefix(ksp, "mms_"));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));

  /* L2 error with 3 x 3 Gauss on the bilinear surface */
  {
    static const double gx[3] = {-0.77459666924148338, 0.0, 0.77459666924148338}, gw[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    static const double xi_n[4] = {-1, 1, 1, -1}, eta_n[4] = {-1, -1, 1, 1};
    double              e2 = 0, p2 = 0;
    PetscCall(VecGetArrayRead(x, &xv));
    for (PetscInt ej = 0; ej < n; ej++)
      for (PetscInt ei = 0; ei < n; ei++) {
        const PetscInt nd[4] = {ej * (n + 1) + ei, ej * (n + 1) + ei + 1, (ej + 1) * (n + 1) + ei + 1, (ej + 1) * (n + 1) + ei};
        for (int qa = 0; qa < 3; qa++)
          for (int qb = 0; qb < 3; qb++) {
            double xp[3] = {0, 0, 0}, a1[3] = {0, 0, 0}, a2[3] = {0, 0, 0}, ph = 0;
            for (int a = 0; a < 4; a++) {
              const double N = 0.25 * (1 + gx[qa] * xi_n[a]) * (1 + gx[qb] * eta_n[a]);
              const double Nx = 0.25 * xi_n[a] * (1 + gx[qb] * eta_n[a]), Ne = 0.25 * eta_n[a] * (1 + gx[qa] * xi_n[a]);
              ph += N * PetscRealPart(xv[nd[a]]);
              for (int k = 0; k < 3; k++) { xp[k] += N * X[nd[a]][k]; a1[k] += Nx * X[nd[a]][k]; a2[k] += Ne * X[nd[a]][k]; }
            }
            const double G11 = a1[0] * a1[0] + a1[1] * a1[1] + a1[2] * a1[2], G22 = a2[0] * a2[0] + a2[1] * a2[1] + a2[2] * a2[2];
            const double G12 = a1[0] * a2[0] + a1[1] * a2[1] + a1[2] * a2[2], w = gw[qa] * gw[qb] * sqrt(G11 * G22 - G12 * G12);
            double       s1, s2, E1[3], E2[3], Nn[3];
            Fields       F;
            Inverse(G, xp, &s1, &s2, E1, E2, Nn);
            EvalFields(G, s1, s2, &F);
            e2 += w * (ph - F.p) * (ph - F.p);
            p2 += w * F.p * F.p;
          }
      }
    PetscCall(VecRestoreArrayRead(x, &xv));
    *errL2 = sqrt(e2);
    *relL2 = sqrt(e2 / p2);
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscCall(PetscFree(X));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  FilmFluid fl;
  int       failed = 0;
  Geo       geos[2];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  fl.rho = 1.0;
  fl.mu  = 1.0 / 12.0;
  if (film_roughness_init(0.8, 0.6, 3.0, &fl.rough)) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "roughness");

  /* (a) a flat square in a tilted plane; (b) a cylindrical patch */
  geos[0] = (Geo){0, 1.0, 1.0, 0.0, {0.8, 0.6, 0.0}, {-0.36, 0.48, 0.8}, {0.48, -0.64, 0.6}};
  geos[1] = (Geo){1, 1.2, 1.0, 1.0, {0}, {0}, {0}};

  for (int gi = 0; gi < 2; gi++) {
    const Geo *G = &geos[gi];
    PetscReal  err[4], rel[4];
    const int  ns[4] = {8, 16, 32, 64};
    /* the analytic source against a central-difference divergence of the flux */
    double     dmax = 0, fmax_ = 0;
    for (int k = 0; k < 7; k++) {
      const double s1 = G->L1 * (0.1 + 0.13 * k), s2 = G->L2 * (0.85 - 0.11 * k), d = 1e-5;
      Fields       F, Fa, Fb, Fc, Fd;
      double       qa[2], qb[2], qc[2], qd[2];
      FilmClosures c;
      EvalFields(G, s1, s2, &F);
      EvalFields(G, s1 + d, s2, &Fa); EvalFields(G, s1 - d, s2, &Fb);
      EvalFields(G, s1, s2 + d, &Fc); EvalFields(G, s1, s2 - d, &Fd);
      Flux(&fl, &Fa, qa); Flux(&fl, &Fb, qb); Flux(&fl, &Fc, qc); Flux(&fl, &Fd, qd);
      film_closures_eval(&fl.rough, F.h, &c);
      const double fd = (qa[0] - qb[0]) / (2 * d) + (qc[1] - qd[1]) / (2 * d) + c.phi_c * fl.rho * F.dhdt;
      const double f  = Source(&fl, &F);
      dmax  = fmax(dmax, fabs(fd - f));
      fmax_ = fmax(fmax_, fabs(f));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s: analytic source vs central-difference div q: largest difference %.1e (|f| up to %.2f)\n",
                          G->cyl ? "(b) cylindrical patch R = 1, 1.2 rad x 1" : "(a) flat square 1 x 1 in a tilted plane", dmax, fmax_));
    if (dmax > 1e-7 * fmax_) { failed++; PetscCall(PetscPrintf(PETSC_COMM_SELF, "  FAILED: source derivation\n")); }
    for (int l = 0; l < 4; l++) {
      PetscCall(Solve(G, &fl, ns[l], &err[l], &rel[l]));
      if (l == 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "  n = %2d: L2 error %.4e (relative %.3e)\n", ns[l], (double)err[l], (double)rel[l]));
      else PetscCall(PetscPrintf(PETSC_COMM_SELF, "  n = %2d: L2 error %.4e (relative %.3e), observed order %.3f\n", ns[l], (double)err[l], (double)rel[l], log2((double)(err[l - 1] / err[l]))));
    }
    const double order = log2((double)(err[2] / err[3]));
    if (!(order >= 1.8 && order <= 2.2)) { failed++; PetscCall(PetscPrintf(PETSC_COMM_SELF, "  FAILED: order %.3f outside [1.8, 2.2]\n", order)); }
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s\n", failed ? "MMS FAILED" : "MMS passed: second order on both surfaces"));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
