"""Harmonic prescribed motion of rigid bodies (-<b>_oscillation ax,ay,az,f[,phase]) and the
oscillating squeeze film it drives, against the closed-form solution:

Long parallel plates (length L along x, width B, zero-flux sides ymin/ymax so that the film is
1-D), p = 0 at x = 0 and x = L, the upper plate at h(t) = h0 (1 + 0.5 sin(2 pi f t + phase)).
Reynolds, d/dx(h^3/(12 mu) dp/dx) = dh/dt, gives p = -(6 mu h'/h^3) x (L - x) and the load
W(t) = -mu h' L^3 B / h^3.
1. The film height follows the prescribed motion exactly (h_min = h(t)).
2. Without cavitation (-f_cavitation none): W(t) within 0.1 % of the largest |W| over a period.
3. Swift-Stieber (p >= 0), phase 90 degrees: while the plates separate (h' > 0) the whole film
   cavitates, so W(t) = max(-mu h' L^3 B / h^3, 0); p_max stays at 0 in the separating half.
   (Swift-Stieber does not conserve mass; the mass-conserving JFO model, not yet in tribodyn,
   would keep the cavity open longer once the plates approach again.)
4. Bad input: three values, a frequency that is not positive.
"""
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

checks = tdrun.Checks("Oscillating squeeze film driven by -<b>_oscillation, against the closed form")
mu, h0, L, B, f = 0.05, 50e-6, 0.02, 0.02, 100.0
om = 2 * np.pi * f


def case(cavitation, phase_deg):
    osc = "0,0,%g,%g" % (0.5 * h0, f) + (",%g" % phase_deg if phase_deg else "")
    args = ["-bodies", "top,bottom",
            "-top_type", "rigid", "-top_box", "0,0,%g,%g,%g,0.005" % (h0, L, B), "-top_oscillation", osc,
            "-bottom_type", "rigid", "-bottom_box", "0,0,-0.005,%g,%g,0" % (L, B),
            "-films", "f", "-f_wall", "top:zmin", "-f_base", "bottom:zmax", "-f_cells", "200,2", "-f_noflux", "ymin,ymax",
            "-f_mu", str(mu), "-f_cavitation", cavitation, "-t_final", "0.01", "-dt", "1e-4"]
    out, _ = tdrun.run(args, name="squeeze_" + cavitation)
    t = tdrun.dataset(out, "/time")
    ph = om * t + np.radians(phase_deg)
    h, hd = h0 * (1 + 0.5 * np.sin(ph)), 0.5 * h0 * om * np.cos(ph)
    return out, t, h, hd, -mu * hd * L ** 3 * B / h ** 3


out, t, h, hd, Wfull = case("none", 0)
hm = tdrun.dataset(out, "/films/f/h_min")
checks.true("h_min = h0 (1 + 0.5 sin 2 pi f t) over a period: worst %.1e m" % np.abs(hm - h).max(), np.abs(hm - h).max() < 1e-12)
W = tdrun.dataset(out, "/films/f/load")[:, 2]
err = np.abs(W - Wfull).max() / np.abs(Wfull).max()
checks.true("full film: W(t) vs -mu h' L^3 B / h^3, worst %.2e of max |W| = %.1f N" % (err, np.abs(Wfull).max()), err <= 1e-3)

out, t, h, hd, Wfull = case("swift_stieber", 90)
W = tdrun.dataset(out, "/films/f/load")[:, 2]
pmax = tdrun.dataset(out, "/films/f/p_max")
Wss = np.maximum(Wfull, 0)
err = np.abs(W - Wss).max() / np.abs(Wss).max()
checks.true("Swift-Stieber, phase 90 deg: W(t) vs max(-mu h' L^3 B / h^3, 0), worst %.2e" % err, err <= 1e-3)
sep = hd > 0
checks.true("Swift-Stieber: p_max while separating %.2e Pa (<= 1e-6 of the peak %.3g Pa)" % (pmax[sep].max(), pmax.max()),
            pmax[sep].max() <= 1e-6 * pmax.max())

for what, value, message in (("three values", "0,0,1e-6", "expected 4 to 5 comma-separated values"),
                             ("frequency 0", "0,0,1e-6,0", "the frequency (4th value) must be positive")):
    args = ["-bodies", "top", "-top_type", "rigid", "-top_box", "0,0,0,1,1,1", "-top_oscillation", value, "-t_final", "1e-3", "-dt", "1e-3"]
    _, proc = tdrun.run(args, expect_ok=False, name="bad")
    checks.true("bad input, -top_oscillation %s: exit %d, '%s'" % (what, proc.returncode, message),
                proc.returncode != 0 and message in proc.stdout + proc.stderr)
checks.finish()
