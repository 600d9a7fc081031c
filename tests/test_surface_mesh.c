/*
  Film surface module (src/io/surface_mesh.c): the default rectangle, Gmsh quad meshes of flat
  and curved surfaces (meshes/journal_film.geo, meshes/flat_film_noflux.geo), orientation,
  boundary conditions from the physical groups, and bad inputs.

  References are independent of the code under test: the exact geometry (node positions of the
  parallelogram, the cylinder radius, the polygonal area 2 n R sin(pi/n) L of the bore, the
  square's area), edge counts and orientations recomputed here from the quadrangles, and the
  PETSc error codes of the interface.  Every rank runs all checks on its own.
*/
#include <tribodyn/surface_mesh.h>
#include <tribodyn/mesh.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "td_check_petsc.h"

static const char help[] = "Tests of the film surface mesh module.\n";

static void Cross(const PetscReal a[3], const PetscReal b[3], PetscReal c[3])
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

static PetscReal Dot(const PetscReal a[3], const PetscReal b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static PetscReal Norm(const PetscReal a[3])
{
  return PetscSqrtReal(Dot(a, a));
}

/* Area of the bilinear quadrangle q (2 x 2 Gauss points on |X_s x X_t|, exact for planar ones),
   and its normal at the centre (X_s x X_t). */
static PetscReal QuadArea(const TdSurfaceMesh *m, PetscInt q, PetscReal normal[3])
{
  const PetscReal g = 1 / PetscSqrtReal(3.0);
  const PetscReal *X[4];
  PetscReal        area = 0;

  for (PetscInt k = 0; k < 4; k++) X[k] = &m->X[3 * m->quads[4 * q + k]];
  for (PetscInt a = -1; a <= 1; a += 2)
    for (PetscInt b = -1; b <= 1; b += 2) {
      PetscReal s = 0.5 * (1 + a * g), t = 0.5 * (1 + b * g), xs[3], xt[3], n[3];
      for (PetscInt i = 0; i < 3; i++) {
        xs[i] = (1 - t) * (X[1][i] - X[0][i]) + t * (X[2][i] - X[3][i]);
        xt[i] = (1 - s) * (X[3][i] - X[0][i]) + s * (X[2][i] - X[1][i]);
      }
      Cross(xs, xt, n);
      area += 0.25 * Norm(n); /* weights 1/4 on [0,1]^2 */
    }
  {
    PetscReal xs[3], xt[3];
    for (PetscInt i = 0; i < 3; i++) {
      xs[i] = 0.5 * (X[1][i] - X[0][i] + X[2][i] - X[3][i]);
      xt[i] = 0.5 * (X[3][i] - X[0][i] + X[2][i] - X[1][i]);
    }
    Cross(xs, xt, normal);
  }
  return area;
}

typedef struct {
  PetscInt a, b, dir;
} Edge;

static int CompareEdge(const void *x_, const void *y_)
{
  const Edge *x = (const Edge *)x_, *y = (const Edge *)y_;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  return x->dir - y->dir;
}

/* Edge statistics recomputed from the quadrangles: boundary edges (one quadrangle), interior
   edges (two, traversed in opposite directions if consistently oriented), others; the boundary
   edges are returned (2 nodes each) in bnd (allocated). */
typedef struct {
  PetscInt nboundary, ninterior, nsame, nbad;
  PetscInt *bnd;
} EdgeStats;

static PetscErrorCode Edges(const TdSurfaceMesh *m, EdgeStats *st)
{
  Edge *e;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(st, sizeof(*st)));
  PetscCall(PetscMalloc1(4 * m->nquads, &e));
  PetscCall(PetscMalloc1(8 * m->nquads, &st->bnd));
  for (PetscInt q = 0; q < m->nquads; q++)
    for (PetscInt k = 0; k < 4; k++) {
      PetscInt u = m->quads[4 * q + k], v = m->quads[4 * q + (k + 1) % 4];
      e[4 * q + k].a   = PetscMin(u, v);
      e[4 * q + k].b   = PetscMax(u, v);
      e[4 * q + k].dir = u < v ? 1 : -1;
    }
  qsort(e, 4 * m->nquads, sizeof(Edge), CompareEdge);
  for (PetscInt i = 0; i < 4 * m->nquads;) {
    PetscInt j = i + 1;
    while (j < 4 * m->nquads && e[j].a == e[i].a && e[j].b == e[i].b) j++;
    if (j - i == 1) {
      st->bnd[2 * st->nboundary]     = e[i].a;
      st->bnd[2 * st->nboundary + 1] = e[i].b;
      st->nboundary++;
    } else if (j - i == 2) {
      st->ninterior++;
      if (e[i].dir == e[i + 1].dir) st->nsame++;
    } else st->nbad++;
    i = j;
  }
  PetscCall(PetscFree(e));
  PetscFunctionReturn(0);
}

