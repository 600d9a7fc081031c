"""Curved ANCF bodies from arbitrary all-hexahedral Gmsh meshes (first-order hex8, second-order
hex27 and hex20) against references that do not come from the code:

1. Lame: the thick-walled tube of meshes/tube.geo (a = 0.05 m, b = 0.1 m, L = 0.02 m, steel
   E = 210 GPa) under an internal pressure p = 1e7 Pa (tube:inner) with free ends, solved with
   -static.  Free ends and an internal pressure make the open-ended Lame solution, an exact
   solution of 3-D linear elasticity: sigma_z = 0,
       u_r(r) = [(1 - nu) A r + (1 + nu) B / r] / E,   u_z = -2 nu A z / E + const,
       A = p a^2 / (b^2 - a^2),   B = p a^2 b^2 / (b^2 - a^2).
   The strains are below 1e-4, so the geometric nonlinearity (finite strain, follower pressure)
   is of that relative order, below every tolerance here.  The free tube's six rigid-body modes
   are held by six weak springs to ground at the outer surface in the mid-plane, at 0, 120 and
   240 deg: one circumferential and one axial spring at each point.  The Lame deformation moves
   these points radially (which changes the springs' lengths only to second order) and leaves
   the mid-plane where it is, while the pressure is self-equilibrated: the springs carry no
   load to first order and only fix the rigid-body position.  Their stiffness (1e3 N/m, against
   E L ~ 4e9 N/m for the tube) is checked not to matter: ten times the stiffness changes u_r by
   less than 1e-6 of itself (1e-9 was seen).  u_r is read at material points (sensors) on the
   inner and outer surfaces in the mid-plane at 0 and 45 deg (nodes of every mesh used), the
   axial strain from two sensors at z = 0 and z = L on the outer surface.

   a. nu = 0.  The element's locking remedy evaluates the Poisson part of St. Venant-Kirchhoff
      on the element-mean normal strains (src/kernels/ancf3843.c); with nu = 0 that part is
      zero, so this case sees the curved cells' geometry and kinematics alone (u_z = 0).
      - hex27 and hex20, 24 x 2 x 1 cells (the arcs' mid-side nodes on the circles): u_r within
        TOL_NU0_ORDER2 = 1e-3 (4.6e-5 was seen), |eps_z| below TOL_NU0_EZ = 2e-3 of the hoop
        strain u_r(a)/a (4e-4 was seen).
      - hex8, 24 x 2 x 1 and 48 x 4 x 1 cells: first-order cells make the section a polygon
        (the 24-gon has 1.1 % less area than the annulus), an error of second order in the cell
        size: 0.90 % and 0.23 % were seen; the tolerances are 1.5 % and 0.4 %, and the error
        must fall by at least RATIO_HEX8 = 3 (4.0 seen) when the cells are halved.
   b. nu = 0.3, hex27, 24 x NR x 1 cells with NR = 2, 4, 8 through the wall.  Here the mean-strain
      Poisson part is active, and the Lame field has a steep through-wall gradient of the normal
      strains (eps_r and eps_theta vary by a factor 3 across the inner cell at NR = 2, their sum
      is constant), so the projection of those strains onto cell constants is the dominant error:
      u_r 0.98 %, 0.20 %, 0.05 % and eps_z 6.8 %, 2.6 %, 0.78 % were seen at NR = 2, 4, 8
      (refining NT or NZ instead changes nothing: it is the radial cell size).  Checked: at
      NR = 8, u_r within TOL_LAME_UR = 0.2 % and eps_z within TOL_LAME_EZ = 1.5 %, and every
      halving of the radial cells divides both errors by at least RATIO_LAME = 2 (2.6 to 7.4
      seen), i.e. the element converges to the exact solution rather than to a wrong one.
2. The free ring of meshes/ring.geo (R = 0.1 m, h = 5 mm radial, w = 5 mm axial, 48 x 1 x 1
   hex8 cells, nu = 0.3), no constraints: two equal and opposite radial half-sine point loads at
   x = +-(R + h/2) (outer surface, mid-width; 0.3 ms, a tenth of the n = 2 period) excite the
   in-plane modes with cos(n theta), n even, and neither a net force nor a moment.  The diameter
   change along x (two sensors) over 20 ms (dt = 1e-5 s, rho_inf = 1: no numerical damping,
   period error (omega dt)^2 / 12 = 3e-5 for n = 2, 1e-3 for n = 4) is fitted by a matrix pencil
   (as in guide_frequencies.py).  Thin-ring (inextensional, Hoppe) theory:
       omega_n = n (n^2 - 1) / sqrt(n^2 + 1) sqrt(E I / (rho A R^4)),  I = w h^3 / 12,  A = w h,
   319.8 Hz for n = 2 and 1734.6 Hz for n = 4.  Its error (shear, rotary inertia, extension) is
   O(n^2 (h/R)^2 / 12) times a factor of a few, about 0.3 % for n = 2 and 1.5 % for n = 4; the
   48-gon's faceting adds a few tenths of a percent: TOL_RING2 = 1 % (2.2e-4 seen) and
   TOL_RING4 = 2 % (6.2e-3 seen).
3. Bad input: a tetrahedral mesh (the message names hexahedra); a sheared hexahedron listed top
   face first (inverted everywhere), one with a corner pushed past its centre (inverted at that
   corner) and one with two coincident corners, written by hand as MSH 2.2 (the message names the
   file and the cell by its Gmsh element tag); a pressure on a face the tube does not have (the
   message names the option); and a valid sheared hexahedron (a parallelepiped, not a box) is
   accepted.  (A rectangular box listed top face first is accepted as well: box cells are
   reoriented by their geometry, so it is not a bad cell and is not tested here.)
"""
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

