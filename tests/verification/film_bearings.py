"""Film verification with rigid, prescribed surfaces against classical lubrication results
(formulation.md §8); every error printed.

1. Squeeze between parallel plates, a x b, approach speed V, p = 0 on the edges:
   W = beta mu V a^3 b / h^3, beta = 0.421731 (square), 0.686045 (b/a = 2), 0.842439 (b/a = 4),
   within 0.5 %.
2. Infinitely wide plane inclined slider (zero-flux sides), K = h_in/h_out = 2, the base sliding
   at U: load W h_out^2/(mu U L^2 B) = 0.158883 within 0.5 %, and the shear force on the pad
   against the 1-D solution integrated here (numpy) within 1 %.
3. Short journal bearing, L/D = 1/8, rigid shaft rotating in a rigid bore with eccentricity
   ratio eps = 0.4, Swift-Stieber cavitation (p >= 0): Ocvirk's load
   W = mu U L^3 eps / (4 c^2 (1-eps^2)^2) sqrt(16 eps^2 + pi^2 (1-eps^2)) and attitude angle
   tan(phi) = pi sqrt(1-eps^2) / (4 eps), within 2 %.  Classical bearing loads count the
   pressure only, so the load compared is the normal part of the film force (load - friction;
   the viscous shear mu U / h adds a further few percent of net force around the circle).
   Ocvirk neglects the circumferential pressure flow, so at finite L/D the computed load lies
   below it by a margin growing with eps (seen here: 1.1 % at eps = 0.2, 1.5 % at 0.4, 2.4 % at
   0.6, 5.1 % at 0.8, the attitude angle within 0.2 degrees throughout).
5. Dry contact (formulation §3): a rigid plate pressed into a rigid base at constant speed
   (uniform penetration d, rate ddot) carries the lumped Lankarani-Nikravesh force
   F = Kg d^n + eta d^n ddot; the base sliding at U >> v_eps adds the friction mu_d F.
4. Rough parallel plates approaching contact: the asperity pressure follows Greenwood-Tripp
   (K E* F_5/2(h/sigma), F_5/2 integrated here), and the film never reports a negative height.
"""
import math
import os
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

src = tdrun.SOURCE_DIR
checks = tdrun.Checks("Films between rigid prescribed surfaces: classical bearing results")
mu, V, h0 = 0.05, 1e-3, 50e-6

# 1. squeeze plates
for ratio, beta in ((1, 0.421731), (2, 0.686045), (4, 0.842439)):
    a, b = 0.02, 0.02 * ratio
    n = 48
    args = ["-bodies", "top,bottom",
            "-top_type", "rigid", "-top_box", "0,0,%g,%g,%g,%g" % (h0, b, a, h0 + 0.005), "-top_velocity", "0,0,%g" % -V,
            "-bottom_type", "rigid", "-bottom_box", "0,0,-0.005,%g,%g,0" % (b, a),
            "-films", "f", "-f_wall", "top:zmin", "-f_base", "bottom:zmax", "-f_cells", "%d,%d" % (n * ratio, n),
            "-f_mu", str(mu), "-t_final", "1e-6", "-dt", "1e-6"]
    out, _ = tdrun.run(args, name="squeeze%d" % ratio)
    W = tdrun.dataset(out, "/films/f/load")[0, 2]
    hmin = tdrun.dataset(out, "/films/f/h_min")[0]
    checks.close("squeeze b/a = %d: beta = W h^3/(mu V a^3 b)" % ratio, W * h0 ** 3 / (mu * V * a ** 3 * b), beta, 0.005)
    checks.close("squeeze b/a = %d: h_min [m]" % ratio, hmin, h0, 1e-9)

# 2. inclined slider: the wall carries a linear profile (h_in - h_out)(1 - x/L); the base slides
L, B, U, hout, K = 0.02, 0.02, 1.0, 20e-6, 2.0
table = os.path.join(tdrun.workdir(), "wedge.csv")
with open(table, "w") as fcsv:
    fcsv.write("0, %.12e\n%.12e, 0\n" % ((K - 1) * hout, L))
args = ["-bodies", "pad,runner",
        "-pad_type", "rigid", "-pad_box", "0,0,%g,%g,%g,%g" % (hout, L, B, hout + 0.005),
        "-runner_type", "rigid", "-runner_box", "-0.1,-0.01,-0.005,0.1,0.03,0", "-runner_velocity", "%g,0,0" % U,
        "-films", "f", "-f_wall", "pad:zmin", "-f_base", "runner:zmax", "-f_cells", "400,4", "-f_noflux", "ymin,ymax",
        "-f_wall_profile", "table", "-f_wall_profile_table", table, "-f_wall_profile_axis", "1,0,0",
        "-f_wall_profile_center", "0,0,0", "-f_mu", str(mu), "-t_final", "1e-6", "-dt", "1e-6"]
