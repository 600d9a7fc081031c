/*
  The films' part of the Jacobian's pattern (film.h): each rank's film-film entries (per quad), the
  film-body coupling pattern (the element-face pairs and face-pressure pairs its film points
  meet, with those ahead for a film carried by a drive) and its COO rows and columns, built at
  set-up, updated when a point moves onto a face outside it (TdFilmsCouplingUpdate), and set from
  a checkpoint (TdFilmsCouplingSet).  The assembly (film.c) finds its blocks' slots in it.
*/
#include "film_private.h"
#include <omp.h>

PetscErrorCode TdFilmsCOOPattern(TdModel m, PetscCount *n, PetscInt rows[], PetscInt cols[])
{
  PetscCount k = 0;
  PetscFunctionBegin;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm *f = &m->films[fi];
    if (f->model != TD_FILM_REYNOLDS) continue;
    for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++) {
      const PetscInt *nodes = &f->surface.quads[4 * qd];
      /* dR/dp, then with JFO dR/dtheta: the same rows, the pressures' then the fractions' columns */
      const PetscInt *colmap[2] = {f->unknown, f->theta_unknown};
      for (PetscInt blk = 0; blk < QuadEntries(f) / 16; blk++)
        for (PetscInt i = 0; i < 4; i++)
          for (PetscInt j = 0; j < 4; j++, k++)
            if (rows) {
              rows[k] = f->unknown[nodes[i]];
              cols[k] = colmap[blk][nodes[j]];
              if (rows[k] < 0 || cols[k] < 0) rows[k] = cols[k] = -1;
            }
    }
  }
  /* dQ/dq: the active coordinates of each element-face pair */
  for (PetscInt c = 0; c < m->ncoupling_qq; c++) {
    const PetscInt fa = (PetscInt)(m->coupling_qq[c] >> 32), fb = (PetscInt)(m->coupling_qq[c] & 0xffffffff);
    PetscInt       ra[ANCF3843_NDOF], cb[ANCF3843_NDOF], ia[ANCF3843_NDOF], ib[ANCF3843_NDOF], na, nb;
    na = FaceActive(m, fa / 8, fa % 8, ia);
    nb = FaceActive(m, fb / 8, fb % 8, ib);
    if (rows) {
      TdModelElementCoordinates(m, fa / 8, ra);
      TdModelElementCoordinates(m, fb / 8, cb);
    }
    for (PetscInt i = 0; i < na; i++)
      for (PetscInt j = 0; j < nb; j++, k++)
        if (rows) {
          rows[k] = m->free_index[ra[ia[i]]];
          cols[k] = m->free_index[cb[ib[j]]];
          if (rows[k] < 0 || cols[k] < 0) rows[k] = cols[k] = -1;
        }
  }
  /* dQ/dp (element rows, pressure column), then dF/dq (pressure row, element columns) */
  for (PetscInt pass = 0; pass < 2; pass++)
    for (PetscInt c = 0; c < m->ncoupling_qp; c++) {
      const PetscInt fa = (PetscInt)(m->coupling_qp[c] >> 32), pu = (PetscInt)(m->coupling_qp[c] & 0xffffffff);
      PetscInt       ce[ANCF3843_NDOF], ia[ANCF3843_NDOF], na;
      na = FaceActive(m, fa / 8, fa % 8, ia);
      if (rows) TdModelElementCoordinates(m, fa / 8, ce);
      for (PetscInt i = 0; i < na; i++, k++)
        if (rows) {
          rows[k] = pass == 0 ? m->free_index[ce[ia[i]]] : pu;
          cols[k] = pass == 0 ? pu : m->free_index[ce[ia[i]]];
          if (rows[k] < 0 || cols[k] < 0) rows[k] = cols[k] = -1;
        }
    }
  /* rigid pairs (F25): each quad's blocks with the two bodies' coordinates */
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm    *f    = &m->films[fi];
    const PetscCount nrig = TdFilmRigidQuadEntries(f);
    if (!nrig) continue;
    for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++, k += nrig)
      if (rows) TdFilmRigidPattern(m, f, qd, &rows[k], &cols[k]);
  }
  *n = k;
  PetscFunctionReturn(0);
}

/* The sorted union of two sorted, duplicate-free key lists: its size in *n, and the keys in
   out unless out is NULL. */
