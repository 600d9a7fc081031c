"""The double four-bar (cases/double_four_bar.opts, IFToMM A02 type, N = 2): three cranks and two
couplers of 1 m and 1 kg on revolute joints, released with the cranks upright at 1 rad/s under
gravity; it turns five times in 10 s, passing ten singular positions (the cranks along the
ground line).  References: the six rows its two loops repeat out of the plane are the ones left
out (rows 2-4 of the joints that close each loop); on the parallelogram branch the couplers
translate, so the energy gives phi'' = -(3.5/3) g cos(phi) for the cranks' angle, integrated
here by RK4 (10 us): the point at the middle of the second coupler within 2e-3 m of
(1.5 + cos phi, sin phi) over the 10 s at dt = 2 ms (8e-4 m seen; 2e-4 m at 1 ms), i.e. the
mechanism stays on its branch through every singular position.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
checks = tdrun.Checks("Double four-bar mechanism through its singular positions")
out, proc = tdrun.run(["-options_file", os.path.join(src, "cases", "double_four_bar.opts"), "-dt", "2e-3"], name="double_four_bar")
dropped = sorted(l.split("of joint ")[1].split()[0] + ":" + l.split("constraint row ")[1].split()[0] for l in proc.stdout.splitlines() if "repeats the others" in l)
checks.true("redundant rows left out: %s (rows 2-4 of p2 and p4)" % dropped, dropped == ["'p2':2", "'p2':3", "'p2':4", "'p4':2", "'p4':3", "'p4':4"])
t = tdrun.dataset(out, "/time")
x = tdrun.sensor(out, "s", "position")[1]
ref = tdrun.rk4(lambda y: np.array([y[1], -(3.5 / 3) * 9.81 * math.cos(y[0])]), [math.pi / 2, 1.0], t, 1e-5)
err = np.hypot(x[:, 0] - 1.5 - np.cos(ref[:, 0]), x[:, 1] - np.sin(ref[:, 0]))
turns = (ref[-1, 0] - ref[0, 0]) / (2 * math.pi)
checks.true("the coupler point against the RK4 reference over %.1f turns (%d singular positions), worst %.1e m (<= 2e-3)"
            % (abs(turns), int(2 * abs(turns)), err.max()), err.max() <= 2e-3 and abs(turns) > 4)
checks.finish()
