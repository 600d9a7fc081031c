/*
  Films on free rigid bodies (formulation.md (F25); model.h): a film between two rigid cylinders
  (-<b>_cylinder) at least one of which is a free rigid body, its reference surface static or
  carried by one of the two bodies (-<f>_frame B).  The pointwise kinematics and forces are the
  kernel rigid_film_point; this file gathers its inputs (a free body's 12 coordinates and rates,
  or a prescribed body's pose written as natural coordinates), and lays out and fills the
  Jacobian blocks of a film quad with the two bodies' coordinates: per quad, the pressure rows
  against the 24 coordinates, the 24 force rows against the 4 pressures, and the 24 x 24 force
  block (TdFilmRigidQuadEntries, in that order).
*/
#include "model_private.h"
#include <tribodyn/vec3.h>
#include <string.h>

/* z_s and its rate (12 + 12 values at z) of side s of film f at time t from q, v (v NULL: at rest) */
static void GatherSide(TdModel m, const TdFilm *f, PetscInt s, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal z[24])
{
  const TdBody *body = &m->bodies[s ? f->base.body : f->wall.body];
  if (body->type == TD_BODY_FREE) {
    const PetscReal *qb = &q[TD_NODE_DOF * body->node_offset], *vb = v ? &v[TD_NODE_DOF * body->node_offset] : NULL;
    for (PetscInt i = 0; i < 12; i++) {
      z[i]      = qb[i];
      z[12 + i] = vb ? vb[i] : 0;
    }
    return;
  }
  /* prescribed: the centre's position and the images of the unit vectors, and their rates */
  {
    PetscReal x0[3], v0[3];
    TdRigidBodyPoint(body, f->pair.com[s], t, x0, v0);
    for (PetscInt i = 0; i < 3; i++) {
      z[i]      = x0[i];
      z[12 + i] = v ? v0[i] : 0;
    }
    for (PetscInt k = 0; k < 3; k++) {
      PetscReal X[3], x[3], vx[3];
      for (PetscInt i = 0; i < 3; i++) X[i] = f->pair.com[s][i] + (i == k ? 1 : 0);
      TdRigidBodyPoint(body, X, t, x, vx);
      for (PetscInt i = 0; i < 3; i++) {
        z[3 + 3 * k + i]  = x[i] - x0[i];
        z[15 + 3 * k + i] = v ? vx[i] - v0[i] : 0;
      }
    }
  }
}

void TdFilmRigidGather(TdModel m, const TdFilm *f, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal z[48])
{
  GatherSide(m, f, 0, t, q, v, z);
  GatherSide(m, f, 1, t, q, v, z + 24);
}

