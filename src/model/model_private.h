#ifndef TRIBODYN_MODEL_PRIVATE_H
#define TRIBODYN_MODEL_PRIVATE_H
/*
  Internal to src/model/: the steps of TdModelCreateFromOptions (model.c), each in the file of
  its part of the model, and the helpers several of those files share.  Not part of the public
  interface (include/tribodyn/model.h).  Each step reads its options in the order -help lists
  them; the order of the calls in TdModelCreateFromOptions is that order.
*/
#include <tribodyn/model.h>

/* Bodies (body_ancf.c): the nb bodies named in names, each from its options (type, geometry,
   material, motion of a rigid body, clamps) with its table of cell geometries. */
PetscErrorCode TdBodiesFromOptionsInternal(TdModel model, PetscInt nb, char (*names)[64]);
/* Element tables (element_tables.c): a body's at set-up (box cells: all; curved cells: their
   classes, the tables themselves once the ranks' elements are known), and one curved cell's
   tables made on their own (error if its reference map is inverted). */
PetscErrorCode TdBodyTablesInternal(TdModel model, TdBody *body);
PetscErrorCode TdBodyCellTableInternal(TdModel model, const TdBody *body, PetscInt c, Ancf3843Geometry *geo);
/* Bodies (body_ancf.c): numbers the coordinates of the ANCF nodes body after body, clamped
   coordinates eliminated, and lists the elements; sets the reference configuration and the
   scales (mass per node, typical force). */
PetscErrorCode TdBodiesNumberCoordinatesInternal(TdModel model);

/* Rigid bodies (body_rigid.c), called by the body reader at the place of their options.
   -<b>_cylinder: *given if set; geometry_given: a box or mesh was given as well (an error). */
PetscErrorCode TdRigidBodyCylinderFromOptionsInternal(TdModel model, TdBody *body, PetscBool geometry_given, PetscBool *given);
/* -<b>_velocity, _rotation, _angular_velocity, _center and the initial rotation R0. */
PetscErrorCode TdRigidBodyMotionFromOptionsInternal(TdModel model, TdBody *body);

/* Material points (material_point.c). */
/* Shape functions with the slopes taken along the global axes from those along the cell's
   material axes (axes: the cell's 3 x 3 axes, row ax = local axis ax in global components). */
void TdModelGlobalShapeInternal(const PetscReal *maps, PetscInt stride, const PetscReal Sloc[ANCF3843_NSHAPE], PetscReal Sg[ANCF3843_NSHAPE]);
/* The body called name (option names the option that gave it in the message, which lists the
   bodies), and the face set called face of body b (the message lists its faces). */
PetscErrorCode TdModelFindBodyInternal(TdModel model, const char name[], const char option[], PetscInt *b);
PetscErrorCode TdModelFindFaceSetInternal(TdModel model, PetscInt b, const char face[], const char option[], const TdMeshSet **set);
/* -<prefix>_body and -<prefix>_point of a load, joint or sensor (kind names it in messages):
   the body's index and the located material point. */
PetscErrorCode TdModelReadPointInternal(TdModel model, const char prefix[], const char kind[], PetscInt *body, TdMaterialPoint *mp);

/* Loads (load.c), joints and their constraint rows (joint.c), sensors (sensor.c): the n named
   in names, read after the bodies and their coordinates. */
PetscErrorCode TdLoadsFromOptionsInternal(TdModel model, PetscInt nl, char (*names)[64]);
PetscErrorCode TdJointIdealFromOptionsInternal(TdModel model, PetscInt j);
/* Two unit vectors normal to the unit vector u and to each other, (u, v1, v2) right-handed: v1
   from the global axis least along u (joint_ideal.c; ideal joints' normals, a spin drive's fibre). */
void TdAxisNormalsInternal(const PetscReal u[3], PetscReal v1[3], PetscReal v2[3]);
PetscErrorCode TdJointClearanceFromOptionsInternal(TdModel model, PetscInt j);
/* Free rigid bodies' orthonormality rows (joint_ideal.c, F21). */
PetscErrorCode TdFreeBodyRowsInternal(TdModel model);
/* Leaves out constraint rows that repeat others in the reference configuration (redundancy.c). */
PetscErrorCode TdModelDropRedundantRowsInternal(TdModel model);
/* A load's (or motor's) CSV table of time and value into load->table_t, table_f (load.c). */
PetscErrorCode TdLoadReadTableInternal(TdModel model, TdLoad *load, const char path[], const char option[]);
PetscErrorCode TdJointsFromOptionsInternal(TdModel model, PetscInt nj, char (*names)[64]);
PetscErrorCode TdSensorsFromOptionsInternal(TdModel model, PetscInt ns, char (*names)[64]);

/* Films on free rigid bodies (film_rigid.c, F25): set-up from the parsed surfaces and the
   -<f>_frame value; the kernel's inputs at t (v NULL: at rest); the Jacobian entries of a quad,
   their pattern (full unknown indices, -1 for none); a Gauss point's state, its forces on the
   free bodies (-Q into rfull, the load and friction on the wall in space) and its Jacobian
   block at coordinates z with the point's state st (accumulated into the quad's entries). */
PetscErrorCode TdFilmRigidSetupInternal(TdModel m, TdFilm *f, const char frame[]);
void           TdFilmRigidGather(TdModel m, const TdFilm *f, PetscReal t, const PetscReal q[], const PetscReal v[], PetscReal z[48]);
PetscCount     TdFilmRigidQuadEntries(const TdFilm *f);
void           TdFilmRigidPattern(TdModel m, const TdFilm *f, PetscInt qd, PetscInt rows[], PetscInt cols[]);
PetscBool      TdFilmRigidState(TdModel m, const TdFilm *f, const PetscReal z[48], const PetscReal X[3], const PetscReal n[3], FilmPointState *ps, RigidFilmState *st);
void           TdFilmRigidForces(TdModel m, const TdFilm *f, const RigidFilmState *st, PetscReal w, const PetscReal fw[3], const PetscReal fb[3], PetscReal rfull[], PetscReal L[3], PetscReal Fr[3], const PetscReal n[3]);
void           TdFilmRigidGaussPointJacobian(TdModel m, const TdFilm *f, const FilmQuadGeometry *g, PetscInt gp, const PetscInt nodes[4], const PetscReal z[48], const RigidFilmState *st, const PetscReal fa[2][3], const FilmTractionSensitivity *ts, const PetscReal dfa_dhdot[2][3], const FilmReynoldsSensitivity *rs, PetscReal ce, PetscReal cv, PetscScalar *blk);
#endif