SRC = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
MESHES = os.path.join(SRC, "meshes")
WORK = tdrun.workdir(prefix="tribodyn_curved_")

# tolerances (the reasons are in the docstring; the values observed when the test was written
# are in the comments)
TOL_NU0_ORDER2 = 1e-3    # nu = 0, hex27 / hex20 24 x 2 x 1: u_r (observed 4.6e-5)
TOL_NU0_EZ = 2e-3        # nu = 0: |eps_z| / (u_r(a) / a) (observed 4.3e-4)
TOL_NU0_HEX8 = 0.015     # nu = 0, hex8 24 x 2 x 1: u_r (observed 9.0e-3)
TOL_NU0_HEX8_FINE = 0.004  # nu = 0, hex8 48 x 4 x 1: u_r (observed 2.3e-3)
RATIO_HEX8 = 3.0         # nu = 0, hex8: error(24 x 2 x 1) / error(48 x 4 x 1) (observed 4.0)
TOL_LAME_UR = 0.002      # nu = 0.3, hex27 24 x 8 x 1: u_r (observed 5.0e-4)
TOL_LAME_EZ = 0.015      # nu = 0.3, hex27 24 x 8 x 1: eps_z (observed 7.8e-3)
RATIO_LAME = 2.0         # nu = 0.3, hex27: error ratio per halving of the radial cells (observed 2.6 to 7.4)
TOL_SPRINGS = 1e-6       # change of u_r when the springs are 10 times stiffer (observed 1e-9)
TOL_RING2 = 0.01         # n = 2 ring frequency against thin-ring theory (observed 2.2e-4)
TOL_RING4 = 0.02         # n = 4 (observed 6.2e-3)

checks = tdrun.Checks("Curved ANCF bodies: Lame tube (hex8, hex27, hex20), free ring frequency, bad input")


def fmt(x):
    return ",".join(repr(float(v)) for v in x)


def run(args, name, **kw):
    t0 = time.time()
    out, proc = tdrun.run(args, workdir=WORK, name=name, **kw)
    print("  [run %s: %.1f s]" % (name, time.time() - t0))
    return out, proc


