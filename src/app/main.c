/*
  tribodyn: tribo-dynamics of lubricated clearance joints in flexible multibody systems.

  Everything is set through the PETSc options database (src/docs/interface.md):
  the command line, -options_file FILE, -options_file_yaml FILE, PETSC_OPTIONS.
*/
#include <tribodyn/model.h>
#include <tribodyn/options.h>
#include <tribodyn/output.h>
#include <tribodyn/solver.h>
#include <tribodyn/thread_governor.h>
#include <petscdm.h>
#include <petscsf.h>
#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <strings.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

static const char help[] = "tribodyn: flexible multibody dynamics with ANCF 3843 solid elements, generalised-alpha\n"
                           "time stepping and one PETSc SNES per step (formulation.md).\n"
                           "Usage: tribodyn -options_file case.opts [-option value ...]\n\n";

/* The options of every body, load, joint and sensor, documented once with <b>, <l>, <j>, <s>
   standing for the names given in -bodies, -loads, -joints, -sensors. */
static const char option_reference[] =
  "Run control\n"
  "  -output <tribodyn.h5>: result file (HDF5; an .xdmf beside it for ParaView)\n"
  "  -t_final <0.01>: end time [s]\n"
  "  -dt <1e-4>: time step [s]\n"
  "  -output_dt <dt>: interval between output records (sensors, energies, reactions, film loads, h_min, p_max, solver counters) [s]\n"
  "  -output_fields_dt <max(1e-3, output_dt)>: interval between field records (node positions, film pressure, h, asperity pressure) [s]; 0: every record\n"
  "  -output_flush_interval <5>: wall time between flushes of the result file [s]; a killed run keeps the records up to the last flush\n"
  "  -checkpoint_dt <0>: write the whole state under /checkpoint every DT of simulated time [s] (0: only on SIGTERM)\n"
  "  -restart <none>: FILE.h5: continue that run from its last checkpoint with its stored options (options given here override them)\n"
  "  SIGTERM: checkpoint after the current step, status 'interrupted', exit code 75\n"
  "  -rho_inf <0.9>: generalised-alpha spectral radius at infinite frequency, in [0, 1]\n"
  "  -static <false>: solve static equilibrium instead (loads and gravity ramped)\n"
  "  -load_steps <10>: load steps of a static solve\n"
  "  -max_step_halvings <6>: halvings of a failed step before the run stops\n"
  "  -progress <true>: print a progress line every 5 % of the run, with the time left at the mean rate so far\n"
  "  -dry_run <false>: read and check every option and build the model, then exit (nothing written)\n"
  "  -test_jacobian <0>: check the first N Newton Jacobians against central differences\n"
  "  -test_jacobian_time <0>: ... starting with the first step that ends after this time [s]\n"
  "  -gravity <0,0,0>: gravity gx,gy,gz [m/s^2]\n"
  "Bodies (-bodies a,b; <b> is a body name)\n"
  "  -<b>_type <ancf>: ancf (flexible, ANCF 3843) or rigid\n"
  "  -<b>_motion <prescribed>: rigid: prescribed (the options below) or free (its own unknowns: a point and three axes, formulation (F21))\n"
  "  -<b>_mass <from the geometry> [kg], -<b>_inertia Ixx,Iyy,Izz[,Iyz,Ixz,Ixy] [kg m^2], -<b>_com x,y,z [m]: free rigid: mass properties about the centre of mass (default: geometry and -<b>_rho)\n"
  "  -<b>_initial_angular_velocity <0,0,0>: free rigid: initial angular velocity [rad/s]\n"
  "  -<b>_box <none>: box x0,y0,z0,x1,y1,z1 [m]\n"
  "  -<b>_cells <1,1,1>: structured hexahedra nx,ny,nz of the box\n"
  "  -<b>_mesh <none>: .msh or .geo file instead of a box; 2-D physical groups name faces\n"
  "  -<b>_E <2.1e11>: Young's modulus [Pa]\n"
  "  -<b>_nu <0.3>: Poisson's ratio, in (-1, 0.5)\n"
  "  -<b>_rho <7800>: density [kg/m^3]\n"
  "  -<b>_damping <0>: strain-rate damping beta_d (formulation F5) [s]\n"
  "  -<b>_clamp <none>: faces held fixed: xmin,xmax,ymin,ymax,zmin,zmax (boxes) or group names\n"
  "  -<b>_clamp_slopes <face>: face (positions and in-face slopes held, the continuum clamp) or all\n"
  "  -<b>_initial_velocity <0,0,0>: ancf: uniform initial velocity; free rigid: of its centre of mass [m/s]\n"
  "  -<b>_velocity <0,0,0>: rigid: constant velocity [m/s]\n"
  "  -<b>_rotation <0,0,0>: rigid: initial rotation about x, y, z [deg]\n"
  "  -<b>_angular_velocity <0,0,0>: rigid: constant angular velocity [rad/s]\n"
  "  -<b>_center <centroid>: rigid: centre of rotation [m]\n"
  "  -<b>_oscillation <none>: rigid: harmonic displacement a sin(2 pi f t + phase) added to the motion: ax,ay,az [m], f [Hz][, phase [deg]]\n"
  "Loads (-loads a,b)\n"
  "  -<l>_type <point>: point (a force at a material point), pressure (a follower pressure on a face), spring (a spring-damper between two points), torque (a moment at a material point) or traction (a force per reference area on a face, fixed in direction)\n"
  "  -<l>_body, -<l>_point x,y,z [m]: point, spring, torque: body and material point (reference coordinates; a spring's first end)\n"
  "  -<l>_force <0,0,0>: point: force [N] (its peak for a pulse)\n"
  "  -<l>_traction <0,0,0>: traction: force per unit reference area [Pa] on -<l>_face (a dead load; its peak for a pulse)\n"
  "  -<l>_torque <0,0,0>: torque: moment about the global axes [N m] (its peak for a pulse)\n"
  "  -<l>_face <none>: pressure, traction: the face body:face (box faces xmin..zmax, or a mesh's 2-D physical group)\n"
  "  -<l>_pressure <0>: pressure: pressure [Pa] pushing against the face's outward normal, following the deformed face (its peak for a pulse)\n"
  "  -<l>_body2 <ground>, -<l>_point2 x,y,z [m]: spring: body of the second end (or ground) and its point (reference coordinates, or fixed in space)\n"
  "  -<l>_stiffness <0> [N/m], -<l>_damping <0> [N s/m]: spring: k and c (F = k (l - l0) + c dl/dt, tension positive)\n"
  "  -<l>_length <reference distance>: spring: rest length l0 [m]\n"
  "  -<l>_profile <constant>: constant|ramp|halfsine|table|harmonic\n"
  "  -<l>_start <0>, -<l>_duration <0>: ramp or pulse timing [s] (harmonic: its linear ramp-in)\n"
  "  -<l>_frequency <0> [Hz], -<l>_phase <0> [deg]: harmonic: sin(2 pi f (t - start) + phase)\n"
  "  -<l>_table <none>: CSV time [s], force [N] (scales the direction of -<l>_force or -<l>_torque) or pressure [Pa]\n"
  "Joints (-joints a,b)\n"
  "  -<j>_type <point>: point (hold components of a material point), crank_slider (drive), spin (turn a body about a fixed axis),\n"
  "   or an ideal joint between two bodies (F22): spherical, revolute, universal, fixed, distance, cylindrical, prismatic, inline (point on the axis line of A)\n"
  "  -<j>_bodies A,B: ideal joint: the two bodies (ground for the fixed frame; reactions are those on A); -<j>_point x,y,z [m];\n"
  "   -<j>_axis <0,0,1>: revolute, universal (the axis on A), fixed, cylindrical, prismatic, inline; -<j>_point2 x,y,z [m]: distance: the point on B\n"
  "  -<j>_motor <none>: revolute: angle [rad], speed [rad/s] or torque [N m]; prismatic: position [m], speed [m/s] or force [N] (F23)\n"
  "  -<j>_motor_value <1>: V, the driven quantity being V f(t) (speed motors: V int f); -<j>_motor_profile <constant>: constant|ramp|table\n"
  "  -<j>_motor_start <0>, -<j>_motor_duration <0> [s]: ramp timing; -<j>_motor_table FILE.csv: time [s], f\n"
  "  -<j>_body, -<j>_point x,y,z [m]; -<j>_components <x,y,z> (point)\n"
  "  -<j>_crank_radius <0.1> [m], -<j>_rod_ratio <0.64>, -<j>_rpm <60> [r/min], -<j>_theta0 <90> [deg], -<j>_offset <0> [m] (crank_slider)\n"
  "  -<j>_axis <0,0,1>, -<j>_rpm <60> [r/min], -<j>_ramp <a quarter turn's time> [s] (spin: speed ramped from rest; translation and tilt stay free)\n"
  "Sensors (-sensors a,b)\n"
  "  -<s>_body, -<s>_point x,y,z [m]: body and material point; records position, displacement,\n"
  "   velocity and acceleration\n"
  "Films (-films a; <f> is a film name)\n"
  "  -<f>_model <reynolds>: reynolds (average Reynolds, mixed lubrication) or dry (Lankarani-Nikravesh)\n"
  "  -<f>_wall, -<f>_base <none>: the bounding surfaces body:face (normal from the wall to the base)\n"
  "  -<f>_cells <20,20>: quads on the wall face's footprint; -<f>_surface FILE: a Gmsh quad surface instead\n"
  "  -<f>_noflux <none>: zero-flux edges of the default surface (xmin,xmax,ymin,ymax)\n"
  "  -<f>_frame <static>: static, or a crank_slider joint carrying the film\n"
  "  -<f>_mu <0.045> [Pa s], -<f>_density <889> [kg/m^3], -<f>_p_ref <1e6> [Pa], -<f>_h_ref <mean h0> [m]\n"
  "  -<f>_sigma_wall, -<f>_sigma_base <0> [m], -<f>_gamma <1>: roughness and Patir-Cheng pattern\n"
  "  -<f>_gt_K <0.003>, -<f>_mu_asperity <0.1>, -<f>_v_eps <1e-3> [m/s]: asperity contact and friction\n"
  "  -<f>_cavitation <none>: none, swift_stieber, or jfo (mass-conserving: a film fraction per node, /films/<f>/film_fraction); -<f>_p_cav <0> [Pa, gauge]\n"
  "  -<f>_theta0 <none>: jfo: film fraction at the start off the ambient edges, in (0, 1] (below 1: a starved film); default: the quasi-steady fractions of the initial-acceleration solve, from a full film\n"
  "  -jfo_refactor_rows <8>: JFO films: film-fraction rows that may change branch before the kept LU is factored anew\n"
  "  -<f>_Kg <70e6>, -<f>_eta <50e7>, -<f>_n <1.5>, -<f>_mu_dry <0.15>, -<f>_dry_eps <1e-8> [m]: dry model\n"
  "  -<f>_{wall,base}_profile <none>: crown|chamfer|table, with _profile_center, _axis, _amplitude,\n"
  "   _half_length, _width [m], _table FILE\n"
  "Rigid cylinder: -<b>_type rigid -<b>_cylinder x0,y0,z0,x1,y1,z1,R [m] (face 'surface')\n"
  "Solver: every PETSc -snes_*, -ksp_*, -pc_* option; default Newton (full steps), GMRES with the MUMPS LU\n"
  "  of an earlier Jacobian, renewed when GMRES needs more than -refactor_its <12> iterations\n"
  "  (0: factor every Jacobian); Swift-Stieber cavitation by semismooth Newton (-snes_type vinewtonrsls: VI);\n"
  "  -pc_type fieldsplit splits into bodies, films, drives; -monitor_blocks prints the residual blocks;\n"
  "  -test_jacobian N checks N Jacobians by central differences, block by block.\n"
  "  One rank: the kept LU in single precision, -pc_factor_mat_solver_type mumps_single (a preconditioner;\n"
  "  -mat_mumps_single_ordering <amd>, _icntl_14 <30>, _cntl_1 <0.01>); mumps: the double LU\n"
  "Options read for the named objects follow.\n\n";