static PetscInt Count(const PetscBool *flags, PetscInt n)
{
  PetscInt c = 0;
  for (PetscInt i = 0; i < n; i++) c += flags[i] ? 1 : 0;
  return c;
}

/* ------------------------------------------------------------------------------------------ */

static PetscErrorCode TestRectangle(void)
{
  const PetscReal origin[3] = {0.1, -0.2, 0.3}, e1[3] = {0.3, 0.1, 0.0}, e2[3] = {-0.05, 0.2, 0.1};
  const PetscInt  nx = 6, ny = 4;
  PetscReal       cr[3], area = 0, poserr = 0, exact;
  PetscInt        badflag = 0, badorient = 0;
  TdSurfaceMesh   m;
  EdgeStats       st;

  PetscFunctionBeginUser;
  Cross(e1, e2, cr);
  exact = Norm(cr);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rectangle: parallelogram e1 = (0.3, 0.1, 0), e2 = (-0.05, 0.2, 0.1), 6 x 4 quads\n"));
  {
    const PetscBool noflux[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_TRUE, PETSC_TRUE}; /* ymin, ymax zero-flux */
    PetscCall(TdSurfaceMeshCreateRectangle(origin, e1, e2, nx, ny, noflux, &m));
    for (PetscInt j = 0; j <= ny; j++)
      for (PetscInt i = 0; i <= nx; i++) {
        PetscInt  k   = i + (nx + 1) * j;
        PetscBool bnd = (PetscBool)(i == 0 || i == nx || j == 0 || j == ny), dir = (PetscBool)(i == 0 || i == nx);
        for (PetscInt d = 0; d < 3; d++) poserr = PetscMax(poserr, PetscAbsReal(m.X[3 * k + d] - (origin[d] + (PetscReal)i / nx * e1[d] + (PetscReal)j / ny * e2[d])));
        if (m.boundary[k] != bnd || m.dirichlet[k] != dir) badflag++;
      }
    for (PetscInt q = 0; q < m.nquads; q++) {
      PetscReal n[3];
      area += QuadArea(&m, q, n);
      if (Dot(n, cr) <= 0) badorient++;
    }
    PetscCall(Edges(&m, &st));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  noflux ymin,ymax: nodes %" PetscInt_FMT " (expected 35), quads %" PetscInt_FMT " (expected 24), boundary nodes %" PetscInt_FMT " (expected 20), Dirichlet nodes %" PetscInt_FMT " (expected 10: the xmin and xmax columns), flags differing from the expected ones %" PetscInt_FMT "\n", m.nnodes, m.nquads, Count(m.boundary, m.nnodes), Count(m.dirichlet, m.nnodes), badflag));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  max |X - (origin + i/nx e1 + j/ny e2)| %.2e, area %.15g (expected |e1 x e2| = %.15g), quads not counter-clockwise about e1 x e2: %" PetscInt_FMT "\n", (double)poserr, (double)area, (double)exact, badorient));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  edges: boundary %" PetscInt_FMT " (expected 20), interior %" PetscInt_FMT " (expected 38), interior traversed twice in the same direction %" PetscInt_FMT " (expected 0)\n", st.nboundary, st.ninterior, st.nsame));
    CHECK(m.nnodes == 35 && m.nquads == 24, "counts");
    CHECK(Count(m.boundary, m.nnodes) == 20 && Count(m.dirichlet, m.nnodes) == 10 && badflag == 0, "flags");
    CHECK(poserr <= 1e-15, "node positions");
    CHECK(PetscAbsReal(area - exact) <= 1e-14 * exact, "area");
    CHECK(badorient == 0, "orientation");
    CHECK(st.nboundary == 20 && st.ninterior == 38 && st.nsame == 0 && st.nbad == 0, "edges");
    CHECK(!strcmp(m.source, "rectangle"), "source");
    PetscCall(PetscFree(st.bnd));
    PetscCall(TdSurfaceMeshDestroy(&m));
    CHECK(m.X == NULL && m.quads == NULL && m.nnodes == 0, "destroy zeroes the mesh");
  }
  { /* xmin zero-flux only: its end nodes are Dirichlet through ymin and ymax */
    const PetscBool noflux[4] = {PETSC_TRUE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
    PetscInt        nd;
    PetscCall(TdSurfaceMeshCreateRectangle(origin, e1, e2, nx, ny, noflux, &m));
    nd = Count(m.dirichlet, m.nnodes);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  noflux xmin: Dirichlet nodes %" PetscInt_FMT " (expected 17), corners on xmin Dirichlet %d %d (expected 1 1), xmin mid-edge node Dirichlet %d (expected 0)\n", nd, (int)m.dirichlet[0], (int)m.dirichlet[(nx + 1) * ny], (int)m.dirichlet[(nx + 1) * 2]));
    CHECK(nd == 17 && m.dirichlet[0] && m.dirichlet[(nx + 1) * ny] && !m.dirichlet[(nx + 1) * 2] && m.boundary[(nx + 1) * 2], "noflux xmin");
    PetscCall(TdSurfaceMeshDestroy(&m));
  }
  { /* NULL noflux: every boundary node Dirichlet; all four edges zero-flux: none */
    const PetscBool all[4] = {PETSC_TRUE, PETSC_TRUE, PETSC_TRUE, PETSC_TRUE};
    PetscInt        n1, n2;
    PetscCall(TdSurfaceMeshCreateRectangle(origin, e1, e2, 1, 1, NULL, &m));
    n1 = Count(m.dirichlet, m.nnodes);
    PetscCall(TdSurfaceMeshDestroy(&m));
    PetscCall(TdSurfaceMeshCreateRectangle(origin, e1, e2, 3, 2, all, &m));
    n2 = Count(m.dirichlet, m.nnodes);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  1 x 1 without noflux: Dirichlet nodes %" PetscInt_FMT " (expected 4); 3 x 2 all noflux: Dirichlet nodes %" PetscInt_FMT " (expected 0), boundary nodes %" PetscInt_FMT " (expected 10)\n", n1, n2, Count(m.boundary, m.nnodes)));
    CHECK(n1 == 4 && n2 == 0 && Count(m.boundary, m.nnodes) == 10, "all ambient / all noflux");
    PetscCall(TdSurfaceMeshDestroy(&m));
  }
  { /* bad arguments */
    const PetscReal zero[3] = {0, 0, 0}, par[3] = {0.6, 0.2, 0.0};
    struct {
      const PetscReal *e1, *e2;
      PetscInt         nx, ny;
      const char      *what, *expect;
    } bad[] = {
      {e1,   e2,  0, 4, "nx = 0",              "cells"     },
      {e1,   e2,  6, -1, "ny = -1",            "cells"     },
      {zero, e2,  6, 4, "e1 = 0",              "e1"        },
      {e1,   zero, 6, 4, "e2 = 0",             "e2"        },
      {e1,   par, 6, 4, "e2 parallel to e1",   "parallel"  },
    };
    for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
      PetscErrorCode ierr;
      last_error[0] = 0;
      PetscCall(PetscPushErrorHandler(CaptureError, NULL));
      ierr = TdSurfaceMeshCreateRectangle(origin, bad[b].e1, bad[b].e2, bad[b].nx, bad[b].ny, NULL, &m);
      PetscCall(PetscPopErrorHandler());
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: error code %d (expected %d)\n    message: %s\n", bad[b].what, (int)ierr, (int)PETSC_ERR_USER_INPUT, last_error));
      CHECK(ierr == PETSC_ERR_USER_INPUT, "%s: error code %d", bad[b].what, (int)ierr);
      CHECK(strstr(last_error, bad[b].expect) != NULL, "%s: message lacks \"%s\"", bad[b].what, bad[b].expect);
      if (!ierr) PetscCall(TdSurfaceMeshDestroy(&m));
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TestJournal(void)
{
  const PetscReal R = 0.02, L = 0.005, ztol = 1e-12 * L;
  const PetscInt  nc = 180, nz = 16;
  char            path[PETSC_MAX_PATH_LEN];
  TdSurfaceMesh   m;
  EdgeStats       st;
  PetscReal       rerr = 0, area = 0, poly = 2 * nc * R * PetscSinReal(PETSC_PI / nc) * L, exact = 2 * PETSC_PI * R * L, zmin = PETSC_MAX_REAL, zmax = -PETSC_MAX_REAL;
  PetscInt        nout = 0, nin = 0, dirbad = 0, bndbad = 0, nend = 0, badbnd_edges = 0, nseam = 0, ncoinc = 0;

  PetscFunctionBeginUser;
  MeshPath(path, sizeof(path), "journal_film.geo");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "meshes/journal_film.geo: bore R = 0.02 m, L = 0.005 m, 180 x 16 quads\n"));
  PetscCall(TdSurfaceMeshLoad(PETSC_COMM_WORLD, path, &m));
  for (PetscInt k = 0; k < m.nnodes; k++) {
    const PetscReal *x = &m.X[3 * k];
    PetscBool        end = (PetscBool)(PetscAbsReal(x[2]) <= ztol || PetscAbsReal(x[2] - L) <= ztol);
    rerr                 = PetscMax(rerr, PetscAbsReal(PetscSqrtReal(x[0] * x[0] + x[1] * x[1]) - R));
    zmin                 = PetscMin(zmin, x[2]);
    zmax                 = PetscMax(zmax, x[2]);
    nend += end ? 1 : 0;
    if (m.dirichlet[k] != end) dirbad++;
    if (m.boundary[k] != end) bndbad++;
    if (PetscAbsReal(x[1]) <= 1e-12 * R && x[0] > 0) nseam++;
  }
  { /* no two nodes coincide (a duplicated seam would) */
    for (PetscInt k = 0; k < m.nnodes; k++)
      for (PetscInt l = k + 1; l < m.nnodes; l++)
        if (PetscAbsReal(m.X[3 * k] - m.X[3 * l]) + PetscAbsReal(m.X[3 * k + 1] - m.X[3 * l + 1]) + PetscAbsReal(m.X[3 * k + 2] - m.X[3 * l + 2]) <= 1e-12 * R) ncoinc++;
  }
  for (PetscInt q = 0; q < m.nquads; q++) {
    PetscReal        n[3], c[3] = {0, 0, 0};
    for (PetscInt k = 0; k < 4; k++)
      for (PetscInt i = 0; i < 3; i++) c[i] += 0.25 * m.X[3 * m.quads[4 * q + k] + i];
    area += QuadArea(&m, q, n);
    c[2] = 0;
    if (Dot(n, c) > 0) nout++;
    else nin++;
  }
  PetscCall(Edges(&m, &st));
  for (PetscInt b = 0; b < st.nboundary; b++) { /* every boundary edge lies on an end circle */
    PetscReal za = m.X[3 * st.bnd[2 * b] + 2], zb = m.X[3 * st.bnd[2 * b + 1] + 2];
    if (!((PetscAbsReal(za) <= ztol && PetscAbsReal(zb) <= ztol) || (PetscAbsReal(za - L) <= ztol && PetscAbsReal(zb - L) <= ztol))) badbnd_edges++;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  nodes %" PetscInt_FMT " (expected 180*17 = %d), quads %" PetscInt_FMT " (expected 180*16 = %d), z in [%g, %g]\n", m.nnodes, (int)(nc * (nz + 1)), m.nquads, (int)(nc * nz), (double)zmin, (double)zmax));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  max |r - R| = %.3e m = %.3e R (expected < 1e-12 R)\n", (double)rerr, (double)(rerr / R)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  edges: boundary %" PetscInt_FMT " (expected 360), interior %" PetscInt_FMT " (expected %d), interior traversed in the same direction by both quads %" PetscInt_FMT " (expected 0), in more than 2 quads %" PetscInt_FMT " (expected 0), boundary edges off the end circles %" PetscInt_FMT " (expected 0)\n", st.nboundary, st.ninterior, (int)(nc * (2 * nz - 1)), st.nsame, st.nbad, badbnd_edges));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  quad normals outward %" PetscInt_FMT ", inward %" PetscInt_FMT " (expected all one way)\n", nout, nin));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  area %.15g; polygonal 2 n R sin(pi/n) L = %.15g (rel. diff %.2e); 2 pi R L = %.15g (rel. diff %.2e, expected < 1e-4)\n", (double)area, (double)poly, (double)(PetscAbsReal(area - poly) / poly), (double)exact, (double)(PetscAbsReal(area - exact) / exact)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  nodes on the end circles %" PetscInt_FMT " (expected 360); Dirichlet %" PetscInt_FMT ", boundary %" PetscInt_FMT "; nodes whose Dirichlet / boundary flag differs from 'on an end circle': %" PetscInt_FMT " / %" PetscInt_FMT " (expected 0)\n", nend, Count(m.dirichlet, m.nnodes), Count(m.boundary, m.nnodes), dirbad, bndbad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  nodes on the seam (y = 0, x > 0) %" PetscInt_FMT " (expected 17: not duplicated), coincident node pairs %" PetscInt_FMT " (expected 0)\n", nseam, ncoinc));
  CHECK(m.nnodes == nc * (nz + 1) && m.nquads == nc * nz, "counts");
  CHECK(rerr < 1e-12 * R, "nodes on the cylinder");
  CHECK(PetscAbsReal(zmin) <= ztol && PetscAbsReal(zmax - L) <= ztol, "axial extent");
  CHECK(st.nboundary == 2 * nc && st.ninterior == nc * (2 * nz - 1) && st.nsame == 0 && st.nbad == 0, "edges and orientation");
  CHECK(badbnd_edges == 0, "boundary only on the end circles");
  CHECK(nout == 0 || nin == 0, "one continuous normal field");
  CHECK(PetscAbsReal(area - exact) <= 1e-4 * exact, "area vs 2 pi R L");
  CHECK(PetscAbsReal(area - poly) <= 1e-12 * poly, "area vs the polygonal area");
  CHECK(nend == 2 * nc && dirbad == 0 && bndbad == 0, "Dirichlet nodes exactly on the end circles");
  CHECK(nseam == nz + 1 && ncoinc == 0, "shared seam");
  CHECK(!strcmp(m.source, path), "source");
  PetscCall(PetscFree(st.bnd));
  PetscCall(TdSurfaceMeshDestroy(&m));
  PetscFunctionReturn(0);
}

