/*
  The solver's life cycle and its stepping (solver.h): creation, options and destruction, the
  layout of the unknowns over the ranks, the consistent initial accelerations, generalised-alpha
  steps (with the film pressures' predictor and step halving) and static load steps.

  The unknowns: U = [free body coordinates | film unknowns | scaled multipliers].  The rows and
  multipliers are scaled by s = (mass per node) * dqdd/dq so that the constraint block has the
  size of the inertia block whatever dt (formulation.md §5); the rows then carry force units,
  like the body rows, and one SNES tolerance serves both.  The residual is residual.c's, the
  Jacobian jacobian.c's, the Newton and Krylov tests convergence_tests.c's.
*/
#include <inttypes.h>
#include <tribodyn/solver.h>
#include <tribodyn/thread_governor.h>
#include "solver_private.h"
#include <tribodyn/options.h>
#include <tribodyn/mumps_single.h>
#include <tribodyn/vec3.h>
#include <petsc/private/petscimpl.h>
#include <omp.h>

#define NDOF ANCF3843_NDOF

/* -log_view events: where a step's time goes besides PETSc's own (MatLUFactorNum, KSPSolve, ...) */
PetscLogEvent        TD_ElementForces, TD_ElementTangents, TD_FilmResidual, TD_FilmFused, TD_FilmJacobian, TD_FilmPattern, TD_JacobianValues, TD_JacobianPattern, TD_ElementLinearize, TD_ElementProduct, TD_RestProduct;
static PetscBool     td_events_registered = PETSC_FALSE;

static PetscErrorCode AllocFull(PetscInt n, PetscReal **p)
{
  PetscFunctionBegin;
  PetscCall(PetscCalloc1(PetscMax(n, 1), p));
  PetscFunctionReturn(0);
}

/* The partition (TdModelPartition) and the layout of U that follows from it: this rank's
   elements, U numbered rank after rank (to_petsc, owned), U and its copies, and the scatter of
   the whole iterate to every rank in the natural numbering (Useq). */
static PetscErrorCode LayOutUnknowns(TdSolver s)
{
  TdModel        model = s->model;
  const PetscInt ne    = model->nelements;
  PetscMPIInt    rank, size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  s->partition = size > 1 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TdOptionsBool(NULL, "partition", "on several ranks (the default there; one rank has nothing to divide), divide the elements by a graph partitioner (PT-Scotch through MatPartitioning; -partition_mat_partitioning_type chooses another) and number the unknowns rank after rank, so that each rank owns the rows of its elements and film quads; false: contiguous slices of the elements and of the natural numbering", s->partition, &s->partition, NULL));
  s->state_ghosts = PETSC_TRUE;
  PetscCall(TdOptionsBool(NULL, "state_ghosts", "on several ranks, send each rank only the unknowns its residual and Jacobian read (its elements', the faces around its film quads' points, its quads' and film rows' unknowns, rank 0's joints and loads; state_ghosts.c), and the residual back from those alone; false: the whole iterate to every rank and back", s->state_ghosts, &s->state_ghosts, NULL));
  s->ghost_rings = 1;
  PetscCall(TdOptionsInt(NULL, "state_ghosts_rings", "with -state_ghosts: the rings of faces around each film point's last face that its rank receives; a point that goes beyond makes every rank take the films' whole surfaces until the next step (0: the last faces alone)", s->ghost_rings, &s->ghost_rings, NULL));
  PetscCheck(s->ghost_rings >= 0 && s->ghost_rings < 100, s->comm, PETSC_ERR_USER_INPUT, "-state_ghosts_rings %" PetscInt_FMT ": give a number of rings from 0 to 99", s->ghost_rings);
  s->ghost_output_nodes = PETSC_TRUE;
  PetscCall(TdOptionsBool(NULL, "state_ghosts_output_nodes", "with -state_ghosts: each rank's set also holds the film unknowns and faces of the film nodes whose fields it writes at every record (false: a record whose node search leaves its rank's set takes the whole state from the owners)", s->ghost_output_nodes, &s->ghost_output_nodes, NULL));
  PetscCall(TdOptionsBool(NULL, "state_ghosts_check", "with -state_ghosts: fill the unknowns outside each rank's ghost set with NaN before every residual and Jacobian, and stop if a residual entry outside it is nonzero (a check of the ghost sets; slower)", PETSC_FALSE, &s->ghost_check, NULL));
  PetscCall(PetscMalloc2(PetscMax(ne, 1), &s->element_rank, PetscMax(s->N, 1), &s->to_petsc));
  if (s->partition && size > 1) {
    PetscInt *unknown_rank, *first;
    PetscCall(PetscMalloc2(PetscMax(s->N, 1), &unknown_rank, size + 1, &first));
    PetscCall(TdModelPartition(model, s->element_rank, unknown_rank));
    /* rank after rank, each rank's unknowns in their natural order */
    PetscCall(PetscArrayzero(first, size + 1));
    for (PetscInt i = 0; i < s->N; i++) first[unknown_rank[i] + 1]++;
    s->nowned = first[rank + 1];
    for (PetscMPIInt r = 0; r < size; r++) first[r + 1] += first[r];
    PetscCall(PetscMalloc1(PetscMax(s->nowned, 1), &s->owned));
    for (PetscInt i = 0, k = 0; i < s->N; i++) {
      s->to_petsc[i] = first[unknown_rank[i]]++;
      if (unknown_rank[i] == rank) s->owned[k++] = i;
    }
    PetscCall(PetscFree2(unknown_rank, first));
    {
      /* the partition's sizes and a fingerprint (FNV-1a of the element ranks): runs and
         restarts of one command show the same partition */
      PetscInt *count;
      uint64_t  h = 14695981039346656037ULL;
      PetscCall(PetscCalloc1(size, &count));
      for (PetscInt e = 0; e < ne; e++) {
        count[s->element_rank[e]]++;
        h = (h ^ (uint64_t)s->element_rank[e]) * 1099511628211ULL;
      }
      PetscCall(PetscPrintf(s->comm, "tribodyn: elements per rank ["));
      for (PetscMPIInt r = 0; r < size && r < 16; r++) PetscCall(PetscPrintf(s->comm, "%s%" PetscInt_FMT, r ? " " : "", count[r]));
      PetscCall(PetscPrintf(s->comm, "%s], partition fingerprint %016" PRIx64 "\n", size > 16 ? " ..." : "", h));
      PetscCall(PetscFree(count));
    }
  } else {
    PetscInt lo = 0;
    s->nowned = PETSC_DECIDE;
    PetscCall(PetscSplitOwnership(s->comm, &s->nowned, &s->N));
    PetscCallMPI(MPI_Exscan(&s->nowned, &lo, 1, MPIU_INT, MPI_SUM, s->comm));
    if (rank == 0) lo = 0;
    PetscCall(PetscMalloc1(PetscMax(s->nowned, 1), &s->owned));
    for (PetscInt k = 0; k < s->nowned; k++) s->owned[k] = lo + k;
    for (PetscInt i = 0; i < s->N; i++) s->to_petsc[i] = i;
    for (PetscInt e = 0; e < ne; e++) /* contiguous slices */
      for (PetscMPIInt r = 0; r < size; r++)
        if (e < (PetscInt)(((PetscInt64)ne * (r + 1)) / size)) {
          s->element_rank[e] = r;
          break;
        }
  }
  for (PetscInt e = 0; e < ne; e++) s->nelem_local += s->element_rank[e] == rank;
  PetscCall(PetscMalloc1(PetscMax(s->nelem_local, 1), &s->elem_local));
  for (PetscInt e = 0, k = 0; e < ne; e++)
    if (s->element_rank[e] == rank) s->elem_local[k++] = e;
  PetscCall(TdModelElementTablesSetUp(model, s->nelem_local, s->elem_local));
  PetscCall(VecCreateMPI(s->comm, s->nowned, s->N, &s->U));
  PetscCall(VecGetOwnershipRange(s->U, &s->own_lo, &s->own_hi));
  PetscCall(VecDuplicate(s->U, &s->R));
  PetscCall(VecDuplicate(s->U, &s->U0));
  PetscCall(VecDuplicate(s->U, &s->Uguess));
  if (s->partition && size > 1) {
    /* the whole vector on every rank, in the natural numbering: entry i from U's to_petsc[i] */
    IS from;
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, s->N, &s->Useq));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, s->N, s->to_petsc, PETSC_USE_POINTER, &from));
    PetscCall(VecScatterCreate(s->U, from, s->Useq, NULL, &s->toall));
    PetscCall(ISDestroy(&from));
  } else PetscCall(VecScatterCreateToAll(s->U, &s->toall, &s->Useq));
  PetscCall(TdSolverFilmRowsSetUp(s));
  PetscFunctionReturn(0);
}

