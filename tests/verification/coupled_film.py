"""Monolithic tribo-dynamics (issue 4): flexible bodies and the film in one Newton solve.

1. Jacobian by blocks (qq, qp, pq, pp) against central differences on a soft, damped block over
   a sliding base through a rough, crowned film, with a large step so that the film's coupling
   dominates the body block: every block <= 1e-6.
2. Squeeze through the whole chain: a stiff (steel) block pressed by a constant force F onto a
   rigid base through the film follows rigid-plate squeeze theory
   1/h^2 = 1/h0^2 + 2 F t / (beta mu a^4) within 2 %.
3. The same squeeze with the block driven along the base by the crank-slider (film frame carried
   by the drive): sliding between parallel flat surfaces creates no pressure, so h(t) is the
   same within 0.5 %.
4. A block dropped with an initial velocity bounces less with the film than with dry contact.
5. Jacobian blocks with a rotated Gmsh base (meshes/rotated_box.geo, cells turned 30 degrees) under
   an axis-aligned block: the coupling between a rotated and an aligned cell is turned to global
   slopes on one side only (it was not turned at all: qq 2.4e-6 before the fix).
"""
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

checks = tdrun.Checks("Monolithic film-body coupling")
BLOCK = re.compile(r"Jacobian test block (\w\w) at t = ([0-9.eE+-]+): \|\|J - J_fd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+), \|\|J\|\|_F = ([0-9.eE+-]+)")

# 1. Jacobian blocks
args = ["-bodies", "block,base", "-block_box", "0,0,5e-5,0.02,0.02,0.01", "-block_cells", "2,2,1", "-block_E", "1e7",
        "-block_damping", "1e-3", "-base_type", "rigid", "-base_box", "-0.05,-0.01,-0.005,0.07,0.03,0", "-base_velocity", "0.2,0,0",
        "-films", "f", "-f_wall", "block:zmin", "-f_base", "base:zmax", "-f_cells", "8,8", "-f_mu", "0.05",
        "-f_sigma_wall", "2e-6", "-f_sigma_base", "2e-6", "-f_wall_profile", "crown", "-f_wall_profile_center", "0.01,0.01,0",
        "-f_wall_profile_amplitude", "5e-6", "-f_wall_profile_half_length", "0.01",
        "-loads", "press", "-press_body", "block", "-press_point", "0.01,0.01,0.01", "-press_force", "0,0,-10",
        "-t_final", "1e-3", "-dt", "1e-4", "-test_jacobian", "12"]
# on 1 rank, and on 2 ranks with Swift-Stieber cavitation (each rank assembles its strip of the
# film's quads; the cavitated rows' active set comes from the film rows summed over the ranks)
for nproc, extra in ((1, []), (2, ["-f_cavitation", "swift_stieber"])):
    out, proc = tdrun.run(args + extra, nproc=nproc, name="jacobian_np%d" % nproc)
    blocks = {}
    for name, t, ratio, norm in BLOCK.findall(proc.stdout):
        if float(norm) > 0 and float(t) > 0:  # t = 0: the consistent-acceleration solve (mass matrix)
            blocks.setdefault(name, []).append(float(ratio))
    skipped = proc.stdout.count("skipped")
    p, xy = tdrun.dataset(out, "/films/f/pressure"), tdrun.dataset(out, "/films/f/nodes")[:, :2]
    interior = np.all((xy > xy.min(axis=0) + 1e-9) & (xy < xy.max(axis=0) - 1e-9), axis=1)  # the edges are ambient (p = 0)
    ncav = np.sum(p[-1, interior] <= 1e-9 * np.abs(p).max())
    what = "%d rank(s)%s" % (nproc, ", %d of %d interior nodes cavitated at the end" % (ncav, np.sum(interior)) if extra else "")
    if extra:
        checks.true("%s: the cavitation bound is active" % what, ncav > 0)
    for name in ("qq", "qp", "pq", "pp"):
        vals = blocks.get(name, [])
        checks.true("%s: Jacobian block %s: %d tested (%d iterates skipped: a film point off its surface), max ||J - J_fd||/||J|| = %.2e <= 1e-6" % (what, name, len(vals), skipped, max(vals) if vals else float("nan")), len(vals) >= 4 and max(vals) <= 1e-6)

# 5. a rotated cell against an aligned one (soft bodies, viscous film: the coupling dominates qq)
import os
rotated = ["-bodies", "block,base", "-block_box", "0,0.05,0.10002,0.04,0.09,0.11", "-block_cells", "2,2,1", "-block_E", "1e6",
           "-block_damping", "1e-3", "-base_mesh", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "meshes", "rotated_box.geo"),
           "-base_E", "1e6", "-base_clamp", "bottom", "-films", "f", "-f_wall", "block:zmin", "-f_base", "base:top", "-f_cells", "8,8",
           "-f_mu", "0.5", "-f_sigma_wall", "2e-6", "-f_sigma_base", "2e-6", "-loads", "press", "-press_body", "block",
           "-press_point", "0.02,0.07,0.11", "-press_force", "0,0,-100", "-t_final", "4e-4", "-dt", "1e-4", "-test_jacobian", "4"]
out, proc = tdrun.run(rotated, name="jacobian_rotated")
blocks = {}
for name, t, ratio, norm in BLOCK.findall(proc.stdout):
    if float(norm) > 0 and float(t) > 0:
        blocks.setdefault(name, []).append(float(ratio))
