"""Films on free rigid bodies (formulation.md (F25)): a journal film between the exact cylinders
of a free pin and its bore, the film static or carried by the bore's body, against references
that do not come from the code:

1. A free journal (L/D = 1, c = 50 um, mu = 0.05 Pa s, 100 rad/s, a flooded axial groove) at
   eps = 0.6: its film carries the load of Raimondi and Boyd's table (S = 0.121) at their attitude
   angle (50.58 deg) (a 72 x 16 film: within 2 % and 1 deg), and under that load the free
   journal stays where it is (within 2 % of c over 5 ms).
2. The same bearing moving at 1 m/s, the film carried by the free bore: the journal settles where
   it settles in the static bearing (Galilean invariance of the film; within 1 % of c).
3. Jacobians against central differences on moving, spinning, cavitated states (Swift-Stieber and
   JFO; static and carried frame; a 36 x 8 film): the coordinate blocks at the default step; the force rows
   against the pressures, which are linear in p, at a step of 1e-3 (their central differences
   carry only rounding, which falls with the step).
4. The slider-crank of cases/slider_crank_film.opts over 2 ms: the pin stays inside the
   clearance, and the film's load on the slider's bore, along x (the slider's only free
   direction), is the slider's mass times its acceleration.
5. Bad input: a film on a free body's mesh face, a frame that is neither film body.
"""
import os
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
os.chdir(TOP)  # the slider-crank case includes cases/slider_crank_common.inc from the top
checks = tdrun.Checks("Films on free rigid bodies: journal against Raimondi-Boyd, moving frame, Jacobians, slider-crank")
work = tdrun.workdir(prefix="tribodyn_rigid_films_")
meshes = {}
for nc, nz in ((72, 16), (36, 8)):  # the bearing, and a coarser one for the Jacobian checks
    meshes[nc] = os.path.join(work, "groove%d.geo" % nc)
    with open(os.path.join(TOP, "meshes", "journal_groove.geo")) as src, open(meshes[nc], "w") as dst:
        dst.write(src.read().replace("nc = 180;", "nc = %d;" % nc).replace("nz = 40;", "nz = %d;" % nz))

R, c, L, mu, omega = 0.02, 50e-6, 0.04, 0.05, 100.0
S_rb, phi_rb = 0.121, 50.58
W = mu * omega / (2 * np.pi) * L * 2 * R * (R / c) ** 2 / S_rb
ph = np.radians(phi_rb)
load = (-W * np.sin(ph), -W * np.cos(ph))  # on the journal: the line of centres lands on -y


def journal(eps0, cav="swift_stieber", velocity=None, frame=False, nc=72):
    """A free journal at eccentricity eps0 along -y (the R-B line of centres); the bore prescribed
    at rest, or (velocity) a free bore of 1e6 kg moving with it and carrying the film."""
    e = eps0 * c
    bore = ["-bore_type", "rigid", "-bore_cylinder", "0,0,-0.001,0,0,%g,%g" % (L + 0.001, R)]
    if velocity:
        bore += ["-bore_motion", "free", "-bore_mass", "1e6", "-bore_inertia", "1e3,1e3,1e3", "-bore_com", "0,0,%g" % (L / 2),
                 "-bore_initial_velocity", velocity]
    shaft = ["-shaft_type", "rigid", "-shaft_motion", "free", "-shaft_mass", "1", "-shaft_inertia", "1000,1000,1000",
             "-shaft_com", "0,%g,%g" % (-e, L / 2), "-shaft_cylinder", "0,%g,-0.001,0,%g,%g,%g" % (-e, -e, L + 0.001, R - c),
             "-shaft_initial_angular_velocity", "0,0,%g" % omega]
    if velocity:
        shaft += ["-shaft_initial_velocity", velocity]
    return (["-bodies", "bore,shaft"] + bore + shaft +
            ["-films", "f", "-f_wall", "bore:surface", "-f_base", "shaft:surface", "-f_surface", meshes[nc], "-f_mu", str(mu),
             "-f_cavitation", cav, "-f_p_cav", "0", "-f_p_ref", "1e5", "-loads", "W", "-W_body", "shaft", "-W_point", "0,%g,%g" % (-e, L / 2),
             "-W_force", "%.10g,%.10g,0" % load] + (["-f_frame", "bore"] if frame else []))


def eccentricity(out, moving):
    fr = tdrun.dataset(out, "/bodies/shaft/frame")
    e = fr[:, :2].copy()
    if moving:
        e -= tdrun.dataset(out, "/bodies/bore/frame")[:, :2]
    return e


# 1. static bearing: the journal started on Raimondi and Boyd's point
out, proc = tdrun.run(journal(0.6) + ["-t_final", "0.005", "-dt", "1e-4", "-output_dt", "1e-3"], name="static")
Wf = -(tdrun.dataset(out, "/films/f/load")[0] - tdrun.dataset(out, "/films/f/friction")[0])  # the film's pressure force on the journal
Wm = np.hypot(Wf[0], Wf[1])
att = np.degrees(np.arccos(np.dot(-Wf[:2], [0, -1]) / Wm))
checks.true("free journal at eps = 0.6: the film carries %.1f N at %.2f deg from the line of centres (Raimondi-Boyd: W = %.1f N, %.2f deg): %.2f %%"
            % (Wm, att, W, phi_rb, 100 * abs(Wm / W - 1)), abs(Wm / W - 1) <= 0.02 and abs(att - phi_rb) <= 1.0)