/* The square of flat_film_noflux.geo: returns the checks' summary line. */
static PetscErrorCode CheckFlat(const char label[], const char path[])
{
  const PetscReal a = 0.04, tol = 1e-12 * a;
  TdSurfaceMesh   m;
  EdgeStats       st;
  PetscReal       area = 0;
  PetscInt        nup = 0, ndown = 0, bad = 0, nnoflux = 0, ncorner = 0, nambient = 0, offplane = 0;

  PetscFunctionBeginUser;
  PetscCall(TdSurfaceMeshLoad(PETSC_COMM_WORLD, path, &m));
  for (PetscInt k = 0; k < m.nnodes; k++) {
    const PetscReal *x  = &m.X[3 * k];
    PetscBool        ox = (PetscBool)(PetscAbsReal(PetscAbsReal(x[0]) - a / 2) <= tol), oy = (PetscBool)(PetscAbsReal(PetscAbsReal(x[1]) - a / 2) <= tol);
    if (PetscAbsReal(x[2]) > tol) offplane++;
    if (ox && oy) ncorner += m.dirichlet[k] ? 1 : 0;
    else if (ox) nambient += m.dirichlet[k] ? 1 : 0;
    else if (oy) nnoflux += m.dirichlet[k] ? 0 : 1;
    if (m.dirichlet[k] != ox || m.boundary[k] != (PetscBool)(ox || oy)) bad++;
  }
  for (PetscInt q = 0; q < m.nquads; q++) {
    PetscReal n[3];
    area += QuadArea(&m, q, n);
    if (n[2] > 0) nup++;
    else ndown++;
  }
  PetscCall(Edges(&m, &st));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n  nodes %" PetscInt_FMT " (expected 441), quads %" PetscInt_FMT " (expected 400), nodes off z = 0: %" PetscInt_FMT ", area %.15g (expected 0.0016)\n", label, m.nnodes, m.nquads, offplane, (double)area));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  noflux edges y = +-0.02: non-Dirichlet interior nodes %" PetscInt_FMT " (expected 38); ambient edges x = +-0.02: Dirichlet nodes %" PetscInt_FMT " (expected 38) + corners %" PetscInt_FMT " (expected 4); Dirichlet %" PetscInt_FMT " (expected 42), boundary %" PetscInt_FMT " (expected 80); flags differing %" PetscInt_FMT " (expected 0)\n", nnoflux, nambient, ncorner, Count(m.dirichlet, m.nnodes), Count(m.boundary, m.nnodes), bad));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  edges: boundary %" PetscInt_FMT " (expected 80), interior %" PetscInt_FMT " (expected 760), same direction %" PetscInt_FMT " (expected 0); normals +z %" PetscInt_FMT ", -z %" PetscInt_FMT " (expected all one way)\n", st.nboundary, st.ninterior, st.nsame, nup, ndown));
  CHECK(m.nnodes == 441 && m.nquads == 400 && offplane == 0, "%s: counts", label);
  CHECK(PetscAbsReal(area - 0.0016) <= 1e-14, "%s: area", label);
  CHECK(nnoflux == 38 && nambient == 38 && ncorner == 4 && bad == 0 && Count(m.dirichlet, m.nnodes) == 42 && Count(m.boundary, m.nnodes) == 80, "%s: flags", label);
  CHECK(st.nboundary == 80 && st.ninterior == 760 && st.nsame == 0 && st.nbad == 0 && (nup == 0 || ndown == 0), "%s: orientation", label);
  PetscCall(PetscFree(st.bnd));
  PetscCall(TdSurfaceMeshDestroy(&m));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFile(const char path[], const char text[])
{
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "w", &fp));
  PetscCall(PetscFPrintf(PETSC_COMM_SELF, fp, "%s", text));
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  PetscFunctionReturn(0);
}

