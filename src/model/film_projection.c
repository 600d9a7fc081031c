/*
  Projection of the film points onto the films' bounding faces (formulation.md F6-F9): the face
  a point's line along the reference normal meets (the last face hit, its neighbours, then a scan
  of the faces near the line), the point there, and from it the film state h, dh/dt and the
  surface velocities, with their linearisation for the coupled Jacobian (film_private.h).
*/
#include "film_private.h"

/* Frame of a film: offset and velocity of its nodes at t. */
void TdFilmFrameMotion(TdModel m, const TdFilm *f, PetscReal t, PetscReal c[3], PetscReal cdot[3])
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

/* Whether this rank's iterate holds element e up to date (model.h's readable_element); if not,
   the model's ghost_miss is set (from threads) and the caller gives up its search. */
static PetscBool Readable(TdModel m, PetscInt e)
{
  if (!m->readable_element || m->readable_element[e]) return PETSC_TRUE;
#pragma omp atomic write
  m->ghost_miss = PETSC_TRUE;
  return PETSC_FALSE;
}

/* The face of the set that the line meets nearest to the film point (smallest |s| along the
   line), or -1: a full search must not take the first face it meets, since a line can cross a
   closed or curved surface twice (the far side of a bore across the journal).  skip: a face
   already tried.  A scan needs every face of the set: -1 if one is not readable. */
static PetscInt NearestFace(TdModel m, const TdBody *body, const TdMeshSet *set, const PetscReal x[3], const PetscReal n[3], const FilmLine *line, PetscReal t, const PetscReal q[], PetscReal tol, const PetscInt *around, PetscInt skip)
{
  PetscInt  best = -1;
  PetscReal sbest = PETSC_MAX_REAL;
  if (body->type == TD_BODY_ANCF && m->readable_element)
    for (PetscInt fi = 0; fi < set->nfaces; fi++)
      if (!Readable(m, body->element_offset + set->faces[fi].cell)) return -1;
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
PetscErrorCode TdFilmProjectSurface(TdModel m, TdFilm *film, TdFilmSurface *s, TdFilmHit *hit, const PetscReal x[3], const PetscReal n[3], const FilmLine *line, const PetscReal xdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal tol, FaceCoordinates *fc, SurfaceState *st, PetscBool *found)
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
       TdFilmPointState's rigid pair) */
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
      /* a face this rank's iterate does not hold: the search stops, so that it runs as it would
         with the whole iterate once the solver has sent more of it */
      if (body->type == TD_BODY_ANCF && !Readable(m, body->element_offset + cell)) PetscFunctionReturn(0);
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
          ancf3843_face_shapes((int)set->faces[fi].face, act);
          if (body->mesh.axis_aligned)
            for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++) {
              const PetscInt k2 = act[ja];
              st->S[k2]         = pt.S[k2];
              st->dS_uv[0][k2]  = pt.dS_uv[0][k2];
              st->dS_uv[1][k2]  = pt.dS_uv[1][k2];
            }
          else
            for (PetscInt k2 = 0; k2 < ANCF3843_NSHAPE; k2++) {
              st->S[k2]        = pt.S[k2];
              st->dS_uv[0][k2] = pt.dS_uv[0][k2];
              st->dS_uv[1][k2] = pt.dS_uv[1][k2];
            }
          st->factored = body->mesh.axis_aligned;
          if (st->want_lin) {
            /* an axis-aligned cell's coupling needs only the face's active coordinates
               (FaceActive, in its order), whose derivatives are Kronecker products: their
               factors (film_linearize_ancf_face_line_factors) */
            if (body->mesh.axis_aligned) film_linearize_ancf_face_line_factors(sz[0], sz[1], sz[2], (int)set->faces[fi].face, ee, ev, profiled ? eref : NULL, profiled ? &s->profile : NULL, line, xdot, &pt, &st->linf);
            else film_linearize_ancf_face_line(sz[0], sz[1], sz[2], (int)set->faces[fi].face, ee, ev, profiled ? eref : NULL, profiled ? &s->profile : NULL, x, line, xdot, &pt, &st->lin);
          }
          {
            PetscReal vs[3] = {0, 0, 0}; /* summed in locals: the compiler cannot rule out that st aliases ev */
            if (v)
              for (PetscInt ja = 0; ja < ANCF3843_FACE_NSHAPE; ja++)
                for (PetscInt i = 0; i < 3; i++) vs[i] += pt.S[act[ja]] * ev[3 * act[ja] + i];
            for (PetscInt i = 0; i < 3; i++) {
              st->r[i]  = pt.r[i];
              st->v[i]  = vs[i];
              Xmat[i]   = 0;
              Xuv[i][0] = Xuv[i][1] = 0;
            }
          }
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
   along the edge of a face that has tilted or slid a little (output only).  line_n: the point's
   line along n (film_line_init) if the caller keeps it, or NULL. */
PetscErrorCode TdFilmPointState(TdModel m, TdFilm *f, char miss[512], TdFilmHit *hw, TdFilmHit *hb, const PetscReal x[3], const PetscReal n[3], const FilmLine *line_n, const PetscReal xdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal tol, FaceCoordinates fc[2], FilmPointState *ps, SurfaceState *sw, SurfaceState *sb, PetscBool *ok)
{
  PetscBool       fw, fb;
  FilmLine        own;
  const FilmLine *line = line_n;
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
  if (!line) {
    film_line_init(n, &own);
    line = &own;
  }
  PetscCall(TdFilmProjectSurface(m, f, &f->wall, hw, x, n, line, xdot, t, q, v, tol, fc ? &fc[0] : NULL, sw, &fw));
  PetscCall(TdFilmProjectSurface(m, f, &f->base, hb, x, n, line, xdot, t, q, v, tol, fc ? &fc[1] : NULL, sb, &fb));
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

