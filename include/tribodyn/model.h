#ifndef TRIBODYN_MODEL_H
#define TRIBODYN_MODEL_H
/*
  The mechanical model: bodies, loads, joints (constraints and drives), sensors
  (src/model/).  Built from the options database by TdModelCreateFromOptions, which validates
  every input and reports errors naming the option or file.

  Coordinates.  Every node of an ANCF body carries 12 absolute coordinates
  [r, r_X, r_Y, r_Z] (formulation.md §1), the slopes taken with respect to the global reference
  axes.  All ANCF nodes of the model form one "full" coordinate vector, body after body;
  held coordinates of clamped faces are eliminated (formulation.md §4), the others are "free"
  and numbered 0..nfree-1 in the same order.  A clamped face holds the positions of its nodes
  and the slopes along the face (u = 0 on the face fixes exactly these); the slope normal to the
  face stays free unless -<b>_clamp_slopes all (see BodyFromOptions in body_ancf.c).  The unknown vector of a step is [free coordinates,
  scaled multipliers] (formulation.md §6).  Meshes are small next to the cost of the element
  kernels, so every rank holds the whole model and the whole state, except the element tables of
  curved cells (each rank those of its own elements, element_tables.c) and the films' per-quad
  data (each rank its own quads, film_create.c); elements and film quads are
  divided between ranks (elements by a graph partitioner, TdModelPartition; film quads in
  contiguous strips, TdFilm's quad_start/quad_end) and threads.  The solver numbers U rank
  after rank (TdSolverCreate); the model's indices (free_index, film unknowns, rows) are the
  natural numbering above.
*/
#include <petscsys.h>
#include <petscviewer.h>
#include <tribodyn/ancf3843.h>
#include <tribodyn/clearance_contact.h>
#include <tribodyn/mesh.h>
#include <tribodyn/film.h>

#define TD_NAME_LEN 64
#define TD_NODE_DOF 12

/* ANCF: flexible, its mesh nodes' coordinates are unknowns; RIGID: prescribed motion, no
   unknowns; FREE: a free rigid body (-<b>_type rigid -<b>_motion free) in natural coordinates,
   one 12-coordinate node [r, a1, a2, a3] (its centre of mass and body axes, formulation (F21)) */
typedef enum { TD_BODY_ANCF, TD_BODY_RIGID, TD_BODY_FREE } TdBodyType;

typedef struct {
  char       name[TD_NAME_LEN];
  TdBodyType type;
  TdMesh     mesh;
  PetscReal  E, nu, rho, damping;
  Ancf3843Material material;
  PetscInt   ngeometry;          /* the element tables this rank keeps (element_tables.c) */
  Ancf3843Geometry *geometry;
  PetscInt  *cell_geometry;      /* ncells: index into geometry; curved meshes: -1 for the cells
                                    of the elements other ranks compute */
  PetscInt  *cell_class;         /* curved meshes (ncells): the lowest cell with equal tables */
  PetscInt   nclass;             /* curved meshes: classes of equal tables over all the cells */
  PetscInt   node_offset;        /* first node of this body in the full numbering */
  PetscInt   element_offset;     /* its first element in the model's element list */
  PetscInt  *clamped;            /* nnodes: bit c set = coordinate c (of 12) held */
  PetscBool  clamp_all_slopes;   /* -<b>_clamp_slopes all: hold the normal slope too */
  PetscReal  mass;               /* [kg] */
  PetscReal  initial_velocity[3];/* ANCF, free: uniform initial velocity [m/s] (free: of the centre of mass) */
  PetscReal  initial_angular_velocity[3]; /* free: [rad/s] */
  PetscReal  com[3], J[9];       /* free: centre of mass, and J = int rho (X - com)(X - com)^T dV [kg m^2]
                                    in the reference frame (the body axes a_k start as e_k) */
  /* rigid: x(X, t) = c + v t + R(w t) R0 (X - c0)... see body_rigid.c */
  PetscReal  velocity[3], rotation[3], angular_velocity[3], center[3];
  PetscReal  oscillation[5];     /* rigid: harmonic displacement ax,ay,az [m], f [Hz], phase [rad] */
  PetscReal  R0[9];
  PetscReal  size;               /* bounding-box diagonal [m] */
  PetscBool  is_cylinder;        /* rigid: a cylinder surface (-<b>_cylinder), face "surface" */
  PetscReal  cylinder[7];        /* x0,y0,z0, x1,y1,z1 (axis), radius [m] */
} TdBody;

