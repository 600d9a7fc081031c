"""Generalised-alpha through the whole program (formulation.md §5).

1. Second order: the tip-displacement history of a cantilever under a half-sine tip pulse,
   with dt, dt/2, dt/4, dt/8: successive differences fall by 4 (observed order 2 +- 0.3).
2. Energy: rho_inf = 1, no damping, no loads, initial velocity: kinetic + strain energy
   constant to 0.5 % over 400 steps.
"""
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

L, b, h = 0.508, 0.125 * 0.0254, 0.5 * 0.0254
tip = "%g,%g,%g" % (L, b / 2, h / 2)
beam = ["-bodies", "beam", "-beam_box", "0,0,0,%g,%g,%g" % (L, b, h), "-beam_cells", "10,1,1",
        "-beam_E", "71.7e9", "-beam_nu", "0.33", "-beam_rho", "2700", "-beam_clamp", "xmin",
        "-sensors", "tip", "-tip_body", "beam", "-tip_point", tip]
checks = tdrun.Checks("Generalised-alpha in tribodyn: order of accuracy and energy")

pulse = ["-loads", "push", "-push_body", "beam", "-push_point", tip, "-push_force", "0,0,-20",
         "-push_profile", "halfsine", "-push_duration", "0.004", "-t_final", "0.012",
         "-output_dt", "4e-4", "-rho_inf", "0.8"]
hist = []
for k, dt in enumerate((4e-4, 2e-4, 1e-4, 5e-5)):
    out, _ = tdrun.run(beam + pulse + ["-dt", str(dt)], name="dt%d" % k)
    t, d = tdrun.sensor(out, "tip")
    hist.append(d[:, 2])
diffs = [np.max(np.abs(hist[k] - hist[k + 1])) for k in range(3)]
orders = [np.log2(diffs[k] / diffs[k + 1]) for k in range(2)]
print("  max differences between successive dt: %s" % ", ".join("%.3e" % x for x in diffs))
for k, p in enumerate(orders):
    checks.close("observed order, levels %d-%d" % (k + 1, k + 3), p, 2.0, 0.15)

free = ["-beam_initial_velocity", "0,0.3,0.5", "-t_final", "0.04", "-dt", "1e-4", "-rho_inf", "1"]
out, _ = tdrun.run(beam + free, name="energy")
ek = tdrun.dataset(out, "/energy/kinetic")
es = tdrun.dataset(out, "/energy/strain")
total = ek + es
drift = np.max(np.abs(total - total[0])) / total[0]
checks.true("steps", len(total) == 401, "%d records" % len(total))
checks.true("strain energy exchanged (max strain / initial kinetic > 0.5)", es.max() / total[0] > 0.5, "%.3f" % (es.max() / total[0]))
checks.close("energy: max |E(t) - E(0)| / E(0) below 0.5 %", drift + 1.0, 1.0, 0.005)
checks.finish()
