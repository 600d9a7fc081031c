/*
  Bodies from the options (model.h): type, geometry (box, mesh file, or a rigid body's
  cylinder), material, clamps, the table of cell geometries; then the numbering of the ANCF
  coordinates body after body with clamped ones eliminated (formulation.md §1, §4), the element
  list, and the element helpers that gather an element's coordinates and rotate its forces and
  matrices between global slopes and the cell's material axes.  The options and pose of a rigid
  body's prescribed motion are in body_rigid.c.
*/
#include "model_private.h"
#include <math.h>
#include <tribodyn/options.h>
#include <tribodyn/vec3.h>

static const char *const body_types[] = {"ancf", "rigid", NULL};

static PetscErrorCode FaceNotFound(TdModel model, const TdBody *body, const char face[], const char option[])
{
  char list[1024] = "";
  PetscFunctionBegin;
  for (PetscInt s = 0; s < body->mesh.nsets; s++) {
    PetscCall(PetscStrlcat(list, s ? ", " : "", sizeof list));
    PetscCall(PetscStrlcat(list, body->mesh.sets[s].name, sizeof list));
  }
  SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' has no face '%s' (its faces: %s)", option, body->name, face, body->mesh.nsets ? list : "none");
}

static PetscErrorCode BodyFromOptions(TdModel model, TdBody *body)
{
  const char *p = body->name;
  PetscInt    type;
  char        meshfile[PETSC_MAX_PATH_LEN];
  PetscBool   has_mesh, has_box;
  PetscReal   box[6];
  PetscInt    cells[3]            = {1, 1, 1};
  const PetscReal zero3[3] = {0, 0, 0};
  char        opt[256];
  PetscFunctionBegin;
  PetscCall(TdOptionsEnum(p, "type", "body type: ancf (flexible, ANCF 3843 solids) or rigid (prescribed motion)", body_types, 0, &type, NULL));
  body->type = (TdBodyType)type;
  if (body->type == TD_BODY_RIGID) {
    static const char *const motions[] = {"prescribed", "free", NULL};
    PetscInt                 motion;
    PetscCall(TdOptionsEnum(p, "motion", "rigid body: prescribed (moved by -velocity, -angular_velocity, -oscillation) or free (its own unknowns in natural coordinates, formulation (F21); mass properties from its geometry and -rho, or -mass, -inertia, -com)", motions, 0, &motion, NULL));
    if (motion == 1) body->type = TD_BODY_FREE;
  }
  PetscCall(TdOptionsString(p, "mesh", "hexahedral mesh file (.msh or .geo) instead of a box; physical groups name faces", NULL, meshfile, sizeof meshfile, &has_mesh));
  PetscCall(TdOptionsRealArray(p, "box", "box x0,y0,z0,x1,y1,z1 in the reference configuration", "m", 6, NULL, box, &has_box));
  PetscCall(TdOptionsIntArray(p, "cells", "structured hexahedra of the box nx,ny,nz", 3, cells, cells, NULL));
  if (body->type == TD_BODY_RIGID || body->type == TD_BODY_FREE) {
    PetscBool has_cyl;
    PetscCall(TdRigidBodyCylinderFromOptionsInternal(model, body, has_box || has_mesh, &has_cyl));
    if (has_cyl) has_box = PETSC_TRUE; /* geometry given */
  }
  if (TdOptionsHelpRequested() && !has_box && !has_mesh) PetscFunctionReturn(0);
  if (body->is_cylinder) {
    /* nothing to mesh */
  } else if (has_box && has_mesh) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s': give either -%s_box or -%s_mesh, not both", p, p, p);
  if (!has_box && !has_mesh && body->type != TD_BODY_FREE) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s' has no geometry: set -%s_box x0,y0,z0,x1,y1,z1 (with -%s_cells nx,ny,nz) or -%s_mesh FILE", p, p, p, p);
  if (body->is_cylinder) {
  } else if (has_box) {
    for (PetscInt i = 0; i < 3; i++)
      if (!(box[i + 3] > box[i])) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_box: the box has zero or negative size along %c (%g to %g); give x0,y0,z0,x1,y1,z1 with x1 > x0, y1 > y0, z1 > z0", p, "xyz"[i], (double)box[i], (double)box[i + 3]);
    for (PetscInt i = 0; i < 3; i++)
      if (cells[i] < 1) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_cells: %" PetscInt_FMT " cells along %c; every count must be at least 1", p, cells[i], "xyz"[i]);
    PetscCall(TdMeshCreateBox(PETSC_COMM_SELF, box, cells, &body->mesh));
  } else if (has_mesh) {
    PetscBool exists;
    PetscCall(PetscTestFile(meshfile, 'r', &exists));
    if (!exists) SETERRQ(model->comm, PETSC_ERR_FILE_OPEN, "Option -%s_mesh: cannot read the mesh file '%s' (missing or unreadable)", p, meshfile);
    PetscCall(TdMeshLoad(PETSC_COMM_SELF, meshfile, &body->mesh));
  }
  {
    const PetscReal *bb = body->mesh.bbox;
    body->size = PetscSqrtReal(PetscSqr(bb[3] - bb[0]) + PetscSqr(bb[4] - bb[1]) + PetscSqr(bb[5] - bb[2]));
  }
  PetscCall(TdOptionsRealPositive(p, "E", "Young's modulus", "Pa", 210e9, PETSC_TRUE, &body->E, NULL));
  PetscCall(TdOptionsReal(p, "nu", "Poisson's ratio, in (-1, 0.5)", NULL, 0.3, &body->nu, NULL));
  if (!(body->nu > -1 && body->nu < 0.5)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_nu = %g: Poisson's ratio must lie in (-1, 0.5)", p, (double)body->nu);
  PetscCall(TdOptionsRealPositive(p, "rho", "density", "kg/m^3", 7800, PETSC_TRUE, &body->rho, NULL));
  PetscCall(TdOptionsRealPositive(p, "damping", "strain-rate damping beta_d (formulation F5)", "s", 0, PETSC_FALSE, &body->damping, NULL));
  ancf3843_material_init(body->E, body->nu, body->rho, body->damping, &body->material);
  /* centre: the centroid of the bounding box unless given */
  for (PetscInt i = 0; i < 3; i++) body->center[i] = 0.5 * (body->mesh.bbox[i] + body->mesh.bbox[i + 3]);
  if (body->type == TD_BODY_RIGID) {
    PetscCall(TdRigidBodyMotionFromOptionsInternal(model, body));
  } else if (body->type == TD_BODY_FREE) {
    PetscCall(TdOptionsRealArray(p, "initial_velocity", "free rigid body: initial velocity of its centre of mass vx,vy,vz", "m/s", 3, zero3, body->initial_velocity, NULL));
    PetscCall(TdOptionsRealArray(p, "initial_angular_velocity", "free rigid body: initial angular velocity wx,wy,wz", "rad/s", 3, zero3, body->initial_angular_velocity, NULL));
  } else {
    PetscCall(TdOptionsRealArray(p, "initial_velocity", "ANCF body: uniform initial velocity vx,vy,vz (a drive sets its own component)", "m/s", 3, zero3, body->initial_velocity, NULL));
  }
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_clamp", p));
  {
    static const char *const slope_modes[] = {"face", "all", NULL};
    char    (*faces)[64];
    PetscInt nfaces, mode;
    PetscCall(TdOptionsNameList(p, "clamp", "faces held fixed: xmin,xmax,ymin,ymax,zmin,zmax for boxes, group names for meshes", &nfaces, &faces));
    PetscCall(TdOptionsEnum(p, "clamp_slopes", "slopes a clamped face holds: face (the slopes along the face, as u = 0 on the face does) or all (also the normal slope, formulation.md §4 literally; stiff by one element at the root)", slope_modes, 0, &mode, NULL));
    body->clamp_all_slopes = mode == 1 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscCalloc1(body->mesh.nnodes, &body->clamped));
    if (nfaces && body->type != TD_BODY_ANCF) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' is rigid; only ancf bodies can be clamped (hold a rigid body with joints)", opt, p);
    /* Why not every slope: u = 0 on a face fixes the position and the derivatives along the
       face, while the derivative across it (the normal slope) is free in the continuum.
       Holding it as well forces dw/dx = 0 at a clamped root instead of a zero section
       rotation, which stiffens the whole first element: 2 % on the 20 x 1 x 1 cantilever of
       tests/verification/beam_statics.py, converging only at first order in the element
       length.  A node on two clamped faces holds the union of their face slopes.  Faces
       whose normal is not a global axis (rotated meshes, curved faces) hold every slope; on a
       curved mesh the normal is taken at each corner. */
    for (PetscInt f = 0; f < nfaces; f++) {
      const TdMeshSet *set = TdMeshFindSet(&body->mesh, faces[f]);
      if (!set) PetscCall(FaceNotFound(model, body, faces[f], opt));
      for (PetscInt i = 0; i < set->nnodes; i++) body->clamped[set->nodes[i]] |= 0x7; /* positions */
      for (PetscInt q = 0; q < set->nfaces; q++) {
        const PetscInt   cell = set->faces[q].cell, ax = set->faces[q].face / 2;
        const PetscReal *axes = &body->mesh.axes[9 * cell];
        PetscInt         normal = -1, held = 0;
        for (PetscInt i = 0; i < 3; i++)
          if (PetscAbsReal(axes[3 * ax + i]) > 1 - 1e-12) normal = i;
        for (PetscInt i = 0; i < 3; i++)
          if (body->clamp_all_slopes || normal < 0 || i != normal) held |= 0x7 << (3 * (i + 1));
        /* the face's four corner nodes */
        for (PetscInt n = 0; n < 8; n++) {
          const PetscInt corner[3] = {n & 1 ? 1 : 0, n & 2 ? 1 : 0, n & 4 ? 1 : 0};
          if (corner[ax] != set->faces[q].face % 2) continue;
          if (body->mesh.curved) { /* the face's normal at this corner: its two tangents' product */
            const PetscReal *G = &body->mesh.slope_map[72 * cell + 9 * n];
            PetscReal        nv[3];
            vec3_cross(&G[3 * ((ax + 1) % 3)], &G[3 * ((ax + 2) % 3)], nv);
            normal = -1;
            held   = 0;
            for (PetscInt i = 0; i < 3; i++)
              if (PetscAbsReal(nv[i]) > (1 - 1e-12) * vec3_norm(nv)) normal = i;
            for (PetscInt i = 0; i < 3; i++)
              if (body->clamp_all_slopes || normal < 0 || i != normal) held |= 0x7 << (3 * (i + 1));
          }
          body->clamped[body->mesh.cells[8 * cell + n]] |= held;
        }
      }
      if (!set->nfaces)
        for (PetscInt i = 0; i < set->nnodes; i++) body->clamped[set->nodes[i]] |= 0xfff;
    }
    PetscCall(PetscFree(faces));
  }
  PetscFunctionReturn(0);
}

