"""Static verification of the ANCF 3843 body against beam theory (issue 2).

Cantilever L = 0.508 m, section 0.125 x 0.5 in (the load along the 0.5 in side), aluminium
E = 71.7 GPa, nu = 0.33, 20 x 1 x 1 elements, clamped at x = 0:
  - tip load 10 N:   P L^3 / (3 E I) = 1.124546e-2 m      (Euler-Bernoulli)
  - gravity:         q L^4 / (8 E I)                      (q = rho g A)
  - axial pull:      P L / (E A)
each within 1 %.  Poisson's ratio is the real one (0.33): the element's locking remedy
(src/kernels/ancf3843.c) is what these checks exercise.
"""
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun

L, b, h = 0.508, 0.125 * 0.0254, 0.5 * 0.0254   # b along y, h along z (load direction)
E, nu, rho = 71.7e9, 0.33, 2700.0
I = b * h ** 3 / 12
A = b * h
tip = "%g,%g,%g" % (L, b / 2, h / 2)
beam = ["-bodies", "beam", "-beam_box", "0,0,0,%g,%g,%g" % (L, b, h), "-beam_cells", "20,1,1",
        "-beam_E", str(E), "-beam_nu", str(nu), "-beam_rho", str(rho), "-beam_clamp", "xmin",
        "-sensors", "tip", "-tip_body", "beam", "-tip_point", tip, "-static"]

checks = tdrun.Checks("Static beam checks (ANCF 3843, 20 x 1 x 1 elements, nu = 0.33)")

P = 10.0
ref = P * L ** 3 / (3 * E * I)
out, _ = tdrun.run(beam + ["-loads", "push", "-push_body", "beam", "-push_point", tip,
                           "-push_force", "0,0,%g" % -P, "-load_steps", "2"], name="tip")
t, d = tdrun.sensor(out, "tip")
checks.close("tip load: tip deflection [m]", -d[-1, 2], ref, 0.01)
checks.close("tip load: analytic value 1.124546e-2 [m]", ref, 1.124546e-2, 1e-6)

g = 9.81
q = rho * g * A
ref = q * L ** 4 / (8 * E * I)
out, _ = tdrun.run(beam + ["-gravity", "0,0,%g" % -g, "-load_steps", "1"], name="gravity")
t, d = tdrun.sensor(out, "tip")
checks.close("gravity: tip deflection [m]", -d[-1, 2], ref, 0.01)

P = 1000.0
ref = P * L / (E * A)
out, _ = tdrun.run(beam + ["-loads", "pull", "-pull_body", "beam", "-pull_point", tip,
                           "-pull_force", "%g,0,0" % P, "-load_steps", "1"], name="axial")
t, d = tdrun.sensor(out, "tip")
checks.close("axial pull: tip extension [m]", d[-1, 0], ref, 0.01)
checks.finish()
