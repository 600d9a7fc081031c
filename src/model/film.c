/*
  Lubricant films (film.h, formulation.md §2-§3): assembly of the average Reynolds equation (or
  the dry contact law), of the film forces on the bodies and of their coupling blocks, and the
  nodal fields of the output.  The options and reference surfaces are film_create.c's, the
  projection of the film points onto the bounding faces film_projection.c's, the Jacobian's
  coupling pattern (which element faces and pressures the points couple) film_pattern.c's.

  Sign convention of the film rows: the unknowns are p_hat = p / p_ref and the rows are
  F_i = -R_i / scale with R_i of formulation F11 and scale = rho h_ref^3 p_ref / (12 mu).  The
  minus sign makes dF/dp positive definite (the Poiseuille term), so that Swift-Stieber
  cavitation is the standard complementarity problem p >= p_cav, F >= 0, (p - p_cav) F = 0
  (an obstacle problem: F_i is the multiplier of the bound), which the solver treats by
  semismooth Newton on min(p - p_cav, F), or by SNESVINEWTONRSLS with bounds (solver.c).
*/
#include "film_private.h"
#include <tribodyn/vec3.h>
#include <omp.h>

/* Adds the generalised force of traction f (per unit area, times weight w) on an ANCF face point
   to the body residual (F14), with the minus sign of R_q = ... - Q_film. */
static void AddFaceForce(TdModel m, const SurfaceState *st, PetscReal w, const PetscReal fvec[3], PetscReal rfull[])
{
  const TdBody *body;
  if (st->element < 0) return;
  body = &m->bodies[m->element_body[st->element]];
  if (body->mesh.axis_aligned) {
    /* only the face's 12 shape functions carry force (ancf3843.h) and no slope turns: the 4 face
       nodes' position and in-face slope coordinates (the order of ancf3843_face_shapes), without
       forming all 96 */
    const PetscInt  fix = st->face / 2, side = st->face % 2, i0 = fix == 0 ? 1 : 0, i1 = fix == 2 ? 1 : 2;
    const PetscInt *cell = &body->mesh.cells[8 * m->element_cell[st->element]];
    for (PetscInt n = 0; n < ANCF3843_NODES; n++) {
      PetscReal      *dst;
      const PetscReal w0 = w * st->S[4 * n], w1 = w * st->S[4 * n + 1 + i0], w2 = w * st->S[4 * n + 1 + i1];
      if (((n >> fix) & 1) != side) continue;
      dst = &rfull[TD_NODE_DOF * (body->node_offset + cell[n])];
      for (PetscInt i = 0; i < 3; i++) {
        dst[i] -= w0 * fvec[i];
        dst[3 * (1 + i0) + i] -= w1 * fvec[i];
        dst[3 * (1 + i1) + i] -= w2 * fvec[i];
      }
    }
  } else {
    PetscReal Q[ANCF3843_NDOF];
    PetscInt  coord[ANCF3843_NDOF];
    for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
      for (PetscInt i = 0; i < 3; i++) Q[3 * k + i] = w * st->S[k] * fvec[i];
    TdModelElementRotateForce(m, st->element, Q);
    TdModelElementCoordinates(m, st->element, coord);
    for (PetscInt j = 0; j < ANCF3843_NDOF; j++) rfull[coord[j]] -= Q[j];
  }
}


