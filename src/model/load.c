/*
  Point loads (model.h, formulation.md F1): read from the options (body, material point,
  force, time profile, measured force table) and their force at a time t.
*/
#include "model_private.h"
#include <tribodyn/options.h>
#include <errno.h>
#include <string.h>

static const char *const profile_types[] = {"constant", "ramp", "halfsine", "table", NULL};

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
    PetscInt  b, profile;
    PetscBool set;
    char      table[PETSC_MAX_PATH_LEN], opt[256];
    const PetscReal zero3[3] = {0, 0, 0};
    PetscCall(PetscStrncpy(load->name, names[l], TD_NAME_LEN));
    PetscCall(TdModelReadPointInternal(model, load->name, "load", &b, &load->point));
    PetscCall(TdOptionsRealArray(load->name, "force", "force vector fx,fy,fz (its peak for a pulse)", "N", 3, zero3, load->force, NULL));
    PetscCall(TdOptionsEnum(load->name, "profile", "time profile", profile_types, 0, &profile, NULL));
    load->profile = (TdProfileType)profile;
    PetscCall(TdOptionsReal(load->name, "start", "start of the ramp or pulse", "s", 0, &load->start, NULL));
    PetscCall(TdOptionsReal(load->name, "duration", "duration of the ramp or pulse", "s", 0, &load->duration, &set));
    PetscCall(TdOptionsString(load->name, "table", "measured force, CSV with columns time [s], force [N] (scales the direction of -<l>_force)", NULL, table, sizeof table, &set));
    if (TdOptionsHelpRequested()) continue;
    if ((load->profile == TD_PROFILE_RAMP || load->profile == TD_PROFILE_HALFSINE) && !(load->duration > 0))
      SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_duration = %g: a %s profile needs a positive duration", load->name, (double)load->duration, profile_types[profile]);
    if (model->bodies[b].type != TD_BODY_ANCF) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Option -%s_body: body '%s' is rigid (prescribed motion); loads act on ancf bodies", load->name, model->bodies[b].name);
    if (load->profile == TD_PROFILE_TABLE) {
      PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_table", load->name));
      if (!set) SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Load '%s' has profile table but no %s FILE.csv", load->name, opt);
      PetscCall(ReadTable(model, load, table, opt));
    }
  }
  PetscFunctionReturn(0);
}
