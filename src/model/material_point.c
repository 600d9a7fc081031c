/*
  Material points of bodies (model.h): located in a cell of the body's mesh with their shape
  functions (slopes along the global axes), evaluated on a coordinate vector, and read from the
  options -<name>_body and -<name>_point of a load, joint or sensor.
*/
#include "model_private.h"
#include <tribodyn/options.h>
#include <tribodyn/vec3.h>

/* Shape functions of a material point with the slopes taken along the global axes:
   r = sum_n S_n0 r_n + sum_j S_nj e_{n,j}, e_{n,j} = sum_i M_n[3 j + i] r_{n,i}, with M_n the
   cell's material axes (a box: the same for every node, stride 0) or node n's slope map (a curved
   cell, mesh.h: stride 9). */
void TdModelGlobalShapeInternal(const PetscReal *maps, PetscInt stride, const PetscReal Sloc[ANCF3843_NSHAPE], PetscReal Sg[ANCF3843_NSHAPE])
{
  for (PetscInt n = 0; n < ANCF3843_NODES; n++) {
    const PetscReal *M = &maps[stride * n];
    Sg[4 * n] = Sloc[4 * n];
    for (PetscInt i = 0; i < 3; i++) {
      PetscReal s = 0;
      for (PetscInt ax = 0; ax < 3; ax++) s += Sloc[4 * n + 1 + ax] * M[3 * ax + i];
      Sg[4 * n + 1 + i] = s;
    }
  }
}

PetscErrorCode TdModelMaterialPoint(TdModel model, PetscInt b, const PetscReal X[3], const char what[], TdMaterialPoint *mp)
{
  TdBody   *body = &model->bodies[b];
  PetscInt  cell;
  PetscReal xi[3], S[ANCF3843_NSHAPE];
  PetscFunctionBegin;
  PetscCall(PetscMemzero(mp, sizeof *mp));
  if (body->type == TD_BODY_FREE && !body->mesh.ncells) cell = 0; /* mass properties given, no geometry: any point of the body frame */
  else PetscCall(TdMeshLocatePoint(&body->mesh, X, 1e-9, &cell, xi));
  if (cell < 0)
    SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "%s: the point (%g, %g, %g) is outside body '%s' (its bounding box is [%g, %g] x [%g, %g] x [%g, %g]); give a point inside the body or on its surface", what, (double)X[0], (double)X[1], (double)X[2], body->name, (double)body->mesh.bbox[0], (double)body->mesh.bbox[3], (double)body->mesh.bbox[1], (double)body->mesh.bbox[4], (double)body->mesh.bbox[2],
            (double)body->mesh.bbox[5]);
  mp->body = b;
  mp->cell = cell;
  if (body->type == TD_BODY_FREE) {
    /* x = r + sum_k (X - c)_k a_k (F21): shape functions 1 and X_k - c_k on the body's one node,
       gradient functions r_,j = a_j; the other 28 are zero (their coordinates the node's own) */
    for (PetscInt i = 0; i < 3; i++) mp->X[i] = X[i];
    PetscCall(PetscArrayzero(mp->S, ANCF3843_NSHAPE));
    PetscCall(PetscArrayzero(&mp->G[0][0], 3 * ANCF3843_NSHAPE));
    mp->S[0] = 1;
    for (PetscInt k = 0; k < 3; k++) {
      mp->S[1 + k]    = X[k] - body->com[k];
      mp->G[k][1 + k] = 1;
    }
    for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
      for (PetscInt i = 0; i < 3; i++) mp->coord[3 * k + i] = TD_NODE_DOF * body->node_offset + 3 * (k % 4) + i;
    PetscFunctionReturn(0);
  }
  for (PetscInt i = 0; i < 3; i++) {
    mp->X[i]  = X[i];
    mp->xi[i] = xi[i];
  }
  {
    /* values, and derivatives along the global axes: d/dx_j = sum_I (J^-1)[I][j] d/dXbar_I with
       J = dX/dXbar the cell's reference map at the point (a box: its material axes, J^-1 = J^T),
       each turned to the global-axis slopes as the values are */
    const PetscReal *L = &body->mesh.size[3 * cell];
    const PetscReal *maps   = body->mesh.curved ? &body->mesh.slope_map[72 * cell] : &body->mesh.axes[9 * cell];
    const PetscInt   stride = body->mesh.curved ? 9 : 0;
    PetscReal        dS[3][ANCF3843_NSHAPE], Gl[ANCF3843_NSHAPE], Ji[3][3];
    ancf3843_shape_and_gradient(L[0], L[1], L[2], xi, S, dS);
    if (body->mesh.curved) {
      PetscReal e0[ANCF3843_NDOF], r[3], dr[3][3], det;
      TdMeshCellReference(&body->mesh, cell, e0);
      ancf3843_interpolate(L[0], L[1], L[2], xi, e0, r, dr); /* dr[I][i] = dX_i/dXbar_I */
      /* (J^-1)[I][j] with J[j][I] = dr[I][j]: the inverse of dr's transpose, i.e. inv(dr)^T */
      det = mat3_det((const double(*)[3])dr);
      {
        PetscReal Di[3][3];
        mat3_inverse((const double(*)[3])dr, det, Di);
        for (PetscInt A = 0; A < 3; A++)
          for (PetscInt j = 0; j < 3; j++) Ji[A][j] = Di[j][A];
      }
    } else
      for (PetscInt A = 0; A < 3; A++)
        for (PetscInt j = 0; j < 3; j++) Ji[A][j] = maps[3 * A + j];
    TdModelGlobalShapeInternal(maps, stride, S, mp->S);
    for (PetscInt j = 0; j < 3; j++) {
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) Gl[k] = Ji[0][j] * dS[0][k] + Ji[1][j] * dS[1][k] + Ji[2][j] * dS[2][k];
      TdModelGlobalShapeInternal(maps, stride, Gl, mp->G[j]);
    }
  }
  if (body->type == TD_BODY_ANCF) {
    const PetscInt *nodes = &body->mesh.cells[8 * cell];
    for (PetscInt n = 0; n < 8; n++)
      for (PetscInt j = 0; j < 4; j++)
        for (PetscInt i = 0; i < 3; i++) mp->coord[3 * (4 * n + j) + i] = TD_NODE_DOF * (body->node_offset + nodes[n]) + 3 * j + i;
  }
  PetscFunctionReturn(0);
}

