"""Each rank receives only the unknowns its residual and Jacobian read (its ghost set,
src/solver/state_ghosts.c), and the runs are those of one rank.

Every multi-rank run here has -state_ghosts_check: the unknowns outside a rank's set are NaN in its
iterate, and a residual entry written outside the set stops the run.  A rank that read an unknown
it was not sent would therefore turn its residual NaN and the run would fail; the histories are
compared with one rank's (which has no ghost sets) to the issue's 1e-8 (the slider-guide rig) or
to parallel_consistency's 1e-6 (the other models: solver tolerance).

1. The lubricated slider-guide case, 0-2 ms, on 2 ranks: the same histories as on 1 rank, and
   the same body node positions and displacements in the field records (each rank writes its
   part of the nodes, their positions sent by their owners at field records only) and the same
   film heights at the film nodes (each rank projects its chunk of the nodes, whose normals and
   first faces only it keeps); each
   rank's set is a strict part of the N unknowns, and together the ranks receive fewer entries
   from other ranks than the whole-vector exchange (each rank all it does not own, (P-1) N in
   all), as printed at the end of the run.
2. The same with the film's pattern look-ahead off, no rings of faces around the film points
   and the faces under each rank's film output nodes left out of its set
   (-film_pattern_lookahead 0 -state_ghosts_rings 0 -state_ghosts_output_nodes false), and no
   field record after the first (-output_fields_dt 1): a film point that crosses onto a guide
   face outside its rank's set makes every rank take the films' whole surfaces and assemble
   again (at least one widening is printed); a film node whose search leaves its rank's set
   makes that record's film fields from the whole state (at least one such record); and each
   new set takes the state at t of its new entries from their owners, which nothing else
   refreshes here (without it their NaN stops the run: the state arrays are current on a rank's
   set alone between steps).  The histories are those of one rank.
   Each new set taking the state at t of its new entries from their owners is checked by 2b.
2b. The rig driven five times faster (-drive_rpm 300, 0-4 ms: the film crosses guide faces
   often enough for new sets to be made between steps) with no field record after the first
   (-output_fields_dt 1; a field record takes the whole state from the owners): at least three
   sets made and no record from the whole state, the histories of one rank to the solver's
   tolerance (1e-6).  Between steps a rank's state arrays are current on its set alone; under the
   ghost check the rest are NaN, so a new set that did not take its new entries' state from
   their owners stops the run (it did at 3.4 ms when that was left out).
3. Models with rank 0's parts: a clamped plate with a pin joint and point loads at both ends
   (the parallel_consistency model; rank 0 adds the loads, also on elements of rank 1), the journal bearing (a JFO film between a rigid bushing and
   the flexible journal, driven) and the slider-crank with a lubricated pin (a rigid-pair film between free
   bodies), on 2 ranks, against 1 rank.
"""
import os
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

src = tdrun.SOURCE_DIR
case = os.path.join(src, "cases/slider_guide_lubricated.opts")
checks = tdrun.Checks("State ghosts: each rank receives what it reads")
os.chdir(src)  # the journal-bearing and slider-crank cases include their common files from the top


def ghosts(proc):
    """(N, [(from other ranks, read) per rank], sets made, widenings, whole-state film records) from
    the end-of-run line."""
    m = re.search(r"state ghosts \(from other ranks / read, of (\d+) unknowns\) per rank \[([^\]]*)\]; (\d+) sets made, (\d+) widened to the films' whole surfaces, (\d+) film records from the whole state", proc.stdout)
    if not m:
        return None
    ranks = [tuple(int(x) for x in pair.split("/")) for pair in m.group(2).split()]
    return int(m.group(1)), ranks, int(m.group(3)), int(m.group(4)), int(m.group(5))


# 1. the rig, 0-2 ms (the film under load)
rig = ["-options_file", case, "-t_final", "2e-3"]
one, _ = tdrun.run(rig, name="rig_np1")
two, proc = tdrun.run(rig + ["-state_ghosts_check"], nproc=2, name="rig_np2")
tdrun.check_same_histories(checks, tdrun.rig_histories(one), tdrun.rig_histories(two), "2 ranks (ghost check) vs 1")
for ds in ("/bodies/guide/position", "/bodies/guide/displacement", "/bodies/slider_block/displacement", "/films/film/h"):
    # field records (every 1 ms): each rank writes its part of the nodes, their positions from
    # their owners (NaN under the ghost check if they were not sent); the film's h at the nodes
    # each rank projects from the normals and first faces it alone keeps (film.h)
    a, b = tdrun.dataset(one, ds), tdrun.dataset(two, ds)
    rel = np.max(np.abs(a - b)) / np.max(np.abs(a)) if a.shape == b.shape else np.inf
    checks.true("%s, 2 ranks (ghost check) vs 1: max rel. difference %.2e <= 1e-9" % (ds, rel), rel <= 1e-9)
