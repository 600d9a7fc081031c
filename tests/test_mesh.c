/*
  Mesh module (src/io/mesh_gmsh.c): boxes made through the Gmsh API, .geo and .msh files,
  the ANCF corner order, material axes, face sets, point location, and bad inputs.

  References are independent of the code under test: the exact geometry of the boxes (node and
  cell counts, edge lengths, rotation angle, volumes) and the PETSc error codes of the interface.
  Every rank runs all checks on its own (the mesh is replicated); run under mpiexec as well.
*/
#include <tribodyn/mesh.h>
#include <stdio.h>
#include <string.h>

#include "td_check_petsc.h"

static const char help[] = "Tests of the Gmsh mesh module.\n";

static PetscReal Dot(const PetscReal a[3], const PetscReal b[3])
{
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* Every cell: corner n at X(corner 0) + (n&1) a A_X + (n&2) b A_Y + (n&4) c A_Z; axes
   orthonormal and right-handed; returns the largest misfit and the summed volume. */
static void CheckCells(const TdMesh *mesh, PetscReal *misfit, PetscReal *volume, PetscReal *ortho)
{
  *misfit = 0;
  *volume = 0;
  *ortho  = 0;
  for (PetscInt c = 0; c < mesh->ncells; c++) {
    const PetscReal *A = &mesh->axes[9 * c], *L = &mesh->size[3 * c], *X0 = &mesh->X[3 * mesh->cells[8 * c]];
    PetscReal        Z[3] = {A[1] * A[5] - A[2] * A[4], A[2] * A[3] - A[0] * A[5], A[0] * A[4] - A[1] * A[3]};
    for (PetscInt K = 0; K < 3; K++)
      for (PetscInt J = 0; J < 3; J++) *ortho = PetscMax(*ortho, PetscAbsReal(Dot(&A[3 * K], &A[3 * J]) - (K == J)));
    for (PetscInt i = 0; i < 3; i++) *ortho = PetscMax(*ortho, PetscAbsReal(Z[i] - A[6 + i]));
    *volume += L[0] * L[1] * L[2];
    for (PetscInt n = 0; n < 8; n++) {
      const PetscReal *Xn = &mesh->X[3 * mesh->cells[8 * c + n]];
      for (PetscInt i = 0; i < 3; i++) {
        PetscReal x = X0[i] + ((n & 1) ? L[0] * A[i] : 0) + ((n & 2) ? L[1] * A[3 + i] : 0) + ((n & 4) ? L[2] * A[6 + i] : 0);
        *misfit     = PetscMax(*misfit, PetscAbsReal(x - Xn[i]));
      }
    }
  }
}

/* Each face of the set: its 4 nodes are in the set's node list, and (if axis >= 0) lie on the
   plane X[axis] = value, and the local face number is expected_face (if >= 0). */
static void CheckSet(const TdMesh *mesh, const char name[], PetscInt nnodes, PetscInt nfaces, PetscInt axis, PetscReal value, PetscInt expected_face)
{
  const TdMeshSet *set = TdMeshFindSet(mesh, name);
  PetscInt         badface = 0, badnode = 0, badplane = 0;

  CHECK(set != NULL, "set %s exists", name);
  if (!set) return;
  for (PetscInt f = 0; f < set->nfaces; f++) {
    PetscInt c = set->faces[f].cell, lf = set->faces[f].face;
    if (expected_face >= 0 && lf != expected_face) badface++;
    for (PetscInt n = 0; n < 8; n++) {
      PetscInt  node = mesh->cells[8 * c + n], loc;
      if (((n >> (lf / 2)) & 1) != lf % 2) continue; /* not on local face lf */
      PetscFindInt(node, set->nnodes, set->nodes, &loc);
      if (loc < 0) badnode++;
      if (axis >= 0 && PetscAbsReal(mesh->X[3 * node + axis] - value) > 1e-12) badplane++;
    }
  }
  for (PetscInt k = 1; k < set->nnodes; k++)
    if (set->nodes[k] <= set->nodes[k - 1]) badnode++;
  PetscPrintf(PETSC_COMM_WORLD, "  set %-7s nodes %3" PetscInt_FMT " (expected %3" PetscInt_FMT "), faces %3" PetscInt_FMT " (expected %3" PetscInt_FMT "), local face %" PetscInt_FMT "\n", name, set->nnodes, nnodes, set->nfaces, nfaces, set->nfaces ? set->faces[0].face : -1);
  CHECK(set->nnodes == nnodes, "set %s: %" PetscInt_FMT " nodes, expected %" PetscInt_FMT, name, set->nnodes, nnodes);
  CHECK(set->nfaces == nfaces, "set %s: %" PetscInt_FMT " faces, expected %" PetscInt_FMT, name, set->nfaces, nfaces);
  CHECK(badface == 0, "set %s: %" PetscInt_FMT " faces with a local face other than %" PetscInt_FMT, name, badface, expected_face);
  CHECK(badnode == 0, "set %s: %" PetscInt_FMT " face nodes missing from the node list (or list unsorted)", name, badnode);
  CHECK(badplane == 0, "set %s: %" PetscInt_FMT " face nodes off the plane", name, badplane);
}

/* Locate X; expect cell `expect_found` (found or not) and, if found, that the cell's map at xi
   gives back X (clamped: within tol). */
static PetscErrorCode Locate(const TdMesh *mesh, const PetscReal X[3], PetscReal rel_tol, PetscBool expect_found, const PetscReal expect_xi[3], PetscReal tol)
{
  PetscInt  cell;
  PetscReal xi[3], back[3] = {0, 0, 0}, err = 0, xierr = 0;

  PetscFunctionBeginUser;
  PetscCall(TdMeshLocatePoint(mesh, X, rel_tol, &cell, xi));
  if (cell >= 0) {
    const PetscReal *A = &mesh->axes[9 * cell], *L = &mesh->size[3 * cell], *X0 = &mesh->X[3 * mesh->cells[8 * cell]];
    for (PetscInt i = 0; i < 3; i++) {
      back[i] = X0[i];
      for (PetscInt K = 0; K < 3; K++) back[i] += 0.5 * (1 + xi[K]) * L[K] * A[3 * K + i];
      err = PetscMax(err, PetscAbsReal(back[i] - X[i]));
    }
    if (expect_xi)
      for (PetscInt K = 0; K < 3; K++) xierr = PetscMax(xierr, PetscAbsReal(xi[K] - expect_xi[K]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  locate (%g, %g, %g) rel_tol %g: cell %" PetscInt_FMT ", xi (%g, %g, %g), |x(xi) - X| %.2e, expected %s\n", (double)X[0], (double)X[1], (double)X[2], (double)rel_tol, cell, (double)xi[0], (double)xi[1], (double)xi[2], (double)err, expect_found ? "inside" : "outside"));
  CHECK((cell >= 0) == expect_found, "locate (%g,%g,%g): cell %" PetscInt_FMT, (double)X[0], (double)X[1], (double)X[2], cell);
  if (cell >= 0 && expect_found) {
    CHECK(err <= tol, "locate: the cell map at xi misses X by %g", (double)err);
    CHECK(xierr <= 1e-11, "locate: xi off the expected one by %g", (double)xierr);
    CHECK(PetscAbsReal(xi[0]) <= 1 && PetscAbsReal(xi[1]) <= 1 && PetscAbsReal(xi[2]) <= 1, "locate: xi not clamped");
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TestBox(void)
{
  const PetscReal box[6]   = {0, 0, 0, 0.3, 0.2, 0.1};
  const PetscInt  cells[3] = {3, 2, 1};
  TdMesh          mesh;
  PetscReal       misfit, volume, ortho, sizeerr = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "box 3x2x1 on [0,0.3]x[0,0.2]x[0,0.1]\n"));
  PetscCall(TdMeshCreateBox(PETSC_COMM_WORLD, box, cells, &mesh));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  nodes %" PetscInt_FMT " (expected 24), cells %" PetscInt_FMT " (expected 6), axis_aligned %d, uniform_axes %d, source %s\n", mesh.nnodes, mesh.ncells, (int)mesh.axis_aligned, (int)mesh.uniform_axes, mesh.source));
  CHECK(mesh.nnodes == 24 && mesh.ncells == 6, "counts");
  CHECK(mesh.axis_aligned && mesh.uniform_axes, "axis aligned");
  CHECK(!strcmp(mesh.source, "box"), "source");
  for (PetscInt c = 0; c < mesh.ncells; c++)
    for (PetscInt K = 0; K < 3; K++) sizeerr = PetscMax(sizeerr, PetscAbsReal(mesh.size[3 * c + K] - 0.1));
  for (PetscInt c = 0; c < mesh.ncells; c++)
    for (PetscInt k = 0; k < 9; k++) CHECK(mesh.axes[9 * c + k] == ((k % 4) == 0 ? 1.0 : 0.0), "cell %" PetscInt_FMT " axes exactly the global axes", c);
  CheckCells(&mesh, &misfit, &volume, &ortho);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  cell sizes: max |size - 0.1| = %.2e; ANCF corner order misfit %.2e m; volume %.15g (expected 0.006)\n", (double)sizeerr, (double)misfit, (double)volume));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  bbox %g %g %g %g %g %g\n", (double)mesh.bbox[0], (double)mesh.bbox[1], (double)mesh.bbox[2], (double)mesh.bbox[3], (double)mesh.bbox[4], (double)mesh.bbox[5]));
  CHECK(sizeerr <= 1e-14, "sizes");
  CHECK(misfit <= 1e-14, "corner order");
  CHECK(PetscAbsReal(volume - 0.006) <= 1e-15, "volume");
  for (PetscInt i = 0; i < 6; i++) CHECK(PetscAbsReal(mesh.bbox[i] - box[i]) <= 1e-15, "bbox[%d]", (int)i);
  CHECK(mesh.nsets == 6, "6 sets, got %" PetscInt_FMT, mesh.nsets);
  CheckSet(&mesh, "xmin", 3 * 2, 2 * 1, 0, 0.0, 0);
  CheckSet(&mesh, "xmax", 3 * 2, 2 * 1, 0, 0.3, 1);
  CheckSet(&mesh, "ymin", 4 * 2, 3 * 1, 1, 0.0, 2);
  CheckSet(&mesh, "ymax", 4 * 2, 3 * 1, 1, 0.2, 3);
  CheckSet(&mesh, "zmin", 4 * 3, 3 * 2, 2, 0.0, 4);
  CheckSet(&mesh, "zmax", 4 * 3, 3 * 2, 2, 0.1, 5);
  CHECK(TdMeshFindSet(&mesh, "top") == NULL, "no set called top");
  {
    const PetscReal inside[3] = {0.17, 0.05, 0.03}, xi_in[3] = {0.4, 0.0, -0.4};
    const PetscReal face[3] = {0.3, 0.15, 0.1}, xi_face[3] = {1, 0, 1};
    const PetscReal near[3] = {0.3 + 1e-12, 0.15, 0.1 + 1e-12};
    const PetscReal out1[3] = {0.31, 0.1, 0.05}, out2[3] = {0.3 + 1e-6, 0.1, 0.05}, out3[3] = {0.15, 0.1, -0.2};
    PetscInt        cell;
    PetscReal       xi[3];
    PetscCall(Locate(&mesh, inside, 1e-9, PETSC_TRUE, xi_in, 1e-15));
    PetscCall(TdMeshLocatePoint(&mesh, inside, 1e-9, &cell, xi));
    CHECK(cell >= 0 && PetscAbsReal(mesh.X[3 * mesh.cells[8 * cell]] - 0.1) < 1e-15 && PetscAbsReal(mesh.X[3 * mesh.cells[8 * cell] + 1]) < 1e-15, "interior point in the cell at (0.1, 0, 0)");
    PetscCall(Locate(&mesh, face, 1e-9, PETSC_TRUE, xi_face, 1e-15));
    PetscCall(Locate(&mesh, near, 1e-9, PETSC_TRUE, xi_face, 1e-11));
    PetscCall(Locate(&mesh, near, 0.0, PETSC_FALSE, NULL, 0));
    PetscCall(Locate(&mesh, out1, 1e-9, PETSC_FALSE, NULL, 0));
    PetscCall(Locate(&mesh, out2, 1e-9, PETSC_FALSE, NULL, 0));
    PetscCall(Locate(&mesh, out3, 1e-9, PETSC_FALSE, NULL, 0));
  }
  PetscCall(TdMeshDestroy(&mesh));
  CHECK(mesh.X == NULL && mesh.ncells == 0 && mesh.sets == NULL, "destroy zeroes the mesh");
  PetscFunctionReturn(0);
}

static PetscErrorCode TestBlock(void)
{
  char      path[PETSC_MAX_PATH_LEN];
  TdMesh    mesh;
  PetscReal misfit, volume, ortho;

  PetscFunctionBeginUser;
  MeshPath(path, sizeof(path), "block.geo");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "meshes/block.geo (0.4 x 0.1 x 0.05, 8 x 2 x 2 cells)\n"));
  PetscCall(TdMeshLoad(PETSC_COMM_WORLD, path, &mesh));
  CheckCells(&mesh, &misfit, &volume, &ortho);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  nodes %" PetscInt_FMT " (expected 81), cells %" PetscInt_FMT " (expected 32), sets %" PetscInt_FMT " (expected 6), axis_aligned %d\n", mesh.nnodes, mesh.ncells, mesh.nsets, (int)mesh.axis_aligned));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  volume %.15g (expected 0.002), corner misfit %.2e, axes orthonormality %.2e\n", (double)volume, (double)misfit, (double)ortho));
  CHECK(mesh.nnodes == 81 && mesh.ncells == 32 && mesh.nsets == 6, "counts");
  CHECK(mesh.axis_aligned, "axis aligned");
  CHECK(PetscAbsReal(volume - 0.002) <= 1e-15, "volume");
  CHECK(misfit <= 1e-12, "corner order"); /* Gmsh's transfinite nodes carry ~1e-13 m rounding */
  CHECK(!strcmp(mesh.source, path), "source is the path");
  CheckSet(&mesh, "bottom", 9 * 3, 8 * 2, 2, 0.0, 4);
  CheckSet(&mesh, "top", 9 * 3, 8 * 2, 2, 0.05, 5);
  CheckSet(&mesh, "front", 9 * 3, 8 * 2, 1, 0.0, 2);
  CheckSet(&mesh, "back", 9 * 3, 8 * 2, 1, 0.1, 3);
  CheckSet(&mesh, "left", 3 * 3, 2 * 2, 0, 0.0, 0);
  CheckSet(&mesh, "right", 3 * 3, 2 * 2, 0, 0.4, 1);
  CHECK(TdMeshFindSet(&mesh, "block") == NULL, "the volume group is not a face set");
  PetscCall(TdMeshDestroy(&mesh));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestRotated(const char name[])
{
  char            path[PETSC_MAX_PATH_LEN];
  TdMesh          mesh;
  PetscReal       misfit, volume, ortho, axerr = 0, sizeerr = 0;
  const PetscReal c = PetscCosReal(PETSC_PI / 6), s = PetscSinReal(PETSC_PI / 6);
  const PetscReal R[9] = {c, s, 0, -s, c, 0, 0, 0, 1}; /* rows: the rotated x, y, z axes */

  PetscFunctionBeginUser;
  MeshPath(path, sizeof(path), name);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "meshes/%s (0.3 x 0.2 x 0.1 box, 3 x 2 x 1 cells, rotated 30 deg about z)\n", name));
  PetscCall(TdMeshLoad(PETSC_COMM_WORLD, path, &mesh));
  CheckCells(&mesh, &misfit, &volume, &ortho);
  for (PetscInt cc = 0; cc < mesh.ncells; cc++) {
    for (PetscInt k = 0; k < 9; k++) axerr = PetscMax(axerr, PetscAbsReal(mesh.axes[9 * cc + k] - R[k]));
    for (PetscInt K = 0; K < 3; K++) sizeerr = PetscMax(sizeerr, PetscAbsReal(mesh.size[3 * cc + K] - 0.1));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  nodes %" PetscInt_FMT " (expected 24), cells %" PetscInt_FMT " (expected 6), axis_aligned %d (expected 0), uniform_axes %d (expected 1)\n", mesh.nnodes, mesh.ncells, (int)mesh.axis_aligned, (int)mesh.uniform_axes));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  cell 0 axes X (%.12f, %.12f, %.12f) Y (%.12f, %.12f, %.12f) Z (%g, %g, %g)\n", (double)mesh.axes[0], (double)mesh.axes[1], (double)mesh.axes[2], (double)mesh.axes[3], (double)mesh.axes[4], (double)mesh.axes[5], (double)mesh.axes[6], (double)mesh.axes[7], (double)mesh.axes[8]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  expected  X (%.12f, %.12f, 0) Y (%.12f, %.12f, 0) Z (0, 0, 1): max deviation over cells %.2e\n", (double)c, (double)s, (double)-s, (double)c, (double)axerr));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  max |size - 0.1| %.2e, corner misfit %.2e, volume %.15g (expected 0.006)\n", (double)sizeerr, (double)misfit, (double)volume));
  CHECK(mesh.nnodes == 24 && mesh.ncells == 6, "counts");
  CHECK(!mesh.axis_aligned && mesh.uniform_axes, "axis flags");
  CHECK(axerr <= 1e-11, "axes rotated by 30 degrees"); /* node coordinates from Gmsh: ~1e-13 m */
  CHECK(sizeerr <= 1e-12, "sizes");
  CHECK(misfit <= 1e-12, "corner order");
  CHECK(ortho <= 1e-14, "orthonormal right-handed axes");
  CHECK(PetscAbsReal(volume - 0.006) <= 1e-14, "volume");
  CheckSet(&mesh, "xlow", 3 * 2, 2, -1, 0, 0);
  CheckSet(&mesh, "xhigh", 3 * 2, 2, -1, 0, 1);
  CheckSet(&mesh, "ylow", 4 * 2, 3, -1, 0, 2);
  CheckSet(&mesh, "yhigh", 4 * 2, 3, -1, 0, 3);
  CheckSet(&mesh, "bottom", 4 * 3, 6, 2, 0, 4);
  CheckSet(&mesh, "top", 4 * 3, 6, 2, 0.1, 5);
  { /* local point (0.25, 0.15, 0.02) of the unrotated box: cell with corner 0 at local (0.2,0.1,0) */
    const PetscReal loc[3] = {0.25, 0.15, 0.02}, xi[3] = {0.0, 0.0, -0.6};
    const PetscReal corner[3] = {0.3, 0.2, 0.1}, xic[3] = {1, 1, 1};
    PetscReal       X[3], Xc[3], Xo[3];
    for (PetscInt i = 0; i < 3; i++) {
      X[i]  = loc[0] * R[i] + loc[1] * R[3 + i] + loc[2] * R[6 + i];
      Xc[i] = corner[0] * R[i] + corner[1] * R[3 + i] + corner[2] * R[6 + i];
      Xo[i] = 0.32 * R[i] + 0.1 * R[3 + i] + 0.05 * R[6 + i]; /* beyond the xhigh face */
    }
    PetscCall(Locate(&mesh, X, 1e-9, PETSC_TRUE, xi, 1e-12));
    PetscCall(Locate(&mesh, Xc, 1e-9, PETSC_TRUE, xic, 1e-12));
    PetscCall(Locate(&mesh, Xo, 1e-9, PETSC_FALSE, NULL, 0));
  }
  PetscCall(TdMeshDestroy(&mesh));
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

