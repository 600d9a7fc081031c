/*
  The thread governor (thread_governor.h): one thread or all of them, chosen by measured step
  costs while the run goes on.
*/
#include <tribodyn/thread_governor.h>
#include <tribodyn/options.h>
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

static const char *const policies[] = {"auto", "fixed", NULL};

/* the threads a run was given, recorded by TdThreadGovernorSetUp (0: not set up) */
static int threads_available = 0;

int TdThreadsAvailable(void) { return threads_available > 0 ? threads_available : omp_get_max_threads(); }

static int CompareReal(const void *a, const void *b)
{
  const PetscReal x = *(const PetscReal *)a, y = *(const PetscReal *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

static PetscReal Median(const PetscReal v[], PetscInt n)
{
  PetscReal s[64];
  for (PetscInt i = 0; i < n; i++) s[i] = v[i];
  qsort(s, (size_t)n, sizeof(PetscReal), CompareReal);
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

/* The machine's CPU time so far, summed over its CPUs, in clock ticks (/proc/stat's first line:
   user nice system idle iowait irq softirq steal ...): all of it, and the idle part (idle and
   iowait).  A hypervisor's steal counts as busy.  False where /proc/stat cannot be read. */
static PetscBool CpuTicks(unsigned long long *total, unsigned long long *idle)
{
  unsigned long long v[8] = {0};
  FILE              *f    = fopen("/proc/stat", "r");
  int                n    = 0;
  if (!f) return PETSC_FALSE;
  n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
  fclose(f);
  if (n < 5) return PETSC_FALSE;
  *total = 0;
  for (int i = 0; i < n; i++) *total += v[i];
  *idle = v[3] + v[4];
  return PETSC_TRUE;
}

/* The CPUs the machine left idle since the last reading (0 to the number of CPUs); -1 when
   unknown (no /proc/stat), -2 when too soon to tell (fewer than 5 ticks per CPU since the last
   reading, which is then kept).  Rank 0 reads, every rank gets its answer. */
static PetscErrorCode IdleCpus(TdThreadGovernor *g, PetscReal *idle_cpus)
{
  unsigned long long total, idle;
  PetscMPIInt        rank;
  PetscReal          v = -1;
  PetscFunctionBegin;
  if (g->idle_given) {
    *idle_cpus = g->idle_cpus;
    PetscFunctionReturn(0);
  }
  PetscCallMPI(MPI_Comm_rank(g->comm, &rank));
  if (rank == 0 && g->ncpu > 0 && CpuTicks(&total, &idle)) {
    if (total >= g->ticks_total + 5ULL * (unsigned long long)g->ncpu) {
      v              = (PetscReal)g->ncpu * (PetscReal)(idle - g->ticks_idle) / (PetscReal)(total - g->ticks_total);
      g->ticks_total = total;
      g->ticks_idle  = idle;
    } else v = -2;
  }
  PetscCallMPI(MPI_Bcast(&v, 1, MPIU_REAL, 0, g->comm));
  *idle_cpus = v;
  PetscFunctionReturn(0);
}

static void Use(TdThreadGovernor *g, int threads)
{
  if (threads != g->current) omp_set_num_threads(threads);
  g->current = threads;
}

static int Other(const TdThreadGovernor *g) { return g->incumbent == 1 ? g->max_threads : 1; }

static void StartProbe(TdThreadGovernor *g)
{
  g->probing   = PETSC_TRUE;
  g->pairs     = 0;
  g->pair_step = 0;
  g->probes++;
}

/* back to the incumbent for the delay before the next probe */
static void EndProbe(TdThreadGovernor *g)
{
  g->probing        = PETSC_FALSE;
  g->windows_left   = g->period * g->backoff;
  g->nsamples       = 0;
  g->incumbent_cost = 0;
}

PetscErrorCode TdThreadGovernorSetUp(TdThreadGovernor *g, MPI_Comm comm)
{
  PetscInt policy = TD_THREADS_AUTO;
  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof *g));
  g->comm        = comm;
  g->max_threads = omp_get_max_threads();
  threads_available = g->max_threads;
  g->current     = g->max_threads;
  g->window      = 6;
  g->period      = 16;
  g->abort       = 1.25;
  PetscCall(TdOptionsEnum(NULL, "threads_policy", "OpenMP threads per rank: auto (choose between OMP_NUM_THREADS and one thread by the measured cost of the steps, so that a busy machine cannot make threads slower than one) or fixed (always OMP_NUM_THREADS)", policies, policy, &policy, NULL));
  PetscCall(TdOptionsInt(NULL, "threads_window", "auto threads: time steps per measurement window, and step pairs per probe", g->window, &g->window, NULL));
  PetscCall(TdOptionsInt(NULL, "threads_period", "auto threads: windows between probes of the thread count not in use (doubled after each probe that keeps the choice, up to 8 times)", g->period, &g->period, NULL));
  PetscCall(TdOptionsReal(NULL, "threads_abort", "auto threads: a probe stops once both of its first two step pairs cost the probed thread count this many times the current choice's, or its first pair twice this", NULL, g->abort, &g->abort, NULL));
  PetscCheck(g->window >= 2 && g->window <= 64, comm, PETSC_ERR_USER_INPUT, "Option -threads_window = %" PetscInt_FMT ": give 2 to 64 steps", g->window);
  PetscCheck(g->period >= 1, comm, PETSC_ERR_USER_INPUT, "Option -threads_period = %" PetscInt_FMT ": give at least 1 window", g->period);
  PetscCheck(g->abort > 1, comm, PETSC_ERR_USER_INPUT, "Option -threads_abort = %g: give a factor above 1", (double)g->abort);
  g->policy    = (TdThreadPolicy)policy;
  /* one thread is the safe start, from here on (the model's set-up and the initial solve
     included); the others are probed after a window */
  if (g->policy == TD_THREADS_AUTO && g->max_threads > 1) Use(g, 1);
  g->incumbent    = 1;
  g->backoff      = 1;
  g->windows_left = 1;
  {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    g->ncpu      = n > 0 ? (int)n : 0;
    if (!CpuTicks(&g->ticks_total, &g->ticks_idle)) g->ncpu = 0;
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdThreadGovernorStepBegin(TdThreadGovernor *g, PetscInt newton_its)
{
  PetscFunctionBegin;
  if (g->policy == TD_THREADS_FIXED || g->max_threads == 1) PetscFunctionReturn(0);
  if (g->probing) {
    /* ABBA: pair k runs (incumbent, other) when k is even, (other, incumbent) when odd */
    const PetscBool other_first = g->pairs % 2 ? PETSC_TRUE : PETSC_FALSE;
    const PetscBool other       = (g->pair_step == 0) == other_first ? PETSC_TRUE : PETSC_FALSE;
    Use(g, other ? Other(g) : g->incumbent);
  } else Use(g, g->incumbent);
  g->newton0 = newton_its;
  PetscCall(PetscTime(&g->t0));
  PetscFunctionReturn(0);
}

PetscErrorCode TdThreadGovernorStepEnd(TdThreadGovernor *g, PetscInt newton_its)
{
  PetscLogDouble t1;
  PetscReal      cost;
  PetscFunctionBegin;
  if (g->policy == TD_THREADS_FIXED || g->max_threads == 1) PetscFunctionReturn(0);
  PetscCall(PetscTime(&t1));
  cost = (PetscReal)(t1 - g->t0) / (PetscReal)PetscMax(newton_its - g->newton0, 1);
  /* rank 0's measure for every rank, so that all make the same choices */
  PetscCallMPI(MPI_Bcast(&cost, 1, MPIU_REAL, 0, g->comm));
  PetscCall(TdThreadGovernorRecord(g, cost));
  PetscFunctionReturn(0);
}

PetscErrorCode TdThreadGovernorRecord(TdThreadGovernor *g, PetscReal cost)
{
  PetscFunctionBegin;
  if (g->policy == TD_THREADS_FIXED || g->max_threads == 1) PetscFunctionReturn(0);
  g->steps_with[g->current == 1 ? 0 : 1]++;
  PetscCall(PetscInfo(NULL, "threads %d: step cost %g s per Newton iteration%s\n", g->current, (double)cost, g->probing ? " (probe)" : ""));
  if (g->probing) {
    g->pair_cost[g->current == g->incumbent ? 0 : 1] = cost;
    if (++g->pair_step < 2) PetscFunctionReturn(0);
    g->pair_step          = 0;
    g->ratios[g->pairs++] = g->pair_cost[1] / PetscMax(g->pair_cost[0], PETSC_SMALL);
    if ((g->pairs == 1 && g->ratios[0] > 2 * g->abort) || (g->pairs == 2 && PetscMin(g->ratios[0], g->ratios[1]) > g->abort)) {
      /* plainly worse in both pairs, or far worse in the first (a step that waited a time slice
         for a busy CPU: 20-40 ms against 0.7 ms were measured): back to the incumbent at once */
      PetscCall(PetscInfo(NULL, "threads %d: probe stopped, pair ratios %g %g\n", Other(g), (double)g->ratios[0], g->pairs > 1 ? (double)g->ratios[1] : 0.0));
      g->aborted++;
      g->backoff = PetscMin(2 * g->backoff, 8);
      EndProbe(g);
    } else if (g->pairs == g->window) {
      const PetscReal m = Median(g->ratios, g->pairs);
      PetscCall(PetscInfo(NULL, "threads %d against %d: median pair ratio %g\n", Other(g), g->incumbent, (double)m));
      if (m < 1) {
        g->incumbent = Other(g);
        g->switches++;
        g->backoff = 1;
      } else g->backoff = PetscMin(2 * g->backoff, 8);
      EndProbe(g);
    }
    PetscFunctionReturn(0);
  }
  g->samples[g->nsamples++] = cost;
  if (g->nsamples < g->window) PetscFunctionReturn(0);
  {
    const PetscReal m = Median(g->samples, g->nsamples);
    /* a threaded incumbent whose cost jumps by half may have met a busy neighbour: probe one
       thread at once (cheap to try); on one thread a jump is the run's own phase */
    const PetscBool jump = g->incumbent != 1 && g->incumbent_cost > 0 && m > 1.5 * g->incumbent_cost ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscInfo(NULL, "threads %d: window median %g s per Newton iteration\n", g->current, (double)m));
    g->incumbent_cost = m;
    g->nsamples       = 0;
    if (--g->windows_left <= 0 || jump) {
      PetscReal idle = -1;
      if (g->incumbent == 1) PetscCall(IdleCpus(g, &idle));
      if (idle == -2) g->windows_left = 1; /* too soon to tell: after the next window */
      else if (g->incumbent == 1 && idle >= 0 && idle < 0.75 * (g->max_threads - 1)) {
        /* the other CPUs were busy with other work through this window: more threads would
           wait for them (a probe step on a busy machine was measured at 20-40 ms against 0.7 ms
           on one thread); look again after the next window */
        PetscCall(PetscInfo(NULL, "threads %d not probed: %g of the machine's %d CPUs idle\n", g->max_threads, (double)idle, g->ncpu));
        g->skipped++;
        g->windows_left = 1;
      } else StartProbe(g);
    } else if (g->incumbent == 1 && g->windows_left == 1) {
      /* the reading the next window's test compares with: that window's own CPU time */
      PetscReal idle;
      PetscCall(IdleCpus(g, &idle));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdThreadGovernorView(const TdThreadGovernor *g, MPI_Comm comm)
{
  PetscFunctionBegin;
  if (g->policy == TD_THREADS_FIXED || g->max_threads == 1) {
    PetscCall(PetscPrintf(comm, "tribodyn: threads fixed at %d per rank\n", g->max_threads));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscPrintf(comm, "tribodyn: threads auto: %" PetscInt_FMT " steps on 1 thread, %" PetscInt_FMT " on %d; %" PetscInt_FMT " probes (%" PetscInt_FMT " stopped early, %" PetscInt_FMT " not made: the other CPUs were busy), %" PetscInt_FMT " switches; ending on %d\n", g->steps_with[0], g->steps_with[1], g->max_threads, g->probes, g->aborted, g->skipped, g->switches, g->current));
  PetscFunctionReturn(0);
}
