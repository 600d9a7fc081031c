/* Building the model from the options database, with validation of every input (model.h). */
#include <tribodyn/model.h>
#include <tribodyn/options.h>
#include <errno.h>
#include <string.h>

static const char *const body_types[] = {"ancf", "rigid", NULL};
static const char *const profile_types[] = {"constant", "ramp", "halfsine", "table", NULL};
static const char *const joint_types[] = {"point", "crank_slider", NULL};

/* Shape functions of a material point with the slopes taken along the global axes:
   r = sum_n S_n0 r_n + sum_I S_nI r_{n,ax(local)}, r_{n,ax(local)} = sum_i axes[ax][i] r_{n,i}. */
static void GlobalShape(const PetscReal axes[9], const PetscReal Sloc[ANCF3843_NSHAPE], PetscReal Sg[ANCF3843_NSHAPE])
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
  if (!body->mesh.axis_aligned) {
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
  ancf3843_shape(body->mesh.size[3 * cell], body->mesh.size[3 * cell + 1], body->mesh.size[3 * cell + 2], xi, S);
  GlobalShape(&body->mesh.axes[9 * cell], S, mp->S);
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

static void RotationMatrix(const PetscReal axis_angle[3], PetscReal R[9])
{
  PetscReal th = PetscSqrtReal(axis_angle[0] * axis_angle[0] + axis_angle[1] * axis_angle[1] + axis_angle[2] * axis_angle[2]);
  PetscReal k[3] = {0, 0, 1}, c, s;
  if (th > 0)
    for (PetscInt i = 0; i < 3; i++) k[i] = axis_angle[i] / th;
  c = PetscCosReal(th);
  s = PetscSinReal(th);
  /* Rodrigues: R = c ax + s [k]x + (1 - c) k k^T */
  R[0] = c + (1 - c) * k[0] * k[0];
  R[1] = -s * k[2] + (1 - c) * k[0] * k[1];
  R[2] = s * k[1] + (1 - c) * k[0] * k[2];
  R[3] = s * k[2] + (1 - c) * k[1] * k[0];
  R[4] = c + (1 - c) * k[1] * k[1];
  R[5] = -s * k[0] + (1 - c) * k[1] * k[2];
  R[6] = -s * k[1] + (1 - c) * k[2] * k[0];
  R[7] = s * k[0] + (1 - c) * k[2] * k[1];
  R[8] = c + (1 - c) * k[2] * k[2];
}

static void MatMul3(const PetscReal A[9], const PetscReal B[9], PetscReal C[9])
{
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) C[3 * i + j] = A[3 * i] * B[j] + A[3 * i + 1] * B[3 + j] + A[3 * i + 2] * B[6 + j];
}

/* Rigid pose: x = c + v t + R(w t) R0 (X - c), v_X = v + w x (x - c - v t). */
/* v = V + w x d: the velocity of the point at d from the body's (moving) centre */
static void RigidVelocity(const TdBody *body, const PetscReal d[3], PetscReal v[3])
{
  const PetscReal *w = body->angular_velocity;
  v[0]               = body->velocity[0] + w[1] * d[2] - w[2] * d[1];
  v[1]               = body->velocity[1] + w[2] * d[0] - w[0] * d[2];
  v[2]               = body->velocity[2] + w[0] * d[1] - w[1] * d[0];
}

void TdRigidBodyPoint(const TdBody *body, const PetscReal X[3], PetscReal t, PetscReal x[3], PetscReal v[3])
{
  PetscReal aa[3], R[9], RR0[9], d[3], rd[3];
  for (PetscInt i = 0; i < 3; i++) aa[i] = body->angular_velocity[i] * t;
  RotationMatrix(aa, R);
  MatMul3(R, body->R0, RR0);
  for (PetscInt i = 0; i < 3; i++) d[i] = X[i] - body->center[i];
  for (PetscInt i = 0; i < 3; i++) rd[i] = RR0[3 * i] * d[0] + RR0[3 * i + 1] * d[1] + RR0[3 * i + 2] * d[2];
  for (PetscInt i = 0; i < 3; i++) x[i] = body->center[i] + body->velocity[i] * t + rd[i];
  if (v) RigidVelocity(body, rd, v);
}

