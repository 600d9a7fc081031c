/*
  Lubricant films (film.h, formulation.md §2-§3): options, reference surfaces, projection of the
  Gauss points onto the bounding faces, assembly of the average Reynolds equation (or the dry
  contact law) and of the film forces on the bodies.

  Sign convention of the film rows: the unknowns are p_hat = p / p_ref and the rows are
  F_i = -R_i / scale with R_i of formulation F11 and scale = rho h_ref^3 p_ref / (12 mu).  The
  minus sign makes dF/dp positive definite (the Poiseuille term), so that Swift-Stieber
  cavitation is the standard complementarity problem p >= p_cav, F >= 0, (p - p_cav) F = 0
  (an obstacle problem: F_i is the multiplier of the bound), which the solver treats by
  semismooth Newton on min(p - p_cav, F), or by SNESVINEWTONRSLS with bounds (solver.c).
*/
#include "model_private.h"
#include <tribodyn/options.h>
#include <tribodyn/vec3.h>
#include <errno.h>
#include <omp.h>
#include <string.h>

static const char *const film_models[]      = {"reynolds", "dry", NULL};
static const char *const film_cavitations[] = {"none", "swift_stieber", "jfo", NULL};
static const char *const profile_kinds[]    = {"none", "crown", "chamfer", "table", NULL};

/* Frame of a film: offset and velocity of its nodes at t. */
static void FrameMotion(TdModel m, const TdFilm *f, PetscReal t, PetscReal c[3], PetscReal cdot[3])
{
  c[0] = c[1] = c[2] = cdot[0] = cdot[1] = cdot[2] = 0;
  if (f->frame_joint >= 0) {
    const TdJoint *j = &m->joints[f->frame_joint];
    PetscReal      x, xd, xdd, x0, xd0, xdd0;
    TdCrankSlider(j, t, &x, &xd, &xdd);
    TdCrankSlider(j, 0, &x0, &xd0, &xdd0);
    c[0]    = x - x0;
    cdot[0] = xd;
  }
}

typedef struct {
  PetscReal r[3], v[3];      /* point and material velocity */
  PetscReal rate;            /* n . total velocity of the point (F9) */
  PetscReal prof, prof_rate; /* profile and its rate at the fixed film point */
  PetscInt  element;         /* ANCF: element of the model, else -1 */
  PetscInt  face;            /* its local face */
  PetscReal S[ANCF3843_NSHAPE];
  PetscReal dS_uv[2][ANCF3843_NSHAPE];
  PetscBool want_lin;        /* fill lin (ANCF faces) for the coupled Jacobian */
  FilmFaceLinearization lin;
  RigidFilmState rigid;      /* a rigid pair's point (F25; on the wall's state): its material points and frame */
} SurfaceState;

/* The gathered coordinates (FaceGather) and velocities of the face a quad's points last hit on
   one surface, kept across the quad's Gauss points: they mostly hit the same face, and the
   iterate does not change within a quad.  e = -1: empty; has_v: v gathered too. */
typedef struct {
  PetscInt  e, face;
  PetscBool has_v;
  PetscReal q[ANCF3843_NDOF], v[ANCF3843_NDOF];
} FaceCoordinates;

/* The coordinates of element e (cell `cell` of body) that the face kernels read on local face
   `face`: of an axis-aligned cell, those of the face's 4 nodes (the 12 active functions and the
   normal slopes), straight from full; the other entries of ee are left unset (the projection and
   its linearisation read the active functions only).  A rotated cell: all 96, turned to its
   material axes (TdModelElementGather). */
static void FaceGather(TdModel m, const TdBody *body, PetscInt e, PetscInt cell, PetscInt face, const PetscReal full[], PetscReal ee[ANCF3843_NDOF])
{
  const PetscInt  fix = face / 2, side = face % 2;
  const PetscInt *cn  = &body->mesh.cells[8 * cell];
  if (!body->mesh.axis_aligned) {
    TdModelElementGather(m, e, full, PETSC_FALSE, ee);
    return;
  }
  for (PetscInt n = 0; n < ANCF3843_NODES; n++) {
    const PetscReal *qn = &full[TD_NODE_DOF * (body->node_offset + cn[n])];
    if (((n >> fix) & 1) != side) continue;
    for (PetscInt k = 0; k < TD_NODE_DOF; k++) ee[TD_NODE_DOF * n + k] = qn[k];
  }
}

/* hit->pt = *pt but for the shape functions (two thirds of the point), which the surface state
   has and nothing reads from a hit: the start of the next search (uv), the point, its tangents
   and s are kept. */
static void HitStore(TdFilmHit *hit, const FilmSurfacePoint *pt)
{
  TdFilmHitPoint *h = &hit->pt;
  h->uv[0] = pt->uv[0];
  h->uv[1] = pt->uv[1];
  for (PetscInt i = 0; i < 3; i++) {
    h->xi[i]      = pt->xi[i];
    h->r[i]       = pt->r[i];
    h->r_uv[i][0] = pt->r_uv[i][0];
    h->r_uv[i][1] = pt->r_uv[i][1];
  }
  h->s          = pt->s;
  h->iterations = pt->iterations;
}

/* Face fi's corners at time t, in space (C) and in the reference configuration (X0), and whether
   the face lies near the film point's line: the distance of its centre from the line at most 1.5
   times its size (faces farther away cannot hold the point's projection). */
static PetscBool FaceNearLine(const TdBody *body, const TdMeshSet *set, PetscInt fi, const PetscReal q[], PetscReal t, const PetscReal x[3], const PetscReal n[3], PetscReal C[4][3], PetscReal X0[4][3])
{
  const PetscInt cell = set->faces[fi].cell;
  PetscInt       corner[4];
  PetscReal      cen[3] = {0, 0, 0}, d[3], dn, diam = 0;
  TdMeshFaceCorners(set->faces[fi].face, corner);
  for (PetscInt c = 0; c < 4; c++) {
    const PetscInt node = body->mesh.cells[8 * cell + corner[c]];
    for (PetscInt i = 0; i < 3; i++) X0[c][i] = body->mesh.X[3 * node + i];
    if (body->type == TD_BODY_ANCF)
      for (PetscInt i = 0; i < 3; i++) C[c][i] = q[TD_NODE_DOF * (body->node_offset + node) + i];
    else TdRigidBodyPoint(body, X0[c], t, C[c], NULL);
    for (PetscInt i = 0; i < 3; i++) cen[i] += 0.25 * C[c][i];
  }
  for (PetscInt i = 0; i < 3; i++) d[i] = cen[i] - x[i];
  dn = vec3_dot(d, n);
  for (PetscInt i = 0; i < 3; i++) d[i] -= dn * n[i];
  for (PetscInt c = 0; c < 4; c++) {
    PetscReal e[3];
    for (PetscInt i = 0; i < 3; i++) e[i] = C[c][i] - cen[i];
    diam = PetscMax(diam, PetscSqrtReal(vec3_dot(e, e)));
  }
  return PetscSqrtReal(vec3_dot(d, d)) <= 1.5 * diam ? PETSC_TRUE : PETSC_FALSE;
}

/* The line's hit on face fi of a mesh set (pt->uv holds the start of the search): an ANCF face
   from its gathered coordinates, a rigid one from its corners C (FaceNearLine).  The coordinates
   are gathered into fc (kept for the next points of the quad, which reuse them while they hit
   the same face) or, without fc, into buf; *ee points at them for the caller.  Returns the
   projection kernel's code (0: found). */
static int ProjectOntoFace(TdModel m, const TdBody *body, const TdMeshSet *set, PetscInt fi, const PetscReal q[], const PetscReal C[4][3], const PetscReal x[3], const FilmLine *line, PetscReal tol, FaceCoordinates *fc, PetscReal buf[ANCF3843_NDOF], const PetscReal **ee, FilmSurfacePoint *pt)
{
  const PetscInt cell = set->faces[fi].cell;
  if (body->type == TD_BODY_ANCF) {
    const PetscReal *sz = &body->mesh.size[3 * cell];
    const PetscInt   e = body->element_offset + cell, face = set->faces[fi].face;
    if (!fc) FaceGather(m, body, e, cell, face, q, buf);
    else if (fc->e != e || fc->face != face) {
      FaceGather(m, body, e, cell, face, q, fc->q);
      fc->e     = e;
      fc->face  = face;
      fc->has_v = PETSC_FALSE;
    }
    *ee = fc ? fc->q : buf;
    return film_project_ancf_face_line(sz[0], sz[1], sz[2], (int)face, *ee, x, line, tol, pt);
  }
  *ee = NULL;
  return film_project_bilinear_line(C, x, line, tol, pt);
}

/* The face of the set that the line meets nearest to the film point (smallest |s| along the
   line), or -1: a full search must not take the first face it meets, since a line can cross a
   closed or curved surface twice (the far side of a bore across the journal).  skip: a face
   already tried. */
static PetscInt NearestFace(TdModel m, const TdBody *body, const TdMeshSet *set, const PetscReal x[3], const PetscReal n[3], const FilmLine *line, PetscReal t, const PetscReal q[], PetscReal tol, const PetscInt *around, PetscInt skip)
{
  PetscInt  best = -1;
  PetscReal sbest = PETSC_MAX_REAL;
  for (PetscInt fi = 0; fi < set->nfaces; fi++) {
    PetscReal        C[4][3], X0[4][3], ee[ANCF3843_NDOF];
    const PetscReal *eep;
    FilmSurfacePoint pt;
    PetscBool        tried = fi == skip ? PETSC_TRUE : PETSC_FALSE;
    for (PetscInt i = 0; around && i < TD_FACE_NEIGHBOURS && !tried; i++) tried = around[i] == fi ? PETSC_TRUE : PETSC_FALSE;
    if (tried || !FaceNearLine(body, set, fi, q, t, x, n, C, X0)) continue;
    pt.uv[0] = pt.uv[1] = 0;
    if (ProjectOntoFace(m, body, set, fi, q, (const PetscReal(*)[3])C, x, line, tol, NULL, ee, &eep, &pt) == 0 && PetscAbsReal(pt.s) < sbest) {
      sbest = PetscAbsReal(pt.s);
      best  = fi;
    }
  }
  return best;
}

