/*
  Which entries of the Newton iterate each rank receives (its ghost set), and the exchanges of
  the iterate and of the residual that follow from it.

  A rank reads, in a residual or a Jacobian, only the unknowns of what it assembles: the
  coordinates of its elements, the faces its film quads' points meet and the pressures (and
  film fractions) of those quads' nodes, the unknowns of the film rows it owns (it forms their
  cavitation branches, residual.c), and on rank 0 those of the joints, loads and free bodies.  It
  writes residual entries only there too.  So the iterate goes to each rank's ghost set alone
  (the forward scatter), and the residual comes back from it alone (the reverse scatter,
  adding): each rank sends and receives the entries it shares with others, not the whole
  vector.  The entries of Useq outside the set hold an older iterate; whatever needs the whole
  state (the step's end, the output, checkpoints) asks for it (TdSolverIterateScatter with
  whole).

  The set is every row and column of the rank's Jacobian pattern (its elements' blocks, its
  quads' film and coupling blocks, the cavitation rows it owns, rank 0's joints, loads and free
  bodies), in the natural numbering, and besides: the unknowns it owns (its own part of U: no
  exchange), the whole elements of the faces in its film coupling pattern, the free bodies of its
  films' cylinder surfaces, rank 0's dead point loads (rows without Jacobian entries), and the
  faces its quads' points hit last with -state_ghosts_rings rings of faces around them (a point's
  next search starts at its last face, then tries the faces around it).  It is made with each
  Jacobian pattern (TdSolverBuildJacobian) and again at a step's start when the points have
  moved onto other faces.  A film point whose search comes to a face outside the set gives up
  (model.h's readable_element); every rank then takes the films' whole surfaces and assembles
  again (TdSolverResidual, TdSolverJacobian), until the next step.

  The residual's and the Jacobian's loops over the full-coordinate arrays visit the set's
  coordinates alone (and the clamped ones), as runs (ghost_run, TdSolverIterateRuns).

  -state_ghosts_check fills the entries outside the set with NaN before every residual and
  Jacobian, and stops if a residual entry outside it is nonzero: whatever reads or writes
  outside the set then fails the run instead of using an older iterate.  Under the check those
  loops visit every coordinate, so that such a read or write reaches the unknowns it checks.
*/
#include <math.h>
#include <petsc/private/petscimpl.h> /* PetscObjectStateGet */
#include "solver_private.h"
#include <string.h>
#include <tribodyn/output.h>

static void Mark(PetscInt N, char mark[], PetscInt i)
{
  if (i >= 0 && i < N) mark[i] = 1;
}

static void MarkElement(TdSolver s, char mark[], PetscInt e)
{
  PetscInt coord[ANCF3843_NDOF];
  TdModelElementCoordinates(s->model, e, coord);
  for (PetscInt i = 0; i < ANCF3843_NDOF; i++) Mark(s->N, mark, s->model->free_index[coord[i]]);
}

static void MarkSurface(TdSolver s, char mark[], const TdFilmSurface *surf)
{
  const TdModel m    = s->model;
  const TdBody *body = &m->bodies[surf->body];
  if (surf->kind == TD_FACE_ANCF) {
    const TdMeshSet *set = (const TdMeshSet *)surf->set;
    for (PetscInt fi = 0; fi < set->nfaces; fi++) MarkElement(s, mark, body->element_offset + set->faces[fi].cell);
  } else if (surf->kind == TD_FACE_FREE_CYLINDER)
    for (PetscInt i = 0; i < 12; i++) Mark(s->N, mark, m->free_index[TD_NODE_DOF * body->node_offset + i]);
}

