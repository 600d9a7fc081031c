/*
  Unit tests of the face evaluation of the ANCF 3843 shape functions (ancf3843_face_shapes,
  ancf3843_face_shape_and_gradient; ancf3843.h), the reference for the face evaluation the film
  projections form on the face itself (projection.c):
  1. against the whole-cell routine ancf3843_shape_and_gradient at random points of all 6 faces
     (face coordinates slightly beyond the face too, where the projections iterate) of random,
     strongly non-cubic cells: the 12 active values and in-face gradients agree to rounding, and
     the whole-cell routine gives exactly 0 for the 20 others, value and in-face gradient (what
     lets the callers skip them);
  2. the active list against its definition (the 4 nodes with xi_n = xi_f on the fixed
     coordinate, without their normal-slope function), in increasing order;
  3. independently of the element code: the interpolation conditions at the face's corners
     (position functions 1 at their node, slopes with unit in-face gradient there, and every
     other value and in-face gradient 0), and the in-face gradients against central finite
     differences of the face values.
*/
#include "tribodyn/ancf3843.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

enum { NS = ANCF3843_NSHAPE, NA = ANCF3843_FACE_NSHAPE };

#define TD_RNG_SEED 0x6A09E667F3BCC909ull
#include "td_check.h"

/* the free coordinates of face f in increasing order, and its fixed one */
static void face_axes(int f, int *fix, int *i0, int *i1)
{
  *fix = f / 2;
  *i0  = *fix == 0 ? 1 : 0;
  *i1  = *fix == 2 ? 1 : 2;
}

static void test_against_whole_cell(void)
{
  double err_S = 0.0, err_G = 0.0, inactive = 0.0;
  int    bit_identical = 0, compared = 0;
  for (int trial = 0; trial < 6000; trial++) {
    const int f = trial % 6;
    int       fix, i0, i1, k[NA], active[NS] = {0};
    face_axes(f, &fix, &i0, &i1);
    /* edge lengths from 0.5 mm to 0.2 m, aspect ratios up to 400 */
    const double h[3] = {5e-4 * pow(400.0, 0.5 + 0.5 * urand()), 5e-4 * pow(400.0, 0.5 + 0.5 * urand()),
                         5e-4 * pow(400.0, 0.5 + 0.5 * urand())};
    const double uv[2] = {1.2 * urand(), 1.2 * urand()};
    double       xi[3], S[NS], dSdX[3][NS], Sf[NA], Gf[2][NA];
    xi[fix] = (f & 1) ? 1.0 : -1.0;
    xi[i0]  = uv[0];
    xi[i1]  = uv[1];
    ancf3843_shape_and_gradient(h[0], h[1], h[2], xi, S, dSdX);
    ancf3843_face_shapes(f, k);
    ancf3843_face_shape_and_gradient(h[0], h[1], h[2], f, uv, Sf, Gf);
    /* scales: values of order 1 (positions) or h (slopes); gradients of order 1/h or 1 */
    double sS = 0.0, sG = 0.0;
    for (int j = 0; j < NS; j++) {
      sS = fmax(sS, fabs(S[j]));
      sG = fmax(sG, fmax(fabs(dSdX[i0][j]), fabs(dSdX[i1][j])));
    }
    for (int j = 0; j < NA; j++) {
      active[k[j]] = 1;
      err_S = fmax(err_S, fabs(Sf[j] - S[k[j]]) / sS);
      err_G = fmax(err_G, fmax(fabs(Gf[0][j] - dSdX[i0][k[j]]), fabs(Gf[1][j] - dSdX[i1][k[j]])) / sG);
      bit_identical += Sf[j] == S[k[j]] && Gf[0][j] == dSdX[i0][k[j]] && Gf[1][j] == dSdX[i1][k[j]];
      compared++;
    }
    for (int j = 0; j < NS; j++)
      if (!active[j]) inactive = fmax(inactive, fmax(fabs(S[j]), fmax(fabs(dSdX[i0][j]), fabs(dSdX[i1][j]))));
  }
  check("face values vs whole-cell routine (relative to the largest value)", err_S, 4 * DBL_EPSILON);
  check("face in-face gradients vs whole-cell routine (relative)", err_G, 4 * DBL_EPSILON);
  check("inactive functions on the face: |S|, |dS/dX in-face| (exactly 0)", inactive, 0.0);
  printf("     %d of %d active functions bit-identical to the whole-cell routine\n", bit_identical, compared);
}