PetscErrorCode TdFilmRigidSetupInternal(TdModel m, TdFilm *f, const char frame[])
{
  const TdFilmSurface *ss[2] = {&f->wall, &f->base};
  PetscFunctionBegin;
  for (PetscInt s = 0; s < 2; s++) {
    const TdBody *body = &m->bodies[ss[s]->body];
    if (ss[s]->kind != TD_FACE_RIGID_CYLINDER && ss[s]->kind != TD_FACE_FREE_CYLINDER)
      SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': a film on a free rigid body runs between two rigid cylinders (-<b>_cylinder, face 'surface'); its %s %s:%s is not one", f->name, s ? "base" : "wall", body->name, ss[s]->face);
    for (PetscInt i = 0; i < 3; i++) {
      f->pair.P0[s][i]  = body->cylinder[i];
      f->pair.P1[s][i]  = body->cylinder[3 + i];
      f->pair.com[s][i] = body->type == TD_BODY_FREE ? body->com[i] : body->center[i];
    }
    f->pair.R[s] = body->cylinder[6];
  }
  f->pair.frame = -1;
  if (strcmp(frame, "static")) {
    for (PetscInt s = 0; s < 2; s++)
      if (!strcmp(frame, m->bodies[ss[s]->body].name)) f->pair.frame = (int)s;
    if (f->pair.frame < 0 || m->bodies[ss[f->pair.frame]->body].type != TD_BODY_FREE)
      SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_frame = %s: a film on free rigid bodies is static or carried by the free rigid body of its wall or base (%s, %s)", f->name, frame, m->bodies[f->wall.body].name, m->bodies[f->base.body].name);
  }
  f->rigid_pair = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscCount TdFilmRigidQuadEntries(const TdFilm *f) { return f->rigid_pair && f->model == TD_FILM_REYNOLDS ? 4 * 24 + 24 * 4 + 24 * 24 : (f->rigid_pair ? 24 * 24 : 0); }

/* The full-coordinate index of column c (0..23) of a film's blocks: side c / 12's coordinate, or
   -1 for a body without unknowns */
static PetscInt Coordinate(TdModel m, const TdFilm *f, PetscInt c)
{
  const TdBody *body = &m->bodies[c < 12 ? f->wall.body : f->base.body];
  return body->type == TD_BODY_FREE ? m->free_index[TD_NODE_DOF * body->node_offset + c % 12] : -1;
}

void TdFilmRigidPattern(TdModel m, const TdFilm *f, PetscInt qd, PetscInt rows[], PetscInt cols[])
{
  const PetscInt *nodes = &f->surface.quads[4 * qd];
  PetscCount      k     = 0;
  if (f->model == TD_FILM_REYNOLDS) {
    for (PetscInt i = 0; i < 4; i++) /* pressure rows against the coordinates */
      for (PetscInt c = 0; c < 24; c++, k++) {
        rows[k] = f->unknown[nodes[i]];
        cols[k] = Coordinate(m, f, c);
      }
    for (PetscInt c = 0; c < 24; c++) /* force rows against the pressures */
      for (PetscInt j = 0; j < 4; j++, k++) {
        rows[k] = Coordinate(m, f, c);
        cols[k] = f->unknown[nodes[j]];
      }
  }
  for (PetscInt a = 0; a < 24; a++)
    for (PetscInt c = 0; c < 24; c++, k++) {
      rows[k] = Coordinate(m, f, a);
      cols[k] = Coordinate(m, f, c);
    }
  for (PetscCount i = 0; i < k; i++)
    if (rows[i] < 0 || cols[i] < 0) rows[i] = cols[i] = -1;
}

PetscBool TdFilmRigidState(TdModel m, const TdFilm *f, const PetscReal z[48], const PetscReal X[3], const PetscReal n[3], FilmPointState *ps, RigidFilmState *st)
{
  (void)m;
  if (rigid_film_point(&f->pair, X, n, z, st)) return PETSC_FALSE;
  ps->h    = st->kin[0];
  ps->dhdt = st->kin[1];
  for (PetscInt i = 0; i < 3; i++) {
    ps->vw[i] = st->kin[2 + i];
    ps->vb[i] = st->kin[5 + i];
  }
  return PETSC_TRUE;
}

void TdFilmRigidForces(TdModel m, const TdFilm *f, const RigidFilmState *st, PetscReal w, const PetscReal fw[3], const PetscReal fb[3], PetscReal rfull[], PetscReal L[3], PetscReal Fr[3], const PetscReal n[3])
{
  PetscReal Q[24], fn = vec3_dot(fw, n), ft[3];
  rigid_film_point_forces(st, w, fw, fb, Q);
  for (PetscInt s = 0; s < 2; s++) {
    const TdBody *body = &m->bodies[s ? f->base.body : f->wall.body];
    if (body->type != TD_BODY_FREE || !rfull) continue;
    for (PetscInt i = 0; i < 12; i++) rfull[TD_NODE_DOF * body->node_offset + i] -= Q[12 * s + i];
  }
  /* the load on the wall and its tangential part, turned from the frame to space */
  for (PetscInt i = 0; i < 3; i++) ft[i] = fw[i] - fn * n[i];
  for (PetscInt i = 0; i < 3; i++) {
    L[i] += w * (st->A[i][0] * fw[0] + st->A[i][1] * fw[1] + st->A[i][2] * fw[2]);
    Fr[i] += w * (st->A[i][0] * ft[0] + st->A[i][1] * ft[1] + st->A[i][2] * ft[2]);
  }
}

void TdFilmRigidGaussPointJacobian(TdModel m, const TdFilm *f, const FilmQuadGeometry *g, PetscInt gp, const PetscInt nodes[4], const PetscReal z[48], const RigidFilmState *st, const PetscReal fa[2][3], const FilmTractionSensitivity *ts, const PetscReal dfa_dhdot[2][3], const FilmReynoldsSensitivity *rs, PetscReal ce, PetscReal cv, PetscScalar *blk)
{
  PetscReal   T[2][3][8], dkin[8][48], dQ[24][48], K[8][24];
  int         vary[48], nvary = 0;
  PetscScalar *bpq = blk, *bqp = blk + (f->model == TD_FILM_REYNOLDS ? 96 : 0), *bqq = bqp + (f->model == TD_FILM_REYNOLDS ? 96 : 0);
  const PetscReal w = g->w[gp];
  for (PetscInt s = 0; s < 2; s++)
    if (m->bodies[s ? f->base.body : f->wall.body].type == TD_BODY_FREE)
      for (int c = 0; c < 24; c++) vary[nvary++] = 24 * (int)s + c;
  if (!nvary) return;
  for (PetscInt a = 0; a < 2; a++)
    for (PetscInt i = 0; i < 3; i++) {
      T[a][i][0] = ts->dh[a][i];
      T[a][i][1] = dfa_dhdot[a][i];
      for (PetscInt j = 0; j < 3; j++) {
        T[a][i][2 + j] = ts->dvw[a][i][j];
        T[a][i][5 + j] = ts->dvb[a][i][j];
      }
    }
  memset(dkin, 0, sizeof dkin);
  memset(dQ, 0, sizeof dQ);
  rigid_film_point_jacobian(&f->pair, g->x[gp], g->n[gp], z, w, fa[0], fa[1], (const double(*)[3][8])T, vary, nvary, dkin, dQ);
  /* ce d/dq + cv d/dqdot over the 24 coordinates (side s's position inputs 24 s + c, rates 24 s + 12 + c) */
  for (PetscInt r = 0; r < 8; r++)
    for (PetscInt c = 0; c < 24; c++) K[r][c] = ce * dkin[r][24 * (c / 12) + c % 12] + cv * dkin[r][24 * (c / 12) + 12 + c % 12];
  for (PetscInt a = 0; a < 24; a++)
    for (PetscInt c = 0; c < 24; c++) bqq[24 * a + c] -= ce * dQ[a][24 * (c / 12) + c % 12] + cv * dQ[a][24 * (c / 12) + 12 + c % 12];
  if (f->model != TD_FILM_REYNOLDS) return;
  /* pressure rows: -(1/scale) dR_i/dkin . dkin/dq */
  for (PetscInt i = 0; i < 4; i++) {
    if (f->unknown[nodes[i]] < 0) continue;
    for (PetscInt c = 0; c < 24; c++) {
      PetscReal d = rs->dh[i][gp] * K[0][c] + rs->ddhdt[i][gp] * K[1][c];
      for (PetscInt j = 0; j < 3; j++) d += rs->dvw[i][gp][j] * K[2 + j][c] + rs->dvb[i][gp][j] * K[5 + j][c];
      bpq[24 * i + c] -= d / f->residual_scale;
    }
  }
  /* force rows against the pressures: -w P^T A (df/dp N_j + df/dgradp gradN_j) p_ref */
  for (PetscInt j = 0; j < 4; j++) {
    PetscReal df[2][3], Q[24];
    for (PetscInt a = 0; a < 2; a++)
      for (PetscInt i = 0; i < 3; i++) {
        df[a][i] = ts->dp[a][i] * g->N[gp][j];
        for (PetscInt d = 0; d < 3; d++) df[a][i] += ts->dgradp[a][i][d] * g->gradN[gp][j][d];
        df[a][i] *= f->p_ref;
      }
    rigid_film_point_forces(st, w, df[0], df[1], Q);
    for (PetscInt c = 0; c < 24; c++) bqp[4 * c + j] -= Q[c];
  }
}