/* Slot of a key in a sorted key array, -1 if absent. */
static PetscInt FindKey(const PetscInt64 keys[], PetscInt n, PetscInt64 key)
{
  PetscInt lo = 0, hi = n - 1;
  while (lo <= hi) {
    PetscInt mid = (lo + hi) / 2;
    if (keys[mid] == key) return mid;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* Slot of a coupling pair in the pattern; -1 (and the model's coupling_miss set, which makes
   the Jacobian rebuild the pattern) if the pair is outside it.  Called from threads. */
static PetscInt CouplingSlot(TdModel m, const PetscInt64 keys[], PetscInt n, PetscInt64 key)
{
  const PetscInt slot = FindKey(keys, n, key);
  if (slot < 0) {
#pragma omp atomic write
    m->coupling_miss = PETSC_TRUE;
  }
  return slot;
}

/* The slots a thread's Gauss points looked up last, kept over its quads of a pass: a quad's 4
   points mostly pair the same faces with the same nodes, and the next quad shares two of its
   nodes and mostly its faces, while each binary search over the pattern's keys is a chain of
   unpredictable branches.  The oldest entry makes room for a new one. */
enum { SLOT_CACHE = 16 };
typedef struct {
  int        n, next;
  PetscInt64 key[SLOT_CACHE];
  PetscInt   slot[SLOT_CACHE];
} SlotCache;

static PetscInt CachedCouplingSlot(TdModel m, SlotCache *c, const PetscInt64 keys[], PetscInt n, PetscInt64 key)
{
  PetscInt slot;
  for (int i = 0; i < c->n; i++)
    if (c->key[i] == key) return c->slot[i];
  slot              = CouplingSlot(m, keys, n, key);
  c->key[c->next]  = key;
  c->slot[c->next] = slot;
  c->next          = (c->next + 1) % SLOT_CACHE;
  if (c->n < SLOT_CACHE) c->n++;
  return slot;
}

/* The slots of a quad's last Gauss point (keys -1: none yet): its next points mostly hit the
   same faces, with the same nodes, and then need no lookup at all. */
typedef struct {
  PetscInt64 face[2], pair[2][2];
  PetscInt   qp[2][4], qq[2][2];
} QuadSlots;


static PetscCount FilmPressureEntries(TdModel m)
{
  PetscCount n = 0;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) n += QuadEntries(&m->films[fi]) * (PetscCount)(m->films[fi].quad_end - m->films[fi].quad_start);
  return n;
}

/* the dQ/dq entries of the coupling pattern (they follow the pressure entries) */
static PetscCount StiffnessEntries(TdModel m)
{
  return m->ncoupling_qq ? m->coupling_qq_offset[m->ncoupling_qq] : 0;
}

void TdFilmsStiffnessEntries(TdModel m, PetscCount *offset, PetscCount *n)
{
  *offset = FilmPressureEntries(m);
  *n      = StiffnessEntries(m);
}

/* The derivatives of a surface point's contributions, with respect to the unknown coordinates
   through positions (weight ce) and velocities (weight cv): d/dq = ce d/de + cv d/dedot, in the
   element's material frame.  sign: -1 for the wall, +1 for the base (h = n.(r_b - r_w) + ...).
   Only the coordinates of the face that can couple (FaceActive: 36 of an axis-aligned cell, all
   96 otherwise) are kept, packed: entry jj is coordinate idx[jj].
   An axis-aligned cell's (factored): each derivative is S (x) alpha + D (x) beta over the packed
   entries 3 ja + i (FilmFaceLinFactors), kept as the 3-vectors alpha (beta only for dh/dt, the
   only one with a D term) and S, D spread to the 36 entries (Sx, Dx); a linear combination of
   the derivatives is then the same combination of the 3-vectors, expanded once (Expand).
   A rotated cell's: the 96 entries of each derivative. */
enum { QQ_NA = 3 * ANCF3843_FACE_NSHAPE };
typedef struct {
  PetscInt  n, idx[ANCF3843_NDOF];
  PetscBool factored;
  PetscReal Sx[QQ_NA], Dx[QQ_NA];
  PetscReal ah[3], ahdot[3], bhdot[3], av[3][3], auv[2][3];
  PetscReal dh[ANCF3843_NDOF], dhdot[ANCF3843_NDOF], dv[3][ANCF3843_NDOF], duv[2][ANCF3843_NDOF];
} SurfaceDerivatives;

static void SurfaceDerivativesCompute(TdModel m, const SurfaceState *st, PetscReal sign, PetscReal ce, PetscReal cv, SurfaceDerivatives *d)
{
  const PetscInt n = FaceActive(m, st->element, st->face, d->idx);
  d->n             = n;
  d->factored      = st->factored;
  if (st->factored) {
    /* d/dq of h = n.r (sign) + prof, dh/dt = rate (sign) + prof_rate, v, uv (FilmFaceLinFactors) */
    const FilmFaceLinFactors *l = &st->linf;
    for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++)
      for (PetscInt i = 0; i < 3; i++) {
        d->Sx[3 * ja + i] = l->S[ja];
        d->Dx[3 * ja + i] = l->D[ja];
      }
    for (PetscInt i = 0; i < 3; i++) {
      d->ah[i]    = ce * (sign * l->g[i] + l->prof[i]);
      d->ahdot[i] = ce * (sign * l->rate[i] + l->profrate[i]) + cv * (sign * l->g[i] + l->mp[i]);
      d->bhdot[i] = ce * (sign * l->g[i] + l->mp[i]);
      for (PetscInt c = 0; c < 3; c++) d->av[c][i] = ce * l->v[c][i] + (c == i ? cv : 0);
      d->auv[0][i] = ce * l->duv[0][i];
      d->auv[1][i] = ce * l->duv[1][i];
    }
    return;
  }
  {
    const FilmFaceLinearization *l = &st->lin;
    /* lin holds coordinate jj of all 96 (a rotated cell) */
    for (PetscInt jj = 0; jj < n; jj++) {
      d->dh[jj]    = ce * (sign * l->dnr_de[jj] + l->dprof_de[jj]);
      d->dhdot[jj] = ce * (sign * l->drate_de[jj] + l->dprofrate_de[jj]) + cv * (sign * l->drate_dedot[jj] + l->dprofrate_dedot[jj]);
      for (PetscInt i = 0; i < 3; i++) d->dv[i][jj] = ce * l->dv_de[i][jj];
      d->duv[0][jj] = ce * l->duv_de[0][jj];
      d->duv[1][jj] = ce * l->duv_de[1][jj];
    }
    /* v = sum_k S_k edot_k; entries 3 ja + i are the components i of one shape function */
    for (PetscInt ja = 0; ja < n / 3; ja++) {
      const PetscReal cS = cv * st->S[d->idx[3 * ja] / 3];
      for (PetscInt i = 0; i < 3; i++) d->dv[i][3 * ja + i] += cS;
    }
  }
}

/* out[r][3 ja + i] (=, or += with add) Sx a[r][i] + Dx b[r][i] over the 36 packed entries of a
   factored surface, for nrow <= 4 rows at once (Sx, Dx loaded once for them); b = NULL: no D term.
   a and b are spread over 12 entries (4 functions) first, so that the loops run over whole
   vectors. */
static inline void Expand(const SurfaceDerivatives *d, PetscInt nrow, const PetscReal a[][3], const PetscReal b[][3], PetscBool add, PetscReal *const out[])
{
  PetscReal at[4][12], bt[4][12];
  for (PetscInt r = 0; r < nrow; r++)
    for (PetscInt k = 0; k < 12; k += 3)
      for (PetscInt i = 0; i < 3; i++) {
        at[r][k + i] = a[r][i];
        bt[r][k + i] = b ? b[r][i] : 0;
      }
  for (PetscInt c = 0; c < QQ_NA; c += 12)
    for (PetscInt r = 0; r < nrow; r++) {
      PetscReal *restrict o = out[r] + c;
      const PetscReal *Sx = d->Sx + c, *Dx = d->Dx + c;
      if (b && add)
        for (PetscInt k = 0; k < 12; k++) o[k] += Sx[k] * at[r][k] + Dx[k] * bt[r][k];
      else if (b)
        for (PetscInt k = 0; k < 12; k++) o[k] = Sx[k] * at[r][k] + Dx[k] * bt[r][k];
      else if (add)
        for (PetscInt k = 0; k < 12; k++) o[k] += Sx[k] * at[r][k];
      else
        for (PetscInt k = 0; k < 12; k++) o[k] = Sx[k] * at[r][k];
    }
}

/* For rows r < nrow (<= 4), the combination ch[r] dh + chd[r] dh/dt + sum_c cvel[r][c] dv_c of a
   surface's derivatives (the dependence of a pressure row or of a traction component on the
   face's coordinates), times scale, into out[r][0 .. d->n) (=, or += with add). */
static inline void Combine(const SurfaceDerivatives *d, PetscInt nrow, const PetscReal ch[], const PetscReal chd[], const PetscReal cvel[][3], PetscReal scale, PetscBool add, PetscReal *const out[])
{
  if (d->factored) {
    PetscReal a[4][3], b[4][3];
    for (PetscInt r = 0; r < nrow; r++)
      for (PetscInt i = 0; i < 3; i++) {
        a[r][i] = (ch[r] * d->ah[i] + chd[r] * d->ahdot[i] + cvel[r][0] * d->av[0][i] + cvel[r][1] * d->av[1][i] + cvel[r][2] * d->av[2][i]) * scale;
        b[r][i] = chd[r] * d->bhdot[i] * scale;
      }
    Expand(d, nrow, (const PetscReal(*)[3])a, (const PetscReal(*)[3])b, add, out);
    return;
  }
  for (PetscInt r = 0; r < nrow; r++)
    for (PetscInt jj = 0; jj < d->n; jj++) {
      const PetscReal x = (ch[r] * d->dh[jj] + chd[r] * d->dhdot[jj] + cvel[r][0] * d->dv[0][jj] + cvel[r][1] * d->dv[1][jj] + cvel[r][2] * d->dv[2][jj]) * scale;
      out[r][jj]        = add ? out[r][jj] + x : x;
    }
}

