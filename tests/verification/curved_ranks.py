"""Curved ANCF bodies on several ranks: each rank keeps the element tables (54 kB each) of the
cells whose elements it computes and no others, congruent cells share tables, and the histories
are those of one rank (src/model/element_tables.c).

1. An unstructured rod (meshes/rod_unstructured.geo: Gmsh's tetrahedra split into hexahedra, so
   no two cells are congruent), clamped at one end and struck at the other by a half-sine point
   load, on 1 and 2 ranks (-state_ghosts_check on 2).
   - One class of tables per cell: the classes (printed by -info) equal the cells.
   - On 2 ranks each rank makes the tables of its own elements alone: its count equals its
     elements in the partition tribodyn prints ("elements per rank [...]"), which is below all
     the cells, and the two counts add up to the cells.
   - The sensors' displacements and accelerations equal one rank's to 1e-8 of their peaks.
2. The second-order tube of meshes/tube_order2.geo (hex27, 4 x 2 cells per quarter of the
   section, 2 layers along the axis), struck on its free end: congruent cells share tables, so
   there are fewer classes than cells; on 2 ranks each rank keeps at most those classes and at
   most its elements, the two together at least all of them; two sensors near the blow equal
   one rank's to 1e-7 of their peaks.  (Their differences, 5e-11 to 1.1e-8, lie at the rounding
   of coordinates of 0.1 m, 1.4e-17 m, against motions of 1e-9 to 3e-7 m; the far side of the
   tube moves by 4e-12 m in these 0.3 ms and is not compared.  A table made from another cell
   would change the histories by far more.)
"""
import os
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

MESHES = os.path.join(tdrun.SOURCE_DIR, "meshes")
checks = tdrun.Checks("Curved bodies on several ranks: element tables per rank, shared tables, histories")
wd = tdrun.workdir()

TABLES = re.compile(r"\[(\d+)\] <sys> TdModelElementTablesSetUp\(\): body (\w+): (\d+) cells in (\d+) classes of equal element tables; this rank's elements use (\d+) of them")


def tables(proc):
    """{rank: (cells, classes, tables kept)} from the -info lines."""
    out = {}
    for m in TABLES.finditer(proc.stdout + proc.stderr):
        out[int(m.group(1))] = (int(m.group(3)), int(m.group(4)), int(m.group(5)))
    return out


def one_and_two_ranks(args, what):
    """Runs args on 1 and 2 ranks (-state_ghosts_check on 2); returns the outputs, the tables of
    each run ({rank: (cells, classes, kept)}) and the 2 ranks' elements, or None for those if
    -info or the partition line is missing (a failed check)."""
    out1, p1 = tdrun.run(args, name=what + "1", workdir=wd)
    out2, p2 = tdrun.run(args + ["-state_ghosts_check"], nproc=2, name=what + "2", workdir=wd)
    t1, t2 = tables(p1), tables(p2)
    m = re.search(r"elements per rank \[(\d+) (\d+)\]", p2.stdout)
    ok = 0 in t1 and set(t2) == {0, 1} and m is not None
    checks.true("%s: -info gives the tables of 1 and 2 ranks and the partition" % what, ok, "%s %s" % (t1, t2))
    return out1, out2, (t1[0], t2, (int(m.group(1)), int(m.group(2)))) if ok else None


def histories(path, names):
    return {(s, q): tdrun.sensor(path, s, q)[1] for s in names for q in ("displacement", "acceleration")}


def same_histories(a, b, what, tol):
    for key in a:
        rel = np.max(np.abs(a[key] - b[key])) / np.max(np.abs(a[key]))
        checks.true("%s, %s %s: max rel. difference %.2e <= %.0e" % (what, key[0], key[1], rel, tol), rel <= tol)


# ------------------------------------------------------------------------------------------
# 1. unstructured rod
rod = ["-bodies", "rod", "-rod_mesh", os.path.join(MESHES, "rod_unstructured.geo"), "-rod_E", "210e9", "-rod_nu", "0.3",
       "-rod_rho", "7800", "-rod_damping", "1e-5", "-rod_clamp", "end0",
       "-loads", "tap", "-tap_body", "rod", "-tap_point", "0,0,0.2", "-tap_force", "200,100,-50",
       "-tap_profile", "halfsine", "-tap_duration", "2e-4",
       "-sensors", "tip,mid", "-tip_body", "rod", "-tip_point", "0,0,0.2", "-mid_body", "rod", "-mid_point", "0,0,0.1",
       "-t_final", "3e-4", "-dt", "2e-5", "-snes_rtol", "1e-12", "-info"]
out1, out2, found = one_and_two_ranks(rod, "rod")
if found:
    (cells, classes, kept), t2, elements = found
    checks.true("rod, 1 rank: one class per cell (%d classes, %d cells), all kept" % (classes, cells), classes == cells and kept == cells)
    for r in (0, 1):
        checks.true("rod, rank %d of 2: keeps its elements' tables alone, %d for %d elements of %d" % (r, t2[r][2], elements[r], cells),
                    t2[r][2] == elements[r] and t2[r][2] < cells)
    checks.true("rod, 2 ranks: their tables add up to the cells (%d + %d = %d)" % (t2[0][2], t2[1][2], cells), t2[0][2] + t2[1][2] == cells)
same_histories(histories(out1, ("tip", "mid")), histories(out2, ("tip", "mid")), "rod, 2 ranks against 1", 1e-8)


# ------------------------------------------------------------------------------------------
# 2. hex27 tube
def tube_args():
    path = os.path.join(wd, "tube.geo")
    with open(path, "w") as f:
        f.write("NT = 4; NR = 2; NZ = 2;\nInclude \"%s\";\n" % os.path.join(MESHES, "tube_order2.geo"))
    return ["-bodies", "tube", "-tube_mesh", path, "-tube_E", "210e9", "-tube_nu", "0.3", "-tube_rho", "7800",
            "-tube_clamp", "end0", "-loads", "tap", "-tap_body", "tube", "-tap_point", "0.1,0,0.02", "-tap_force", "50,-300,100",
            "-tap_profile", "halfsine", "-tap_duration", "2e-4", "-sensors", "near,side", "-near_body", "tube",
            "-near_point", "0.1,0,0.02", "-side_body", "tube", "-side_point", "0.075,0,0.02",
            "-t_final", "3e-4", "-dt", "2e-5", "-snes_rtol", "1e-12", "-info"]


out1, out2, found = one_and_two_ranks(tube_args(), "tube")
if found:
    (cells, classes, _), t2, elements = found
    checks.true("tube: congruent cells share tables (%d classes for %d cells)" % (classes, cells), classes < cells)
    for r in (0, 1):
        checks.true("tube, rank %d of 2: keeps %d tables, at most the classes (%d) and its elements (%d)" % (r, t2[r][2], classes, elements[r]),
                    t2[r][2] <= min(classes, elements[r]))
    checks.true("tube, 2 ranks: together at least all the classes (%d + %d >= %d)" % (t2[0][2], t2[1][2], classes), t2[0][2] + t2[1][2] >= classes)
same_histories(histories(out1, ("near", "side")), histories(out2, ("near", "side")), "tube, 2 ranks against 1", 1e-7)
checks.finish()
