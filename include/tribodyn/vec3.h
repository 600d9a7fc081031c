#ifndef TRIBODYN_VEC3_H
#define TRIBODYN_VEC3_H
/*
  3-vector helpers shared by the kernels (plain C, doubles) and the model and I/O code
  (PetscReal is double in every PETSc build tribodyn accepts, see CMakeLists.txt).
*/
#include <math.h>

static inline double vec3_dot(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline double vec3_norm(const double a[3]) { return sqrt(vec3_dot(a, a)); }
static inline void   vec3_cross(const double a[3], const double b[3], double c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}
#endif