/* Row and column transforms of an nrow x ncol block between two elements (global slopes). */
static void RotateBlock(TdModel m, PetscInt erow, PetscInt nrow, PetscInt ecol, PetscInt ncol, PetscReal B[])
{
  const PetscInt N = ANCF3843_NDOF;
  PetscReal      v[ANCF3843_NDOF];
  /* only a rotated cell lists all 96 coordinates (FaceActive); an aligned one needs no turn */
  if (nrow == N)
    for (PetscInt c = 0; c < ncol; c++) {
      for (PetscInt r = 0; r < N; r++) v[r] = B[r * ncol + c];
      TdModelElementRotateForce(m, erow, v);
      for (PetscInt r = 0; r < N; r++) B[r * ncol + c] = v[r];
    }
  if (ncol == N)
    for (PetscInt r = 0; r < nrow; r++) TdModelElementRotateForce(m, ecol, &B[r * N]);
}

/* The dQ/dq row updates of a quad's Gauss points between two axis-aligned cells (36 x 36 blocks),
   kept until the quad is done: a block's rows are then loaded and stored once for all the terms
   it receives (a quad's 4 points mostly pair the same faces), instead of once per point.  (Kept
   over several quads, which mostly pair the same faces too, they measured no faster.)  Each
   term is the update of one point, applied in the points' order:
     row (ja, i) += cS[ja] G[i]                                   (every pair)
                  + fw[i] (dSu[ja] P0 + dSv[ja] P1)                (the point's own face)
   each product added on its own (r += a b; r += c d), so that the sums are the same however the
   terms are grouped.  The second line is dS/duv . duv/dq f_a with duv/dq = Sx (x) auv (factored,
   SurfaceDerivatives), P_m = Sx (x) auv[m] (36-vectors formed with the term) and fw = -w f_a:
   its 36-vector u_ja = dSu[ja] P0 + dSv[ja] P1 depends on the row's function ja only, so it is
   formed once for the 3 rows (ja, 0..2), and each row takes 2 multiply-adds per entry and point.
   QQFlush goes through a block in column chunks of 8 (and one of 4): a chunk of the terms' G
   rows and P vectors is loaded once for all 36 rows, which then cost one load and one store of
   the row's chunk per group of up to 4 terms (the rows reloaded G and U for every row before;
   bench_film's fused pass took 0.90-1.03 of that version's time, median 0.97 over 6 pairs). */
enum { QQ_MAX = 16 /* the terms of one quad: 4 points x 4 face pairs */ };
typedef struct {
  PetscInt  slot;
  PetscBool own; /* the point's own face: the sliding term */
  PetscReal cS[ANCF3843_FACE_NSHAPE], G[3][QQ_NA];
  PetscReal fw[3], dSu[ANCF3843_FACE_NSHAPE], dSv[ANCF3843_FACE_NSHAPE], P[2][QQ_NA];
} QQTerm;
typedef struct {
  int    n;
  QQTerm t[QQ_MAX];
} QQTerms;

/* A column chunk [c, c + W) of a slot's rows for nt terms of one kind (all own or none):
   the terms' G rows and sliding vectors P0, P1 of the chunk are loaded once and kept over the
   12 functions ja, the 3 rows (ja, 0..2) of one ja share the sliding vectors u_t. */
typedef double QQv8 __attribute__((vector_size(8 * sizeof(double)), aligned(sizeof(double))));
typedef double QQv4 __attribute__((vector_size(4 * sizeof(double)), aligned(sizeof(double))));
#define QQ_CHUNK(VT, c, nt, own) \
  do { \
    VT g[4][3], p0[4], p1[4]; \
    for (int t = 0; t < (nt); t++) { \
      for (int i = 0; i < 3; i++) g[t][i] = *(const VT *)&L[t]->G[i][c]; \
      if (own) { \
        p0[t] = *(const VT *)&L[t]->P[0][c]; \
        p1[t] = *(const VT *)&L[t]->P[1][c]; \
      } \
    } \
    for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++) { \
      VT u[4]; \
      if (own) \
        for (int t = 0; t < (nt); t++) u[t] = L[t]->dSu[ja] * p0[t] + L[t]->dSv[ja] * p1[t]; \
      for (PetscInt i = 0; i < 3; i++) { \
        VT *rp = (VT *)&out[(3 * ja + i) * QQ_NA + (c)]; \
        VT  r  = *rp; \
        for (int t = 0; t < (nt); t++) { \
          r += L[t]->cS[ja] * g[t][i]; \
          if (own) r += L[t]->fw[i] * u[t]; \
        } \
        *rp = r; \
      } \
    } \
  } while (0)

static inline __attribute__((always_inline)) void QQGroup(const int nt, const PetscBool own, const QQTerm *const L[], PetscScalar *restrict out)
{
  QQ_CHUNK(QQv8, 0, nt, own);
  QQ_CHUNK(QQv8, 8, nt, own);
  QQ_CHUNK(QQv8, 16, nt, own);
  QQ_CHUNK(QQv8, 24, nt, own);
  QQ_CHUNK(QQv4, 32, nt, own);
}
#undef QQ_CHUNK

/* Applies the kept terms to the blocks of jqq (each slot's terms in the order they came, 4 at
   a time) and empties qt. */
static void QQFlush(TdModel m, QQTerms *qt, PetscScalar *jqq)
{
  PetscBool done[QQ_MAX] = {PETSC_FALSE};
  for (int t0 = 0; t0 < qt->n; t0++) {
    const QQTerm *L[QQ_MAX];
    int           nl = 0;
    PetscScalar  *out;
    PetscBool     own;
    if (done[t0]) continue;
    for (int t = t0; t < qt->n; t++)
      if (!done[t] && qt->t[t].slot == qt->t[t0].slot) {
        L[nl++] = &qt->t[t];
        done[t] = PETSC_TRUE;
      }
    /* a slot's terms are all of one kind: own iff its two faces are one */
    out = &jqq[m->coupling_qq_offset[qt->t[t0].slot]];
    own = qt->t[t0].own;
    for (int l0 = 0; l0 < nl; l0 += 4) {
      const int n = nl - l0 < 4 ? nl - l0 : 4;
      if (own) switch (n) {
        case 4: QQGroup(4, PETSC_TRUE, &L[l0], out); break;
        case 3: QQGroup(3, PETSC_TRUE, &L[l0], out); break;
        case 2: QQGroup(2, PETSC_TRUE, &L[l0], out); break;
        default: QQGroup(1, PETSC_TRUE, &L[l0], out);
      }
      else switch (n) {
        case 4: QQGroup(4, PETSC_FALSE, &L[l0], out); break;
        case 3: QQGroup(3, PETSC_FALSE, &L[l0], out); break;
        case 2: QQGroup(2, PETSC_FALSE, &L[l0], out); break;
        default: QQGroup(1, PETSC_FALSE, &L[l0], out);
      }
    }
  }
  qt->n = 0;
}

