/*
  Checkpoint and restart of a dynamic run (issue 12; the arrays go under /checkpoint of the result
  file, src/io/output_checkpoint.c).

  A restart must continue the run as if it had never stopped: to 1e-10 in every history on the
  same number of ranks.  The state alone (q, v, a, qdd, multipliers, film pressures) is not
  enough for that, because the Newton-Krylov path depends on history: a Newton solve stops
  within its tolerance, and where exactly depends on the preconditioner and the start.  Solving
  one step with a fresh factorisation instead of the kept one moved the drive reaction by 1e-6
  and the accelerations by 1e-9 (relative).  So a checkpoint also holds everything the next
  steps' path depends on:
    - the generalised-alpha state q, v, a (algorithmic accelerations), qdd, the multipliers, the
      unknowns U (film pressures included), t and the solver's mode, step size and row scale;
    - the predictors' history: the last Newton correction (the first Krylov guess of a step) and
      the film pressures' rate (their extrapolation);
    - the projections' warm starts (face and face coordinates of every film Gauss point and
      node), which decide where the next projections start and so their last bits;
    - on the same number of ranks: each rank's film-body coupling pattern (the matrix's
      nonzero pattern, and with it MUMPS's ordering) and the values of the Jacobian that the
      kept factorisation was made from, with the iteration count and outcome of the last Krylov
      solve (which decide whether the next Jacobian is factored again).  A restart installs the
      pattern and factors that same matrix, so it continues with the same preconditioner.
  On another number of ranks the per-rank data do not apply: the pattern is rebuilt from the
  state and the next Jacobian is factored afresh; the run continues correctly, within the
  differences between rank counts (1e-8 relative, README "Running in parallel").
  A signature of the model (counts and a hash of the reference geometry) is stored and checked,
  so that a file is not continued with another model.
  On several ranks nothing is gathered to write a checkpoint: the natural-order arrays go by
  parts (NaturalScatters below), the films' hits by each rank's strip, the per-rank data by rank.
*/
#include <tribodyn/solver.h>
#include <tribodyn/output.h>
#include "solver_private.h"
#include <string.h>

/* the layout of the "scalars" array (append only: older files read with the same indices) */
enum {
  CK_T,
  CK_DT,
  CK_STEP_DT,
  CK_ROW_SCALE,
  CK_LOAD_FACTOR,
  CK_MODE,
  CK_HAVE_GUESS,
  CK_GUESS_DT,
  CK_HAVE_PRESSURE_RATE,
  CK_PC_READY,
  CK_PC_MODE,
  CK_PC_DT,
  CK_JACOBIAN_DT,
  CK_LAST_LITS,
  CK_LAST_KREASON,
  CK_STEPS,
  CK_REJECTED,
  CK_FACTORIZATIONS,
  CK_PATTERN_REBUILDS,
  CK_NEWTON_ITS,
  CK_LINEAR_ITS,
  CK_NRANKS,
  CK_BODY_FLOOR,       /* from here on absent from the checkpoints of earlier versions */
  CK_FLOOR_STEPS_LEFT,
  CK_RECYCLE_PENDING,  /* from here on absent from the checkpoints of earlier versions */
  CK_RECYCLE_IT,
  CK_PARTITION,        /* 1: the graph partition, 0: contiguous slices (-partition false) */
  CK_FILM_QQ_VALID,    /* 1: film_stiffness_values holds the kept dQ/dq blocks (-film_stiffness_lag) */
  CK_LAST_STEP_ITS,    /* the last time step's Newton iterations (-krylov_block_fraction_settled); -1: none */
  CK_NSCALARS
};

/* FNV-1a over the bytes of n doubles: a fingerprint of the reference geometry */
static PetscInt64 HashReals(PetscInt64 h, PetscInt n, const PetscReal v[])
{
  const unsigned char *b = (const unsigned char *)v;
  PetscInt64           x = h;
  for (size_t i = 0; i < (size_t)n * sizeof(PetscReal); i++) {
    x ^= (PetscInt64)b[i];
    x *= (PetscInt64)1099511628211LL;
  }
  return x & 0x7fffffffffffffffLL;
}

/* The model's signature: counts, then one hash of every reference coordinate and film node.
   sig has room for 8 + 2 nbodies + 3 nfilms + 1 entries. */
static PetscInt ModelSignature(TdModel m, PetscInt64 sig[])
{
  PetscInt   k = 0;
  PetscInt64 h = (PetscInt64)1469598103934665603LL;
  sig[k++]     = 1; /* layout version */
  sig[k++]     = m->nfull;
  sig[k++]     = m->nfree;
  sig[k++]     = m->row_offset;
  sig[k++]     = m->nrows;
  sig[k++]     = m->nbodies;
  sig[k++]     = m->nfilms;
  sig[k++]     = m->nelements;
  for (PetscInt b = 0; b < m->nbodies; b++) {
    sig[k++] = m->bodies[b].mesh.nnodes;
    sig[k++] = m->bodies[b].mesh.ncells;
  }
  for (PetscInt f = 0; f < m->nfilms; f++) {
    sig[k++] = m->films[f].surface.nnodes;
    sig[k++] = m->films[f].surface.nquads;
    sig[k++] = m->films[f].nunknowns;
  }
  h = HashReals(h, m->nfull, m->q_ref);
  for (PetscInt b = 0; b < m->nbodies; b++) h = HashReals(h, 3 * m->bodies[b].mesh.nnodes, m->bodies[b].mesh.X);
  for (PetscInt f = 0; f < m->nfilms; f++) h = HashReals(h, 3 * m->films[f].surface.nnodes, m->films[f].surface.X);
  sig[k++] = h;
  return k;
}