/* Three quadrangles in a row in z = 0, the middle one given clockwise (MSH 2.2 file): the loader
   flips it and keeps the majority's (counter-clockwise about +z) orientation. */
static PetscErrorCode TestReorient(void)
{
  char          tmp[64];
  TdSurfaceMesh m;
  EdgeStats     st;
  PetscInt      nup = 0;

  PetscFunctionBeginUser;
  snprintf(tmp, sizeof(tmp), "test_surface_mesh_flip_%d.msh", (int)rank);
  PetscCall(WriteFile(tmp, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n"
                           "1 0 0 0\n2 1 0 0\n3 2 0 0\n4 3 0 0\n5 0 1 0\n6 1 1 0\n7 2 1 0\n8 3 1 0\n$EndNodes\n"
                           "$Elements\n3\n1 3 2 0 1 1 2 6 5\n2 3 2 0 1 2 6 7 3\n3 3 2 0 1 3 4 8 7\n$EndElements\n"));
  PetscCall(TdSurfaceMeshLoad(PETSC_COMM_WORLD, tmp, &m));
  PetscCall(Edges(&m, &st));
  for (PetscInt q = 0; q < m.nquads; q++) {
    PetscReal n[3];
    (void)QuadArea(&m, q, n);
    nup += n[2] > 0 ? 1 : 0;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "re-orientation: 3 quads in a row, the middle one clockwise in the file: quads counter-clockwise about +z after loading %" PetscInt_FMT " (expected 3), interior edges traversed in the same direction %" PetscInt_FMT " (expected 0); quad 0 = %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT " (expected the file's 0 1 5 4)\n", nup, st.nsame, m.quads[0], m.quads[1], m.quads[2], m.quads[3]));
  CHECK(m.nquads == 3 && nup == 3 && st.nsame == 0 && st.ninterior == 2, "re-orientation");
  CHECK(m.quads[0] == 0 && m.quads[1] == 1 && m.quads[2] == 5 && m.quads[3] == 4, "the majority keeps the file's corner order");
  CHECK(Count(m.dirichlet, m.nnodes) == 8, "all nodes on the ambient boundary");
  PetscCall(PetscFree(st.bnd));
  PetscCall(TdSurfaceMeshDestroy(&m));
  remove(tmp);
  /* two quadrangles side by side whose common line is duplicated (nodes 9, 10 at the positions
     of 2, 6): a cut, hence a boundary; loaded with a warning */
  PetscCall(WriteFile(tmp, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n8\n"
                           "1 0 0 0\n2 1 0 0\n5 0 1 0\n6 1 1 0\n9 1 0 0\n10 1 1 0\n11 2 0 0\n12 2 1 0\n$EndNodes\n"
                           "$Elements\n2\n1 3 2 0 1 1 2 6 5\n2 3 2 0 1 9 11 12 10\n$EndElements\n"));
  PetscCall(TdSurfaceMeshLoad(PETSC_COMM_WORLD, tmp, &m));
  PetscCall(Edges(&m, &st));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "duplicated line (two quads side by side that share positions but not nodes; a warning above): nodes %" PetscInt_FMT " (expected 8), boundary edges %" PetscInt_FMT " (expected 8), Dirichlet nodes %" PetscInt_FMT " (expected 8)\n", m.nnodes, st.nboundary, Count(m.dirichlet, m.nnodes)));
  CHECK(m.nnodes == 8 && st.nboundary == 8 && Count(m.dirichlet, m.nnodes) == 8, "duplicated line is a cut");
  PetscCall(PetscFree(st.bnd));
  PetscCall(TdSurfaceMeshDestroy(&m));
  remove(tmp);
  PetscFunctionReturn(0);
}

