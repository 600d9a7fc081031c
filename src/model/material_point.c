/*
  Material points of bodies (model.h): located in a cell of the body's mesh with their shape
  functions (slopes along the global axes), evaluated on a coordinate vector, and read from the
  options -<name>_body and -<name>_point of a load, joint or sensor.
*/
#include "model_private.h"
#include <tribodyn/options.h>

/* Shape functions of a material point with the slopes taken along the global axes:
   r = sum_n S_n0 r_n + sum_I S_nI r_{n,ax(local)}, r_{n,ax(local)} = sum_i axes[ax][i] r_{n,i}. */
void TdModelGlobalShapeInternal(const PetscReal axes[9], const PetscReal Sloc[ANCF3843_NSHAPE], PetscReal Sg[ANCF3843_NSHAPE])
{
  for (PetscInt n = 0; n < ANCF3843_NODES; n++) {
    Sg[4 * n] = Sloc[4 * n];
    for (PetscInt i = 0; i < 3; i++) {
      PetscReal s = 0;
      for (PetscInt ax = 0; ax < 3; ax++) s += Sloc[4 * n + 1 + ax] * axes[3 * ax + i];
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
  PetscCall(TdMeshLocatePoint(&body->mesh, X, 1e-9, &cell, xi));
  if (cell < 0)
    SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "%s: the point (%g, %g, %g) is outside body '%s' (its bounding box is [%g, %g] x [%g, %g] x [%g, %g]); give a point inside the body or on its surface", what, (double)X[0], (double)X[1], (double)X[2], body->name, (double)body->mesh.bbox[0], (double)body->mesh.bbox[3], (double)body->mesh.bbox[1], (double)body->mesh.bbox[4], (double)body->mesh.bbox[2],
            (double)body->mesh.bbox[5]);
  mp->body = b;
  mp->cell = cell;
  for (PetscInt i = 0; i < 3; i++) {
    mp->X[i]  = X[i];
    mp->xi[i] = xi[i];
  }
  {
    /* values, and derivatives along the global axes: d/dx_j = sum_I a_I[j] d/dX_I with a_I the
       cell's material axes, each turned to the global-axis slopes as the values are */
    const PetscReal *ax = &body->mesh.axes[9 * cell];
    PetscReal        dS[3][ANCF3843_NSHAPE], Gl[ANCF3843_NSHAPE];
    ancf3843_shape_and_gradient(body->mesh.size[3 * cell], body->mesh.size[3 * cell + 1], body->mesh.size[3 * cell + 2], xi, S, dS);
    TdModelGlobalShapeInternal(ax, S, mp->S);
    for (PetscInt j = 0; j < 3; j++) {
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) Gl[k] = ax[j] * dS[0][k] + ax[3 + j] * dS[1][k] + ax[6 + j] * dS[2][k];
      TdModelGlobalShapeInternal(ax, Gl, mp->G[j]);
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