/* The coupling blocks of one Gauss point (formulation.md §6, the paper's eq. 26 made explicit):
     dF_i/dq   = -(1/scale) dR_i/dz . dz/dq                   (pressure rows)
     dQ_a/dq   = w [dS/duv . duv/dq f_a + S df_a/dz . dz/dq]   (the residual carries -Q_a)
     dQ_a/dp_j = w S (df_a/dp N_j + df_a/dgradp . gradN_j) p_ref
   with z = (h, dh/dt, vw, vb) and a = wall, base.  Only the face's active coordinates are formed
   (the others are exactly 0 for axis-aligned cells), in the packed order of the pattern. */
static PetscErrorCode AddCouplingGaussPoint(TdModel m, TdFilm *f, const FilmQuadGeometry *g, PetscInt gp, const PetscInt nodes[4], const FilmPointState *ps, const SurfaceState *ss[2], const FilmReynoldsSensitivity *rs, const FilmTractionSensitivity *ts, const PetscReal fa[2][3], const PetscReal dfa_dhdot[2][3], PetscReal ce, PetscReal cv, SlotCache cache[2], QuadSlots *qs, QQTerms *qt, PetscScalar *jqq, PetscScalar *jqp, PetscScalar *jpq, PetscReal *block)
{
  SurfaceDerivatives D[2];
  const PetscReal    sign[2] = {-1, 1};
  const PetscReal    w       = g->w[gp];
  const PetscInt     N       = ANCF3843_NDOF;
  PetscInt           slot_qp[2][4]; /* (face of surface s, pressure unknown of node i), -1: none */
  PetscReal          wS[2][ANCF3843_FACE_NSHAPE], wSx[2][QQ_NA];
  const PetscReal    iscale = 1 / f->residual_scale;
  PetscFunctionBegin;
  for (PetscInt s = 0; s < 2; s++)
    if (ss[s]->element >= 0) {
      SurfaceDerivativesCompute(m, ss[s], sign[s], ce, cv, &D[s]);
      /* -w S_k of the active functions (entries 3 ja + i of the packed coordinates) */
      if (D[s].n < N)
        for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++) {
          wS[s][ja]          = -w * ss[s]->S[D[s].idx[3 * ja] / 3];
          wSx[s][3 * ja]     = wS[s][ja];
          wSx[s][3 * ja + 1] = wS[s][ja];
          wSx[s][3 * ja + 2] = wS[s][ja];
        }
    }
  /* the pattern slots of the face-pressure pairs, shared by the pressure rows and dQ/dp */
  for (PetscInt s = 0; s < 2; s++) {
    const PetscInt64 face = ss[s]->element >= 0 ? 8 * ss[s]->element + ss[s]->face : -1;
    if (face >= 0 && face == qs->face[s]) {
      for (PetscInt i = 0; i < 4; i++) slot_qp[s][i] = qs->qp[s][i];
      continue;
    }
    for (PetscInt i = 0; i < 4; i++) {
      const PetscInt ui = f->unknown[nodes[i]];
      slot_qp[s][i]     = -1;
      if (f->model == TD_FILM_REYNOLDS && ui >= 0 && face >= 0) slot_qp[s][i] = CachedCouplingSlot(m, &cache[0], m->coupling_qp, m->ncoupling_qp, PairKey((PetscInt)face, ui));
      qs->qp[s][i] = slot_qp[s][i];
    }
    qs->face[s] = face;
  }
  /* pressure rows (times 1/scale: a multiplication, not a division, per entry): an axis-aligned
     cell's straight into the rows of its blocks, the 4 nodes' at once; a rotated one's turned
     first */
  if (f->model == TD_FILM_REYNOLDS && rs)
    for (PetscInt s = 0; s < 2; s++) {
      const PetscInt            e  = ss[s]->element;
      const SurfaceDerivatives *Ds = &D[s];
      PetscReal                 ch[4], chd[4], cvel[4][3], *out[4];
      PetscInt                  nrow = 0;
      if (e < 0) continue;
      for (PetscInt i = 0; i < 4; i++) {
        const PetscReal(*dRdv)[3] = s == 0 ? rs->dvw[i] : rs->dvb[i];
        if (f->unknown[nodes[i]] < 0 || slot_qp[s][i] < 0) continue;
        ch[nrow]  = rs->dh[i][gp];
        chd[nrow] = rs->ddhdt[i][gp];
        for (PetscInt c = 0; c < 3; c++) cvel[nrow][c] = dRdv[gp][c];
        out[nrow++] = &jpq[m->coupling_qp_offset[slot_qp[s][i]]];
      }
      if (Ds->n < N) Combine(Ds, nrow, ch, chd, (const PetscReal(*)[3])cvel, -iscale, PETSC_TRUE, out);
      else
        for (PetscInt r = 0; r < nrow; r++) {
          PetscReal  G[ANCF3843_NDOF];
          PetscReal *grow[1] = {G};
          Combine(Ds, 1, &ch[r], &chd[r], (const PetscReal(*)[3])&cvel[r], -iscale, PETSC_FALSE, grow);
          TdModelElementRotateForce(m, e, G); /* all 96, in element order */
          for (PetscInt jj = 0; jj < Ds->n; jj++) out[r][jj] += G[jj];
        }
    }
  /* force rows */
  for (PetscInt a = 0; a < 2; a++) {
    const PetscInt ea = ss[a]->element;
    if (ea < 0) continue;
    for (PetscInt s = 0; s < (m->film_qq_keep ? 0 : 2); s++) {
      const PetscInt            es = ss[s]->element;
      const SurfaceDerivatives *Da = &D[a], *Ds = &D[s];
      const PetscInt            na = Da->n, nb = Ds->n;
      const PetscReal(*dfdv)[3]    = s == 0 ? ts->dvw[a] : ts->dvb[a];
      PetscReal                 Gl[3][ANCF3843_NDOF];
      PetscReal                *Gb;
      PetscInt                  slot, ldg;
      QQTerm                   *T = NULL;
      if (es < 0) continue;
      {
        const PetscInt64 pair = PairKey(8 * ea + ss[a]->face, 8 * es + ss[s]->face);
        if (pair != qs->pair[a][s]) {
          qs->qq[a][s]   = CachedCouplingSlot(m, &cache[1], m->coupling_qq, m->ncoupling_qq, pair);
          qs->pair[a][s] = pair;
        }
        slot = qs->qq[a][s];
      }
      if (slot < 0) continue;
      /* both cells axis-aligned: a term of the quad's deferred updates (QQFlush), G formed in it */
      if (na < N && nb < N) {
        T       = &qt->t[qt->n++];
        T->slot = slot;
        T->own  = s == a ? PETSC_TRUE : PETSC_FALSE;
      }
      Gb  = T ? &T->G[0][0] : &Gl[0][0];
      ldg = T ? QQ_NA : N;
#define G(i, jj) Gb[(i) * ldg + (jj)]
      {
        PetscReal *const rows[3] = {&G(0, 0), &G(1, 0), &G(2, 0)};
        Combine(Ds, 3, ts->dh[a], dfa_dhdot[a], dfdv, 1, PETSC_FALSE, rows);
      }
      {
        /* the active rows (k, i) and columns of the face pair; a rotated cell's (all 96, in
           element order) are accumulated apart and turned to global slopes, rows and columns
           separately, so that a pair of one rotated and one aligned cell is turned too */
        const PetscBool rotated = na == N || nb == N ? PETSC_TRUE : PETSC_FALSE;
        PetscScalar    *out     = rotated ? block : &jqq[m->coupling_qq_offset[slot]];
        if (rotated) PetscCall(PetscArrayzero(block, na * nb));
        if (!rotated) {
          /* both cells axis-aligned: the term's coefficients (row ii = 3 ja + i is component i
             of active function ja), the same expressions as the general loops below */
          for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++) {
            const PetscInt k = Da->idx[3 * ja] / 3;
            T->cS[ja]        = wS[a][ja]; /* -w S_k of face a's active functions */
            if (s == a) {
              T->dSu[ja] = ss[a]->dS_uv[0][k];
              T->dSv[ja] = ss[a]->dS_uv[1][k];
            }
          }
          if (s == a) {
            PetscReal a0[12], a1[12];
            for (PetscInt i = 0; i < 3; i++) T->fw[i] = -w * fa[a][i];
            for (PetscInt k = 0; k < 12; k++) {
              a0[k] = Da->auv[0][k % 3];
              a1[k] = Da->auv[1][k % 3];
            }
            for (PetscInt c = 0; c < QQ_NA; c += 12)
              for (PetscInt k = 0; k < 12; k++) {
                T->P[0][c + k] = Da->Sx[c + k] * a0[k];
                T->P[1][c + k] = Da->Sx[c + k] * a1[k];
              }
          }
        } else if (s == a) {
          /* the point sliding along its own face: dS/duv . duv/dq f_a (duv/dq packed to the
             active columns, so that the row updates are contiguous and vectorised) */
          const PetscReal *du0 = Da->duv[0], *du1 = Da->duv[1];
          for (PetscInt ii = 0; ii < na; ii++) {
            const PetscInt  k = Da->idx[ii] / 3, i = Da->idx[ii] % 3;
            const PetscReal cS = -w * ss[a]->S[k], c0 = -w * ss[a]->dS_uv[0][k] * fa[a][i], c1 = -w * ss[a]->dS_uv[1][k] * fa[a][i];
            PetscScalar    *row = &out[(PetscCount)ii * nb];
            for (PetscInt jj = 0; jj < nb; jj++) row[jj] += cS * G(i, jj) + c0 * du0[jj] + c1 * du1[jj];
          }
        } else
          for (PetscInt ii = 0; ii < na; ii++) {
            const PetscInt  k = Da->idx[ii] / 3, i = Da->idx[ii] % 3;
            const PetscReal cS = -w * ss[a]->S[k];
            PetscScalar    *row = &out[(PetscCount)ii * nb];
            for (PetscInt jj = 0; jj < nb; jj++) row[jj] += cS * G(i, jj);
          }
        if (rotated) {
          PetscScalar *dst = &jqq[m->coupling_qq_offset[slot]];
          RotateBlock(m, ea, na, es, nb, block);
          for (PetscInt j = 0; j < na * nb; j++) dst[j] += block[j];
        }
      }
#undef G
    }
    /* dQ_a/dp */
    if (f->model == TD_FILM_REYNOLDS)
      for (PetscInt jn = 0; jn < 4; jn++) {
        const PetscInt slot = slot_qp[a][jn];
        PetscReal      col[ANCF3843_NDOF], dfdp[3];
        if (slot < 0) continue;
        for (PetscInt i = 0; i < 3; i++) {
          dfdp[i] = ts->dp[a][i] * g->N[gp][jn];
          for (PetscInt d = 0; d < 3; d++) dfdp[i] += ts->dgradp[a][i][d] * g->gradN[gp][jn][d];
        }
        if (D[a].n < N) { /* an axis-aligned cell: its active coordinates only, no turn */
          PetscScalar *restrict dst = &jqp[m->coupling_qp_offset[slot]];
          PetscReal             fpx[12];
          for (PetscInt k = 0; k < 12; k++) fpx[k] = dfdp[k % 3] * f->p_ref;
          for (PetscInt c = 0; c < QQ_NA; c += 12)
            for (PetscInt k = 0; k < 12; k++) dst[c + k] += wSx[a][c + k] * fpx[k];
        } else {
          for (PetscInt k = 0; k < ANCF3843_NSHAPE; k++)
            for (PetscInt i = 0; i < 3; i++) col[3 * k + i] = -w * ss[a]->S[k] * dfdp[i] * f->p_ref;
          TdModelElementRotateForce(m, ea, col);
          for (PetscInt j = 0; j < N; j++) jqp[m->coupling_qp_offset[slot] + j] += col[j];
        }
      }
  }
  PetscFunctionReturn(0);
}

