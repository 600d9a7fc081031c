"""Mass-conserving (JFO) cavitation, -<f>_cavitation jfo (formulation.md (F18)), against
references that do not come from the code:

1. Fowell's pocketed slider (1-D, steady): a parallel pad with a pocket (depth d over
   [x1, x2]) above a runner at U, p = 0 at the ends, p_cav = -1 bar.  Closed form (derived
   here): the inlet film ruptures at the pocket's start with flux q = U h0/2 - p_cav h0^3/(12 mu x1),
   the cavity carries theta_c = 2q/(U h1), the film reforms at
   x_r = x2 - (p(x2) - p_cav) h1^3/(12 mu (U h1/2 - q)) and peaks at
   p(x2) = 12 mu (q - U h0/2)(L - x2)/h0^3.  Swift-Stieber on the same pad does not conserve
   mass and overestimates the peak many times.
2. Oscillating squeeze, h = h0 (1 - 0.5 sin 2 pi f t), 1-D, p_cav = -1 bar: the film ruptures
   soon after the gap starts to open; Swift-Stieber closes the cavity as soon as the
   unconstrained minimum pressure rises above p_cav again, JFO only once the cavity has been
   refilled from the ends.  Reference: the moving-boundary solution integrated here (a growing
   cavity: p = p_cav, p' = 0 at its edge; a shrinking one: (1 - theta) h da/dt = -(h^3/12 mu) p').
3. theta stays in [0, 1] (to the Newton tolerance).
4. Jacobians against central differences (-test_jacobian): rigid, tilted, spinning, separating
   and sliding surfaces; a flexible block on a sliding runner (cavitated and reforming nodes) on
   1 and 2 ranks, every block.
5. Bad input: jfo on a dry-contact film.
6. A steady finite journal bearing (L/D = 1) fed by a flooded axial groove at the largest film:
   Sommerfeld number and attitude angle against Raimondi and Boyd (eps = 0.6, 0.8), and JFO equal
   to Swift-Stieber (eps = 0.6, 0.7, 0.8).
"""
import re
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("JFO cavitation: pocketed slider, oscillating squeeze, Jacobians")
import os  # noqa: E402

# 1. pocketed slider
mu, U, h0, d, L, x1, x2, pcav = 0.05, 1.0, 1e-5, 1e-5, 0.02, 0.005, 0.012, -1e5
h1 = h0 + d
table = os.path.join(tdrun.workdir("tribodyn_test_"), "pocket.csv")
dl = 5e-5  # the pocket's walls: one cell wide
with open(table, "w") as fcsv:
    for x, y in ((0, 0), (x1, 0), (x1 + dl, d), (x2 - dl, d), (x2, 0), (L, 0)):
        fcsv.write("%.12e, %.12e\n" % (x, y))
pad = ["-bodies", "pad,runner", "-pad_type", "rigid", "-pad_box", "0,0,%g,%g,0.002,0.005" % (h0, L),
       "-runner_type", "rigid", "-runner_box", "-0.1,-0.01,-0.005,0.1,0.03,0", "-runner_velocity", "%g,0,0" % U,
       "-films", "f", "-f_wall", "pad:zmin", "-f_base", "runner:zmax", "-f_cells", "400,2", "-f_noflux", "ymin,ymax",
       "-f_wall_profile", "table", "-f_wall_profile_table", table, "-f_wall_profile_axis", "1,0,0", "-f_wall_profile_center", "0,0,0",
       "-f_mu", str(mu), "-f_p_cav", str(pcav), "-t_final", "2e-4", "-dt", "1e-4"]
q = U * h0 / 2 - pcav * h0 ** 3 / (12 * mu * x1)
theta_c = 2 * q / (U * h1)
px2 = 12 * mu * (q - U * h0 / 2) * (L - x2) / h0 ** 3
xr = x2 - (px2 - pcav) * h1 ** 3 / (12 * mu * (U * h1 / 2 - q))
peaks = {}
for cav in ("jfo", "swift_stieber"):
    out, _ = tdrun.run(pad + ["-f_cavitation", cav], name="pocket_" + cav)
    X = tdrun.dataset(out, "/films/f/nodes")
    row = np.abs(X[:, 1] - X[:, 1].min()) < 1e-12
    order = np.argsort(X[row, 0])
    x = X[row, 0][order]
    p = tdrun.dataset(out, "/films/f/pressure")[-1][row][order]
    peaks[cav] = p.max()
    if cav == "jfo":
        th = tdrun.dataset(out, "/films/f/film_fraction")[-1][row][order]
        checks.close("pocket, JFO: peak pressure p(x2) [Pa]", p.max(), px2, 0.005)
        cavity = (x > x1 + 2 * dl) & (x < x2) & (th < 1 - 1e-6)
        checks.close("pocket, JFO: film fraction in the cavity", np.median(th[cavity]), theta_c, 0.01)
        checks.true("pocket, JFO: reformation at x = %.3f mm (closed form %.3f mm, cells of 0.05 mm)" % (1e3 * x[cavity].max(), 1e3 * xr),
                    abs(x[cavity].max() - xr) <= 2 * L / 400)
        checks.true("pocket, JFO: the cavity holds p = p_cav (%.4g .. %.4g Pa)" % (p[cavity].min(), p[cavity].max()),
                    np.abs(p[cavity] - pcav).max() <= 1e-6 * abs(pcav))