/* An element's place in the order of its chunk: its reference centroid on a grid of a quarter
   of the smallest edge, axes from the widest spread to the narrowest. */
typedef struct {
  PetscInt64 cell[3];
  PetscInt   le;
} ChunkKey;

static int CompareChunkKeys(const void *pa, const void *pb)
{
  const ChunkKey *a = (const ChunkKey *)pa, *b = (const ChunkKey *)pb;
  for (int i = 0; i < 3; i++)
    if (a->cell[i] != b->cell[i]) return a->cell[i] < b->cell[i] ? -1 : 1;
  return a->le < b->le ? -1 : a->le > b->le;
}

/* The chunks of -jacobian_direct: this rank's elements cut into nchunk slabs of equal count
   along the axis in which their reference centroids spread most, and ordered within a slab
   along that axis, then the next widest, then the narrowest (on the guide strip: column by
   column, each column's cells across its width and depth).  Few elements then reach the rows of
   two chunks (those go through the COO array), and the rows an element adds to were mostly
   touched by the elements just before it, so they are still in cache.  From the reference
   configuration, so that a restart finds the same chunks and the same sums. */
static PetscErrorCode ChunkElements(TdSolver s)
{
  TdModel    m  = s->model;
  PetscInt   nl = s->nelem_local, axis[3] = {0, 1, 2};
  PetscReal  lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {PETSC_MIN_REAL, PETSC_MIN_REAL, PETSC_MIN_REAL}, h = PETSC_MAX_REAL, *cen;
  ChunkKey  *key;
  PetscFunctionBegin;
  s->nchunk = PetscMax(1, PetscMin(s->nchunk, nl));
  PetscCall(PetscMalloc3(s->nchunk + 1, &s->chunk_start, PetscMax(nl, 1), &s->chunk_elem, PetscMax(nl, 1), &s->elem_chunk));
  PetscCall(PetscMalloc2(3 * PetscMax(nl, 1), &cen, PetscMax(nl, 1), &key));
  for (PetscInt le = 0; le < nl; le++) {
    const PetscInt          e    = s->elem_local[le];
    const TdBody           *body = &m->bodies[m->element_body[e]];
    const Ancf3843Geometry *geo  = &body->geometry[body->cell_geometry[m->element_cell[e]]];
    PetscReal               eq[NDOF];
    TdModelElementGather(m, e, m->q_ref, PETSC_TRUE, eq);
    for (PetscInt i = 0; i < 3; i++) {
      cen[3 * le + i] = 0;
      for (PetscInt n = 0; n < ANCF3843_NODES; n++) cen[3 * le + i] += eq[TD_NODE_DOF * n + i] / ANCF3843_NODES;
      lo[i] = PetscMin(lo[i], cen[3 * le + i]);
      hi[i] = PetscMax(hi[i], cen[3 * le + i]);
    }
    h = PetscMin(h, PetscMin(geo->a, PetscMin(geo->b, geo->c)) / 4);
  }
  for (PetscInt i = 0; i < 3; i++) /* widest spread first */
    for (PetscInt j = i + 1; j < 3; j++)
      if (hi[axis[j]] - lo[axis[j]] > hi[axis[i]] - lo[axis[i]]) {
        const PetscInt t = axis[i];
        axis[i]          = axis[j];
        axis[j]          = t;
      }
  for (PetscInt le = 0; le < nl; le++) {
    for (PetscInt i = 0; i < 3; i++) key[le].cell[i] = (PetscInt64)PetscFloorReal((cen[3 * le + axis[i]] - lo[axis[i]]) / h + 0.5);
    key[le].le = le;
  }
  qsort(key, (size_t)nl, sizeof *key, CompareChunkKeys);
  s->chunk_start[0] = 0;
  for (PetscInt c = 0; c < s->nchunk; c++) s->chunk_start[c + 1] = (PetscInt)(((PetscInt64)nl * (c + 1)) / s->nchunk);
  for (PetscInt c = 0; c < s->nchunk; c++)
    for (PetscInt k = s->chunk_start[c]; k < s->chunk_start[c + 1]; k++) {
      s->chunk_elem[k]               = key[k].le;
      s->elem_chunk[key[k].le] = c;
    }
  PetscCall(PetscFree2(cen, key));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverCreate(TdModel model, TdSolver *out)
{
  TdSolver    s;
  PetscMPIInt rank, size;
  PetscInt    nfull;
  PetscFunctionBegin;
  if (!td_events_registered) {
    PetscClassId id;
    PetscCall(PetscClassIdRegister("tribodyn", &id));
    PetscCall(PetscLogEventRegister("TdElementForces", id, &TD_ElementForces));
    PetscCall(PetscLogEventRegister("TdElementTangent", id, &TD_ElementTangents));
    PetscCall(PetscLogEventRegister("TdFilmResidual", id, &TD_FilmResidual));
    PetscCall(PetscLogEventRegister("TdFilmFused", id, &TD_FilmFused));
    PetscCall(PetscLogEventRegister("TdFilmJacobian", id, &TD_FilmJacobian));
    PetscCall(PetscLogEventRegister("TdFilmPattern", id, &TD_FilmPattern));
    PetscCall(PetscLogEventRegister("TdJacobianValues", id, &TD_JacobianValues));
    PetscCall(PetscLogEventRegister("TdJacobianPattern", id, &TD_JacobianPattern));
    PetscCall(PetscLogEventRegister("TdElementLinearize", id, &TD_ElementLinearize));
    PetscCall(PetscLogEventRegister("TdElementProduct", id, &TD_ElementProduct));
    PetscCall(PetscLogEventRegister("TdRestProduct", id, &TD_RestProduct));
    td_events_registered = PETSC_TRUE;
  }
  PetscCall(PetscNew(&s));
  s->last_step_its = -1;
  s->comm  = model->comm;
  s->model = model;
  nfull    = model->nfull;
  s->N     = model->row_offset + model->nrows;
  s->whole_run[0] = 0;
  s->whole_run[1] = nfull;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  PetscCall(AllocFull(nfull, &s->q));
  PetscCall(AllocFull(nfull, &s->v));
  PetscCall(AllocFull(nfull, &s->a));
  PetscCall(AllocFull(nfull, &s->qdd));
  PetscCall(AllocFull(nfull, &s->q1));
  PetscCall(AllocFull(nfull, &s->v1));
  PetscCall(AllocFull(nfull, &s->a1));
  PetscCall(AllocFull(nfull, &s->qdd1));
  PetscCall(AllocFull(model->nrows, &s->lambda));
  s->nthreads = TdThreadsAvailable(); /* the governor may be running fewer for now */
  PetscCall(PetscMalloc1(s->nthreads, &s->work));
  PetscCall(PetscMalloc1((size_t)s->nthreads * PetscMax(nfull, 1), &s->thread_r));
  PetscCall(PetscMalloc1((size_t)s->nthreads * NDOF * NDOF, &s->rot_work));
  PetscCall(PetscMalloc1((size_t)s->nthreads * NDOF * NDOF, &s->tangent_buf));
  PetscCall(AllocFull(model->row_offset + model->nrows, &s->film_r));
  PetscCall(AllocFull(3 * model->nfilms, &s->film_load));
  PetscCall(AllocFull(3 * model->nfilms, &s->film_friction));
  PetscCall(AllocFull(s->N, &s->res_u));
  s->res_t = PETSC_NINFINITY;

  PetscCall(LayOutUnknowns(s));
  PetscCall(PetscCalloc1(PetscMax(s->nelem_local, 1), &s->elem_strain)); /* nelem_local: LayOutUnknowns */
  PetscCall(VecDuplicate(s->Useq, &s->Rseq));
  PetscCall(TdOptionsBool(NULL, "threaded_jacobian", "multiply by the Jacobian (every Krylov iteration) over runs of consecutive columns, on the OpenMP threads (on several ranks: each rank's diagonal and off-diagonal blocks); false: PETSc's product", PETSC_TRUE, &s->threaded_jacobian, NULL));
  PetscCall(TdOptionsBool(NULL, "jacobian_coo_map", "build the Jacobian's pattern and sum its COO values (every Jacobian) by tribodyn's own map, on the OpenMP threads, on any number of ranks; false: PETSc's MatSetPreallocationCOO and MatSetValuesCOO", PETSC_TRUE, &s->coo_map_on, NULL));
  PetscCall(TdOptionsBool(NULL, "jacobian_direct", "with -jacobian_coo_map: add each element's tangent straight into the Jacobian from cache, instead of writing it to the COO array and reading it back (elements that reach rows of other chunks or ranks still go through the array)", PETSC_TRUE, &s->jacobian_direct, NULL));
  s->nchunk = s->nthreads > 1 ? 4 * s->nthreads : 1;
  PetscCall(TdOptionsInt(NULL, "jacobian_direct_chunks", "chunks of nearby elements for -jacobian_direct, each added by one thread (default: 1 on one thread, else 4 per thread); fewer chunks send fewer elements through the COO array, more share the work better", s->nchunk, &s->nchunk, NULL));
  PetscCheck(s->nchunk >= 1, s->comm, PETSC_ERR_ARG_OUTOFRANGE, "-jacobian_direct_chunks %" PetscInt_FMT ": give at least 1", s->nchunk);
  if (!s->coo_map_on) s->jacobian_direct = PETSC_FALSE;
  PetscCall(ChunkElements(s));

  if (model->nfilms) {
    PetscBool changed;
    PetscCall(TdFilmsCouplingUpdate(model, 0, model->q_ref, s->v, &changed, NULL));
  }
  for (PetscInt fi = 0; fi < model->nfilms; fi++) {
    /* Swift-Stieber films: the bound p_cav/p_ref of each pressure unknown (-inf elsewhere), for
       the semismooth rows or the VI bounds (TdSolverSetFromOptions); BuildJacobian records the
       film rows' diagonal slots when it is set */
    const TdFilm *f = &model->films[fi];
    if (f->cavitation != TD_CAVITATION_SWIFT_STIEBER) continue;
    if (!s->ncp_shift) {
      PetscCall(PetscMalloc1(s->N, &s->ncp_shift));
      PetscCall(PetscCalloc1(s->N, &s->ncp_active));
      PetscCall(PetscCalloc1(s->N, &s->ncp_active_pc));
      for (PetscInt k = 0; k < s->N; k++) s->ncp_shift[k] = PETSC_NINFINITY;
    }
    for (PetscInt k = f->first_unknown; k < f->first_unknown + f->nunknowns; k++) s->ncp_shift[k] = f->p_cav / f->p_ref;
  }
  for (PetscInt fi = 0; fi < model->nfilms; fi++) {
    /* JFO films: their film fractions' complementarity rows (F18), -<f>_theta0 at the start */
    const TdFilm *f = &model->films[fi];
    if (f->cavitation != TD_CAVITATION_JFO) continue;
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) s->njfo += f->theta_unknown[nd] >= 0;
  }
  if (s->njfo) {
    PetscInt lo, hi, i = 0;
    PetscCall(PetscMalloc4(s->njfo, &s->jfo_theta, s->njfo, &s->jfo_p, s->njfo, &s->jfo_shift, s->njfo, &s->jfo_active));
    PetscCall(PetscCalloc1(s->njfo, &s->jfo_active_pc));
    PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
    for (PetscInt fi = 0; fi < model->nfilms; fi++) {
      const TdFilm *f = &model->films[fi];
      if (f->cavitation != TD_CAVITATION_JFO) continue;
      for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) {
        const PetscInt kt = f->theta_unknown[nd];
        if (kt < 0) continue;
        s->jfo_theta[i]  = kt;
        s->jfo_p[i]      = f->unknown[nd];
        s->jfo_shift[i]  = f->p_cav / f->p_ref;
        s->jfo_active[i] = PETSC_FALSE;
        if (s->to_petsc[kt] >= lo && s->to_petsc[kt] < hi) PetscCall(VecSetValue(s->U, s->to_petsc[kt], f->theta0, INSERT_VALUES));
        i++;
      }
    }
    PetscCall(VecAssemblyBegin(s->U));
    PetscCall(VecAssemblyEnd(s->U));
  }
  if (s->ncp_shift) {
    for (PetscInt k = 0; k < s->N; k++)
      if (s->ncp_shift[k] > PETSC_NINFINITY) s->nncp++;
    PetscCall(PetscMalloc1(s->nncp, &s->ncp_rows));
    for (PetscInt k = 0, i = 0; k < s->N; k++)
      if (s->ncp_shift[k] > PETSC_NINFINITY) s->ncp_rows[i++] = k;
  }
  PetscCall(TdSolverBuildJacobian(s));
  PetscCall(SNESCreate(s->comm, &s->snes));
  PetscCall(SNESSetFunction(s->snes, s->R, TdSolverResidual, s));
  PetscCall(SNESSetJacobian(s->snes, s->J, s->J, TdSolverJacobian, s));
  galpha_params(1.0, &s->ga);
  s->max_halvings = 6;
  s->extrapolate_pressure = PETSC_TRUE;
  *out            = s;
  PetscFunctionReturn(0);
}


