#ifndef TRIBODYN_SOLVER_H
#define TRIBODYN_SOLVER_H
/*
  One PETSc SNES per time step (or load step) over U = [free coordinates, scaled multipliers]
  (formulation.md §5-§6): residual and analytic Jacobian assembly, generalised-alpha stepping
  with step halving on Newton failure, static equilibrium with a load ramp (src/solver/).
*/
#include <petscsnes.h>
#include <tribodyn/model.h>
#include <tribodyn/galpha.h>
#include <tribodyn/seqaij_threads.h>
#include <tribodyn/output.h>

typedef enum { TD_MODE_DYNAMIC, TD_MODE_ACCELERATION, TD_MODE_STATIC } TdSolveMode;

typedef struct _p_TdSolver *TdSolver;
struct _p_TdSolver {
  MPI_Comm     comm;
  TdModel      model;
  PetscInt     N;                /* nfree + nrows */
  Vec          U, R, Useq, Rseq; /* Useq, Rseq: the whole vector's length on every rank, the
                                    entries of its ghost set up to date (state_ghosts.c) */
  Vec          U0;               /* the start of the current step's Newton solve */
  /* first Krylov solve of a step started from the last step's Newton correction U0 - U */
  PetscBool    newton_guess, have_guess;
  Vec          Uguess;
  PetscReal    guess_dt;         /* the step size of that correction */
  VecScatter   toall;
  Mat          J;
  SNES         snes;
  /* The partition (TdModelPartition): this rank's elements, and the numbering of U rank after
     rank.  The model's and the full vectors' indices (Useq, Rseq, COO pattern as built) are
     natural; U, R and J are in PETSc's numbering: natural i is entry to_petsc[i] of U, and
     this rank's entries of U are the natural unknowns owned[0..nowned), ascending. */
  PetscBool    partition;         /* -partition: graph partition (false: contiguous slices) */
  PetscInt     nelem_local, *elem_local;
  PetscInt    *element_rank;      /* nelements */
  PetscInt    *to_petsc;          /* N */
  PetscInt     nowned, *owned;
  PetscInt     own_lo, own_hi;    /* this rank's rows of U [own_lo, own_hi), PETSc's numbering */
  /* The entries of the iterate this rank reads and writes in a residual or Jacobian
     (state_ghosts.c): natural indices ghost[0..nghost), ascending, ghost_recv of them owned by
     other ranks; toghost brings them from U into Useq (NULL: one rank, or -state_ghosts false,
     or no Jacobian pattern yet: the whole vector).  useq_*: which state of which vector Useq
     holds, and whether whole, so that an unchanged iterate is not sent again. */
  PetscBool        state_ghosts, ghost_check;
  PetscInt         nghost, *ghost, ghost_recv;
  /* the full coordinates of the set (those of its body unknowns, and every clamped one) as runs
     [ghost_run[2k], ghost_run[2k+1]), k < nghost_run: what the residual's and the Jacobian's
     loops over the state arrays visit when Useq holds the set alone (TdSolverIterateRuns) */
  PetscInt         nghost_run, *ghost_run, whole_run[2];
  char            *ghost_base;       /* N: the set's fixed part (the pattern's rows and columns, ...) */
  char            *readable_element; /* nelements: all its unknowns in the set (model.h) */
  PetscInt         ghost_rings;      /* -state_ghosts_rings: faces around the films' points */
  char            *ghost_hits[2];    /* the faces the films' points hit at the last update and now (state_ghosts.c) */
  PetscBool        ghost_hits_valid; /* ghost_hits[0] made the current set (no base or wide set since) */
  PetscInt         ghost_updates, ghost_widenings; /* new sets made; of them, films' whole surfaces */
  PetscInt         ghost_calls, ghost_marked;      /* updates asked for; of them, sets marked anew over N */
  PetscBool        ghost_output_nodes; /* the film nodes of this rank's output part in its set */
  PetscInt         ghost_whole_records; /* film field records that took the whole state */
  VecScatter       toghost;
  PetscObjectId    useq_from;
  PetscObjectState useq_from_state, useq_state;
  PetscBool        useq_whole;
  Vec              state_w, state_seq; /* work: a state array in U's layout, and in Useq's */
  PetscInt        *free_full;         /* nfree: the full coordinate of each free one */
  /* checkpoint.c: the natural-order arrays of a checkpoint (U, q, v, a, qdd, ...) written by
     parts, each rank the slice of PETSc's default split that it receives from the owners:
     ck_natural (N) and ck_full (nfull) in natural order, and their scatters from U's layout */
  Vec              ck_natural, ck_full;
  VecScatter       ck_tonatural, ck_tofull;
  PetscInt         npositions, *positions; /* the natural unknowns of TdSolverPositionsFromOwners */
  VecScatter       topositions;
  PetscScalar *coo_v;
  PetscCount   ncoo;
  PetscBool    threaded_jacobian; /* the product with J over column runs, on threads */
  PetscBool    coo_map_on;        /* J's pattern and COO values by coo_map (else PETSc's COO) */
  TdCOOMap     coo_map;           /* ... the COO entries of J's nonzeros (empty: PETSc's COO) */
  /* -jacobian_direct: element tangents added straight into J (coo_map.h's direct blocks), by
     chunks of nearby elements: chunk c is elements chunk_elem[chunk_start[c] ...
     chunk_start[c+1]), ascending, each added by one thread; elem_chunk[le] is element le's */
  PetscBool    jacobian_direct;
  PetscInt     nchunk, *chunk_start, *chunk_elem, *elem_chunk;
  PetscReal   *tangent_buf;       /* nthreads x 96 x 96: a direct element's tangent */
  /* state at t_n (full coordinates) and the iterate at t_{n+1} */
  PetscReal   *q, *v, *a, *qdd, *q1, *v1, *a1, *qdd1;
  PetscReal   *lambda;           /* multipliers [N] at t_n */
  PetscReal    t, dt;
  GalphaParams ga;
  TdSolveMode  mode;
  PetscReal    load_factor, step_dt, row_scale;
  PetscInt     max_halvings;
  /* threads */
  PetscInt      nthreads;
  Ancf3843Work *work;
  PetscReal    *thread_r;        /* nthreads x nfull */
  PetscReal    *rot_work;        /* nthreads x 96 x 96 */
  PetscReal    jacobian_dt;       /* step size of the last assembled Jacobian (lagged Jacobians) */
  PetscCount   nfilm_coo;          /* film entries of the COO pattern (this rank's quads) */
  PetscBool    film_jac_any;       /* some rank has film entries (the Jacobian's film pass) */
  PetscReal   *film_reduce;       /* the films' loads, frictions and failure flags summed over
                                     the ranks (TdSolverFilmsAssemble) */
  /* several ranks: the film rows this rank's quads fill (natural numbering, ascending), their
     values, and the scatter that adds them at the rows' owners (film_rows.c) */
  PetscInt     nfilm_quad_rows;
  PetscInt    *film_quad_rows;
  Vec          film_quad_rows_seq, film_rows_at_owners;
  VecScatter   film_quad_rows_sc;
  PetscReal   *film_r;            /* film rows of the Jacobian pass (the cavitation active set) */
  /* The first residual of a Newton solve is always followed by the Jacobian at the same iterate:
     that residual's film pass also fills the film's Jacobian entries (coo_v) and film_r, and the
     Jacobian pass then skips the films (rank 0) */
  PetscBool    film_fuse_next;    /* the next residual is a solve's first */
  PetscBool    film_jac_ready;    /* coo_v's film part and film_r belong to the iterate res_u (the
                                     fused residual's: every residual after it clears this flag) */
  PetscBool    film_jac_ok;       /* ... and that film pass met no projection failure */
  PetscBool    film_jac_miss;     /* ... and met a face pair outside the coupling pattern */
  PetscBool    film_jac_ghost_only; /* ... res_u copied on the ghost set alone (TdSolverGhostOnly) */
  /* The last residual's iterate (TdSolverCopyRead's entries) and time (-inf: none, or a residual
     of a check).  An output record of that state (the end of a converged step,
     TdSolverAtLastResidual) takes the films' loads and the elements' strain energies from it
     instead of passes of its own. */
  PetscScalar *res_u;
  PetscReal    res_t;
  PetscReal   *film_load, *film_friction; /* films' load and friction at the last residual */
  PetscBool    film_load_ok;      /* ... valid (its film pass succeeded) */
  PetscReal   *elem_strain;       /* each element's strain energy at the last residual */
  char         film_miss[512];     /* the last projection failure inside Newton */
  PetscBool    in_setup;
  PetscReal    block_norm0[3];     /* bodies, films, drives at Newton iteration 0 */
  PetscReal    fnorm0, fnorm_best;  /* of the current solve */
  PetscInt     it_best;
  PetscReal    block_atol[3], block_rtol;
  /* the bodies' rounding floor (EstimateBodyFloor, convergence_tests.c): the residual noise of coordinates
     known to their last bit, re-measured every 50 Newton solves of time steps (floor_steps_left
     counts down to the next); in time steps the bodies' Newton tolerance is at least twice it */
  PetscReal    body_floor;
  PetscInt     floor_steps_left;
  Vec          floor_u, floor_r;
  PetscBool    ksp_atol_given; /* -ksp_atol given: the Krylov tolerance is not tied to the Newton test */
  /* -krylov_block_test: a Krylov solve stops once each block of its residual is below its share
     (krylov_block_fraction) of that block's Newton tolerance (krylov_block_tol, set at Newton
     iteration 0) */
  PetscBool    krylov_block_test;
  PetscReal    krylov_block_tol[3], krylov_block_tol_norm; /* ... and their 2-norm */
  PetscReal    krylov_block_fraction[3]; /* -krylov_block_fraction: each block's share of its Newton tolerance */
  PetscReal    krylov_block_fraction_settled[3]; /* -krylov_block_fraction_settled: the shares of a step after a one-iteration step */
  PetscInt     last_step_its;  /* Newton iterations of the last time step's solve (-1: none yet, or not a time step) */
  void        *krylov_default_ctx; /* KSPConvergedDefault's context */
  Vec          krylov_t, krylov_r;  /* work: the Krylov iterate and its residual */
  PetscBool    monitor_blocks;
  PetscInt     test_jacobian;     /* Jacobians still to check by central differences */
  PetscReal    test_jacobian_time; /* ... from the first step ending after this time */
  PetscReal    test_jacobian_step; /* relative central-difference step of those checks */
  PetscReal    test_jacobian_max; /* largest ||J - J_fd||/||J|| seen */
  PetscBool    in_test;
  /* Swift-Stieber cavitation (formulation §2) as the complementarity p >= p_cav, F >= 0,
     (p - p_cav) F = 0: by default in the full space, the film rows replaced by the semismooth
     min(p - p_cav, F) (ncp), or by bounds when -snes_type is a VI solver (vi) */
  PetscBool    ncp, vi;
  /* JFO films (F18): per film fraction, the row min((p - p_cav)/p_ref, 1 - theta) = 0 */
  PetscInt     njfo;
  PetscInt    *jfo_theta, *jfo_p; /* njfo: the film fraction's and its node's pressure unknown */
  PetscReal   *jfo_shift;         /* njfo: p_cav / p_ref */
  PetscBool   *jfo_active;        /* njfo: the pressure branch at the last Jacobian */
  PetscBool   *jfo_active_pc;     /* njfo: ... at the last factorisation */
  PetscInt     jfo_refactor_rows; /* rows that may change branch before the LU is refactored */
  PetscReal   *ncp_shift;         /* p_cav/p_ref for cavitating unknowns, -inf elsewhere (N) */
  PetscBool   *ncp_active;        /* rows on the bound at the last Jacobian (N, every rank) */
  PetscInt    *film_coo_rows;     /* row of each of this rank's film COO entries */
  PetscInt     nncp, *ncp_rows;   /* the cavitating film rows; rank 0 holds a diagonal COO
                                     entry for each (1 on the bound, else 0) */
  /* Newton-Krylov with a reused factorisation: the preconditioner (LU of an earlier Jacobian)
     is kept while the Krylov solves converge within refactor_its iterations */
  PetscInt     refactor_its;
  PetscBool    pc_ready, pc_reuse_ok;
  PetscReal    pc_dt;
  TdSolveMode  pc_mode;
  PetscInt     factorizations;
  PetscScalar *pc_mat_v;          /* the factored Jacobian's nonzeros of this rank's rows, the
                                     diagonal block's then the off-diagonal block's (checkpoints) */
  PetscInt     npc_mat_v;
  /* -film_block_correction (film_correction.c): the kept LU followed by a fresh LU of the film
     block, refreshed from each Jacobian after which film rows changed branch */
  PetscBool    film_correction;
  PetscInt     film_stage_rows;   /* the stage runs when more film rows changed branch since the
                                     factorisation (-film_block_stage_rows; -1: always) */
  PetscBool    film_stage_on;     /* it runs for the current Jacobian */
  PetscBool   *ncp_active_pc;     /* N: ncp_active at the last factorisation */
  PC           kept_lu;           /* the kept LU of the whole Jacobian, inside the KSP's shell */
  IS           film_is, all_is;   /* this rank's film unknowns in U; all of its unknowns */
  Mat          film_rows;         /* J_f: the film rows of the last Jacobian */
  Mat          film_block;        /* J_ff of the last Jacobian */
  PC           film_pc;           /* its LU */
  Vec          film_t, film_dz;   /* film-sized work vectors */
  /* -krylov_recycle (krylov_recycle.c): kept pairs J U~ = Q and pending ones (z, J z) */
  PetscInt     recycle_max, recycle_n, recycle_pending, recycle_it;
  Vec         *recycle_q, *recycle_u, *recycle_pz, *recycle_pc, recycle_t;
  Vec          recycle_last;      /* the preconditioner's last output (not owned) */
  Mat          Jop;               /* the Krylov operator: J's product that keeps the pairs */
  /* -matrix_free_elements (element_operator.c): Jop's product takes the elements' blocks from
     their linearisations (ancf3843_tangent_apply) and the rest from Jrest, the Jacobian without
     the element blocks; J itself is assembled only for a factorisation */
  PetscBool    mf, mf_check, mf_form_all; /* ...; form_all: J formed at every Jacobian (-snes_test_jacobian reads it) */
  /* -film_stiffness_lag (kept_lu.c): the films' dQ/dq blocks in coo_v are formed at the kept LU's
     factorisations and kept until the next one (model.h's film_qq_keep) */
  PetscBool    film_qq_lag;
  PetscBool    film_qq_valid;     /* coo_v's dQ/dq entries are those of a formed pass of the pattern */
  PetscBool    film_jac_qq_kept;  /* the fused film pass (film_jac_ready) kept them */
  PetscInt     film_qq_formed, film_qq_passes; /* film Jacobian passes that formed them, of all */
  Mat          Jrest;
  TdCOOMap     rest_map;          /* Jrest's COO map (coo_map_on), over coo_v's entries after the elements' */
  Ancf3843Linearization *mf_lin;  /* nelem_local */
  PetscReal    mf_cM;             /* c_M of the linearisations (times each body's rho in a product) */
  PetscInt    *mf_index;          /* nelem_local x 96: natural unknown of each coordinate (-1: clamped) */
  PetscInt    *mf_dense, mf_ndense; /* nelem_local: slot of a formed tangent (elements with follower
                                       pressures, whose stiffness the kernel lacks), else -1 */
  PetscReal   *mf_dense_K;        /* mf_ndense x 96 x 96, global slopes */
  PetscInt     mf_nrows, *mf_rows; /* the natural unknowns the elements write, ascending */
  Vec          mf_x, mf_y;        /* Useq-sized work */
  PetscBool    mf_lin_fused;      /* the last residual kept the elements' linearisations at its iterate */
  PetscInt     mf_jacobians, mf_formed; /* Jacobians; of them with the tangents formed (factorisations) */
  PetscInt    *mf_stash_i, *mf_stash_j; /* the first pattern's entries after the elements' (PETSc's */
  PetscCount   mf_stash_n;              /* numbering), kept until the option is read (set-up) */
  /* the Krylov solve's residual tracked through Jop's products (krylov_residual.c) */
  Vec          kres_r, *kres_q, kres_b, kres_x; /* the residual; the images' orthonormal basis; b and x of the solve (not owned) */
  PetscScalar *kres_coef;
  PetscInt     kres_n, kres_alloc, kres_products, kres_state, kres_tests, kres_used; /* ...; block tests, of them answered by the tracked residual */
  PetscReal    kres_r0, kres_check_max; /* |r_0|; with -krylov_residual_check the largest difference / |r_0| */
  PetscBool    kres_check, kres_ignore; /* -krylov_residual_check; the check's own product is not the method's */
  PetscScalar *recycle_coef;
  PetscBool    restored_ksp;      /* a restart: the next reuse decision takes restored_lits and */
  PetscInt     restored_lits, restored_kreason; /* ... restored_kreason as the last Krylov solve's */
  /* film pressure predictor: the start of a step extrapolates this rank's film unknowns
     linearly from the last step (their rate), instead of keeping them */
  PetscBool    extrapolate_pressure, have_pressure_rate;
  PetscScalar *film_u_start, *film_u_rate; /* this rank's film unknowns: start of step, rate [1/s] */
  /* statistics since the last call of TdSolverTakeStatistics */
  PetscInt     newton_its, linear_its, steps, rejected, pattern_rebuilds;
};

