/*
  The thread governor (src/solver/thread_governor.c) driven with step costs chosen here, so that
  the right choice is known beforehand (the reference), with the machine's idle CPUs given
  instead of read from /proc/stat.  Two threads available, window 6, period 16, abort 1.25.
  Checks:
    - threads that help (0.7 of one thread's cost, other CPUs idle): probed after the first
      window and kept, most steps threaded;
    - threads that cost 1.03x while the run's own cost falls fast (a phase: 20 s down by 0.5 s per
      step): one thread kept.  Costs compared window against window would have taken the
      threads (the later window is cheaper), and so would pairs always in the order (one thread,
      threads); the pairs in the order ABBA cancel the trend;
    - the other CPU busy (0.1 of it idle): never probed, no step threaded, the skips counted;
    - a probe step that waits a time slice (30x): the probe stops after its first pair, and the
      next one comes twice as late (back-off);
    - a threaded incumbent whose cost triples (a neighbour arrives): one thread probed at once
      and taken back;
    - too soon to tell (-2): no probe until the idle CPUs are known.
*/
#include <tribodyn/thread_governor.h>
#include <tribodyn/options.h>
#include <omp.h>
#include <stdio.h>

#include "td_check.h"

typedef PetscReal (*CostFn)(PetscInt step, int threads);

/* runs steps [*step, end) with the governor: each step's cost from fn */
static PetscErrorCode Run(TdThreadGovernor *g, CostFn fn, PetscInt *step, PetscInt end)
{
  PetscFunctionBegin;
  for (; *step < end; (*step)++) {
    PetscCall(TdThreadGovernorStepBegin(g, 0));
    PetscCall(TdThreadGovernorRecord(g, fn(*step, g->current)));
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode Fresh(TdThreadGovernor *g, PetscReal idle)
{
  PetscFunctionBegin;
  omp_set_num_threads(2);
  PetscCall(TdThreadGovernorSetUp(g, PETSC_COMM_SELF));
  g->idle_given = PETSC_TRUE;
  g->idle_cpus  = idle;
  PetscFunctionReturn(0);
}

static PetscReal Helps(PetscInt i, int t) { return t == 1 ? 1.0 : 0.7; }
static PetscReal FallingPhase(PetscInt i, int t) { return (t == 1 ? 1.0 : 1.03) * (20.0 - 0.5 * (PetscReal)PetscMin(i, 30)); }
static PetscReal Stalls(PetscInt i, int t) { return t == 1 ? 1.0 : 30.0; }
static PetscReal NeighbourAt100(PetscInt i, int t) { return t == 1 ? 1.0 : (i < 100 ? 0.7 : 3.0); }

int main(int argc, char **argv)
{
  TdThreadGovernor g;
  PetscInt         step;
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(TdOptionsInitialize(PETSC_COMM_WORLD));

  /* threads that help */
  PetscCall(Fresh(&g, 1.0));
  CHECKF(g.current == 1 && g.incumbent == 1, "starts on one thread (current %d)", g.current);
  step = 0;
  PetscCall(Run(&g, Helps, &step, 200));
  CHECKF(g.incumbent == 2 && g.switches == 1, "threads that help are kept (incumbent %d, %d switches)", g.incumbent, (int)g.switches);
  CHECKF(g.steps_with[1] >= 170, "most steps threaded: %d of 200", (int)g.steps_with[1]);
  CHECKF(g.steps_with[0] <= 30, "few steps on one thread: %d (the first window, the probes' halves)", (int)g.steps_with[0]);

  /* a falling phase with threads 1.03x dearer */
  PetscCall(Fresh(&g, 1.0));
  step = 0;
  PetscCall(Run(&g, FallingPhase, &step, 40));
  CHECKF(g.probes == 1 && g.incumbent == 1 && g.switches == 0, "falling phase, threads 1.03x: one probe (%d), one thread kept (incumbent %d, %d switches)", (int)g.probes, g.incumbent, (int)g.switches);

  /* the other CPU busy */
  PetscCall(Fresh(&g, 0.1));
  step = 0;
  PetscCall(Run(&g, Helps, &step, 200));
  CHECKF(g.probes == 0 && g.steps_with[1] == 0, "busy machine: %d probes, %d threaded steps (0, 0)", (int)g.probes, (int)g.steps_with[1]);
  CHECKF(g.skipped >= 30, "busy machine: %d probes skipped (one per window after the first)", (int)g.skipped);

  /* stalls: stopped after one pair, then the back-off */
  PetscCall(Fresh(&g, 1.0));
  step = 0;
  PetscCall(Run(&g, Stalls, &step, 300));
  CHECKF(g.probes == 2 && g.aborted == 2, "stalls: %d probes, %d stopped early (2, 2: the second after 2 x 16 windows)", (int)g.probes, (int)g.aborted);
  CHECKF(g.steps_with[1] == 2, "stalls: %d threaded steps (one per stopped probe)", (int)g.steps_with[1]);
  CHECKF(g.backoff == 4, "stalls: back-off %d (4 after two)", (int)g.backoff);

  /* a neighbour arrives at step 100 while threaded */
  PetscCall(Fresh(&g, 1.0));
  step = 0;
  PetscCall(Run(&g, NeighbourAt100, &step, 100));
  CHECKF(g.incumbent == 2, "neighbour: threaded before it arrives (incumbent %d)", g.incumbent);
  PetscCall(Run(&g, NeighbourAt100, &step, 130));
  CHECKF(g.incumbent == 1 && g.switches == 2, "neighbour: one thread taken back by step 130 (incumbent %d, %d switches)", g.incumbent, (int)g.switches);
  {
    const PetscInt threaded = g.steps_with[1];
    PetscCall(Run(&g, NeighbourAt100, &step, 200));
    CHECKF(g.steps_with[1] == threaded, "neighbour: no threaded step in 130-200 (%d)", (int)(g.steps_with[1] - threaded));
  }

  /* too soon to tell, then known */
  PetscCall(Fresh(&g, -2));
  step = 0;
  PetscCall(Run(&g, Helps, &step, 60));
  CHECKF(g.probes == 0 && g.skipped == 0, "too soon to tell: no probe, none counted as skipped (%d, %d)", (int)g.probes, (int)g.skipped);
  g.idle_cpus = 1.0;
  PetscCall(Run(&g, Helps, &step, 120));
  CHECKF(g.probes == 1 && g.incumbent == 2, "once known: probed and kept (%d probes, incumbent %d)", (int)g.probes, g.incumbent);

  PetscCall(TdOptionsFinalize());
  PetscCall(PetscFinalize());
  return td_finish();
}