/* A material point of a body: its cell, local coordinates and shape functions. */
typedef struct {
  PetscInt  body, cell;
  PetscReal X[3], xi[3];
  PetscReal S[ANCF3843_NSHAPE];       /* shape functions at xi (global-axis slopes) */
  PetscReal G[3][ANCF3843_NSHAPE];    /* their derivatives along the global axes x, y, z at xi:
                                         r_,j = sum_k G[j][k] e_k (torque loads) */
  PetscInt  coord[ANCF3843_NDOF];     /* full coordinate index of element entry 3k+i */
} TdMaterialPoint;

typedef enum { TD_PROFILE_CONSTANT, TD_PROFILE_RAMP, TD_PROFILE_HALFSINE, TD_PROFILE_TABLE, TD_PROFILE_HARMONIC } TdProfileType;

typedef enum { TD_LOAD_POINT, TD_LOAD_PRESSURE, TD_LOAD_SPRING, TD_LOAD_TORQUE, TD_LOAD_TRACTION } TdLoadType;

/* A load: a point force at a material point (F1), a follower pressure on a face (F16), a
   linear spring-damper between two points (F17), or a torque at a material point (F19). */
typedef struct {
  char            name[TD_NAME_LEN];
  TdLoadType      type;
  TdMaterialPoint point;          /* point; spring: its first end */
  PetscInt        body2;          /* spring: body of the second end, -1 for ground */
  TdMaterialPoint point2;         /* spring: second end on body2 */
  PetscReal       ground[3];      /* spring: second end fixed in space (body2 = -1) [m] */
  PetscReal       stiffness, damping, length; /* spring: k [N/m], c [N s/m], rest length [m] */
  PetscReal       force[3];       /* point: force [N]; torque: moment [N m] (its peak for a pulse) */
  PetscInt        body;           /* pressure: the body and its face set */
  const TdMeshSet *face;
  PetscReal       pressure;       /* pressure: [Pa] (its peak for a pulse) */
  PetscReal       area;           /* pressure: reference area of the face [m^2] */
  TdProfileType   profile;
  PetscReal       start, duration;
  PetscReal       frequency, phase; /* harmonic profile [Hz], [deg] */
  PetscInt        ntable;
  PetscReal      *table_t, *table_f;
} TdLoad;

/* A loaded element face: load l on local face `face` of an element; for a traction, the face's
   constant table int S_k dA_0 (ancf3843_face_shape_area, in the cell's parametric slopes). */
typedef struct {
  PetscInt  load, face;
  PetscReal shape_area[ANCF3843_NSHAPE];
} TdElementLoad;

typedef enum { TD_MOTOR_NONE, TD_MOTOR_ANGLE, TD_MOTOR_SPEED, TD_MOTOR_TORQUE, TD_MOTOR_POSITION, TD_MOTOR_FORCE } TdMotorType;
typedef enum { TD_JOINT_POINT, TD_JOINT_CRANK_SLIDER, TD_JOINT_SPIN, TD_JOINT_SPHERICAL, TD_JOINT_REVOLUTE, TD_JOINT_UNIVERSAL, TD_JOINT_FIXED, TD_JOINT_DISTANCE, TD_JOINT_CYLINDRICAL, TD_JOINT_PRISMATIC, TD_JOINT_INLINE, TD_JOINT_CLEARANCE } TdJointType;

typedef struct {
  char            name[TD_NAME_LEN];
  TdJointType     type;
  TdMaterialPoint point;
  PetscBool       component[3];   /* point: held components */
  PetscReal       crank_radius, rod_ratio, rpm, theta0, offset;
  PetscReal       crank_center;   /* x of the crank centre, so that x_P(0) = X_P */
  PetscReal       axis[3], ramp;  /* spin: unit axis, speed ramp time [s] (speed: rpm) */
  PetscReal       spin_d0[3], spin_w0[3]; /* spin: the held fibre d0 and w0 = axis x d0 */
  /* ideal joints between two bodies (F22): bodies (-1: ground), their material points at the
     joint point, the joint axis u and two unit normals v1, v2 (reference configuration) */
  PetscInt        body[2];
  TdMaterialPoint at[2];
  PetscReal       u[3], v1[3], v2[3];
  PetscInt        nforce;         /* rows whose multipliers are the reaction force (the first) */
  PetscInt        first_rotation; /* its rows from this one on hold its rotations */
  PetscReal       angle, angle_prev; /* revolute: unwrapped relative angle [rad] */
  PetscInt        motor;          /* TdMotorType: none, angle, speed, torque (revolute), position, speed, force (prismatic) */
  PetscReal       motor_value;    /* its value V [rad, rad/s, N m, m, m/s, N]: the quantity is V f(t) */
  TdLoad          motor_profile;  /* f(t): the profile, its start, duration and table (-<j>_motor_...) */
  PetscInt        first_row, nrows;
  /* clearance (F24): a pin on A in a hole on B, no rows; the contact force law, the approach
     speed v_imp of the current contact (latched at the start of each step that begins apart,
     TdJointsStepStart) and its floor */
  ClearanceContactLaw contact;
  PetscReal       impact_speed, impact_speed_min;
} TdJoint;