#define TD_FILM_SERIES 9
typedef struct {
  PetscInt  sensor0, energy_k, energy_s, joint0, newton, linear, wall;
  PetscInt *body;   /* nbodies: position series, -1 for bodies without cells */
  PetscInt *jmoment, *jangle; /* njoints: ideal joints' moment and (revolute) angle series, else -1 */
  PetscInt *jecc;             /* njoints: clearance joints' eccentricity series (penetration the next), else -1 */
  PetscInt *frame;  /* nbodies: free rigid bodies' coordinates [r, a1, a2, a3] (12), else -1 */
  PetscInt *film;   /* TD_FILM_SERIES per film: pressure, h, asperity pressure (field series), load,
                       friction, h_min, position (field series, -1: static frame), p_max,
                       film_fraction (field series, JFO films; else -1) */
} SeriesIds;

static PetscErrorCode SetupOutput(TdModel m, TdOutput out, SeriesIds *ids)
{
  char name[PETSC_MAX_PATH_LEN];
  PetscFunctionBegin;
  ids->sensor0 = -1;
  for (PetscInt s = 0; s < m->nsensors; s++) {
    const char *q[] = {"position", "displacement", "velocity", "acceleration"};
    for (PetscInt k = 0; k < 4; k++) {
      PetscInt id;
      PetscCall(PetscSNPrintf(name, sizeof name, "/sensors/%s/%s", m->sensors[s].name, q[k]));
      PetscCall(TdOutputAddSeries(out, name, 3, &id));
      if (s == 0 && k == 0) ids->sensor0 = id;
    }
    PetscCall(PetscSNPrintf(name, sizeof name, "/sensors/%s/reference_point", m->sensors[s].name));
    PetscCall(TdOutputWriteReal(out, name, 1, 3, m->sensors[s].point.X));
  }
  PetscCall(TdOutputAddSeries(out, "/energy/kinetic", 1, &ids->energy_k));
  PetscCall(TdOutputAddSeries(out, "/energy/strain", 1, &ids->energy_s));
  ids->joint0 = -1;
  for (PetscInt j = 0; j < m->njoints; j++) {
    PetscInt id;
    PetscCall(PetscSNPrintf(name, sizeof name, "/joints/%s/reaction", m->joints[j].name));
    PetscCall(TdOutputAddSeries(out, name, 3, &id));
    if (j == 0) ids->joint0 = id;
  }
  PetscCall(PetscMalloc3(PetscMax(m->njoints, 1), &ids->jmoment, PetscMax(m->njoints, 1), &ids->jangle, PetscMax(m->njoints, 1), &ids->jecc));
  for (PetscInt j = 0; j < m->njoints; j++) {
    ids->jmoment[j] = ids->jangle[j] = ids->jecc[j] = -1;
    if (m->joints[j].type < TD_JOINT_SPHERICAL) continue;
    PetscCall(PetscSNPrintf(name, sizeof name, "/joints/%s/moment", m->joints[j].name));
    PetscCall(TdOutputAddSeries(out, name, 3, &ids->jmoment[j]));
    if (m->joints[j].type == TD_JOINT_CLEARANCE) {
      PetscInt id;
      PetscCall(PetscSNPrintf(name, sizeof name, "/joints/%s/eccentricity", m->joints[j].name));
      PetscCall(TdOutputAddSeries(out, name, 3, &ids->jecc[j]));
      PetscCall(PetscSNPrintf(name, sizeof name, "/joints/%s/penetration", m->joints[j].name));
      PetscCall(TdOutputAddSeries(out, name, 1, &id));
      PetscCheck(id == ids->jecc[j] + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "output series of joint '%s' are not consecutive", m->joints[j].name);
      continue;
    }
    if (m->joints[j].type != TD_JOINT_REVOLUTE) continue;
    PetscCall(PetscSNPrintf(name, sizeof name, "/joints/%s/angle", m->joints[j].name));
    PetscCall(TdOutputAddSeries(out, name, 1, &ids->jangle[j]));
  }
  PetscCall(TdOutputAddSeries(out, "/solver/newton_iterations", 1, &ids->newton));
  PetscCall(TdOutputAddSeries(out, "/solver/linear_iterations", 1, &ids->linear));
  PetscCall(TdOutputAddSeries(out, "/solver/wall_time", 1, &ids->wall));
  PetscCall(PetscMalloc1(PetscMax(m->nbodies, 1), &ids->body));
  PetscCall(PetscMalloc1(PetscMax(m->nbodies, 1), &ids->frame));
  for (PetscInt b = 0; b < m->nbodies; b++) {
    const TdBody *body = &m->bodies[b];
    ids->body[b]       = -1;
    ids->frame[b]      = -1;
    if (body->type == TD_BODY_FREE) { /* its centre of mass and axes, every record (F21) */
      PetscCall(PetscSNPrintf(name, sizeof name, "/bodies/%s/frame", body->name));
      PetscCall(TdOutputAddSeries(out, name, 12, &ids->frame[b]));
      PetscCall(PetscSNPrintf(name, sizeof name, "/bodies/%s/center_of_mass", body->name));
      PetscCall(TdOutputWriteReal(out, name, 1, 3, body->com));
    }
    if (body->mesh.ncells) PetscCall(TdOutputAddHexBody(out, body->name, body->mesh.nnodes, body->mesh.X, body->mesh.ncells, body->mesh.cells, &ids->body[b]));
  }
  PetscCall(PetscMalloc1(TD_FILM_SERIES * PetscMax(m->nfilms, 1), &ids->film));
  for (PetscInt f = 0; f < m->nfilms; f++) {
    const TdFilm *film = &m->films[f];
    const char   *fields[3] = {"pressure", "h", "asperity_pressure"};
    ids->film[TD_FILM_SERIES * f + 6] = -1;
    PetscCall(TdOutputAddQuadSurface(out, film->name, film->surface.nnodes, film->surface.X, film->surface.nquads, film->surface.quads, film->frame_joint >= 0 || (film->rigid_pair && film->pair.frame >= 0) ? &ids->film[TD_FILM_SERIES * f + 6] : NULL));
    for (PetscInt k = 0; k < 3; k++) {
      PetscCall(PetscSNPrintf(name, sizeof name, "/films/%s/%s", film->name, fields[k]));
      PetscCall(TdOutputAddFieldSeries(out, name, film->surface.nnodes, &ids->film[TD_FILM_SERIES * f + k]));
      PetscCall(TdOutputAddSurfaceField(out, film->name, fields[k], ids->film[TD_FILM_SERIES * f + k]));
    }
    PetscCall(PetscSNPrintf(name, sizeof name, "/films/%s/load", film->name));
    PetscCall(TdOutputAddSeries(out, name, 3, &ids->film[TD_FILM_SERIES * f + 3]));
    PetscCall(PetscSNPrintf(name, sizeof name, "/films/%s/friction", film->name));
    PetscCall(TdOutputAddSeries(out, name, 3, &ids->film[TD_FILM_SERIES * f + 4]));
    PetscCall(PetscSNPrintf(name, sizeof name, "/films/%s/h_min", film->name));
    PetscCall(TdOutputAddSeries(out, name, 1, &ids->film[TD_FILM_SERIES * f + 5]));
    PetscCall(PetscSNPrintf(name, sizeof name, "/films/%s/p_max", film->name));
    PetscCall(TdOutputAddSeries(out, name, 1, &ids->film[TD_FILM_SERIES * f + 7]));
    ids->film[TD_FILM_SERIES * f + 8] = -1;
    if (film->cavitation == TD_CAVITATION_JFO) {
      PetscCall(PetscSNPrintf(name, sizeof name, "/films/%s/film_fraction", film->name));
      PetscCall(TdOutputAddFieldSeries(out, name, film->surface.nnodes, &ids->film[TD_FILM_SERIES * f + 8]));
      PetscCall(TdOutputAddSurfaceField(out, film->name, "film_fraction", ids->film[TD_FILM_SERIES * f + 8]));
    }
  }
  PetscFunctionReturn(0);
}

