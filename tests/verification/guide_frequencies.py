"""First two bending frequencies of the clamped-clamped guide from a free-vibration run.

Guide 340 x 50 x 5 mm, steel E = 210 GPa, nu = 0, rho = 7800 kg/m^3, 34 x 5 x 1 elements,
both end faces clamped.  A short half-sine tap at x = 0.1 m excites the symmetric and the
antisymmetric modes; the frequencies are extracted from the displacement history of two
sensors by the matrix-pencil method (a least-squares fit of damped exponentials, independent
of the FFT's resolution) and compared with Euler-Bernoulli: 230.69 Hz and 635.91 Hz
(beta L = 4.730041, 7.853205), within 2 %.
"""
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun


def matrix_pencil(y, dt, order):
    """Frequencies [Hz] and amplitudes of the damped exponentials fitting y."""
    n = len(y)
    L = n // 3
    Y = np.array([y[i:i + L + 1] for i in range(n - L)])
    U, s, Vt = np.linalg.svd(Y, full_matrices=False)
    V = Vt[:order].T
    V1, V2 = V[:-1], V[1:]
    z = np.linalg.eigvals(np.linalg.pinv(V1) @ V2)
    Z = np.vander(z, n, increasing=True).T
    amp = np.linalg.lstsq(Z, y.astype(complex), rcond=None)[0]
    freq = np.angle(z) / (2 * np.pi * dt)
    return freq, np.abs(amp)


args = ["-bodies", "guide", "-guide_box", "0,-0.025,-0.005,0.34,0.025,0", "-guide_cells", "34,5,1",
        "-guide_E", "210e9", "-guide_nu", "0", "-guide_rho", "7800", "-guide_clamp", "xmin,xmax",
        "-loads", "tap", "-tap_body", "guide", "-tap_point", "0.1,0,0", "-tap_force", "0,0,-20",
        "-tap_profile", "halfsine", "-tap_duration", "2e-4",
        "-sensors", "s1,s2", "-s1_body", "guide", "-s1_point", "0.1,0,-0.005",
        "-s2_body", "guide", "-s2_point", "0.25,0,-0.005",
        "-t_final", "0.03", "-dt", "2e-5", "-rho_inf", "1",
        "-snes_lag_jacobian", "-2", "-snes_lag_jacobian_persists"]
# two threads for speed, under the governor (a busy machine keeps the run on one)
out, _ = tdrun.run(args + ["-threads_policy", "auto"], threads=2, name="guide")
checks = tdrun.Checks("Clamped-clamped guide, 34 x 5 x 1 ANCF 3843 elements: bending frequencies")
found = []
for s in ("s1", "s2"):
    t, d = tdrun.sensor(out, s)
    keep = t > 3e-4
    y = d[keep, 2] - d[keep, 2].mean()
    y = y[::2]
    f, a = matrix_pencil(y, 2 * (t[1] - t[0]), 24)
    pos = f > 50
    found += list(zip(f[pos], a[pos]))
for k, ref in enumerate((230.69, 635.91)):
    near = [(abs(fr - ref), fr, am) for fr, am in found if abs(fr - ref) < 0.15 * ref]
    if not near:
        checks.true("mode %d found near %.2f Hz" % (k + 1, ref), False, str(sorted(found)))
        continue
    best = max(near, key=lambda x: x[2])
    checks.close("mode %d frequency [Hz]" % (k + 1), best[1], ref, 0.02)
checks.finish()