PetscErrorCode TdSolverCreate(TdModel model, TdSolver *solver);
/* Reads -dt, -rho_inf, ... and configures SNES from the options (MUMPS LU by default). */
PetscErrorCode TdSolverSetFromOptions(TdSolver solver);
PetscErrorCode TdSolverDestroy(TdSolver *solver);
/* Initial state (reference configuration, initial velocities) and consistent accelerations. */
PetscErrorCode TdSolverInitialize(TdSolver solver);
/* Preconditioners other than the default LU (preconditioner.c): -pc_type fieldsplit gets the
   blocks bodies, films and drives; fieldsplit, gamg and ml get the bodies' rigid-body modes in
   ANCF coordinates as the near-null space. */
PetscErrorCode TdSolverSetUpPreconditioner(TdSolver s, PC pc);
/* The preconditioner type ancf_amg (ancf_amg.c): algebraic multigrid on the bodies' coordinates
   with every ANCF node a block of 12 (clamped slots as decoupled rows) and the rigid-body modes
   as near-null space; for the bodies block of coupled_blocks or fieldsplit, or a model of
   bodies alone. */
#define PCANCFAMG "ancf_amg"
/* The preconditioner type coupled_blocks (coupled_blocks.c): the whole Jacobian by blocks, the
   bodies by ancf_amg, the films by LU of their block (block Gauss-Seidel), the drives' rows by
   the Schur complement of that approximation. */