/* A box rotated by exactly 45 degrees: X and Y are equally close to x, so the frame choice is a
   tie that must be broken the same way in every cell (uniform_axes) -- here X = (1, 1, 0)/sqrt 2. */
static PetscErrorCode TestTie(void)
{
  char      path[PETSC_MAX_PATH_LEN], tmp[64], *text, *at;
  FILE     *fp;
  long      len;
  TdMesh    mesh;
  PetscReal h = PetscSqrtReal(0.5), err = 0, misfit, volume, ortho;
  const PetscReal R[9] = {h, h, 0, -h, h, 0, 0, 0, 1};

  PetscFunctionBeginUser;
  MeshPath(path, sizeof(path), "rotated_box.geo");
  PetscCall(PetscFOpen(PETSC_COMM_SELF, path, "r", &fp));
  fseek(fp, 0, SEEK_END);
  len = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  PetscCall(PetscCalloc1(len + 1, &text));
  CHECK(fread(text, 1, len, fp) == (size_t)len, "read %s", path);
  PetscCall(PetscFClose(PETSC_COMM_SELF, fp));
  at = strstr(text, "angle = 30");
  CHECK(at != NULL, "rotated_box.geo sets angle = 30");
  if (at) memcpy(at, "angle = 45", 10);
  snprintf(tmp, sizeof(tmp), "test_mesh_45_%d.geo", (int)rank);
  PetscCall(WriteFile(tmp, text));
  PetscCall(PetscFree(text));
  PetscCall(TdMeshLoad(PETSC_COMM_WORLD, tmp, &mesh));
  CheckCells(&mesh, &misfit, &volume, &ortho);
  for (PetscInt c = 0; c < mesh.ncells; c++)
    for (PetscInt k = 0; k < 9; k++) err = PetscMax(err, PetscAbsReal(mesh.axes[9 * c + k] - R[k]));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "rotated box at 45 deg (tie in the frame choice): uniform_axes %d (expected 1), max |axes - R(45)| %.2e, corner misfit %.2e, volume %.15g (expected 0.006)\n", (int)mesh.uniform_axes, (double)err, (double)misfit, (double)volume));
  CHECK(mesh.uniform_axes, "same frame in every cell");
  CHECK(err <= 1e-11, "axes at 45 degrees");
  CHECK(misfit <= 1e-12 && PetscAbsReal(volume - 0.006) <= 1e-14, "cells");
  PetscCall(TdMeshDestroy(&mesh));
  remove(tmp);
  PetscFunctionReturn(0);
}