PetscErrorCode TdSolverGhostsSetUp(TdSolver s, PetscCount ncoo, const PetscInt ci[], const PetscInt cj[])
{
  TdModel     m = s->model;
  PetscMPIInt size, rank;
  char       *mark;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  if (size == 1 || !s->state_ghosts) PetscFunctionReturn(0);
  if (!s->ghost_base) PetscCall(PetscMalloc2(s->N, &s->ghost_base, PetscMax(m->nelements, 1), &s->readable_element));
  s->ghost_hits_valid = PETSC_FALSE; /* a new base: the set is made anew */
  mark = s->ghost_base;
  PetscCall(PetscArrayzero(mark, s->N));
  for (PetscCount k = 0; k < ncoo; k++) {
    Mark(s->N, mark, ci[k]);
    Mark(s->N, mark, cj[k]);
  }
  for (PetscInt le = 0; le < s->nelem_local; le++) MarkElement(s, mark, s->elem_local[le]);
  /* the faces of this rank's coupling pattern (its quads' pairs now and, for a driven film, ahead):
     whole elements, which the projections read */
  for (PetscInt c = 0; c < m->ncoupling_qq; c++) {
    MarkElement(s, mark, (PetscInt)(m->coupling_qq[c] >> 32) / 8);
    MarkElement(s, mark, (PetscInt)(m->coupling_qq[c] & 0xffffffff) / 8);
  }
  /* the unknowns it owns (no exchange: they are its own part of U), and the pressure beside each
     film fraction it owns (its row min(p - p_cav, 1 - theta), F18); the film's other unknowns
     only where its quads are (in the pattern) */
  for (PetscInt k = 0; k < s->nowned; k++) mark[s->owned[k]] = 1;
  for (PetscInt i = 0; i < s->njfo; i++)
    if (TdSolverRowMine(s, s->jfo_theta[i])) mark[s->jfo_p[i]] = 1;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm *f = &m->films[fi];
    if (f->quad_end <= f->quad_start) continue;
    for (PetscInt a = 0; a < 2; a++) {
      const TdFilmSurface *surf = a ? &f->base : &f->wall;
      if (surf->kind == TD_FACE_FREE_CYLINDER) MarkSurface(s, mark, surf);
    }
  }
  if (rank == 0) {
    for (PetscInt i = m->row_offset; i < s->N; i++) mark[i] = 1;
    for (PetscInt l = 0; l < m->nloads; l++)
      if (m->loads[l].type == TD_LOAD_POINT)
        for (PetscInt i = 0; i < ANCF3843_NDOF; i++)
          if (m->loads[l].point.coord[i] >= 0) Mark(s->N, mark, m->free_index[m->loads[l].point.coord[i]]);
    /* the sensors, which rank 0 writes at every record from its state */
    for (PetscInt k = 0; k < m->nsensors; k++)
      for (PetscInt i = 0; i < ANCF3843_NDOF; i++)
        if (m->sensors[k].point.coord[i] >= 0) Mark(s->N, mark, m->free_index[m->sensors[k].point.coord[i]]);
  }
  PetscCall(TdSolverGhostsUpdate(s, PETSC_FALSE));
  PetscFunctionReturn(0);
}

/* The scatter of U into Useq's layout at the marked natural unknowns (mark[0..N)): their list,
   ascending, in *list (length *n), and in *nrecv (may be NULL) how many of them other ranks own.
   Used for the ghost sets and for the field records' node positions. */
static PetscErrorCode ScatterToMarked(TdSolver s, const char mark[], PetscInt *n, PetscInt **list, PetscInt *nrecv, VecScatter *sc)
{
  PetscInt *petsc_index, lo, hi, k = 0, recv = 0;
  IS        from, to;
  PetscFunctionBegin;
  *n = 0;
  for (PetscInt i = 0; i < s->N; i++) *n += mark[i];
  PetscCall(PetscMalloc1(PetscMax(*n, 1), list));
  PetscCall(PetscMalloc1(PetscMax(*n, 1), &petsc_index));
  PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
  for (PetscInt i = 0; i < s->N; i++)
    if (mark[i]) {
      (*list)[k]       = i;
      petsc_index[k++] = s->to_petsc[i];
      recv += s->to_petsc[i] < lo || s->to_petsc[i] >= hi;
    }
  if (nrecv) *nrecv = recv;
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, *n, petsc_index, PETSC_OWN_POINTER, &from));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, *n, *list, PETSC_USE_POINTER, &to));
  PetscCall(VecScatterCreate(s->U, from, s->Useq, to, sc));
  PetscCall(ISDestroy(&from));
  PetscCall(ISDestroy(&to));
  PetscFunctionReturn(0);
}

/* The faces of each film surface that this rank's points (its quads' Gauss points, and its output
   nodes) hit last, as flags over the surface's faces, concatenated over the films' ANCF surfaces
   (wall, base) in s->ghost_hits[1]; *same: whether they equal the flags of the last update
   (s->ghost_hits[0]).  O(this rank's points + the surfaces' faces), not O(N). */