out, _ = tdrun.run(args, name="slider")
load = tdrun.dataset(out, "/films/f/load")[0]
fric = tdrun.dataset(out, "/films/f/friction")[0]
Wref = 6 / (K - 1) ** 2 * (math.log(K) - 2 * (K - 1) / (K + 1)) * mu * U * L ** 2 * B / hout ** 2
checks.close("inclined slider K = 2: load [N]", load[2], Wref, 0.005)
# 1-D solution: q = U h/2 - h^3 p'/(12 mu) constant, p(0) = p(L) = 0; pad shear f_x = mu U/h - (h/2) p'
x = np.linspace(0, L, 200001)
h = hout * (K - (K - 1) * x / L)
I2, I3 = np.trapz(1 / h ** 2, x), np.trapz(1 / h ** 3, x)
q = (6 * mu * U * I2) / (12 * mu * I3)
dp = 12 * mu * (U * h / 2 - q) / h ** 3
Fpad = B * np.trapz(mu * U / h - h / 2 * dp, x)
Wnum = B * np.trapz(np.concatenate([[0], np.cumsum((dp[1:] + dp[:-1]) / 2 * np.diff(x))]), x)
checks.close("inclined slider: load of the 1-D solution vs formula (check of the check)", Wnum, Wref, 1e-4)
checks.close("inclined slider K = 2: shear force on the pad [N]", fric[0], Fpad, 0.01)

# 3. short journal bearing, L/D = 1/8 (meshes/journal_film.geo: bore radius 0.02, L = 0.005)
R, Lb, c, eps, omega = 0.02, 0.005, 50e-6, 0.4, 100.0
e = eps * c
args = ["-bodies", "bore,shaft",
        "-bore_type", "rigid", "-bore_cylinder", "0,0,-0.001,0,0,%g,%g" % (Lb + 0.001, R),
        "-shaft_type", "rigid", "-shaft_cylinder", "0,%g,-0.001,0,%g,%g,%g" % (-e, -e, Lb + 0.001, R - c),
        "-shaft_angular_velocity", "0,0,%g" % omega, "-shaft_center", "0,%g,0" % -e,
        "-films", "f", "-f_wall", "bore:surface", "-f_base", "shaft:surface",
        "-f_surface", os.path.join(src, "meshes/journal_film.geo"), "-f_mu", str(mu),
        "-f_cavitation", "swift_stieber", "-f_p_cav", "0", "-f_p_ref", "1e5", "-t_final", "1e-7", "-dt", "1e-7"]
out, proc = tdrun.run(args, name="journal")
load = tdrun.dataset(out, "/films/f/load")[0]
Uj = omega * (R - c)
Wo = mu * Uj * Lb ** 3 * eps / (4 * c ** 2 * (1 - eps ** 2) ** 2) * math.sqrt(16 * eps ** 2 + math.pi ** 2 * (1 - eps ** 2))
phio = math.degrees(math.atan(math.pi * math.sqrt(1 - eps ** 2) / (4 * eps)))
normal = load - tdrun.dataset(out, "/films/f/friction")[0]
Wshaft = -normal  # the film's pressure force on the shaft is opposite to that on the bore (wall)
Wmag = math.hypot(Wshaft[0], Wshaft[1])
# attitude: angle between the load on the shaft (reversed) and the line of centres (bore -> shaft: -y)
line = np.array([0.0, -1.0])
ang = math.degrees(math.acos(np.dot(-Wshaft[:2], line) / Wmag))
checks.close("short journal bearing: load [N] (Ocvirk %.4g N)" % Wo, Wmag, Wo, 0.02)
checks.close("short journal bearing: attitude angle [deg]", ang, phio, 0.02)
pmin = tdrun.dataset(out, "/films/f/pressure")[0].min()
checks.true("journal bearing: no pressure below cavitation (min %.3e Pa)" % pmin, pmin >= -1e-6 * Wo / (R * Lb))
# the same complementarity problem by PETSc's reduced-space VI solver (bounds p >= p_cav)
# instead of the default full-space semismooth Newton on min(p - p_cav, F): the same solution
p_ncp = tdrun.dataset(out, "/films/f/pressure")[0]
out_vi, _ = tdrun.run(args + ["-snes_type", "vinewtonrsls"], name="journal_vi")
p_vi = tdrun.dataset(out_vi, "/films/f/pressure")[0]
cav_frac = np.mean(p_ncp <= 1e-9 * p_ncp.max())
dvi = np.max(np.abs(p_ncp - p_vi)) / np.max(np.abs(p_vi))
checks.true("journal bearing: semismooth min-NCP and SNESVINEWTONRSLS agree, max rel. difference %.2e <= 1e-8 (%.0f %% of the nodes cavitated)" % (dvi, 100 * cav_frac), dvi <= 1e-8 and 0.2 < cav_frac < 0.8)

