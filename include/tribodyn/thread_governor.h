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
  iterations).  The run starts on one thread (the safe choice, the incumbent) and probes the full
  thread count at once.  A probe interleaves the two variants step by step in pairs, in the order
  ABBA (incumbent, other; other, incumbent; ...), and compares each pair: adjacent steps share the
  phase of the run (a hammer blow, a factorisation, a cavitating film), which a comparison of whole
  windows mixed up with the machine's state.  After `window` pairs the variant whose median pair
  ratio wins is kept; a probe whose first two pairs both cost the other variant more than `abort`
  times the incumbent, or whose first pair costs it twice that, stops there.  More threads are not
  probed at all while the machine's other CPUs were busy through the last window (/proc/stat: less
  than 3/4 of the CPUs the extra threads need were idle; a hypervisor's steal counts as busy): a
  probe step that waits for a busy CPU costs a time slice (20-40 ms were measured against 0.7 ms
  on one thread on the 8x4x1 plate).  A neighbour outside the virtual machine shows only as steal
  on vCPUs that run, so there the probe and its early stop remain the defence.  The next probe comes `period` windows later, twice as late
  after each probe that kept the incumbent (up to 8 times), so that a busy machine pays fewer and
  fewer slow probe steps; a switch resets the delay.  Only a threaded incumbent is probed early, when
  its window's cost jumps by half (a neighbour may have started; one thread is cheap to try); a
  jump on one thread is the run's own phase.  Under MPI, rank 0 decides and every rank follows (the
  ranks' steps take the same wall time).
*/
#include <petscsys.h>

typedef enum { TD_THREADS_AUTO, TD_THREADS_FIXED } TdThreadPolicy;

typedef struct {
  TdThreadPolicy policy;
  MPI_Comm       comm;
  int            max_threads; /* the threads the run was given (OMP_NUM_THREADS) */
  int            current;     /* the threads in use */
  PetscInt       window;      /* steps per measurement window, and pairs per probe */
  PetscInt       period;      /* windows between probes (before the back-off) */
  PetscReal      abort;       /* a probe stops when its first pairs cost this much more */
  /* state */
  int            incumbent;      /* the thread count kept between probes */
  PetscReal      incumbent_cost; /* its last window's median (0: none yet) */
  PetscBool      probing;
  PetscInt       pairs, pair_step; /* a probe's completed pairs, and the step within a pair */
  PetscReal      pair_cost[2];     /* this pair's costs: incumbent, other */
  PetscReal      ratios[64];       /* the probe's pair ratios, other over incumbent */
  PetscInt       backoff;          /* the delay's factor, 1 to 8 */
  PetscInt       nsamples, windows_left;
  PetscReal      samples[64];
  PetscLogDouble t0;
  PetscInt       newton0;
  PetscInt       switches, probes, aborted, skipped;
  int            ncpu;                    /* the machine's CPUs (0: /proc/stat unread) */
  unsigned long long ticks_total, ticks_idle; /* the last reading of /proc/stat */
  PetscBool      idle_given; /* tests: idle_cpus stands for /proc/stat's answer */
  PetscReal      idle_cpus;
  PetscInt       steps_with[2]; /* steps run with one thread and with max_threads */
} TdThreadGovernor;

/* Reads -threads_policy, -threads_window, -threads_period, -threads_abort. */
PetscErrorCode TdThreadGovernorSetUp(TdThreadGovernor *g, MPI_Comm comm);
/* The threads the run was given (OMP_NUM_THREADS), which may exceed those in use (the governor
   starts on one): what per-thread work space is sized for.  omp_get_max_threads() where no
   governor was set up. */
int TdThreadsAvailable(void);
/* Around each time step: newton_its is the solver's running count of Newton iterations. */
PetscErrorCode TdThreadGovernorStepBegin(TdThreadGovernor *g, PetscInt newton_its);
PetscErrorCode TdThreadGovernorStepEnd(TdThreadGovernor *g, PetscInt newton_its);
/* What StepEnd does with the step's measured cost (s per Newton iteration, the same on every
   rank): the decisions above.  Called directly by the tests with costs they choose. */
PetscErrorCode TdThreadGovernorRecord(TdThreadGovernor *g, PetscReal cost);
/* One line: the policy and how the steps were shared between the thread counts. */
PetscErrorCode TdThreadGovernorView(const TdThreadGovernor *g, MPI_Comm comm);

#endif
