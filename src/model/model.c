/*
  Building the model from the options database, with validation of every input (model.h): the
  lists of names, their uniqueness, then bodies (body_ancf.c, body_rigid.c), loads (load.c),
  joints (joint.c), sensors (sensor.c) and films (film.c), in this order, which is the order of
  the options in -help.  Destruction and a summary view of the model.
*/
#include "model_private.h"
#include <tribodyn/options.h>

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

  /* bodies, then the coordinates of their ANCF nodes, which loads, joints and sensors use */
  PetscCall(TdBodiesFromOptionsInternal(model, nb, bodies));
  if (TdOptionsHelpRequested() && nb == 0) goto done;
  PetscCall(TdBodiesNumberCoordinatesInternal(model));
  PetscCall(TdLoadsFromOptionsInternal(model, nl, loads));
  PetscCall(TdJointsFromOptionsInternal(model, nj, joints));
  PetscCall(TdSensorsFromOptionsInternal(model, ns, sensors));
  if (!TdOptionsHelpRequested()) PetscCall(TdModelDropRedundantRowsInternal(model));

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
    PetscCall(PetscFree(body->cell_class));
    PetscCall(PetscFree(body->clamped));
  }
  for (PetscInt l = 0; l < m->nloads; l++)
    if (m->loads[l].ntable) PetscCall(PetscFree2(m->loads[l].table_t, m->loads[l].table_f));
  PetscCall(PetscFree(m->element_load_offset));
  PetscCall(PetscFree(m->element_loads));
  PetscCall(TdFilmsDestroy(m));
  PetscCall(PetscFree(m->bodies));
  PetscCall(PetscFree(m->loads));
  for (PetscInt j = 0; j < m->njoints; j++)
    if (m->joints[j].motor_profile.ntable) PetscCall(PetscFree2(m->joints[j].motor_profile.table_t, m->joints[j].motor_profile.table_f));
  PetscCall(PetscFree(m->joints));
  PetscCall(PetscFree(m->sensors));
  for (PetscInt r = 0; r < m->nrows; r++) {
    PetscCall(PetscFree(m->rows[r].form[0]));
    PetscCall(PetscFree(m->rows[r].form[1]));
    PetscCall(PetscFree(m->rows[r].form[2]));
  }
  PetscCall(PetscFree(m->rows));
  if (m->nfull) PetscCall(PetscFree2(m->free_index, m->q_ref));
  if (m->nelements) PetscCall(PetscFree2(m->element_body, m->element_cell));
  PetscCall(PetscFree(m->given_element_rank));
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
    PetscCall(PetscViewerASCIIPrintf(viewer, "  body %s: %s, %" PetscInt_FMT " cells, %" PetscInt_FMT " nodes, mass %g kg, E %g Pa, nu %g, rho %g kg/m^3\n", body->name, body->type == TD_BODY_ANCF ? "ancf" : (body->type == TD_BODY_FREE ? "free rigid" : "rigid"), body->mesh.ncells, body->mesh.nnodes, (double)body->mass, (double)body->E, (double)body->nu, (double)body->rho));
  }
  PetscFunctionReturn(0);
}