def matrix_pencil(y, dt, order):
    """Frequencies [Hz] and amplitudes of the sum of `order` damped exponentials that fits the
    samples y (spacing dt): the signal poles are the eigenvalues of the shifted pair of the
    dominant right singular vectors of the Hankel matrix of y (Hua and Sarkar's matrix pencil)."""
    n = len(y)
    m = n // 3                                       # pencil parameter
    H = np.lib.stride_tricks.sliding_window_view(y, m + 1)
    V = np.linalg.svd(H, full_matrices=False)[2][:order].T
    z = np.linalg.eigvals(np.linalg.lstsq(V[:-1], V[1:], rcond=None)[0])
    amp = np.linalg.lstsq(np.power.outer(z, np.arange(n)).T, y.astype(complex), rcond=None)[0]
    return np.angle(z) / (2 * np.pi * dt), np.abs(amp)


def geo(name, text):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(text)
    return path


# ------------------------------------------------------------------------------------------
# 1. Lame
E, rho = 210e9, 7800.0
a, b, L, p = 0.05, 0.1, 0.02, 1e7
A = p * a * a / (b * b - a * a)
B = p * a * a * b * b / (b * b - a * a)


def u_r(r, nu):
    return ((1 - nu) * A * r + (1 + nu) * B / r) / E


def eps_z(nu):
    return -2 * nu * A / E


angles = (0.0, 45.0)
sensors = {}
for r, where in ((a, "in"), (b, "out")):
    for th in angles:
        c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
        sensors["%s%d" % (where, th)] = (r, th, (r * c, r * s, L / 2))
sensors["ax0"] = (b, 0.0, (b, 0.0, 0.0))  # axial strain: z = 0 and z = L
sensors["ax1"] = (b, 0.0, (b, 0.0, L))


def lame_args(mesh, nu, k=1e3):
    args = ["-bodies", "tube", "-tube_mesh", mesh, "-tube_E", str(E), "-tube_nu", str(nu), "-tube_rho", str(rho),
            "-static", "-load_steps", "2", "-loads", "oil,t0,t1,t2,z0,z1,z2",
            "-oil_type", "pressure", "-oil_face", "tube:inner", "-oil_pressure", str(p)]
    for i, th in enumerate((0.0, 120.0, 240.0)):
        c, s = math.cos(math.radians(th)), math.sin(math.radians(th))
        P = np.array([b * c, b * s, L / 2])
        for kind, d in (("t", np.array([-s, c, 0.0])), ("z", np.array([0.0, 0.0, 1.0]))):
            n = "%s%d" % (kind, i)
            args += ["-%s_type" % n, "spring", "-%s_body" % n, "tube", "-%s_point" % n, fmt(P),
                     "-%s_body2" % n, "ground", "-%s_point2" % n, fmt(P + 0.1 * d), "-%s_stiffness" % n, str(k)]
    args += ["-sensors", ",".join(sensors)]
    for n, (_, _, X) in sensors.items():
        args += ["-%s_body" % n, "tube", "-%s_point" % n, fmt(X)]
    return args


def lame(mesh, name, nu, k=1e3):
    """Runs the tube; returns {sensor: u_r} for the mid-plane sensors and the axial strain."""
    out, _ = run(lame_args(mesh, nu, k), name)
    ur = {}
    for n, (r, th, X) in sensors.items():
        if n.startswith("ax"):
            continue
        _, d = tdrun.sensor(out, n)
        ur[n] = d[-1, 0] * math.cos(math.radians(th)) + d[-1, 1] * math.sin(math.radians(th))
    _, d0 = tdrun.sensor(out, "ax0")
    _, d1 = tdrun.sensor(out, "ax1")
    return ur, (d1[-1, 2] - d0[-1, 2]) / L


def ur_error(ur, nu):
    return max(abs(v - u_r(sensors[n][0], nu)) / u_r(sensors[n][0], nu) for n, v in ur.items())


def report_ur(label, ur, nu, tol):
    for n, v in ur.items():
        r, th, _ = sensors[n]
        checks.close("%s: u_r(r = %g, %g deg) [m]" % (label, r, th), v, u_r(r, nu), tol)