void TdRigidBodyVelocityAt(const TdBody *body, const PetscReal x[3], PetscReal t, PetscReal v[3])
{
  PetscReal d[3];
  for (PetscInt i = 0; i < 3; i++) d[i] = x[i] - body->center[i] - body->velocity[i] * t;
  RigidVelocity(body, d, v);
}

void TdLoadForce(const TdLoad *load, PetscReal t, PetscReal f[3])
{
  PetscReal s = 1, tau = t - load->start;
  switch (load->profile) {
  case TD_PROFILE_CONSTANT:
    s = 1;
    break;
  case TD_PROFILE_RAMP:
    s = tau <= 0 ? 0 : (tau >= load->duration ? 1 : tau / load->duration);
    break;
  case TD_PROFILE_HALFSINE:
    s = (tau <= 0 || tau >= load->duration) ? 0 : PetscSinReal(PETSC_PI * tau / load->duration);
    break;
  case TD_PROFILE_TABLE: {
    /* linear interpolation of the measured force; zero outside the table */
    const PetscReal norm = PetscSqrtReal(load->force[0] * load->force[0] + load->force[1] * load->force[1] + load->force[2] * load->force[2]);
    PetscInt        n    = load->ntable, lo = 0, hi = n - 1;
    if (tau < load->table_t[0] || tau > load->table_t[n - 1] || norm == 0) s = 0;
    else {
      while (hi - lo > 1) {
        PetscInt mid = (lo + hi) / 2;
        if (load->table_t[mid] <= tau) lo = mid;
        else hi = mid;
      }
      PetscReal w = (tau - load->table_t[lo]) / (load->table_t[hi] - load->table_t[lo]);
      s           = ((1 - w) * load->table_f[lo] + w * load->table_f[hi]) / norm;
    }
  } break;
  }
  for (PetscInt i = 0; i < 3; i++) f[i] = s * load->force[i];
}

/* x_P - x_c = r cos(th) + l cos(phi), sin(phi) = lambda sin(th) - e/l (formulation.md §4). */
void TdCrankSlider(const TdJoint *j, PetscReal t, PetscReal *x, PetscReal *xdot, PetscReal *xddot)
{
  const PetscReal r = j->crank_radius, lam = j->rod_ratio, l = r / lam, w = 2 * PETSC_PI * j->rpm / 60;
  const PetscReal th = j->theta0 * PETSC_PI / 180 + w * t;
  const PetscReal sphi = lam * PetscSinReal(th) - j->offset / l, cphi = PetscSqrtReal(1 - sphi * sphi);
  const PetscReal phid  = lam * w * PetscCosReal(th) / cphi;
  const PetscReal phidd = (-lam * w * w * PetscSinReal(th) + sphi * phid * phid) / cphi;
  *x                    = r * PetscCosReal(th) + l * cphi;
  *xdot                 = -r * w * PetscSinReal(th) - l * sphi * phid;
  *xddot                = -r * w * w * PetscCosReal(th) - l * (cphi * phid * phid + sphi * phidd);
}

void TdConstraintTarget(TdModel model, PetscInt r, PetscReal t, PetscReal *b, PetscReal *bdot, PetscReal *bddot)
{
  const TdConstraintRow *row = &model->rows[r];
  if (row->kind == 1) {
    const TdJoint *j = &model->joints[row->joint];
    PetscReal      x, xd, xdd;
    TdCrankSlider(j, t, &x, &xd, &xdd);
    *b     = j->crank_center + x;
    *bdot  = xd;
    *bddot = xdd;
  } else {
    *b     = row->b0;
    *bdot  = 0;
    *bddot = 0;
  }
}

static PetscErrorCode FindBody(TdModel model, const char name[], const char option[], PetscInt *b)
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

