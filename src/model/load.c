/*
  Loads (model.h): point forces at a material point (formulation.md F1), follower pressures on
  a face (F16), linear spring-dampers between two points (F17) and torques at a material point
  (F19), read from the options (type, body and point or face, force or pressure, time
  profile, measured table), their value at a time t, and the element-by-element index of the
  loaded faces that the residual and Jacobian loops read.
*/
#include "model_private.h"
#include <tribodyn/vec3.h>
#include <tribodyn/options.h>
#include <errno.h>
#include <string.h>

static const char *const profile_types[] = {"constant", "ramp", "halfsine", "table", "harmonic", NULL};
static const char *const load_types[]    = {"point", "pressure", "spring", "torque", "traction", NULL};

/* the load's peak value whose direction or sign the table's values scale */
static PetscReal PeakValue(const TdLoad *load)
{
  if (load->type == TD_LOAD_PRESSURE) return load->pressure;
  return PetscSqrtReal(load->force[0] * load->force[0] + load->force[1] * load->force[1] + load->force[2] * load->force[2]);
}

/* Time factor of a load at time t: its profile (ramp, half-sine, harmonic, table / peak value). */
static PetscReal TdLoadFactor(const TdLoad *load, PetscReal t)
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
  case TD_PROFILE_HARMONIC: /* sin(2 pi f tau + phase), brought in linearly over the duration */
    s = tau <= 0 ? 0 : PetscSinReal(2 * PETSC_PI * load->frequency * tau + load->phase * PETSC_PI / 180) * (load->duration > 0 && tau < load->duration ? tau / load->duration : 1);
    break;
  case TD_PROFILE_TABLE: {
    /* linear interpolation of the measured force (or pressure); zero outside the table */
    const PetscReal norm = PeakValue(load);
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
  return s;
}

void TdLoadForce(const TdLoad *load, PetscReal t, PetscReal f[3])
{
  const PetscReal s = TdLoadFactor(load, t);
  for (PetscInt i = 0; i < 3; i++) f[i] = s * load->force[i];
}

PetscReal TdLoadPressure(const TdLoad *load, PetscReal t)
{
  return TdLoadFactor(load, t) * load->pressure;
}

/* -<l>_face B:group: the body and its face set (ANCF bodies only). */
static PetscErrorCode ReadFace(TdModel model, TdLoad *load)
{
  char      value[256], opt[128], *colon;
  PetscBool set;
  PetscInt  b;
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_face", load->name));
  PetscCall(TdOptionsString(load->name, "face", "pressure, traction: the loaded face body:face (a box face xmin..zmax, or a 2-D physical group of the body's mesh)", NULL, value, sizeof value, &set));
  if (TdOptionsHelpRequested() && !set) PetscFunctionReturn(0);
  if (!set) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Load '%s' is a %s but has no face: set %s body:face (e.g. guide:zmax)", load->name, load->type == TD_LOAD_TRACTION ? "traction" : "pressure", opt);
  colon = strchr(value, ':');
  if (!colon) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s = '%s': write the face as body:face, e.g. guide:zmax", opt, value);
  *colon = 0;
  PetscCall(TdModelFindBodyInternal(model, value, opt, &b));
  if (model->bodies[b].type != TD_BODY_ANCF) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' is rigid; pressure and traction loads act on ancf bodies", opt, value);
  load->body = b;
  PetscCall(TdModelFindFaceSetInternal(model, b, colon + 1, opt, &load->face));
  load->area = 0;
  for (PetscInt k = 0; k < load->face->nfaces; k++) {
    const PetscInt   cell = load->face->faces[k].cell, fix = load->face->faces[k].face / 2;
    const TdMesh    *mesh = &model->bodies[b].mesh;
    const PetscReal *L    = &mesh->size[3 * cell];
    if (mesh->curved) { /* the corners' quadrilateral: half the cross product of its diagonals */
      PetscInt  cn[4];
      PetscReal d1[3], d2[3], n[3];
      TdMeshFaceCorners(load->face->faces[k].face, cn);
      for (PetscInt i = 0; i < 3; i++) {
        d1[i] = mesh->X[3 * mesh->cells[8 * cell + cn[2]] + i] - mesh->X[3 * mesh->cells[8 * cell + cn[0]] + i];
        d2[i] = mesh->X[3 * mesh->cells[8 * cell + cn[3]] + i] - mesh->X[3 * mesh->cells[8 * cell + cn[1]] + i];
      }
      vec3_cross(d1, d2, n);
      load->area += 0.5 * vec3_norm(n);
    } else load->area += L[0] * L[1] * L[2] / L[fix];
  }
  PetscFunctionReturn(0);
}