typedef struct {
  char            name[TD_NAME_LEN];
  TdMaterialPoint point;
} TdSensor;

/* An affine 3-vector form of the coordinates, V_i = c0_i + sum over the terms t whose coordinate
   has component i (coord % 3 == i) of coef[t] q_full[coord[t]]: a material point's position, a
   material direction F u at a point (its global-axis gradient functions), their differences, or
   a constant (ground).  Ideal joints' rows are dot products of two of them (F22). */
#define TD_FORM_TERMS (2 * ANCF3843_NDOF)
typedef struct {
  PetscInt  n;
  PetscInt  coord[TD_FORM_TERMS];
  PetscReal coef[TD_FORM_TERMS];
  PetscReal c0[3];
} TdVectorForm;

/* One constraint row: sum_t coef[t] q_full[coord[t]] = b(t) (formulation.md §4), or, for kinds 4
   and 5, Phi(q) = 0 with the coefficients dPhi/dq from the state (TdConstraintRowCoefficients). */
#define TD_ROW_TERMS (2 * TD_FORM_TERMS)
typedef struct {
  PetscInt  nterms;
  PetscInt  coord[TD_ROW_TERMS];
  PetscReal coef[TD_ROW_TERMS];
  PetscInt  joint;      /* owning joint, or -1 */
  PetscInt  kind;       /* 0: hold reference value b0; 1: crank x_P(t); 2, 3: spin b0 cos, b0 sin;
                           5: U . W = b0 of two vector forms (F22; a free body's
                           orthonormality a_i . a_j = delta_ij too, F21);
                           6: cos(th) U2 . W - sin(th) U1 . W = 0, a motor's turn (F23);
                           7: left out as redundant (redundancy.c): lambda = 0 */
  TdVectorForm *form[3]; /* kind 5: U and W (owned), coord holds U's terms then W's; kind 6
                            (a motor's turn row): U1, W, U2, coord holds U1's, W's, U2's terms */
  PetscBool driven;     /* kind 5: the target moves with the joint's motor (b0 + s(t)) */
  PetscReal theta[3];   /* kind 6: the motor angle and its rates at the last update */
  PetscReal b0;
} TdConstraintRow;

typedef struct _p_TdModel *TdModel;
struct _p_TdModel {
  MPI_Comm   comm;
  PetscInt   nbodies, nloads, njoints, nsensors, nfilms;
  TdFilm    *films;
  TdBody    *bodies;
  TdLoad    *loads;
  TdJoint   *joints;
  TdSensor  *sensors;
  PetscReal  gravity[3];
  /* coordinates */
  PetscInt   nnodes;       /* ANCF nodes, all bodies */
  PetscInt   nfull;        /* 12 nnodes */
  PetscInt   nfree;
  PetscInt   nfilm_unknowns;  /* film pressures, after the free coordinates in U */
  PetscInt   row_offset;      /* first constraint row in U: nfree + nfilm_unknowns */
  PetscInt  *free_index;   /* nfull: free number or -1 (clamped) */
  PetscReal *q_ref;        /* nfull: reference configuration */
  PetscInt   nrows;        /* constraint rows */
  TdConstraintRow *rows;
  /* elements of all ANCF bodies, in order */
  PetscInt   nelements;
  PetscInt  *element_body, *element_cell;
  /* a partition to take instead of the partitioner's (a restart on the checkpoint's number of
     ranks: TdModelSetPartition), or NULL */
  PetscInt  *given_element_rank;
  PetscReal  mass_per_node; /* scaling of the constraint rows */
  /* pressure loads by element: element e carries element_loads[element_load_offset[e] ..
     element_load_offset[e + 1]) (NULL when no load is a pressure) */
  PetscInt      *element_load_offset;
  TdElementLoad *element_loads;
  /* film-body coupling pattern (src/model/film_pattern.c): sorted unique keys of the element-face pairs
     (row face << 32 | column face, face = 8 element + local face) of dQ/dq, and of
     (face << 32 | pressure unknown) of dQ/dp and dF/dq; each block covers the coordinates that
     are active on the face (36 of 96 on axis-aligned cells) */
  PetscInt   ncoupling_qq, ncoupling_qp;
  PetscInt64 *coupling_qq, *coupling_qp;
  PetscCount *coupling_qq_offset, *coupling_qp_offset; /* n + 1 prefix offsets of the blocks */
  PetscBool   coupling_miss;  /* an assembly met a face pair outside the pattern */
  /* TdFilmsAssemble with a Jacobian leaves the dQ/dq blocks (coupling_qq) as they are, neither
     formed nor zeroed: the solver keeps those of an earlier iterate (-film_stiffness_lag) */
  PetscBool   film_qq_keep;
  /* On several ranks (src/solver/state_ghosts.c): whether each element's coordinates are up to
     date in the iterate the films read (NULL: all are).  A film point whose search comes to an
     element that is not sets ghost_miss and is not found; the solver then sends that rank more
     of the iterate and assembles again. */
  const char *readable_element;
  PetscBool   ghost_miss;
  PetscReal  *film_work;      /* TdFilmsAssemble's per-thread accumulators and scratch */
  size_t      film_work_size;
  PetscReal  force_scale;   /* typical force [N], for absolute tolerances */
};