static PetscErrorCode MergeKeys(const PetscInt64 a[], PetscInt na, const PetscInt64 b[], PetscInt nb, PetscInt64 out[], PetscInt *n)
{
  PetscInt i = 0, j = 0, k = 0;
  PetscFunctionBegin;
  while (i < na || j < nb) {
    PetscInt64 key;
    if (j >= nb || (i < na && a[i] < b[j])) key = a[i++];
    else if (i >= na || b[j] < a[i]) key = b[j++];
    else {
      key = a[i++];
      j++;
    }
    if (out) out[k] = key;
    k++;
  }
  *n = k;
  PetscFunctionReturn(0);
}

/* Slots per Gauss point: 4 face pairs and 8 face-pressure pairs at t and at each look-ahead time */
#define NQQ (4 * (1 + TD_PATTERN_LOOKAHEAD))
#define NQP (8 * (1 + TD_PATTERN_LOOKAHEAD))

/*
  The coupling pattern: the element-face pairs the film points meet now and, for a film carried by
  a drive, where the drive will have carried them within -<f>_pattern_lookahead seconds
  (TD_PATTERN_LOOKAHEAD samples).  On a fine mesh the film's footprint crosses a new column of
  faces every few steps, and each new pair meant a new pattern and a new LU analysis; with the
  pairs ahead already in place the pattern lasts for the look-ahead time.
*/
/* The pattern becomes the sorted unique keys qq, qp (taken over), with the blocks' offsets. */
static PetscErrorCode InstallCouplingKeys(TdModel m, PetscInt nqq, PetscInt64 *qq, PetscInt nqp, PetscInt64 *qp)
{
  PetscInt idx[ANCF3843_NDOF];
  PetscFunctionBegin;
  PetscCall(PetscFree(m->coupling_qq));
  PetscCall(PetscFree(m->coupling_qp));
  PetscCall(PetscFree(m->coupling_qq_offset));
  PetscCall(PetscFree(m->coupling_qp_offset));
  m->coupling_qq  = qq;
  m->coupling_qp  = qp;
  m->ncoupling_qq = nqq;
  m->ncoupling_qp = nqp;
  PetscCall(PetscMalloc1(nqq + 1, &m->coupling_qq_offset));
  PetscCall(PetscMalloc1(nqp + 1, &m->coupling_qp_offset));
  m->coupling_qq_offset[0] = m->coupling_qp_offset[0] = 0;
  for (PetscInt c = 0; c < nqq; c++) {
    const PetscInt fa = (PetscInt)(qq[c] >> 32), fb = (PetscInt)(qq[c] & 0xffffffff);
    m->coupling_qq_offset[c + 1] = m->coupling_qq_offset[c] + (PetscCount)FaceActive(m, fa / 8, fa % 8, idx) * FaceActive(m, fb / 8, fb % 8, idx);
  }
  for (PetscInt c = 0; c < nqp; c++) {
    const PetscInt fa = (PetscInt)(qp[c] >> 32);
    m->coupling_qp_offset[c + 1] = m->coupling_qp_offset[c] + FaceActive(m, fa / 8, fa % 8, idx);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmsCouplingSet(TdModel m, PetscInt nqq, const PetscInt64 qq[], PetscInt nqp, const PetscInt64 qp[])
{
  PetscInt64 *cq, *cp;
  PetscFunctionBegin;
  for (PetscInt c = 1; c < nqq; c++) PetscCheck(qq[c] > qq[c - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "TdFilmsCouplingSet: the face-pair keys must be sorted and unique");
  for (PetscInt c = 1; c < nqp; c++) PetscCheck(qp[c] > qp[c - 1], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "TdFilmsCouplingSet: the face-pressure keys must be sorted and unique");
  PetscCall(PetscMalloc1(PetscMax(nqq, 1), &cq));
  PetscCall(PetscMalloc1(PetscMax(nqp, 1), &cp));
  if (nqq) PetscCall(PetscArraycpy(cq, qq, nqq));
  if (nqp) PetscCall(PetscArraycpy(cp, qp, nqp));
  PetscCall(InstallCouplingKeys(m, nqq, cq, nqp, cp));
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmsCouplingUpdate(TdModel m, PetscReal t, const PetscReal q[], const PetscReal v[], PetscBool *changed, PetscBool *valid)
{
  PetscInt64 *qq = NULL, *qp = NULL;
  PetscInt    nqq = 0, nqp = 0, npoints = 0;
  PetscBool   all_ok = PETSC_TRUE;
  PetscFunctionBegin;
  *changed = PETSC_FALSE;
  if (valid) *valid = PETSC_TRUE;
  /* every Gauss point of this rank's quads writes its keys to its own slots (4 face pairs, 8
     face-pressure pairs; -1 unused), so that threads need no shared lists; compacted below */
  for (PetscInt fi = 0; fi < m->nfilms; fi++) npoints += 4 * (m->films[fi].quad_end - m->films[fi].quad_start);
  PetscCall(PetscMalloc1(NQQ * PetscMax(npoints, 1), &qq));
  PetscCall(PetscMalloc1(NQP * PetscMax(npoints, 1), &qp));
  for (PetscInt fi = 0, first = 0; fi < m->nfilms; first += 4 * (m->films[fi].quad_end - m->films[fi].quad_start), fi++) {
    TdFilm   *f = &m->films[fi];
    PetscReal c[3], cdot[3], tl[TD_PATTERN_LOOKAHEAD], cl[TD_PATTERN_LOOKAHEAD][3], cldot[TD_PATTERN_LOOKAHEAD][3];
    PetscInt  nlook = 0;
    for (PetscInt k = 0; k < 4 * (f->quad_end - f->quad_start); k++) {
      for (PetscInt i = 0; i < NQQ; i++) qq[NQQ * (first + k) + i] = -1;
      for (PetscInt i = 0; i < NQP; i++) qp[NQP * (first + k) + i] = -1;
    }
    if (f->frame_joint >= 0 && f->pattern_lookahead > 0) {
      /* a driven frame: where it will be over the next pattern_lookahead seconds is known */
      nlook = TD_PATTERN_LOOKAHEAD;
      for (PetscInt j = 0; j < nlook; j++) {
        tl[j] = t + (j + 1) * f->pattern_lookahead / nlook;
        TdFilmFrameMotion(m, f, tl[j], cl[j], cldot[j]);
      }
    }
    if (f->wall.kind != TD_FACE_ANCF && f->base.kind != TD_FACE_ANCF) continue;
    TdFilmFrameMotion(m, f, t, c, cdot);
#pragma omp parallel for schedule(static) reduction(&& : all_ok)
    for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++) {
      const FilmQuadGeometry *g     = TdFilmGeometry(f, qd);
      TdFilmHit              *hq    = TdFilmHits(f, qd);
      const PetscInt         *nodes = &f->surface.quads[4 * qd];
      for (PetscInt gp = 0; gp < 4; gp++) {
        PetscReal      x[3];
        FilmPointState ps;
        SurfaceState   sw, sb;
        PetscBool      ok = PETSC_TRUE;
        PetscInt       el[2], kq = 0, kp = 0;
        PetscInt64    *pq = &qq[NQQ * (first + 4 * (qd - f->quad_start) + gp)], *pp = &qp[NQP * (first + 4 * (qd - f->quad_start) + gp)];
        char           miss[512];
        sw.want_lin = sb.want_lin = PETSC_FALSE;
        sw.element = sb.element = -1;
        for (PetscInt d = 0; d < 3; d++) x[d] = g->x[gp][d] + c[d];
        if (TdFilmPointState(m, f, miss, &hq[gp], &hq[4 + gp], x, g->n[gp], NULL, cdot, t, q, v, 1e-9, NULL, &ps, &sw, &sb, &ok)) ok = PETSC_FALSE;
        if (!ok) {
          all_ok = PETSC_FALSE;
          if (sw.element < 0 || sb.element < 0) continue;
        }
        el[0] = sw.element >= 0 ? 8 * sw.element + sw.face : -1;
        el[1] = sb.element >= 0 ? 8 * sb.element + sb.face : -1;
        FilmLine line;
        if (nlook) film_line_init(g->n[gp], &line);
        for (PetscInt j = -1; j < nlook; j++) {
          PetscInt e[2] = {el[0], el[1]};
          if (j >= 0) {
            /* the point carried ahead by the frame, projected on the bodies as they are now
               (copies of the hits: the real searches keep their starts); the surface of the
               driven body, and one that the point misses ahead, keep their faces */
            PetscReal      xj[3];
            TdFilmSurface *surf[2] = {&f->wall, &f->base};
            for (PetscInt d = 0; d < 3; d++) xj[d] = g->x[gp][d] + cl[j][d];
            for (PetscInt a = 0; a < 2; a++) {
              TdFilmHit    hit = hq[4 * a + gp];
              SurfaceState st;
              PetscBool    found = PETSC_FALSE;
              if (el[a] < 0 || surf[a]->body == m->joints[f->frame_joint].point.body) continue; /* carried by the drive */
              st.want_lin = PETSC_FALSE;
              st.element  = -1;
              if (TdFilmProjectSurface(m, f, surf[a], &hit, xj, g->n[gp], &line, cldot[j], tl[j], q, NULL, 1e-9, NULL, &st, &found)) found = PETSC_FALSE;
              if (found && st.element >= 0) e[a] = 8 * st.element + st.face;
            }
          }
          for (PetscInt a = 0; a < 2; a++) {
            if (e[a] < 0) continue;
            for (PetscInt b = 0; b < 2; b++)
              if (e[b] >= 0) pq[kq++] = PairKey(e[a], e[b]);
            if (f->model == TD_FILM_REYNOLDS)
              for (PetscInt i = 0; i < 4; i++)
                if (f->unknown[nodes[i]] >= 0) pp[kp++] = PairKey(e[a], f->unknown[nodes[i]]);
          }
        }
      }
    }
  }
  if (valid && !all_ok) *valid = PETSC_FALSE;
  for (PetscInt k = 0; k < NQQ * npoints; k++)
    if (qq[k] >= 0) qq[nqq++] = qq[k];
  for (PetscInt k = 0; k < NQP * npoints; k++)
    if (qp[k] >= 0) qp[nqp++] = qp[k];
  /* sort, unique, compare */
  /* PETSc's sort compares inline; qsort's call per comparison took most of an update */
  PetscCall(PetscSortInt64(nqq, qq));
  PetscCall(PetscSortInt64(nqp, qp));
  {
    PetscInt u = 0;
    for (PetscInt i = 0; i < nqq; i++)
      if (!u || qq[i] != qq[u - 1]) qq[u++] = qq[i];
    nqq = u;
    u   = 0;
    for (PetscInt i = 0; i < nqp; i++)
      if (!u || qp[i] != qp[u - 1]) qp[u++] = qp[i];
    nqp = u;
  }
  {
    /* The pattern changes only when a needed pair is missing from it; then it becomes the
       union of the old and the needed pairs, unless that holds more than half again as many as
       needed (pairs the bodies have slid away from).  A film point that hovers at a face
       boundary thus does not rebuild the pattern (and redo the symbolic factorisation) back and
       forth. */
    PetscInt nuq = 0, nup = 0;
    PetscBool subset = PETSC_TRUE;
    PetscCall(MergeKeys(m->coupling_qq, m->ncoupling_qq, qq, nqq, NULL, &nuq));
    PetscCall(MergeKeys(m->coupling_qp, m->ncoupling_qp, qp, nqp, NULL, &nup));
    if (nuq != m->ncoupling_qq || nup != m->ncoupling_qp) subset = PETSC_FALSE;
    if (!subset) {
      *changed = PETSC_TRUE;
      if (2 * nuq <= 3 * nqq && 2 * nup <= 3 * nqp) {
        PetscInt64 *uq, *up;
        PetscCall(PetscMalloc1(PetscMax(nuq, 1), &uq));
        PetscCall(PetscMalloc1(PetscMax(nup, 1), &up));
        PetscCall(MergeKeys(m->coupling_qq, m->ncoupling_qq, qq, nqq, uq, &nuq));
        PetscCall(MergeKeys(m->coupling_qp, m->ncoupling_qp, qp, nqp, up, &nup));
        PetscCall(PetscFree(qq));
        PetscCall(PetscFree(qp));
        qq  = uq;
        qp  = up;
        nqq = nuq;
        nqp = nup;
      }
    }
  }
  if (*changed) PetscCall(InstallCouplingKeys(m, nqq, qq, nqp, qp));
  else {
    PetscCall(PetscFree(qq));
    PetscCall(PetscFree(qp));
  }
  PetscFunctionReturn(0);
}