static PetscErrorCode ReadTable(TdModel model, TdLoad *load, const char path[], const char option[])
{
  FILE     *fp;
  char      line[1024];
  PetscInt  n = 0, cap = 256, lineno = 0;
  PetscFunctionBegin;
  fp = fopen(path, "r");
  if (!fp) SETERRQ(model->comm, PETSC_ERR_FILE_OPEN, "Option %s: cannot open the force table '%s' (%s)", option, path, strerror(errno));
  PetscCall(PetscMalloc2(cap, &load->table_t, cap, &load->table_f));
  while (fgets(line, sizeof line, fp)) {
    double t, f;
    char  *p = line;
    lineno++;
    while (*p == ' ' || *p == '\t') p++;
    if (*p == '#' || *p == '\n' || *p == '\r' || !*p) continue;
    if (sscanf(p, "%lf , %lf", &t, &f) != 2 && sscanf(p, "%lf %lf", &t, &f) != 2) {
      if (n == 0 && lineno == 1) continue; /* a header line */
      fclose(fp);
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Force table '%s' (option %s), line %" PetscInt_FMT ": expected two numbers 'time, force'", path, option, lineno);
    }
    if (n > 0 && !(t > load->table_t[n - 1])) {
      fclose(fp);
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Force table '%s' (option %s), line %" PetscInt_FMT ": times must increase", path, option, lineno);
    }
    if (n == cap) {
      PetscReal *tt, *ff;
      PetscCall(PetscMalloc2(2 * cap, &tt, 2 * cap, &ff));
      PetscCall(PetscArraycpy(tt, load->table_t, n));
      PetscCall(PetscArraycpy(ff, load->table_f, n));
      PetscCall(PetscFree2(load->table_t, load->table_f));
      load->table_t = tt;
      load->table_f = ff;
      cap *= 2;
    }
    load->table_t[n] = t;
    load->table_f[n] = f;
    n++;
  }
  fclose(fp);
  if (n < 2) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Force table '%s' (option %s) has %" PetscInt_FMT " rows; it needs at least two 'time, force' rows", path, option, n);
  load->ntable = n;
  PetscFunctionReturn(0);
}