/* Ids are handed out in creation order, so the k-th series of a group is first + k. */
static PetscLogEvent TD_Output;

/* A record at time t (sensors, energies, reactions, film integrals, solver counters); with
   fields, also a field record (node positions, film fields). */
static PetscErrorCode WriteRecord(TdSolver s, TdOutput out, const SeriesIds *ids, PetscLogDouble wall0, PetscReal t, PetscBool fields)
{
  TdModel        m = s->model;
  PetscReal      ek, es, row[3];
  PetscLogDouble now;
  PetscReal     *pos;
  PetscInt       maxn = 1;
  PetscBool      at_residual; /* this state is the last residual's: its energies and films' loads serve */
  PetscFunctionBegin;
  if (!TD_Output) {
    PetscClassId id;
    PetscCall(PetscClassIdRegister("tribodyn output", &id));
    PetscCall(PetscLogEventRegister("TdOutput", id, &TD_Output));
  }
  PetscCall(PetscLogEventBegin(TD_Output, 0, 0, 0, 0));
  for (PetscInt s_ = 0; s_ < m->nsensors; s_++) {
    const TdMaterialPoint *mp   = &m->sensors[s_].point;
    const TdBody          *body = &m->bodies[mp->body];
    PetscReal              x[3], d[3], v[3], a[3];
    if (body->type != TD_BODY_RIGID) { /* coordinates: ancf and free rigid bodies */
      TdModelPointValue(m, mp, s->q, x);
      TdModelPointValue(m, mp, s->v, v);
      TdModelPointValue(m, mp, s->qdd, a);
    } else {
      /* rigid: the prescribed motion; its acceleration by a central difference of the velocity */
      PetscReal xp[3], vp[3], xm[3], vm[3], h = 1e-6;
      TdRigidBodyPoint(body, mp->X, t, x, v);
      TdRigidBodyPoint(body, mp->X, t + h, xp, vp);
      TdRigidBodyPoint(body, mp->X, t - h, xm, vm);
      for (PetscInt i = 0; i < 3; i++) a[i] = (vp[i] - vm[i]) / (2 * h);
    }
    for (PetscInt i = 0; i < 3; i++) d[i] = x[i] - mp->X[i];
    PetscCall(TdOutputSetSeries(out, ids->sensor0 + 4 * s_ + 0, x));
    PetscCall(TdOutputSetSeries(out, ids->sensor0 + 4 * s_ + 1, d));
    PetscCall(TdOutputSetSeries(out, ids->sensor0 + 4 * s_ + 2, v));
    PetscCall(TdOutputSetSeries(out, ids->sensor0 + 4 * s_ + 3, a));
  }
  PetscCall(TdSolverAtLastResidual(s, t, &at_residual));
  PetscCall(TdSolverEnergy(s, at_residual, &ek, &es));
  PetscCall(TdOutputSetSeries(out, ids->energy_k, &ek));
  PetscCall(TdOutputSetSeries(out, ids->energy_s, &es));
  for (PetscInt b = 0; b < m->nbodies; b++)
    if (ids->frame[b] >= 0) PetscCall(TdOutputSetSeries(out, ids->frame[b], &s->q[TD_NODE_DOF * m->bodies[b].node_offset]));
  for (PetscInt j = 0; j < m->njoints; j++) {
    PetscReal             mom[3], ang;
    ClearanceContactState st;
    TdSolverJointOutput(s, j, row, mom, ids->jangle[j] >= 0 ? &ang : NULL, &st);
    PetscCall(TdOutputSetSeries(out, ids->joint0 + j, row));
    if (ids->jmoment[j] >= 0) PetscCall(TdOutputSetSeries(out, ids->jmoment[j], mom)); /* ideal (F22) and clearance joints (F24) */
    if (ids->jangle[j] >= 0) PetscCall(TdOutputSetSeries(out, ids->jangle[j], &ang));
    if (ids->jecc[j] >= 0) { /* clearance joints: e and delta */
      PetscCall(TdOutputSetSeries(out, ids->jecc[j], st.eccentricity));
      PetscCall(TdOutputSetSeries(out, ids->jecc[j] + 1, &st.delta));
    }
  }
  row[0] = (PetscReal)s->newton_its;
  PetscCall(TdOutputSetSeries(out, ids->newton, row));
  row[0] = (PetscReal)s->linear_its;
  PetscCall(TdOutputSetSeries(out, ids->linear, row));
  s->newton_its = s->linear_its = 0;
  PetscCall(PetscTime(&now));
  row[0] = (PetscReal)(now - wall0);
  PetscCall(TdOutputSetSeries(out, ids->wall, row));
  /* a field record's node positions: each rank its part of each body's nodes, their positions
     from their owners (state_ghosts.c), written by the ranks together */
  if (fields) PetscCall(TdSolverPositionsFromOwners(s));
  for (PetscInt b = 0; b < m->nbodies; b++) maxn = PetscMax(maxn, m->bodies[b].mesh.nnodes);
  PetscCall(PetscMalloc1(3 * maxn, &pos));
  for (PetscInt b = 0; b < m->nbodies && fields; b++) {
    const TdBody *body = &m->bodies[b];
    PetscInt      n0, n1;
    if (ids->body[b] < 0) continue;
    PetscCall(TdOutputSeriesPartRange(out, ids->body[b], &n0, &n1));
    for (PetscInt n = n0; n < n1; n++) {
      PetscReal *x = &pos[3 * (n - n0)];
      if (body->type == TD_BODY_ANCF)
        for (PetscInt i = 0; i < 3; i++) x[i] = s->q[TD_NODE_DOF * (body->node_offset + n) + i];
      else if (body->type == TD_BODY_FREE) TdFreeBodyPoint(body, s->q, &body->mesh.X[3 * n], x);
      else TdRigidBodyPoint(body, &body->mesh.X[3 * n], t, x, NULL);
    }
    PetscCall(TdOutputSetSeriesPart(out, ids->body[b], n0, n1 - n0, pos));
  }
  PetscCall(PetscFree(pos));
  if (m->nfilms) {
    const PetscScalar *u;
    PetscReal         *load, *friction;
    PetscBool          ok;
    PetscMPIInt        rank;
    PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
    PetscCall(PetscMalloc2(3 * m->nfilms, &load, 3 * m->nfilms, &friction));
    /* each rank's ghost set holds what its quads and its nodes of the film fields read */
    PetscCall(TdSolverIterateScatter(s, s->U, PETSC_FALSE));
    PetscCall(VecGetArrayRead(s->Useq, &u));
    {
      /* the films' loads of the last residual (summed over the ranks); if that was this state
         (the end of a converged step) on every rank's ghost set, they are this record's, else
         the films are evaluated here */
      if (at_residual && s->film_load_ok) {
        PetscCall(PetscArraycpy(load, s->film_load, 3 * m->nfilms));
        PetscCall(PetscArraycpy(friction, s->film_friction, 3 * m->nfilms));
        ok = PETSC_TRUE;
      } else {
        PetscCall(PetscArrayzero(s->film_r, s->N));
        PetscCall(TdSolverFilmsAssemble(s, t, s->q, s->v, u, 0, 0, NULL, s->film_r, NULL, load, friction, &ok));
      }
    }
    if (!ok)
      for (PetscInt f = 0; f < m->nfilms; f++)
        if (m->films[f].miss[0]) SETERRQ(s->comm, PETSC_ERR_USER_INPUT, "%s (a film whose surfaces are prescribed cannot recover: keep the reference surface under both faces, or carry it with -%s_frame)", m->films[f].miss, m->films[f].name);
    for (PetscInt f = 0; f < m->nfilms; f++) {
      const TdFilm *film = &m->films[f];
      PetscReal    *p, *h, *pc, *theta, hmin, pmax = PETSC_MIN_REAL;
      PetscInt      n0, n1;
      /* the ranks share the nodes' projections: each its contiguous range [n0, n1), whose
         fields it writes itself (TdOutputSetSeriesPart); rank 0 gets h_min and p_max */
      PetscCall(TdOutputSeriesPartRange(out, ids->film[TD_FILM_SERIES * f + 0], &n0, &n1));
      PetscCall(PetscCalloc3(n1 - n0 + 1, &p, n1 - n0 + 1, &h, n1 - n0 + 1, &pc));
      m->ghost_miss = PETSC_FALSE;
      PetscCall(TdFilmNodalFields(m, f, t, s->q, u, n0, n1, p, h, fields ? pc : NULL, &hmin));
      {
        /* a node's search came to a face outside some rank's ghost set: the whole iterate and
           state, and the fields again (every rank, since the scatters are collective) */
        PetscBool miss = m->ghost_miss;
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &miss, 1, MPIU_BOOL, MPI_LOR, s->comm));
        if (miss) {
          PetscCall(PetscInfo(NULL, "film %s: a node's projection left a ghost set at t = %g s; its fields from the whole state\n", film->name, (double)t));
          PetscCall(VecRestoreArrayRead(s->Useq, &u));
          PetscCall(TdSolverIterateScatter(s, s->U, PETSC_TRUE));
          PetscCall(TdSolverStateFromOwners(s, PETSC_TRUE));
          PetscCall(VecGetArrayRead(s->Useq, &u));
          m->ghost_miss = PETSC_FALSE;
          PetscCall(TdFilmNodalFields(m, f, t, s->q, u, n0, n1, p, h, fields ? pc : NULL, &hmin));
          s->ghost_whole_records++;
        }
      }
      for (PetscInt k = 0; k < n1 - n0; k++) pmax = PetscMax(pmax, p[k]);
      PetscCallMPI(MPI_Reduce(rank ? &hmin : MPI_IN_PLACE, &hmin, 1, MPIU_REAL, MPI_MIN, 0, s->comm));
      PetscCallMPI(MPI_Reduce(rank ? &pmax : MPI_IN_PLACE, &pmax, 1, MPIU_REAL, MPI_MAX, 0, s->comm));
      if (fields) {
        PetscCall(TdOutputSetSeriesPart(out, ids->film[TD_FILM_SERIES * f + 0], n0, n1 - n0, p));
        PetscCall(TdOutputSetSeriesPart(out, ids->film[TD_FILM_SERIES * f + 1], n0, n1 - n0, h));
        PetscCall(TdOutputSetSeriesPart(out, ids->film[TD_FILM_SERIES * f + 2], n0, n1 - n0, pc));
        if (ids->film[TD_FILM_SERIES * f + 8] >= 0) {
          /* the film fractions are unknowns, those of this rank's nodes in its ghost set (the
             others' entries of u are older, and not written) */
          PetscCall(PetscMalloc1(film->surface.nnodes, &theta));
          TdFilmNodalTheta(m, f, u, theta);
          PetscCall(TdOutputSetSeriesPart(out, ids->film[TD_FILM_SERIES * f + 8], n0, n1 - n0, &theta[n0]));
          PetscCall(PetscFree(theta));
        }
      }
      PetscCall(TdOutputSetSeries(out, ids->film[TD_FILM_SERIES * f + 7], &pmax));
      PetscCall(TdOutputSetSeries(out, ids->film[TD_FILM_SERIES * f + 3], &load[3 * f]));
      PetscCall(TdOutputSetSeries(out, ids->film[TD_FILM_SERIES * f + 4], &friction[3 * f]));
      PetscCall(TdOutputSetSeries(out, ids->film[TD_FILM_SERIES * f + 5], &hmin));
      if (fields && ids->film[TD_FILM_SERIES * f + 6] >= 0) {
        PetscReal *pos;
        PetscCall(PetscMalloc1(3 * film->surface.nnodes, &pos));
        PetscCall(TdFilmNodePositions(m, f, t, s->q, pos));
        PetscCall(TdOutputSetSeries(out, ids->film[TD_FILM_SERIES * f + 6], pos));
        PetscCall(PetscFree(pos));
      }
      PetscCall(PetscFree3(p, h, pc));
    }
    PetscCall(VecRestoreArrayRead(s->Useq, &u));
    PetscCall(PetscFree2(load, friction));
  }
  PetscCall(TdOutputAppendRecord(out, t));
  if (fields) PetscCall(TdOutputAppendFieldRecord(out, t));
  PetscCall(PetscLogEventEnd(TD_Output, 0, 0, 0, 0));
  PetscFunctionReturn(0);
}