PetscErrorCode TdModelCreateFromOptions(MPI_Comm comm, TdModel *model);
/* Films (src/model/film.c): read after bodies and joints; unknowns numbered from first_unknown. */
PetscErrorCode TdFilmsCreateFromOptions(TdModel model, PetscInt nfilms, char (*names)[64], PetscInt first_unknown);
PetscErrorCode TdFilmsDestroy(TdModel model);
/* Film state at t for full coordinate and velocity vectors q, v, over this rank's quads (the
   solver sums the ranks' parts: TdSolverFilmsAssemble): residual rows F = -R/scale of
   every film (written into r, indexed like U, rank-local full copy), film forces subtracted
   from rfull (the body residual; NULL: not wanted), total wall load and friction per film (3
   each, may be NULL).
   If jac is not NULL the film Jacobian values are written there in the order of
   TdFilmsCOOPattern.  Returns PETSC_FALSE in *ok if a projection failed (message in film->miss). */
PetscErrorCode TdFilmsAssemble(TdModel model, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscScalar u[], PetscReal ce, PetscReal cv, PetscReal rfull[], PetscScalar r[], PetscScalar *jac, PetscReal *load, PetscReal *friction, PetscBool *ok);
/* The film-body coupling pattern at state (t, q, v): *changed if it differs from the stored one
   (which it then replaces); the Jacobian's COO pattern must then be rebuilt.  *valid (may be
   NULL) is false if some film point misses a surface or has h <= 0 in that state. */
PetscErrorCode TdFilmsCouplingUpdate(TdModel model, PetscReal t, const PetscReal q[], const PetscReal v[], PetscBool *changed, PetscBool *valid);
/* Installs a stored coupling pattern (a restart: the keys a checkpoint saved, sorted and unique). */
PetscErrorCode TdFilmsCouplingSet(TdModel model, PetscInt nqq, const PetscInt64 qq[], PetscInt nqp, const PetscInt64 qp[]);
/* COO rows/columns of the film Jacobian entries (count first with rows = NULL): the film blocks
   dF/dp, then the coupling blocks dQ/dq, dQ/dp, dF/dq of the stored pattern, then the rigid
   pairs' blocks of each quad (F25, film_rigid.c). */
PetscErrorCode TdFilmsCOOPattern(TdModel model, PetscCount *n, PetscInt rows[], PetscInt cols[]);
/* Where the dQ/dq blocks lie among those entries: from *offset, *n of them (film_qq_keep). */
void TdFilmsStiffnessEntries(TdModel model, PetscCount *offset, PetscCount *n);
/* The film's node positions at time t: its reference surface carried by its frame (a drive's
   motion at t, or the free body carrying it at the coordinates q). */
PetscErrorCode TdFilmNodePositions(TdModel model, PetscInt film, PetscReal t, const PetscReal q[], PetscReal pos[]);
/* Nodal fields for output: pressure [Pa], h [m], asperity pressure [Pa] of film f at the nodes
   [node_start, node_end), node n in entry n - node_start (the ranks share the nodes, each writes
   its own part; the range must lie within the rank's output nodes, TdFilm's node_start and
   node_end, whose projection starts only that rank keeps), and the smallest h among them in
   *hmin.  pc may be NULL: the records between field records need only h_min and p_max, and the
   asperity pressure's closures are then skipped. */
