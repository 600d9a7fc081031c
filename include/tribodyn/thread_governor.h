#ifndef TRIBODYN_THREAD_GOVERNOR_H
#define TRIBODYN_THREAD_GOVERNOR_H
/*
  The thread governor (src/solver/thread_governor.c): chooses, while a run goes on, between the
  OpenMP threads it was given and one thread, by the measured cost of the time steps.

  Why.  On a shared virtual machine a second vCPU may be busy with a neighbour's work; every
  threaded region then waits at its barrier for the slowest thread, and two threads were measured
  up to 4x slower than one (the 8x4x1 plate: 8.5 s against 2.2 s), while on a quiet hour they
  were 1.6x faster.  Neither default is safe, and the state of the machine changes within a run.

  How.  Steps are timed (wall time per Newton iteration, which normalises steps that need more
  iterations).  The run starts with a window of one-thread steps (the safe baseline), then probes
  the full thread count; the cheaper variant (by median) runs for `period` windows, after which the
  other is probed again.  A probe that is plainly worse (its first two steps both cost more than
  `abort` times the incumbent's median) stops at once, so a busy machine costs a few slow steps per
  period, and a run never stays on the slower variant for more than one window.  Under MPI,
  rank 0 decides and every rank follows (the ranks' steps take the same wall time).
*/
#include <petscsys.h>

typedef enum { TD_THREADS_AUTO, TD_THREADS_FIXED } TdThreadPolicy;

typedef struct {
  TdThreadPolicy policy;
  MPI_Comm       comm;
  int            max_threads; /* the threads the run was given (OMP_NUM_THREADS) */
  int            current;     /* the threads in use */
  PetscInt       window;      /* steps per measurement window */
  PetscInt       period;      /* windows between probes */
  PetscReal      abort;       /* a probe stops when it costs this much more than the incumbent */
  /* state */
  int            incumbent;    /* the thread count of the last decision (0: none yet) */
  PetscReal      incumbent_cost;
  PetscBool      probing;
  PetscInt       nsamples, windows_left;
  PetscReal      samples[64];
  PetscLogDouble t0;
  PetscInt       newton0;
  PetscInt       switches, probes, aborted;
  PetscInt       steps_with[2]; /* steps run with one thread and with max_threads */
} TdThreadGovernor;

/* Reads -threads_policy, -threads_window, -threads_period, -threads_abort. */
PetscErrorCode TdThreadGovernorSetUp(TdThreadGovernor *g, MPI_Comm comm);
/* Around each time step: newton_its is the solver's running count of Newton iterations. */
PetscErrorCode TdThreadGovernorStepBegin(TdThreadGovernor *g, PetscInt newton_its);
PetscErrorCode TdThreadGovernorStepEnd(TdThreadGovernor *g, PetscInt newton_its);
/* One line: the policy and how the steps were shared between the thread counts. */
PetscErrorCode TdThreadGovernorView(const TdThreadGovernor *g, MPI_Comm comm);

#endif
