#ifndef TRIBODYN_FILM_PRIVATE_H
#define TRIBODYN_FILM_PRIVATE_H
/*
  What the film's files share (src/model/film*.c): the state of a film point on one bounding
  surface and the projection that finds it (film_projection.c), used by the assembly (film.c),
  the coupling pattern (film_pattern.c) and the set-up checks (film_create.c); the pattern's keys
  and the coupled coordinates of a face, which the assembly looks up in that pattern.
*/
#include "model_private.h"
#include <tribodyn/vec3.h>

typedef struct {
  PetscReal r[3], v[3];      /* point and material velocity */
  PetscReal rate;            /* n . total velocity of the point (F9) */
  PetscReal prof, prof_rate; /* profile and its rate at the fixed film point */
  PetscInt  element;         /* ANCF: element of the model, else -1 */
  PetscInt  face;            /* its local face */
  PetscReal S[ANCF3843_NSHAPE]; /* of an axis-aligned cell only the face's 12 active functions are set */
  PetscReal dS_uv[2][ANCF3843_NSHAPE];
  PetscBool want_lin;        /* fill lin or linf (ANCF faces) for the coupled Jacobian */
  PetscBool factored;        /* linf holds it (an axis-aligned cell), else lin (a rotated one) */
  FilmFaceLinFactors    linf;
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

/* Frame of a film: offset and velocity of its nodes at t (the drive's crank-slider motion, or 0). */
void TdFilmFrameMotion(TdModel m, const TdFilm *f, PetscReal t, PetscReal c[3], PetscReal cdot[3]);
/* Projects film point x onto surface s at time t (F6-F9), film_projection.c. */
PetscErrorCode TdFilmProjectSurface(TdModel m, TdFilm *film, TdFilmSurface *s, TdFilmHit *hit, const PetscReal x[3], const PetscReal n[3], const FilmLine *line, const PetscReal xdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal tol, FaceCoordinates *fc, SurfaceState *st, PetscBool *found);
/* The film state at one film point: h (F7), dh/dt (F9), relative surface velocities (F8),
   film_projection.c. */
PetscErrorCode TdFilmPointState(TdModel m, TdFilm *f, char miss[512], TdFilmHit *hw, TdFilmHit *hb, const PetscReal x[3], const PetscReal n[3], const FilmLine *line_n, const PetscReal xdot[3], PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal tol, FaceCoordinates fc[2], FilmPointState *ps, SurfaceState *sw, SurfaceState *sb, PetscBool *ok);

/* The key of a pair (face, face) or (face, film unknown) in the coupling pattern's sorted lists. */
static inline PetscInt64 PairKey(PetscInt a, PetscInt b) { return ((PetscInt64)a << 32) | (PetscInt64)b; }

/* Film-film Jacobian entries per quad: dR/dp (4 x 4), and with JFO dR/dtheta (4 x 4). */
static inline PetscCount QuadEntries(const TdFilm *f)
{
  return f->model != TD_FILM_REYNOLDS ? 0 : (f->cavitation == TD_CAVITATION_JFO ? 32 : 16);
}

/* The element coordinates that can be nonzero in the film's coupling on local face f: those of
   the face's 12 active shape functions (the 4 face nodes' position and in-plane slope functions,
   ancf3843.h), 36 of the 96 coordinates, in increasing order.  Cells not aligned with the global
   axes mix slopes: all 96. */
static inline PetscInt FaceActive(TdModel m, PetscInt e, PetscInt f, PetscInt idx[ANCF3843_NDOF])
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

#endif