static PetscErrorCode CheckUniqueNames(TdModel model, PetscInt n, char (*names)[64], const char *kinds[], const PetscInt kind_of[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = i + 1; j < n; j++) {
      PetscBool same;
      PetscCall(PetscStrcmp(names[i], names[j], &same));
      if (same) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "The name '%s' is given to a %s and a %s; names become option prefixes, so every body, film, load, joint and sensor needs its own name", names[i], kinds[kind_of[i]], kinds[kind_of[j]]);
    }
  PetscFunctionReturn(0);
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
  PetscCall(TdOptionsString(p, "mesh", "hexahedral mesh file (.msh or .geo) instead of a box; physical groups name faces", NULL, meshfile, sizeof meshfile, &has_mesh));
  PetscCall(TdOptionsRealArray(p, "box", "box x0,y0,z0,x1,y1,z1 in the reference configuration", "m", 6, NULL, box, &has_box));
  PetscCall(TdOptionsIntArray(p, "cells", "structured hexahedra of the box nx,ny,nz", 3, cells, cells, NULL));
  if (body->type == TD_BODY_RIGID) {
    PetscBool has_cyl;
    PetscCall(TdOptionsRealArray(p, "cylinder", "rigid body: an exact cylinder surface x0,y0,z0,x1,y1,z1,R (axis end points, radius) instead of a box or mesh; its face is 'surface'", "m", 7, NULL, body->cylinder, &has_cyl));
    if (has_cyl) {
      PetscReal d[3], len;
      if (has_box || has_mesh) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s': give one of -%s_box, -%s_mesh, -%s_cylinder", p, p, p, p);
      for (PetscInt i = 0; i < 3; i++) d[i] = body->cylinder[3 + i] - body->cylinder[i];
      len = PetscSqrtReal(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (!(len > 0) || !(body->cylinder[6] > 0)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_cylinder: the axis end points must differ and the radius must be positive", p);
      body->is_cylinder = PETSC_TRUE;
      PetscCall(PetscStrcpy(body->mesh.source, "cylinder"));
      for (PetscInt i = 0; i < 3; i++) {
        body->mesh.bbox[i]     = PetscMin(body->cylinder[i], body->cylinder[3 + i]) - body->cylinder[6];
        body->mesh.bbox[i + 3] = PetscMax(body->cylinder[i], body->cylinder[3 + i]) + body->cylinder[6];
      }
      body->mesh.axis_aligned = PETSC_TRUE;
      has_box = PETSC_TRUE; /* geometry given */
    }
  }
  if (TdOptionsHelpRequested() && !has_box && !has_mesh) PetscFunctionReturn(0);
  if (body->is_cylinder) {
    /* nothing to mesh */
  } else if (has_box && has_mesh) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s': give either -%s_box or -%s_mesh, not both", p, p, p);
  if (!has_box && !has_mesh) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s' has no geometry: set -%s_box x0,y0,z0,x1,y1,z1 (with -%s_cells nx,ny,nz) or -%s_mesh FILE", p, p, p, p);
  if (body->is_cylinder) {
  } else if (has_box) {
    for (PetscInt i = 0; i < 3; i++)
      if (!(box[i + 3] > box[i])) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_box: the box has zero or negative size along %c (%g to %g); give x0,y0,z0,x1,y1,z1 with x1 > x0, y1 > y0, z1 > z0", p, "xyz"[i], (double)box[i], (double)box[i + 3]);
    for (PetscInt i = 0; i < 3; i++)
      if (cells[i] < 1) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_cells: %" PetscInt_FMT " cells along %c; every count must be at least 1", p, cells[i], "xyz"[i]);
    PetscCall(TdMeshCreateBox(PETSC_COMM_SELF, box, cells, &body->mesh));
  } else {
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
    PetscReal aa[3], Rx[9], Ry[9], Rz[9], T[9];
    PetscCall(TdOptionsRealArray(p, "velocity", "rigid body: constant velocity vx,vy,vz", "m/s", 3, zero3, body->velocity, NULL));
    PetscCall(TdOptionsRealArray(p, "rotation", "rigid body: initial rotation about x, then y, then z, about its centre", "deg", 3, zero3, body->rotation, NULL));
    PetscCall(TdOptionsRealArray(p, "angular_velocity", "rigid body: constant angular velocity wx,wy,wz about its centre", "rad/s", 3, zero3, body->angular_velocity, NULL));
    PetscCall(TdOptionsRealArray(p, "center", "rigid body: centre of rotation x,y,z (default: the centroid)", "m", 3, body->center, body->center, NULL));
    aa[0] = body->rotation[0] * PETSC_PI / 180; aa[1] = 0; aa[2] = 0;
    RotationMatrix(aa, Rx);
    aa[0] = 0; aa[1] = body->rotation[1] * PETSC_PI / 180;
    RotationMatrix(aa, Ry);
    aa[1] = 0; aa[2] = body->rotation[2] * PETSC_PI / 180;
    RotationMatrix(aa, Rz);
    MatMul3(Ry, Rx, T);
    MatMul3(Rz, T, body->R0);
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
    if (nfaces && body->type == TD_BODY_RIGID) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' is rigid (its motion is prescribed); only ancf bodies can be clamped", opt, p);
    /* Why not every slope: u = 0 on a face fixes the position and the derivatives along the
       face, while the derivative across it (the normal slope) is free in the continuum.
       Holding it as well forces dw/dx = 0 at a clamped root instead of a zero section
       rotation, which stiffens the whole first element: 2 % on the 20 x 1 x 1 cantilever of
       tests/verification/beam_statics.py, converging only at first order in the element
       length.  A node on two clamped faces holds the union of their face slopes.  Faces
       whose normal is not a global axis (rotated meshes) hold every slope. */
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

/* Distinct cell sizes share one table of shape-function gradients and mass integrals. */
static PetscErrorCode BodyGeometry(TdBody *body)
{
  PetscInt ncells = body->mesh.ncells, n = 0;
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ncells, &body->cell_geometry));
  PetscCall(PetscMalloc1(ncells, &body->geometry));
  body->mass = 0;
  for (PetscInt c = 0; c < ncells; c++) {
    const PetscReal *s = &body->mesh.size[3 * c];
    PetscInt         g;
    for (g = 0; g < n; g++) {
      const Ancf3843Geometry *geo = &body->geometry[g];
      if (PetscAbsReal(geo->a - s[0]) <= 1e-12 * s[0] && PetscAbsReal(geo->b - s[1]) <= 1e-12 * s[1] && PetscAbsReal(geo->c - s[2]) <= 1e-12 * s[2]) break;
    }
    if (g == n) ancf3843_geometry_init(s[0], s[1], s[2], &body->geometry[n++]);
    body->cell_geometry[c] = g;
    body->mass += body->rho * s[0] * s[1] * s[2];
  }
  body->ngeometry = n;
  PetscFunctionReturn(0);
}

static PetscErrorCode ReadPoint(TdModel model, const char prefix[], const char kind[], PetscInt *body, TdMaterialPoint *mp)
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
  PetscCall(FindBody(model, bname, opt, body));
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

static PetscErrorCode AddRowFromPoint(TdModel model, const TdMaterialPoint *mp, PetscInt comp, PetscInt joint, PetscInt kind, TdConstraintRow *row)
{
  PetscFunctionBegin;
  row->nterms = ANCF3843_NSHAPE;
  for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
    row->coord[k] = mp->coord[3 * k + comp];
    row->coef[k]  = mp->S[k];
  }
  row->joint = joint;
  row->kind  = kind;
  row->b0    = 0;
  for (PetscInt k = 0; k < row->nterms; k++) row->b0 += row->coef[k] * model->q_ref[row->coord[k]];
  PetscFunctionReturn(0);
}