PetscErrorCode TdFilmNodalFields(TdModel model, PetscInt f, PetscReal t, const PetscReal q[], const PetscScalar u[], PetscInt node_start, PetscInt node_end, PetscReal p[], PetscReal h[], PetscReal pc[], PetscReal *hmin);
/* JFO films: the film fraction at every node (1 on the flooded boundary, and for other films). */
void TdFilmNodalTheta(TdModel model, PetscInt f, const PetscScalar u[], PetscReal theta[]);
/* At the start of a step: the JFO films keep their film fractions of u (all unknowns) as theta_old. */
void TdFilmsStepStart(TdModel model, const PetscScalar u[]);
/* The element tables of the curved bodies' cells for the nlocal elements elem_local[] that this
   rank computes, and no others (element_tables.c); box bodies keep theirs from the set-up. */
PetscErrorCode TdModelElementTablesSetUp(TdModel model, PetscInt nlocal, const PetscInt elem_local[]);
/* The partition over the ranks (src/model/partition.c; collective): element_rank (nelements)
   the rank that computes each element, chosen by a graph partitioner over the elements' dual
   graph (options prefix -partition_, e.g. -partition_mat_partitioning_type); unknown_rank
   (row_offset + nrows) the rank that owns each unknown of U.  On one rank all are 0. */
PetscErrorCode TdModelPartition(TdModel model, PetscInt element_rank[], PetscInt unknown_rank[]);
/* Makes TdModelPartition take element_rank instead of running the partitioner (a restart on the
   checkpoint's number of ranks keeps the partition its per-rank data belong to), if it is usable:
   n = nelements entries, each a rank of the model's communicator.  *taken says whether it was;
   an unusable one leaves the partitioner to run. */
PetscErrorCode TdModelSetPartition(TdModel model, PetscInt n, const PetscInt64 element_rank[], PetscBool *taken);
PetscErrorCode TdModelDestroy(TdModel *model);
PetscErrorCode TdModelView(TdModel model, PetscViewer viewer);

/* Gathers an element's 96 coordinates from a full vector, global slopes converted to the
   cell's material axes.  positions: full holds positions (not rates), which are then taken
   relative to the element's first node (F and the internal force are translation invariant). */
void TdModelElementGather(TdModel model, PetscInt element, const PetscReal full[], PetscBool positions, PetscReal e[ANCF3843_NDOF]);
/* An element's 96 values in global slopes (a gathered direction) converted in place to the
   cell's material axes, as TdModelElementGather converts coordinates (no translation). */
void TdModelElementToLocal(TdModel model, PetscInt element, PetscReal e[ANCF3843_NDOF]);
/* Rotates element forces/matrices from the cell's material axes back to global slopes. */
void TdModelElementRotateForce(TdModel model, PetscInt element, PetscReal Q[ANCF3843_NDOF]);
void TdModelElementRotateMatrix(TdModel model, PetscInt element, PetscReal K[ANCF3843_NDOF * ANCF3843_NDOF], PetscReal work[ANCF3843_NDOF * ANCF3843_NDOF]);
void TdModelElementCoordinates(TdModel model, PetscInt element, PetscInt coord[ANCF3843_NDOF]);

/* Locates the material point X of body b; errors name the option (what) if X is outside. */
PetscErrorCode TdModelMaterialPoint(TdModel model, PetscInt body, const PetscReal X[3], const char what[], TdMaterialPoint *mp);
/* r = sum S_k q_k at a material point of an ANCF body (q a full vector), or the rigid pose. */
void TdModelPointValue(TdModel model, const TdMaterialPoint *mp, const PetscReal full[], PetscReal r[3]);
/* The full coordinates of the ANCF3843_NDOF x ANCF3843_NDOF block coupling material points a
   (rows) and b (columns), row-major: the pattern of a force element between two points. */
void TdModelPointBlockPattern(const TdMaterialPoint *a, const TdMaterialPoint *b, PetscInt ci[], PetscInt cj[]);
/* Rigid body pose: position and velocity of material point X at time t. */
void TdRigidBodyPoint(const TdBody *body, const PetscReal X[3], PetscReal t, PetscReal x[3], PetscReal v[3]);
/* Rigid body: the velocity of the material point that is at spatial position x at time t. */
void TdRigidBodyVelocityAt(const TdBody *body, const PetscReal x[3], PetscReal t, PetscReal v[3]);

