/*
  Redundant constraints (model.h, formulation.md (F22)): a closed loop of revolute joints in a
  plane, or Bricard's mechanism, repeats constraints, so the constraint Jacobian Phi_q has
  dependent rows and the Newton matrix [M Phi_q^T; Phi_q 0] is singular.  The rows are checked
  once, in the reference configuration, by Gram-Schmidt with a relative tolerance: a row whose
  part orthogonal to the rows kept before it is below 1e-8 of its norm repeats them and is left
  out (kind 7: its equation becomes lambda = 0, so the matrix keeps its size and pattern).  Being
  a consequence of the others there, it stays satisfied as the mechanism moves, as long as the
  dependence is structural (it is in those mechanisms); the run says which rows were left out.
*/
#include "model_private.h"

PetscErrorCode TdModelDropRedundantRowsInternal(TdModel model)
{
  const PetscInt n = model->nfree;
  PetscReal     *basis, *v, coef[TD_ROW_TERMS];
  PetscInt       nkept = 0, ndropped = 0;
  PetscFunctionBegin;
  if (!model->nrows || !n) PetscFunctionReturn(0);
  PetscCall(PetscMalloc2((size_t)model->nrows * n, &basis, n, &v));
  /* the free bodies' orthonormality rows first (never redundant among themselves), so that a
     repeated joint row is the one reported and left out */
  for (PetscInt rr = 0; rr < 2 * model->nrows; rr++) {
    const PetscInt   r   = rr % model->nrows;
    TdConstraintRow *row = &model->rows[r];
    PetscReal        norm0 = 0, norm = 0;
    if ((rr < model->nrows) != (row->joint < 0)) continue;
    PetscCall(PetscArrayzero(v, n));
    TdConstraintRowCoefficients(row, model->q_ref, coef);
    for (PetscInt t = 0; t < row->nterms; t++) {
      const PetscInt f = model->free_index[row->coord[t]];
      if (f >= 0) v[f] += coef[t];
    }
    for (PetscInt i = 0; i < n; i++) norm0 += v[i] * v[i];
    norm0 = PetscSqrtReal(norm0);
    if (norm0 == 0) continue; /* on clamped coordinates only: a constant row, left as it is */
    for (PetscInt pass = 0; pass < 2; pass++) /* twice: Gram-Schmidt's lost orthogonality */
      for (PetscInt k = 0; k < nkept; k++) {
        const PetscReal *b = &basis[(size_t)k * n];
        PetscReal        d = 0;
        for (PetscInt i = 0; i < n; i++) d += b[i] * v[i];
        for (PetscInt i = 0; i < n; i++) v[i] -= d * b[i];
      }
    for (PetscInt i = 0; i < n; i++) norm += v[i] * v[i];
    norm = PetscSqrtReal(norm);
    if (norm <= 1e-8 * norm0) {
      row->kind = 7;
      ndropped++;
      PetscCall(PetscPrintf(model->comm, "tribodyn: constraint row %" PetscInt_FMT " of joint '%s' repeats the others in the reference configuration (a redundant constraint); it is left out\n", r - (row->joint >= 0 ? model->joints[row->joint].first_row : 0), row->joint >= 0 ? model->joints[row->joint].name : "(a free body's axes)"));
      continue;
    }
    for (PetscInt i = 0; i < n; i++) basis[(size_t)nkept * n + i] = v[i] / norm;
    nkept++;
  }
  if (ndropped) PetscCall(PetscPrintf(model->comm, "tribodyn: %" PetscInt_FMT " redundant constraint rows left out of %" PetscInt_FMT "\n", ndropped, model->nrows));
  PetscCall(PetscFree2(basis, v));
  PetscFunctionReturn(0);
}