PetscErrorCode TdModelCreateFromOptions(MPI_Comm comm, TdModel *out)
{
  TdModel   model;
  char    (*bodies)[64] = NULL, (*films)[64] = NULL, (*loads)[64] = NULL, (*joints)[64] = NULL, (*sensors)[64] = NULL;
  PetscInt  nb, nf, nl, nj, ns;
  const PetscReal g_default[3] = {0, 0, 0};
  PetscFunctionBegin;
  PetscCall(PetscNew(&model));
  model->comm = comm;
  PetscCall(TdOptionsRealArray(NULL, "gravity", "gravity gx,gy,gz", "m/s^2", 3, g_default, model->gravity, NULL));
  PetscCall(TdOptionsNameList(NULL, "bodies", "body names (each becomes an option prefix: -<b>_type, -<b>_box, ...)", &nb, &bodies));
  PetscCall(TdOptionsNameList(NULL, "films", "film names (-<f>_model, -<f>_wall, -<f>_base, -<f>_cells, -<f>_mu, ...)", &nf, &films));
  PetscCall(TdOptionsNameList(NULL, "loads", "load names (-<l>_body, -<l>_point, -<l>_force, -<l>_profile ...)", &nl, &loads));
  PetscCall(TdOptionsNameList(NULL, "joints", "joint names (-<j>_type point|crank_slider, ...)", &nj, &joints));
  PetscCall(TdOptionsNameList(NULL, "sensors", "sensor names (-<s>_body, -<s>_point)", &ns, &sensors));
  {
    PetscInt    n = nb + nf + nl + nj + ns, k = 0;
    char      (*all)[64];
    PetscInt   *kind;
    const char *kinds[] = {"body", "film", "load", "joint", "sensor"};
    PetscCall(PetscMalloc2(n, &all, n, &kind));
    for (PetscInt i = 0; i < nb; i++, k++) { PetscCall(PetscStrncpy(all[k], bodies[i], 64)); kind[k] = 0; }
    for (PetscInt i = 0; i < nf; i++, k++) { PetscCall(PetscStrncpy(all[k], films[i], 64)); kind[k] = 1; }
    for (PetscInt i = 0; i < nl; i++, k++) { PetscCall(PetscStrncpy(all[k], loads[i], 64)); kind[k] = 2; }
    for (PetscInt i = 0; i < nj; i++, k++) { PetscCall(PetscStrncpy(all[k], joints[i], 64)); kind[k] = 3; }
    for (PetscInt i = 0; i < ns; i++, k++) { PetscCall(PetscStrncpy(all[k], sensors[i], 64)); kind[k] = 4; }
    PetscCall(CheckUniqueNames(model, n, all, kinds, kind));
    PetscCall(PetscFree2(all, kind));
  }
  if (!nb && !TdOptionsHelpRequested()) SETERRQ(comm, PETSC_ERR_USER_INPUT, "No bodies: set -bodies name1,name2 and describe each body (-<b>_box, -<b>_cells, -<b>_E, ...); see tribodyn -help or the cases/ folder");

  /* bodies */
  model->nbodies = nb;
  PetscCall(PetscCalloc1(PetscMax(nb, 1), &model->bodies));
  for (PetscInt b = 0; b < nb; b++) {
    TdBody *body = &model->bodies[b];
    PetscCall(PetscStrncpy(body->name, bodies[b], TD_NAME_LEN));
    PetscCall(BodyFromOptions(model, body));
    if (body->mesh.ncells) PetscCall(BodyGeometry(body));
  }
  if (TdOptionsHelpRequested() && nb == 0) goto done;

  /* coordinates: ANCF nodes body after body, clamped nodes eliminated */
  model->nnodes = 0;
  for (PetscInt b = 0; b < nb; b++) {
    TdBody *body = &model->bodies[b];
    body->node_offset = model->nnodes;
    if (body->type == TD_BODY_ANCF) model->nnodes += body->mesh.nnodes;
  }
  model->nfull = TD_NODE_DOF * model->nnodes;
  PetscCall(PetscMalloc2(model->nfull, &model->free_index, model->nfull, &model->q_ref));
  model->nfree = 0;
  model->nelements = 0;
  for (PetscInt b = 0; b < nb; b++) {
    TdBody *body = &model->bodies[b];
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

  /* loads */
  model->nloads = nl;
  PetscCall(PetscCalloc1(PetscMax(nl, 1), &model->loads));
  for (PetscInt l = 0; l < nl; l++) {
    TdLoad   *load = &model->loads[l];
    PetscInt  b, profile;
    PetscBool set;
    char      table[PETSC_MAX_PATH_LEN], opt[256];
    const PetscReal zero3[3] = {0, 0, 0};
    PetscCall(PetscStrncpy(load->name, loads[l], TD_NAME_LEN));
    PetscCall(ReadPoint(model, load->name, "load", &b, &load->point));
    PetscCall(TdOptionsRealArray(load->name, "force", "force vector fx,fy,fz (its peak for a pulse)", "N", 3, zero3, load->force, NULL));
    PetscCall(TdOptionsEnum(load->name, "profile", "time profile", profile_types, 0, &profile, NULL));
    load->profile = (TdProfileType)profile;
    PetscCall(TdOptionsReal(load->name, "start", "start of the ramp or pulse", "s", 0, &load->start, NULL));
    PetscCall(TdOptionsReal(load->name, "duration", "duration of the ramp or pulse", "s", 0, &load->duration, &set));
    PetscCall(TdOptionsString(load->name, "table", "measured force, CSV with columns time [s], force [N] (scales the direction of -<l>_force)", NULL, table, sizeof table, &set));
    if (TdOptionsHelpRequested()) continue;
    if ((load->profile == TD_PROFILE_RAMP || load->profile == TD_PROFILE_HALFSINE) && !(load->duration > 0))
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -%s_duration = %g: a %s profile needs a positive duration", load->name, (double)load->duration, profile_types[profile]);
    if (model->bodies[b].type != TD_BODY_ANCF) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -%s_body: body '%s' is rigid (prescribed motion); loads act on ancf bodies", load->name, model->bodies[b].name);
    if (load->profile == TD_PROFILE_TABLE) {
      PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_table", load->name));
      if (!set) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Load '%s' has profile table but no %s FILE.csv", load->name, opt);
      PetscCall(ReadTable(model, load, table, opt));
    }
  }

  /* joints: linear constraint rows */
  model->njoints = nj;
  PetscCall(PetscCalloc1(PetscMax(nj, 1), &model->joints));
  PetscCall(PetscCalloc1(3 * PetscMax(nj, 1), &model->rows));
  model->nrows = 0;
  for (PetscInt j = 0; j < nj; j++) {
    TdJoint  *joint = &model->joints[j];
    PetscInt  b, type;
    PetscCall(PetscStrncpy(joint->name, joints[j], TD_NAME_LEN));
    PetscCall(TdOptionsEnum(joint->name, "type", "point: hold components of a material point; crank_slider: drive (formulation §4)", joint_types, 0, &type, NULL));
    joint->type = (TdJointType)type;
    PetscCall(ReadPoint(model, joint->name, "joint", &b, &joint->point));
    if (joint->type == TD_JOINT_POINT) {
      char    (*comps)[64];
      PetscInt ncomp;
      PetscCall(TdOptionsNameList(joint->name, "components", "held components of the point, a list of x,y,z (default all)", &ncomp, &comps));
      if (!ncomp) joint->component[0] = joint->component[1] = joint->component[2] = PETSC_TRUE;
      for (PetscInt c = 0; c < ncomp; c++) {
        if (!strcmp(comps[c], "x")) joint->component[0] = PETSC_TRUE;
        else if (!strcmp(comps[c], "y")) joint->component[1] = PETSC_TRUE;
        else if (!strcmp(comps[c], "z")) joint->component[2] = PETSC_TRUE;
        else SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -%s_components: unknown component '%s'; use x, y and z", joint->name, comps[c]);
      }
      PetscCall(PetscFree(comps));
    } else {
      PetscCall(TdOptionsRealPositive(joint->name, "crank_radius", "crank radius r", "m", 0.1, PETSC_TRUE, &joint->crank_radius, NULL));
      PetscCall(TdOptionsRealPositive(joint->name, "rod_ratio", "rod ratio lambda = r/l", NULL, 0.64, PETSC_TRUE, &joint->rod_ratio, NULL));
      PetscCall(TdOptionsReal(joint->name, "rpm", "crank speed", "r/min", 60, &joint->rpm, NULL));
      PetscCall(TdOptionsReal(joint->name, "theta0", "crank angle at t = 0", "deg", 90, &joint->theta0, NULL));
      PetscCall(TdOptionsReal(joint->name, "offset", "offset e of the slider line from the crank centre", "m", 0, &joint->offset, NULL));
      if (!TdOptionsHelpRequested() && !(joint->rod_ratio < 1 - PetscAbsReal(joint->offset) * joint->rod_ratio / joint->crank_radius))
        SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -%s_rod_ratio = %g: the rod must be longer than the crank (lambda = r/l < 1, including the offset)", joint->name, (double)joint->rod_ratio);
    }
    if (TdOptionsHelpRequested()) continue;
    if (model->bodies[b].type != TD_BODY_ANCF) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -%s_body: body '%s' is rigid; joints act on ancf bodies", joint->name, model->bodies[b].name);
    joint->first_row = model->nrows;
    if (joint->type == TD_JOINT_POINT) {
      for (PetscInt c = 0; c < 3; c++)
        if (joint->component[c]) PetscCall(AddRowFromPoint(model, &joint->point, c, j, 0, &model->rows[model->nrows++]));
    } else {
      /* x follows the crank; y held; yaw held: r_X(P) . e_y = reference value */
      PetscReal x, xd, xdd, Sloc[3][ANCF3843_NSHAPE], mix[3][ANCF3843_NSHAPE];
      TdBody   *body = &model->bodies[b];
      PetscInt  cell = joint->point.cell;
      const PetscReal *axes = &body->mesh.axes[9 * cell];
      TdConstraintRow *row;
      PetscCall(AddRowFromPoint(model, &joint->point, 0, j, 1, &model->rows[model->nrows++]));
      TdCrankSlider(joint, 0, &x, &xd, &xdd);
      joint->crank_center = joint->point.X[0] - x;
      PetscCall(AddRowFromPoint(model, &joint->point, 1, j, 0, &model->rows[model->nrows++]));
      ancf3843_shape_gradient(body->mesh.size[3 * cell], body->mesh.size[3 * cell + 1], body->mesh.size[3 * cell + 2], joint->point.xi, Sloc);
      for (PetscInt ax = 0; ax < 3; ax++) GlobalShape(axes, Sloc[ax], mix[ax]);
      row = &model->rows[model->nrows++];
      row->nterms = ANCF3843_NSHAPE;
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++) {
        /* d/dX_global = sum_I axes[ax][0] d/dX_I(local) */
        row->coef[k]  = axes[0] * mix[0][k] + axes[3] * mix[1][k] + axes[6] * mix[2][k];
        row->coord[k] = joint->point.coord[3 * k + 1];
      }
      row->joint = j;
      row->kind  = 0;
      row->b0    = 0;
      for (PetscInt k = 0; k < row->nterms; k++) row->b0 += row->coef[k] * model->q_ref[row->coord[k]];
      /* the driven body starts moving with its drive */
      body->initial_velocity[0] = xd;
    }
    joint->nrows = model->nrows - joint->first_row;
  }

  /* sensors */
  model->nsensors = ns;
  PetscCall(PetscCalloc1(PetscMax(ns, 1), &model->sensors));
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt b;
    PetscCall(PetscStrncpy(model->sensors[s].name, sensors[s], TD_NAME_LEN));
    PetscCall(ReadPoint(model, sensors[s], "sensor", &b, &model->sensors[s].point));
  }

  /* films: their pressures follow the free coordinates in U */
  PetscCall(TdFilmsCreateFromOptions(model, nf, films, model->nfree));
  model->nfilm_unknowns = 0;
  for (PetscInt f = 0; f < model->nfilms; f++) model->nfilm_unknowns += model->films[f].nunknowns;
  model->row_offset = model->nfree + model->nfilm_unknowns;