checks.true("pocket: Swift-Stieber's peak %.3g Pa is %.1f times JFO's (it does not conserve mass)" % (peaks["swift_stieber"], peaks["swift_stieber"] / peaks["jfo"]),
            peaks["swift_stieber"] > 3 * peaks["jfo"])


# 2. oscillating squeeze: the semi-analytic moving-boundary reference
def squeeze_reference(mu, L, h0, f, pcav, nt=100000):
    om, half = 2 * np.pi * f, L / 2
    t = np.linspace(0, 1.5 / f, nt)
    dt = t[1] - t[0]
    h, hd = h0 * (1 - 0.5 * np.sin(om * t)), -0.5 * h0 * om * np.cos(om * t)
    k12 = 12 * mu * hd / h ** 3                                    # p'' in the full film
    ss_cavity = (hd > 0) & (-k12 * half ** 2 / 2 < pcav)           # the unconstrained minimum below p_cav
    k0 = int(np.argmax(ss_cavity))                                 # rupture
    ss_close = t[k0 + int(np.argmin(ss_cavity[k0:]))]              # Swift-Stieber: the minimum back above p_cav
    # the cavity grows while its edge a = sqrt(-2 p_cav / p'') (p = p_cav, p' = 0 there) recedes
    a_grow = np.sqrt(-2 * pcav / np.where(k12 > 0, k12, np.nan))
    k1 = k0
    while k1 + 1 < nt and a_grow[k1 + 1] < a_grow[k1]:
        k1 += 1
    xs, gs = a_grow[k0:k1 + 1][::-1], h[k0:k1 + 1][::-1]           # the content h(t) where the edge passed
    a = a_grow[k1]
    for k in range(k1 + 1, nt):
        # shrinking: (1 - theta) h da/dt = -(h^3 / 12 mu) p'(a), p' = p'' a / 2 + p_cav / a
        g = np.interp(a, xs, gs)
        a += -(h[k] ** 3 / (12 * mu)) * (k12[k] * a / 2 + pcav / a) / max(h[k] - g, 1e-30) * dt
        if a >= half:
            return t[k0], t[k], ss_close
    return t[k0], None, ss_close


f, hs = 100.0, 50e-6
t_rupture, t_close, ss_close = squeeze_reference(mu, L, hs, f, pcav)
squeeze = ["-bodies", "top,bottom", "-top_type", "rigid", "-top_box", "0,0,%g,%g,0.002,0.005" % (hs, L),
           "-top_oscillation", "0,0,%g,%g,180" % (0.5 * hs, f), "-bottom_type", "rigid", "-bottom_box", "0,0,-0.005,%g,0.002,0" % L,
           "-films", "f", "-f_wall", "top:zmin", "-f_base", "bottom:zmax", "-f_cells", "200,2", "-f_noflux", "ymin,ymax",
           "-f_mu", str(mu), "-f_p_cav", str(pcav), "-t_final", "0.0125", "-dt", "2e-5", "-output_dt", "2e-5"]
dt = 2e-5
for cav, ref_close in (("jfo", t_close), ("swift_stieber", ss_close)):
    out, _ = tdrun.run(squeeze + ["-f_cavitation", cav], name="squeeze_" + cav)
    t = tdrun.dataset(out, "/time")
    if cav == "jfo":
        th = tdrun.dataset(out, "/films/f/film_fraction")
        open_ = (th < 1 - 1e-6).any(axis=1)
        checks.true("squeeze, JFO: theta within [0, 1] at every node and record, to the Newton tolerance (%.3g .. 1 + %.1e)" % (th.min(), th.max() - 1), th.min() >= -1e-8 and th.max() <= 1 + 1e-8)
    else:
        open_ = (tdrun.dataset(out, "/films/f/pressure") <= pcav + 1e-3).any(axis=1)
    idx = np.where(open_)[0]
    t_open, t_shut = t[idx[0]], t[idx[-1] + 1]
    checks.true("squeeze, %s: the cavity opens at %.3f ms (reference %.3f) and closes at %.3f ms (reference %.3f), within 3 steps"
                % (cav, 1e3 * t_open, 1e3 * t_rupture, 1e3 * t_shut, 1e3 * ref_close),
                abs(t_open - t_rupture) <= 3 * dt and abs(t_shut - ref_close) <= 3 * dt)
