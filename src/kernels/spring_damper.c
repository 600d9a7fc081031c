/*
  Linear spring-damper between two points (spring_damper.h, formulation.md (F17)): the force on
  its first end and its derivatives with respect to the separation d = x_b - x_a and the relative
  velocity v = v_b - v_a.
*/
#include <math.h>
#include <tribodyn/spring_damper.h>

int spring_damper(const double xa[3], const double xb[3], const double va[3], const double vb[3], double k, double c, double l0,
                  double g[3], double *F, double Kd[3][3], double Kv[3][3])
{
  double d[3], v[3], e[3], l, ldot = 0, P[3][3], Pv[3] = {0, 0, 0};
  for (int i = 0; i < 3; i++) {
    d[i] = xb[i] - xa[i];
    v[i] = (vb ? vb[i] : 0) - (va ? va[i] : 0);
  }
  l = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  if (!(l > 0)) return 1;
  for (int i = 0; i < 3; i++) e[i] = d[i] / l;
  for (int i = 0; i < 3; i++) ldot += e[i] * v[i];
  const double f = k * (l - l0) + c * ldot;
  for (int i = 0; i < 3; i++) g[i] = f * e[i];
  if (F) *F = f;
  if (!Kd && !Kv) return 0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) P[i][j] = (i == j ? 1.0 : 0.0) - e[i] * e[j]; /* projector off e */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Pv[i] += P[i][j] * v[j] / l; /* d ldot / d d */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      if (Kd) Kd[i][j] = k * e[i] * e[j] + f / l * P[i][j] + c * e[i] * Pv[j];
      if (Kv) Kv[i][j] = c * e[i] * e[j];
    }
  return 0;
}