# 4. rough plates approaching contact
sigma, Kgt, E, nu = 0.4e-6 * math.sqrt(2), 0.003, 210e9, 0.3
h0r, Vr = 3e-6, 1e-3
tfin = (h0r - 0.6 * sigma) / Vr
args = ["-bodies", "top,bottom",
        "-top_type", "rigid", "-top_box", "0,0,%g,0.01,0.01,%g" % (h0r, h0r + 0.005), "-top_velocity", "0,0,%g" % -Vr,
        "-bottom_type", "rigid", "-bottom_box", "0,0,-0.005,0.01,0.01,0",
        "-films", "f", "-f_wall", "top:zmin", "-f_base", "bottom:zmax", "-f_cells", "16,16",
        "-f_sigma_wall", "0.4e-6", "-f_sigma_base", "0.4e-6", "-f_gt_K", str(Kgt), "-f_mu", str(mu),
        "-t_final", "%.9e" % tfin, "-dt", "%.9e" % (tfin / 20)]
out, _ = tdrun.run(args, name="rough")
t = tdrun.dataset(out, "/time")
hm = tdrun.dataset(out, "/films/f/h_min")
pa = tdrun.dataset(out, "/films/f/asperity_pressure")
Estar = 1 / (2 * (1 - nu ** 2) / E)
s = np.linspace(-12, 12, 400001)


def F52(H):
    z = np.clip(s - H, 0, None)
    return np.trapz(z ** 2.5 * np.exp(-s ** 2 / 2), s) / math.sqrt(2 * math.pi)


hexact = h0r - Vr * t
checks.true("rough squeeze: h_min = h0 - V t exactly (max error %.2e m)" % np.max(np.abs(hm - hexact)), np.max(np.abs(hm - hexact)) < 1e-12)
checks.true("rough squeeze: the film never reports a negative height (min %.3e m)" % hm.min(), hm.min() > 0)
errs = [abs(pa[k].mean() - Kgt * Estar * F52(hexact[k] / sigma)) / (Kgt * Estar * F52(hexact[k] / sigma)) for k in range(len(t))]
checks.true("rough squeeze: asperity pressure = K E* F_5/2(h/sigma), max rel. error %.2e over H = %.2f..%.2f" % (max(errs), hexact[0] / sigma, hexact[-1] / sigma), max(errs) < 1e-5)
load = tdrun.dataset(out, "/films/f/load")[:, 2]
film_part = load - pa.mean(axis=1) * 0.01 * 0.01
checks.true("rough squeeze: load = film + asperity parts, asperity share %.2f -> %.2f" % (1 - film_part[1] / load[1], 1 - film_part[-1] / load[-1]), load[-1] > 0 and film_part[-1] > 0)

# 5. dry contact: uniform penetration of a plate into the base
Kg, eta, nexp, mud, Vd, Ud = 70e6, 50e7, 1.5, 0.15, 1e-3, 0.5
args = ["-bodies", "top,bottom",
        "-top_type", "rigid", "-top_box", "0,0,0,0.01,0.01,0.005", "-top_velocity", "0,0,%g" % -Vd,
        "-bottom_type", "rigid", "-bottom_box", "-0.05,-0.01,-0.005,0.06,0.02,0", "-bottom_velocity", "%g,0,0" % -Ud,
        "-films", "f", "-f_model", "dry", "-f_wall", "top:zmin", "-f_base", "bottom:zmax", "-f_cells", "8,8",
        "-f_Kg", str(Kg), "-f_eta", str(eta), "-f_n", str(nexp), "-f_mu_dry", str(mud), "-f_dry_eps", "1e-9",
        "-t_final", "2e-3", "-dt", "2e-4"]
out, _ = tdrun.run(args, name="dry")
t = tdrun.dataset(out, "/time")
load = tdrun.dataset(out, "/films/f/load")
fric = tdrun.dataset(out, "/films/f/friction")
k = len(t) - 1
d = Vd * t[k]
Fref = Kg * d ** nexp + eta * d ** nexp * Vd
checks.close("dry contact: normal force at penetration %.1f um [N]" % (d * 1e6), load[k, 2], Fref, 1e-3)
checks.close("dry contact: friction / normal force", -fric[k, 0] / load[k, 2], mud, 1e-3)
checks.finish()