/* Expect TdMeshLoad(path) to fail with `code` and a message containing `must_contain`. */
static PetscErrorCode ExpectLoadError(const char path[], PetscErrorCode code, const char must_contain[], const char what[])
{
  TdMesh         mesh;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  last_error[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  ierr = TdMeshLoad(PETSC_COMM_WORLD, path, &mesh);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: error code %d (expected %d)\n    message: %s\n", what, (int)ierr, (int)code, last_error));
  CHECK(ierr == code, "%s: error code %d, expected %d", what, (int)ierr, (int)code);
  CHECK(strstr(last_error, must_contain) != NULL, "%s: message lacks \"%s\"", what, must_contain);
  CHECK(mesh.X == NULL && mesh.cells == NULL && mesh.sets == NULL && mesh.ncells == 0, "%s: mesh left empty", what);
  if (!ierr) PetscCall(TdMeshDestroy(&mesh));
  PetscFunctionReturn(0);
}

static PetscErrorCode ExpectBoxError(const PetscReal box[6], const PetscInt cells[3], const char what[])
{
  TdMesh         mesh;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  last_error[0] = 0;
  PetscCall(PetscPushErrorHandler(CaptureError, NULL));
  ierr = TdMeshCreateBox(PETSC_COMM_WORLD, box, cells, &mesh);
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: error code %d (expected %d)\n    message: %s\n", what, (int)ierr, (int)PETSC_ERR_USER_INPUT, last_error));
  CHECK(ierr == PETSC_ERR_USER_INPUT, "%s: error code %d", what, (int)ierr);
  if (!ierr) PetscCall(TdMeshDestroy(&mesh));
  PetscFunctionReturn(0);
}

static PetscErrorCode TestBadInputs(void)
{
  char path[PETSC_MAX_PATH_LEN], tmp_tet[64], tmp_syntax[64], tmp_txt[64];

  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "bad inputs\n"));
  /* per-rank file names: ranks run the test independently */
  snprintf(tmp_tet, sizeof(tmp_tet), "test_mesh_tets_%d.geo", (int)rank);
  snprintf(tmp_syntax, sizeof(tmp_syntax), "test_mesh_syntax_%d.geo", (int)rank);
  snprintf(tmp_txt, sizeof(tmp_txt), "test_mesh_%d.txt", (int)rank);
  PetscCall(WriteFile(tmp_tet, "SetFactory(\"OpenCASCADE\");\nBox(1) = {0, 0, 0, 1, 1, 1};\nMesh.MeshSizeMax = 0.6;\n"));
  PetscCall(WriteFile(tmp_syntax, "Point(1) = {0, 0, 0;\nthis is not gmsh\n"));
  PetscCall(WriteFile(tmp_txt, "not a mesh\n"));

  MeshPath(path, sizeof(path), "does_not_exist.msh");
  PetscCall(ExpectLoadError(path, PETSC_ERR_FILE_OPEN, "does_not_exist.msh", "missing file"));
  MeshPath(path, sizeof(path), "");
  PetscCall(ExpectLoadError(path, PETSC_ERR_USER_INPUT, "unknown file type", "a path without a file name"));
  PetscCall(ExpectLoadError(tmp_txt, PETSC_ERR_USER_INPUT, "unknown file type", "unknown extension"));
  PetscCall(ExpectLoadError(tmp_syntax, PETSC_ERR_FILE_OPEN, tmp_syntax, "syntax error in a .geo"));
  MeshPath(path, sizeof(path), "bad_inverted.msh");
  PetscCall(ExpectLoadError(path, PETSC_ERR_USER_INPUT, "is inverted", "inverted hexahedron"));
  MeshPath(path, sizeof(path), "bad_degenerate.msh");
  PetscCall(ExpectLoadError(path, PETSC_ERR_USER_INPUT, "degenerate", "degenerate hexahedron (a wedge)"));
  MeshPath(path, sizeof(path), "bad_group.msh");
  PetscCall(ExpectLoadError(path, PETSC_ERR_USER_INPUT, "\"lid\"", "group off the hexahedra"));
  { /* curved meshes: a parallelepiped, and a second-order box whose maps are the unit axes
       (Gmsh's Jacobians of the 27-node cells, read through the corner order) */
    TdMesh          mesh;
    const PetscReal w = PetscSqrtReal(0.02 * 0.02 + 0.1 * 0.1), skew[9] = {1, 0, 0, 0, 1, 0, 0.02 / w, 0, 0.1 / w}, unit[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const char     *files[2] = {"skewed_hex.msh", "bad_second_order.geo"};
    for (PetscInt f = 0; f < 2; f++) {
      PetscReal err = 0;
      MeshPath(path, sizeof(path), files[f]);
      PetscCall(TdMeshLoad(PETSC_COMM_WORLD, path, &mesh));
      for (PetscInt c = 0; c < mesh.ncells; c++)
        for (PetscInt k = 0; k < 72; k++) err = PetscMax(err, PetscAbsReal(mesh.slope_map[72 * c + k] - (f ? unit : skew)[k % 9]));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %s: curved %d, %" PetscInt_FMT " cells, %" PetscInt_FMT " nodes, corner slope maps off the exact ones by %g\n", files[f], (int)mesh.curved, mesh.ncells, mesh.nnodes, (double)err));
      CHECK(mesh.curved && mesh.ncells == (f ? 2 : 1) && mesh.nnodes == (f ? 12 : 8), "%s: a curved mesh of the right size", files[f]);
      CHECK(err <= 1e-10, "%s: slope maps off by %g", files[f], (double)err);
      PetscCall(TdMeshDestroy(&mesh));
    }
  }
  PetscCall(ExpectLoadError(tmp_tet, PETSC_ERR_USER_INPUT, "no hexahedra", "tetrahedra only"));
  {
    const PetscReal box[6] = {0, 0, 0, 1, 1, 1}, flat[6] = {0, 0, 0, 1, 0, 1};
    const PetscInt  cells[3] = {1, 1, 1}, nocells[3] = {1, 0, 1};
    TdMesh          mesh;
    PetscCall(ExpectBoxError(flat, cells, "box with y1 = y0"));
    PetscCall(ExpectBoxError(box, nocells, "box with 0 cells along y"));
    /* Mesh.ElementOrder = 2 of bad_second_order.geo must not leak into the next mesh */
    PetscCall(TdMeshCreateBox(PETSC_COMM_WORLD, box, cells, &mesh));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  box after the failed loads: %" PetscInt_FMT " nodes, %" PetscInt_FMT " cell (expected 8, 1)\n", mesh.nnodes, mesh.ncells));
    CHECK(mesh.nnodes == 8 && mesh.ncells == 1, "box after failures");
    PetscCall(TdMeshDestroy(&mesh));
  }
  { /* one structured hexahedron and, apart from it, a tetrahedral box: the hexahedron is kept */
    char   tmp_mixed[64];
    TdMesh mesh;
    snprintf(tmp_mixed, sizeof(tmp_mixed), "test_mesh_mixed_%d.geo", (int)rank);
    PetscCall(WriteFile(tmp_mixed, "Point(1) = {0, 0, 0};\nl[] = Extrude {0.1, 0, 0} { Point{1}; Layers{1}; };\n"
                                   "s[] = Extrude {0, 0.1, 0} { Curve{l[1]}; Layers{1}; Recombine; };\n"
                                   "v[] = Extrude {0, 0, 0.1} { Surface{s[1]}; Layers{1}; Recombine; };\n"
                                   "Point(100) = {1, 0, 0};\nm[] = Extrude {0.1, 0, 0} { Point{100}; };\n"
                                   "t[] = Extrude {0, 0.1, 0} { Curve{m[1]}; };\nu[] = Extrude {0, 0, 0.1} { Surface{t[1]}; };\n"
                                   "Physical Surface(\"bottom\") = {s[1]};\nMesh.MeshSizeMax = 0.05;\n"));
    PetscCall(TdMeshLoad(PETSC_COMM_WORLD, tmp_mixed, &mesh));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  hexahedron + tetrahedra: %" PetscInt_FMT " nodes, %" PetscInt_FMT " cell, %" PetscInt_FMT " set (expected 8, 1, 1)\n", mesh.nnodes, mesh.ncells, mesh.nsets));
    CHECK(mesh.nnodes == 8 && mesh.ncells == 1 && mesh.nsets == 1, "mixed mesh keeps the hexahedron");
    CheckSet(&mesh, "bottom", 4, 1, 2, 0.0, 4);
    PetscCall(TdMeshDestroy(&mesh));
    remove(tmp_mixed);
  }
  remove(tmp_tet);
  remove(tmp_syntax);
  remove(tmp_txt);
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  int nfail_all = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(TestBox());
  PetscCall(TestBlock());
  PetscCall(TestRotated("rotated_box.geo"));
  PetscCall(TestRotated("rotated_box.msh"));
  PetscCall(TestTie());
  PetscCall(TestBadInputs());
  PetscCall(TdChecksSummary(&nfail_all));
  PetscCall(PetscFinalize());
  return nfail_all ? 1 : 0;
}