/* Expect TdSurfaceMeshLoad(path) to fail with `code` and a message containing must_contain
   (and must_contain2, if given). */
static PetscErrorCode ExpectLoadError(const char path[], PetscErrorCode code, const char must_contain[], const char must_contain2[], const char what[])
{
  TdSurfaceMesh  m;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  last_error[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  ierr = TdSurfaceMeshLoad(PETSC_COMM_WORLD, path, &m);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: error code %d (expected %d)\n    message: %s\n", what, (int)ierr, (int)code, last_error));
  CHECK(ierr == code, "%s: error code %d, expected %d", what, (int)ierr, (int)code);
  CHECK(strstr(last_error, must_contain) != NULL, "%s: message lacks \"%s\"", what, must_contain);
  if (must_contain2) CHECK(strstr(last_error, must_contain2) != NULL, "%s: message lacks \"%s\"", what, must_contain2);
  CHECK(m.X == NULL && m.quads == NULL && m.dirichlet == NULL && m.nquads == 0, "%s: mesh left empty", what);
  if (!ierr) PetscCall(TdSurfaceMeshDestroy(&m));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestErrors(void)
{
  char path[PETSC_MAX_PATH_LEN], tmp_group[64], tmp_moebius[64], tmp_tris[64], tmp_none[64];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad inputs\n"));
  snprintf(tmp_group, sizeof(tmp_group), "test_surface_mesh_group_%d.geo", (int)rank);
  snprintf(tmp_moebius, sizeof(tmp_moebius), "test_surface_mesh_moebius_%d.msh", (int)rank);
  snprintf(tmp_tris, sizeof(tmp_tris), "test_surface_mesh_mixed_%d.geo", (int)rank);
  snprintf(tmp_none, sizeof(tmp_none), "test_surface_mesh_none_%d.geo", (int)rank);
  /* two structured squares (2 x 2 quads each) sharing the line x = 1, which is put in "noflux" */
  PetscCall(WriteFile(tmp_group, "Point(1) = {0, 0, 0}; Point(2) = {1, 0, 0}; Point(3) = {2, 0, 0};\n"
                                 "Point(4) = {0, 1, 0}; Point(5) = {1, 1, 0}; Point(6) = {2, 1, 0};\n"
                                 "Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {4, 5}; Line(4) = {5, 6};\n"
                                 "Line(5) = {1, 4}; Line(6) = {2, 5}; Line(7) = {3, 6};\n"
                                 "Curve Loop(1) = {1, 6, -3, -5}; Plane Surface(1) = {1};\n"
                                 "Curve Loop(2) = {2, 7, -4, -6}; Plane Surface(2) = {2};\n"
                                 "Transfinite Curve {1:7} = 3; Transfinite Surface {1, 2}; Recombine Surface {1, 2};\n"
                                 "Physical Curve(\"noflux\") = {6};\n"));
  { /* a Moebius strip of 8 quadrangles: centre circle radius 1, width 0.3, half a twist */
    char  text[4096];
    int   len = 0;
    const int n = 8;
    len += snprintf(text + len, sizeof(text) - len, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n%d\n", 2 * n);
    for (int i = 0; i < n; i++) {
      double u = 2 * PETSC_PI * i / n;
      for (int s = 0; s < 2; s++) {
        double v = s ? 0.15 : -0.15;
        len += snprintf(text + len, sizeof(text) - len, "%d %.17g %.17g %.17g\n", 1 + 2 * i + s, (1 + v * cos(u / 2)) * cos(u), (1 + v * cos(u / 2)) * sin(u), v * sin(u / 2));
      }
    }
    len += snprintf(text + len, sizeof(text) - len, "$EndNodes\n$Elements\n%d\n", n);
    for (int i = 0; i < n; i++) {
      int a0 = 1 + 2 * i, a1 = 2 + 2 * i, b0 = 1 + 2 * (i + 1), b1 = 2 + 2 * (i + 1);
      if (i == n - 1) { /* back at u = 2 pi: v -> -v */
        b0 = 2;
        b1 = 1;
      }
      len += snprintf(text + len, sizeof(text) - len, "%d 3 2 0 1 %d %d %d %d\n", i + 1, a0, b0, b1, a1);
    }
    snprintf(text + len, sizeof(text) - len, "$EndElements\n");
    PetscCall(WriteFile(tmp_moebius, text));
  }
  /* a quad surface in the physical group and a triangle surface outside it: the triangles are not
     part of the film (as in the .msh Gmsh would save) */
  PetscCall(WriteFile(tmp_tris, "Point(1) = {0, 0, 0};\nl[] = Extrude {1, 0, 0} { Point{1}; Layers{2}; };\n"
                                "s[] = Extrude {0, 1, 0} { Curve{l[1]}; Layers{3}; Recombine; };\n"
                                "Point(10) = {5, 0, 0, 0.3};\nm[] = Extrude {1, 0, 0} { Point{10}; };\n"
                                "t[] = Extrude {0, 1, 0} { Curve{m[1]}; };\n"
                                "Physical Surface(\"film\") = {s[1]};\n"));
  PetscCall(WriteFile(tmp_none, "Point(1) = {0, 0, 0};\nl[] = Extrude {1, 0, 0} { Point{1}; Layers{2}; };\n"));

  MeshPath(path, sizeof(path), "does_not_exist.geo");
  PetscCall(ExpectLoadError(path, PETSC_ERR_FILE_OPEN, "does_not_exist.geo", NULL, "missing file"));
  MeshPath(path, sizeof(path), "bad_triangles.geo");
  PetscCall(ExpectLoadError(path, PETSC_ERR_USER_INPUT, "triangles", "the film surface must be made of quadrangles (use Recombine", "triangles (meshes/bad_triangles.geo)"));
  CHECK(strstr(last_error, "bad_triangles.geo") != NULL, "the message names the file");
  MeshPath(path, sizeof(path), "bad_second_order.geo");
  PetscCall(ExpectLoadError(path, PETSC_ERR_USER_INPUT, "second-order", "quadrangles", "second-order quadrangles (meshes/bad_second_order.geo)"));
  PetscCall(ExpectLoadError(tmp_group, PETSC_ERR_USER_INPUT, "\"noflux\"", tmp_group, "noflux group on an interior line"));
  PetscCall(ExpectLoadError(tmp_moebius, PETSC_ERR_USER_INPUT, "not orientable", tmp_moebius, "Moebius strip"));
  PetscCall(ExpectLoadError(tmp_none, PETSC_ERR_USER_INPUT, "no quadrangles", tmp_none, "no 2-D elements"));
  {
    TdSurfaceMesh m;
    PetscCall(TdSurfaceMeshLoad(PETSC_COMM_WORLD, tmp_tris, &m));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  quads in the physical group, triangles outside it: %" PetscInt_FMT " nodes, %" PetscInt_FMT " quads (expected 12, 6)\n", m.nnodes, m.nquads));
    CHECK(m.nnodes == 12 && m.nquads == 6, "only the physical surface");
    PetscCall(TdSurfaceMeshDestroy(&m));
  }
  remove(tmp_group);
  remove(tmp_moebius);
  remove(tmp_tris);
  remove(tmp_none);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  int  nfail_all = 0;
  char path[PETSC_MAX_PATH_LEN];

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestRectangle());
  PetscCall(TestJournal());
  MeshPath(path, sizeof(path), "flat_film_noflux.geo");
  PetscCall(CheckFlat("meshes/flat_film_noflux.geo: 0.04 x 0.04 m, 20 x 20 quads, noflux y = +-0.02, ambient x = +-0.02", path));
  PetscCall(TestReorient());
  PetscCall(TestErrors());
  { /* the body-mesh loader (mesh_gmsh.c) shares the Gmsh session: loading bad_second_order.geo
       as a (curved, second-order) body leaves Mesh.ElementOrder = 2 set in Gmsh */
    char           bad[PETSC_MAX_PATH_LEN];
    TdMesh         body;
    PetscErrorCode ierr;
    MeshPath(bad, sizeof(bad), "bad_second_order.geo");
    PetscCall(PetscPushErrorHandler(CaptureError, NULL));
    ierr = TdMeshLoad(PETSC_COMM_WORLD, bad, &body);
    PetscCall(PetscPopErrorHandler());
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "body mesh loader on meshes/bad_second_order.geo: error code %d (expected 0: a second-order body)\n", (int)ierr));
    CHECK(ierr == 0, "TdMeshLoad of bad_second_order.geo as a body");
    if (!ierr) PetscCall(TdMeshDestroy(&body));
  }
  /* Mesh.ElementOrder = 2 of bad_second_order.geo must not leak into the next load */
  PetscCall(CheckFlat("meshes/flat_film_noflux.geo again, after the failed loads", path));
  PetscCall(TdChecksSummary(&nfail_all));
  PetscCall(PetscFinalize());
  return nfail_all ? 1 : 0;
}
