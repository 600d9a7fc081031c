/*
  The films' rows on several ranks: each rank's quads add into the rows of their nodes (the
  Reynolds rows F of formulation.md §2, F11), a node's quads may lie on two ranks, and the row's
  owner forms its cavitation branch from the whole sum (min(p - p_cav, F) for Swift-Stieber,
  residual.c).  So the partial rows go to the owners alone (a scatter adding, from each rank's
  quads' rows to the rows' owners), and what a rank needs back is only the branch of each row its
  quads fill (their Jacobian entries are cleared on the bound): one flag per row, from the owners
  (the same scatter reversed).  A pass sends from each rank only the rows of its strip's edge
  that another rank owns (the rest stay on the rank), instead of every film row to every rank
  (the sum over all ranks before).
*/
#include "solver_private.h"

PetscErrorCode TdSolverFilmRowsSetUp(TdSolver s)
{
  TdModel     m = s->model;
  PetscMPIInt size;
  char       *mark;
  PetscInt   *petsc_index, n = 0, nsend = 0;
  IS          to;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  if (size == 1 || !m->nfilms) PetscFunctionReturn(0);
  /* the rows of this rank's quads' nodes: pressures, and JFO's film fractions */
  PetscCall(PetscCalloc1(s->N, &mark));
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm *f = &m->films[fi];
    for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++)
      for (PetscInt i = 0; i < 4; i++) {
        const PetscInt nd = f->surface.quads[4 * qd + i];
        if (f->unknown[nd] >= 0) mark[f->unknown[nd]] = 1;
        if (f->theta_unknown && f->theta_unknown[nd] >= 0) mark[f->theta_unknown[nd]] = 1;
      }
  }
  for (PetscInt i = 0; i < s->N; i++) n += mark[i];
  s->nfilm_quad_rows = n;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &s->film_quad_rows));
  PetscCall(PetscMalloc1(PetscMax(n, 1), &petsc_index));
  for (PetscInt i = 0, k = 0; i < s->N; i++)
    if (mark[i]) {
      s->film_quad_rows[k]  = i;
      petsc_index[k++] = s->to_petsc[i];
      nsend += !TdSolverRowMine(s, i);
    }
  PetscCall(PetscFree(mark));
  PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &s->film_quad_rows_seq));
  PetscCall(VecDuplicate(s->U, &s->film_rows_at_owners));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, petsc_index, PETSC_OWN_POINTER, &to));
  PetscCall(VecScatterCreate(s->film_quad_rows_seq, NULL, s->film_rows_at_owners, to, &s->film_quad_rows_sc));
  PetscCall(ISDestroy(&to));
  PetscCall(PetscInfo(NULL, "film rows: this rank's quads fill %" PetscInt_FMT " rows, %" PetscInt_FMT " of them owned by other ranks, which receive them at each film pass\n", n, nsend));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmRowsToOwners(TdSolver s, PetscScalar r[])
{
  TdModel            m = s->model;
  PetscScalar       *x;
  const PetscScalar *g;
  PetscFunctionBegin;
  PetscCall(VecGetArray(s->film_quad_rows_seq, &x));
  for (PetscInt k = 0; k < s->nfilm_quad_rows; k++) x[k] = r[s->film_quad_rows[k]];
  PetscCall(VecRestoreArray(s->film_quad_rows_seq, &x));
  PetscCall(VecZeroEntries(s->film_rows_at_owners));
  PetscCall(VecScatterBegin(s->film_quad_rows_sc, s->film_quad_rows_seq, s->film_rows_at_owners, ADD_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(s->film_quad_rows_sc, s->film_quad_rows_seq, s->film_rows_at_owners, ADD_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(s->film_rows_at_owners, &g));
  for (PetscInt k = m->nfree; k < m->row_offset; k++) r[k] = TdSolverRowMine(s, k) ? g[s->to_petsc[k] - s->own_lo] : 0;
  PetscCall(VecRestoreArrayRead(s->film_rows_at_owners, &g));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmFlagsFromOwners(TdSolver s, PetscBool active[])
{
  TdModel            m = s->model;
  PetscScalar       *g;
  const PetscScalar *x;
  PetscFunctionBegin;
  PetscCall(VecGetArray(s->film_rows_at_owners, &g));
  for (PetscInt k = m->nfree; k < m->row_offset; k++)
    if (TdSolverRowMine(s, k)) g[s->to_petsc[k] - s->own_lo] = active[k] ? 1 : 0;
  PetscCall(VecRestoreArray(s->film_rows_at_owners, &g));
  PetscCall(VecScatterBegin(s->film_quad_rows_sc, s->film_rows_at_owners, s->film_quad_rows_seq, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(s->film_quad_rows_sc, s->film_rows_at_owners, s->film_quad_rows_seq, INSERT_VALUES, SCATTER_REVERSE));
  PetscCall(VecGetArrayRead(s->film_quad_rows_seq, &x));
  for (PetscInt k = 0; k < s->nfilm_quad_rows; k++) active[s->film_quad_rows[k]] = PetscRealPart(x[k]) != 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(VecRestoreArrayRead(s->film_quad_rows_seq, &x));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmRowsDestroy(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(VecScatterDestroy(&s->film_quad_rows_sc));
  PetscCall(VecDestroy(&s->film_quad_rows_seq));
  PetscCall(VecDestroy(&s->film_rows_at_owners));
  PetscCall(PetscFree(s->film_quad_rows));
  s->nfilm_quad_rows = 0;
  PetscFunctionReturn(0);
}