void TdModelPointValue(TdModel model, const TdMaterialPoint *mp, const PetscReal full[], PetscReal r[3])
{
  r[0] = r[1] = r[2] = 0;
  for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
    for (PetscInt i = 0; i < 3; i++) r[i] += mp->S[k] * full[mp->coord[3 * k + i]];
}

void TdModelPointBlockPattern(const TdMaterialPoint *a, const TdMaterialPoint *b, PetscInt ci[], PetscInt cj[])
{
  for (PetscInt r = 0, k = 0; r < ANCF3843_NDOF; r++)
    for (PetscInt c = 0; c < ANCF3843_NDOF; c++, k++) {
      ci[k] = a->coord[r];
      cj[k] = b->coord[c];
    }
}

PetscErrorCode TdModelFindBodyInternal(TdModel model, const char name[], const char option[], PetscInt *b)
{
  char list[1024] = "";
  PetscFunctionBegin;
  for (PetscInt i = 0; i < model->nbodies; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(model->bodies[i].name, name, &same));
    if (same) {
      *b = i;
      PetscFunctionReturn(0);
    }
    PetscCall(PetscStrlcat(list, i ? ", " : "", sizeof list));
    PetscCall(PetscStrlcat(list, model->bodies[i].name, sizeof list));
  }
  SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: there is no body '%s' (bodies: %s)", option, name, model->nbodies ? list : "none; set -bodies");
}

PetscErrorCode TdModelFindFaceSetInternal(TdModel model, PetscInt b, const char face[], const char option[], const TdMeshSet **set)
{
  const TdMesh *mesh = &model->bodies[b].mesh;
  PetscFunctionBegin;
  *set = TdMeshFindSet(mesh, face);
  if (!*set || !(*set)->nfaces) {
    char list[1024] = "";
    for (PetscInt k = 0; k < mesh->nsets; k++) {
      PetscCall(PetscStrlcat(list, k ? ", " : "", sizeof list));
      PetscCall(PetscStrlcat(list, mesh->sets[k].name, sizeof list));
    }
    SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' has no face '%s' (its faces: %s)", option, model->bodies[b].name, face, list);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdModelReadPointInternal(TdModel model, const char prefix[], const char kind[], PetscInt *body, TdMaterialPoint *mp)
{
  char      bname[TD_NAME_LEN], opt[256], what[256];
  PetscReal X[3];
  PetscBool set;
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(what, sizeof what, "body the %s acts on", kind));
  PetscCall(TdOptionsString(prefix, "body", what, NULL, bname, sizeof bname, &set));
  PetscCall(PetscSNPrintf(what, sizeof what, "material point of the %s (reference coordinates)", kind));
  PetscCall(TdOptionsRealArray(prefix, "point", what, "m", 3, NULL, X, NULL));
  if (TdOptionsHelpRequested() && !set) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_body", prefix));
  if (!set) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "The %s '%s' has no body: set %s", kind, prefix, opt);
  PetscCall(TdModelFindBodyInternal(model, bname, opt, body));
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_point", prefix));
  {
    PetscBool has;
    PetscCall(PetscOptionsHasName(NULL, NULL, opt, &has));
    if (!has) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "The %s '%s' has no material point: set %s x,y,z", kind, prefix, opt);
  }
  PetscCall(PetscSNPrintf(what, sizeof what, "Option %s of %s '%s'", opt, kind, prefix));
  PetscCall(TdModelMaterialPoint(model, *body, X, what, mp));
  PetscFunctionReturn(0);
}

