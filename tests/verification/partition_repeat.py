"""The graph partition is the same in every run of one command.

PT-Scotch 7 shares its work among threads, whose matchings gave another partition in 4 of 8
runs of the finest slider-guide mesh on 2 ranks (5 824 elements); two runs of one command
with other partitions differed by 4.7e-8 (src/model/partition.c now runs it on one thread).
Four dry runs of that mesh on 2 ranks must print one partition fingerprint (an FNV-1a hash of
every element's rank, printed at the start of each run on several ranks) and a balanced split.
With Scotch's threads back (the setenv in partition.c removed) the fingerprints differ in most
sets of four runs."""
import os
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun

src = tdrun.SOURCE_DIR
case = os.path.join(src, "cases", "slider_guide_lubricated.opts")
args = ["-options_file", case, "-film_cells", "160,160", "-guide_cells", "136,20,2", "-slider_block_cells", "8,8,6", "-dry_run"]
checks = tdrun.Checks("One partition in every run of one command (2 ranks, 5 824 elements)")
prints = []
for i in range(4):
    _, proc = tdrun.run(args, nproc=2, name="dry%d" % i)
    m = re.search(r"elements per rank \[(\d+) (\d+)\], partition fingerprint ([0-9a-f]{16})", proc.stdout)
    checks.true("run %d prints its partition" % i, m is not None, proc.stdout[-500:] if m is None else "")
    if m:
        prints.append((int(m.group(1)), int(m.group(2)), m.group(3)))
        print("run %d: elements per rank %s %s, fingerprint %s" % (i, m.group(1), m.group(2), m.group(3)))
if prints:
    checks.true("the same fingerprint in all %d runs" % len(prints), len({p[2] for p in prints}) == 1)
    a, b, _ = prints[0]
    checks.true("all 5 824 elements, balanced within 2 %% (%d and %d)" % (a, b), a + b == 5824 and abs(a - b) <= 0.02 * (a + b))
checks.finish()