done:
  PetscCall(PetscFree(bodies));
  PetscCall(PetscFree(films));
  PetscCall(PetscFree(loads));
  PetscCall(PetscFree(joints));
  PetscCall(PetscFree(sensors));
  *out = model;
  PetscFunctionReturn(0);
}

PetscErrorCode TdModelDestroy(TdModel *model)
{
  TdModel m = *model;
  PetscFunctionBegin;
  if (!m) PetscFunctionReturn(0);
  for (PetscInt b = 0; b < m->nbodies; b++) {
    TdBody *body = &m->bodies[b];
    PetscCall(TdMeshDestroy(&body->mesh));
    PetscCall(PetscFree(body->geometry));
    PetscCall(PetscFree(body->cell_geometry));
    PetscCall(PetscFree(body->clamped));
  }
  for (PetscInt l = 0; l < m->nloads; l++)
    if (m->loads[l].ntable) PetscCall(PetscFree2(m->loads[l].table_t, m->loads[l].table_f));
  PetscCall(TdFilmsDestroy(m));
  PetscCall(PetscFree(m->bodies));
  PetscCall(PetscFree(m->loads));
  PetscCall(PetscFree(m->joints));
  PetscCall(PetscFree(m->sensors));
  PetscCall(PetscFree(m->rows));
  if (m->nfull) PetscCall(PetscFree2(m->free_index, m->q_ref));
  if (m->nelements) PetscCall(PetscFree2(m->element_body, m->element_cell));
  PetscCall(PetscFree(m));
  *model = NULL;
  PetscFunctionReturn(0);
}

PetscErrorCode TdModelView(TdModel model, PetscViewer viewer)
{
  PetscFunctionBegin;
  PetscCall(PetscViewerASCIIPrintf(viewer, "tribodyn model: %" PetscInt_FMT " bodies, %" PetscInt_FMT " elements, %" PetscInt_FMT " free coordinates, %" PetscInt_FMT " constraint rows, %" PetscInt_FMT " loads, %" PetscInt_FMT " sensors\n", model->nbodies, model->nelements, model->nfree, model->nrows, model->nloads, model->nsensors));
  for (PetscInt b = 0; b < model->nbodies; b++) {
    const TdBody *body = &model->bodies[b];
    PetscCall(PetscViewerASCIIPrintf(viewer, "  body %s: %s, %" PetscInt_FMT " cells, %" PetscInt_FMT " nodes, mass %g kg, E %g Pa, nu %g, rho %g kg/m^3\n", body->name, body->type == TD_BODY_ANCF ? "ancf" : "rigid", body->mesh.ncells, body->mesh.nnodes, (double)body->mass, (double)body->E, (double)body->nu, (double)body->rho));
  }
  PetscFunctionReturn(0);
}