static PetscErrorCode CheckSignature(TdModel m, const char path[], PetscInt n, const PetscInt64 stored[])
{
  PetscInt64 *sig;
  PetscInt    k;
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(9 + 2 * m->nbodies + 3 * m->nfilms, &sig));
  k = ModelSignature(m, sig);
  if (n == k && !memcmp(sig, stored, (size_t)k * sizeof(PetscInt64))) {
    PetscCall(PetscFree(sig));
    PetscFunctionReturn(0);
  }
  {
    /* say what differs, in the user's terms */
    char msg[1024] = "its reference geometry differs (a body's box or mesh, or a film's surface)";
    if (n < 8 || stored[5] != m->nbodies || stored[6] != m->nfilms) PetscCall(PetscSNPrintf(msg, sizeof msg, "it has %d bodies and %d films, this run %d and %d", n >= 8 ? (int)stored[5] : -1, n >= 8 ? (int)stored[6] : -1, (int)m->nbodies, (int)m->nfilms));
    else {
      PetscBool found = PETSC_FALSE;
      for (PetscInt b = 0; b < m->nbodies && !found; b++)
        if (stored[8 + 2 * b] != m->bodies[b].mesh.nnodes || stored[9 + 2 * b] != m->bodies[b].mesh.ncells) {
          PetscCall(PetscSNPrintf(msg, sizeof msg, "its body %s has %d nodes and %d cells, in this run %d and %d (a different mesh)", m->bodies[b].name, (int)stored[8 + 2 * b], (int)stored[9 + 2 * b], (int)m->bodies[b].mesh.nnodes, (int)m->bodies[b].mesh.ncells));
          found = PETSC_TRUE;
        }
      for (PetscInt f = 0; f < m->nfilms && !found; f++) {
        const PetscInt64 *fs = &stored[8 + 2 * m->nbodies + 3 * f];
        if (fs[0] != m->films[f].surface.nnodes || fs[1] != m->films[f].surface.nquads || fs[2] != m->films[f].nunknowns) {
          PetscCall(PetscSNPrintf(msg, sizeof msg, "its film %s has %d nodes and %d quads, in this run %d and %d (a different film mesh)", m->films[f].name, (int)fs[0], (int)fs[1], (int)m->films[f].surface.nnodes, (int)m->films[f].surface.nquads));
          found = PETSC_TRUE;
        }
      }
      if (!found && (stored[1] != m->nfull || stored[4] != m->nrows)) PetscCall(PetscSNPrintf(msg, sizeof msg, "it has %d coordinates and %d constraint rows, this run %d and %d (different clamps or joints)", (int)stored[1], (int)stored[4], (int)m->nfull, (int)m->nrows));
    }
    PetscCall(PetscFree(sig));
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "-restart %s: the file was written by another model than this run builds: %s. A restart continues the same model; drop the command-line options that change it", path, msg);
  }
}

/* A per-rank array (keys, or else reals: isint) as one checkpoint array of the ranks' parts in
   rank order, each written by its rank, and counts_name, the parts' lengths, which a restart on
   as many ranks hands back out. */
static PetscErrorCode PutPerRank(TdSolver s, TdOutput out, const char name[], const char counts_name[], PetscInt n, PetscBool isint, const PetscInt64 keys[], const PetscReal vals[])
{
  PetscMPIInt rank, size, mine = (PetscMPIInt)n, *cnt = NULL;
  PetscInt64 *counts = NULL;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  if (isint) PetscCall(TdOutputCheckpointPutIntDistributed(out, name, n, keys));
  else PetscCall(TdOutputCheckpointPutRealDistributed(out, name, n, vals));
  if (rank == 0) PetscCall(PetscMalloc2(size, &cnt, size, &counts));
  PetscCallMPI(MPI_Gather(&mine, 1, MPI_INT, cnt, 1, MPI_INT, 0, s->comm));
  for (PetscMPIInt r = 0; rank == 0 && r < size; r++) counts[r] = cnt[r];
  PetscCall(TdOutputCheckpointPutInt(out, counts_name, rank ? 0 : size, counts));
  if (rank == 0) PetscCall(PetscFree2(cnt, counts));
  PetscFunctionReturn(0);
}

/*
  The natural-order arrays of a checkpoint (U and U_guess over the unknowns, q, v, a, qdd over the
  full coordinates, the films' pressure rates) are written by parts: each rank writes the slice
  of PETSc's default split of the natural numbering that a scatter brings it from the unknowns'
  owners, made once (the partition is fixed for the run), and the ranks' slices follow one
  another in rank order (TdOutputCheckpointPutRealDistributed), so the stored array is the
  natural one.  No rank gathers a whole vector: each sends its own entries and receives a slice
  of about N/size.
*/
static PetscErrorCode NaturalScatters(TdSolver s)
{
  TdModel  m = s->model;
  PetscInt lo, hi, n, *from, *to;
  IS       isf, ist;
  PetscFunctionBegin;
  if (s->ck_tonatural) PetscFunctionReturn(0);
  PetscCall(TdSolverFreeFull(s));
  /* U into the natural numbering: entry i of the slice is entry to_petsc[i] of U */
  PetscCall(VecCreateMPI(s->comm, PETSC_DECIDE, s->N, &s->ck_natural));
  PetscCall(VecGetOwnershipRange(s->ck_natural, &lo, &hi));
  PetscCall(PetscMalloc1(PetscMax(hi - lo, 1), &from));
  for (PetscInt i = lo; i < hi; i++) from[i - lo] = s->to_petsc[i];
  PetscCall(ISCreateGeneral(s->comm, hi - lo, from, PETSC_OWN_POINTER, &isf));
  PetscCall(ISCreateStride(s->comm, hi - lo, lo, 1, &ist));
  PetscCall(VecScatterCreate(s->U, isf, s->ck_natural, ist, &s->ck_tonatural));
  PetscCall(ISDestroy(&isf));
  PetscCall(ISDestroy(&ist));
  /* a full array's free coordinates from U's layout (the clamped ones: every rank has them) */
  PetscCall(VecCreateMPI(s->comm, PETSC_DECIDE, m->nfull, &s->ck_full));
  PetscCall(VecGetOwnershipRange(s->ck_full, &lo, &hi));
  PetscCall(PetscMalloc2(PetscMax(hi - lo, 1), &from, PetscMax(hi - lo, 1), &to));
  n = 0;
  for (PetscInt j = lo; j < hi; j++)
    if (m->free_index[j] >= 0) {
      from[n] = s->to_petsc[m->free_index[j]];
      to[n++] = j;
    }
  PetscCall(ISCreateGeneral(s->comm, n, from, PETSC_COPY_VALUES, &isf));
  PetscCall(ISCreateGeneral(s->comm, n, to, PETSC_COPY_VALUES, &ist));
  PetscCall(VecScatterCreate(s->U, isf, s->ck_full, ist, &s->ck_tofull));
  PetscCall(ISDestroy(&isf));
  PetscCall(ISDestroy(&ist));
  PetscCall(PetscFree2(from, to));
  PetscFunctionReturn(0);
}