typedef struct {
  char      output[PETSC_MAX_PATH_LEN];
  char      restart[PETSC_MAX_PATH_LEN]; /* -restart FILE, or empty */
  PetscReal t_final, dt, output_dt, output_fields_dt, checkpoint_dt, flush_interval;
  PetscBool is_static, progress, dry_run;
  PetscInt  load_steps;
  TdThreadGovernor threads; /* its options; Run keeps its own copy of the state */
} RunControl;

/* The exit code of a run stopped by SIGTERM after writing its checkpoint (BSD's EX_TEMPFAIL:
   "try again later"; tools/sweep and batch scripts continue such a run with -restart). */
#define TD_EXIT_INTERRUPTED 75

static volatile sig_atomic_t td_sigterm = 0;
static void OnSigterm(int sig)
{
  (void)sig;
  td_sigterm = 1;
}

/* The run loop's own state, which a checkpoint keeps (the "run" array) so that a restart lands
   on the same output, field and checkpoint times and continues the counters and the wall time. */
enum { RS_NEXT_OUTPUT, RS_NEXT_FIELDS, RS_NEXT_CHECKPOINT, RS_NEXT_PROGRESS, RS_STEPS, RS_NEWTON, RS_LINEAR, RS_WALL, RS_N };

static PetscErrorCode ReadRunControl(MPI_Comm comm, RunControl *rc)
{
  PetscBool set;
  PetscFunctionBegin;
  PetscCall(TdOptionsString(NULL, "output", "result file (HDF5; an .xdmf is written beside it)", "tribodyn.h5", rc->output, sizeof rc->output, NULL));
  PetscCall(TdOptionsBool(NULL, "static", "solve static equilibrium (no inertia, loads and gravity ramped)", PETSC_FALSE, &rc->is_static, NULL));
  PetscCall(TdOptionsInt(NULL, "load_steps", "load steps of a static solve", 10, &rc->load_steps, NULL));
  PetscCall(TdOptionsRealPositive(NULL, "t_final", "end time", "s", 0.01, PETSC_TRUE, &rc->t_final, NULL));
  PetscCall(TdOptionsRealPositive(NULL, "dt", "time step", "s", 1e-4, PETSC_TRUE, &rc->dt, NULL));
  PetscCall(TdOptionsRealPositive(NULL, "output_dt", "interval between output records: sensors, energies, reactions, film loads, h_min, p_max, solver counters (default: every step)", "s", rc->dt, PETSC_TRUE, &rc->output_dt, &set));
  PetscCall(TdOptionsReal(NULL, "output_fields_dt", "interval between full-field records: node positions, film pressure, h, asperity pressure; written with the first record at or after each multiple (default: 1 ms, or -output_dt if longer; 0: with every record)", "s", PetscMax(1e-3, rc->output_dt), &rc->output_fields_dt, NULL));
  PetscCall(TdOptionsReal(NULL, "checkpoint_dt", "write the whole state under /checkpoint of the result file every this much simulated time, and at the end (0: only on SIGTERM)", "s", 0, &rc->checkpoint_dt, NULL));
  PetscCall(TdOptionsString(NULL, "restart", "continue the run recorded in this result file from its last checkpoint, with the options stored in it (command-line options override them), appending to the same file", NULL, rc->restart, sizeof rc->restart, NULL));
  PetscCall(TdOptionsReal(NULL, "output_flush_interval", "wall time between flushes of the result file (a killed run keeps the records up to its last flush; every field record and checkpoint flushes too)", "s", 5, &rc->flush_interval, NULL));
  PetscCall(TdOptionsBool(NULL, "progress", "print a progress line every 5 % of the run, with the time left at the mean rate so far", PETSC_TRUE, &rc->progress, NULL));
  PetscCall(TdOptionsBool(NULL, "dry_run", "read and check every option and build the model, then exit without writing anything", PETSC_FALSE, &rc->dry_run, NULL));
  PetscCall(TdThreadGovernorSetUp(&rc->threads, comm));
  if (rc->load_steps < 1) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -load_steps = %" PetscInt_FMT ": at least one load step is needed", rc->load_steps);
  if (rc->output_dt < rc->dt * (1 - 1e-12)) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -output_dt = %g is smaller than the time step -dt = %g; records are written at step ends", (double)rc->output_dt, (double)rc->dt);
  if (rc->output_fields_dt < 0) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -output_fields_dt = %g: give an interval of simulated time > 0 [s], or 0 for full fields with every record", (double)rc->output_fields_dt);
  if (rc->output_fields_dt < rc->output_dt) rc->output_fields_dt = rc->output_dt; /* every field record is also a record */
  if (rc->checkpoint_dt < 0) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -checkpoint_dt = %g: give an interval of simulated time > 0 [s], or 0 for checkpoints only on SIGTERM", (double)rc->checkpoint_dt);
  if (rc->flush_interval < 0) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Option -output_flush_interval = %g: give a wall time >= 0 [s] (0: flush every record)", (double)rc->flush_interval);
  if (rc->restart[0] && rc->is_static) SETERRQ(comm, PETSC_ERR_USER_INPUT, "Options -restart and -static: a static solve is not continued from a checkpoint; run it again");
  PetscFunctionReturn(0);
}