/*
  The start of each Krylov solve (KSP pre-solve hook).  Its initial guess, when the KSP takes a
  nonzero one (-newton_initial_guess): the predictor's error changes smoothly from step to step,
  and so does the Newton correction that removes it, so the first Newton iteration of a step
  starts GMRES from the last step's correction and GMRES only has to find their difference;
  every other solve starts from zero.  With -krylov_recycle, the last solve's pairs are taken
  into the preconditioner (krylov_recycle.c).
*/
static PetscErrorCode KrylovPreSolve(KSP ksp, Vec b, Vec x, void *ctx)
{
  TdSolver s = (TdSolver)ctx;
  PetscInt it;
  PetscFunctionBegin;
  PetscCall(SNESGetIterationNumber(s->snes, &it));
  PetscCall(TdSolverRecycleCommit(s, it));
  if (s->newton_guess) {
    if (it == 0 && s->have_guess && s->mode == TD_MODE_DYNAMIC && s->guess_dt == s->step_dt && !s->in_test) PetscCall(VecCopy(s->Uguess, x));
    else PetscCall(VecZeroEntries(x));
  }
  PetscCall(TdSolverKrylovResidualStart(s, ksp, b, x));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverSetFromOptions(TdSolver s)
{
  KSP       ksp;
  PC        pc;
  PetscReal rho_inf = 0.9, atol;
  PetscFunctionBegin;
  PetscCall(TdOptionsReal(NULL, "rho_inf", "generalised-alpha spectral radius at infinite frequency, in [0, 1]", NULL, rho_inf, &rho_inf, NULL));
  if (!(rho_inf >= 0 && rho_inf <= 1)) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "Option -rho_inf = %g: the spectral radius must lie in [0, 1]", (double)rho_inf);
  galpha_params(rho_inf, &s->ga);
  PetscCall(TdOptionsInt(NULL, "test_jacobian", "check the first N Newton Jacobians against central differences of the residual and print ||J - J_fd||_F/||J||_F (0: off)", 0, &s->test_jacobian, NULL));
  s->test_jacobian_step = 1e-6;
  PetscCall(TdOptionsRealPositive(NULL, "test_jacobian_step", "relative step eps of -test_jacobian's central differences, h_j = eps max(|U_j|, 1e-2) (a smooth residual's error falls as eps^2, a kink's does not)", NULL, s->test_jacobian_step, PETSC_TRUE, &s->test_jacobian_step, NULL));
  PetscCall(TdOptionsReal(NULL, "test_jacobian_time", "start the -test_jacobian checks with the first time step that ends after this time (0: with the first Jacobian, also of the initial acceleration solve)", "s", s->test_jacobian_time, &s->test_jacobian_time, NULL));
  {
    PetscInt n = 0;
    PetscCall(TdOptionsBool(NULL, "extrapolate_pressure", "start each step's Newton solve from film pressures extrapolated linearly from the last step (false: from the last pressures)", s->extrapolate_pressure, &s->extrapolate_pressure, NULL));
    PetscCall(TdSolverFilmSlice(s, NULL, &n, NULL));
    if (n && !s->film_u_start) PetscCall(PetscMalloc2(n, &s->film_u_start, n, &s->film_u_rate));
  }
  PetscCall(TdOptionsInt(NULL, "max_step_halvings", "times a step whose Newton solve fails is halved before the run stops", s->max_halvings, &s->max_halvings, NULL));
  if (s->max_halvings < 0) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "Option -max_step_halvings must not be negative");
  PetscCall(TdOptionsInt(NULL, "jfo_refactor_rows", "JFO films: keep the kept LU while at most this many film-fraction rows have changed branch since it was factored (0: factor at every change)", 8, &s->jfo_refactor_rows, NULL));
  PetscCall(TdOptionsInt(NULL, "refactor_its", "Newton-Krylov: keep the LU of an earlier Jacobian as the preconditioner while the Krylov solves take at most this many iterations (0: factor every Jacobian)", 12, &s->refactor_its, NULL));
  if (s->refactor_its < 0) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "Option -refactor_its must not be negative (0 factors every Jacobian)");
  /* Defaults that work out of the box; every -snes_/-ksp_/-pc_ option overrides them.
     Newton-Krylov: (flexible) GMRES, right-preconditioned (its test is on the true residual), with MUMPS LU
     of the Jacobian as the preconditioner.  The LU is kept across Newton iterations and steps
     while GMRES converges within -refactor_its iterations: the structures are nearly linear, so
     an earlier factorisation preconditions the current Jacobian well, and the Jacobian itself is
     assembled fresh every iteration, so Newton keeps its quadratic convergence (from
     -film_stiffness_lag_min unknowns on, the films' dQ/dq blocks excepted: kept_lu.c). */
  PetscCall(SNESGetKSP(s->snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPFGMRES)); /* right-preconditioned; keeping the preconditioned
                                            directions saves the extra solve at the end */
  PetscCall(KSPSetPCSide(ksp, PC_RIGHT));
  PetscCall(KSPGMRESSetRestart(ksp, 60));
  PetscCall(KSPSetTolerances(ksp, 1e-10, 1e-50, PETSC_DEFAULT, 60));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  {
    /* the LU in single precision (mumps_single.h), half the bytes for the triangular solves of
       every Krylov iteration; it preconditions as well as the double one.  On several ranks too:
       2 ranks, lubricated 0-5 ms, a solve 1.95 ms against 2.9 ms for MUMPS's double factor */
    PetscCall(TdMumpsSingleRegister());
    /* -pc_type ancf_amg (ancf_amg.c), -pc_type coupled_blocks (coupled_blocks.c) */
    PetscCall(TdSolverPCTypesUse(s));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPSSINGLE));
  }
  PetscCall(SNESSetMaxLinearSolveFailures(s->snes, 0));
  atol = 1e-10 * PetscMax(s->model->force_scale, 1e-12);
  for (PetscInt l = 0; l < s->model->nloads; l++) {
    const TdLoad    *load = &s->model->loads[l];
    const PetscReal *f    = load->force;
    /* a pressure's force scale: |p| times the face's area */
    atol = PetscMax(atol, 1e-10 * (load->type == TD_LOAD_PRESSURE ? PetscAbsReal(load->pressure) * load->area : PetscSqrtReal(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) * (load->type == TD_LOAD_TRACTION ? load->area : 1)));
  }
  PetscCall(SNESSetTolerances(s->snes, atol, 1e-9, 1e-14, 25, 10000));
  PetscCall(TdOptionsBool(NULL, "monitor_blocks", "print the norms of the residual blocks (bodies, films, drives) at every Newton iteration", PETSC_FALSE, &s->monitor_blocks, NULL));
  /* Film rows are dimensionless (-R/scale, scale = rho h_ref^3 p_ref / 12 mu): a row of size
     eps is a pressure error of about eps p_ref at that node.  1e-9 per node, i.e. 1e-9 of the
     pressure scale over the film, matches the body block's floor below (1e-9 of the film's force
     scale p_ref x area); the relative test resolves small films further. */
  s->block_atol[0] = s->block_atol[2] = atol;
  {
    PetscInt nfilm = 0;
    for (PetscInt fi = 0; fi < s->model->nfilms; fi++) nfilm += s->model->films[fi].nunknowns;
    s->block_atol[1] = 1e-9 * PetscSqrtReal((PetscReal)PetscMax(nfilm, 1));
  }
  /* with a film the body forces are of the film's scale p_ref x area: their rounding floor too */
  for (PetscInt fi = 0; fi < s->model->nfilms; fi++) {
    const TdFilm *f = &s->model->films[fi];
    s->block_atol[0] = PetscMax(s->block_atol[0], 1e-9 * f->p_ref * f->area);
  }
  PetscCall(SNESSetFromOptions(s->snes));
  /* after SNESSetFromOptions: a VI type chosen there installs its own test */
  PetscCall(SNESSetConvergenceTest(s->snes, TdSolverConvergenceTest, s, NULL));
  {
    /* Full Newton steps (basic): in a total-Lagrangian structure the first step of a bending
       load stretches the rotated fibres (by theta^2/2), so the residual norm rises before
       Newton converges quadratically and a backtracking search (bt) stalls; the critical-point
       search (cp) assumes a symmetric Jacobian and stops moving on the film-body coupling.
       Iterates outside the film's domain (h <= 0, a point off its surface) are domain errors,
       and a failed step is halved by the time stepper.  -snes_linesearch_type overrides.  Set after
       SNESSetFromOptions: a VI type chosen there configures its own (bt) line search. */
    SNESLineSearch ls;
    PetscBool      given;
    PetscCall(PetscOptionsHasName(NULL, NULL, "-snes_linesearch_type", &given));
    if (!given) {
      PetscCall(SNESGetLineSearch(s->snes, &ls));
      PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHBASIC));
    }
  }
  {
    /* Swift-Stieber cavitation (formulation §2): the complementarity p >= p_cav, F >= 0,
       (p - p_cav) F = 0 on the pressure unknowns.  Default: semismooth Newton in the full space
       (the film row becomes min(p - p_cav, F), whose Jacobian row is the film row or the unit
       row), so the matrix keeps its pattern and the factorisation can be reused.  With -snes_type
       vinewtonrsls (or vinewtonssls) PETSc's VI solver takes bounds instead; it factors the
       reduced matrix of the inactive set at every iteration. */
    const PetscBool cav = s->ncp_shift ? PETSC_TRUE : PETSC_FALSE; /* set in TdSolverCreate */
    PetscCall(PetscObjectTypeCompareAny((PetscObject)s->snes, &s->vi, SNESVINEWTONRSLS, SNESVINEWTONSSLS, ""));
    s->ncp = cav && !s->vi ? PETSC_TRUE : PETSC_FALSE;
    if (cav && s->vi) {
      Vec          lo, up;
      PetscInt     rlo, rhi;
      PetscScalar *l;
      PetscCall(VecDuplicate(s->U, &lo));
      PetscCall(VecDuplicate(s->U, &up));
      PetscCall(VecSet(up, PETSC_INFINITY));
      PetscCall(VecGetOwnershipRange(lo, &rlo, &rhi));
      PetscCall(VecGetArray(lo, &l));
      for (PetscInt k = 0; k < rhi - rlo; k++) l[k] = s->ncp_shift[s->owned[k]];
      PetscCall(VecRestoreArray(lo, &l));
      PetscCall(SNESVISetVariableBounds(s->snes, lo, up));
      PetscCall(VecDestroy(&lo));
      PetscCall(VecDestroy(&up));
    }
    {
      /* the factorisation is reused only under a Krylov method (a direct solve with an old
         factor would give wrong Newton steps) and in the full space (a VI solver changes the
         size of its reduced system) */
      PetscBool preonly;
      PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
      if (preonly) {
        /* a direct solve takes the factor's solution as the Newton step: it must be the double
           LU, not the single-precision preconditioner (about 1e-7 relative) */
        PC            pc1;
        PetscBool     islu, given;
        MatSolverType st;
        PetscCall(KSPGetPC(ksp, &pc1));
        PetscCall(PetscObjectTypeCompare((PetscObject)pc1, PCLU, &islu));
        if (islu) {
          PetscCall(PCFactorGetMatSolverType(pc1, &st));
          PetscCall(PetscStrcmp(st, MATSOLVERMUMPSSINGLE, &islu));
        }
        if (islu) {
          PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_factor_mat_solver_type", &given));
          PetscCheck(!given, s->comm, PETSC_ERR_USER_INPUT, "-pc_factor_mat_solver_type mumps_single is a single-precision preconditioner for a Krylov method; with -ksp_type preonly use -pc_factor_mat_solver_type mumps");
          PetscCall(PCReset(pc1)); /* a factor may exist already (the initial accelerations) */
          PetscCall(PCFactorSetMatSolverType(pc1, MATSOLVERMUMPS));
        }
      }
      s->pc_reuse_ok = !preonly && !s->vi && s->refactor_its > 0 ? PETSC_TRUE : PETSC_FALSE;
      PetscCall(TdOptionsBool(NULL, "newton_initial_guess", "start the first Krylov solve of each step from the last step's Newton correction (false: from zero)", PETSC_TRUE, &s->newton_guess, NULL));
      if (preonly || s->vi) s->newton_guess = PETSC_FALSE; /* a direct solve needs no guess; a VI solver changes the system's size */
      if (s->newton_guess) PetscCall(KSPSetInitialGuessNonzero(ksp, PETSC_TRUE));
    }
  }
  /* the kept LU's shell: corrected by the film block for cavitating films
     (film_correction.c), by the last solve's pairs (krylov_recycle.c) */
  PetscCall(TdSolverKeptLUSetUp(s, ksp));
  PetscCall(TdSolverFilmStiffnessLagSetUp(s, ksp));
  /* the Krylov operator without the assembled element blocks (element_operator.c) */
  PetscCall(TdSolverElementOperatorSetUp(s, ksp));
  if (s->newton_guess || s->recycle_max) PetscCall(KSPSetPreSolve(ksp, KrylovPreSolve, s));
  PetscCall(KSPGetPC(ksp, &pc));
  /* -pc_type fieldsplit: the named blocks; fieldsplit, gamg or ml: the bodies' rigid-body
     modes as the near-null space (preconditioner.c) */
  PetscCall(TdSolverSetUpPreconditioner(s, pc));
  {
    PetscReal atol_opt, rtol;
    PetscCall(SNESGetTolerances(s->snes, &atol_opt, &rtol, NULL, NULL, NULL));
    s->block_rtol = rtol;
    if (atol_opt != atol) s->block_atol[0] = s->block_atol[2] = atol_opt; /* -snes_atol given: it rules */
    PetscCall(PetscOptionsHasName(NULL, NULL, "-ksp_atol", &s->ksp_atol_given));
  }
  {
    /* the Krylov test by blocks (TdSolverKrylovBlockTest): for a Krylov method whose norm is the true
       residual's (right preconditioning, the default), in the full space (a VI solver solves a
       reduced system) and unless -ksp_atol sets the Krylov tolerance */
    KSPNormType nt;
    PetscBool   preonly, usable;
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
    PetscCall(KSPGetNormType(ksp, &nt));
    usable               = !s->vi && !s->ksp_atol_given && nt == KSP_NORM_UNPRECONDITIONED ? PETSC_TRUE : PETSC_FALSE;
    s->krylov_block_test = usable && !preonly ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(TdOptionsBool(NULL, "krylov_block_test", "Krylov solves of time steps stop once each residual block (bodies, films, drives) is below its share of its own Newton tolerance (-krylov_block_fraction; false, and always in static solves: once the whole residual is below a tenth of the smallest); needs right preconditioning and no -ksp_atol", s->krylov_block_test, &s->krylov_block_test, NULL));
    if (s->krylov_block_test) {
      PetscCheck(usable, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_block_test needs a Krylov method that measures the true residual (right preconditioning: -ksp_pc_side right), the full-space Newton (not a -snes_type vi* solver) and no -ksp_atol; drop it or set -krylov_block_test false");
      if (!s->krylov_default_ctx) {
        PetscCall(KSPConvergedDefaultCreate(&s->krylov_default_ctx));
        PetscCall(VecDuplicate(s->U, &s->krylov_t));
        PetscCall(VecDuplicate(s->U, &s->krylov_r));
      }
      PetscCall(KSPSetConvergenceTest(ksp, TdSolverKrylovBlockTest, s, NULL));
    }
    {
      /* A tenth leaves the body rows a linear residual of up to 1.6e-7 N on the paper's meshes,
         which the converged positions keep (Newton stops below 1.6e-6 N after that step): where
         each Krylov solve stops, which the ranks and the kept LU's ordering change, moves the far
         guide sensor's axial acceleration by 1.3e-8 of its peak.  0.001 for the bodies holds
         those runs within 4e-9 of each other.  Its price grows with the factor each extra Krylov
         iteration reads (README, "How closely one rank reproduces itself"): free on the paper's
         case (7 700 unknowns; 2 ranks, farm-bench five pairs, median ratio 0.997), 11 % on the
         middle level of the convergence study (40 000 unknowns, 0-5 ms, 2 ranks, three pairs:
         1.112) and 14 % over the finest (136 000).  Hence a thousandth for the bodies below
         -krylov_block_fraction_min unknowns and a tenth from there on.  Only under the (kept) LU:
         an iterative preconditioner pays for each further digit with many iterations
         (-pc_type ancf_amg on the guide alone, 4 800 unknowns, 0-1 ms: 70 GMRES iterations per
         Newton iteration instead of 36, and 71 Newton iterations instead of 54). */
      PetscInt  min_unknowns = 20000;
      PetscReal def[3]       = {0.1, 0.1, 0.1};
      PetscBool lu, fraction_set = PETSC_FALSE;
      PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCLU, &lu));
      PetscCall(TdOptionsInt(NULL, "krylov_block_fraction_min", "default of -krylov_block_fraction under the (kept) LU: 0.1,0.1,0.1 for models of at least this many unknowns, else 0.001,0.1,0.1 (histories that depend less on the rank count); other preconditioners 0.1,0.1,0.1", min_unknowns, &min_unknowns, NULL));
      if (s->N < min_unknowns && (lu || s->kept_lu)) def[0] = 0.001;
      PetscCall(TdOptionsRealArray(NULL, "krylov_block_fraction", "with -krylov_block_test: the fraction of its Newton tolerance below which each block's linear residual (bodies, films, drives) ends a Krylov solve, in (0, 1]; default from -krylov_block_fraction_min", NULL, 3, def, s->krylov_block_fraction, &fraction_set));
      for (PetscInt b = 0; b < 3; b++) PetscCheck(s->krylov_block_fraction[b] > 0 && s->krylov_block_fraction[b] <= 1, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_block_fraction: %g is not a fraction; give three numbers in (0, 1] (bodies, films, drives), e.g. 0.1,0.1,0.1", (double)s->krylov_block_fraction[b]);
      /* A step that follows a step of one Newton iteration (the settled motion) mostly takes one
         iteration too, whose Krylov solve the share decides alone: with a tenth the kept LU's
         first iteration (a residual about 300 times below the Krylov start) leaves the bodies'
         and films' blocks above their shares and a second iteration follows in nearly every
         step; with a half most steps stop after one.  The Newton test is the same, and so were
         the Newton iterations (finest level, 52.65-62.65 ms: 199 both, 313 against 408 Krylov
         iterations).  Not after a step of several iterations (impact, moving cavitation
         fronts): there the looser shares let the kept LU age, fewer solves reaching
         -refactor_its, and cost more iterations than they saved (finest level 5-6 ms: 417
         against 356 Krylov iterations, 4 against 5 factorisations).  Large models only (the
         recycled pairs' size, -krylov_block_fraction_settled_min), as the share moves the
         histories by where each solve stops (README, "How closely one rank reproduces itself"). */
      {
        PetscInt  settled_min = 50000;
        PetscReal sdef[3]     = {s->krylov_block_fraction[0], s->krylov_block_fraction[1], s->krylov_block_fraction[2]};
        PetscCall(TdOptionsInt(NULL, "krylov_block_fraction_settled_min", "default of -krylov_block_fraction_settled under the (kept) LU: a half for the bodies and films for models of at least this many unknowns, else (and whenever -krylov_block_fraction is given) -krylov_block_fraction's shares", settled_min, &settled_min, NULL));
        /* shares given with -krylov_block_fraction hold for every step unless these are given too */
        if (s->N >= settled_min && (lu || s->kept_lu) && !fraction_set) {
          sdef[0] = PetscMax(0.5, sdef[0]);
          sdef[1] = PetscMax(0.5, sdef[1]);
        }
        PetscCall(TdOptionsRealArray(NULL, "krylov_block_fraction_settled", "with -krylov_block_test: the shares (bodies, films, drives) of a time step that follows a step of one Newton iteration, in (0, 1]; default from -krylov_block_fraction_settled_min", NULL, 3, sdef, s->krylov_block_fraction_settled, NULL));
        for (PetscInt b = 0; b < 3; b++) PetscCheck(s->krylov_block_fraction_settled[b] > 0 && s->krylov_block_fraction_settled[b] <= 1, s->comm, PETSC_ERR_USER_INPUT, "Option -krylov_block_fraction_settled: %g is not a fraction; give three numbers in (0, 1] (bodies, films, drives), e.g. 0.5,0.5,0.1", (double)s->krylov_block_fraction_settled[b]);
      }
    }
    /* the test's residual from the recording operator's products (krylov_residual.c) */
    PetscCall(TdSolverKrylovResidualSetUp(s));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverDestroy(TdSolver *solver)
{
  TdSolver s = *solver;
  PetscFunctionBegin;
  if (!s) PetscFunctionReturn(0);
  PetscCall(SNESDestroy(&s->snes));
  PetscCall(TdSolverElementOperatorDestroy(s));
  PetscCall(TdSolverPCTypesForget(s));
  if (s->krylov_default_ctx) PetscCall(KSPConvergedDefaultDestroy(s->krylov_default_ctx));
  PetscCall(VecDestroy(&s->krylov_t));
  PetscCall(VecDestroy(&s->krylov_r));
  PetscCall(TdSolverKeptLUDestroy(s));
  PetscCall(MatDestroy(&s->J));
  PetscCall(VecDestroy(&s->U));
  PetscCall(VecDestroy(&s->R));
  PetscCall(VecDestroy(&s->U0));
  PetscCall(VecDestroy(&s->Uguess));
  PetscCall(VecDestroy(&s->Useq));
  PetscCall(VecDestroy(&s->Rseq));
  PetscCall(VecScatterDestroy(&s->toall));
  PetscCall(TdSolverGhostsDestroy(s));
  PetscCall(VecDestroy(&s->ck_natural));
  PetscCall(VecDestroy(&s->ck_full));
  PetscCall(VecScatterDestroy(&s->ck_tonatural));
  PetscCall(VecScatterDestroy(&s->ck_tofull));
  PetscCall(PetscFree(s->coo_v));
  PetscCall(PetscFree(s->pc_mat_v));
  PetscCall(PetscFree3(s->chunk_start, s->chunk_elem, s->elem_chunk));
  PetscCall(PetscFree(s->tangent_buf));
  PetscCall(VecDestroy(&s->floor_u));
  PetscCall(VecDestroy(&s->floor_r));
  PetscCall(PetscFree(s->q));
  PetscCall(PetscFree(s->v));
  PetscCall(PetscFree(s->a));
  PetscCall(PetscFree(s->qdd));
  PetscCall(PetscFree(s->q1));
  PetscCall(PetscFree(s->v1));
  PetscCall(PetscFree(s->a1));
  PetscCall(PetscFree(s->qdd1));
  PetscCall(PetscFree(s->lambda));
  PetscCall(PetscFree(s->work));
  PetscCall(PetscFree(s->thread_r));
  PetscCall(PetscFree(s->rot_work));
  PetscCall(PetscFree(s->film_r));
  PetscCall(PetscFree(s->film_reduce));
  PetscCall(TdSolverFilmRowsDestroy(s));
  PetscCall(TdCOOMapDestroy(&s->coo_map));
  PetscCall(PetscFree(s->film_load));
  PetscCall(PetscFree(s->film_friction));
  PetscCall(PetscFree(s->res_u));
  PetscCall(PetscFree(s->elem_strain));
  PetscCall(PetscFree4(s->jfo_theta, s->jfo_p, s->jfo_shift, s->jfo_active));
  PetscCall(PetscFree(s->jfo_active_pc));
  PetscCall(PetscFree(s->ncp_shift));
  PetscCall(PetscFree(s->ncp_active));
  PetscCall(PetscFree(s->ncp_active_pc));
  PetscCall(PetscFree2(s->film_u_start, s->film_u_rate));
  PetscCall(PetscFree(s->film_coo_rows));
  PetscCall(PetscFree(s->ncp_rows));
  PetscCall(PetscFree2(s->element_rank, s->to_petsc));
  PetscCall(PetscFree(s->owned));
  PetscCall(PetscFree(s->elem_local));
  PetscCall(PetscFree(s));
  *solver = NULL;
  PetscFunctionReturn(0);
}

/* Fills U from the full vector x (free entries) and the multipliers. */
static PetscErrorCode SetUnknowns(TdSolver s, const PetscReal x[], const PetscReal lambda[])
{
  TdModel     m = s->model;
  PetscInt    lo, hi;
  PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverFreeFull(s));
  PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
  PetscCall(VecGetArray(s->U, &u));
  /* this rank's unknowns (owned: their natural indices), not a pass over every coordinate */
  for (PetscInt k = 0; k < hi - lo; k++) {
    const PetscInt i = s->owned[k];
    if (i < m->nfree) u[k] = x[s->free_full[i]];
    else if (i >= m->row_offset) u[k] = lambda[i - m->row_offset] / s->row_scale;
  }
  PetscCall(VecRestoreArray(s->U, &u));
  PetscFunctionReturn(0);
}