for name in ("qq", "qp", "pq", "pp"):
    vals = blocks.get(name, [])
    checks.true("rotated base: Jacobian block %s: %d tested, max ||J - J_fd||/||J|| = %.2e <= 1e-6" % (name, len(vals), max(vals) if vals else float("nan")), len(vals) >= 3 and max(vals) <= 1e-6)

# 2. squeeze through the chain
h0, a, F, mu, beta = 5e-5, 0.02, 100.0, 0.05, 0.421731
squeeze = ["-bodies", "block,base", "-block_box", "0,0,%g,%g,%g,%g" % (h0, a, a, h0 + 0.01), "-block_cells", "2,2,1",
           "-base_type", "rigid", "-base_box", "-0.15,-0.01,-0.005,0.2,0.03,0",
           "-films", "f", "-f_wall", "block:zmin", "-f_base", "base:zmax", "-f_cells", "24,24", "-f_mu", str(mu),
           "-loads", "press", "-press_body", "block", "-press_point", "%g,%g,%g" % (a / 2, a / 2, h0 + 0.01), "-press_force", "0,0,%g" % -F,
           "-sensors", "c", "-c_body", "block", "-c_point", "%g,%g,%g" % (a / 2, a / 2, h0),
           "-t_final", "0.02", "-dt", "1e-4", "-output_dt", "1e-3"]
out, proc = tdrun.run(squeeze, name="squeeze")
t = tdrun.dataset(out, "/time")
hmin = tdrun.dataset(out, "/films/f/h_min")
_, d = tdrun.sensor(out, "c")
h = h0 + d[:, 2]
href = (1 / h0 ** 2 + 2 * F * t / (beta * mu * a ** 4)) ** -0.5
late = t > 2e-3  # after the block's initial acceleration transient
err = np.max(np.abs(h[late] / href[late] - 1))
its = tdrun.dataset(out, "/solver/newton_iterations")[1:].sum() / 200
checks.true("squeeze: h(t) vs 1/h^2 = 1/h0^2 + 2Ft/(beta mu a^4), max rel. error %.2e over 2-20 ms (h %.1f -> %.1f um), %.2f Newton its/step" % (err, h0 * 1e6, h[-1] * 1e6, its), err < 0.02)

# 3. the same squeeze, sliding with the crank-slider drive, film frame carried by the drive
slide = squeeze + ["-joints", "drive", "-drive_type", "crank_slider", "-drive_body", "block",
                   "-drive_point", "0,%g,%g" % (a / 2, h0 + 0.005), "-drive_crank_radius", "0.1", "-drive_rpm", "60",
                   "-f_frame", "drive"]
out2, proc2 = tdrun.run(slide, name="sliding")
_, d2 = tdrun.sensor(out2, "c")
_, x2 = tdrun.sensor(out2, "c", "velocity")
h2 = h0 + d2[:, 2]
diff = np.max(np.abs(h2[late] / h[late] - 1))
checks.true("sliding squeeze: slider speed %.2f m/s, h(t) equals the non-sliding one within %.2e" % (np.abs(x2[:, 0]).max(), diff), diff < 0.005 and np.abs(x2[:, 0]).max() > 0.3)

# 4. bounce: film vs dry contact
drop = ["-bodies", "block,base", "-block_box", "0,0,%g,%g,%g,%g" % (h0, a, a, h0 + 0.01), "-block_cells", "2,2,1",
        "-block_initial_velocity", "0,0,-0.05", "-base_type", "rigid", "-base_box", "-0.01,-0.01,-0.005,0.03,0.03,0",
        "-films", "f", "-f_wall", "block:zmin", "-f_base", "base:zmax", "-f_cells", "12,12", "-gravity", "0,0,-9.81",
        "-sensors", "c", "-c_body", "block", "-c_point", "%g,%g,%g" % (a / 2, a / 2, h0 + 0.005),
        "-t_final", "0.01", "-dt", "1e-5", "-output_dt", "1e-4"]
up = {}
for model in ("reynolds", "dry"):
    out, _ = tdrun.run(drop + ["-f_model", model], name="drop_" + model)
    _, v = tdrun.sensor(out, "c", "velocity")
    up[model] = v[:, 2].max()
checks.true("bounce: rebound speed with film %.4f m/s < dry %.4f m/s (impact at 0.05 m/s)" % (up["reynolds"], up["dry"]), up["reynolds"] < up["dry"] and up["dry"] > 0.005)

# 5. a violent drop (0.5 m/s onto 50 um of film, dt 2e-5): the predictor (constant
# acceleration) drives the block through the film, an invalid start that Newton replaces by the
# last converged state; the run completes and the film height stays positive
violent = [a if a != "0,0,-0.05" else "0,0,-0.5" for a in drop[:-6]]
out, proc = tdrun.run(violent + ["-t_final", "0.002", "-dt", "2e-5", "-info", ":snes"], name="violent")
restarts = proc.stdout.count("predictor outside the film's domain")
hmin = tdrun.dataset(out, "/films/f/h_min")
checks.true("violent drop: completed to 2 ms, %d predictors outside the film restarted from the last state, min film height %.2e m > 0" % (restarts, hmin.min()), restarts > 0 and hmin.min() > 0 and abs(tdrun.dataset(out, "/time")[-1] - 0.002) < 1e-12)
checks.finish()