static void test_active_list(void)
{
  int ok = 1;
  for (int f = 0; f < 6; f++) {
    int fix, i0, i1, k[NA], j = 0;
    face_axes(f, &fix, &i0, &i1);
    ancf3843_face_shapes(f, k);
    for (int n = 0; n < ANCF3843_NODES; n++) {
      if ((((n >> fix) & 1) ? 1 : 0) != (f & 1)) continue; /* node not on the face */
      const int expect[3] = {4 * n, 4 * n + 1 + i0, 4 * n + 1 + i1}; /* position, in-plane slopes */
      for (int s = 0; s < 3; s++, j++) ok = ok && j < NA && k[j] == expect[s];
    }
    ok = ok && j == NA;
  }
  Check(ok, "active lists of the 6 faces: the face nodes' position and in-plane slope functions, in order");
}

static void test_interpolation_and_fd(void)
{
  const double h[3] = {0.04, 0.007, 0.013};
  double       err_node = 0.0, err_fd = 0.0;
  for (int f = 0; f < 6; f++) {
    int fix, i0, i1, k[NA];
    face_axes(f, &fix, &i0, &i1);
    ancf3843_face_shapes(f, k);
    /* corners: uv = (+-1, +-1) */
    for (int c = 0; c < 4; c++) {
      const double uv[2] = {(c & 1) ? 1.0 : -1.0, (c & 2) ? 1.0 : -1.0};
      double       Sf[NA], Gf[2][NA];
      int          node = 0;
      node |= (f & 1) << fix;
      node |= (uv[0] > 0 ? 1 : 0) << i0;
      node |= (uv[1] > 0 ? 1 : 0) << i1;
      ancf3843_face_shape_and_gradient(h[0], h[1], h[2], f, uv, Sf, Gf);
      for (int j = 0; j < NA; j++) {
        const int nd = k[j] / 4, s = k[j] % 4, here = nd == node;
        const double S_expect  = (here && s == 0) ? 1.0 : 0.0;
        const double G0_expect = (here && s == 1 + i0) ? 1.0 : 0.0, G1_expect = (here && s == 1 + i1) ? 1.0 : 0.0;
        err_node = fmax(err_node, fabs(Sf[j] - S_expect));
        /* gradients of order 1/h for the position functions */
        err_node = fmax(err_node, fmax(fabs(Gf[0][j] - G0_expect), fabs(Gf[1][j] - G1_expect)) * (s == 0 ? fmin(h[i0], h[i1]) : 1.0));
      }
    }
    /* in-face gradients vs central differences of the face values, dX = h/2 dxi */
    for (int trial = 0; trial < 50; trial++) {
      const double uv[2] = {urand(), urand()}, d = 1e-6;
      double       Sf[NA], Gf[2][NA], Sp[NA], Sm[NA], G2[2][NA];
      ancf3843_face_shape_and_gradient(h[0], h[1], h[2], f, uv, Sf, Gf);
      for (int a = 0; a < 2; a++) {
        double up[2] = {uv[0], uv[1]}, um[2] = {uv[0], uv[1]};
        up[a] += d;
        um[a] -= d;
        ancf3843_face_shape_and_gradient(h[0], h[1], h[2], f, up, Sp, G2);
        ancf3843_face_shape_and_gradient(h[0], h[1], h[2], f, um, Sm, G2);
        const double hx = h[a == 0 ? i0 : i1];
        for (int j = 0; j < NA; j++) {
          const double fd = (Sp[j] - Sm[j]) / (2.0 * d) * 2.0 / hx;
          err_fd          = fmax(err_fd, fabs(fd - Gf[a][j]) * (k[j] % 4 == 0 ? hx : 1.0));
        }
      }
    }
  }
  check("face corners: interpolation conditions of values and in-face gradients", err_node, 1e-14);
  check("in-face gradients vs central differences (scaled to O(1))", err_fd, 1e-8);
}

int main(void)
{
  test_active_list();
  test_against_whole_cell();
  test_interpolation_and_fd();
  return td_finish();
}