#define PCCOUPLEDBLOCKS "coupled_blocks"
/* Both types (preconditioner.c): Use registers them with PETSc and names the solver whose
   Jacobian they precondition (TdSolverSetFromOptions); Forget drops it (TdSolverDestroy). */
PetscErrorCode TdSolverPCTypesUse(TdSolver s);
PetscErrorCode TdSolverPCTypesForget(TdSolver s);
/* Rigid-body mode k (0-2 translations x, y, z; 3-5 rotations about x, y, z) at slot 0..11 of a
   node with reference coordinates x12 (preconditioner.c); and the modified
   Gram-Schmidt that makes n such vectors orthonormal, as MatNullSpaceCreate expects. */
PetscReal      TdRigidModeValue(const PetscReal x12[TD_NODE_DOF], PetscInt slot, PetscInt k);
PetscErrorCode TdOrthonormalize(PetscInt n, Vec v[]);
/* Advances from t to t + dt (halving on Newton failure, up to max_halvings). */
PetscErrorCode TdSolverStep(TdSolver solver, PetscReal dt);
/* Static equilibrium at load factor s (from the current state), halving the increment on failure. */
PetscErrorCode TdSolverStatic(TdSolver solver, PetscReal s);
/* Energies of all ANCF bodies in the current state; at_last_residual: the state is the last
   residual's (TdSolverAtLastResidual), whose elements' strain energies are then taken. */