/* Dry contact tractions (formulation §3) and their derivatives with respect to h, dh/dt, vw, vb:
   f_w = -pN n + mu pN that(vb - vw), f_b = -f_w, that(u) = Tu / sqrt(|Tu|^2 + v_eps^2). */
static void DryTractions(const TdFilm *f, const PetscReal n[3], const FilmPointState *ps, PetscReal fa[2][3], FilmTractionSensitivity *ts, PetscReal dfa_dhdot[2][3])
{
  PetscReal dpdh, dpdhdot, pN = film_dry_pressure(ps->h, ps->dhdt, f->Kg, f->eta, f->exponent, f->area, f->eps_dry, &dpdh, &dpdhdot);
  PetscReal u[3], un, tu[3], sn, that[3], dt[3][3];
  for (PetscInt d = 0; d < 3; d++) u[d] = ps->vb[d] - ps->vw[d];
  un = vec3_dot(u, n);
  for (PetscInt d = 0; d < 3; d++) tu[d] = u[d] - un * n[d];
  sn = PetscSqrtReal(vec3_dot(tu, tu) + f->contact.v_eps * f->contact.v_eps);
  for (PetscInt d = 0; d < 3; d++) that[d] = tu[d] / sn;
  for (PetscInt i = 0; i < 3; i++)
    for (PetscInt j = 0; j < 3; j++) dt[i][j] = ((i == j) - n[i] * n[j] - that[i] * that[j]) / sn;
  PetscMemzero(ts, sizeof *ts);
  for (PetscInt i = 0; i < 3; i++) {
    const PetscReal dir = -n[i] + f->mu_dry * that[i];
    fa[0][i]           = pN * dir;
    fa[1][i]           = -fa[0][i];
    ts->dh[0][i]       = dpdh * dir;
    ts->dh[1][i]       = -ts->dh[0][i];
    dfa_dhdot[0][i]    = dpdhdot * dir;
    dfa_dhdot[1][i]    = -dfa_dhdot[0][i];
    for (PetscInt j = 0; j < 3; j++) {
      ts->dvb[0][i][j] = f->mu_dry * pN * dt[i][j];
      ts->dvw[0][i][j] = -ts->dvb[0][i][j];
      ts->dvb[1][i][j] = -ts->dvb[0][i][j];
      ts->dvw[1][i][j] = ts->dvb[0][i][j];
    }
  }
}