/* A spring's second end: -<l>_body2 B (or ground) and -<l>_point2 x,y,z; its stiffness, damping
   and rest length (default: the ends' distance in the reference configuration). */
static PetscErrorCode ReadSpring(TdModel model, TdLoad *load)
{
  char      bname[TD_NAME_LEN] = "ground", opt[256];
  PetscReal X[3] = {0, 0, 0}, xa[3], xb[3], d = 0;
  PetscBool set, lset;
  PetscFunctionBegin;
  PetscCall(TdOptionsString(load->name, "body2", "spring: body of the second end, or ground (a point fixed in space)", "ground", bname, sizeof bname, NULL));
  PetscCall(TdOptionsRealArray(load->name, "point2", "spring: the second end (reference coordinates, or the fixed point for ground)", "m", 3, NULL, X, &set));
  PetscCall(TdOptionsRealPositive(load->name, "stiffness", "spring: stiffness k", "N/m", 0, PETSC_FALSE, &load->stiffness, NULL));
  PetscCall(TdOptionsRealPositive(load->name, "damping", "spring: damping coefficient c (on the rate of the length)", "N s/m", 0, PETSC_FALSE, &load->damping, NULL));
  PetscCall(TdOptionsReal(load->name, "length", "spring: rest length (default: the ends' distance in the reference configuration)", "m", 0, &load->length, &lset));
  if (TdOptionsHelpRequested()) PetscFunctionReturn(0);
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_point2", load->name));
  if (!set) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "The spring '%s' has no second end: set %s x,y,z (and -%s_body2 B, or ground)", load->name, opt, load->name);
  load->body2 = -1;
  if (strcmp(bname, "ground")) {
    PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_body2", load->name));
    PetscCall(TdModelFindBodyInternal(model, bname, opt, &load->body2));
    if (model->bodies[load->body2].type == TD_BODY_RIGID) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_body2: body '%s' is rigid (prescribed motion); springs connect ancf bodies, free rigid bodies or ground", load->name, bname);
    PetscCall(PetscSNPrintf(opt, sizeof opt, "Option -%s_point2 of spring '%s'", load->name, load->name));
    PetscCall(TdModelMaterialPoint(model, load->body2, X, opt, &load->point2));
  } else
    for (PetscInt i = 0; i < 3; i++) load->ground[i] = X[i];
  TdModelPointValue(model, &load->point, model->q_ref, xa);
  if (load->body2 >= 0) TdModelPointValue(model, &load->point2, model->q_ref, xb);
  else
    for (PetscInt i = 0; i < 3; i++) xb[i] = load->ground[i];
  for (PetscInt i = 0; i < 3; i++) d += (xb[i] - xa[i]) * (xb[i] - xa[i]);
  d = PetscSqrtReal(d);
  /* coincident within rounding (a point's position is a sum of shape functions) */
  if (!(d > 1e-9 * model->bodies[load->point.body].size)) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Spring '%s': its two ends coincide in the reference configuration; a spring needs a direction (move -%s_point2)", load->name, load->name);
  if (!lset) load->length = d;
  if (load->length < 0) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_length = %g: a rest length must not be negative", load->name, (double)load->length);
  PetscFunctionReturn(0);
}