/* A vector in U's layout as the natural array [begin, end) of the unknowns, by parts (name). */
static PetscErrorCode PutNatural(TdSolver s, TdOutput out, const char name[], Vec W, PetscInt begin, PetscInt end)
{
  const PetscScalar *x;
  PetscReal         *buf;
  PetscInt           lo, hi, a, b;
  PetscFunctionBegin;
  PetscCall(NaturalScatters(s));
  PetscCall(VecScatterBegin(s->ck_tonatural, W, s->ck_natural, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(s->ck_tonatural, W, s->ck_natural, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetOwnershipRange(s->ck_natural, &lo, &hi));
  a = PetscMax(lo, begin);
  b = PetscMax(a, PetscMin(hi, end));
  PetscCall(PetscMalloc1(PetscMax(b - a, 1), &buf));
  PetscCall(VecGetArrayRead(s->ck_natural, &x));
  for (PetscInt i = a; i < b; i++) buf[i - a] = PetscRealPart(x[i - lo]);
  PetscCall(VecRestoreArrayRead(s->ck_natural, &x));
  PetscCall(TdOutputCheckpointPutRealDistributed(out, name, b - a, buf));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

/* A full array (q, v, a or qdd: current at this rank's own coordinates between steps) by parts:
   the free coordinates from their owners, the clamped ones (the same on every rank) its own. */
static PetscErrorCode PutFull(TdSolver s, TdOutput out, const char name[], const PetscReal state[])
{
  TdModel            m = s->model;
  const PetscScalar *x;
  PetscReal         *buf;
  PetscInt           lo, hi;
  Vec                w;
  PetscFunctionBegin;
  PetscCall(NaturalScatters(s));
  PetscCall(TdSolverStatePack(s, state, &w));
  PetscCall(VecScatterBegin(s->ck_tofull, w, s->ck_full, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(s->ck_tofull, w, s->ck_full, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetOwnershipRange(s->ck_full, &lo, &hi));
  PetscCall(PetscMalloc1(PetscMax(hi - lo, 1), &buf));
  PetscCall(VecGetArrayRead(s->ck_full, &x));
  for (PetscInt j = lo; j < hi; j++) buf[j - lo] = m->free_index[j] >= 0 ? PetscRealPart(x[j - lo]) : state[j];
  PetscCall(VecRestoreArrayRead(s->ck_full, &x));
  PetscCall(TdOutputCheckpointPutRealDistributed(out, name, hi - lo, buf));
  PetscCall(PetscFree(buf));
  PetscFunctionReturn(0);
}

static PetscErrorCode ScatterUnknowns(TdSolver s, const PetscReal all[], Vec U)
{
  PetscInt     lo, hi;
  PetscScalar *u;
  PetscFunctionBegin;
  PetscCall(VecGetOwnershipRange(U, &lo, &hi));
  PetscCall(VecGetArray(U, &u));
  for (PetscInt k = 0; k < hi - lo; k++) u[k] = all[s->owned[k]]; /* U in the partition's numbering */
  PetscCall(VecRestoreArray(U, &u));
  PetscFunctionReturn(0);
}

/* A film's hits of one kind as this rank keeps them (film.h): the quads' (8 per quad, its strip)
   or the output nodes' (2 per node, its chunk); the rank's hits are [lo, hi) of the nh in the
   global order, hits[k - lo] the k-th. */
static void FilmHitsPart(const TdFilm *f, PetscBool nodes, TdFilmHit **hits, PetscInt *lo, PetscInt *hi, PetscInt *nh)
{
  const PetscInt per = nodes ? 2 : 8;
  *hits = nodes ? f->node_hits : f->hits;
  *lo   = per * (nodes ? f->node_start : f->quad_start);
  *hi   = per * (nodes ? f->node_end : f->quad_end);
  *nh   = per * (nodes ? f->surface.nnodes : f->surface.nquads);
}

/* The hits of this rank's quads or nodes (the only ones it keeps) as (face, u, v) triples, by
   parts: the ranks' strips follow one another in rank order (film_create.c), so the stored array
   has every hit at its global place. */
static PetscErrorCode PutHits(TdSolver s, TdOutput out, const char name[], const TdFilm *f, PetscBool nodes)
{
  PetscInt    lo, hi, nh, before = 0, mine;
  PetscMPIInt rank;
  TdFilmHit  *hits;
  PetscReal  *v;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  FilmHitsPart(f, nodes, &hits, &lo, &hi, &nh);
  mine = hi - lo;
  PetscCallMPI(MPI_Exscan(&mine, &before, 1, MPIU_INT, MPI_SUM, s->comm));
  if (rank == 0) before = 0;
  PetscCheck(before == lo, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Film %s: this rank's %s [%" PetscInt_FMT ", %" PetscInt_FMT ") do not follow the lower ranks' %" PetscInt_FMT, f->name, nodes ? "node hits" : "quad hits", lo, hi, before);
  PetscCall(PetscMalloc1(PetscMax(3 * mine, 1), &v));
  for (PetscInt k = 0; k < mine; k++) {
    v[3 * k + 0] = (PetscReal)hits[k].face;
    v[3 * k + 1] = hits[k].pt.uv[0];
    v[3 * k + 2] = hits[k].pt.uv[1];
  }
  PetscCall(TdOutputCheckpointPutRealDistributed(out, name, 3 * mine, v));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(0);
}

/* The branches b of n cavitation rows (their active flags at the factorisation) as integers,
   row[i] the natural unknown of row i: each known to the rank that owns the row (residual.c),
   gathered to rank 0, which writes them. */
static PetscErrorCode PutBranches(TdSolver s, TdOutput out, const char name[], PetscInt n, const PetscInt row[], const PetscBool b[])
{
  PetscInt64 *v;
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(PetscMax(n, 1), &v));
  for (PetscInt i = 0; i < n; i++) v[i] = TdSolverRowMine(s, row[i]) ? b[i] : 0; /* 0, 1, or 2 (neither) */
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, v, (PetscMPIInt)n, MPIU_INT64, MPI_MAX, s->comm));
  PetscCall(TdOutputCheckpointPutInt(out, name, n, v));
  PetscCall(PetscFree(v));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverCheckpointWrite(TdSolver s, TdOutput out)
{
  TdModel     m = s->model;
  PetscMPIInt rank, size;
  PetscReal   sc[CK_NSCALARS];
  char        name[128];
  PetscFunctionBegin;
  PetscCheck(s->mode == TD_MODE_DYNAMIC, s->comm, PETSC_ERR_SUP, "A checkpoint is written between the steps of a dynamic run");
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  {
    PetscInt           lits;
    KSPConvergedReason kreason;
    PetscCall(TdSolverLastKrylov(s, &lits, &kreason));
    sc[CK_LAST_LITS]    = (PetscReal)lits;
    sc[CK_LAST_KREASON] = (PetscReal)kreason;
  }
  sc[CK_T]                  = s->t;
  sc[CK_DT]                 = s->dt;
  sc[CK_STEP_DT]            = s->step_dt;
  sc[CK_ROW_SCALE]          = s->row_scale;
  sc[CK_LOAD_FACTOR]        = s->load_factor;
  sc[CK_MODE]               = (PetscReal)s->mode;
  sc[CK_HAVE_GUESS]         = s->have_guess ? 1 : 0;
  sc[CK_GUESS_DT]           = s->guess_dt;
  sc[CK_HAVE_PRESSURE_RATE] = s->have_pressure_rate ? 1 : 0;
  sc[CK_PC_READY]           = s->pc_ready ? 1 : 0;
  sc[CK_RECYCLE_PENDING]    = (PetscReal)s->recycle_pending;
  sc[CK_RECYCLE_IT]         = (PetscReal)s->recycle_it;
  sc[CK_PC_MODE]            = (PetscReal)s->pc_mode;
  sc[CK_PC_DT]              = s->pc_dt;
  sc[CK_JACOBIAN_DT]        = s->jacobian_dt;
  sc[CK_STEPS]              = (PetscReal)s->steps;
  sc[CK_REJECTED]           = (PetscReal)s->rejected;
  sc[CK_FACTORIZATIONS]     = (PetscReal)s->factorizations;
  sc[CK_PATTERN_REBUILDS]   = (PetscReal)s->pattern_rebuilds;
  sc[CK_NEWTON_ITS]         = (PetscReal)s->newton_its;
  sc[CK_LINEAR_ITS]         = (PetscReal)s->linear_its;
  sc[CK_NRANKS]             = (PetscReal)size;
  sc[CK_PARTITION]          = s->partition ? 1 : 0;
  sc[CK_FILM_QQ_VALID]      = s->film_qq_lag && s->film_qq_valid ? 1 : 0;
  sc[CK_LAST_STEP_ITS]      = (PetscReal)s->last_step_its;
  sc[CK_BODY_FLOOR]         = s->body_floor;
  sc[CK_FLOOR_STEPS_LEFT]   = (PetscReal)s->floor_steps_left;
  PetscCall(TdOutputCheckpointPutReal(out, "scalars", CK_NSCALARS, sc));
  {
    PetscInt64 *sig;
    PetscInt    k;
    PetscCall(PetscMalloc1(9 + 2 * m->nbodies + 3 * m->nfilms, &sig));
    k = ModelSignature(m, sig);
    PetscCall(TdOutputCheckpointPutInt(out, "model_signature", k, sig));
    PetscCall(PetscFree(sig));
  }
  /* q, v, a, qdd by parts from their owners (between steps each rank's are current on its
     ghost set and at its own coordinates); lambda is whole on rank 0 (its set holds every row) */
  PetscCall(PutFull(s, out, "q", s->q));
  PetscCall(PutFull(s, out, "v", s->v));
  PetscCall(PutFull(s, out, "a", s->a));
  PetscCall(PutFull(s, out, "qdd", s->qdd));
  PetscCall(TdOutputCheckpointPutReal(out, "lambda", m->nrows, s->lambda));
  if (m->njoints) {
    /* the joints' history: a revolute's unwrapped angle, a clearance joint's approach speed */
    PetscReal *js;
    PetscCall(PetscMalloc1(3 * m->njoints, &js));
    for (PetscInt j = 0; j < m->njoints; j++) {
      js[3 * j]     = m->joints[j].angle;
      js[3 * j + 1] = m->joints[j].angle_prev;
      js[3 * j + 2] = m->joints[j].impact_speed;
    }
    PetscCall(TdOutputCheckpointPutReal(out, "joint_state", 3 * m->njoints, js));
    PetscCall(PetscFree(js));
  }
  PetscCall(PutNatural(s, out, "U", s->U, 0, s->N));
  if (s->have_guess && s->Uguess) PetscCall(PutNatural(s, out, "U_guess", s->Uguess, 0, s->N));
  if (m->row_offset > m->nfree) {
    /* the film unknowns' rates at their places in [nfree, row_offset); collective, so decided
       on the global count (a rank may own no film unknowns and hold no rate array) */
    PetscInt     off = 0, n = 0;
    PetscScalar *w;
    Vec          W;
    PetscCall(VecDuplicate(s->U, &W));
    PetscCall(VecZeroEntries(W));
    PetscCall(TdSolverFilmSlice(s, NULL, &n, &off));
    PetscCall(VecGetArray(W, &w));
    for (PetscInt k = 0; k < n; k++) w[off + k] = s->film_u_rate[k];
    PetscCall(VecRestoreArray(W, &w));
    PetscCall(PutNatural(s, out, "film_u_rate", W, m->nfree, m->row_offset));
    PetscCall(VecDestroy(&W));
  }
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm *f = &m->films[fi];
    PetscCall(PetscSNPrintf(name, sizeof name, "film_%s_hits", f->name));
    PetscCall(PutHits(s, out, name, f, PETSC_FALSE));
    PetscCall(PetscSNPrintf(name, sizeof name, "film_%s_node_hits", f->name));
    PetscCall(PutHits(s, out, name, f, PETSC_TRUE));
  }
  {
    /* per rank: the coupling pattern and the values of the factored Jacobian */
    {
      /* the partition the per-rank data below belongs to (its COO order, U's numbering) */
      PetscInt64 *er;
      PetscCall(PetscMalloc1(PetscMax(m->nelements, 1), &er));
      for (PetscInt e = 0; e < m->nelements; e++) er[e] = s->element_rank[e];
      PetscCall(TdOutputCheckpointPutInt(out, "element_rank", rank ? 0 : m->nelements, er));
      PetscCall(PetscFree(er));
    }
    /* each rank writes its own part (parallel HDF5), rank 0 the parts' lengths */
    PetscCall(PutPerRank(s, out, "coupling_qq", "coupling_qq_counts", m->ncoupling_qq, PETSC_TRUE, m->coupling_qq, NULL));
    PetscCall(PutPerRank(s, out, "coupling_qp", "coupling_qp_counts", m->ncoupling_qp, PETSC_TRUE, m->coupling_qp, NULL));
    {
      /* the factored matrix's nonzeros (none if the pattern changed since) */
      PetscInt nnz = -1;
      if (s->J && s->pc_ready) PetscCall(TdSolverJacobianValuesCopy(s, &nnz, NULL));
      PetscCall(PutPerRank(s, out, "pc_matrix_values", "pc_matrix_counts", nnz == s->npc_mat_v ? nnz : 0, PETSC_FALSE, NULL, s->pc_mat_v));
    }
    {
      /* the kept dQ/dq blocks (-film_stiffness_lag): the Jacobians until the next factorisation
         use them, so a restart continues on the same Newton path */
      PetscCount off = 0, nqq = 0;
      if (s->film_qq_lag && s->film_qq_valid) TdFilmsStiffnessEntries(m, &off, &nqq);
      PetscCall(PutPerRank(s, out, "film_stiffness_values", "film_stiffness_counts", (PetscInt)nqq, PETSC_FALSE, NULL, nqq ? &s->coo_v[TdSolverCOOAfterElements(s) + off] : NULL));
    }
    {
      /* the last Krylov solve's pairs (krylov_recycle.c): [z_0, J z_0, z_1, ...], this rank's
         entries of each */
      PetscInt   nlocal, np = s->recycle_pending;
      PetscReal *pairs;
      PetscCall(VecGetLocalSize(s->U, &nlocal));
      PetscCall(PetscMalloc1(PetscMax(2 * np * nlocal, 1), &pairs));
      for (PetscInt k = 0; k < 2 * np; k++) {
        const PetscScalar *x;
        PetscCall(VecGetArrayRead(k % 2 ? s->recycle_pc[k / 2] : s->recycle_pz[k / 2], &x));
        for (PetscInt i = 0; i < nlocal; i++) pairs[k * nlocal + i] = PetscRealPart(x[i]);
        PetscCall(VecRestoreArrayRead(k % 2 ? s->recycle_pc[k / 2] : s->recycle_pz[k / 2], &x));
      }
      PetscCall(PutPerRank(s, out, "recycle_pairs", "recycle_counts", 2 * np * nlocal, PETSC_FALSE, NULL, pairs));
      PetscCall(PetscFree(pairs));
    }
  }
  /* the JFO rows' branches at the factorisation: a branch that changes calls for a new one */
  if (s->njfo) PetscCall(PutBranches(s, out, "jfo_active_pc", s->njfo, s->jfo_theta, s->jfo_active_pc));
  /* the Swift-Stieber rows' branches at the factorisation: the film stage runs once they change
     (FilmStageDecide, jacobian.c) */
  if (s->ncp_active_pc) {
    const PetscInt nf = s->model->row_offset - s->model->nfree;
    PetscInt      *rows;
    PetscCall(PetscMalloc1(PetscMax(nf, 1), &rows));
    for (PetscInt i = 0; i < nf; i++) rows[i] = s->model->nfree + i;
    PetscCall(PutBranches(s, out, "ncp_active_pc", nf, rows, &s->ncp_active_pc[s->model->nfree]));
    PetscCall(PetscFree(rows));
  }
  PetscFunctionReturn(0);
}

/* An array of n branches written by PutBranches into b; *found false (b untouched) when the
   checkpoint has none of that length (an older version). */
static PetscErrorCode GetBranches(TdCheckpointFile cf, const char name[], PetscInt n, PetscBool b[], PetscBool *found)
{
  PetscInt64 *v;
  PetscInt    nv;
  PetscFunctionBegin;
  PetscCall(TdCheckpointFileGetInt(cf, name, PETSC_FALSE, &nv, &v));
  *found = nv == n ? PETSC_TRUE : PETSC_FALSE;
  if (*found)
    for (PetscInt i = 0; i < n; i++) b[i] = v[i] ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscFree(v));
  PetscFunctionReturn(0);
}

/* This rank's part of a per-rank array of reals written by PutPerRank (*vals; the caller frees
   it; no rank receives another's part).  *ok, the same on every rank, is true when the counts
   are for this many ranks and every rank's part has the length it expects (expect); an array the
   checkpoint does not hold gives *vals NULL and *ok false. */
static PetscErrorCode GetPerRankReal(TdSolver s, TdCheckpointFile cf, const char name[], const char counts_name[], PetscInt64 expect, PetscReal **vals, PetscBool *ok)
{
  PetscInt64 cnt;
  PetscFunctionBegin;
  PetscCall(TdCheckpointFileGetRealPart(cf, name, counts_name, &cnt, vals));
  *ok = *vals && cnt == expect ? PETSC_TRUE : PETSC_FALSE;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, ok, 1, MPIU_BOOL, MPI_LAND, s->comm));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverCheckpointPartition(TdModel m, TdCheckpointFile cf)
{
  PetscMPIInt size;
  PetscReal  *sc;
  PetscInt    n;
  PetscBool   graph;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(m->comm, &size));
  if (size == 1) PetscFunctionReturn(0);
  PetscCall(TdCheckpointFileGetReal(cf, "scalars", PETSC_TRUE, &n, &sc));
  /* older checkpoints did not say which layout they had; the graph's (the default) is assumed,
     and TdSolverCheckpointRestore's comparison still refuses slices taken for it */
  graph = n > CK_NRANKS && (PetscMPIInt)sc[CK_NRANKS] == size && (n <= CK_PARTITION || sc[CK_PARTITION] != 0) ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PetscFree(sc));
  if (graph) {
    PetscInt64 *er;
    PetscBool   taken;
    /* an unusable one is not taken: the partitioner runs, and TdSolverCheckpointRestore finds
       another partition and factors afresh */
    PetscCall(TdCheckpointFileGetInt(cf, "element_rank", PETSC_FALSE, &n, &er));
    PetscCall(TdModelSetPartition(m, n, er, &taken));
    PetscCall(PetscFree(er));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdSolverCheckpointRestore(TdSolver s, TdCheckpointFile cf, const char path[])
{
  TdModel     m = s->model;
  PetscMPIInt size;
  PetscReal  *sc, *v;
  PetscInt    n;
  PetscInt    nsc;
  PetscBool   same_ranks;
  char        name[128];
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  {
    PetscInt64 *sig;
    PetscCall(TdCheckpointFileGetInt(cf, "model_signature", PETSC_TRUE, &n, &sig));
    PetscCall(CheckSignature(m, path, n, sig));
    PetscCall(PetscFree(sig));
  }
  PetscCall(TdCheckpointFileGetReal(cf, "scalars", PETSC_TRUE, &n, &sc));
  nsc = n;
  PetscCheck(n >= CK_BODY_FLOOR, s->comm, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the checkpoint's scalars hold %" PetscInt_FMT " values, this version reads at least %d; the file was written by another version of tribodyn", path, n, (int)CK_BODY_FLOOR);
  /* the bodies' rounding floor and its schedule, so that the restarted run holds the bodies to
     the same tolerance (older checkpoints: measured afresh at the first step) */
  s->body_floor       = n > CK_FLOOR_STEPS_LEFT ? sc[CK_BODY_FLOOR] : 0;
  s->floor_steps_left = n > CK_FLOOR_STEPS_LEFT ? (PetscInt)sc[CK_FLOOR_STEPS_LEFT] : 0;
  PetscCheck((TdSolveMode)sc[CK_MODE] == TD_MODE_DYNAMIC, s->comm, PETSC_ERR_SUP, "-restart %s: the checkpoint is not of a dynamic run", path);
  s->t                  = sc[CK_T];
  s->dt                 = sc[CK_DT];
  s->step_dt            = sc[CK_STEP_DT];
  s->row_scale          = sc[CK_ROW_SCALE];
  s->load_factor        = sc[CK_LOAD_FACTOR];
  s->mode               = TD_MODE_DYNAMIC;
  s->have_guess         = sc[CK_HAVE_GUESS] != 0 && s->Uguess ? PETSC_TRUE : PETSC_FALSE;
  s->guess_dt           = sc[CK_GUESS_DT];
  s->have_pressure_rate = sc[CK_HAVE_PRESSURE_RATE] != 0 && m->row_offset > m->nfree ? PETSC_TRUE : PETSC_FALSE;
  s->jacobian_dt        = sc[CK_JACOBIAN_DT];
  s->steps              = (PetscInt)sc[CK_STEPS];
  s->rejected           = (PetscInt)sc[CK_REJECTED];
  s->factorizations     = (PetscInt)sc[CK_FACTORIZATIONS];
  s->pattern_rebuilds   = (PetscInt)sc[CK_PATTERN_REBUILDS];
  s->newton_its         = (PetscInt)sc[CK_NEWTON_ITS];
  s->linear_its         = (PetscInt)sc[CK_LINEAR_ITS];
  same_ranks            = (PetscMPIInt)sc[CK_NRANKS] == size ? PETSC_TRUE : PETSC_FALSE;
  /* the same element ranks under the other kind of numbering (-partition) are another layout */
  if (nsc > CK_PARTITION && (sc[CK_PARTITION] != 0) != (s->partition != 0)) same_ranks = PETSC_FALSE;
  if (same_ranks && size > 1) {
    /* the per-rank data (coupling pattern, factored Jacobian's values) belong to the writer's
       partition of the elements: another partition (other partitioner or -partition) starts
       afresh, as another number of ranks does */
    PetscInt64 *er;
    PetscCall(TdCheckpointFileGetInt(cf, "element_rank", PETSC_FALSE, &n, &er));
    if (n != m->nelements) same_ranks = PETSC_FALSE;
    for (PetscInt e = 0; same_ranks && e < n; e++)
      if (er[e] != s->element_rank[e]) same_ranks = PETSC_FALSE;
    PetscCall(PetscFree(er));
  }

  {
    PetscReal **dst[4] = {&s->q, &s->v, &s->a, &s->qdd};
    const char *nm[4]  = {"q", "v", "a", "qdd"};
    for (PetscInt k = 0; k < 4; k++) {
      PetscCall(TdCheckpointFileGetReal(cf, nm[k], PETSC_TRUE, &n, &v));
      PetscCheck(n == m->nfull, s->comm, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the checkpoint's %s has %" PetscInt_FMT " values, the model %" PetscInt_FMT, path, nm[k], n, m->nfull);
      PetscCall(PetscArraycpy(*dst[k], v, n));
      PetscCall(PetscFree(v));
    }
  }
  PetscCall(TdCheckpointFileGetReal(cf, "lambda", PETSC_TRUE, &n, &v));
  PetscCheck(n == m->nrows, s->comm, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the checkpoint has %" PetscInt_FMT " multipliers, the model %" PetscInt_FMT, path, n, m->nrows);
  if (n) PetscCall(PetscArraycpy(s->lambda, v, n));
  PetscCall(PetscFree(v));
  PetscCall(TdCheckpointFileGetReal(cf, "joint_state", PETSC_FALSE, &n, &v));
  if (n == 3 * m->njoints) /* absent in older checkpoints: angles restart modulo 2 pi */
    for (PetscInt j = 0; j < m->njoints; j++) {
      m->joints[j].angle        = v[3 * j];
      m->joints[j].angle_prev   = v[3 * j + 1];
      m->joints[j].impact_speed = v[3 * j + 2];
    }
  PetscCall(PetscFree(v));
  PetscCall(TdCheckpointFileGetReal(cf, "U", PETSC_TRUE, &n, &v));
  PetscCheck(n == s->N, s->comm, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the checkpoint has %" PetscInt_FMT " unknowns, the model %" PetscInt_FMT, path, n, s->N);
  PetscCall(ScatterUnknowns(s, v, s->U));
  PetscCall(PetscFree(v));
  if (s->have_guess) {
    PetscCall(TdCheckpointFileGetReal(cf, "U_guess", PETSC_FALSE, &n, &v));
    if (n == s->N) PetscCall(ScatterUnknowns(s, v, s->Uguess));
    else s->have_guess = PETSC_FALSE;
    PetscCall(PetscFree(v));
  }
  if (m->row_offset > m->nfree) { /* collective: every rank reads, whether or not it owns film unknowns */
    PetscInt nf = m->row_offset - m->nfree;
    PetscCall(TdCheckpointFileGetReal(cf, "film_u_rate", PETSC_FALSE, &n, &v));
    if (n == nf) {
      PetscInt off = 0, nl = 0;
      PetscCall(TdSolverFilmSlice(s, NULL, &nl, &off));
      for (PetscInt k = 0; k < nl; k++) s->film_u_rate[k] = v[s->owned[off + k] - m->nfree];
    } else s->have_pressure_rate = PETSC_FALSE;
    PetscCall(PetscFree(v));
  }
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    TdFilm *f = &m->films[fi];
    for (PetscInt nodes = 0; nodes < 2; nodes++) {
      /* this rank's part: its strip of quads, its output nodes */
      TdFilmHit *hits;
      PetscInt   lo, hi, nh;
      FilmHitsPart(f, (PetscBool)nodes, &hits, &lo, &hi, &nh);
      PetscCall(PetscSNPrintf(name, sizeof name, nodes ? "film_%s_node_hits" : "film_%s_hits", f->name));
      PetscCall(TdCheckpointFileGetReal(cf, name, PETSC_FALSE, &n, &v));
      if (n == 3 * nh)
        for (PetscInt k = lo; k < hi; k++) {
          hits[k - lo].face     = (PetscInt)v[3 * k];
          hits[k - lo].pt.uv[0] = v[3 * k + 1];
          hits[k - lo].pt.uv[1] = v[3 * k + 2];
        }
      PetscCall(PetscFree(v));
    }
  }

  s->pc_ready = PETSC_FALSE;
  if (same_ranks) {
    /* this rank's coupling pattern, then the factorisation of the stored Jacobian */
    PetscInt64 *keys[2], cnt;
    PetscInt    nk[2];
    PetscBool   ok = PETSC_TRUE, okr;
    const char *kn[2] = {"coupling_qq", "coupling_qp"};
    for (PetscInt k = 0; k < 2; k++) {
      PetscCall(PetscSNPrintf(name, sizeof name, "%s_counts", kn[k]));
      PetscCall(TdCheckpointFileGetIntPart(cf, kn[k], name, &cnt, &keys[k]));
      ok    = ok && keys[k] ? PETSC_TRUE : PETSC_FALSE;
      nk[k] = keys[k] ? (PetscInt)cnt : 0;
    }
    if (ok) {
      PetscCall(TdFilmsCouplingSet(m, nk[0], keys[0], nk[1], keys[1]));
      PetscCall(TdSolverBuildJacobian(s));
    }
    PetscCall(PetscFree(keys[0]));
    PetscCall(PetscFree(keys[1]));
    if (ok && sc[CK_PC_READY] != 0) {
      PetscReal *vals;
      PetscInt  nnz;
      PetscBool coo = PETSC_FALSE;
      PetscCall(TdSolverJacobianValuesCopy(s, &nnz, NULL));
      PetscCall(GetPerRankReal(s, cf, "pc_matrix_values", "pc_matrix_counts", (PetscInt64)nnz, &vals, &okr));
      if (!vals) {
        /* a checkpoint of a version before the direct element blocks: the COO values */
        coo = PETSC_TRUE;
        PetscCall(GetPerRankReal(s, cf, "pc_coo_values", "pc_coo_counts", (PetscInt64)s->ncoo, &vals, &okr));
      }
      if (okr) {
        PetscCall(TdSolverFactorStored(s, vals, coo));
        s->pc_ready = PETSC_TRUE;
        if (nsc > CK_FILM_QQ_VALID && sc[CK_FILM_QQ_VALID] != 0 && s->film_qq_lag) {
          /* the kept dQ/dq blocks, into coo_v (absent: the next Jacobian forms them) */
          PetscCount off, nqq;
          PetscReal *qq;
          PetscBool  okq;
          TdFilmsStiffnessEntries(m, &off, &nqq);
          PetscCall(GetPerRankReal(s, cf, "film_stiffness_values", "film_stiffness_counts", (PetscInt64)nqq, &qq, &okq));
          if (okq) PetscCall(PetscArraycpy(&s->coo_v[TdSolverCOOAfterElements(s) + off], qq, nqq));
          s->film_qq_valid = okq;
          PetscCall(PetscInfo(NULL, "restart: the films' kept dQ/dq blocks %s\n", okq ? "restored from the checkpoint" : "not in the checkpoint: formed at the next Jacobian"));
          PetscCall(PetscFree(qq));
        }
        s->pc_mode  = (TdSolveMode)sc[CK_PC_MODE];
        s->pc_dt    = sc[CK_PC_DT];
        PetscBool found;
        if (s->njfo) PetscCall(GetBranches(cf, "jfo_active_pc", s->njfo, s->jfo_active_pc, &found));
        if (s->ncp_active_pc) {
          /* absent from older checkpoints: then all rows count as changed once, and the stage
             runs until the next factorisation */
          const PetscInt nf = s->model->row_offset - s->model->nfree;
          PetscCall(GetBranches(cf, "ncp_active_pc", nf, &s->ncp_active_pc[s->model->nfree], &found));
          if (!found)
            for (PetscInt i = 0; i < nf; i++) s->ncp_active_pc[s->model->nfree + i] = (PetscBool)2; /* neither branch */
        }
      }
      PetscCall(PetscFree(vals));
    }
  }
  if (!s->pc_ready) {
    /* another number of ranks: a pattern for this state, and a fresh factorisation */
    PetscBool changed;
    PetscCall(TdFilmsCouplingUpdate(m, s->t, s->q, s->v, &changed, NULL));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &changed, 1, MPIU_BOOL, MPI_LOR, s->comm));
    if (changed) PetscCall(TdSolverBuildJacobian(s));
  }
  /* the last Krylov solve's pairs (krylov_recycle.c), after the factorisation above (which
     drops them); on another partition, or from an older checkpoint, none */
  PetscCall(TdSolverRecycleReset(s));
  s->recycle_it = -1;
  if (s->recycle_max && same_ranks && nsc > CK_RECYCLE_IT && s->pc_ready && (PetscInt)sc[CK_RECYCLE_PENDING] <= s->recycle_max) {
    PetscReal  *vals;
    PetscInt    nlocal, np = (PetscInt)sc[CK_RECYCLE_PENDING];
    PetscBool   okr;
    PetscCall(VecGetLocalSize(s->U, &nlocal));
    PetscCall(GetPerRankReal(s, cf, "recycle_pairs", "recycle_counts", (PetscInt64)2 * np * nlocal, &vals, &okr));
    if (okr) {
      for (PetscInt k = 0; k < 2 * np; k++) {
        PetscScalar *x;
        PetscCall(VecGetArray(k % 2 ? s->recycle_pc[k / 2] : s->recycle_pz[k / 2], &x));
        for (PetscInt i = 0; i < nlocal; i++) x[i] = vals[k * nlocal + i];
        PetscCall(VecRestoreArray(k % 2 ? s->recycle_pc[k / 2] : s->recycle_pz[k / 2], &x));
      }
      s->recycle_pending = np;
      s->recycle_it      = (PetscInt)sc[CK_RECYCLE_IT];
    }
    PetscCall(PetscFree(vals));
  }
  /* absent from older checkpoints: the first step after the restart takes the ordinary shares */
  s->last_step_its    = nsc > CK_LAST_STEP_ITS ? (PetscInt)sc[CK_LAST_STEP_ITS] : -1;
  s->restored_ksp     = PETSC_TRUE;
  s->restored_lits    = (PetscInt)sc[CK_LAST_LITS];
  s->restored_kreason = (PetscInt)sc[CK_LAST_KREASON];
  PetscCall(PetscInfo(NULL, "restart from t = %g s: %s ranks, %s\n", (double)s->t, same_ranks ? "the same" : "another number of (or another partition over the)", s->pc_ready ? "the checkpoint's factorisation" : "a fresh factorisation"));
  PetscCall(PetscFree(sc));
  PetscFunctionReturn(0);
}
