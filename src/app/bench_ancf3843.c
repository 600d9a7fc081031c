/*
  bench_ancf3843: time per element call of the ANCF 3843 kernels (formulation.md §1), single
  thread, on a deformed (about 15 % strain, large rotation) and moving element of the guide
  mesh (10 x 10 x 5 mm steel).  Each figure is the median over repetitions of the mean time of
  a batch of calls.  The last two lines time the matrix-free product of the Krylov operator
  (src/solver/element_operator.c): the linearisation kept once per Jacobian, then one product
  per Krylov iteration.  Targets: internal force <= 4 us, tangent <= 50 us (Project Chrono's
  ChElementHexaANCF_3843 takes 7.3 us and 146 us on the development machine).

  Usage: bench_ancf3843 [repetitions]   (default 15)
*/
#include "tribodyn/ancf3843.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { ND = ANCF3843_NDOF };

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y)
{
  const double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static double urand(unsigned long long *s)
{
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return 2.0 * ((double)(*s >> 11) / 9007199254740992.0) - 1.0;
}

typedef enum { FORCE, TANGENT, FORCE_AND_TANGENT, LINEARIZE, APPLY } Kind;

static double checksum = 0.0; /* printed, so that no call can be optimised away */

/* median over reps of the time per call [us] */
static double time_kernel(Kind kind, const Ancf3843Geometry *geo, const Ancf3843Material *mat,
                          const double *e, const double *edot, int batch, int reps)
{
  static double Q[ND], K[ND * ND], v[ND];
  static Ancf3843Work work;
  static Ancf3843Linearization lin;
  if (kind == APPLY) {
    ancf3843_linearize(geo, mat, e, edot, 1.0, 2.0e4, &lin, &work);
    for (int j = 0; j < ND; j++) v[j] = 1e-3 * (double)((j * 7919) % 97 - 48);
  }
  double t[64];
  if (reps > 64) reps = 64;
  for (int r = -1; r < reps; r++) { /* r = -1 warms up caches and clocks */
    const double t0 = now();
    for (int i = 0; i < batch; i++) {
      switch (kind) {
      case FORCE:
        ancf3843_internal_force(geo, mat, e, edot, Q, NULL, &work);
        break;
      case TANGENT:
        ancf3843_tangent(geo, mat, e, edot, 1.0, 2.0e4, K, &work);
        break;
      case FORCE_AND_TANGENT:
        ancf3843_force_and_tangent(geo, mat, e, edot, 1.0, 2.0e4, Q, K, &work);
        break;
      case LINEARIZE:
        ancf3843_linearize(geo, mat, e, edot, 1.0, 2.0e4, &lin, &work);
        break;
      case APPLY: /* with the mass, as the Krylov operator applies it */
        ancf3843_tangent_apply(geo, mat, &lin, 1.2e13, v, Q, &work);
        break;
      }
    }
    const double t1 = now();
    if (r >= 0) t[r] = (t1 - t0) / batch * 1e6;
    checksum += (kind == FORCE || kind == APPLY ? Q[7] : kind == LINEARIZE ? lin.H[1][5] : K[1234]);
  }
  qsort(t, (size_t)reps, sizeof(double), cmp_double);
  return t[reps / 2];
}

int main(int argc, char **argv)
{
  const int reps = argc > 1 ? atoi(argv[1]) : 15;
  if (reps < 1) {
    fprintf(stderr, "usage: bench_ancf3843 [repetitions >= 1]\n");
    return 1;
  }
  const double a = 0.01, b = 0.01, c = 0.005;
  static Ancf3843Geometry geo;
  Ancf3843Material elastic, damped;
  ancf3843_geometry_init(a, b, c, &geo);
  ancf3843_material_init(210e9, 0.3, 7800.0, 0.0, &elastic);
  ancf3843_material_init(210e9, 0.3, 7800.0, 1e-5, &damped);

  /* deformed, rotated and moving state */
  double e[ND], edot[ND];
  const double x0[3] = {0.17, 0.0, -0.005};
  ancf3843_reference_coordinates(a, b, c, x0, e);
  unsigned long long s = 0x2545F4914F6CDD1Dull;
  const double th = 0.6, ct = cos(th), st = sin(th); /* rotation about z */
  for (int k = 0; k < ANCF3843_NSHAPE; k++) {
    double *v = &e[3 * k];
    const double x = v[0], y = v[1];
    v[0] = ct * x - st * y;
    v[1] = st * x + ct * y;
    const double scale = (k % 4) ? 1.0 : c;
    for (int i = 0; i < 3; i++) {
      v[i] += 0.15 * scale * urand(&s);
      edot[3 * k + i] = 500.0 * scale * urand(&s);
    }
  }

  /* warm-up: caches, page faults and the clock of the vector units before the first figure */
  time_kernel(TANGENT, &geo, &damped, e, edot, 2000, 1);
  printf("ANCF 3843 kernels, %g x %g x %g mm element, single thread, median of %d repetitions\n",
         a * 1e3, b * 1e3, c * 1e3, reps);
  printf("  internal force, damped, moving        %8.3f us/call  (target <= 4)\n",
         time_kernel(FORCE, &geo, &damped, e, edot, 4000, reps));
  printf("  internal force, undamped              %8.3f us/call  (target <= 4)\n",
         time_kernel(FORCE, &geo, &elastic, e, NULL, 4000, reps));
  printf("  tangent, damped, moving (unsymmetric) %8.3f us/call  (target <= 50)\n",
         time_kernel(TANGENT, &geo, &damped, e, edot, 400, reps));
  printf("  tangent, undamped (symmetric)         %8.3f us/call  (target <= 50)\n",
         time_kernel(TANGENT, &geo, &elastic, e, NULL, 400, reps));
  printf("  force and tangent, damped, moving     %8.3f us/call\n",
         time_kernel(FORCE_AND_TANGENT, &geo, &damped, e, edot, 400, reps));
  printf("  linearisation for products, damped    %8.3f us/call\n",
         time_kernel(LINEARIZE, &geo, &damped, e, edot, 4000, reps));
  printf("  tangent times a vector (with the mass) %7.3f us/call  (matrix-free Krylov operator)\n",
         time_kernel(APPLY, &geo, &damped, e, edot, 4000, reps));
  printf("  (Project Chrono ChElementHexaANCF_3843 on the development machine: 7.3 us force, "
         "146 us Jacobian)\n");
  printf("  checksum %.6e\n", checksum);
  return 0;
}
