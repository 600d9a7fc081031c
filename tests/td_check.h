#ifndef TRIBODYN_TESTS_TD_CHECK_H
#define TRIBODYN_TESTS_TD_CHECK_H
/*
  Shared scaffolding of the one-rank C unit tests: a count of failed checks, a check of an error
  against its tolerance, a check of a condition (plain, or with a printf-style message), deterministic random numbers and
  3-vector helpers.  Header-only; each test program includes it once.  A test seeds urand() with
  TD_RNG_SEED (define it before including) and ends with `return td_finish();`.
*/
#include <math.h>
#include <stdio.h>

static int failures = 0, checks = 0;

/* err <= tol (NaN fails), one line per check */
static inline void check(const char *what, double err, double tol)
{
  const int ok = err <= tol;
  checks++;
  printf("%-4s %-74s err %.3e (tol %.1e)\n", ok ? "ok" : "FAIL", what, err, tol);
  if (!ok) failures++;
}

/* a condition; only failures are printed */
static inline void Check(int ok, const char *what)
{
  checks++;
  if (!ok) {
    failures++;
    printf("  FAILED: %s\n", what);
  }
}

/* a condition with a printf-style message (the values that failed it); only failures are
   printed, with their place */
#define CHECKF(cond, ...) \
  do { \
    checks++; \
    if (!(cond)) { \
      failures++; \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__); \
      printf("\n"); \
    } \
  } while (0)

/* the summary line and the exit code */
static inline int td_finish(void)
{
  printf("%s: %d checks, %d failed\n", failures ? "FAILED" : "PASSED", checks, failures);
  return failures ? 1 : 0;
}

#ifndef TD_RNG_SEED
  #define TD_RNG_SEED 0x9E3779B97F4A7C15ull
#endif
static unsigned long long rng_state = TD_RNG_SEED;
/* deterministic uniform random numbers in [-1, 1] (xorshift64) */
static inline double urand(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return 2.0 * ((double)(rng_state >> 11) / 9007199254740992.0) - 1.0;
}

static inline double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double norm3(const double a[3]) { return sqrt(dot3(a, a)); }
static inline void   normalize3(double a[3])
{
  const double n = norm3(a);
  for (int i = 0; i < 3; i++) a[i] /= n;
}
static inline void cross3(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
#endif