PetscErrorCode TdSolverEnergy(TdSolver solver, PetscBool at_last_residual, PetscReal *kinetic, PetscReal *strain);
/* The iterate U into Useq (state_ghosts.c): whole, or only this rank's ghost set (what its
   residual and Jacobian read); nothing is sent if Useq holds that state of U already. */
PetscErrorCode TdSolverIterateScatter(TdSolver s, Vec U, PetscBool whole);
/* The state at t (q, v, a, qdd) from the ranks that own each coordinate (state_ghosts.c): on
   this rank's ghost set, or whole (checkpoints, a film record whose node search left a set).
   Between steps a rank's state is current on its ghost set alone. */
PetscErrorCode TdSolverStateFromOwners(TdSolver s, PetscBool whole);
/* q at the positions of the body nodes whose field rows this rank writes (TdOutputPartRange) and
   at the free bodies' coordinates, from their owners (state_ghosts.c; a field record). */
PetscErrorCode TdSolverPositionsFromOwners(TdSolver s);
/* Whether saved (a copy of Useq) equals u on every rank's ghost set (collective). */
PetscErrorCode TdSolverSameIterate(TdSolver s, const PetscScalar saved[], const PetscScalar u[], PetscBool *same);
/* Whether the current state at time t is the last residual's iterate on every rank's ghost set
   (the end of a converged time step): collective. */