/* Load vector of point load l at time t (formulation.md F1 point loads): force [N]. */
void TdLoadForce(const TdLoad *load, PetscReal t, PetscReal f[3]);
/* Pressure of pressure load l at time t [Pa] (F16). */
PetscReal TdLoadPressure(const TdLoad *load, PetscReal t);
/* Prescribed value of constraint row r and its first and second time derivatives. */
void TdConstraintTarget(TdModel model, PetscInt r, PetscReal t, PetscReal *b, PetscReal *bdot, PetscReal *bddot);
/* Crank-slider kinematics x_P(t) relative to the crank centre (formulation.md §4). */
void TdCrankSlider(const TdJoint *joint, PetscReal t, PetscReal *x, PetscReal *xdot, PetscReal *xddot);
/* Kind-5 and kind-6 rows (F21-F23): their coefficients dPhi/dq at the full coordinates q (nterms
   of them); other rows: row->coef. */
void TdConstraintRowCoefficients(const TdConstraintRow *row, const PetscReal q[], PetscReal coef[]);
/* Free rigid body (F21): the position of material point X (reference coordinates) in the full
   coordinates q. */
void TdFreeBodyPoint(const TdBody *body, const PetscReal q[], const PetscReal X[3], PetscReal x[3]);
/* Kind-5 rows (F22): the two forms' values at q (full coordinates), without the constants when
   q holds rates (rates = PETSC_TRUE); the Hessian entries lambda d^2Phi/dq^2: their count, their
   full-coordinate rows and columns, and their values times scale, in one order. */
void       TdRowFormValues(const TdConstraintRow *row, const PetscReal q[], PetscBool rates, PetscReal U[3], PetscReal W[3]);
void       TdRowFormValue(const TdVectorForm *f, const PetscReal q[], PetscBool rates, PetscReal V[3]);
PetscCount TdRowHessianEntries(const TdConstraintRow *row);
void       TdRowHessianPattern(const TdConstraintRow *row, PetscInt ci[], PetscInt cj[]);
void       TdRowHessianValues(const TdConstraintRow *row, PetscReal scale, PetscReal v[]);
/* Ideal joints (F22): the reaction force and moment on the first body and, for a revolute, the
   relative angle (unwrapped from the joint's last value) at the coordinates q with the
   multipliers lambda (physical units). */
void TdJointIdealOutput(TdModel model, PetscInt j, const PetscReal q[], const PetscReal lambda[], PetscReal force[3], PetscReal moment[3], PetscReal *angle);
/* Clearance joints (F24; joint_clearance.c): the approach speeds latched at the start of a step
   from its starting state; the contact's generalised forces added as -Q to rf at (q, v) (v NULL:
   at rest, a static solve); their Jacobian
   blocks (count, full-coordinate pattern, values ce d(-Q)/dq + cv d(-Q)/dv in the pattern's
   order); the force and moment on the pin's body and the contact state for the output. */
void       TdJointsStepStart(TdModel model, const PetscReal q[], const PetscReal v[]);
void       TdJointsClearanceResidual(TdModel model, const PetscReal q[], const PetscReal v[], PetscReal rf[]);
PetscCount TdJointsClearanceEntries(TdModel model);
void       TdJointsClearancePattern(TdModel model, PetscInt ci[], PetscInt cj[]);
void       TdJointsClearanceValues(TdModel model, const PetscReal q[], const PetscReal v[], PetscReal ce, PetscReal cv, PetscScalar vals[]);
void       TdJointClearanceOutput(TdModel model, PetscInt j, const PetscReal q[], const PetscReal v[], PetscReal force[3], PetscReal moment[3], ClearanceContactState *st);
/* Joint motors (F23): the driven quantity's value, rate and second rate at t (an angle or a
   position: V f, V f', V f'' for angle and position motors, V int f, V f, V f' for speed motors),
   and the rows' time-dependent parts updated to t (call before a residual or Jacobian). */
void TdJointMotorTarget(const TdJoint *joint, PetscReal t, PetscReal v[3]);
void TdJointsUpdate(TdModel model, PetscReal t);
/* Spin drive angle about its axis and its rates at t (F20). */
void TdSpinAngle(const TdJoint *joint, PetscReal t, PetscReal *theta, PetscReal *thetadot, PetscReal *thetaddot);

#endif
