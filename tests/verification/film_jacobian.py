"""Film Jacobian against finite differences on films with moving, tilted and rough surfaces,
with and without Swift-Stieber cavitation active: ||J - J_fd||_F / ||J||_F <= 1e-6 at every
tested iteration (tribodyn's central differences, -test_jacobian, and PETSc's
-snes_test_jacobian); with cavitation also on 2 ranks, whose strips meet along a line of nodes
with cavitated and pressurised rows."""
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

OURS = re.compile(r"Jacobian test \(central differences\) at t = ([0-9.eE+-]+): \|\|J - J_fd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+)")
PETSC = re.compile(r"\|\|J - Jfd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+)")
checks = tdrun.Checks("Film Jacobian: moving, tilted, rough surfaces, cavitation")
# p_ref = 1e8 Pa matches the pressures of this micron-thin sliding film (unknowns of order one).
# a crowned, tilted, spinning and separating pad over a sliding rough base: a convergent-divergent
# film whose divergent part cavitates
base = ["-bodies", "pad,runner",
        "-pad_type", "rigid", "-pad_box", "0,0,1.2e-6,0.02,0.01,0.005", "-pad_rotation", "0,0.004,0",
        "-pad_velocity", "0,0,2e-5", "-pad_angular_velocity", "0,0,0.5",
        "-runner_type", "rigid", "-runner_box", "-0.05,-0.02,-0.005,0.07,0.03,0", "-runner_velocity", "2,0.3,0",
        "-films", "f", "-f_wall", "pad:zmin", "-f_base", "runner:zmax", "-f_cells", "12,6",
        "-f_wall_profile", "crown", "-f_wall_profile_center", "0.01,0.005,0", "-f_wall_profile_axis", "1,0,0",
        "-f_wall_profile_amplitude", "1e-6", "-f_wall_profile_half_length", "0.01",
        "-f_sigma_wall", "0.4e-6", "-f_sigma_base", "0.3e-6", "-f_gamma", "3", "-f_mu", "0.05",
        "-f_p_ref", "1e8", "-t_final", "2e-4", "-dt", "5e-5"]
for cav in ("none", "swift_stieber"):
    out, proc = tdrun.run(base + ["-f_cavitation", cav, "-test_jacobian", "8"], name="central_" + cav)
    vals = [float(v) for t, v in OURS.findall(proc.stdout)]
    p = tdrun.dataset(out, "/films/f/pressure")
    h = tdrun.dataset(out, "/films/f/h")
    X = tdrun.dataset(out, "/films/f/nodes")
    interior = (X[:, 0] > 1e-9) & (X[:, 0] < 0.02 - 1e-9) & (X[:, 1] > 1e-9) & (X[:, 1] < 0.01 - 1e-9)
    checks.true("%s: %d Jacobians, max ||J - J_fd||/||J|| = %.2e <= 1e-6" % (cav, len(vals), max(vals)), len(vals) >= 5 and max(vals) <= 1e-6)
    checks.true("%s: rough regime, h/sigma from %.2f to %.2f (every node found)" % (cav, h.min() / 0.5e-6, h.max() / 0.5e-6), h.min() / 0.5e-6 < 6 and not np.isnan(h).any())
    if cav == "swift_stieber":
        frac = np.mean(p[-1, interior] <= 1e-9)
        checks.true("swift_stieber: cavitation active on %.0f %% of the interior nodes, none below p_cav (min %.2e Pa)" % (100 * frac, p[-1].min()), 0.05 < frac < 0.95 and p[-1].min() >= -1e-6)
    else:
        checks.true("none: sub-ambient pressures present (min %.3e Pa)" % p[-1].min(), p[-1].min() < 0)
    # the film rows are linear in the pressures: no truncation error, so a one-sided step of 1e-6
    # keeps the roundoff (eps |F| / step) small
    out, proc = tdrun.run(base + ["-f_cavitation", cav, "-snes_test_jacobian", "-snes_test_err", "1e-6"], name="petsc_" + cav)
    vals = [float(v) for v in PETSC.findall(proc.stdout)]
    checks.true("%s, PETSc -snes_test_jacobian: %d Jacobians, max %.2e <= 1e-6" % (cav, len(vals), max(vals)), len(vals) >= 3 and max(vals) <= 1e-6)
# on 2 ranks each takes a strip of 3 x 12 quads: the film rows of the nodes between the strips are
# summed at their owners, which find their cavitation branches, and the other rank clears its
# quads' entries of the rows on the bound by the owners' flags (src/solver/film_rows.c)
out, proc = tdrun.run(base + ["-f_cavitation", "swift_stieber", "-test_jacobian", "8"], nproc=2, name="central_2ranks")
vals = [float(v) for t, v in OURS.findall(proc.stdout)]
p = tdrun.dataset(out, "/films/f/pressure")
X = tdrun.dataset(out, "/films/f/nodes")
seam = np.abs(X[:, 1] - 0.005) < 1e-9  # the nodes between the two strips
checks.true("swift_stieber on 2 ranks: %d Jacobians, max ||J - J_fd||/||J|| = %.2e <= 1e-6" % (len(vals), max(vals)), len(vals) >= 5 and max(vals) <= 1e-6)
checks.true("swift_stieber on 2 ranks: cavitation active on %d and off on %d of the %d nodes between the strips" % ((p[-1, seam] <= 1e-9).sum(), (p[-1, seam] > 1e-9).sum(), seam.sum()), (p[-1, seam] <= 1e-9).sum() > 0 and (p[-1, seam] > 1e-9).sum() > 0)
checks.finish()