PetscErrorCode TdSolverAtLastResidual(TdSolver s, PetscReal t, PetscBool *same);
/* The films at an iterate (TdFilmsAssemble's arguments; r indexed like U, of length N): each
   rank assembles its own quads, then each film row of r is summed at the rank that owns it
   (film_rows.c; the other ranks' film rows are 0), and the loads, frictions and *ok are summed
   over the ranks.  rfull and jac keep this rank's part (the reverse scatter and the COO assembly
   add them up).  A projection failure's message is in the film's miss on every rank. */
PetscErrorCode TdSolverFilmsAssemble(TdSolver s, PetscReal t, const PetscReal q[], const PetscReal v[], const PetscScalar u[], PetscReal ce, PetscReal cv, PetscReal rfull[], PetscScalar r[], PetscScalar *jac, PetscReal *load, PetscReal *friction, PetscBool *ok);
/* Checkpoint and restart (src/solver/checkpoint.c): writes the state and the solver's history
   into the checkpoint being written (between TdOutputCheckpointBegin and End); restores them from
   a checkpoint file (path for messages), after checking that it was written by this model. */
PetscErrorCode TdSolverCheckpointWrite(TdSolver solver, TdOutput out);
PetscErrorCode TdSolverCheckpointRestore(TdSolver solver, TdCheckpointFile cf, const char path[]);
/* Before TdSolverCreate, on a restart: a checkpoint written on the same number of ranks with the
   graph partition gives the model that partition (TdModelSetPartition), so that its per-rank
   data (coupling pattern, kept factorisation, Krylov pairs) apply.  Collective. */
PetscErrorCode TdSolverCheckpointPartition(TdModel model, TdCheckpointFile cf);
/* A joint's outputs at the current state: its reaction (force the joint exerts on its first
   body at the point) [N] and, each if not NULL, its moment on that body [N m] (ideal and
   clearance joints; else 0), a revolute's unwrapped angle [rad] (advances the unwrapping: once
   per record), a clearance joint's contact state. */
void TdSolverJointOutput(TdSolver solver, PetscInt joint, PetscReal f[3], PetscReal moment[3], PetscReal *angle, ClearanceContactState *contact);

PetscErrorCode TdSolverResidual(SNES snes, Vec U, Vec R, void *ctx);
PetscErrorCode TdSolverJacobian(SNES snes, Vec U, Mat J, Mat P, void *ctx);

#endif
