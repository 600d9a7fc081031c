/*
  The thread governor (thread_governor.h): one thread or all of them, chosen by measured step
  costs while the run goes on.
*/
#include <tribodyn/thread_governor.h>
#include <tribodyn/options.h>
#include <omp.h>

static const char *const policies[] = {"auto", "fixed", NULL};

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

static void Use(TdThreadGovernor *g, int threads)
{
  if (threads != g->current) omp_set_num_threads(threads);
  g->current  = threads;
  g->nsamples = 0;
}

PetscErrorCode TdThreadGovernorSetUp(TdThreadGovernor *g, MPI_Comm comm)
{
  PetscInt policy = TD_THREADS_AUTO;
  PetscFunctionBegin;
  PetscCall(PetscMemzero(g, sizeof *g));
  g->comm        = comm;
  g->max_threads = omp_get_max_threads();
  g->current     = g->max_threads;
  g->window      = 6;
  g->period      = 16;
  g->abort       = 1.5;
  PetscCall(TdOptionsEnum(NULL, "threads_policy", "OpenMP threads per rank: auto (choose between OMP_NUM_THREADS and one thread by the measured cost of the steps, so that a busy machine cannot make threads slower than one) or fixed (always OMP_NUM_THREADS)", policies, policy, &policy, NULL));
  PetscCall(TdOptionsInt(NULL, "threads_window", "auto threads: time steps per measurement window", g->window, &g->window, NULL));
  PetscCall(TdOptionsInt(NULL, "threads_period", "auto threads: windows between probes of the thread count not in use", g->period, &g->period, NULL));
  PetscCall(TdOptionsReal(NULL, "threads_abort", "auto threads: a probe stops once both of its first two steps cost this many times the current choice's median (per Newton iteration)", NULL, g->abort, &g->abort, NULL));
  PetscCheck(g->window >= 2 && g->window <= 64, comm, PETSC_ERR_USER_INPUT, "Option -threads_window = %" PetscInt_FMT ": give 2 to 64 steps", g->window);
  PetscCheck(g->period >= 1, comm, PETSC_ERR_USER_INPUT, "Option -threads_period = %" PetscInt_FMT ": give at least 1 window", g->period);
  PetscCheck(g->abort > 1, comm, PETSC_ERR_USER_INPUT, "Option -threads_abort = %g: give a factor above 1", (double)g->abort);
  g->policy = (TdThreadPolicy)policy;
  PetscFunctionReturn(0);
}

PetscErrorCode TdThreadGovernorStepBegin(TdThreadGovernor *g, PetscInt newton_its)
{
  PetscFunctionBegin;
  if (g->policy == TD_THREADS_FIXED || g->max_threads == 1) PetscFunctionReturn(0);
  if (g->incumbent == 0 && g->nsamples == 0 && g->current != 1) Use(g, 1); /* the baseline first */
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
  g->steps_with[g->current == 1 ? 0 : 1]++;
  g->samples[g->nsamples++] = cost;
  PetscCall(PetscInfo(NULL, "threads %d: step cost %g s per Newton iteration%s\n", g->current, (double)cost, g->probing ? " (probe)" : ""));
  if (g->probing && g->nsamples == 2 && PetscMin(g->samples[0], g->samples[1]) > g->abort * g->incumbent_cost) {
    /* plainly worse (both first steps): back to the incumbent at once */
    g->probing      = PETSC_FALSE;
    g->windows_left = g->period;
    g->aborted++;
    Use(g, g->incumbent);
    PetscFunctionReturn(0);
  }
  if (g->nsamples < g->window) PetscFunctionReturn(0);
  {
    const PetscReal m     = Median(g->samples, g->nsamples);
    const int       other = g->current == 1 ? g->max_threads : 1;
    PetscCall(PetscInfo(NULL, "threads %d: window median %g s per Newton iteration (incumbent %d threads: %g)\n", g->current, (double)m, g->incumbent, (double)g->incumbent_cost));
    if (g->incumbent == 0) {
      /* the baseline window is done: probe the threads */
      g->incumbent      = g->current;
      g->incumbent_cost = m;
      g->probing        = PETSC_TRUE;
      g->probes++;
      Use(g, other);
    } else if (g->probing) {
      g->probing = PETSC_FALSE;
      if (m < g->incumbent_cost) {
        g->incumbent      = g->current;
        g->incumbent_cost = m;
        g->switches++;
      }
      g->windows_left = g->period;
      Use(g, g->incumbent);
    } else {
      /* the incumbent's cost follows the machine; a jump of half again probes at once */
      const PetscBool jump = m > 1.5 * g->incumbent_cost ? PETSC_TRUE : PETSC_FALSE;
      g->incumbent_cost    = m;
      if (--g->windows_left <= 0 || jump) {
        g->probing = PETSC_TRUE;
        g->probes++;
        Use(g, other);
      } else g->nsamples = 0;
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
  PetscCall(PetscPrintf(comm, "tribodyn: threads auto: %" PetscInt_FMT " steps on 1 thread, %" PetscInt_FMT " on %d; %" PetscInt_FMT " probes (%" PetscInt_FMT " stopped early), %" PetscInt_FMT " switches; ending on %d\n", g->steps_with[0], g->steps_with[1], g->max_threads, g->probes, g->aborted, g->switches, g->current));
  PetscFunctionReturn(0);
}