def tube_geo(NT, NR, order=1, incomplete=0):
    """A .geo that sets the counts and includes meshes/tube.geo (or tube_order2.geo)."""
    inc = os.path.join(MESHES, "tube_order2.geo" if order == 2 else "tube.geo")
    text = "NT = %d; NR = %d;\nInclude \"%s\";\n" % (NT, NR, inc)
    if incomplete:
        text += "Mesh.SecondOrderIncomplete = 1;\n"
    return geo("tube_%d_%d_%d_%d.geo" % (NT, NR, order, incomplete), text)


hex8, hex8_fine = os.path.join(MESHES, "tube.geo"), tube_geo(12, 4)
hex27, hex20 = os.path.join(MESHES, "tube_order2.geo"), tube_geo(6, 2, 2, 1)
for nu in (0.0, 0.3):
    print("Lame, nu = %g: u_r(a) = %.6e m, u_r(b) = %.6e m, eps_z = %.6e" % (nu, u_r(a, nu), u_r(b, nu), eps_z(nu)))

# 1a. nu = 0: the curved cells' geometry and kinematics alone (no Poisson part)
hoop = u_r(a, 0.0) / a
for label, mesh, name in (("nu = 0, hex27 24x2x1", hex27, "tube_hex27_nu0"), ("nu = 0, hex20 24x2x1", hex20, "tube_hex20_nu0")):
    ur, ez = lame(mesh, name, 0.0)
    report_ur(label, ur, 0.0, TOL_NU0_ORDER2)
    checks.true("%s: |eps_z| / (u_r(a)/a) = %.1e <= %.0e" % (label, abs(ez) / hoop, TOL_NU0_EZ), abs(ez) / hoop <= TOL_NU0_EZ)
ur8, ez8 = lame(hex8, "tube_hex8_nu0", 0.0)
report_ur("nu = 0, hex8 24x2x1", ur8, 0.0, TOL_NU0_HEX8)
ur8f, ez8f = lame(hex8_fine, "tube_hex8_fine_nu0", 0.0)
report_ur("nu = 0, hex8 48x4x1", ur8f, 0.0, TOL_NU0_HEX8_FINE)
for label, ez in (("hex8 24x2x1", ez8), ("hex8 48x4x1", ez8f)):
    checks.true("nu = 0, %s: |eps_z| / (u_r(a)/a) = %.1e <= %.0e" % (label, abs(ez) / hoop, TOL_NU0_EZ), abs(ez) / hoop <= TOL_NU0_EZ)
e1, e2 = ur_error(ur8, 0.0), ur_error(ur8f, 0.0)
checks.true("nu = 0, hex8: u_r error 24x2x1 %.3e / 48x4x1 %.3e = %.2f >= %.1f" % (e1, e2, e1 / e2, RATIO_HEX8), e1 / e2 >= RATIO_HEX8)

# 1b. nu = 0.3: the full Lame solution, hex27 refined through the wall
errs = []
for NR in (2, 4, 8):
    mesh = hex27 if NR == 2 else tube_geo(6, NR, 2)
    ur, ez = lame(mesh, "tube_hex27_nr%d" % NR, 0.3)
    eu, ee = ur_error(ur, 0.3), abs(ez - eps_z(0.3)) / abs(eps_z(0.3))
    print("  nu = 0.3, hex27 24x%dx1: worst u_r error %.3e, eps_z %.6e (error %.3e)" % (NR, eu, ez, ee))
    errs.append((NR, eu, ee))
    if NR == 2:
        urk, _ = lame(mesh, "tube_hex27_nr2_stiff", 0.3, k=1e4)
        dk = max(abs(urk[n] - ur[n]) / abs(ur[n]) for n in ur)
        checks.true("nu = 0.3, hex27 24x2x1: springs 10x stiffer change u_r by %.1e <= %.0e" % (dk, TOL_SPRINGS), dk <= TOL_SPRINGS)
