/*
  Sensors (model.h): named material points whose motion goes into the results (src/app/main.c),
  read from the options -<s>_body and -<s>_point.
*/
#include "model_private.h"

PetscErrorCode TdSensorsFromOptionsInternal(TdModel model, PetscInt ns, char (*names)[64])
{
  PetscFunctionBegin;
  model->nsensors = ns;
  PetscCall(PetscCalloc1(PetscMax(ns, 1), &model->sensors));
  for (PetscInt s = 0; s < ns; s++) {
    PetscInt b;
    PetscCall(PetscStrncpy(model->sensors[s].name, names[s], TD_NAME_LEN));
    PetscCall(TdModelReadPointInternal(model, names[s], "sensor", &b, &model->sensors[s].point));
  }
  PetscFunctionReturn(0);
}