/* The peak resident memory of every rank (getrusage), one line at the end of a run: what a
   user sizes a cluster job by, and what falls as ranks are added (the model, state and element
   work are shared out; see README "Running in parallel"). */
static PetscErrorCode PrintMemoryPerRank(MPI_Comm comm)
{
  struct rusage ru;
  double        mb, *all = NULL;
  PetscMPIInt   rank, size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  getrusage(RUSAGE_SELF, &ru);
  mb = (double)ru.ru_maxrss / 1024.0; /* Linux: kilobytes */
  if (rank == 0) PetscCall(PetscMalloc1(size, &all));
  PetscCallMPI(MPI_Gather(&mb, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, comm));
  if (rank == 0) {
    double sum = 0, mx = 0;
    char   line[1024] = "";
    size_t len = 0;
    for (PetscMPIInt r = 0; r < size; r++) {
      sum += all[r];
      mx = PetscMax(mx, all[r]);
      if (size <= 16 && len + 32 < sizeof line) len += (size_t)snprintf(line + len, sizeof line - len, "%s%.0f", r ? " " : "", all[r]);
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "tribodyn: peak memory per rank %s%s%s MB (max %.0f MB, total %.0f MB over %d rank%s)\n", size <= 16 ? "[" : "", size <= 16 ? line : "", size <= 16 ? "]" : "", mx, sum, size, size > 1 ? "s" : ""));
    PetscCall(PetscFree(all));
  }
  PetscFunctionReturn(0);
}

/* On several ranks with state ghosts: the unknowns each rank received for its last residual,
   of them from other ranks (state_ghosts.c), and how often the sets changed. */
static PetscErrorCode PrintStateGhosts(TdSolver s)
{
  PetscMPIInt size, rank;
  PetscInt    mine[2] = {s->nghost, s->ghost_recv}, *all = NULL;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(s->comm, &size));
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  if (size == 1 || !s->toghost) PetscFunctionReturn(0);
  if (rank == 0) PetscCall(PetscMalloc1(2 * size, &all));
  PetscCallMPI(MPI_Gather(mine, 2, MPIU_INT, all, 2, MPIU_INT, 0, s->comm));
  if (rank == 0) {
    char   line[1024] = "";
    size_t len        = 0;
    for (PetscMPIInt r = 0; r < size && r < 16 && len + 48 < sizeof line; r++) len += (size_t)snprintf(line + len, sizeof line - len, "%s%" PetscInt_FMT "/%" PetscInt_FMT, r ? " " : "", all[2 * r + 1], all[2 * r]);
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "tribodyn: state ghosts (from other ranks / read, of %" PetscInt_FMT " unknowns) per rank [%s%s]; %" PetscInt_FMT " sets made, %" PetscInt_FMT " widened to the films' whole surfaces, %" PetscInt_FMT " film records from the whole state; marked anew at %" PetscInt_FMT " of %" PetscInt_FMT " updates (at the others the films' points hit the faces they hit before)\n", s->N, line, size > 16 ? " ..." : "", s->ghost_updates, s->ghost_widenings, s->ghost_whole_records, s->ghost_marked, s->ghost_calls));
    PetscCall(PetscFree(all));
  }
  PetscFunctionReturn(0);
}

/* A checkpoint at the current step end: the solver's state and history, and the loop's. */
static PetscErrorCode WriteCheckpoint(TdSolver s, TdOutput out, const PetscReal run[RS_N], PetscLogDouble wall0)
{
  PetscReal      rs[RS_N];
  PetscLogDouble now;
  PetscFunctionBegin;
  PetscCall(PetscTime(&now));
  PetscCall(PetscArraycpy(rs, run, RS_N));
  rs[RS_WALL] = (PetscReal)(now - wall0);
  PetscCall(TdOutputCheckpointBegin(out));
  PetscCall(TdSolverCheckpointWrite(s, out));
  PetscCall(TdOutputCheckpointPutReal(out, "run", RS_N, rs));
  PetscCall(TdOutputCheckpointEnd(out, s->t));
  PetscFunctionReturn(0);
}

/* Has any rank been sent SIGTERM?  (Every rank must stop after the same step.) */
static PetscErrorCode SigtermReceived(MPI_Comm comm, PetscBool *got)
{
  int flag = td_sigterm ? 1 : 0;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &flag, 1, MPI_INT, MPI_MAX, comm));
  *got = flag ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