e = eccentricity(out, False)
move = np.hypot(*(e[-1] - e[0])) / c
checks.true("... under that load it stays there: it moves %.2e c in 5 ms (eps %.4f to %.4f)" % (move, np.hypot(*e[0]) / c, np.hypot(*e[-1]) / c), move <= 0.02)
e_static = e[-1]

# 2. moving bearing, the film carried by the bore
out, _ = tdrun.run(journal(0.6, velocity="1,0,0", frame=True) + ["-t_final", "0.005", "-dt", "1e-4", "-output_dt", "1e-3"], name="moving")
em = eccentricity(out, True)
d = np.hypot(*(em[-1] - e_static)) / c
x_bore = tdrun.dataset(out, "/bodies/bore/frame")[-1][0]
checks.true("the same bearing moving at 1 m/s (the bore %.4f m on), its film carried by the bore: the journal within %.1e c of the static bearing's"
            % (x_bore, d), d <= 0.01 and abs(x_bore - 0.005) < 1e-4)

# 3. Jacobians
for label, args in (("static frame, Swift-Stieber", journal(0.6, nc=36) + ["-shaft_initial_velocity", "0.002,0.001,0"]),
                    ("static frame, JFO", journal(0.6, cav="jfo", nc=36) + ["-shaft_initial_velocity", "0.002,0.001,0"]),
                    ("carried frame, Swift-Stieber", journal(0.6, velocity="1,0.5,0", frame=True, nc=36) + ["-bore_initial_angular_velocity", "0,0,0.5"])):
    blocks = {}
    for step, want in (("1e-6", ("qq", "pq", "pp")), ("1e-3", ("qp",))):
        _, proc = tdrun.run(args + ["-t_final", "6e-4", "-dt", "1e-4", "-test_jacobian", "1", "-test_jacobian_time", "5e-4", "-test_jacobian_step", step],
                            name="jac")
        for line in proc.stdout.splitlines():
            if "Jacobian test block" in line:
                b = line.split("block")[1].split()[0]
                if b in want:
                    blocks[b] = float(line.split("=")[2].split(",")[0])
    checks.true("Jacobian, moving journal, %s: %s (coordinate blocks <= 1e-6 at step 1e-6; qp <= 1e-4 at step 1e-3)"
                % (label, {k: "%.1e" % v for k, v in sorted(blocks.items())}),
                set(blocks) == {"qq", "pq", "pp", "qp"} and max(blocks["qq"], blocks["pq"], blocks["pp"]) <= 1e-6 and blocks["qp"] <= 1e-4)

# 4. slider-crank with the lubricated joint
out, proc = tdrun.run(["-options_file", os.path.join(TOP, "cases", "slider_crank_film.opts"), "-t_final", "0.002"], name="sc_film")
rod = tdrun.dataset(out, "/bodies/rod/frame")
sl = tdrun.dataset(out, "/bodies/slider/frame")
C, rod_com, sl_com = np.array([0.17, 0, 0]), np.array([0.11, 0, 0]), np.array([0.17, 0, 0])
pin = rod[:, :3] + sum((C - rod_com)[k] * rod[:, 3 + 3 * k:6 + 3 * k] for k in range(3))
bore = sl[:, :3] + sum((C - sl_com)[k] * sl[:, 3 + 3 * k:6 + 3 * k] for k in range(3))
ecc = np.linalg.norm((pin - bore)[:, :2], axis=1)
Lf = tdrun.dataset(out, "/films/C/load")
_, a = tdrun.sensor(out, "slider_centre", "acceleration")
res = np.abs(Lf[:, 0] - 0.14 * a[:, 0])[1:].max() / np.abs(Lf[:, 0]).max()
checks.true("slider-crank with the film (0-2 ms): |e| <= %.2f um (c = 500 um); the film's load on the bore along x = m_slider a_x within %.1e of its peak %.0f N"
            % (1e6 * ecc.max(), res, np.abs(Lf[:, 0]).max()), 0 < ecc.max() < 500e-6 and res <= 1e-6)

# 5. bad input
base = ["-bodies", "a,b", "-a_type", "rigid", "-a_motion", "free", "-a_box", "0,0,0,1,1,1", "-b_type", "rigid", "-b_box", "0,0,1.001,1,1,2",
        "-films", "f", "-f_wall", "a:zmax", "-f_base", "b:zmin", "-t_final", "1e-4", "-dt", "1e-4"]
_, proc = tdrun.run(base, expect_ok=False, name="bad")
checks.true("bad input, a film on a free body's mesh face: exit %d" % proc.returncode,
            proc.returncode != 0 and "runs on its exact cylinder" in proc.stdout + proc.stderr)
_, proc = tdrun.run(journal(0.6) + ["-f_frame", "shaftx", "-t_final", "1e-4", "-dt", "1e-4"], expect_ok=False, name="bad")
checks.true("bad input, a frame that is neither film body: exit %d" % proc.returncode,
            proc.returncode != 0 and "-f_frame = shaftx" in proc.stdout + proc.stderr)
checks.finish()