static PetscErrorCode GhostHitFaces(TdSolver s, PetscBool *same)
{
  TdModel  m   = s->model;
  PetscInt len = 0, off = 0;
  PetscFunctionBegin;
  for (PetscInt fi = 0; fi < m->nfilms; fi++)
    for (PetscInt a = 0; a < 2; a++) {
      const TdFilmSurface *surf = a ? &m->films[fi].base : &m->films[fi].wall;
      if (surf->kind == TD_FACE_ANCF) len += ((const TdMeshSet *)surf->set)->nfaces;
    }
  if (!s->ghost_hits[0]) {
    PetscCall(PetscCalloc2(PetscMax(len, 1), &s->ghost_hits[0], PetscMax(len, 1), &s->ghost_hits[1]));
    s->ghost_hits_valid = PETSC_FALSE;
  }
  PetscCall(PetscArrayzero(s->ghost_hits[1], len));
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm  *f  = &m->films[fi];
    const PetscInt n0 = f->node_start, n1 = s->ghost_output_nodes ? f->node_end : n0;
    for (PetscInt a = 0; a < 2; a++) {
      const TdFilmSurface *surf = a ? &f->base : &f->wall;
      char                *hit  = &s->ghost_hits[1][off];
      if (surf->kind != TD_FACE_ANCF) continue;
      off += ((const TdMeshSet *)surf->set)->nfaces;
      for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++)
        for (PetscInt gp = 0; gp < 4; gp++) {
          const PetscInt face = TdFilmHits(f, qd)[4 * a + gp].face;
          if (face >= 0) hit[face] = 1;
        }
      for (PetscInt nd = n0; nd < n1; nd++)
        if (TdFilmNodeHits(f, nd)[a].face >= 0) hit[TdFilmNodeHits(f, nd)[a].face] = 1;
    }
  }
  *same = s->ghost_hits_valid && !memcmp(s->ghost_hits[0], s->ghost_hits[1], (size_t)len) ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscArraycpy(s->ghost_hits[0], s->ghost_hits[1], len));
  PetscFunctionReturn(0);
}

/* The ghost set of the base (ghost_base) and the films' faces: wide, every face of the ANCF
   surfaces of a film with quads on this rank; else the faces the quads' points hit last and
   -state_ghosts_rings rings of faces around them (a point's next search starts at its last face,
   then tries the faces around it).  The film nodes whose fields this rank writes at each record
   (TdOutputPartRange) count as its points too: their unknowns, and the faces they hit last (a
   node's first search starts on the faces of a quad around it, set with the film). */