/* Projects film point x (frame velocity xdot) onto surface s at time t (F6-F9); line: the
   point's line along n (film_line_init), formed once for both surfaces.  v: the unknowns'
   velocities, or NULL where only the geometry is wanted (the nodal output, the set-up checks):
   an ANCF face's material velocity is then taken as 0, and with it the rate.  fc: the quad's
   gathered face coordinates for this surface (FaceCoordinates), or NULL. */
static PetscErrorCode ProjectSurface(TdModel m, TdFilm *film, TdFilmSurface *s, TdFilmHit *hit, const PetscReal x[3], const PetscReal n[3], const FilmLine *line, const PetscReal xdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal tol, FaceCoordinates *fc, SurfaceState *st, PetscBool *found)
{
  const TdBody    *body = &m->bodies[s->body];
  const TdMeshSet *set  = (const TdMeshSet *)s->set;
  PetscReal        Xmat[3] = {0, 0, 0}, Xuv[3][2] = {{0, 0}, {0, 0}, {0, 0}}, uvdot[2];
  FilmSurfacePoint cpt; /* a cylinder's projection */
  PetscFunctionBegin;
  *found      = PETSC_FALSE;
  st->element = -1;
  if (s->kind == TD_FACE_FREE_CYLINDER) {
    /* a free body's cylinder in space (the set-up's probes; the film's passes go through
       PointState's rigid pair) */
    PetscReal p[2][3], d[3], len;
    for (PetscInt e = 0; e < 2; e++) TdFreeBodyPoint(body, q, &body->cylinder[3 * e], p[e]);
    for (PetscInt i = 0; i < 3; i++) d[i] = p[1][i] - p[0][i];
    len = PetscSqrtReal(vec3_dot(d, d));
    for (PetscInt i = 0; i < 3; i++) d[i] /= len;
    if (film_project_cylinder(p[0], d, body->cylinder[6], x, n, &cpt) != 0) PetscFunctionReturn(0);
    hit->face = 0;
    HitStore(hit, &cpt);
    for (PetscInt i = 0; i < 3; i++) {
      st->r[i] = hit->pt.r[i];
      st->v[i] = 0;
    }
    st->rate = st->prof = st->prof_rate = 0;
    *found   = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (s->kind == TD_FACE_RIGID_CYLINDER) {
    PetscReal p0[3], p1[3], d[3], len, cyl_t = t;
    TdRigidBodyPoint(body, &body->cylinder[0], cyl_t, p0, NULL);
    TdRigidBodyPoint(body, &body->cylinder[3], cyl_t, p1, NULL);
    for (PetscInt i = 0; i < 3; i++) d[i] = p1[i] - p0[i];
    len = PetscSqrtReal(vec3_dot(d, d));
    for (PetscInt i = 0; i < 3; i++) d[i] /= len;
    if (film_project_cylinder(p0, d, body->cylinder[6], x, n, &cpt) != 0) PetscFunctionReturn(0);
    hit->face = 0;
    HitStore(hit, &cpt);
    for (PetscInt i = 0; i < 3; i++) st->r[i] = hit->pt.r[i];
    TdRigidBodyVelocityAt(body, st->r, t, st->v);
    st->rate      = film_point_normal_rate_line(&cpt, line, NULL, st->v, xdot, NULL, uvdot, NULL);
    st->prof      = 0;
    st->prof_rate = 0;
    *found        = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  /* faces of a mesh set: the last face first, then the others near the line */
  /* pass 0: the last face; 1: the faces around it (a point that left its face has almost always
     moved onto one of them); 2: the rest of the set */
  for (PetscInt pass = 0; pass < 3 && !*found; pass++) {
    const PetscInt *around  = hit->face >= 0 && s->neighbours ? &s->neighbours[TD_FACE_NEIGHBOURS * hit->face] : NULL;
    const PetscInt  nearest = pass == 2 ? NearestFace(m, body, set, x, n, line, t, q, tol, around, hit->face) : -1;
    const PetscInt  ntry    = pass == 0 ? 1 : (pass == 1 ? (around ? TD_FACE_NEIGHBOURS : 0) : 1);
    for (PetscInt k = 0; k < ntry && !*found; k++) {
      const PetscInt   fi   = pass == 0 ? hit->face : (pass == 1 ? around[k] : nearest);
      PetscInt         ret;
      PetscReal        C[4][3], X0[4][3], buf[ANCF3843_NDOF];
      const PetscReal *ee;
      const PetscInt   cell = fi >= 0 ? set->faces[fi].cell : -1;
      FilmSurfacePoint pt;
      if (fi < 0 || (pass == 1 && fi == hit->face)) continue;
      /* the near-line filter, which also gives a rigid face's corners; an ANCF point's last face
         (pass 0, which holds it almost always) goes straight to its projection, which fails
         where the filter would have */
      if (!(pass == 0 && body->type == TD_BODY_ANCF) && !FaceNearLine(body, set, fi, q, t, x, n, C, X0)) continue;
      /* the projection kernels fill every field of pt; only the start uv is read */
      pt.uv[0] = fi == hit->face ? hit->pt.uv[0] : 0;
      pt.uv[1] = fi == hit->face ? hit->pt.uv[1] : 0;
      ret = ProjectOntoFace(m, body, set, fi, q, (const PetscReal(*)[3])C, x, line, tol, fc, buf, &ee, &pt);
      if (body->type == TD_BODY_ANCF) {
        const PetscInt   e  = body->element_offset + cell;
        const PetscReal *sz = &body->mesh.size[3 * cell];
        if (ret == 0) {
          /* the reference coordinates serve the profile only; v and the face kernels need the
             face's 12 active functions only (ancf3843.h) */
          const PetscBool  profiled = s->profile.type != FILM_PROFILE_NONE;
          PetscReal        evbuf[ANCF3843_NDOF], eref[ANCF3843_NDOF];
          const PetscReal *ev = evbuf;
          int              act[ANCF3843_FACE_NSHAPE];
          if (v && fc) {
            /* fc holds this face's coordinates (ProjectOntoFace); its velocities once per quad */
            if (!fc->has_v) FaceGather(m, body, e, cell, set->faces[fi].face, v, fc->v);
            fc->has_v = PETSC_TRUE;
            ev        = fc->v;
          } else if (v) FaceGather(m, body, e, cell, set->faces[fi].face, v, evbuf);
          if (profiled) TdModelElementGather(m, e, m->q_ref, PETSC_FALSE, eref);
          st->element = e;
          st->face    = set->faces[fi].face;
          for (PetscInt k2 = 0; k2 < ANCF3843_NSHAPE; k2++) {
            st->S[k2]        = pt.S[k2];
            st->dS_uv[0][k2] = pt.dS_uv[0][k2];
            st->dS_uv[1][k2] = pt.dS_uv[1][k2];
          }
          if (st->want_lin) {
            /* an axis-aligned cell's coupling needs only the face's active coordinates
               (FaceActive): packed, in FaceActive's order */
            if (body->mesh.axis_aligned) film_linearize_ancf_face_line_packed(sz[0], sz[1], sz[2], (int)set->faces[fi].face, ee, ev, profiled ? eref : NULL, profiled ? &s->profile : NULL, x, line, xdot, &pt, &st->lin);
            else film_linearize_ancf_face_line(sz[0], sz[1], sz[2], (int)set->faces[fi].face, ee, ev, profiled ? eref : NULL, profiled ? &s->profile : NULL, x, line, xdot, &pt, &st->lin);
          }
          for (PetscInt i = 0; i < 3; i++) {
            st->r[i] = pt.r[i];
            st->v[i] = 0;
            Xmat[i]  = 0;
            Xuv[i][0] = Xuv[i][1] = 0;
          }
          ancf3843_face_shapes((int)set->faces[fi].face, act);
          if (v)
            for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++)
              for (PetscInt i = 0; i < 3; i++) st->v[i] += pt.S[act[ja]] * ev[3 * act[ja] + i];
          if (profiled)
            for (PetscInt k2 = 0; k2 < ANCF3843_NSHAPE; k2++)
              for (PetscInt i = 0; i < 3; i++) {
                Xmat[i] += pt.S[k2] * eref[3 * k2 + i];
                Xuv[i][0] += pt.dS_uv[0][k2] * eref[3 * k2 + i];
                Xuv[i][1] += pt.dS_uv[1][k2] * eref[3 * k2 + i];
              }
        }
      } else if (ret == 0) {
        const PetscReal u = pt.uv[0], w = pt.uv[1];
        const PetscReal N[4] = {0.25 * (1 - u) * (1 - w), 0.25 * (1 + u) * (1 - w), 0.25 * (1 + u) * (1 + w), 0.25 * (1 - u) * (1 + w)};
        const PetscReal Nu[4] = {-0.25 * (1 - w), 0.25 * (1 - w), 0.25 * (1 + w), -0.25 * (1 + w)};
        const PetscReal Nv[4] = {-0.25 * (1 - u), -0.25 * (1 + u), 0.25 * (1 + u), 0.25 * (1 - u)};
        for (PetscInt i = 0; i < 3; i++) {
          st->r[i] = pt.r[i];
          Xmat[i]  = 0;
          Xuv[i][0] = Xuv[i][1] = 0;
          for (PetscInt c = 0; c < 4; c++) {
            Xmat[i] += N[c] * X0[c][i];
            Xuv[i][0] += Nu[c] * X0[c][i];
            Xuv[i][1] += Nv[c] * X0[c][i];
          }
        }
        TdRigidBodyVelocityAt(body, st->r, t, st->v);
      }
      if (ret == 0) {
        hit->face = fi;
        HitStore(hit, &pt);
        *found    = PETSC_TRUE;
      }
    }
  }
  if (!*found) PetscFunctionReturn(0);
  st->rate = film_point_normal_rate_tangents((const double(*)[2])hit->pt.r_uv, hit->pt.s, line, NULL, st->v, xdot, NULL, uvdot, NULL);
  if (s->profile.type != FILM_PROFILE_NONE) {
    PetscReal g[3];
    st->prof      = film_profile_eval(&s->profile, Xmat, g);
    st->prof_rate = 0;
    for (PetscInt i = 0; i < 3; i++) st->prof_rate += g[i] * (Xuv[i][0] * uvdot[0] + Xuv[i][1] * uvdot[1]);
  } else st->prof = st->prof_rate = 0;
  PetscFunctionReturn(0);
}

/* Film state at one film point: h (F7), dh/dt (F9), relative surface velocities (F8). */
/* tol: how far beyond a face (in face coordinates) a hit still counts: tight for the Gauss
   points, which lie inside the film, loose for the film nodes on its edges, whose lines run
   along the edge of a face that has tilted or slid a little (output only). */
static PetscErrorCode PointState(TdModel m, TdFilm *f, char miss[512], TdFilmHit *hw, TdFilmHit *hb, const PetscReal x[3], const PetscReal n[3], const PetscReal xdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal tol, FaceCoordinates fc[2], FilmPointState *ps, SurfaceState *sw, SurfaceState *sb, PetscBool *ok)
{
  PetscBool fw, fb;
  FilmLine  line;
  PetscFunctionBegin;
  if (f->rigid_pair) {
    /* between two rigid cylinders in natural coordinates (F25), in the film's frame */
    PetscReal      z[48];
    RigidFilmState st;
    TdFilmRigidGather(m, f, t, q, v, z);
    sw->element = sb->element = -1;
    if (!TdFilmRigidState(m, f, z, x, n, ps, &st)) {
      PetscCall(PetscSNPrintf(miss, 512, "film '%s': the line through the film point (%g, %g, %g) along the reference normal (%g, %g, %g) misses a cylinder (%s or %s) at t = %g s", f->name, (double)x[0], (double)x[1], (double)x[2], (double)n[0], (double)n[1], (double)n[2], m->bodies[f->wall.body].name, m->bodies[f->base.body].name, (double)t));
      *ok = PETSC_FALSE;
      PetscFunctionReturn(0);
    }
    sw->rigid  = st;
    hw->face   = hb->face = 0;
    hw->pt.s   = st.s[0];
    hb->pt.s   = st.s[1];
    sw->prof = sw->prof_rate = sb->prof = sb->prof_rate = 0;
    for (PetscInt i = 0; i < 3; i++) {
      sw->r[i] = x[i] + st.s[0] * n[i];
      sb->r[i] = x[i] + st.s[1] * n[i];
      sw->v[i] = ps->vw[i];
      sb->v[i] = ps->vb[i];
    }
    if (f->model == TD_FILM_REYNOLDS && !(ps->h > 0)) {
      PetscCall(PetscSNPrintf(miss, 512, "film '%s': the film height is %g m <= 0 at the film point (%g, %g, %g) at t = %g s (the cylinders touch; asperity contact needs roughness -%s_sigma_wall/-%s_sigma_base)", f->name, (double)ps->h, (double)x[0], (double)x[1], (double)x[2], (double)t, f->name, f->name));
      *ok = PETSC_FALSE;
    }
    PetscFunctionReturn(0);
  }
  film_line_init(n, &line);
  PetscCall(ProjectSurface(m, f, &f->wall, hw, x, n, &line, xdot, t, q, v, tol, fc ? &fc[0] : NULL, sw, &fw));
  PetscCall(ProjectSurface(m, f, &f->base, hb, x, n, &line, xdot, t, q, v, tol, fc ? &fc[1] : NULL, sb, &fb));
  if (!fw || !fb) {
    PetscCall(PetscSNPrintf(miss, 512, "film '%s': the line through the film point (%g, %g, %g) along the reference normal (%g, %g, %g) misses its %s surface (%s:%s) at t = %g s", f->name, (double)x[0], (double)x[1], (double)x[2], (double)n[0], (double)n[1], (double)n[2], !fw ? "wall" : "base", m->bodies[(!fw ? f->wall : f->base).body].name, (!fw ? f->wall : f->base).face, (double)t));
    *ok = PETSC_FALSE;
    PetscFunctionReturn(0);
  }
  ps->h    = vec3_dot(n, sb->r) - vec3_dot(n, sw->r) + sw->prof + sb->prof;
  ps->dhdt = sb->rate - sw->rate + sw->prof_rate + sb->prof_rate;
  if (f->model == TD_FILM_REYNOLDS && !(ps->h > 0)) {
    /* the Reynolds film is not defined for h <= 0 (h^3, mu/h): an invalid iterate, which Newton
       backs off from or the time stepper rejects */
    PetscCall(PetscSNPrintf(miss, 512, "film '%s': the film height is %g m <= 0 at the film point (%g, %g, %g) at t = %g s (the surfaces touch; asperity contact needs roughness -%s_sigma_wall/-%s_sigma_base, or use -%s_model dry)", f->name, (double)ps->h, (double)x[0], (double)x[1], (double)x[2], (double)t, f->name, f->name, f->name));
    *ok = PETSC_FALSE;
  }
  for (PetscInt i = 0; i < 3; i++) {
    ps->vw[i] = sw->v[i] - xdot[i];
    ps->vb[i] = sb->v[i] - xdot[i];
  }
  PetscFunctionReturn(0);
}

/* The element coordinates that can be nonzero in the film's coupling on local face f: those of
   the face's 12 active shape functions (the 4 face nodes' position and in-plane slope functions,
   ancf3843.h), 36 of the 96 coordinates, in increasing order.  Cells not aligned with the global
   axes mix slopes: all 96. */
static PetscInt FaceActive(TdModel m, PetscInt e, PetscInt f, PetscInt idx[ANCF3843_NDOF])
{
  const TdBody *body = &m->bodies[m->element_body[e]];
  int           k[ANCF3843_FACE_NSHAPE];
  PetscInt      n = 0;
  if (!body->mesh.axis_aligned) {
    for (PetscInt i = 0; i < ANCF3843_NDOF; i++) idx[i] = i;
    return ANCF3843_NDOF;
  }
  ancf3843_face_shapes((int)f, k);
  for (PetscInt j = 0; j < ANCF3843_FACE_NSHAPE; j++)
    for (PetscInt i = 0; i < 3; i++) idx[n++] = 3 * k[j] + i;
  return n;
}

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

static int CompareInt64(const void *a, const void *b)
{
  const PetscInt64 x = *(const PetscInt64 *)a, y = *(const PetscInt64 *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static PetscInt64 PairKey(PetscInt a, PetscInt b) { return ((PetscInt64)a << 32) | (PetscInt64)b; }

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

/* The slots a quad's Gauss points look up, remembered for the quad: its 4 points mostly pair the
   same faces with the same nodes, and each binary search over the pattern's keys is a chain of
   unpredictable branches.  A full cache looks up without remembering. */
typedef struct {
  int        n;
  PetscInt64 key[16];
  PetscInt   slot[16];
} SlotCache;

static PetscInt CachedCouplingSlot(TdModel m, SlotCache *c, const PetscInt64 keys[], PetscInt n, PetscInt64 key)
{
  PetscInt slot;
  for (int i = 0; i < c->n; i++)
    if (c->key[i] == key) return c->slot[i];
  slot = CouplingSlot(m, keys, n, key);
  if (c->n < 16) {
    c->key[c->n]  = key;
    c->slot[c->n] = slot;
    c->n++;
  }
  return slot;
}

/* Film-film Jacobian entries per quad: dR/dp (4 x 4), and with JFO dR/dtheta (4 x 4). */
static PetscCount QuadEntries(const TdFilm *f)
{
  return f->model != TD_FILM_REYNOLDS ? 0 : (f->cavitation == TD_CAVITATION_JFO ? 32 : 16);
}

static PetscCount FilmPressureEntries(TdModel m)
{
  PetscCount n = 0;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) n += QuadEntries(&m->films[fi]) * (PetscCount)(m->films[fi].quad_end - m->films[fi].quad_start);
  return n;
}

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
  /* every Gauss point writes its keys to its own slots (4 face pairs, 8 face-pressure pairs;
     -1 unused), so that threads need no shared lists; compacted below */
  for (PetscInt fi = 0; fi < m->nfilms; fi++) npoints += 4 * m->films[fi].surface.nquads;
  PetscCall(PetscMalloc1(NQQ * PetscMax(npoints, 1), &qq));
  PetscCall(PetscMalloc1(NQP * PetscMax(npoints, 1), &qp));
  for (PetscInt fi = 0, first = 0; fi < m->nfilms; first += 4 * m->films[fi].surface.nquads, fi++) {
    TdFilm   *f = &m->films[fi];
    PetscReal c[3], cdot[3], tl[TD_PATTERN_LOOKAHEAD], cl[TD_PATTERN_LOOKAHEAD][3], cldot[TD_PATTERN_LOOKAHEAD][3];
    PetscInt  nlook = 0;
    for (PetscInt k = 0; k < 4 * f->surface.nquads; k++) {
      for (PetscInt i = 0; i < NQQ; i++) qq[NQQ * (first + k) + i] = -1;
      for (PetscInt i = 0; i < NQP; i++) qp[NQP * (first + k) + i] = -1;
    }
    if (f->frame_joint >= 0 && f->pattern_lookahead > 0) {
      /* a driven frame: where it will be over the next pattern_lookahead seconds is known */
      nlook = TD_PATTERN_LOOKAHEAD;
      for (PetscInt j = 0; j < nlook; j++) {
        tl[j] = t + (j + 1) * f->pattern_lookahead / nlook;
        FrameMotion(m, f, tl[j], cl[j], cldot[j]);
      }
    }
    if (f->wall.kind != TD_FACE_ANCF && f->base.kind != TD_FACE_ANCF) continue;
    FrameMotion(m, f, t, c, cdot);
#pragma omp parallel for schedule(static) reduction(&& : all_ok)
    for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++) {
      const FilmQuadGeometry *g     = &f->geometry[qd];
      const PetscInt         *nodes = &f->surface.quads[4 * qd];
      for (PetscInt gp = 0; gp < 4; gp++) {
        PetscReal      x[3];
        FilmPointState ps;
        SurfaceState   sw, sb;
        PetscBool      ok = PETSC_TRUE;
        PetscInt       el[2], kq = 0, kp = 0;
        PetscInt64    *pq = &qq[NQQ * (first + 4 * qd + gp)], *pp = &qp[NQP * (first + 4 * qd + gp)];
        char           miss[512];
        sw.want_lin = sb.want_lin = PETSC_FALSE;
        sw.element = sb.element = -1;
        for (PetscInt d = 0; d < 3; d++) x[d] = g->x[gp][d] + c[d];
        if (PointState(m, f, miss, &f->hits[8 * qd + gp], &f->hits[8 * qd + 4 + gp], x, g->n[gp], cdot, t, q, v, 1e-9, NULL, &ps, &sw, &sb, &ok)) ok = PETSC_FALSE;
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
              TdFilmHit    hit = f->hits[8 * qd + 4 * a + gp];
              SurfaceState st;
              PetscBool    found = PETSC_FALSE;
              if (el[a] < 0 || surf[a]->body == m->joints[f->frame_joint].point.body) continue; /* carried by the drive */
              st.want_lin = PETSC_FALSE;
              st.element  = -1;
              if (ProjectSurface(m, f, surf[a], &hit, xj, g->n[gp], &line, cldot[j], tl[j], q, NULL, 1e-9, NULL, &st, &found)) found = PETSC_FALSE;
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
  if (nqq) qsort(qq, (size_t)nqq, sizeof(PetscInt64), CompareInt64);
  if (nqp) qsort(qp, (size_t)nqp, sizeof(PetscInt64), CompareInt64);
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

/* The derivatives of a surface point's contributions, with respect to the unknown coordinates
   through positions (weight ce) and velocities (weight cv): d/dq = ce d/de + cv d/dedot, in the
   element's material frame.  sign: -1 for the wall, +1 for the base (h = n.(r_b - r_w) + ...).
   Only the coordinates of the face that can couple (FaceActive: 36 of an axis-aligned cell, all
   96 otherwise) are kept, packed: entry jj is coordinate idx[jj], so that the loops over them
   are contiguous. */
typedef struct {
  PetscInt  n, idx[ANCF3843_NDOF];
  PetscReal dh[ANCF3843_NDOF], dhdot[ANCF3843_NDOF], dv[3][ANCF3843_NDOF], duv[2][ANCF3843_NDOF];
} SurfaceDerivatives;

static void SurfaceDerivativesCompute(TdModel m, const SurfaceState *st, PetscReal sign, PetscReal ce, PetscReal cv, SurfaceDerivatives *d)
{
  const FilmFaceLinearization *l = &st->lin;
  const PetscInt               n = FaceActive(m, st->element, st->face, d->idx);
  d->n                           = n;
  /* lin holds coordinate idx[jj] at jj: packed for the 36 of an axis-aligned cell
     (ProjectSurface), and idx[jj] = jj for the 96 of a rotated one */
  for (PetscInt jj = 0; jj < n; jj++) {
    d->dh[jj]        = ce * (sign * l->dnr_de[jj] + l->dprof_de[jj]);
    d->dhdot[jj]     = ce * (sign * l->drate_de[jj] + l->dprofrate_de[jj]) + cv * (sign * l->drate_dedot[jj] + l->dprofrate_dedot[jj]);
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
   it receives (a quad's 4 points mostly pair the same faces), instead of once per point.  Each
   term is the update of one point, row (ja, i) += cS[ja] G[i] (+ c0[3 ja + i] du0 + c1[3 ja + i]
   du1 on the point's own face), applied in the points' order with the same expressions, so the
   sums are the same as point by point. */
enum { QQ_NA = 3 * ANCF3843_FACE_NSHAPE, QQ_MAX = 16 };
typedef struct {
  PetscInt  slot;
  PetscBool own; /* the point's own face: the sliding terms c0, c1 */
  PetscReal cS[ANCF3843_FACE_NSHAPE], c0[QQ_NA], c1[QQ_NA];
  PetscReal G[3][QQ_NA], du0[QQ_NA], du1[QQ_NA];
} QQTerm;
typedef struct {
  int    n;
  QQTerm t[QQ_MAX];
} QQTerms;


static void QQFlush(TdModel m, QQTerms *qt, PetscScalar *jqq)
{
  PetscBool done[QQ_MAX] = {PETSC_FALSE};
  for (int t0 = 0; t0 < qt->n; t0++) {
    const QQTerm *L[QQ_MAX];
    int           nl = 0;
    PetscScalar  *out;
    if (done[t0]) continue;
    for (int t = t0; t < qt->n; t++)
      if (!done[t] && qt->t[t].slot == qt->t[t0].slot) {
        L[nl++] = &qt->t[t];
        done[t] = PETSC_TRUE;
      }
    out = &jqq[m->coupling_qq_offset[qt->t[t0].slot]];
    for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++)
      for (PetscInt i = 0; i < 3; i++) {
        PetscScalar *restrict row = &out[(3 * ja + i) * QQ_NA];
        if (nl == 4 && L[0]->own) {
          /* the common case, written out so that each row vector stays in a register */
          const QQTerm *T0 = L[0], *T1 = L[1], *T2 = L[2], *T3 = L[3];
          for (PetscInt jj = 0; jj < QQ_NA; jj++) {
            PetscScalar r = row[jj];
            r += T0->cS[ja] * T0->G[i][jj] + T0->c0[3 * ja + i] * T0->du0[jj] + T0->c1[3 * ja + i] * T0->du1[jj];
            r += T1->cS[ja] * T1->G[i][jj] + T1->c0[3 * ja + i] * T1->du0[jj] + T1->c1[3 * ja + i] * T1->du1[jj];
            r += T2->cS[ja] * T2->G[i][jj] + T2->c0[3 * ja + i] * T2->du0[jj] + T2->c1[3 * ja + i] * T2->du1[jj];
            r += T3->cS[ja] * T3->G[i][jj] + T3->c0[3 * ja + i] * T3->du0[jj] + T3->c1[3 * ja + i] * T3->du1[jj];
            row[jj] = r;
          }
        } else if (nl == 4) {
          const QQTerm *T0 = L[0], *T1 = L[1], *T2 = L[2], *T3 = L[3];
          for (PetscInt jj = 0; jj < QQ_NA; jj++) {
            PetscScalar r = row[jj];
            r += T0->cS[ja] * T0->G[i][jj];
            r += T1->cS[ja] * T1->G[i][jj];
            r += T2->cS[ja] * T2->G[i][jj];
            r += T3->cS[ja] * T3->G[i][jj];
            row[jj] = r;
          }
        } else
          for (int l = 0; l < nl; l++) {
            const QQTerm *T = L[l];
            if (T->own) {
              const PetscReal cS = T->cS[ja], c0 = T->c0[3 * ja + i], c1 = T->c1[3 * ja + i];
              for (PetscInt jj = 0; jj < QQ_NA; jj++) row[jj] += cS * T->G[i][jj] + c0 * T->du0[jj] + c1 * T->du1[jj];
            } else {
              const PetscReal cS = T->cS[ja];
              for (PetscInt jj = 0; jj < QQ_NA; jj++) row[jj] += cS * T->G[i][jj];
            }
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
static PetscErrorCode AddCouplingGaussPoint(TdModel m, TdFilm *f, const FilmQuadGeometry *g, PetscInt gp, const PetscInt nodes[4], const FilmPointState *ps, const SurfaceState *ss[2], const FilmReynoldsSensitivity *rs, const FilmTractionSensitivity *ts, const PetscReal fa[2][3], const PetscReal dfa_dhdot[2][3], PetscReal ce, PetscReal cv, SlotCache cache[2], QQTerms *qt, PetscScalar *jqq, PetscScalar *jqp, PetscScalar *jpq, PetscReal *block)
{
  SurfaceDerivatives D[2];
  const PetscReal    sign[2] = {-1, 1};
  const PetscReal    w       = g->w[gp];
  const PetscInt     N       = ANCF3843_NDOF;
  PetscInt           slot_qp[2][4]; /* (face of surface s, pressure unknown of node i), -1: none */
  PetscReal          wS[2][ANCF3843_FACE_NSHAPE];
  const PetscReal    iscale = 1 / f->residual_scale;
  PetscFunctionBegin;
  for (PetscInt s = 0; s < 2; s++)
    if (ss[s]->element >= 0) {
      SurfaceDerivativesCompute(m, ss[s], sign[s], ce, cv, &D[s]);
      /* -w S_k of the active functions (entries 3 ja + i of the packed coordinates) */
      if (D[s].n < N)
        for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++) wS[s][ja] = -w * ss[s]->S[D[s].idx[3 * ja] / 3];
    }
  /* the pattern slots of the face-pressure pairs, shared by the pressure rows and dQ/dp */
  for (PetscInt s = 0; s < 2; s++)
    for (PetscInt i = 0; i < 4; i++) {
      const PetscInt ui = f->unknown[nodes[i]];
      slot_qp[s][i]     = -1;
      if (f->model == TD_FILM_REYNOLDS && ui >= 0 && ss[s]->element >= 0) slot_qp[s][i] = CachedCouplingSlot(m, &cache[0], m->coupling_qp, m->ncoupling_qp, PairKey(8 * ss[s]->element + ss[s]->face, ui));
    }
  /* pressure rows (times 1/scale: a multiplication, not a division, per entry) */
  if (f->model == TD_FILM_REYNOLDS && rs)
    for (PetscInt i = 0; i < 4; i++) {
      const PetscInt ui = f->unknown[nodes[i]];
      if (ui < 0) continue;
      for (PetscInt s = 0; s < 2; s++) {
        PetscReal                 G[ANCF3843_NDOF];
        const PetscInt            e    = ss[s]->element, slot = slot_qp[s][i];
        const SurfaceDerivatives *Ds   = &D[s];
        const PetscReal(*dRdv)[3] = s == 0 ? rs->dvw[i] : rs->dvb[i];
        if (e < 0 || slot < 0) continue;
        for (PetscInt jj = 0; jj < Ds->n; jj++) G[jj] = -(rs->dh[i][gp] * Ds->dh[jj] + rs->ddhdt[i][gp] * Ds->dhdot[jj] + dRdv[gp][0] * Ds->dv[0][jj] + dRdv[gp][1] * Ds->dv[1][jj] + dRdv[gp][2] * Ds->dv[2][jj]) * iscale;
        if (Ds->n == N) TdModelElementRotateForce(m, e, G); /* all 96, in element order */
        for (PetscInt jj = 0; jj < Ds->n; jj++) jpq[m->coupling_qp_offset[slot] + jj] += G[jj];
      }
    }
  /* force rows */
  for (PetscInt a = 0; a < 2; a++) {
    const PetscInt ea = ss[a]->element;
    if (ea < 0) continue;
    for (PetscInt s = 0; s < 2; s++) {
      const PetscInt            es = ss[s]->element;
      const SurfaceDerivatives *Da = &D[a], *Ds = &D[s];
      const PetscInt            na = Da->n, nb = Ds->n;
      const PetscReal(*dfdv)[3]    = s == 0 ? ts->dvw[a] : ts->dvb[a];
      PetscReal                 Gl[3][ANCF3843_NDOF];
      PetscReal                *Gb;
      PetscInt                  slot, ldg;
      QQTerm                   *T = NULL;
      if (es < 0) continue;
      slot = CachedCouplingSlot(m, &cache[1], m->coupling_qq, m->ncoupling_qq, PairKey(8 * ea + ss[a]->face, 8 * es + ss[s]->face));
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
      for (PetscInt i = 0; i < 3; i++)
        for (PetscInt jj = 0; jj < nb; jj++) G(i, jj) = ts->dh[a][i] * Ds->dh[jj] + dfa_dhdot[a][i] * Ds->dhdot[jj] + dfdv[i][0] * Ds->dv[0][jj] + dfdv[i][1] * Ds->dv[1][jj] + dfdv[i][2] * Ds->dv[2][jj];
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
            T->cS[ja]        = -w * ss[a]->S[k];
            if (s == a)
              for (PetscInt i = 0; i < 3; i++) {
                T->c0[3 * ja + i] = -w * ss[a]->dS_uv[0][k] * fa[a][i];
                T->c1[3 * ja + i] = -w * ss[a]->dS_uv[1][k] * fa[a][i];
              }
          }
          if (s == a)
            for (PetscInt jj = 0; jj < QQ_NA; jj++) {
              T->du0[jj] = Da->duv[0][jj];
              T->du1[jj] = Da->duv[1][jj];
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
          const PetscReal       fp[3] = {dfdp[0] * f->p_ref, dfdp[1] * f->p_ref, dfdp[2] * f->p_ref};
          for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++) {
            dst[3 * ja + 0] += wS[a][ja] * fp[0];
            dst[3 * ja + 1] += wS[a][ja] * fp[1];
            dst[3 * ja + 2] += wS[a][ja] * fp[2];
          }
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
   block (jpp, 16 entries).  Returns 0, or 1 when a point leaves the film's domain (f->miss, or
   the caller's message buffer, says where). */
static PetscErrorCode AssembleQuad(TdModel m, TdFilm *f, PetscInt qd, const PetscReal c[3], const PetscReal cdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], const PetscScalar u[], PetscReal ce, PetscReal cv, PetscBool coupled, PetscBool want_jac, PetscReal rfull[], PetscScalar rfilm[], PetscScalar *jpp, PetscScalar *jqq, PetscScalar *jqp, PetscScalar *jpq, PetscScalar *jrig, PetscReal *block, PetscReal L[3], PetscReal Fr[3], char miss[512], PetscBool *ok)
{
  PetscReal zr[48]; /* a rigid pair's coordinates (F25) */
  const FilmQuadGeometry *g     = &f->geometry[qd];
  const PetscInt         *nodes = &f->surface.quads[4 * qd];
  FilmPointState          ps[4];
  SurfaceState            sw[4], sb[4];
  PetscReal               p[4];
  FilmReynoldsSensitivity rsens;
  SlotCache               cache[2]; /* face-pressure and face-face pairs */
  QQTerms                 qt;       /* the deferred dQ/dq updates (QQFlush) */
  FaceCoordinates         fc[2];    /* wall, base: the faces' coordinates, across the quad's points */
  PetscFunctionBegin;
  cache[0].n = cache[1].n = 0;
  qt.n       = 0;
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
    PetscCall(PointState(m, f, miss, &f->hits[8 * qd + gp], &f->hits[8 * qd + 4 + gp], x, g->n[gp], cdot, t, q, v, 1e-9, fc, &ps[gp], &sw[gp], &sb[gp], ok));
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
      PetscCall(AddCouplingGaussPoint(m, f, g, gp, nodes, &ps[gp], ss, f->model == TD_FILM_REYNOLDS ? &rsens : NULL, &ts, (const PetscReal(*)[3])fa, (const PetscReal(*)[3])dfa_dhdot, ce, cv, cache, &qt, jqq, jqp, jpq, block));
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
  PetscCount   kpp = 0, npp = FilmPressureEntries(m), ncpl = 0, krig = 0;
  PetscScalar *jqq = NULL, *jqp = NULL, *jpq = NULL, *jrig = NULL;
  const int    nthreads = omp_get_max_threads();
  PetscFunctionBegin;
  *ok = PETSC_TRUE;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) m->films[fi].miss[0] = 0;
  if (jac) {
    const PetscCount nqq = m->ncoupling_qq ? m->coupling_qq_offset[m->ncoupling_qq] : 0, nqp = m->ncoupling_qp ? m->coupling_qp_offset[m->ncoupling_qp] : 0;
    ncpl = nqq + 2 * nqp;
    jqq  = jac + npp;
    jqp  = jqq + nqq;
    jpq  = jqp + nqp;
    jrig = jpq + nqp; /* the rigid pairs' blocks, quad by quad (each quad fills its own) */
    PetscCall(PetscArrayzero(jqq, ncpl));
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
    FrameMotion(m, f, t, c, cdot);
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
      if (tqq) {
        tqp = tqq + (jqp - jqq);
        tpq = tqq + (jpq - jqq);
      }
      if (tid > 0) {
        for (size_t i = 0; i < (size_t)nrows + m->nfull; i++) own[i] = 0;
        if (jac)
          for (PetscCount i = 0; i < ncpl; i++) tqq[i] = 0;
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
        if (AssembleQuad(m, f, qd, c, cdot, t, q, v, u, ce, cv, coupled, jac ? PETSC_TRUE : PETSC_FALSE, rb, rf, jac ? jac + kpp + QuadEntries(f) * (qd - f->quad_start) : NULL, tqq, tqp, tpq, jrig ? jrig + krig + nrig * (qd - f->quad_start) : NULL, block, Lt, Frt, miss, &okt)) {
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
        for (PetscCount i = 0; i < ncpl; i++) jqq[i] += own[nrows + m->nfull + i];
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
  FrameMotion(m, f, t, c, cdot);
  for (PetscInt nd = 0; nd < f->surface.nnodes; nd++)
    for (PetscInt d = 0; d < 3; d++) pos[3 * nd + d] = f->surface.X[3 * nd + d] + c[d];
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmNodalFields(TdModel m, PetscInt fi, PetscReal t, const PetscReal q[], const PetscScalar u[], PetscInt node_start, PetscInt node_end, PetscReal p[], PetscReal h[], PetscReal pc[], PetscReal *hmin)
{
  TdFilm   *f = &m->films[fi];
  PetscReal c[3], cdot[3], hm = PETSC_MAX_REAL;
  PetscFunctionBegin;
  if (!f->node_normal) {
    /* a node's normal: the mean of the Gauss-point normals of the quads using it */
    PetscCall(PetscCalloc1(3 * f->surface.nnodes, &f->node_normal));
    for (PetscInt qd = 0; qd < f->surface.nquads; qd++)
      for (PetscInt k = 0; k < 4; k++)
        for (PetscInt gp = 0; gp < 4; gp++)
          for (PetscInt d = 0; d < 3; d++) f->node_normal[3 * f->surface.quads[4 * qd + k] + d] += f->geometry[qd].n[gp][d];
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) {
      PetscReal *nrm = &f->node_normal[3 * nd], l = PetscSqrtReal(vec3_dot(nrm, nrm));
      for (PetscInt d = 0; d < 3; d++) nrm[d] /= l;
    }
  }
  FrameMotion(m, f, t, c, cdot);
#pragma omp parallel for schedule(dynamic, 16) reduction(min : hm)
  for (PetscInt nd = node_start; nd < node_end; nd++) {
    PetscReal      x[3];
    FilmPointState ps = {0};
    SurfaceState   sw, sb;
    PetscBool      ok = PETSC_TRUE;
    char           miss[512];
    sw.want_lin = sb.want_lin = PETSC_FALSE;
    for (PetscInt d = 0; d < 3; d++) x[d] = f->surface.X[3 * nd + d] + c[d];
    if (PointState(m, f, miss, &f->node_hits[2 * nd], &f->node_hits[2 * nd + 1], x, &f->node_normal[3 * nd], cdot, t, q, NULL, 1e-2, NULL, &ps, &sw, &sb, &ok)) ok = PETSC_FALSE;
    h[nd] = ok ? ps.h : NAN;
    if (ok) hm = PetscMin(hm, ps.h);
    if (f->model == TD_FILM_REYNOLDS) {
      FilmClosures cl;
      p[nd] = f->unknown[nd] >= 0 ? f->p_ref * PetscRealPart(u[f->unknown[nd]]) : 0;
      if (ok && f->fluid.rough.sigma > 0) {
        film_closures_eval(&f->fluid.rough, ps.h, &cl);
        pc[nd] = f->contact.K * f->contact.E_star * cl.F52;
      } else pc[nd] = 0;
    } else {
      p[nd]  = ok ? film_dry_pressure(ps.h, 0, f->Kg, f->eta, f->exponent, f->area, f->eps_dry, NULL, NULL) : NAN;
      pc[nd] = 0;
    }
  }
  *hmin = hm;
  PetscFunctionReturn(0);
}

/* The faces of a set that share a corner node with each face (TD_FACE_NEIGHBOURS per face, -1
   padded; the first ones found if a corner is shared by more): a film point that leaves its last
   face has almost always moved onto one of these, so ProjectSurface tries them before it scans
   the whole set (a scan per lost point costs O(faces), which made fine surfaces 10x slower per
   quad). */
static PetscErrorCode FaceNeighbours(const TdMesh *mesh, const TdMeshSet *set, PetscInt **out)
{
  PetscInt *first, *next, *nb, nf = set->nfaces;
  PetscFunctionBegin;
  /* per mesh node, a linked list of the set's faces touching it */
  PetscCall(PetscMalloc3(mesh->nnodes, &first, 4 * nf, &next, TD_FACE_NEIGHBOURS * nf, &nb));
  for (PetscInt n = 0; n < mesh->nnodes; n++) first[n] = -1;
  for (PetscInt k = 0; k < nf; k++) {
    PetscInt corner[4];
    TdMeshFaceCorners(set->faces[k].face, corner);
    for (PetscInt c = 0; c < 4; c++) {
      const PetscInt n = mesh->cells[8 * set->faces[k].cell + corner[c]];
      next[4 * k + c]  = first[n];
      first[n]         = 4 * k + c;
    }
  }
  for (PetscInt k = 0; k < nf; k++) {
    PetscInt corner[4], cnt = 0;
    TdMeshFaceCorners(set->faces[k].face, corner);
    for (PetscInt i = 0; i < TD_FACE_NEIGHBOURS; i++) nb[TD_FACE_NEIGHBOURS * k + i] = -1;
    for (PetscInt c = 0; c < 4; c++)
      for (PetscInt e = first[mesh->cells[8 * set->faces[k].cell + corner[c]]]; e >= 0; e = next[e]) {
        const PetscInt j = e / 4;
        PetscBool      seen = j == k ? PETSC_TRUE : PETSC_FALSE;
        for (PetscInt i = 0; i < cnt && !seen; i++) seen = nb[TD_FACE_NEIGHBOURS * k + i] == j ? PETSC_TRUE : PETSC_FALSE;
        if (!seen && cnt < TD_FACE_NEIGHBOURS) nb[TD_FACE_NEIGHBOURS * k + cnt++] = j;
      }
  }
  /* keep nb alone: free the lists */
  {
    PetscInt *keep;
    PetscCall(PetscMalloc1(TD_FACE_NEIGHBOURS * nf, &keep));
    PetscCall(PetscArraycpy(keep, nb, TD_FACE_NEIGHBOURS * nf));
    PetscCall(PetscFree3(first, next, nb));
    *out = keep;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ParseFace(TdModel m, TdFilm *f, const char which[], TdFilmSurface *s)
{
  char      value[256], opt[128], *colon;
  PetscBool set;
  PetscInt  b = -1;
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_%s", f->name, which));
  PetscCall(TdOptionsString(f->name, which, !strcmp(which, "wall") ? "the wall surface body:face (the reference normal points from the wall to the base)" : "the base surface body:face", NULL, value, sizeof value, &set));
  if (TdOptionsHelpRequested() && !set) PetscFunctionReturn(0);
  if (!set) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s' has no %s surface: set %s body:face (e.g. slider:zmin)", f->name, which, opt);
  colon = strchr(value, ':');
  if (!colon) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option %s = '%s': write the surface as body:face, e.g. guide:zmax", opt, value);
  *colon = 0;
  PetscCall(TdModelFindBodyInternal(m, value, opt, &b));
  s->body = b;
  PetscCall(PetscStrncpy(s->face, colon + 1, sizeof s->face));
  if (m->bodies[b].is_cylinder) {
    if (strcmp(s->face, "surface")) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option %s: the rigid cylinder '%s' has one face, 'surface', not '%s'", opt, value, s->face);
    s->kind = m->bodies[b].type == TD_BODY_FREE ? TD_FACE_FREE_CYLINDER : TD_FACE_RIGID_CYLINDER;
  } else {
    const TdMeshSet *set_;
    PetscCall(TdModelFindFaceSetInternal(m, b, s->face, opt, &set_));
    s->set    = set_;
    s->nfaces = set_->nfaces;
    if (m->bodies[b].type == TD_BODY_FREE) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' is a free rigid body given by a mesh; a film on a free rigid body runs on its exact cylinder (-%s_cylinder, face 'surface', F25)", opt, m->bodies[b].name, m->bodies[b].name);
    s->kind   = m->bodies[b].type == TD_BODY_ANCF ? TD_FACE_ANCF : TD_FACE_RIGID_MESH;
    PetscCall(FaceNeighbours(&m->bodies[b].mesh, set_, &s->neighbours));
  }
  /* profile carried by the surface's material points */
  {
    char      pre[128], table[PETSC_MAX_PATH_LEN];
    PetscInt  kind;
    PetscBool tset;
    PetscReal zero3[3] = {0, 0, 0}, xaxis[3] = {1, 0, 0};
    PetscCall(PetscSNPrintf(pre, sizeof pre, "%s_%s", f->name, which));
    PetscCall(TdOptionsEnum(pre, "profile", "surface profile carried by the material points (F7)", profile_kinds, 0, &kind, NULL));
    s->profile.type = (FilmProfileType)kind;
    PetscCall(TdOptionsRealArray(pre, "profile_center", "profile origin (reference coordinates)", "m", 3, zero3, s->profile.center, NULL));
    PetscCall(TdOptionsRealArray(pre, "profile_axis", "profile direction", NULL, 3, xaxis, s->profile.axis, NULL));
    PetscCall(TdOptionsRealPositive(pre, "profile_amplitude", "crown: drop at |s| = half_length; chamfer: depth at the edge", "m", 0, PETSC_FALSE, &s->profile.amplitude, NULL));
    PetscCall(TdOptionsRealPositive(pre, "profile_half_length", "crown: half length; chamfer: distance of the edges from the centre", "m", 1, PETSC_TRUE, &s->profile.half_length, NULL));
    PetscCall(TdOptionsRealPositive(pre, "profile_width", "chamfer: length of the ramp", "m", 1e-3, PETSC_TRUE, &s->profile.width, NULL));
    PetscCall(TdOptionsString(pre, "profile_table", "table profile: CSV s [m], h [m] along the profile axis", NULL, table, sizeof table, &tset));
    {
      PetscReal l = PetscSqrtReal(vec3_dot(s->profile.axis, s->profile.axis));
      if (!(l > 0)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_profile_axis: the axis must not be zero", pre);
      for (PetscInt i = 0; i < 3; i++) s->profile.axis[i] /= l;
    }
    if (s->profile.type == FILM_PROFILE_TABLE) {
      FILE    *fp;
      char     line[512];
      PetscInt n = 0, cap = 1024;
      if (!tset) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': a table profile needs -%s_profile_table FILE.csv", f->name, pre);
      fp = fopen(table, "r");
      if (!fp) SETERRQ(m->comm, PETSC_ERR_FILE_OPEN, "Option -%s_profile_table: cannot open '%s' (%s)", pre, table, strerror(errno));
      PetscCall(PetscMalloc1(2 * cap, &s->profile_table));
      while (fgets(line, sizeof line, fp) && n < cap) {
        double a, h;
        if (sscanf(line, "%lf , %lf", &a, &h) == 2 || sscanf(line, "%lf %lf", &a, &h) == 2) {
          s->profile_table[n]       = a;
          s->profile_table[cap + n] = h;
          n++;
        }
      }
      fclose(fp);
      if (n < 2) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Profile table '%s' (option -%s_profile_table) needs at least two rows 's, h'", table, pre);
      s->profile.ntable  = (int)n;
      s->profile.table_s = s->profile_table;
      s->profile.table_h = s->profile_table + cap;
    }
  }
  PetscFunctionReturn(0);
}

/* The default reference surface: the wall face's footprint, nx x ny quads (axis-aligned planar
   faces of boxes). */
static PetscErrorCode DefaultSurface(TdModel m, TdFilm *f, const PetscInt cells[2], const PetscBool noflux[4], PetscReal normal[3])
{
  const TdBody    *body = &m->bodies[f->wall.body];
  const TdMeshSet *set  = (const TdMeshSet *)f->wall.set;
  PetscInt         ax = -1, side = -1;
  PetscReal        lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
  PetscReal        origin[3], e1[3] = {0, 0, 0}, e2[3] = {0, 0, 0};
  PetscFunctionBegin;
  if (f->wall.kind == TD_FACE_RIGID_CYLINDER || f->wall.kind == TD_FACE_FREE_CYLINDER) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall is a cylinder; give its reference surface with -%s_surface FILE", f->name, f->name);
  if (body->mesh.curved) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall %s:%s is a face of a curved mesh, which has no default footprint; give the reference surface with -%s_surface FILE", f->name, body->name, f->wall.face, f->name);
  for (PetscInt k = 0; k < set->nfaces; k++) {
    const PetscInt   cell = set->faces[k].cell, fa = set->faces[k].face;
    const PetscReal *axes = &body->mesh.axes[9 * cell];
    PetscInt         g    = -1;
    for (PetscInt i = 0; i < 3; i++)
      if (PetscAbsReal(axes[3 * (fa / 2) + i]) > 1 - 1e-9) g = i;
    if (g < 0 || (ax >= 0 && g != ax)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall face %s:%s is not a plane normal to a coordinate axis, so it has no default footprint; give the reference surface with -%s_surface FILE", f->name, body->name, f->wall.face, f->name);
    ax   = g;
    side = (axes[3 * (fa / 2) + g] > 0) == (fa % 2 == 1) ? 1 : 0;
  }
  for (PetscInt k = 0; k < set->nnodes; k++)
    for (PetscInt i = 0; i < 3; i++) {
      lo[i] = PetscMin(lo[i], body->mesh.X[3 * set->nodes[k] + i]);
      hi[i] = PetscMax(hi[i], body->mesh.X[3 * set->nodes[k] + i]);
    }
  if (hi[ax] - lo[ax] > 1e-9 * body->size) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall face %s:%s is not planar; give the reference surface with -%s_surface FILE", f->name, body->name, f->wall.face, f->name);
  {
    const PetscInt a1 = ax == 0 ? 1 : 0, a2 = ax == 2 ? 1 : 2;
    for (PetscInt i = 0; i < 3; i++) origin[i] = lo[i];
    e1[a1] = hi[a1] - lo[a1];
    e2[a2] = hi[a2] - lo[a2];
    normal[0] = normal[1] = normal[2] = 0;
    normal[ax] = side ? 1 : -1; /* the wall's outward normal: towards the base */
  }
  PetscCall(TdSurfaceMeshCreateRectangle(origin, e1, e2, cells[0], cells[1], noflux, &f->surface));
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmsCreateFromOptions(TdModel m, PetscInt nf, char (*names)[64], PetscInt first_unknown)
{
  PetscInt next = first_unknown;
  PetscFunctionBegin;
  m->nfilms = nf;
  PetscCall(PetscCalloc1(PetscMax(nf, 1), &m->films));
  for (PetscInt fi = 0; fi < nf; fi++) {
    TdFilm   *f = &m->films[fi];
    PetscInt  kind, cav, cells[2] = {20, 20};
    char      surf[PETSC_MAX_PATH_LEN], frame[64], (*noflux)[64];
    PetscInt  nnoflux;
    PetscBool has_surf;
    PetscBool nf_flags[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
    PetscReal hint[3] = {0, 0, 0}, sw, sb, gamma, E_star;
    const char *p = names[fi];
    PetscCall(PetscStrncpy(f->name, p, sizeof f->name));
    PetscCall(TdOptionsEnum(p, "model", "reynolds: average Reynolds mixed lubrication; dry: Lankarani-Nikravesh contact", film_models, 0, &kind, NULL));
    f->model = (TdFilmModel)kind;
    PetscCall(ParseFace(m, f, "wall", &f->wall));
    PetscCall(ParseFace(m, f, "base", &f->base));
    PetscCall(TdOptionsIntArray(p, "cells", "quads nx,ny of the default reference surface (the wall face's footprint)", 2, cells, cells, NULL));
    PetscCall(TdOptionsString(p, "surface", "reference surface from a Gmsh quad mesh (.msh/.geo), flat or curved; 1-D groups ambient, noflux", NULL, surf, sizeof surf, &has_surf));
    PetscCall(TdOptionsNameList(p, "noflux", "zero-flux edges of the default surface: xmin,xmax,ymin,ymax (first and second in-plane axis)", &nnoflux, &noflux));
    PetscCall(TdOptionsString(p, "frame", "reference frame: static, the name of a crank_slider joint carrying it, or (a film on free rigid bodies) the free body of its wall or base", "static", frame, sizeof frame, NULL));
    f->pattern_lookahead = 2e-3;
    PetscCall(TdOptionsRealPositive(p, "pattern_lookahead", "a film carried by a drive: the coupling pattern also holds the element-face pairs its points will meet within this time (fewer pattern rebuilds and LU analyses; 0: only the pairs met now)", "s", f->pattern_lookahead, PETSC_FALSE, &f->pattern_lookahead, NULL));
    PetscCall(TdOptionsRealPositive(p, "mu", "viscosity", "Pa s", 0.045, PETSC_TRUE, &f->fluid.mu, NULL));
    PetscCall(TdOptionsRealPositive(p, "density", "lubricant density", "kg/m^3", 889, PETSC_TRUE, &f->fluid.rho, NULL));
    PetscCall(TdOptionsRealPositive(p, "sigma_wall", "RMS roughness of the wall", "m", 0, PETSC_FALSE, &sw, NULL));
    PetscCall(TdOptionsRealPositive(p, "sigma_base", "RMS roughness of the base", "m", 0, PETSC_FALSE, &sb, NULL));
    PetscCall(TdOptionsReal(p, "gamma", "Patir-Cheng surface pattern parameter (1/9, 1/6, 1/3, 1, 3, 6 or 9)", NULL, 1, &gamma, NULL));
    PetscCall(TdOptionsRealPositive(p, "gt_K", "Greenwood-Tripp coefficient K", NULL, 0.003, PETSC_FALSE, &f->contact.K, NULL));
    PetscCall(TdOptionsRealPositive(p, "mu_asperity", "asperity friction coefficient", NULL, 0.1, PETSC_FALSE, &f->contact.mu_asperity, NULL));
    PetscCall(TdOptionsRealPositive(p, "v_eps", "regularisation speed of friction directions", "m/s", 1e-3, PETSC_TRUE, &f->contact.v_eps, NULL));
    PetscCall(TdOptionsEnum(p, "cavitation", "cavitation model: none, swift_stieber (p >= p_cav, F >= 0, (p - p_cav) F = 0), or jfo (mass-conserving: a film fraction theta per node, p >= p_cav, theta <= 1, (p - p_cav)(1 - theta) = 0; F18)", film_cavitations, 0, &cav, NULL));
    f->cavitation = (TdFilmCavitation)cav;
    PetscCall(TdOptionsReal(p, "p_cav", "cavitation pressure (gauge)", "Pa", 0, &f->p_cav, NULL));
    {
      PetscBool theta0_set;
      f->theta0 = 1;
      PetscCall(TdOptionsReal(p, "theta0", "jfo: film fraction at the start off the ambient edges, in (0, 1], kept through the initial-acceleration solve (default: that solve's quasi-steady film fractions, from a full film)", NULL, 1, &f->theta0, &theta0_set));
      f->theta0_set = theta0_set;
      if (!TdOptionsHelpRequested() && theta0_set && f->cavitation != TD_CAVITATION_JFO)
        SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_theta0: film '%s' has no film fraction (its cavitation is %s); set -%s_cavitation jfo or remove -%s_theta0", p, p, film_cavitations[cav], p, p);
      if (!TdOptionsHelpRequested() && !(f->theta0 > 0 && f->theta0 <= 1)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_theta0 = %g: a film fraction lies in (0, 1]", p, (double)f->theta0);
    }
    PetscCall(TdOptionsRealPositive(p, "p_ref", "pressure scale of the unknowns p/p_ref", "Pa", 1e6, PETSC_TRUE, &f->p_ref, NULL));
    PetscCall(TdOptionsRealPositive(p, "h_ref", "film height scale of the residual (default: the mean initial film height)", "m", 0, PETSC_FALSE, &f->h_ref, NULL));
    PetscCall(TdOptionsRealPositive(p, "Kg", "dry: generalised stiffness", "N/m^n", 70e6, PETSC_TRUE, &f->Kg, NULL));
    PetscCall(TdOptionsRealPositive(p, "eta", "dry: damping factor", "N s/m^(n+1)", 50e7, PETSC_FALSE, &f->eta, NULL));
    PetscCall(TdOptionsRealPositive(p, "n", "dry: exponent", NULL, 1.5, PETSC_TRUE, &f->exponent, NULL));
    PetscCall(TdOptionsRealPositive(p, "mu_dry", "dry: friction coefficient", NULL, 0.15, PETSC_FALSE, &f->mu_dry, NULL));
    PetscCall(TdOptionsRealPositive(p, "dry_eps", "dry: smoothing width of the penetration", "m", 1e-8, PETSC_TRUE, &f->eps_dry, NULL));
    if (TdOptionsHelpRequested()) {
      PetscCall(PetscFree(noflux));
      continue;
    }
    if (film_roughness_init(sw, sb, gamma, &f->fluid.rough)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_gamma = %g: the Patir-Cheng tables cover gamma = 1/9, 1/6, 1/3, 1, 3, 6, 9 only", p, (double)gamma);
    /* composite modulus of the two surfaces (F12) */
    {
      const TdBody *bw = &m->bodies[f->wall.body], *bb = &m->bodies[f->base.body];
      E_star = 1 / ((1 - bw->nu * bw->nu) / bw->E + (1 - bb->nu * bb->nu) / bb->E);
    }
    f->contact.E_star = E_star;
    /* frame */
    f->frame_joint = -1;
    if (f->wall.kind == TD_FACE_FREE_CYLINDER || f->base.kind == TD_FACE_FREE_CYLINDER) PetscCall(TdFilmRigidSetupInternal(m, f, frame));
    else if (strcmp(frame, "static")) {
      for (PetscInt j = 0; j < m->njoints; j++)
        if (!strcmp(m->joints[j].name, frame)) f->frame_joint = j;
      if (f->frame_joint < 0 || m->joints[f->frame_joint].type != TD_JOINT_CRANK_SLIDER) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_frame = %s: give static or the name of a crank_slider joint", p, frame);
    }
    /* reference surface */
    for (PetscInt e = 0; e < nnoflux; e++) {
      const char *edges[] = {"xmin", "xmax", "ymin", "ymax"};
      PetscBool   known   = PETSC_FALSE;
      for (PetscInt k = 0; k < 4; k++)
        if (!strcmp(noflux[e], edges[k])) nf_flags[k] = known = PETSC_TRUE;
      if (!known) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_noflux: unknown edge '%s'; use xmin, xmax, ymin, ymax", p, noflux[e]);
    }
    PetscCall(PetscFree(noflux));
    if (has_surf) {
      if (nnoflux) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': -%s_noflux applies to the default surface; a -%s_surface mesh names its zero-flux edges with the 1-D group 'noflux'", p, p, p);
      PetscCall(TdSurfaceMeshLoad(PETSC_COMM_SELF, surf, &f->surface));
    } else {
      if (cells[0] < 1 || cells[1] < 1) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_cells: %" PetscInt_FMT ",%" PetscInt_FMT ": every count must be at least 1", p, cells[0], cells[1]);
      PetscCall(DefaultSurface(m, f, cells, nf_flags, hint));
    }
    /* unknowns: the film nodes off the Dirichlet boundary (Reynolds only) */
    PetscCall(PetscMalloc1(f->surface.nnodes, &f->unknown));
    f->first_unknown = next;
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) f->unknown[nd] = (f->model == TD_FILM_REYNOLDS && !f->surface.dirichlet[nd]) ? next++ : -1;
    if (f->cavitation == TD_CAVITATION_JFO) {
      /* the film fractions after the pressures, node for node; flooded (theta = 1) on the
         ambient boundary, -<f>_theta0 (default full) at the start */
      PetscCheck(f->model == TD_FILM_REYNOLDS, m->comm, PETSC_ERR_USER_INPUT, "Option -%s_cavitation jfo: film '%s' is a dry contact (-%s_model dry); cavitation applies to a Reynolds film", p, p, p);
      PetscCall(PetscMalloc2(f->surface.nnodes, &f->theta_unknown, f->surface.nnodes, &f->theta_old));
      for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) {
        f->theta_unknown[nd] = f->unknown[nd] >= 0 ? next++ : -1;
        f->theta_old[nd]     = f->theta_unknown[nd] >= 0 ? f->theta0 : 1;
      }
    }
    f->nunknowns = next - f->first_unknown;
    /* geometry, oriented from the wall to the base; first projections; start-up checks */
    PetscCall(PetscMalloc1(f->surface.nquads, &f->geometry));
    PetscCall(PetscCalloc1(8 * f->surface.nquads, &f->hits));
    {
      /* the ranks' shares of the quads: contiguous strips of equal length (each quad costs the
         same: its projections and one Reynolds element) */
      PetscMPIInt rank, size;
      PetscCallMPI(MPI_Comm_rank(m->comm, &rank));
      PetscCallMPI(MPI_Comm_size(m->comm, &size));
      f->quad_start = (PetscInt)(((PetscInt64)f->surface.nquads * rank) / size);
      f->quad_end   = (PetscInt)(((PetscInt64)f->surface.nquads * (rank + 1)) / size);
    }
    PetscCall(PetscCalloc1(2 * f->surface.nnodes, &f->node_hits));
    for (PetscInt k = 0; k < 8 * f->surface.nquads; k++) f->hits[k].face = -1;
    for (PetscInt k = 0; k < 2 * f->surface.nnodes; k++) f->node_hits[k].face = -1;
    {
      PetscReal hsum = 0, area = 0;
      for (PetscInt qd = 0; qd < f->surface.nquads; qd++) {
        PetscReal      X[4][3], h0[3];
        FilmPointState ps = {0};
        SurfaceState   s1, s2;
        PetscBool      ok = PETSC_TRUE;
        s1.want_lin = s2.want_lin = PETSC_FALSE;
        for (PetscInt i = 0; i < 4; i++)
          for (PetscInt d = 0; d < 3; d++) X[i][d] = f->surface.X[3 * f->surface.quads[4 * qd + i] + d];
        if (hint[0] == 0 && hint[1] == 0 && hint[2] == 0) {
          /* a mesh surface: orient each quad so that the wall lies behind it */
          PetscReal a[3], b[3];
          TdFilmHit probe;
          FilmLine  line;
          for (PetscInt d = 0; d < 3; d++) {
            a[d] = X[1][d] - X[0][d] + X[2][d] - X[3][d];
            b[d] = X[3][d] - X[0][d] + X[2][d] - X[1][d];
          }
          vec3_cross(a, b, h0);
          film_quad_geometry(X, h0, &f->geometry[qd]);
          probe.face = -1;
          film_line_init(f->geometry[qd].n[0], &line);
          PetscCall(ProjectSurface(m, f, &f->wall, &probe, f->geometry[qd].x[0], f->geometry[qd].n[0], &line, (PetscReal[3]){0, 0, 0}, 0, m->q_ref, NULL, 1e-9, NULL, &s1, &ok));
          if (!ok) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the line through the film point (%g, %g, %g) normal to the reference surface misses the wall %s:%s; the reference surface must lie between the wall and the base", p, (double)f->geometry[qd].x[0][0], (double)f->geometry[qd].x[0][1], (double)f->geometry[qd].x[0][2], m->bodies[f->wall.body].name, f->wall.face);
          if (probe.pt.s > 0)
            for (PetscInt d = 0; d < 3; d++) h0[d] = -h0[d];
          film_quad_geometry(X, h0, &f->geometry[qd]);
        } else film_quad_geometry(X, hint, &f->geometry[qd]);
        for (PetscInt gp = 0; gp < 4; gp++) {
          const FilmQuadGeometry *g = &f->geometry[qd];
          PetscCall(PointState(m, f, f->miss, &f->hits[8 * qd + gp], &f->hits[8 * qd + 4 + gp], g->x[gp], g->n[gp], (PetscReal[3]){0, 0, 0}, 0, m->q_ref, NULL, 1e-9, NULL, &ps, &s1, &s2, &ok));
          if (!ok) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "%s; check -%s_wall, -%s_base and the reference surface", f->miss, p, p);
          if (f->model == TD_FILM_REYNOLDS && !(ps.h > 0))
            SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the film height at the start is %g m at the film point (%g, %g, %g); the Reynolds film needs a positive gap between %s:%s and %s:%s (the wall above, the base below along the normal)", p, (double)ps.h, (double)g->x[gp][0], (double)g->x[gp][1], (double)g->x[gp][2], m->bodies[f->wall.body].name, f->wall.face, m->bodies[f->base.body].name, f->base.face);
          /* the faces must face each other: the wall behind the point, the base ahead */
          if (!(f->hits[8 * qd + gp].pt.s <= f->hits[8 * qd + 4 + gp].pt.s))
            SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the faces %s:%s and %s:%s do not face each other at the film point (%g, %g, %g)", p, m->bodies[f->wall.body].name, f->wall.face, m->bodies[f->base.body].name, f->base.face, (double)g->x[gp][0], (double)g->x[gp][1], (double)g->x[gp][2]);
          hsum += g->w[gp] * ps.h;
          area += g->w[gp];
        }
      }
      f->area = area;
      if (!(f->h_ref > 0)) f->h_ref = hsum / area;
      if (f->model == TD_FILM_DRY) f->h_ref = PetscMax(f->h_ref, 1e-6);
    }
    f->residual_scale = f->fluid.rho * f->h_ref * f->h_ref * f->h_ref * f->p_ref / (12 * f->fluid.mu);
    /* the faces face each other: their outward normals oppose (ANCF and rigid mesh faces) */
    {
      const TdFilmSurface *ss[2] = {&f->wall, &f->base};
      PetscReal            sgn[2] = {1, -1};
      for (PetscInt k = 0; k < 2; k++) {
        const TdBody    *body = &m->bodies[ss[k]->body];
        const TdMeshSet *set  = (const TdMeshSet *)ss[k]->set;
        const TdFilmHit *h    = &f->hits[4 * k];
        if (ss[k]->kind == TD_FACE_RIGID_CYLINDER || ss[k]->kind == TD_FACE_FREE_CYLINDER || h->face < 0) continue;
        {
          /* outward normal from the hit's tangents: r_u x r_v is +axis for faces of xi and zeta,
             -axis for faces of eta (the (u, v) order of projection.h), times the side */
          const PetscInt   fa = set->faces[h->face].face;
          const PetscReal(*t)[2] = h->pt.r_uv;
          const PetscReal  sign = (fa % 2 ? 1 : -1) * (fa / 2 == 1 ? -1 : 1);
          PetscReal        out[3], len;
          (void)body;
          out[0] = sign * (t[1][0] * t[2][1] - t[2][0] * t[1][1]);
          out[1] = sign * (t[2][0] * t[0][1] - t[0][0] * t[2][1]);
          out[2] = sign * (t[0][0] * t[1][1] - t[1][0] * t[0][1]);
          len    = PetscSqrtReal(vec3_dot(out, out));
          for (PetscInt d = 0; d < 3; d++) out[d] /= len;
          if (sgn[k] * vec3_dot(out, f->geometry[0].n[0]) < 0.5)
            SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the faces %s:%s and %s:%s do not face each other (the %s's outward normal does not point %s the film); choose faces whose outward normals oppose", p, m->bodies[f->wall.body].name, f->wall.face, m->bodies[f->base.body].name, f->base.face, k ? "base" : "wall", k ? "into" : "across");
        }
      }
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmsDestroy(TdModel m)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(m->film_work));
  m->film_work_size = 0;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    TdFilm *f = &m->films[fi];
    PetscCall(PetscFree(f->node_normal));
    PetscCall(TdSurfaceMeshDestroy(&f->surface));
    PetscCall(PetscFree(f->unknown));
    PetscCall(PetscFree2(f->theta_unknown, f->theta_old));
    PetscCall(PetscFree(f->geometry));
    PetscCall(PetscFree(f->hits));
    PetscCall(PetscFree(f->node_hits));
    PetscCall(PetscFree(f->wall.profile_table));
    PetscCall(PetscFree(f->base.profile_table));
    PetscCall(PetscFree(f->wall.neighbours));
    PetscCall(PetscFree(f->base.neighbours));
  }
  PetscCall(PetscFree(m->films));
  PetscCall(PetscFree(m->coupling_qq));
  PetscCall(PetscFree(m->coupling_qp));
  PetscCall(PetscFree(m->coupling_qq_offset));
  PetscCall(PetscFree(m->coupling_qp_offset));
  PetscFunctionReturn(0);
}