/* Free rigid body (F21): mass, centre of mass and the second moments J = int rho (X - c)(X - c)^T dV
   about it, from the cells (the reference map X = sum_m S_m e0_m of each cell, with its mass and
   gravity integrals: exact for boxes) and -<b>_rho, or given: -<b>_mass, -<b>_inertia about
   -<b>_com (the inertia tensor I = tr(J) 1 - J, so J = tr(I)/2 1 - I). */
static PetscErrorCode FreeBodyMassProperties(TdModel model, TdBody *body)
{
  const char *p = body->name;
  PetscReal   inertia[6] = {0, 0, 0, 0, 0, 0}, m1[3] = {0, 0, 0}, m2[9] = {0}, mass;
  Ancf3843Geometry *cell_table = NULL;
  PetscInt    ni = 6;
  PetscBool   has_mass, has_inertia, has_com;
  PetscFunctionBegin;
  PetscCall(TdOptionsReal(p, "mass", "free rigid body: mass (with -inertia; default: from its geometry and -rho)", "kg", 0, &mass, &has_mass));
  inertia[3] = inertia[4] = inertia[5] = (PetscReal)NAN; /* unset: 3 values given */
  PetscCall(TdOptionsRealArrayRange(p, "inertia", "free rigid body: inertia tensor Ixx,Iyy,Izz[,Iyz,Ixz,Ixy] about -<b>_com (with -mass)", "kg m^2", 3, 6, NULL, inertia, &has_inertia));
  if (has_inertia && !PetscIsNanReal(inertia[3]) && PetscIsNanReal(inertia[5])) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_inertia: give 3 values Ixx,Iyy,Izz or 6 values Ixx,Iyy,Izz,Iyz,Ixz,Ixy", p);
  ni = PetscIsNanReal(inertia[3]) ? 3 : 6;
  PetscCall(TdOptionsRealArray(p, "com", "free rigid body: centre of mass x,y,z (with -mass; default: the geometry's)", "m", 3, body->center, body->com, &has_com));
  if (TdOptionsHelpRequested()) PetscFunctionReturn(0);
  if (has_mass != has_inertia) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s': give both -%s_mass and -%s_inertia (a free rigid body needs its mass and its inertia), or neither (both from its geometry and -%s_rho)", p, p, p, p);
  if (has_mass) {
    PetscReal In[9];
    if (!(mass > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_mass = %g: a free rigid body needs a positive mass", p, (double)mass);
    In[0] = inertia[0];
    In[4] = inertia[1];
    In[8] = inertia[2];
    In[5] = In[7] = ni == 6 ? inertia[3] : 0;
    In[2] = In[6] = ni == 6 ? inertia[4] : 0;
    In[1] = In[3] = ni == 6 ? inertia[5] : 0;
    for (PetscInt i = 0; i < 9; i++) body->J[i] = (i % 4 == 0 ? 0.5 * (In[0] + In[4] + In[8]) : 0) - In[i];
    body->mass = mass;
  } else {
    if (has_com) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_com: the centre of mass is given with -%s_mass and -%s_inertia; without them it comes from the geometry", p, p, p);
    if (!body->mesh.ncells) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s' is a free rigid body without cells to take its mass from: give -%s_box or -%s_mesh, or -%s_mass and -%s_inertia", p, p, p, p, p);
    mass = 0;
    if (body->mesh.curved) PetscCall(PetscMalloc1(1, &cell_table));
    for (PetscInt c = 0; c < body->mesh.ncells; c++) {
      const Ancf3843Geometry *geo = cell_table;
      const PetscReal        *X0  = &body->mesh.X[3 * body->mesh.cells[8 * c]];
      PetscReal               e0[ANCF3843_NDOF], s1[3] = {0, 0, 0}, s2[9] = {0};
      /* a curved cell's tables one at a time (element_tables.c keeps none before the partition) */
      if (cell_table) PetscCall(TdBodyCellTableInternal(model, body, c, cell_table));
      else geo = &body->geometry[body->cell_geometry[c]];
      TdMeshCellReference(&body->mesh, c, e0);
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
        for (PetscInt i = 0; i < 3; i++) s1[i] += geo->shape_integral[k] * e0[3 * k + i];
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
        for (PetscInt l = 0; l < ANCF3843_NSHAPE; l++)
          for (PetscInt i = 0; i < 3; i++)
            for (PetscInt j = 0; j < 3; j++) s2[3 * i + j] += geo->mass_unit[k][l] * e0[3 * k + i] * e0[3 * l + j];
      mass += body->rho * geo->volume;
      for (PetscInt i = 0; i < 3; i++) m1[i] += body->rho * (X0[i] * geo->volume + s1[i]);
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt j = 0; j < 3; j++) m2[3 * i + j] += body->rho * (X0[i] * X0[j] * geo->volume + X0[i] * s1[j] + s1[i] * X0[j] + s2[3 * i + j]);
    }
    PetscCall(PetscFree(cell_table));
    body->mass = mass;
    for (PetscInt i = 0; i < 3; i++) body->com[i] = m1[i] / mass;
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt j = 0; j < 3; j++) body->J[3 * i + j] = m2[3 * i + j] - mass * body->com[i] * body->com[j];
  }
  { /* J must be positive definite (leading minors), else the body has no finite rotational inertia
       about some axis and its mass matrix is singular */
    const PetscReal *J = body->J, d1 = J[0], d2 = J[0] * J[4] - J[1] * J[3];
    const PetscReal  d3 = J[0] * (J[4] * J[8] - J[5] * J[7]) - J[1] * (J[3] * J[8] - J[5] * J[6]) + J[2] * (J[3] * J[7] - J[4] * J[6]);
    const PetscReal  scale = PetscAbsReal(J[0]) + PetscAbsReal(J[4]) + PetscAbsReal(J[8]);
    if (!(d1 > 1e-12 * scale && d2 > 1e-12 * scale * scale && d3 > 1e-12 * scale * scale * scale))
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s': singular inertia: its second moments about the centre of mass, J = tr(I)/2 1 - I, are not positive definite (the principal moments must be positive and each at most the sum of the other two); check -%s_inertia", p, p);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdBodiesFromOptionsInternal(TdModel model, PetscInt nb, char (*names)[64])
{
  PetscFunctionBegin;
  model->nbodies = nb;
  PetscCall(PetscCalloc1(PetscMax(nb, 1), &model->bodies));
  for (PetscInt b = 0; b < nb; b++) {
    TdBody *body = &model->bodies[b];
    PetscCall(PetscStrncpy(body->name, names[b], TD_NAME_LEN));
    PetscCall(BodyFromOptions(model, body));
    if (body->mesh.ncells) PetscCall(TdBodyTablesInternal(model, body));
    if (body->type == TD_BODY_FREE) PetscCall(FreeBodyMassProperties(model, body));
  }
  PetscFunctionReturn(0);
}

/* coordinates: ANCF nodes body after body, clamped nodes eliminated */
PetscErrorCode TdBodiesNumberCoordinatesInternal(TdModel model)
{
  const PetscInt nb = model->nbodies;
  PetscFunctionBegin;
  model->nnodes = 0;
  for (PetscInt b = 0; b < nb; b++) {
    TdBody *body = &model->bodies[b];
    body->node_offset = model->nnodes;
    if (body->type == TD_BODY_ANCF) model->nnodes += body->mesh.nnodes;
    if (body->type == TD_BODY_FREE) model->nnodes += 1; /* [r, a1, a2, a3] (F21) */
  }
  model->nfull = TD_NODE_DOF * model->nnodes;
  PetscCall(PetscMalloc2(model->nfull, &model->free_index, model->nfull, &model->q_ref));
  model->nfree = 0;
  model->nelements = 0;
  for (PetscInt b = 0; b < nb; b++) {
    TdBody *body = &model->bodies[b];
    if (body->type == TD_BODY_FREE) { /* the centre of mass and the reference axes, all free */
      PetscReal *q = &model->q_ref[TD_NODE_DOF * body->node_offset];
      PetscInt  *f = &model->free_index[TD_NODE_DOF * body->node_offset];
      for (PetscInt i = 0; i < 12; i++) q[i] = i < 3 ? body->com[i] : (i == 3 || i == 7 || i == 11 ? 1 : 0);
      for (PetscInt i = 0; i < 12; i++) f[i] = model->nfree++;
      continue;
    }
    if (body->type != TD_BODY_ANCF) continue;
    for (PetscInt n = 0; n < body->mesh.nnodes; n++) {
      PetscReal *q = &model->q_ref[TD_NODE_DOF * (body->node_offset + n)];
      PetscInt  *f = &model->free_index[TD_NODE_DOF * (body->node_offset + n)];
      for (PetscInt i = 0; i < 3; i++) q[i] = body->mesh.X[3 * n + i];
      for (PetscInt i = 3; i < 12; i++) q[i] = 0;
      q[3] = q[7] = q[11] = 1; /* slopes: the unit global axes */
      for (PetscInt i = 0; i < 12; i++) f[i] = (body->clamped[n] >> i) & 1 ? -1 : model->nfree++;
    }
    model->nelements += body->mesh.ncells;
  }
  PetscCall(PetscMalloc2(model->nelements, &model->element_body, model->nelements, &model->element_cell));
  {
    PetscInt e = 0;
    PetscReal total_mass = 0;
    for (PetscInt b = 0; b < nb; b++) {
      TdBody *body = &model->bodies[b];
      if (body->type == TD_BODY_FREE) total_mass += body->mass;
      if (body->type != TD_BODY_ANCF) continue;
      body->element_offset = e;
      for (PetscInt c = 0; c < body->mesh.ncells; c++, e++) {
        model->element_body[e] = b;
        model->element_cell[e] = c;
      }
      total_mass += body->mass;
    }
    model->mass_per_node = model->nnodes ? total_mass / model->nnodes : 1;
    model->force_scale   = total_mass * 9.81;
  }
  PetscFunctionReturn(0);
}

void TdModelElementCoordinates(TdModel model, PetscInt element, PetscInt coord[ANCF3843_NDOF])
{
  const TdBody   *body = &model->bodies[model->element_body[element]];
  const PetscInt *cell = &body->mesh.cells[8 * model->element_cell[element]];
  for (PetscInt n = 0; n < 8; n++)
    for (PetscInt j = 0; j < 4; j++)
      for (PetscInt i = 0; i < 3; i++) coord[3 * (4 * n + j) + i] = TD_NODE_DOF * (body->node_offset + cell[n]) + 3 * j + i;
}

void TdModelElementGather(TdModel model, PetscInt element, const PetscReal full[], PetscBool positions, PetscReal e[ANCF3843_NDOF])
{
  const TdBody   *body = &model->bodies[model->element_body[element]];
  const PetscInt  c    = model->element_cell[element];
  const PetscInt *cell = &body->mesh.cells[8 * c];
  PetscReal       origin[3] = {0, 0, 0};
  /* Positions are taken relative to the element's first node: F = sum_k e_k (x) dS_k/dX is
     unchanged by a translation, and without the shift the sum cancels terms of size
     |x| / a, which limits the attainable residual for bodies far from the origin. */
  if (positions)
    for (PetscInt i = 0; i < 3; i++) origin[i] = full[TD_NODE_DOF * (body->node_offset + cell[0]) + i];
  for (PetscInt n = 0; n < 8; n++) {
    const PetscReal *qn = &full[TD_NODE_DOF * (body->node_offset + cell[n])];
    for (PetscInt k = 0; k < 12; k++) e[12 * n + k] = qn[k];
    for (PetscInt i = 0; i < 3; i++) e[12 * n + i] -= origin[i];
  }
  TdModelElementToLocal(model, element, e);
}

void TdModelElementToLocal(TdModel model, PetscInt element, PetscReal e[ANCF3843_NDOF])
{
  const TdBody   *body = &model->bodies[model->element_body[element]];
  const PetscInt  c    = model->element_cell[element];
  if (body->mesh.curved) {
    /* parametric slopes e_{n,j} = sum_i G_n[i][j] r_{n,i} (mesh.h) */
    for (PetscInt n = 0; n < 8; n++) {
      const PetscReal *G = &body->mesh.slope_map[72 * c + 9 * n];
      PetscReal        g[9];
      for (PetscInt k = 0; k < 9; k++) g[k] = e[12 * n + 3 + k];
      for (PetscInt j = 0; j < 3; j++)
        for (PetscInt comp = 0; comp < 3; comp++) e[12 * n + 3 + 3 * j + comp] = G[3 * j + 0] * g[comp] + G[3 * j + 1] * g[3 + comp] + G[3 * j + 2] * g[6 + comp];
    }
  } else if (!body->mesh.axis_aligned) {
    const PetscReal *axes = &body->mesh.axes[9 * c];
    for (PetscInt n = 0; n < 8; n++) {
      PetscReal g[9];
      for (PetscInt k = 0; k < 9; k++) g[k] = e[12 * n + 3 + k];
      for (PetscInt ax = 0; ax < 3; ax++)
        for (PetscInt comp = 0; comp < 3; comp++) e[12 * n + 3 + 3 * ax + comp] = axes[3 * ax + 0] * g[comp] + axes[3 * ax + 1] * g[3 + comp] + axes[3 * ax + 2] * g[6 + comp];
    }
  }
}

void TdModelElementRotateForce(TdModel model, PetscInt element, PetscReal Q[ANCF3843_NDOF])
{
  const TdBody *body = &model->bodies[model->element_body[element]];
  if (body->mesh.axis_aligned) return;
  if (body->mesh.curved) { /* the transpose of the gather's map, node by node */
    for (PetscInt n = 0; n < 8; n++) {
      const PetscReal *G = &body->mesh.slope_map[72 * model->element_cell[element] + 9 * n];
      PetscReal        l[9];
      for (PetscInt k = 0; k < 9; k++) l[k] = Q[12 * n + 3 + k];
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt comp = 0; comp < 3; comp++) Q[12 * n + 3 + 3 * i + comp] = G[i] * l[comp] + G[3 + i] * l[3 + comp] + G[6 + i] * l[6 + comp];
    }
    return;
  }
  const PetscReal *axes = &body->mesh.axes[9 * model->element_cell[element]];
  for (PetscInt n = 0; n < 8; n++) {
    PetscReal l[9];
    for (PetscInt k = 0; k < 9; k++) l[k] = Q[12 * n + 3 + k];
    for (PetscInt i = 0; i < 3; i++)
      for (PetscInt comp = 0; comp < 3; comp++) Q[12 * n + 3 + 3 * i + comp] = axes[0 + i] * l[comp] + axes[3 + i] * l[3 + comp] + axes[6 + i] * l[6 + comp];
  }
}

/* K_global = T^T K_local T with T the per-node slope rotation. */
void TdModelElementRotateMatrix(TdModel model, PetscInt element, PetscReal K[ANCF3843_NDOF * ANCF3843_NDOF], PetscReal work[ANCF3843_NDOF * ANCF3843_NDOF])
{
  const TdBody *body = &model->bodies[model->element_body[element]];
  if (body->mesh.axis_aligned) return;
  const PetscInt N = ANCF3843_NDOF;
  /* rows: work = T^T K */
  for (PetscInt col = 0; col < N; col++) {
    PetscReal v[ANCF3843_NDOF];
    for (PetscInt r = 0; r < N; r++) v[r] = K[r * N + col];
    TdModelElementRotateForce(model, element, v);
    for (PetscInt r = 0; r < N; r++) work[r * N + col] = v[r];
  }
  /* columns: K = work T */
  for (PetscInt r = 0; r < N; r++) {
    PetscReal *row = &work[r * N];
    TdModelElementRotateForce(model, element, row);
    for (PetscInt col = 0; col < N; col++) K[r * N + col] = row[col];
  }
}

void TdFreeBodyPoint(const TdBody *body, const PetscReal q[], const PetscReal X[3], PetscReal x[3])
{
  const PetscReal *r = &q[TD_NODE_DOF * body->node_offset];
  for (PetscInt i = 0; i < 3; i++) x[i] = r[i] + (X[0] - body->com[0]) * r[3 + i] + (X[1] - body->com[1]) * r[6 + i] + (X[2] - body->com[2]) * r[9 + i];
}