/* The run: from the start, or (resume, a restart) from the state TdSolverCheckpointRestore set
   and the loop state run[] of the checkpoint.  *interrupted: stopped by SIGTERM. */
static PetscErrorCode Run(TdSolver s, TdOutput out, const RunControl *rc, const SeriesIds *ids, const PetscReal *resume, PetscBool *interrupted)
{
  PetscLogDouble   wall0, now;
  PetscMPIInt      rank;
  PetscInt         total_newton = 0, total_steps = 0, total_linear = 0;
  TdThreadGovernor threads = rc->threads;
  PetscFunctionBegin;
  *interrupted = PETSC_FALSE;
  PetscCallMPI(MPI_Comm_rank(s->comm, &rank));
  PetscCall(PetscTime(&wall0));
  if (rc->is_static) {
    s->load_factor = 0;
    s->mode        = TD_MODE_STATIC;
    PetscCall(TdSolverInitialize(s));
    PetscCall(WriteRecord(s, out, ids, wall0, 0, PETSC_TRUE));
    for (PetscInt k = 1; k <= rc->load_steps; k++) {
      PetscInt its0 = s->newton_its;
      PetscCall(TdSolverStatic(s, (PetscReal)k / rc->load_steps));
      total_newton += s->newton_its - its0;
      PetscCall(PetscTime(&now));
      if (rc->progress) PetscCall(PetscPrintf(s->comm, "tribodyn: load step %" PetscInt_FMT "/%" PetscInt_FMT ", load factor %.3f, Newton iterations %" PetscInt_FMT ", wall %.2f s\n", k, rc->load_steps, (double)s->load_factor, s->newton_its - its0, (double)(now - wall0)));
      PetscCall(WriteRecord(s, out, ids, wall0, s->load_factor, PETSC_TRUE));
      PetscCall(SigtermReceived(s->comm, interrupted));
      if (*interrupted && k < rc->load_steps) {
        PetscCall(PetscPrintf(s->comm, "tribodyn: SIGTERM after load step %" PetscInt_FMT "/%" PetscInt_FMT ": stopped (a static solve has no checkpoint; run it again)\n", k, rc->load_steps));
        break;
      }
      *interrupted = PETSC_FALSE;
    }
  } else {
    PetscReal      run[RS_N];
    PetscLogDouble last_flush = wall0;
    PetscBool      stop       = PETSC_FALSE;
    if (resume) {
      PetscCall(PetscArraycpy(run, resume, RS_N));
      total_steps  = (PetscInt)run[RS_STEPS];
      total_newton = (PetscInt)run[RS_NEWTON];
      total_linear = (PetscInt)run[RS_LINEAR];
      wall0 -= run[RS_WALL]; /* the wall-time series goes on from the checkpoint's */
      PetscCall(PetscPrintf(s->comm, "tribodyn: continuing from the checkpoint at t = %.6g s (step %" PetscInt_FMT ", wall %.2f s before)\n", (double)s->t, total_steps, (double)run[RS_WALL]));
    } else {
      PetscCall(TdSolverInitialize(s));
      PetscCall(WriteRecord(s, out, ids, wall0, 0, PETSC_TRUE));
      run[RS_NEXT_OUTPUT]     = rc->output_dt;
      run[RS_NEXT_FIELDS]     = rc->output_fields_dt;
      run[RS_NEXT_CHECKPOINT] = rc->checkpoint_dt > 0 ? rc->checkpoint_dt : PETSC_MAX_REAL;
      run[RS_NEXT_PROGRESS]   = 0.05 * rc->t_final;
    }
    PetscLogDouble loop_wall0;
    const PetscReal loop_t0 = s->t; /* this process's start, for the remaining time */
    PetscCall(PetscTime(&loop_wall0));
    while (s->t < rc->t_final * (1 - 1e-12) && !stop) {
      PetscReal h = rc->dt, land = PetscMin(run[RS_NEXT_OUTPUT], rc->t_final);
      PetscInt  its0 = s->newton_its, lits0 = s->linear_its;
      PetscBool last, record, fields;
      /* land on output times and the end exactly; a step that reaches one within rounding keeps
         -dt (so that a run to an earlier -t_final takes the same steps, and a restart from its
         checkpoint continues a longer run exactly) */
      if (s->t + h > land * (1 + 1e-12)) h = land - s->t;
      PetscCall(TdThreadGovernorStepBegin(&threads, s->newton_its));
      PetscCall(TdSolverStep(s, h));
      PetscCall(TdThreadGovernorStepEnd(&threads, s->newton_its));
      total_newton += s->newton_its - its0;
      total_linear += s->linear_its - lits0;
      total_steps++;
      last   = s->t >= rc->t_final * (1 - 1e-12) ? PETSC_TRUE : PETSC_FALSE;
      /* a field record goes with the first record at or after each multiple of -output_fields_dt */
      record = s->t >= run[RS_NEXT_OUTPUT] * (1 - 1e-9) || last ? PETSC_TRUE : PETSC_FALSE;
      fields = record && (s->t >= run[RS_NEXT_FIELDS] * (1 - 1e-9) || last) ? PETSC_TRUE : PETSC_FALSE;
      if (record) {
        PetscCall(WriteRecord(s, out, ids, wall0, s->t, fields));
        if (s->t >= run[RS_NEXT_OUTPUT] * (1 - 1e-9)) run[RS_NEXT_OUTPUT] += rc->output_dt;
        if (fields)
          while (run[RS_NEXT_FIELDS] <= s->t * (1 + 1e-9)) run[RS_NEXT_FIELDS] += rc->output_fields_dt;
      }
      run[RS_STEPS]  = (PetscReal)total_steps;
      run[RS_NEWTON] = (PetscReal)total_newton;
      run[RS_LINEAR] = (PetscReal)total_linear;
      PetscCall(SigtermReceived(s->comm, interrupted));
      if (*interrupted || s->t >= run[RS_NEXT_CHECKPOINT] * (1 - 1e-9) || (last && rc->checkpoint_dt > 0)) {
        while (run[RS_NEXT_CHECKPOINT] <= s->t * (1 + 1e-9)) run[RS_NEXT_CHECKPOINT] += rc->checkpoint_dt;
        PetscCall(WriteCheckpoint(s, out, run, wall0));
        if (*interrupted) {
          PetscCall(PetscPrintf(s->comm, "tribodyn: SIGTERM: checkpoint written at t = %.6g s; continue with -restart %s\n", (double)s->t, rc->output));
          stop = PETSC_TRUE;
        }
      }
      /* the XDMF follows the records every 10 s of wall time, so ParaView can open a running
         or killed run */
      PetscCall(PetscTime(&now));
      if (now - last_flush > 10) {
        PetscCall(TdOutputFlush(out));
        last_flush = now;
      }
      if (rc->progress && s->t >= run[RS_NEXT_PROGRESS] * (1 - 1e-9)) {
        /* the time left at this process's mean rate so far (the cost per step changes over a
           run: the film's cavitation, the impact) */
        char            left[64] = "";
        const PetscReal rate     = (s->t - loop_t0) / PetscMax(now - loop_wall0, 1e-9), rest = rate > 0 ? (rc->t_final - s->t) / rate : 0;
        if (!last && rate > 0) {
          if (rest < 120) PetscCall(PetscSNPrintf(left, sizeof left, ", about %.0f s left", (double)rest));
          else if (rest < 7200) PetscCall(PetscSNPrintf(left, sizeof left, ", about %.0f min left", (double)(rest / 60)));
          else PetscCall(PetscSNPrintf(left, sizeof left, ", about %.1f h left", (double)(rest / 3600)));
        }
        PetscCall(PetscPrintf(s->comm, "tribodyn: t = %.6g s (%3.0f %%), %" PetscInt_FMT " steps, %" PetscInt_FMT " Newton iterations (%.2f per step), %" PetscInt_FMT " rejected, wall %.2f s%s\n", (double)s->t, (double)(100 * s->t / rc->t_final), total_steps, total_newton, (double)total_newton / PetscMax(total_steps, 1), s->rejected, (double)(now - wall0), left));
        while (run[RS_NEXT_PROGRESS] <= s->t * (1 + 1e-9)) run[RS_NEXT_PROGRESS] += 0.05 * rc->t_final;
      }
    }
  }
  PetscCall(PetscTime(&now));
  PetscCall(PetscPrintf(s->comm, "tribodyn: %s, %" PetscInt_FMT " %s, %" PetscInt_FMT " Newton iterations (%.2f per step), %" PetscInt_FMT " rejected, %" PetscInt_FMT " film-body coupling pattern rebuilds, %" PetscInt_FMT " LU factorisations, %" PetscInt_FMT " Krylov iterations, wall %.2f s; results in %s\n", *interrupted ? "interrupted" : "done", rc->is_static ? rc->load_steps : total_steps, rc->is_static ? "load steps" : "steps", total_newton, (double)total_newton / PetscMax(rc->is_static ? rc->load_steps : total_steps, 1), s->rejected, s->pattern_rebuilds, s->factorizations, total_linear, (double)(now - wall0), rc->output));
  PetscCall(TdThreadGovernorView(&threads, s->comm));
  PetscCall(PrintStateGhosts(s));
  /* -matrix_free_elements: how often the element tangents were formed (element_operator.c) */
  if (s->mf) PetscCall(PetscPrintf(s->comm, "tribodyn: matrix-free element blocks: element tangents formed at %" PetscInt_FMT " of %" PetscInt_FMT " Jacobians\n", s->mf_formed, s->mf_jacobians));
  /* -film_stiffness_lag: how often the films' dQ/dq blocks were formed (kept_lu.c) */
  if (s->film_qq_lag) PetscCall(PetscPrintf(s->comm, "tribodyn: film stiffness lag: the films' dQ/dq blocks formed at %" PetscInt_FMT " of %" PetscInt_FMT " film Jacobian passes\n", s->film_qq_formed, s->film_qq_passes));
  PetscCall(PrintMemoryPerRank(s->comm));
  PetscFunctionReturn(0);
}