/* One film quad: its Gauss points' states, the Reynolds rows (F11) or nothing (dry), the film
   forces on the faces (F14) and, with jac, the coupling blocks.  Writes only to the arrays it is
   given (a thread's own accumulators, or the outputs) and to the quad's own hits and pressure
   block (jpp, 16 entries), and to the thread's slot caches.  Returns 0, or 1 when a point
   leaves the film's domain (f->miss, or the caller's message buffer, says where). */
static PetscErrorCode AssembleQuad(TdModel m, TdFilm *f, PetscInt qd, const PetscReal c[3], const PetscReal cdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], const PetscScalar u[], PetscReal ce, PetscReal cv, PetscBool coupled, PetscBool want_jac, PetscReal rfull[], PetscScalar rfilm[], PetscScalar *jpp, PetscScalar *jqq, PetscScalar *jqp, PetscScalar *jpq, PetscScalar *jrig, PetscReal *block, SlotCache cache[2], PetscReal L[3], PetscReal Fr[3], char miss[512], PetscBool *ok)
{
  PetscReal zr[48]; /* a rigid pair's coordinates (F25) */
  const FilmQuadGeometry *g     = TdFilmGeometry(f, qd);
  TdFilmHit              *hq    = TdFilmHits(f, qd);
  const PetscInt         *nodes = &f->surface.quads[4 * qd];
  FilmPointState          ps[4];
  SurfaceState            sw[4], sb[4];
  PetscReal               p[4];
  FilmReynoldsSensitivity rsens;
  QuadSlots               qs = {{-1, -1}, {{-1, -1}, {-1, -1}}, {{-1, -1, -1, -1}, {-1, -1, -1, -1}}, {{-1, -1}, {-1, -1}}};
  FaceCoordinates         fc[2];    /* wall, base: the faces' coordinates, across the quad's points */
  QQTerms                 qt;       /* the deferred dQ/dq updates (QQFlush) */
  PetscFunctionBegin;
  qt.n    = 0;
  fc[0].e = fc[1].e = -1;
  if (f->rigid_pair && jrig) {
    PetscCall(PetscArrayzero(jrig, TdFilmRigidQuadEntries(f))); /* every entry of the quad, coupled or not */
    if (coupled) TdFilmRigidGather(m, f, t, q, v, zr);
  }
  for (PetscInt i = 0; i < 4; i++) p[i] = f->unknown[nodes[i]] >= 0 ? f->p_ref * PetscRealPart(u[f->unknown[nodes[i]]]) : 0;
  for (PetscInt gp = 0; gp < 4; gp++) {
    PetscReal x[3];
    sw[gp].want_lin = sb[gp].want_lin = coupled;
    for (PetscInt i = 0; i < 3; i++) x[i] = g->x[gp][i] + c[i];
    PetscCall(TdFilmPointState(m, f, miss, &hq[gp], &hq[4 + gp], x, g->n[gp], &f->lines[4 * (qd - f->quad_start) + gp], cdot, t, q, v, 1e-9, fc, &ps[gp], &sw[gp], &sb[gp], ok));
    if (!*ok) PetscFunctionReturn(0);
  }
  if (f->model == TD_FILM_REYNOLDS) {
    PetscReal R[4], K[4][4], Kt[4][4];
    if (f->cavitation == TD_CAVITATION_JFO) {
      /* (F18): the film fractions of the nodes (1 on the flooded boundary) */
      PetscReal th[4], th0[4];
      for (PetscInt i = 0; i < 4; i++) {
        th[i]  = f->theta_unknown[nodes[i]] >= 0 ? PetscRealPart(u[f->theta_unknown[nodes[i]]]) : 1;
        th0[i] = f->theta_old[nodes[i]];
      }
      film_reynolds_quad_jfo(g, &f->fluid, ps, p, th, th0, f->inv_dt, R, K, Kt, coupled ? &rsens : NULL);
    } else film_reynolds_quad(g, &f->fluid, ps, p, R, K, coupled ? &rsens : NULL);
    for (PetscInt i = 0; i < 4; i++)
      if (f->unknown[nodes[i]] >= 0) rfilm[f->unknown[nodes[i]] - f->first_unknown] -= R[i] / f->residual_scale;
    if (want_jac) {
      for (PetscInt i = 0; i < 4; i++)
        for (PetscInt j = 0; j < 4; j++) jpp[4 * i + j] = -K[i][j] * f->p_ref / f->residual_scale;
      if (f->cavitation == TD_CAVITATION_JFO)
        for (PetscInt i = 0; i < 4; i++)
          for (PetscInt j = 0; j < 4; j++) jpp[16 + 4 * i + j] = -Kt[i][j] / f->residual_scale;
    }
  }
  for (PetscInt gp = 0; gp < 4; gp++) {
    PetscReal               fa[2][3], pc = 0, fn, dfa_dhdot[2][3] = {{0, 0, 0}, {0, 0, 0}};
    FilmTractionSensitivity ts;
    if (f->model == TD_FILM_REYNOLDS) {
      PetscReal pq = 0, gradp[3] = {0, 0, 0};
      for (PetscInt i = 0; i < 4; i++) {
        pq += g->N[gp][i] * p[i];
        for (PetscInt d = 0; d < 3; d++) gradp[d] += g->gradN[gp][i][d] * p[i];
      }
      film_tractions_sens(&f->fluid, &f->contact, g->n[gp], &ps[gp], pq, gradp, fa[0], fa[1], &pc, coupled ? &ts : NULL);
    } else DryTractions(f, g->n[gp], &ps[gp], fa, &ts, dfa_dhdot);
    if (f->rigid_pair) {
      /* on the free bodies' coordinates; the load and friction turned from the frame to space */
      TdFilmRigidForces(m, f, &sw[gp].rigid, g->w[gp], fa[0], fa[1], rfull, L, Fr, g->n[gp]);
      if (coupled && jrig) TdFilmRigidGaussPointJacobian(m, f, g, gp, nodes, zr, &sw[gp].rigid, (const PetscReal(*)[3])fa, &ts, (const PetscReal(*)[3])dfa_dhdot, f->model == TD_FILM_REYNOLDS ? &rsens : NULL, ce, cv, jrig);
      continue;
    }
    if (rfull) {
      AddFaceForce(m, &sw[gp], g->w[gp], fa[0], rfull);
      AddFaceForce(m, &sb[gp], g->w[gp], fa[1], rfull);
    }
    fn = vec3_dot(fa[0], g->n[gp]);
    for (PetscInt d = 0; d < 3; d++) {
      L[d] += g->w[gp] * fa[0][d];
      Fr[d] += g->w[gp] * (fa[0][d] - fn * g->n[gp][d]);
    }
    if (coupled) {
      const SurfaceState *ss[2] = {&sw[gp], &sb[gp]};
      PetscCall(AddCouplingGaussPoint(m, f, g, gp, nodes, &ps[gp], ss, f->model == TD_FILM_REYNOLDS ? &rsens : NULL, &ts, (const PetscReal(*)[3])fa, (const PetscReal(*)[3])dfa_dhdot, ce, cv, cache, &qs, &qt, jqq, jqp, jpq, block));
    }
  }
  if (coupled) QQFlush(m, &qt, jqq);
  PetscFunctionReturn(0);
}