/* After a converged solve: the state of the solution and its multipliers, on this rank's ghost
   set (state_ghosts.c: what its residuals, Jacobians and output records read; rank 0's holds
   every multiplier, each rank's the rows it owns).  The rest of the state arrays keeps older
   values until a new set or a whole record asks the owners (TdSolverStateFromOwners). */
static PetscErrorCode GetMultipliers(TdSolver s)
{
  const PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverIterateFromVec(s, s->U, PETSC_FALSE));
  PetscCall(VecGetArrayRead(s->Useq, &u));
  for (PetscInt c = 0; c < s->model->nrows; c++) s->lambda[c] = s->row_scale * u[s->model->row_offset + c];
  PetscCall(VecRestoreArrayRead(s->Useq, &u));
  PetscFunctionReturn(0);
}

static PetscErrorCode Solve(TdSolver s, PetscBool *converged)
{
  SNESConvergedReason reason;
  PetscInt            its, lits, lag;
  PetscFunctionBegin;
  /* A Jacobian kept by -snes_lag_jacobian -1/-2 (modified Newton, e.g. for small vibrations)
     must be rebuilt when it belongs to another mode or step size: the Newton matrix carries
     1/(beta' dt^2) and gamma/(beta dt). */
  PetscCall(SNESGetLagJacobian(s->snes, &lag));
  if (lag < 0 && (s->mode != TD_MODE_DYNAMIC || s->jacobian_dt != s->step_dt)) PetscCall(SNESSetLagJacobian(s->snes, -2));
  s->film_fuse_next = PETSC_TRUE;
  PetscCall(SNESSolve(s->snes, NULL, s->U));
  s->film_fuse_next = s->film_jac_ready = PETSC_FALSE;
  PetscCall(SNESGetConvergedReason(s->snes, &reason));
  PetscCall(SNESGetIterationNumber(s->snes, &its));
  PetscCall(SNESGetLinearSolveIterations(s->snes, &lits));
  s->newton_its += its;
  s->linear_its += lits;
  *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
  s->last_step_its = s->mode == TD_MODE_DYNAMIC && *converged ? its : -1;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverInitialize(TdSolver s)
{
  TdModel   m = s->model;
  PetscBool ok;
  PetscFunctionBegin;
  for (PetscInt i = 0; i < m->nfull; i++) {
    s->q[i] = m->q_ref[i];
    s->v[i] = s->a[i] = s->qdd[i] = 0;
  }
  for (PetscInt b = 0; b < m->nbodies; b++) {
    const TdBody *body = &m->bodies[b];
    if (body->type == TD_BODY_FREE) { /* r' = v0, a_k' = w x a_k with a_k = e_k */
      const PetscReal *w = body->initial_angular_velocity;
      PetscReal       *v = &s->v[TD_NODE_DOF * body->node_offset];
      for (PetscInt i = 0; i < 3; i++) v[i] = body->initial_velocity[i];
      for (PetscInt kk = 0; kk < 3; kk++) {
        const PetscReal e[3] = {kk == 0, kk == 1, kk == 2};
        vec3_cross(w, e, &v[3 * (1 + kk)]);
      }
      continue;
    }
    if (body->type != TD_BODY_ANCF) continue;
    for (PetscInt n = 0; n < body->mesh.nnodes; n++)
      for (PetscInt i = 0; i < 3; i++)
        if (!((body->clamped[n] >> i) & 1)) s->v[TD_NODE_DOF * (body->node_offset + n) + i] = body->initial_velocity[i];
  }
  s->t = 0;
  if (s->mode == TD_MODE_STATIC) PetscFunctionReturn(0);
  /* consistent initial accelerations: M qdd + Phi_q^T lambda = Q(q0, v0, 0), Phi_q qdd = b''(0) */
  s->mode      = TD_MODE_ACCELERATION;
  s->row_scale = m->mass_per_node;
  PetscCall(SetUnknowns(s, s->qdd, s->lambda));
  s->in_setup = PETSC_TRUE;
  {
    /* JFO film fractions: by default this quasi-static solve (no time term in (F18)) sets them
       to the film's quasi-steady balance at t = 0, starting from a full film, which a steadily
       running bearing wants.  A film given -<f>_theta0 has them as its initial condition (a
       starved film), which that balance would overwrite (to an empty film under a squeeze):
       they are kept as they were */
    PetscScalar *u, *theta0 = NULL;
    PetscInt     lo, hi;
    PetscCall(VecGetOwnershipRange(s->U, &lo, &hi));
    if (s->njfo) PetscCall(PetscMalloc1(s->njfo, &theta0));
    PetscCall(VecGetArray(s->U, &u));
    for (PetscInt i = 0; i < s->njfo; i++) {
      const PetscInt kt = s->to_petsc[s->jfo_theta[i]];
      theta0[i]         = kt >= lo && kt < hi ? u[kt - lo] : 0;
    }
    PetscCall(VecRestoreArray(s->U, &u));
    PetscCall(Solve(s, &ok));
    PetscCall(VecGetArray(s->U, &u));
    for (PetscInt i = 0, fi = -1, left = 0; i < s->njfo; i++, left--) {
      if (left == 0) /* the next JFO film's rows */
        for (fi++; fi < m->nfilms; fi++)
          if (m->films[fi].cavitation == TD_CAVITATION_JFO && (left = m->films[fi].nunknowns / 2) > 0) break;
      const PetscInt kt = s->to_petsc[s->jfo_theta[i]];
      if (m->films[fi].theta0_set && kt >= lo && kt < hi) u[kt - lo] = theta0[i];
    }
    PetscCall(VecRestoreArray(s->U, &u));
    PetscCall(PetscFree(theta0));
  }
  s->in_setup = PETSC_FALSE;
  if (!ok) SETERRQ(s->comm, PETSC_ERR_NOT_CONVERGED, "The consistent initial accelerations could not be computed (the linear solve failed); check that every body is held or free to move as intended (-snes_monitor -ksp_view show more)");
  PetscCall(GetMultipliers(s));
  for (PetscInt i = 0; i < m->nfull; i++) s->a[i] = s->qdd[i] = s->qdd1[i];
  s->newton_its = s->linear_its = 0;
  PetscFunctionReturn(0);
}

/*
  Film pressure predictor.  The bodies' predictor is generalised-alpha's (q + dt v + dt^2/2 a);
  the film unknowns have no rate of their own, and keeping p_n made them the largest part of the
  first Newton step.  Extrapolating linearly, p = p_n + dt (p_n - p_{n-1})/dt_{n-1}, starts
  Newton nearer the solution; on the cavitation bound the prediction is cut at p_cav.  The film
  range of the unknowns is [nfree, row_offset); TdSolverFilmSlice gives this rank's part of it
  (solver_private.h).
*/
PetscErrorCode TdSolverOwnedSlice(TdSolver s, PetscInt begin, PetscInt end, PetscInt *first, PetscInt *n, PetscInt *offset)
{
  PetscInt rlo, rhi, a = 0, b;
  PetscFunctionBegin;
  /* owned is ascending: this rank's unknowns of [begin, end) are the entries [a, b) of its part
     of U */
  PetscCall(VecGetOwnershipRange(s->U, &rlo, &rhi));
  while (a < rhi - rlo && s->owned[a] < begin) a++;
  b = a;
  while (b < rhi - rlo && s->owned[b] < end) b++;
  if (first) *first = rlo + a;
  *n = b - a;
  if (offset) *offset = a;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverFilmSlice(TdSolver s, PetscInt *first, PetscInt *n, PetscInt *offset)
{
  PetscFunctionBegin;
  PetscCall(TdSolverOwnedSlice(s, s->model->nfree, s->model->row_offset, first, n, offset));
  PetscFunctionReturn(0);
}

static PetscErrorCode PredictPressures(TdSolver s, PetscReal dt)
{
  PetscInt     first = 0, n = 0, off = 0;
  PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmSlice(s, &first, &n, &off)); /* first: in U's numbering */
  if (!n || !s->film_u_start) PetscFunctionReturn(0);
  PetscCall(VecGetArray(s->U, &u));
  for (PetscInt k = 0; k < n; k++) {
    PetscScalar *uk = &u[off + k];
    s->film_u_start[k] = *uk;
    if (s->extrapolate_pressure && s->have_pressure_rate) {
      *uk += dt * s->film_u_rate[k];
      if (s->ncp_shift && PetscRealPart(*uk) < s->ncp_shift[s->owned[off + k]]) *uk = s->ncp_shift[s->owned[off + k]];
    }
  }
  if (s->extrapolate_pressure && s->have_pressure_rate)
    for (PetscInt i = 0; i < s->njfo; i++) {
      /* a film fraction stays a fraction */
      const PetscInt kt = s->to_petsc[s->jfo_theta[i]];
      if (kt >= first && kt < first + n) u[off + kt - first] = PetscMax(0, PetscMin(1, PetscRealPart(u[off + kt - first])));
    }
  PetscCall(VecRestoreArray(s->U, &u));
  PetscFunctionReturn(0);
}

/* before halving a failed step: the film unknowns of the step's start (p_n) */
static PetscErrorCode RestorePressures(TdSolver s)
{
  PetscInt     n = 0, off = 0;
  PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmSlice(s, NULL, &n, &off));
  if (!n || !s->film_u_start) PetscFunctionReturn(0);
  PetscCall(VecGetArray(s->U, &u));
  for (PetscInt k = 0; k < n; k++) u[off + k] = s->film_u_start[k];
  PetscCall(VecRestoreArray(s->U, &u));
  PetscFunctionReturn(0);
}

