"""Andrews' squeezing mechanism (cases/andrews_squeezer.opts; IFToMM A03, Hairer & Wanner's test
set): seven free rigid bodies on revolute and inline joints, a drive torque (a torque motor on
the crank's revolute joint 'beta') and a spring.  References that do not come from the code:
- the crank angle beta(0.03 s) = 15.81077119629904 rad of the test set, within 1e-3 rad at
  dt = 1e-5 s and at 5e-6 s, converging at second order (error ratio 3.5 to 4.5; 3.26e-4 and
  8.1e-5 seen);
- the energy balance: kinetic energy + spring energy - its initial value = the drive torque's
  work mom (beta - beta0), to 5e-4 of that work at dt = 1e-5 s (2e-4 seen: generalised-alpha's
  dissipation at rho_inf = 0.9);
- at every record the orthonormality of every body's axes (/bodies/<b>/frame) and the joints'
  constraints (the joint points of the two bodies coincide in the plane) hold to 1e-10 of the
  size (Newton's tolerance).
"""
import os
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
checks = tdrun.Checks("Andrews' squeezing mechanism")
beta0, ref = -0.0617138900142764496358948458001, 15.81077119629904
case = os.path.join(src, "cases", "andrews_squeezer.opts")
opts = {}
for line in open(case):
    w = line.split("#")[0].split()
    if len(w) >= 2:
        opts[w[0][1:]] = w[1]
err = {}
for dt in (1e-5, 5e-6):
    out, _ = tdrun.run(["-options_file", case, "-dt", str(dt)], name="andrews_%g" % dt)
    ang = tdrun.dataset(out, "/joints/beta/angle")
    beta = beta0 + ang
    err[dt] = beta[-1] - ref
    checks.true("dt = %g s: beta(0.03) = %.8f rad, off the reference by %.2e (<= 1e-3)" % (dt, beta[-1], err[dt]), abs(err[dt]) <= 1e-3)
    if dt == 1e-5:
        t = tdrun.dataset(out, "/time")
        d = tdrun.sensor(out, "d", "position")[1]
        C = np.array([float(v) for v in opts["spring_point2"].split(",")])
        L = np.linalg.norm(d - C, axis=1)
        es = 0.5 * float(opts["spring_stiffness"]) * (L - float(opts["spring_length"])) ** 2
        ek = tdrun.dataset(out, "/energy/kinetic")
        W = float(opts["beta_motor_value"]) * (beta - beta[0])
        bal = np.abs(ek + es - es[0] - W).max()
        checks.true("energy balance: |E_kin + E_spring - E_spring(0) - mom (beta - beta0)| <= %.2e J, %.1e of the work %.4f J (<= 5e-4)" % (bal, bal / W[-1], W[-1]), bal <= 5e-4 * W[-1])
        # orthonormality and joint constraints at every record
        frames = {b: tdrun.dataset(out, "/bodies/%s/frame" % b) for b in opts["bodies"].split(",")}
        coms = {b: np.array([float(v) for v in opts["%s_com" % b].split(",")]) for b in frames}
        ortho = 0
        for F in frames.values():
            a = F[:, 3:].reshape(-1, 3, 3)
            ortho = max(ortho, np.abs(np.einsum("nik,njk->nij", a, a) - np.eye(3)).max())
        def point(b, X):
            F = frames[b]
            return F[:, :3] + np.einsum("k,nki->ni", X - coms[b], F[:, 3:].reshape(-1, 3, 3))
        worst = 0
        for j in opts["joints"].split(","):
            A, B = opts["%s_bodies" % j].split(",")
            X = np.array([float(v) for v in opts["%s_point" % j].split(",")])
            pa = point(A, X) if A != "ground" else X
            pb = point(B, X) if B != "ground" else X
            worst = max(worst, np.abs((pa - pb)[..., :2]).max())
        checks.true("every record: orthonormality of the axes to %.1e, joint points together in the plane to %.1e m (<= 1e-10)" % (ortho, worst),
                    ortho <= 1e-10 and worst <= 1e-10)
ratio = err[1e-5] / err[5e-6]
checks.true("second order in time: error ratio %.2f (3.5 to 4.5)" % ratio, 3.5 <= ratio <= 4.5)
checks.finish()