/*
  The films' rows, forces and (with jac) Jacobian entries in the order of TdFilmsCOOPattern.
  Threads share this rank's quads of a film in equal static shares: thread 0 adds into the
  outputs, the others into their own accumulators (film rows, body forces, coupling blocks), which
  are added afterwards in thread order, so a pass is reproducible for a given number of threads.
*/
PetscErrorCode TdFilmsAssemble(TdModel m, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscScalar u[], PetscReal ce, PetscReal cv, PetscReal rfull[], PetscScalar r[], PetscScalar *jac, PetscReal *load, PetscReal *friction, PetscBool *ok)
{
  PetscCount   kpp = 0, npp = FilmPressureEntries(m), ncpl = 0, krig = 0, kept = 0; /* kept: dQ/dq entries left as they are (model.h's film_qq_keep) */
  PetscScalar *jqq = NULL, *jqp = NULL, *jpq = NULL, *jrig = NULL;
  const int    nthreads = omp_get_max_threads();
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) m->films[fi].miss[0] = 0;
  if (jac) {
    const PetscCount nqq = StiffnessEntries(m), nqp = m->ncoupling_qp ? m->coupling_qp_offset[m->ncoupling_qp] : 0;
    ncpl = nqq + 2 * nqp;
    jqq  = jac + npp;
    jqp  = jqq + nqq;
    jpq  = jqp + nqp;
    jrig = jpq + nqp; /* the rigid pairs' blocks, quad by quad (each quad fills its own) */
    kept = m->film_qq_keep ? nqq : 0;
    PetscCall(PetscArrayzero(jqq + kept, ncpl - kept));
  }
  {
    /* per-thread accumulators of threads 1.. (film rows of the largest film, body forces,
       coupling blocks) and every thread's 96 x 96 scratch block */
    PetscInt nrows = 0;
    size_t   need;
    for (PetscInt fi = 0; fi < m->nfilms; fi++) nrows = PetscMax(nrows, m->films[fi].nunknowns);
    need = (size_t)nthreads * ANCF3843_NDOF * ANCF3843_NDOF + (size_t)(nthreads - 1) * (nrows + m->nfull + ncpl);
    if (need > m->film_work_size) {
      PetscCall(PetscFree(m->film_work));
      PetscCall(PetscMalloc1(need, &m->film_work));
      m->film_work_size = need;
    }
  }
  for (PetscInt fi = 0; fi < m->nfilms && *ok; fi++) {
    TdFilm         *f = &m->films[fi];
    PetscReal       c[3], cdot[3], L[3] = {0, 0, 0}, Fr[3] = {0, 0, 0};
    const PetscBool coupled = jac && (f->wall.kind == TD_FACE_ANCF || f->base.kind == TD_FACE_ANCF || f->rigid_pair) && (ce != 0 || cv != 0 || f->model == TD_FILM_REYNOLDS);
    const PetscCount nrig   = TdFilmRigidQuadEntries(f);
    const PetscInt  nrows   = f->nunknowns;
    const size_t    stride  = (size_t)nrows + m->nfull + ncpl;
    PetscBool       bad = PETSC_FALSE, err = PETSC_FALSE;
    TdFilmFrameMotion(m, f, t, c, cdot);
#pragma omp parallel num_threads(nthreads)
    {
      const int    tid   = omp_get_thread_num();
      PetscReal   *block = m->film_work + (size_t)tid * ANCF3843_NDOF * ANCF3843_NDOF;
      PetscReal   *own   = m->film_work + (size_t)nthreads * ANCF3843_NDOF * ANCF3843_NDOF + (size_t)(tid - 1) * stride;
      PetscScalar *rf    = tid == 0 ? r + f->first_unknown : own;
      PetscReal   *rb    = !rfull ? NULL : (tid == 0 ? rfull : own + nrows);
      PetscScalar *tqq   = tid == 0 ? jqq : (jac ? own + nrows + m->nfull : NULL);
      PetscScalar *tqp = NULL, *tpq = NULL;
      PetscReal    Lt[3] = {0, 0, 0}, Frt[3] = {0, 0, 0};
      PetscBool    okt = PETSC_TRUE;
      char         miss[512];
      SlotCache    cache[2] = {{0}, {0}}; /* face-pressure and face-face pairs, over this thread's quads */
      if (tqq) {
        tqp = tqq + (jqp - jqq);
        tpq = tqq + (jpq - jqq);
      }
      if (tid > 0) {
        for (size_t i = 0; i < (size_t)nrows + m->nfull; i++) own[i] = 0;
        if (jac)
          for (PetscCount i = kept; i < ncpl; i++) tqq[i] = 0;
      }
      /* static: the quads of each thread, and with them its sums, are the same at every call, so
         that the residual is a deterministic function of the iterate (its central differences
         check the Jacobian); a busy neighbour is the thread governor's concern */
#pragma omp for schedule(static)
      for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++) {
        PetscBool stop;
#pragma omp atomic read
        stop = bad;
        if (!okt || stop) continue;
        if (AssembleQuad(m, f, qd, c, cdot, t, q, v, u, ce, cv, coupled, jac ? PETSC_TRUE : PETSC_FALSE, rb, rf, jac ? jac + kpp + QuadEntries(f) * (qd - f->quad_start) : NULL, tqq, tqp, tpq, jrig ? jrig + krig + nrig * (qd - f->quad_start) : NULL, block, cache, Lt, Frt, miss, &okt)) {
#pragma omp atomic write
          err = PETSC_TRUE;
        }
        if (!okt) {
#pragma omp critical(td_film_miss)
          {
            if (!bad) (void)PetscStrncpy(f->miss, miss, sizeof f->miss);
#pragma omp atomic write
            bad = PETSC_TRUE;
          }
        }
      }
#pragma omp critical(td_film_sums)
      for (PetscInt d = 0; d < 3; d++) {
        L[d] += Lt[d];
        Fr[d] += Frt[d];
      }
    }
    PetscCheck(!err, PETSC_COMM_SELF, PETSC_ERR_LIB, "film '%s': the assembly of a quad failed", f->name);
    if (bad) *ok = PETSC_FALSE;
    for (int tid = 1; tid < nthreads; tid++) {
      const PetscReal *own = m->film_work + (size_t)nthreads * ANCF3843_NDOF * ANCF3843_NDOF + (size_t)(tid - 1) * stride;
      for (PetscInt i = 0; i < nrows; i++) r[f->first_unknown + i] += own[i];
      if (rfull)
        for (PetscInt i = 0; i < m->nfull; i++) rfull[i] += own[nrows + i];
      if (jac)
        for (PetscCount i = kept; i < ncpl; i++) jqq[i] += own[nrows + m->nfull + i];
    }
    kpp += QuadEntries(f) * (PetscCount)(f->quad_end - f->quad_start);
    krig += nrig * (PetscCount)(f->quad_end - f->quad_start);
    if (load)
      for (PetscInt d = 0; d < 3; d++) load[3 * fi + d] = L[d];
    if (friction)
      for (PetscInt d = 0; d < 3; d++) friction[3 * fi + d] = Fr[d];
  }
  PetscFunctionReturn(0);
}