report_ur("nu = 0.3, hex27 24x8x1", ur, 0.3, TOL_LAME_UR)
checks.close("nu = 0.3, hex27 24x8x1: axial strain", ez, eps_z(0.3), TOL_LAME_EZ)
for (n1, u1, z1), (n2, u2, z2) in zip(errs, errs[1:]):
    checks.true("nu = 0.3, hex27: NR %d -> %d: u_r error / %.2f, eps_z error / %.2f, both >= %.1f" % (n1, n2, u1 / u2, z1 / z2, RATIO_LAME),
                u1 / u2 >= RATIO_LAME and z1 / z2 >= RATIO_LAME)

# ------------------------------------------------------------------------------------------
# 2. free ring, in-plane n = 2 bending
R, h, w = 0.1, 0.005, 0.005
I, Ar = w * h ** 3 / 12, w * h


def f_ring(n):
    return n * (n * n - 1) / math.sqrt(n * n + 1) * math.sqrt(E * I / (rho * Ar * R ** 4)) / (2 * math.pi)


nu = 0.3
F, pulse, dt = 50.0, 3e-4, 1e-5
ring = ["-bodies", "ring", "-ring_mesh", os.path.join(MESHES, "ring.geo"), "-ring_E", str(E), "-ring_nu", str(nu), "-ring_rho", str(rho),
        "-loads", "pa,pb", "-pa_body", "ring", "-pa_point", fmt((R + h / 2, 0, w / 2)), "-pa_force", fmt((F, 0, 0)),
        "-pb_body", "ring", "-pb_point", fmt((-R - h / 2, 0, w / 2)), "-pb_force", fmt((-F, 0, 0)),
        "-pa_profile", "halfsine", "-pa_duration", str(pulse), "-pb_profile", "halfsine", "-pb_duration", str(pulse),
        "-sensors", "sa,sb", "-sa_body", "ring", "-sa_point", fmt((R, 0, w / 2)), "-sb_body", "ring", "-sb_point", fmt((-R, 0, w / 2)),
        "-t_final", "0.02", "-dt", str(dt), "-rho_inf", "1", "-output_fields_dt", "0.001",
        "-snes_lag_jacobian", "-2", "-snes_lag_jacobian_persists"]
out, _ = run(ring, "ring")
t, ua = tdrun.sensor(out, "sa")
_, ub = tdrun.sensor(out, "sb")
keep = t > 1.5 * pulse
y = (ua[keep, 0] - ub[keep, 0])
y = y - y.mean()
freq, amp = matrix_pencil(y[::2], 2 * (t[1] - t[0]), 16)
found = sorted((fr, am) for fr, am in zip(freq, amp) if fr > 100)
print("  ring: matrix-pencil frequencies [Hz] (amplitude [m]): %s" % ", ".join("%.1f (%.1e)" % x for x in found))
for n, tol in ((2, TOL_RING2), (4, TOL_RING4)):
    fn = f_ring(n)
    near = [(am, fr) for fr, am in found if abs(fr - fn) < 0.15 * fn]
    if near:
        checks.close("free ring, n = %d in-plane bending frequency [Hz]" % n, max(near)[1], fn, tol)
    else:
        checks.true("free ring: a mode near %.1f Hz (n = %d)" % (fn, n), False, str(found))

# ------------------------------------------------------------------------------------------
# 3. bad input
run_short = ["-t_final", "1e-5", "-dt", "1e-5"]

tet = geo("tets.geo", """// a 0.1 m cube meshed with tetrahedra (no Recombine)
Point(1) = {0, 0, 0, 0.05}; Point(2) = {0.1, 0, 0, 0.05}; Point(3) = {0.1, 0.1, 0, 0.05}; Point(4) = {0, 0.1, 0, 0.05};
Line(1) = {1, 2}; Line(2) = {2, 3}; Line(3) = {3, 4}; Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4}; Plane Surface(1) = {1};
ex[] = Extrude {0, 0, 0.1} { Surface{1}; };
Physical Surface("bottom") = {1};
Physical Volume("cube") = {ex[1]};
""")