/*
  OpenBLAS picks its kernels for the CPU when it is loaded, before main.  The version of Debian 12
  (0.3.21) does not know recent Xeons (family 6, model 207 on the development machine) and falls
  back to its generic Prescott (SSE3) kernels, which made MUMPS's factorisations 1.5x and the
  whole lubricated slider-guide run 1.2x slower.  When OpenBLAS has fallen back like that on a
  CPU with AVX-512 or AVX2, and OPENBLAS_CORETYPE was not set, the program starts itself again
  (same process, before MPI) with the matching kernels named.  Setting OPENBLAS_CORETYPE, to any
  core, turns this off.
*/
/* the kernels OpenBLAS runs on, or NULL if the BLAS is not OpenBLAS */
static const char *BlasCoreName(void)
{
  char *(*corename)(void);
  *(void **)&corename = dlsym(RTLD_DEFAULT, "openblas_get_corename");
  return corename ? corename() : NULL;
}

static void SelectBlasKernels(char **argv)
{
  const char *current = BlasCoreName(), *core = NULL;
  if (getenv("OPENBLAS_CORETYPE") || !current || strcasecmp(current, "prescott")) return;
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) core = "SkylakeX";
  else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) core = "Haswell";
  if (!core || setenv("OPENBLAS_CORETYPE", core, 1)) return;
  execv("/proc/self/exe", argv); /* returns only on failure: go on with the generic kernels */
  unsetenv("OPENBLAS_CORETYPE");
}

/*
  -restart FILE: the options stored in FILE (its root attribute "options"), then the command line
  again on top (a later -t_final, say), and -output is FILE itself: the run appends to it.
*/
static PetscErrorCode MergeRestartOptions(MPI_Comm comm, int argc, char **argv, TdCheckpointFile *cf, char restart[], size_t len)
{
  PetscBool set;
  char     *stored;
  PetscFunctionBegin;
  *cf = NULL;
  restart[0] = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-restart", restart, len, &set));
  if (!set) PetscFunctionReturn(0);
  PetscCheck(restart[0], comm, PETSC_ERR_USER_INPUT, "Option -restart needs the result file of the run to continue: -restart FILE.h5");
  for (int i = 1; i < argc - 1; i++)
    if (!strcmp(argv[i], "-output")) PetscCheck(!strcmp(argv[i + 1], restart), comm, PETSC_ERR_USER_INPUT, "Options -restart %s and -output %s: a restarted run appends to the file it continues; drop -output (or copy the file first and restart the copy)", restart, argv[i + 1]);
  PetscCall(TdCheckpointFileOpen(comm, restart, cf)); /* fails if the file has no checkpoint */
  PetscCall(TdCheckpointFileGetAttribute(*cf, "options", &stored));
  PetscCheck(stored[0], comm, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the file has no options attribute, so it was not written by tribodyn", restart);
  PetscCall(PetscOptionsInsertString(NULL, stored));
  PetscCall(PetscFree(stored));
  {
    /* PETSc's start-up and diagnostic options act in PetscInitialize, which has run: stored, they
       would describe the first run's invocation, not the model, and -log_view among them made
       PetscFinalize fail ("Must use -log_view ... before calling this routine") after the
       restarted run had finished.  The continuation takes them from its own command line. */
    static const char *startup[] = {"-log_view", "-log_view_memory", "-log_view_gpu_time", "-log_all", "-log_trace", "-log_exclude", "-log_sync", "-log_summary", "-info", "-info_exclude", "-malloc_debug", "-malloc_dump", "-malloc_view", "-malloc_view_threshold", "-malloc_test", "-memory_view", "-options_left", "-options_view", "-options_monitor", "-help", "-version", "-on_error_abort", "-on_error_attach_debugger", "-start_in_debugger", "-stop_for_debugger", "-fp_trap"};
    for (size_t i = 0; i < sizeof startup / sizeof startup[0]; i++) PetscCall(PetscOptionsClearValue(NULL, startup[i]));
  }
  {
    const char *env = getenv("PETSC_OPTIONS");
    if (env) PetscCall(PetscOptionsInsertString(NULL, env));
  }
  PetscCall(PetscOptionsInsertArgs(NULL, argc - 1, argv + 1));
  PetscCall(PetscOptionsSetValue(NULL, "-output", restart));
  PetscFunctionReturn(0);
}

static PetscErrorCode Finish(TdSolver *solver, TdModel *model)
{
  PetscFunctionBegin;
  PetscCall(TdSolverDestroy(solver));
  PetscCall(TdModelDestroy(model));
  PetscCall(TdOptionsFinalize());
  PetscFunctionReturn(0);
}

/* Open MPI 4.1 probes its network layers (cm with ofi, psm and psm2, then ucx) before it settles
   on ob1 where no fabric answers, and that took 0.2 s of every process start here (MPI_Init and
   MPI_Finalize of an empty program: 0.34 s against 0.13 s with OMPI_MCA_pml=ob1).  Where all
   ranks share this node (a process started without a launcher, or mpiexec with every rank
   local: OMPI_COMM_WORLD_LOCAL_SIZE = OMPI_COMM_WORLD_SIZE), they talk through shared memory,
   which ob1 serves, so they ask for ob1 at once.  Runs over several nodes, runs under another
   launcher (srun, Hydra: PMI or PMIx ranks) and a user's own OMPI_MCA_pml keep their choice (UCX
   on a cluster's fabric).  A process started without a launcher also skips the daemon (orted)
   that Open MPI starts for a lone process, which only serves processes it would spawn
   (ess_singleton_isolated; 0.20 s against 0.07 s for the empty program).  Other MPIs ignore the
   variables. */
static void OneNodeMessaging(void)
{
  const char *world = getenv("OMPI_COMM_WORLD_SIZE"), *local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const char *other[] = {"PMI_RANK", "PMI_SIZE", "PMIX_RANK", "SLURM_PROCID"};
  if (world) {
    if (!local || strcmp(world, local)) return; /* ranks on other nodes too */
  } else {
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
      if (getenv(other[i])) return;
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0); /* no launcher: one process, spawning none */
  }
  setenv("OMPI_MCA_pml", "ob1", 0); /* keeps a user's own */
}

/* The user's errors (a wrong option value, a missing, unreadable or unsuitable file, a model
   that cannot run) are reported in the two lines that say what is wrong: the class of the error
   and the message, once per communicator (rank 0 of a collective error, each rank of its own).
   PETSc's handler follows them with the whole options database and, for a case file, the list of
   options not yet read (about 150 lines for the paper's case, every one of them harmless), and
   asks to mail PETSc's maintainers.  Every other error keeps PETSc's full traceback. */
static PetscBool td_user_error_reported = PETSC_FALSE, td_user_error_everywhere = PETSC_FALSE;