void TdFilmNodalTheta(TdModel m, PetscInt fi, const PetscScalar u[], PetscReal theta[])
{
  const TdFilm *f = &m->films[fi];
  for (PetscInt n = 0; n < f->surface.nnodes; n++) theta[n] = f->theta_unknown && f->theta_unknown[n] >= 0 ? PetscRealPart(u[f->theta_unknown[n]]) : 1;
}

void TdFilmsStepStart(TdModel m, const PetscScalar u[])
{
  for (PetscInt fi = 0; fi < m->nfilms; fi++)
    if (m->films[fi].theta_old) TdFilmNodalTheta(m, fi, u, m->films[fi].theta_old);
}

PetscErrorCode TdFilmNodePositions(TdModel m, PetscInt fi, PetscReal t, const PetscReal q[], PetscReal pos[])
{
  const TdFilm *f = &m->films[fi];
  PetscReal     c[3], cdot[3];
  PetscFunctionBegin;
  if (f->rigid_pair && f->pair.frame >= 0) { /* carried by a free body (F25): r + A (X - com) */
    const TdBody *body = &m->bodies[f->pair.frame ? f->base.body : f->wall.body];
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) TdFreeBodyPoint(body, q, &f->surface.X[3 * nd], &pos[3 * nd]);
    PetscFunctionReturn(0);
  }
  TdFilmFrameMotion(m, f, t, c, cdot);
  for (PetscInt nd = 0; nd < f->surface.nnodes; nd++)
    for (PetscInt d = 0; d < 3; d++) pos[3 * nd + d] = f->surface.X[3 * nd + d] + c[d];
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmNodalFields(TdModel m, PetscInt fi, PetscReal t, const PetscReal q[], const PetscScalar u[], PetscInt node_start, PetscInt node_end, PetscReal p[], PetscReal h[], PetscReal pc[], PetscReal *hmin)
{
  TdFilm   *f = &m->films[fi];
  PetscReal c[3], cdot[3], hm = PETSC_MAX_REAL;
  PetscFunctionBegin;
  /* a node's normal (the mean of the Gauss-point normals of the quads using it) and its first
     search's faces were set up with the film (film_create.c), for this rank's nodes only */
  PetscCheck(node_start >= f->node_start && node_end <= f->node_end, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "TdFilmNodalFields: nodes [%" PetscInt_FMT ", %" PetscInt_FMT ") of film '%s' are not all this rank's output nodes [%" PetscInt_FMT ", %" PetscInt_FMT ") (TdOutputPartRange)", node_start, node_end, f->name, f->node_start, f->node_end);
  TdFilmFrameMotion(m, f, t, c, cdot);
#pragma omp parallel for schedule(dynamic, 16) reduction(min : hm)
  for (PetscInt nd = node_start; nd < node_end; nd++) {
    PetscReal      x[3];
    FilmPointState ps = {0};
    SurfaceState   sw, sb;
    PetscBool      ok = PETSC_TRUE;
    char           miss[512];
    sw.want_lin = sb.want_lin = PETSC_FALSE;
    for (PetscInt d = 0; d < 3; d++) x[d] = f->surface.X[3 * nd + d] + c[d];
    if (TdFilmPointState(m, f, miss, &TdFilmNodeHits(f, nd)[0], &TdFilmNodeHits(f, nd)[1], x, &f->node_normal[3 * (nd - f->node_start)], NULL, cdot, t, q, NULL, 1e-2, NULL, &ps, &sw, &sb, &ok)) ok = PETSC_FALSE;
    const PetscInt k = nd - node_start;
    h[k] = ok ? ps.h : NAN;
    if (ok) hm = PetscMin(hm, ps.h);
    if (f->model == TD_FILM_REYNOLDS) {
      FilmClosures cl;
      p[k] = f->unknown[nd] >= 0 ? f->p_ref * PetscRealPart(u[f->unknown[nd]]) : 0;
      if (!pc) continue;
      if (ok && f->fluid.rough.sigma > 0) {
        film_closures_eval(&f->fluid.rough, ps.h, &cl);
        pc[k] = f->contact.K * f->contact.E_star * cl.F52;
      } else pc[k] = 0;
    } else {
      p[k] = ok ? film_dry_pressure(ps.h, 0, f->Kg, f->eta, f->exponent, f->area, f->eps_dry, NULL, NULL) : NAN;
      if (pc) pc[k] = 0;
    }
  }
  *hmin = hm;
  PetscFunctionReturn(0);
}