/* The element-by-element index of the pressure and traction loads' faces (model.h element_load_offset). */
static PetscErrorCode IndexElementLoads(TdModel model)
{
  PetscInt n = 0, *count;
  PetscFunctionBegin;
  for (PetscInt l = 0; l < model->nloads; l++)
    if ((model->loads[l].type == TD_LOAD_PRESSURE || model->loads[l].type == TD_LOAD_TRACTION) && model->loads[l].face) n += model->loads[l].face->nfaces;
  if (!n) PetscFunctionReturn(0);
  PetscCall(PetscCalloc1(model->nelements + 1, &model->element_load_offset));
  PetscCall(PetscMalloc1(n, &model->element_loads));
  PetscCall(PetscCalloc1(model->nelements, &count));
  for (PetscInt l = 0; l < model->nloads; l++) {
    const TdLoad *load = &model->loads[l];
    if ((load->type != TD_LOAD_PRESSURE && load->type != TD_LOAD_TRACTION) || !load->face) continue;
    for (PetscInt k = 0; k < load->face->nfaces; k++) model->element_load_offset[model->bodies[load->body].element_offset + load->face->faces[k].cell + 1]++;
  }
  for (PetscInt e = 0; e < model->nelements; e++) model->element_load_offset[e + 1] += model->element_load_offset[e];
  for (PetscInt l = 0; l < model->nloads; l++) {
    const TdLoad *load = &model->loads[l];
    if ((load->type != TD_LOAD_PRESSURE && load->type != TD_LOAD_TRACTION) || !load->face) continue;
    for (PetscInt k = 0; k < load->face->nfaces; k++) {
      const PetscInt e = model->bodies[load->body].element_offset + load->face->faces[k].cell;
      TdElementLoad *el = &model->element_loads[model->element_load_offset[e] + count[e]++];
      el->load          = l;
      el->face          = load->face->faces[k].face;
      if (load->type == TD_LOAD_TRACTION) { /* its dead load's table, once (F16b) */
        const PetscReal *size = &model->bodies[load->body].mesh.size[3 * load->face->faces[k].cell];
        PetscReal        e0[ANCF3843_NDOF];
        TdModelElementGather(model, e, model->q_ref, PETSC_TRUE, e0);
        ancf3843_face_shape_area(size[0], size[1], size[2], (int)el->face, e0, el->shape_area);
      }
    }
  }
  PetscCall(PetscFree(count));
  PetscFunctionReturn(0);
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

PetscErrorCode TdLoadsFromOptionsInternal(TdModel model, PetscInt nl, char (*names)[64])
{
  PetscFunctionBegin;
  model->nloads = nl;
  PetscCall(PetscCalloc1(PetscMax(nl, 1), &model->loads));
  for (PetscInt l = 0; l < nl; l++) {
    TdLoad   *load = &model->loads[l];
    PetscInt  b = -1, profile, type;
    PetscBool set;
    char      table[PETSC_MAX_PATH_LEN], opt[256];
    const PetscReal zero3[3] = {0, 0, 0};
    PetscCall(PetscStrncpy(load->name, names[l], TD_NAME_LEN));
    PetscCall(TdOptionsEnum(load->name, "type", "point (a force at a material point), pressure (a follower pressure on a face), spring (a spring-damper between two points), torque (a moment at a material point) or traction (a force per reference area on a face, fixed in direction)", load_types, 0, &type, NULL));
    load->type = (TdLoadType)type;
    const PetscBool on_face = load->type == TD_LOAD_PRESSURE || load->type == TD_LOAD_TRACTION ? PETSC_TRUE : PETSC_FALSE;
    if (!on_face || TdOptionsHelpRequested()) PetscCall(TdModelReadPointInternal(model, load->name, "load", &b, &load->point));
    if (load->type == TD_LOAD_POINT || TdOptionsHelpRequested()) PetscCall(TdOptionsRealArray(load->name, "force", "point: force vector fx,fy,fz (its peak for a pulse)", "N", 3, zero3, load->force, NULL));
    /* a torque's moment is kept in force[]: the profiles and tables scale it alike */
    if (load->type == TD_LOAD_TORQUE || TdOptionsHelpRequested()) PetscCall(TdOptionsRealArray(load->name, "torque", "torque: moment mx,my,mz about the global axes, applied through the gradients at the material point (its peak for a pulse)", "N m", 3, zero3, load->force, NULL));
    if (load->type == TD_LOAD_SPRING || TdOptionsHelpRequested()) PetscCall(ReadSpring(model, load));
    if (load->type == TD_LOAD_TRACTION || TdOptionsHelpRequested()) PetscCall(TdOptionsRealArray(load->name, "traction", "traction: force per unit reference area on the face, fixed in direction (a dead load, formulation (F16b); its peak for a pulse)", "Pa", 3, zero3, load->force, NULL));
    if (on_face && !TdOptionsHelpRequested()) PetscCall(ReadFace(model, load));
    if (load->type == TD_LOAD_PRESSURE || TdOptionsHelpRequested()) {
      if (TdOptionsHelpRequested()) PetscCall(ReadFace(model, load));
      PetscCall(TdOptionsReal(load->name, "pressure", "pressure: pressure on the face, pushing against its outward normal and following the deformed face (its peak for a pulse)", "Pa", 0, &load->pressure, NULL));
    }
    PetscCall(TdOptionsEnum(load->name, "profile", "time profile", profile_types, 0, &profile, NULL));
    load->profile = (TdProfileType)profile;
    PetscCall(TdOptionsReal(load->name, "start", "start of the ramp or pulse", "s", 0, &load->start, NULL));
    PetscCall(TdOptionsReal(load->name, "duration", "duration of the ramp or pulse (harmonic: of its linear ramp-in, 0 for none)", "s", 0, &load->duration, &set));
    PetscCall(TdOptionsReal(load->name, "frequency", "harmonic: frequency f of sin(2 pi f (t - start) + phase)", "Hz", 0, &load->frequency, NULL));
    PetscCall(TdOptionsReal(load->name, "phase", "harmonic: phase at the start", "deg", 0, &load->phase, NULL));
    PetscCall(TdOptionsString(load->name, "table", "measured force, CSV with columns time [s], force [N] (scales the direction of -<l>_force or -<l>_torque); for a pressure: time [s], pressure [Pa]", NULL, table, sizeof table, &set));
    if (TdOptionsHelpRequested()) continue;
    if (load->type == TD_LOAD_SPRING && load->profile != TD_PROFILE_CONSTANT)
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_profile %s: '%s' is a spring, whose force follows its length and rate; springs have no time profile (remove -%s_profile)", load->name, profile_types[profile], load->name, load->name);
    if ((load->profile == TD_PROFILE_RAMP || load->profile == TD_PROFILE_HALFSINE) && !(load->duration > 0))
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_duration = %g: a %s profile needs a positive duration", load->name, (double)load->duration, profile_types[profile]);
    if (load->profile == TD_PROFILE_HARMONIC && !(load->frequency > 0))
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_frequency = %g Hz: a harmonic profile needs a positive frequency", load->name, (double)load->frequency);
    if (!on_face && model->bodies[b].type == TD_BODY_RIGID) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_body: body '%s' is rigid (prescribed motion); loads act on ancf bodies and free rigid bodies (-<b>_motion free)", load->name, model->bodies[b].name);
    if (load->profile == TD_PROFILE_TABLE && PeakValue(load) == 0)
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Load '%s' has profile table but a zero %s: the table's values scale it", load->name, load->type == TD_LOAD_PRESSURE ? "-pressure (give the sign and a reference value, e.g. 1)" : (load->type == TD_LOAD_TORQUE ? "-torque (give the axis)" : (load->type == TD_LOAD_TRACTION ? "-traction (give the direction)" : "-force (give the direction)")));
    if (load->profile == TD_PROFILE_TABLE) {
      PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_table", load->name));
      if (!set) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Load '%s' has profile table but no %s FILE.csv", load->name, opt);
      PetscCall(ReadTable(model, load, table, opt));
    }
  }
  if (!TdOptionsHelpRequested()) PetscCall(IndexElementLoads(model));
  PetscFunctionReturn(0);
}

PetscErrorCode TdLoadReadTableInternal(TdModel model, TdLoad *load, const char path[], const char option[])
{
  PetscFunctionBegin;
  PetscCall(ReadTable(model, load, path, option));
  PetscFunctionReturn(0);
}