g = ghosts(proc)
checks.true("the run prints its ghost sets: %s" % (g,), g is not None)
if g:
    N, ranks, _, _, _ = g
    checks.true("each rank reads a strict part of the %d unknowns: %s" % (N, [r for _, r in ranks]), all(r < N for _, r in ranks))
    recv = sum(f for f, _ in ranks)
    checks.true("entries received from other ranks per residual: %d < %d of the whole-vector exchange ((P-1) N)" % (recv, N), recv < N)

# 2. the rig with film points crossing out of their ranks' sets
narrow = rig + ["-film_pattern_lookahead", "0", "-state_ghosts_rings", "0", "-state_ghosts_output_nodes", "false", "-output_fields_dt", "1"]
one, _ = tdrun.run(narrow, name="narrow_np1")
two, proc = tdrun.run(narrow + ["-state_ghosts_check"], nproc=2, name="narrow_np2")
tdrun.check_same_histories(checks, tdrun.rig_histories(one), tdrun.rig_histories(two), "no rings, no look-ahead, 2 ranks vs 1")
g = ghosts(proc)
checks.true("film points left their ranks' sets and the sets were widened: %s" % (g and g[3],), g is not None and g[3] >= 1)
checks.true("film nodes left their ranks' sets and their records took the whole state: %s" % (g and g[4],), g is not None and g[4] >= 1)

# 2b. new sets between steps, with nothing else to bring the whole state
fast = rig[:-2] + ["-t_final", "4e-3", "-drive_rpm", "300", "-output_fields_dt", "1"]
one, _ = tdrun.run(fast, name="fast_np1")
two, proc = tdrun.run(fast + ["-state_ghosts_check"], nproc=2, name="fast_np2")
tdrun.check_same_histories(checks, tdrun.rig_histories(one), tdrun.rig_histories(two), "300 rpm, field records only at t = 0, 2 ranks vs 1", bounds=(("slider", 1e-6), ("guide_mid", 1e-6), ("p", 1e-6)))
g = ghosts(proc)
checks.true("300 rpm: sets made between steps, none of the film records from the whole state: %s" % (g and g[2:],), g is not None and g[2] >= 3 and g[4] == 0)

# 3. rank 0's joints, loads and free bodies; films on cylinders and between free bodies
plate = tdrun.PLATE_PIN_TAP + ["-loads", "tap,tap0", "-sensors", "end",
                               "-tap0_body", "plate", "-tap0_point", "0.03,0.02,0.01", "-tap0_force", "0,-10,30",
                               "-tap0_profile", "halfsine", "-tap0_duration", "1e-3",
                               "-t_final", "2e-3", "-dt", "1e-4", "-snes_rtol", "1e-12"]
models = (("plate", plate, ("/sensors/end/acceleration",)),
          ("journal", ["-options_file", os.path.join(src, "cases/journal_bearing_rigid.opts"), "-t_final", "1e-3"], ("/films/film/pressure", "/films/film/load")),
          ("crank", ["-options_file", os.path.join(src, "cases/slider_crank_film.opts"), "-t_final", "1e-3"], ("/films/C/pressure", "/films/C/load")))
for name, args, datasets in models:
    one, _ = tdrun.run(args, name=name + "_np1")
    two, proc = tdrun.run(args + ["-state_ghosts_check"], nproc=2, name=name + "_np2")
    checks.true("%s: the ghost sets are in use: %s" % (name, ghosts(proc)), ghosts(proc) is not None)
    for ds in datasets:
        a, b = tdrun.dataset(one, ds), tdrun.dataset(two, ds)
        rel = np.max(np.abs(a - b)) / np.max(np.abs(a))
        checks.true("%s: %s, 2 ranks (ghost check) vs 1: max rel. difference %.2e <= 1e-6" % (name, ds, rel), rel <= 1e-6)
checks.finish()