static PetscErrorCode UpdatePressureRate(TdSolver s, PetscReal dt)
{
  PetscInt           n = 0, off = 0;
  const PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(TdSolverFilmSlice(s, NULL, &n, &off));
  if (!n || !s->film_u_start) PetscFunctionReturn(0);
  PetscCall(VecGetArrayRead(s->U, &u));
  for (PetscInt k = 0; k < n; k++) s->film_u_rate[k] = (u[off + k] - s->film_u_start[k]) / dt;
  PetscCall(VecRestoreArrayRead(s->U, &u));
  s->have_pressure_rate = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static PetscErrorCode StepRecursive(TdSolver s, PetscReal dt, PetscInt depth)
{
  TdModel   m = s->model;
  PetscBool ok;
  PetscFunctionBegin;
  s->mode      = TD_MODE_DYNAMIC;
  s->step_dt   = dt;
  s->film_miss[0] = 0;
  s->row_scale = m->mass_per_node * galpha_mass_coefficient(&s->ga, dt);
  TdJointsStepStart(m, s->q, s->v); /* clearance joints' approach speeds (F24) */
  PetscCall(TdSolverGhostsUpdate(s, PETSC_FALSE)); /* the faces around the films' points now */
  {
    /* on the coordinates a residual reads (and those this rank owns, which are among them): the
       state elsewhere is older and nothing reads it (TdSolverIterateRuns) */
    const PetscInt *run;
    const PetscInt  nrun = TdSolverIterateRuns(s, &run);
    for (PetscInt k = 0; k < nrun; k++) galpha_predict(&s->ga, dt, run[2 * k + 1] - run[2 * k], &s->q[run[2 * k]], &s->v[run[2 * k]], &s->a[run[2 * k]], &s->q1[run[2 * k]]);
  }
  if (s->njfo) {
    /* the film fractions at the start of the step, for their time term (F18) */
    const PetscScalar *u;
    PetscCall(TdSolverIterateScatter(s, s->U, PETSC_FALSE)); /* the fractions of this rank's quads, the only ones it uses */
    PetscCall(VecGetArrayRead(s->Useq, &u));
    TdFilmsStepStart(m, u);
    PetscCall(VecRestoreArrayRead(s->Useq, &u));
  }
  /* The film-body coupling pattern follows the iterates: the first Jacobian that meets a face
     pair outside it rebuilds it (TdSolverJacobian). */
  PetscCall(SetUnknowns(s, s->q1, s->lambda));
  PetscCall(PredictPressures(s, dt));
  PetscCall(VecCopy(s->U, s->U0));
  PetscCall(Solve(s, &ok));
  if (!ok && m->nfilms) {
    SNESConvergedReason reason;
    PetscInt            its;
    PetscCall(SNESGetConvergedReason(s->snes, &reason));
    PetscCall(SNESGetIterationNumber(s->snes, &its));
    if (reason == SNES_DIVERGED_FUNCTION_DOMAIN && its == 0) {
      /* the predictor drives a film point off its surface or through the film (after a strong
         deceleration by the film, say): start Newton from the last converged state instead */
      PetscCall(PetscInfo(s->snes, "predictor outside the film's domain at t = %g s (%s): Newton starts from the last state\n", (double)(s->t + dt), s->film_miss));
      PetscCall(PetscArraycpy(s->q1, s->q, m->nfull));
      PetscCall(SetUnknowns(s, s->q1, s->lambda));
      PetscCall(VecCopy(s->U, s->U0));
      PetscCall(Solve(s, &ok));
    }
  }
  if (!ok && s->pc_reuse_ok) {
    /* a kept factorisation may have preconditioned this step badly (GMRES did not converge):
       the same step again from the same start with a fresh one, before halving */
    s->pc_ready = PETSC_FALSE;
    PetscCall(VecCopy(s->U0, s->U));
    PetscCall(Solve(s, &ok));
  }
  if (!ok) {
    SNESConvergedReason reason;
    PetscCall(SNESGetConvergedReason(s->snes, &reason));
    s->rejected++;
    if (depth >= s->max_halvings)
      SETERRQ(s->comm, PETSC_ERR_NOT_CONVERGED, "Newton did not converge at t = %g s (%s) even after halving the step %" PetscInt_FMT " times (dt = %g s)%s%s; try a smaller -dt, more -max_step_halvings, or look at -snes_monitor -snes_converged_reason", (double)s->t, SNESConvergedReasons[reason], depth, (double)dt, s->film_miss[0] ? "; last film problem: " : "", s->film_miss);
    PetscCall(PetscInfo(s->snes, "step at t = %g with dt = %g failed (%s); halving\n", (double)s->t, (double)dt, SNESConvergedReasons[reason]));
    PetscCall(RestorePressures(s));
    PetscCall(StepRecursive(s, dt / 2, depth + 1));
    PetscCall(StepRecursive(s, dt / 2, depth + 1));
    PetscFunctionReturn(0);
  }
  PetscCall(GetMultipliers(s));
  PetscCall(UpdatePressureRate(s, dt));
  if (s->newton_guess) {
    /* this step's Newton correction (SNES's sign: U = U0 - Y), the next one's first guess */
    PetscCall(VecWAXPY(s->Uguess, -1, s->U, s->U0));
    s->have_guess = PETSC_TRUE;
    s->guess_dt   = dt;
  }
  {
    /* the iterate's state where its last residual formed it (TdSolverIterateRuns; the state
       outside the ghost set stays older: TdSolverStateFromOwners) */
    const PetscInt *run;
    const PetscInt  nrun = TdSolverIterateRuns(s, &run);
    for (PetscInt k = 0; k < nrun; k++)
      for (PetscInt i = run[2 * k]; i < run[2 * k + 1]; i++) {
        s->q[i]   = s->q1[i];
        s->v[i]   = s->v1[i];
        s->a[i]   = s->a1[i];
        s->qdd[i] = s->qdd1[i];
      }
  }
  s->t += dt;
  s->steps++;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverStep(TdSolver s, PetscReal dt)
{
  PetscFunctionBegin;
  PetscCall(StepRecursive(s, dt, 0));
  PetscFunctionReturn(0);
}

static PetscReal StaticRowScale(TdModel m)
{
  PetscReal scale = 0;
  for (PetscInt b = 0; b < m->nbodies; b++) {
    const TdBody *body = &m->bodies[b];
    if (body->type == TD_BODY_ANCF && body->mesh.ncells) scale = PetscMax(scale, body->E * PetscMin(body->mesh.size[0], PetscMin(body->mesh.size[1], body->mesh.size[2])));
  }
  return scale > 0 ? scale : 1;
}

static PetscErrorCode StaticRecursive(TdSolver s, PetscReal from, PetscReal to, PetscInt depth)
{
  TdModel   m = s->model;
  PetscBool ok;
  PetscFunctionBegin;
  s->mode        = TD_MODE_STATIC;
  s->load_factor = to;
  s->row_scale   = StaticRowScale(m);
  PetscCall(SetUnknowns(s, s->q, s->lambda));
  PetscCall(Solve(s, &ok));
  if (!ok) {
    s->rejected++;
    if (depth >= s->max_halvings)
      SETERRQ(s->comm, PETSC_ERR_NOT_CONVERGED, "Static Newton did not converge at load factor %g even after halving the increment %" PetscInt_FMT " times; use more -load_steps or look at -snes_monitor", (double)to, depth);
    PetscCall(StaticRecursive(s, from, 0.5 * (from + to), depth + 1));
    PetscCall(StaticRecursive(s, 0.5 * (from + to), to, depth + 1));
    PetscFunctionReturn(0);
  }
  PetscCall(GetMultipliers(s));
  for (PetscInt i = 0; i < m->nfull; i++) s->q[i] = s->q1[i];
  s->steps++;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverStatic(TdSolver s, PetscReal load_factor)
{
  PetscFunctionBegin;
  PetscCall(StaticRecursive(s, s->load_factor, load_factor, 0));
  s->t = load_factor;
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverEnergy(TdSolver s, PetscBool at_last_residual, PetscReal *kinetic, PetscReal *strain)
{
  TdModel   m  = s->model;
  PetscReal ek = 0, es = 0, sum[2];
  PetscFunctionBegin;
#pragma omp parallel reduction(+ : ek, es)
  {
    Ancf3843Work *work = &s->work[omp_get_thread_num()];
#pragma omp for schedule(static)
    for (PetscInt le = 0; le < s->nelem_local; le++) {
      const PetscInt          e    = s->elem_local[le];
      const TdBody           *body = &m->bodies[m->element_body[e]];
      const Ancf3843Geometry *geo  = &body->geometry[body->cell_geometry[m->element_cell[e]]];
      PetscReal               eq[NDOF], ev[NDOF], w;
      TdModelElementGather(m, e, s->v, PETSC_FALSE, ev);
      if (at_last_residual) w = s->elem_strain[le];
      else {
        TdModelElementGather(m, e, s->q, PETSC_TRUE, eq);
        ancf3843_internal_force(geo, &body->material, eq, NULL, NULL, &w, work); /* the energy only */
      }
      es += w;
      for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
        for (PetscInt l = 0; l < ANCF3843_NSHAPE; l++) ek += 0.5 * body->rho * geo->mass_unit[k][l] * (ev[3 * k] * ev[3 * l] + ev[3 * k + 1] * ev[3 * l + 1] + ev[3 * k + 2] * ev[3 * l + 2]);
    }
  }
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
    for (PetscInt b = 0; b < (rank == 0 ? m->nbodies : 0); b++) { /* free rigid bodies: (1/2) v^T M v */
      const TdBody    *body = &m->bodies[b];
      const PetscReal *v    = &s->v[TD_NODE_DOF * body->node_offset];
      if (body->type != TD_BODY_FREE) continue;
      ek += 0.5 * body->mass * (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      for (PetscInt kk = 0; kk < 3; kk++)
        for (PetscInt l = 0; l < 3; l++) ek += 0.5 * body->J[3 * kk + l] * (v[3 + 3 * kk] * v[3 + 3 * l] + v[4 + 3 * kk] * v[4 + 3 * l] + v[5 + 3 * kk] * v[5 + 3 * l]);
    }
  }
  sum[0] = ek;
  sum[1] = es;
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, sum, 2, MPIU_REAL, MPIU_SUM, s->comm));
  *kinetic = sum[0];
  *strain  = sum[1];
  PetscFunctionReturn(0);
}

void TdSolverJointOutput(TdSolver s, PetscInt j, PetscReal f[3], PetscReal moment[3], PetscReal *angle, ClearanceContactState *contact)
{
  const TdJoint        *joint = &s->model->joints[j];
  PetscInt              r     = joint->first_row;
  PetscReal             mom[3] = {0, 0, 0};
  ClearanceContactState st;
  f[0] = f[1] = f[2] = 0;
  if (joint->type == TD_JOINT_CLEARANCE) {
    TdJointClearanceOutput(s->model, j, s->q, s->v, f, mom, &st);
    if (contact) *contact = st;
  } else if (joint->type >= TD_JOINT_SPHERICAL) TdJointIdealOutput(s->model, j, s->q, s->lambda, f, mom, angle);
  else if (joint->type == TD_JOINT_POINT) {
    for (PetscInt c = 0; c < 3; c++)
      if (joint->component[c]) f[c] = -s->lambda[r++];
  } else {
    f[0] = -s->lambda[r];
    f[1] = -s->lambda[r + 1];
  }
  if (moment)
    for (PetscInt i = 0; i < 3; i++) moment[i] = mom[i];
}