static PetscErrorCode UserErrorHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  const PetscBool user = n == PETSC_ERR_USER_INPUT || n == PETSC_ERR_FILE_OPEN || n == PETSC_ERR_FILE_READ || n == PETSC_ERR_FILE_WRITE || n == PETSC_ERR_FILE_UNEXPECTED ? PETSC_TRUE : PETSC_FALSE;
  if (!user) return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
  if (p == PETSC_ERROR_INITIAL && !td_user_error_reported) {
    const char *text = NULL;
    PetscMPIInt rank = 0, size = 1, world = 1;
    if (comm != MPI_COMM_NULL && comm != PETSC_COMM_SELF) {
      MPI_Comm_rank(comm, &rank);
      MPI_Comm_size(comm, &size);
    }
    MPI_Comm_size(PETSC_COMM_WORLD, &world);
    /* raised on a communicator of every rank: by PETSc's convention every rank raised it */
    td_user_error_everywhere = size == world ? PETSC_TRUE : PETSC_FALSE;
    if (rank == 0) {
      PetscErrorMessage(n, &text, NULL);
      (*PetscErrorPrintf)("%s\n", text ? text : "Error");
      (*PetscErrorPrintf)("%s\n", mess ? mess : "");
    }
    td_user_error_reported = PETSC_TRUE;
  }
  return n;
}

/* main's set-up calls: a user's error that every rank raised (UserErrorHandler) ends the run
   through PetscFinalize with the error's code, without the MPI_Abort that PetscCall in main
   makes (and Open MPI's nine lines about it); any other error aborts as PetscCall does. */
static int SetupFailed(PetscErrorCode ierr, int line)
{
  if (td_user_error_everywhere) {
    (void)PetscFinalize();
    return (int)ierr;
  }
  (void)PetscError(PETSC_COMM_SELF, line, "main", __FILE__, ierr, PETSC_ERROR_REPEAT, " ");
  MPI_Abort(MPI_COMM_WORLD, (int)ierr);
  return (int)ierr;
}
#define SetupCall(...) \
  do { \
    PetscErrorCode ierr_s_ = __VA_ARGS__; \
    if (ierr_s_) return SetupFailed(ierr_s_, __LINE__); \
  } while (0)

/* A missing -options_file is found in PetscInitialize, whose handler prints PETSc's whole
   traceback and configuration (60 lines); checked first, it is one line. */
static int OptionsFilesReadable(int argc, char **argv)
{
  for (int i = 1; i + 1 < argc; i++)
    if (!strcmp(argv[i], "-options_file") && access(argv[i + 1], R_OK)) {
      fprintf(stderr, "tribodyn: cannot read the options file %s (-options_file): %s\n", argv[i + 1], strerror(errno));
      return 1;
    }
  return 0;
}

int main(int argc, char **argv)
{
  TdModel          model  = NULL;
  TdSolver         solver = NULL;
  TdOutput         out    = NULL;
  TdCheckpointFile cf     = NULL;
  RunControl       rc;
  SeriesIds        ids;
  PetscErrorCode   ierr;
  MPI_Comm         comm;
  PetscReal       *resume = NULL;
  PetscBool        interrupted = PETSC_FALSE;
  char             restart[PETSC_MAX_PATH_LEN];

  SelectBlasKernels(argv);
  OneNodeMessaging();
  if (OptionsFilesReadable(argc, argv)) return (int)PETSC_ERR_FILE_OPEN;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  {
    /* PETSc's own choice of handler on the command line (for debugging) is kept */
    const char *chosen[] = {"-on_error_abort", "-on_error_mpiabort", "-on_error_attach_debugger", "-on_error_emacs"};
    PetscBool   other    = PETSC_FALSE;
    for (size_t i = 0; i < sizeof chosen / sizeof chosen[0] && !other; i++) PetscCall(PetscOptionsHasName(NULL, NULL, chosen[i], &other));
    if (!other) PetscCall(PetscPushErrorHandler(UserErrorHandler, NULL));
  }
  comm = PETSC_COMM_WORLD;
  {
    /* PETSc registers a package's log events at its first use, which comes at different times
       on different ranks (rank 0 reads the mesh, writes the records, ...); -log_view sums the
       ranks' events by their order of registration, so a rank that registered in another order
       had its counts and times printed under other events' names.  All packages now register
       first, on every rank in the same order, before tribodyn's own events. */
    PetscCall(VecInitializePackage());
    PetscCall(MatInitializePackage());
    PetscCall(PCInitializePackage());
    PetscCall(KSPInitializePackage());
    PetscCall(SNESInitializePackage());
    PetscCall(PetscSFInitializePackage());
    PetscCall(ISInitializePackage());
    PetscCall(DMInitializePackage());
  }
  if (BlasCoreName()) PetscCall(PetscInfo(NULL, "OpenBLAS kernels: %s\n", BlasCoreName()));
  SetupCall(MergeRestartOptions(comm, argc, argv, &cf, restart, sizeof restart));
  SetupCall(TdOptionsInitialize(comm));
  if (TdOptionsHelpRequested()) SetupCall((*PetscHelpPrintf)(comm, "%s", option_reference));
  SetupCall(ReadRunControl(comm, &rc));
  SetupCall(TdModelCreateFromOptions(comm, &model));
  if (cf) SetupCall(TdSolverCheckpointPartition(model, cf));
  SetupCall(TdSolverCreate(model, &solver));
  SetupCall(TdSolverSetFromOptions(solver));
  if (TdOptionsHelpRequested()) {
    SetupCall(TdCheckpointFileClose(&cf));
    SetupCall(Finish(&solver, &model));
    PetscCall(PetscFinalize());
    return 0;
  }
  SetupCall(TdOptionsCheckUnknown(comm));
  SetupCall(TdModelView(model, PETSC_VIEWER_STDOUT_(comm)));
  if (rc.dry_run) {
    /* the options are valid and the model builds: what tools/sweep asks before it starts runs */
    PetscCall(PetscPrintf(comm, "tribodyn: -dry_run: the options are valid and the model builds; nothing written\n"));
    PetscCall(TdCheckpointFileClose(&cf));
    PetscCall(Finish(&solver, &model));
    PetscCall(PetscFinalize());
    return 0;
  }
  if (cf) {
    /* everything is read and checked before the file is opened for appending (which cuts its
       series back to the checkpoint): a refused restart leaves the file as it was */
    PetscInt n;
    PetscCall(TdSolverCheckpointRestore(solver, cf, restart));
    PetscCall(TdCheckpointFileGetReal(cf, "run", PETSC_TRUE, &n, &resume));
    PetscCheck(n >= RS_N, comm, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the checkpoint's run state has %" PetscInt_FMT " values, this version reads %d", restart, n, (int)RS_N);
    PetscCall(TdCheckpointFileClose(&cf));
    PetscCall(TdOutputOpenAppend(comm, rc.output, &out));
  } else PetscCall(TdOutputCreate(comm, rc.output, &out));
  PetscCall(TdOutputSetFlushInterval(out, rc.flush_interval));
  {
    char *all;
    PetscCall(PetscOptionsClearValue(NULL, "-restart")); /* the file's options repeat its run */
    PetscCall(TdOptionsAllString(&all));
    PetscCall(TdOutputSetAttribute(out, "/", "options", all));
    PetscCall(PetscFree(all));
  }
  PetscCall(SetupOutput(model, out, &ids));
  /* SIGTERM (a scheduler's warning before it kills a job): checkpoint after the current step,
     then exit with TD_EXIT_INTERRUPTED */
  {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = OnSigterm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
  }
  ierr = Run(solver, out, &rc, &ids, resume, &interrupted);
  {
    /* a failed run keeps its completed records, marked as failed */
    char status[256] = "complete";
    if (ierr) PetscCall(PetscSNPrintf(status, sizeof status, "failed: error %d at t = %g s (see the run's error output)", (int)ierr, (double)solver->t));
    else if (interrupted) PetscCall(PetscStrncpy(status, "interrupted", sizeof status));
    PetscCall(TdOutputClose(&out, status));
  }
  PetscCall(PetscFree(resume));
  PetscCall(PetscFree(ids.body));
  PetscCall(PetscFree3(ids.jmoment, ids.jangle, ids.jecc));
  PetscCall(PetscFree(ids.frame));
  PetscCall(PetscFree(ids.film));
  PetscCall(Finish(&solver, &model));
  PetscCall(PetscFinalize());
  return ierr ? (int)ierr : (interrupted ? TD_EXIT_INTERRUPTED : 0);
}