checks.true("squeeze: JFO keeps the cavity %.2f ms longer than Swift-Stieber (reference %.2f ms)" % (1e3 * (t_close - ss_close), 1e3 * (t_close - ss_close)), t_close - ss_close > 1e-3)

# 4. Jacobians
OURS = re.compile(r"Jacobian test \(central differences\) at t = ([0-9.eE+-]+): \|\|J - J_fd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+)")
BLOCK = re.compile(r"Jacobian test block (\w\w) at t = ([0-9.eE+-]+): \|\|J - J_fd\|\|_F/\|\|J\|\|_F = ([0-9.eE+-]+), \|\|J\|\|_F = ([0-9.eE+-]+)")
rigid = ["-bodies", "pad,runner", "-pad_type", "rigid", "-pad_box", "0,0,1.2e-6,0.02,0.01,0.005", "-pad_rotation", "0,0.004,0",
         "-pad_velocity", "0,0,2e-5", "-pad_angular_velocity", "0,0,0.5", "-runner_type", "rigid", "-runner_box", "-0.05,-0.02,-0.005,0.07,0.03,0",
         "-runner_velocity", "2,0.3,0", "-films", "f", "-f_wall", "pad:zmin", "-f_base", "runner:zmax", "-f_cells", "12,6",
         "-f_wall_profile", "crown", "-f_wall_profile_center", "0.01,0.005,0", "-f_wall_profile_axis", "1,0,0",
         "-f_wall_profile_amplitude", "1e-6", "-f_wall_profile_half_length", "0.01", "-f_sigma_wall", "0.4e-6", "-f_sigma_base", "0.3e-6",
         "-f_gamma", "3", "-f_mu", "0.05", "-f_p_ref", "1e8", "-f_cavitation", "jfo", "-t_final", "2e-4", "-dt", "5e-5", "-test_jacobian", "8"]
out, proc = tdrun.run(rigid, name="jacobian_rigid")
vals = [float(v) for _, v in OURS.findall(proc.stdout)]
ncav = int((tdrun.dataset(out, "/films/f/film_fraction")[-1] < 1 - 1e-9).sum())
checks.true("rigid moving surfaces: %d Jacobians, max ||J - J_fd||/||J|| = %.2e <= 1e-6, %d nodes cavitated" % (len(vals), max(vals), ncav),
            len(vals) >= 5 and max(vals) <= 1e-6 and ncav > 0)
flexible = ["-bodies", "block,base", "-block_box", "0,0,5e-5,0.02,0.02,0.01", "-block_cells", "2,2,1", "-block_E", "1e7",
            "-block_damping", "1e-3", "-base_type", "rigid", "-base_box", "-0.05,-0.01,-0.005,0.07,0.03,0", "-base_velocity", "0.2,0,0",
            "-films", "f", "-f_wall", "block:zmin", "-f_base", "base:zmax", "-f_cells", "8,8", "-f_mu", "0.05",
            "-f_sigma_wall", "2e-6", "-f_sigma_base", "2e-6", "-f_wall_profile", "crown", "-f_wall_profile_center", "0.01,0.01,0",
            "-f_wall_profile_amplitude", "5e-6", "-f_wall_profile_half_length", "0.01", "-f_cavitation", "jfo",
            "-loads", "press", "-press_body", "block", "-press_point", "0.01,0.01,0.01", "-press_force", "0,0,-10",
            "-t_final", "1e-3", "-dt", "1e-4", "-test_jacobian", "12"]
