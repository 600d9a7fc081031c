#ifndef TRIBODYN_FILM_H
#define TRIBODYN_FILM_H
/*
  Lubricant films between two body faces (formulation.md §2-§3; src/model/film.c).

  A film lives on a reference surface of bilinear quads whose nodes are fixed in a frame: static,
  or carried by a crank_slider drive (x = X_f + (x_P(t) - x_P(0)) e_x).  Its pressures are
  unknowns of the step (scaled, p = p_ref p_hat); its surfaces are faces of bodies:
    - a face of an ANCF body (a mesh set: cells and local faces),
    - a face of a rigid body's mesh (bilinear quads moved with the body),
    - the surface of a rigid cylinder (-<b>_cylinder), exact;
    - the cylinder of a free rigid body: the film is then a rigid pair (film_rigid.c, F25), its
      two surfaces cylinders and its frame static or carried by one of their bodies.
  At every Gauss point the line through the point along the reference normal n (from the wall
  to the base) is intersected with both surfaces (F6); h, dh/dt and the surface velocities follow
  (F7-F9), then the Reynolds residual (F11) and the tractions (F13) whose integral gives the
  generalised forces on ANCF faces (F14).
*/
#include <tribodyn/film_kernels.h>
#include <tribodyn/projection.h>
#include <tribodyn/rigid_film_point.h>
#include <tribodyn/surface_mesh.h>

typedef enum { TD_FILM_REYNOLDS, TD_FILM_DRY } TdFilmModel;
typedef enum { TD_CAVITATION_NONE, TD_CAVITATION_SWIFT_STIEBER, TD_CAVITATION_JFO } TdFilmCavitation;
typedef enum { TD_FACE_ANCF, TD_FACE_RIGID_MESH, TD_FACE_RIGID_CYLINDER, TD_FACE_FREE_CYLINDER } TdFaceKind;

/* One bounding surface of a film. */
typedef struct {
  TdFaceKind  kind;
  PetscInt    body;
  char        face[64];
  PetscInt    nfaces;        /* ANCF / rigid mesh: faces of the set */
  const void *set;           /* const TdMeshSet* */
  FilmProfile profile;
  PetscReal  *profile_table; /* owned: 2 ntable */
  PetscInt   *neighbours;    /* mesh sets: TD_FACE_NEIGHBOURS faces sharing a corner with each
                                face (-1 padded), tried before a scan of the whole set */
} TdFilmSurface;

#define TD_FACE_NEIGHBOURS 8
#define TD_PATTERN_LOOKAHEAD 4 /* samples of a driven film's look-ahead (TdFilmsCouplingUpdate) */

/* The projection of one film point onto one surface, kept between evaluations as the start of
   the next search: the fields of its FilmSurfacePoint but the shape functions (S, dS_uv: two
   thirds of it), which the film's surface state carries (film.c).  Compact, so that a quad's 8
   hits lie together in memory: a pass streams them all. */
typedef struct {
  double uv[2], xi[3], r[3], r_uv[3][2], s; /* as in FilmSurfacePoint */
  int    iterations;
} TdFilmHitPoint;
typedef struct {
  PetscInt       face; /* index into the surface's set faces (-1: not found yet) */
  TdFilmHitPoint pt;
} TdFilmHit;

typedef struct {
  char             name[64];
  TdFilmModel      model;
  TdFilmSurface    wall, base;
  TdSurfaceMesh    surface;
  PetscInt         frame_joint;      /* -1: static frame */
  PetscReal        pattern_lookahead; /* [s] driven frame: coupling pairs held ahead of time */
  FilmFluid        fluid;
  FilmContact      contact;
  TdFilmCavitation cavitation;
  PetscReal        p_ref, p_cav, h_ref, residual_scale;
  PetscReal        theta0; /* jfo: the film fraction at the start off the ambient edges */
  PetscBool        theta0_set; /* theta0 given: an initial condition, kept by the initial solve */
  PetscReal        Kg, eta, exponent, mu_dry, eps_dry, area;
  FilmQuadGeometry *geometry;        /* quad_end - quad_start: this rank's quads (TdFilmGeometry),
                                        frame coordinates */
  PetscInt         first_unknown;    /* of this film's pressures in U */
  PetscInt         nunknowns;        /* pressures, then (JFO) as many film fractions */
  PetscInt        *unknown;          /* nnodes: index in U or -1 (Dirichlet, or dry model) */
  PetscInt        *theta_unknown;    /* JFO: nnodes, index of the film fraction in U or -1 (flooded) */
  PetscReal       *theta_old;        /* JFO: nnodes, the film fraction at the start of the step */
  PetscReal        inv_dt;           /* JFO: 1 / the step (0: a quasi-static solve), set by the solver */
  PetscInt         quad_start, quad_end; /* this rank's quads [start, end): the ranks share the
                                            quads in contiguous strips; each assembles its own */
  FilmLine        *lines;            /* 4 (quad_end - quad_start): each of this rank's Gauss
                                        points' line along its reference normal (film_line_init) */
  TdFilmHit       *hits;             /* 8 (quad_end - quad_start): each of this rank's quads' 4
                                        wall then 4 base Gauss-point hits (TdFilmHits) */
  PetscInt         node_start, node_end; /* the nodes whose output fields this rank forms and
                                            writes (TdOutputPartRange's chunks) */
  TdFilmHit       *node_hits;        /* 2 (node_end - node_start): wall, base (TdFilmNodeHits) */
  PetscReal       *node_normal;      /* 3 (node_end - node_start): the mean Gauss-point normal at
                                        each of those nodes */
  char             miss[512];        /* the last projection failure, for messages */
  PetscBool        rigid_pair;       /* between two rigid cylinders, one at least free (F25) */
  RigidFilmPair    pair;             /* their geometry and the film's frame (rigid_pair) */
} TdFilm;

/* A film's per-quad and per-node data live only on the rank that uses them: the quads of its
   strip [quad_start, quad_end) and the nodes of its output chunk [node_start, node_end).  These
   take a global quad or node index (which must lie in the rank's range). */
static inline FilmQuadGeometry *TdFilmGeometry(const TdFilm *f, PetscInt qd)
{
  return &f->geometry[qd - f->quad_start];
}
/* the quad's 8 hits: wall at its Gauss points 0..3, then base at 0..3 */
static inline TdFilmHit *TdFilmHits(const TdFilm *f, PetscInt qd)
{
  return &f->hits[8 * (qd - f->quad_start)];
}
/* the node's 2 hits: wall, base */
static inline TdFilmHit *TdFilmNodeHits(const TdFilm *f, PetscInt nd)
{
  return &f->node_hits[2 * (nd - f->node_start)];
}

#endif