PetscErrorCode TdSolverGhostsUpdate(TdSolver s, PetscBool wide)
{
  TdModel     m = s->model;
  char       *mark, *near, *ring;
  PetscBool   changed = PETSC_FALSE, same;
  PetscInt    nrecv = 0, n = 0, off = 0;
  PetscFunctionBegin;
  if (!s->ghost_base) PetscFunctionReturn(0);
  /* The set follows from its base and the faces the points hit last (with their rings): while
     no rank's points have reached another face, nothing changes (most steps), and the set is
     not marked anew over all N unknowns.  A wide set (the films' whole surfaces) is made anew,
     and so is the next one after it. */
  PetscCall(GhostHitFaces(s, &same));
  if (wide) same = PETSC_FALSE;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPIU_BOOL, MPI_LAND, s->comm));
  s->ghost_hits_valid = !wide;
  s->ghost_calls++;
  if (same && !s->ghost_check) PetscFunctionReturn(0); /* the check makes the set anyway and compares */
  s->ghost_marked++;
  PetscCall(PetscMalloc1(s->N, &mark));
  PetscCall(PetscArraycpy(mark, s->ghost_base, s->N));
  /* the faces' elements first (near; a quad's points and their neighbours mostly share a few),
     then their unknowns */
  PetscCall(PetscCalloc1(PetscMax(m->nelements, 1), &near));
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm *f = &m->films[fi];
    const PetscInt n0 = f->node_start, n1 = s->ghost_output_nodes ? f->node_end : n0;
    for (PetscInt nd = n0; nd < n1; nd++) {
      if (f->unknown && f->unknown[nd] >= 0) mark[f->unknown[nd]] = 1;
      if (f->theta_unknown && f->theta_unknown[nd] >= 0) mark[f->theta_unknown[nd]] = 1;
    }
    for (PetscInt a = 0; a < 2; a++) {
      const TdFilmSurface *surf = a ? &f->base : &f->wall;
      const TdMeshSet     *set  = (const TdMeshSet *)surf->set;
      const TdBody        *body = &m->bodies[surf->body];
      const char          *hit  = &s->ghost_hits[1][off];
      if (surf->kind == TD_FACE_ANCF) off += set->nfaces;
      if (surf->kind != TD_FACE_ANCF || (f->quad_end <= f->quad_start && n1 <= n0)) continue;
      if (wide) {
        MarkSurface(s, mark, surf);
        continue;
      }
      /* faces of the set (ring): 1 hit (GhostHitFaces), then 2, 3, ... for the rings around them */
      PetscCall(PetscMalloc1(set->nfaces, &ring));
      PetscCall(PetscArraycpy(ring, hit, set->nfaces));
      for (PetscInt r = 1; r <= s->ghost_rings && surf->neighbours; r++)
        for (PetscInt fc = 0; fc < set->nfaces; fc++)
          if (ring[fc] == r)
            for (PetscInt k = 0; k < TD_FACE_NEIGHBOURS; k++) {
              const PetscInt nb = surf->neighbours[TD_FACE_NEIGHBOURS * fc + k];
              if (nb >= 0 && !ring[nb]) ring[nb] = (char)(r + 1);
            }
      for (PetscInt fc = 0; fc < set->nfaces; fc++)
        if (ring[fc]) near[body->element_offset + set->faces[fc].cell] = 1;
      PetscCall(PetscFree(ring));
    }
  }
  for (PetscInt e = 0; e < m->nelements; e++)
    if (near[e]) MarkElement(s, mark, e);
  PetscCall(PetscFree(near));
  for (PetscInt i = 0; i < s->N; i++) n += mark[i];
  if (n != s->nghost || !s->toghost) changed = PETSC_TRUE;
  else
    for (PetscInt k = 0; k < s->nghost && !changed; k++)
      if (!mark[s->ghost[k]]) changed = PETSC_TRUE;
  /* the scatter is made by all ranks together */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPIU_BOOL, MPI_LOR, s->comm));
  PetscCheck(!(same && changed), s->comm, PETSC_ERR_PLIB, "-state_ghosts_check: the ghost set changed although no rank's film points hit another face (GhostHitFaces misses an input of the set)");
  if (!changed) {
    PetscCall(PetscFree(mark));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscFree(s->ghost));
  PetscCall(VecScatterDestroy(&s->toghost));
  PetscCall(ScatterToMarked(s, mark, &s->nghost, &s->ghost, &nrecv, &s->toghost));
  /* the copies kept at an iterate hold the old set's entries alone (TdSolverCopyRead) */
  s->film_jac_ready = PETSC_FALSE;
  s->res_t          = PETSC_NINFINITY;
  {
    /* its full coordinates as runs (TdSolverIterateRuns): the body unknowns' in the set and all
       clamped ones (their q_ref is what the elements read) */
    PetscInt  nrun = 0, k = 0;
    PetscBool prev = PETSC_FALSE;
    PetscCall(PetscFree(s->ghost_run));
    for (PetscInt i = 0; i < m->nfull; i++) {
      const PetscBool in = m->free_index[i] < 0 || mark[m->free_index[i]] ? PETSC_TRUE : PETSC_FALSE;
      if (in && !prev) nrun++;
      prev = in;
    }
    PetscCall(PetscMalloc1(2 * PetscMax(nrun, 1), &s->ghost_run));
    prev = PETSC_FALSE;
    for (PetscInt i = 0; i < m->nfull; i++) {
      const PetscBool in = m->free_index[i] < 0 || mark[m->free_index[i]] ? PETSC_TRUE : PETSC_FALSE;
      if (in && !prev) s->ghost_run[2 * k++] = i;
      if (in) s->ghost_run[2 * k - 1] = i + 1;
      prev = in;
    }
    s->nghost_run = nrun;
  }
  /* an element is readable when all its unknowns are in the set (its clamped coordinates are
     known everywhere) */
  for (PetscInt e = 0; e < m->nelements; e++) {
    PetscInt coord[ANCF3843_NDOF];
    TdModelElementCoordinates(m, e, coord);
    s->readable_element[e] = 1;
    for (PetscInt i = 0; i < ANCF3843_NDOF; i++) {
      const PetscInt f = m->free_index[coord[i]];
      if (f >= 0 && !mark[f]) s->readable_element[e] = 0;
    }
  }
  PetscCall(PetscFree(mark));
  s->useq_from  = 0; /* the entries new to the set are not up to date yet */
  s->ghost_recv = nrecv;
  s->ghost_updates++;
  PetscCall(TdSolverStateFromOwners(s, PETSC_FALSE)); /* ... nor their state at t */
  PetscCall(PetscInfo(NULL, "state ghosts%s: this rank reads %" PetscInt_FMT " of the %" PetscInt_FMT " unknowns, %" PetscInt_FMT " of them from other ranks\n", wide ? " (films' whole surfaces)" : "", s->nghost, s->N, nrecv));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverIterateScatter(TdSolver s, Vec U, PetscBool whole)
{
  const PetscBool ghosts = s->toghost && !whole ? PETSC_TRUE : PETSC_FALSE;
  PetscObjectId   id;
  PetscObjectState ustate, sstate;
  PetscBool        held;
  PetscFunctionBegin;
  PetscCall(PetscObjectGetId((PetscObject)U, &id));
  PetscCall(PetscObjectStateGet((PetscObject)U, &ustate));
  PetscCall(PetscObjectStateGet((PetscObject)s->Useq, &sstate));
  /* Useq already holds this state of U (a Jacobian at its residual's iterate; the output after
     the step's end): no exchange.  Not under the check, whose NaNs must be written anew.  The
     scatter is collective, so all ranks decide together (a state is counted per rank). */
  held = !s->ghost_check && s->useq_from == id && s->useq_from_state == ustate && s->useq_state == sstate && (s->useq_whole || !whole) ? PETSC_TRUE : PETSC_FALSE;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &held, 1, MPIU_BOOL, MPI_LAND, s->comm));
  if (!held) {
    PetscCall(VecScatterBegin(ghosts ? s->toghost : s->toall, U, s->Useq, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(ghosts ? s->toghost : s->toall, U, s->Useq, INSERT_VALUES, SCATTER_FORWARD));
    if (ghosts && s->ghost_check) {
      PetscScalar *u;
      PetscInt     k = 0;
      PetscCall(VecGetArray(s->Useq, &u));
      for (PetscInt i = 0; i < s->N; i++) {
        if (k < s->nghost && s->ghost[k] == i) k++;
        else u[i] = NAN;
      }
      PetscCall(VecRestoreArray(s->Useq, &u));
    }
    s->useq_from       = id;
    s->useq_from_state = ustate;
    s->useq_whole      = !ghosts;
    PetscCall(PetscObjectStateGet((PetscObject)s->Useq, &s->useq_state));
  }
  /* the films may read only the elements whose unknowns Useq holds up to date */
  s->model->readable_element = s->useq_whole ? NULL : s->readable_element;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverResidualScatter(TdSolver s, Vec R)
{
  PetscFunctionBegin;
  if (s->toghost && s->ghost_check) {
    /* every rank learns of a stray entry on any, so that all stop together */
    const PetscScalar *r;
    PetscInt           k = 0, stray = -1;
    PetscMPIInt        any;
    PetscCall(VecGetArrayRead(s->Rseq, &r));
    for (PetscInt i = 0; i < s->N; i++) {
      if (k < s->nghost && s->ghost[k] == i) k++;
      else if (r[i] != 0 && stray < 0) stray = i;
    }
    if (stray >= 0) PetscCall(PetscPrintf(PETSC_COMM_SELF, "tribodyn: -state_ghosts_check: residual entry %" PetscInt_FMT " (natural numbering) is %g on this rank, outside its ghost set\n", stray, (double)PetscRealPart(r[stray])));
    PetscCall(VecRestoreArrayRead(s->Rseq, &r));
    any = stray >= 0;
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, s->comm));
    PetscCheck(!any, s->comm, PETSC_ERR_PLIB, "-state_ghosts_check: a rank wrote a residual entry outside its ghost set (printed above), which the reverse scatter would lose; the ghost set (TdSolverGhostsSetUp) misses something that rank assembles");
  }
  PetscCall(VecZeroEntries(R));
  PetscCall(VecScatterBegin(s->toghost ? s->toghost : s->toall, s->Rseq, R, ADD_VALUES, SCATTER_REVERSE));
  PetscCall(VecScatterEnd(s->toghost ? s->toghost : s->toall, s->Rseq, R, ADD_VALUES, SCATTER_REVERSE));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverSameIterate(TdSolver s, const PetscScalar saved[], const PetscScalar u[], PetscBool *same)
{
  PetscFunctionBegin;
  *same = PETSC_TRUE;
  if (s->toghost) {
    for (PetscInt k = 0; k < s->nghost && *same; k++)
      if (saved[s->ghost[k]] != u[s->ghost[k]]) *same = PETSC_FALSE;
  } else
    for (PetscInt i = 0; i < s->N && *same; i++)
      if (saved[i] != u[i]) *same = PETSC_FALSE;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, same, 1, MPIU_BOOL, MPI_LAND, s->comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverAtLastResidual(TdSolver s, PetscReal t, PetscBool *same)
{
  const PetscScalar *u;
  PetscFunctionBegin;
  *same = PETSC_FALSE;
  if (s->res_t != t || s->mode != TD_MODE_DYNAMIC) PetscFunctionReturn(0);
  PetscCall(TdSolverIterateScatter(s, s->U, PETSC_FALSE));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  PetscCall(TdSolverSameIterate(s, s->res_u, u, same));
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscFunctionReturn(0);
}

void TdSolverCopyRead(TdSolver s, const PetscScalar from[], PetscScalar to[])
{
  if (TdSolverGhostOnly(s))
    for (PetscInt k = 0; k < s->nghost; k++) to[s->ghost[k]] = from[s->ghost[k]];
  else memcpy(to, from, (size_t)s->N * sizeof(PetscScalar));
}

/* bitwise, as memcmp (a NaN of -state_ghosts_check equals itself) */
PetscBool TdSolverEqualRead(TdSolver s, const PetscScalar a[], const PetscScalar b[])
{
  if (TdSolverGhostOnly(s)) {
    for (PetscInt k = 0; k < s->nghost; k++)
      if (memcmp(&a[s->ghost[k]], &b[s->ghost[k]], sizeof(PetscScalar))) return PETSC_FALSE;
    return PETSC_TRUE;
  }
  return memcmp(a, b, (size_t)s->N * sizeof(PetscScalar)) ? PETSC_FALSE : PETSC_TRUE;
}

void TdSolverZeroRead(TdSolver s, PetscScalar a[])
{
  if (TdSolverGhostOnly(s))
    for (PetscInt k = 0; k < s->nghost; k++) a[s->ghost[k]] = 0;
  else memset(a, 0, (size_t)s->N * sizeof(PetscScalar));
}

/*
  A step's end brings each rank the converged iterate on its ghost set alone, so its state arrays
  (q, v, a, qdd at t) are current there and at its own coordinates, and older elsewhere.  When
  the set changes, or the whole state is wanted (checkpoints, a film record whose node search
  left a set), the owners send theirs: each array packed in U's layout from the owned
  coordinates, then scattered like the iterate.

  StateFromOwnersAt: the first narrays of q, v, a, qdd at the natural coordinates idx[0..n)
  (ascending; NULL: all) from their owners, through sc (U into Useq's layout at those indices).
*/
static PetscErrorCode StateFromOwnersAt(TdSolver s, VecScatter sc, PetscInt narrays, PetscInt n, const PetscInt idx[])
{
  TdModel    m = s->model;
  PetscReal *state[4] = {s->q, s->v, s->a, s->qdd};
  PetscFunctionBegin;
  if (!s->state_seq) PetscCall(VecDuplicate(s->Useq, &s->state_seq));
  for (PetscInt k = 0; k < narrays; k++) {
    const PetscScalar *x;
    Vec                w;
    PetscCall(TdSolverStatePack(s, state[k], &w));
    PetscCall(VecScatterBegin(sc, w, s->state_seq, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(sc, w, s->state_seq, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(s->state_seq, &x));
    if (!idx)
      for (PetscInt i = 0; i < m->nfree; i++) state[k][s->free_full[i]] = PetscRealPart(x[i]);
    else
      for (PetscInt j = 0; j < n && idx[j] < m->nfree; j++) state[k][s->free_full[idx[j]]] = PetscRealPart(x[idx[j]]);
    PetscCall(VecRestoreArrayRead(s->state_seq, &x));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFreeFull(TdSolver s)
{
  TdModel m = s->model;
  PetscFunctionBegin;
  if (s->free_full) PetscFunctionReturn(0);
  PetscCall(PetscMalloc1(PetscMax(m->nfree, 1), &s->free_full));
  for (PetscInt i = 0; i < m->nfull; i++)
    if (m->free_index[i] >= 0) s->free_full[m->free_index[i]] = i;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverStatePack(TdSolver s, const PetscReal state[], Vec *w)
{
  TdModel      m = s->model;
  PetscScalar *a;
  PetscInt     lo;
  PetscFunctionBegin;
  if (!s->state_w) PetscCall(VecDuplicate(s->U, &s->state_w));
  PetscCall(TdSolverFreeFull(s));
  PetscCall(VecGetOwnershipRange(s->U, &lo, NULL));
  PetscCall(VecGetArray(s->state_w, &a));
  for (PetscInt j = 0; j < s->nowned; j++) {
    const PetscInt i = s->owned[j];
    a[s->to_petsc[i] - lo] = i < m->nfree ? state[s->free_full[i]] : 0;
  }
  PetscCall(VecRestoreArray(s->state_w, &a));
  *w = s->state_w;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverStateFromOwners(TdSolver s, PetscBool whole)
{
  PetscMPIInt size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  if (size == 1 || (!whole && !s->toghost)) PetscFunctionReturn(0);
  if (whole || !s->toghost) PetscCall(StateFromOwnersAt(s, s->toall, 4, 0, NULL));
  else PetscCall(StateFromOwnersAt(s, s->toghost, 4, s->nghost, s->ghost));
  PetscFunctionReturn(0);
}

/*
  A field record's body node positions: each rank writes the rows of its part of each body's
  nodes (TdOutputPartRange), a contiguous run of the natural numbering that the graph partition
  does not follow, so the positions of those nodes (and the free bodies' coordinates) come from
  their owners by a scatter of their own, made once: about 3 of every 12 coordinates of a rank's
  part, at field records only, where putting them into the ghost sets would send them with every
  residual.
*/
PetscErrorCode TdSolverPositionsFromOwners(TdSolver s)
{
  TdModel     m = s->model;
  PetscMPIInt size, rank;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  if (size == 1) PetscFunctionReturn(0);
  if (!s->topositions) {
    char *mark;
    PetscCall(PetscCalloc1(s->N, &mark));
    for (PetscInt b = 0; b < m->nbodies; b++) {
      const TdBody *body = &m->bodies[b];
      PetscInt      n0, n1;
      if (body->type == TD_BODY_FREE)
        for (PetscInt i = 0; i < 12; i++) Mark(s->N, mark, m->free_index[TD_NODE_DOF * body->node_offset + i]);
      if (body->type != TD_BODY_ANCF) continue;
      TdOutputPartRange(body->mesh.nnodes, size, rank, &n0, &n1);
      for (PetscInt n = n0; n < n1; n++)
        for (PetscInt i = 0; i < 3; i++) Mark(s->N, mark, m->free_index[TD_NODE_DOF * (body->node_offset + n) + i]);
    }
    PetscCall(ScatterToMarked(s, mark, &s->npositions, &s->positions, NULL, &s->topositions));
    PetscCall(PetscFree(mark));
  }
  PetscCall(StateFromOwnersAt(s, s->topositions, 1, s->npositions, s->positions));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverGhostsDestroy(TdSolver s)
{
  PetscFunctionBegin;
  PetscCall(VecDestroy(&s->state_w));
  PetscCall(VecDestroy(&s->state_seq));
  PetscCall(PetscFree(s->free_full));
  PetscCall(VecScatterDestroy(&s->topositions));
  PetscCall(PetscFree(s->positions));
  s->npositions = 0;
  PetscCall(VecScatterDestroy(&s->toghost));
  PetscCall(PetscFree(s->ghost));
  PetscCall(PetscFree(s->ghost_run));
  s->nghost_run = 0;
  PetscCall(PetscFree2(s->ghost_base, s->readable_element));
  PetscCall(PetscFree2(s->ghost_hits[0], s->ghost_hits[1]));
  s->ghost_hits_valid = PETSC_FALSE;
  s->model->readable_element = NULL;
  s->nghost = 0;
  PetscFunctionReturn(0);
}
