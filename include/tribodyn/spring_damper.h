#ifndef TRIBODYN_SPRING_DAMPER_H
#define TRIBODYN_SPRING_DAMPER_H
/*
  Linear spring-damper between two points (src/kernels/spring_damper.c, formulation.md (F17)).
  d = x_b - x_a, l = |d|, e = d / l, v = v_b - v_a, ldot = e . v;
  F = k (l - l0) + c ldot (tension positive); the force on end a is g = F e (on end b, -g).
  Kd = dg/dd = k e e^T + (F / l)(I - e e^T) + c e [(I - e e^T) v / l]^T and Kv = dg/dv = c e e^T.
  Returns 1 (and leaves the outputs unset) when the ends coincide (l = 0), else 0.  Kd, Kv may
  be NULL.  Pure C: no allocation, no globals.
*/
int spring_damper(const double xa[3], const double xb[3], const double va[3], const double vb[3], double k, double c, double l0,
                  double g[3], double *F, double Kd[3][3], double Kv[3][3]);
#endif