def msh(name, comment, nodes, hexa):
    """One 8-node hexahedron (element tag 7) and a quadrangle group 'bottom', MSH 2.2 ASCII."""
    lines = ["$MeshFormat", "2.2 0 8", "$EndMeshFormat", "$Comments", comment, "$EndComments",
             "$PhysicalNames", "2", '2 1 "bottom"', '3 2 "body"', "$EndPhysicalNames", "$Nodes", str(len(nodes))]
    lines += ["%d %r %r %r" % (i + 1, x, y, z) for i, (x, y, z) in enumerate(nodes)]
    lines += ["$EndNodes", "$Elements", "2", "1 3 2 1 1 1 4 3 2", "7 5 2 2 1 " + " ".join(str(n) for n in hexa), "$EndElements"]
    return geo(name, "\n".join(lines) + "\n")


cube = [(0, 0, 0), (0.1, 0, 0), (0.1, 0.1, 0), (0, 0.1, 0), (0, 0, 0.1), (0.1, 0, 0.1), (0.1, 0.1, 0.1), (0, 0.1, 0.1)]
shear = cube[:4] + [(x + 0.02, y, z) for x, y, z in cube[4:]]
sheared = msh("sheared.msh", "a valid parallelepiped (top face sheared by 0.02 m along x)", shear, [1, 2, 3, 4, 5, 6, 7, 8])
inverted = msh("inverted.msh", "the parallelepiped with its top face listed first: negative Jacobian everywhere", shear, [5, 6, 7, 8, 1, 2, 3, 4])
folded = msh("folded.msh", "a cube whose corner 7 is pushed past the centre: inverted at that corner",
             cube[:6] + [(0.03, 0.03, 0.03)] + cube[7:], [1, 2, 3, 4, 5, 6, 7, 8])
degenerate = msh("degenerate.msh", "a hexahedron with two coincident corners (nodes 6 and 7)",
                 cube[:6] + [cube[5]] + cube[7:], [1, 2, 3, 4, 5, 6, 7, 8])


def bad(title, args, needles, alternatives=()):
    """needles: all must appear; alternatives: groups of words, one word of each group must appear."""
    _, proc = tdrun.run(args, expect_ok=False, workdir=WORK, name="bad")
    text = proc.stdout + proc.stderr
    lines = [l.strip() for l in text.splitlines() if "error" in l.lower() or "tribodyn" in l or "mesh" in l]
    msg = next((l for l in lines if all(n in l for n in needles)), lines[0] if lines else text[:200])
    ok = all(n in text for n in needles) and all(any(w.lower() in text.lower() for w in g) for g in alternatives)
    checks.true("bad input, %s: exit %d" % (title, proc.returncode), proc.returncode != 0 and ok, msg[:200])


bad("tetrahedral mesh", ["-bodies", "c", "-c_mesh", tet] + run_short, ["tets.geo"], [["hexahedr"]])
# the cells named by their Gmsh element tag (7)
for title, mesh in (("inverted hexahedron", inverted), ("hexahedron folded at a corner", folded),
                    ("hexahedron with coincident corners", degenerate)):
    bad(title, ["-bodies", "c", "-c_mesh", mesh] + run_short, [os.path.basename(mesh), "element 7"],
        [["inverted", "degenerate"]])
args = lame_args(hex8, 0.3)
args[args.index("-oil_face") + 1] = "tube:nosuchface"
bad("pressure on a face the tube does not have", args, ["-oil_face", "nosuchface"])
_, proc = tdrun.run(["-bodies", "c", "-c_mesh", sheared, "-dry_run"], expect_ok=False, workdir=WORK, name="sheared")
checks.true("a valid sheared hexahedron is accepted (-dry_run): exit %d" % proc.returncode, proc.returncode == 0,
            "" if proc.returncode == 0 else (proc.stdout + proc.stderr).strip()[-200:])
checks.finish()