for nproc in (1, 2):
    out, proc = tdrun.run(flexible, nproc=nproc, name="jacobian_flexible_np%d" % nproc)
    blocks = {}
    for name, t, ratio, norm in BLOCK.findall(proc.stdout):
        if float(norm) > 0 and float(t) > 0:
            blocks.setdefault(name, []).append(float(ratio))
    th = tdrun.dataset(out, "/films/f/film_fraction")
    ncav = (th < 1 - 1e-9).sum(axis=1)
    worst = {k: max(v) for k, v in blocks.items()}
    checks.true("flexible block, %d rank(s): cavitated nodes per record %s (reforming); blocks %s <= 1e-6"
                % (nproc, ncav.tolist(), {k: "%.1e" % v for k, v in worst.items()}),
                ncav.max() > ncav[-1] > 0 and set(worst) == {"qq", "qp", "pq", "pp"} and max(worst.values()) <= 1e-6)

# 6. steady finite journal bearing, L/D = 1, a flooded axial groove at the largest film
#    (meshes/journal_groove.geo): Sommerfeld number S = mu N L D / W (R/c)^2 and attitude angle
#    against Raimondi and Boyd's table (eps = 0.6: S = 0.121, 50.58 deg; eps = 0.8: S = 0.0446,
#    36.24 deg); JFO and Swift-Stieber agree where the groove feeds the film (eps = 0.6, 0.7, 0.8).
src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
Rb, cb, omega, Lb = 0.02, 50e-6, 100.0, 0.04
raimondi_boyd = {0.6: (0.121, 50.58), 0.8: (0.0446, 36.24)}
for eps in (0.6, 0.7, 0.8):
    e = eps * cb
    res = {}
    for cav in ("jfo", "swift_stieber"):
        args = ["-bodies", "bore,shaft", "-bore_type", "rigid", "-bore_cylinder", "0,0,-0.001,0,0,%g,%g" % (Lb + 0.001, Rb),
                "-shaft_type", "rigid", "-shaft_cylinder", "0,%g,-0.001,0,%g,%g,%g" % (-e, -e, Lb + 0.001, Rb - cb),
                "-shaft_angular_velocity", "0,0,%g" % omega, "-shaft_center", "0,%g,0" % -e,
                "-films", "f", "-f_wall", "bore:surface", "-f_base", "shaft:surface", "-f_surface", os.path.join(src, "meshes", "journal_groove.geo"),
                "-f_mu", str(mu), "-f_cavitation", cav, "-f_p_cav", "0", "-f_p_ref", "1e5", "-t_final", "1e-7", "-dt", "1e-7"]
        out, _ = tdrun.run(args, name="journal_%s_%g" % (cav, eps))
        W = -(tdrun.dataset(out, "/films/f/load")[0] - tdrun.dataset(out, "/films/f/friction")[0])  # pressure force on the shaft
        Wm = np.hypot(W[0], W[1])
        res[cav] = (mu * omega / (2 * np.pi) * Lb * 2 * Rb / Wm * (Rb / cb) ** 2, np.degrees(np.arccos(np.dot(-W[:2], [0, -1]) / Wm)))
        if cav == "jfo":
            ncav = int((tdrun.dataset(out, "/films/f/film_fraction")[0] < 1 - 1e-9).sum())
    (Sj, phij), (Ss, phis) = res["jfo"], res["swift_stieber"]
    checks.true("journal L/D = 1, eps = %g: JFO S = %.5f, %.2f deg (%d nodes cavitated); Swift-Stieber S = %.5f, %.2f deg: agree within 1e-4"
                % (eps, Sj, phij, ncav, Ss, phis), abs(Sj / Ss - 1) <= 1e-4 and abs(phij - phis) <= 0.01 and ncav > 0)
    if eps in raimondi_boyd:
        Sr, phir = raimondi_boyd[eps]
        checks.close("journal L/D = 1, eps = %g: Sommerfeld number (Raimondi-Boyd)" % eps, Sj, Sr, 0.01)
        checks.true("journal L/D = 1, eps = %g: attitude %.2f deg (Raimondi-Boyd %.2f) within 0.2 deg" % (eps, phij, phir), abs(phij - phir) <= 0.2)

# 5. bad input
_, proc = tdrun.run(["-bodies", "a,b", "-a_type", "rigid", "-a_box", "0,0,1e-5,1,1,1", "-b_type", "rigid", "-b_box", "0,0,-1,1,1,0",
                     "-films", "f", "-f_wall", "a:zmin", "-f_base", "b:zmax", "-f_model", "dry", "-f_cavitation", "jfo",
                     "-t_final", "1e-3", "-dt", "1e-3"], expect_ok=False, name="bad")
checks.true("bad input, jfo on a dry-contact film: exit %d" % proc.returncode,
            proc.returncode != 0 and "-f_cavitation jfo: film 'f' is a dry contact" in proc.stdout + proc.stderr)
checks.finish()
