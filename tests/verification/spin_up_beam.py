"""The spin-up beam (cases/spin_up_beam.opts: Simo & Vu-Quoc 1986; L = 10 m, EA = 2.8e7 N,
EI = 1.4e4 N m^2, rho A = 1.2 kg/m, spun up to 6 rad/s over 15 s by a speed motor on a revolute
joint at the hub), 0-20 s.  Checked against references that do not come from the code:
- the hub's angle against th(t) = (w_s/T_s)(t^2/2 + (T_s/(2 pi))^2 (cos(2 pi t/T_s) - 1)), then
  w_s (t - T_s/2): within 1e-4 rad (the speed table's trapezoidal integral; 7e-6 seen);
- at the constant speed (16-20 s) the tip's radial stretch against the rotating bar's
  rho A w^2 L^3 / (3 EA) = 5.143e-4 m within 1 % (5e-4 seen), and the lag has settled to within
  1 % of its extreme.
It prints the tip lag history (every second) and its extreme value (tools/spin_up_beam.py).
"""
import math
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, __file__.rsplit("/", 2)[0])
import tdrun  # noqa: E402

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
checks = tdrun.Checks("Spin-up beam (Simo & Vu-Quoc 1986)")
cwd = os.getcwd()
os.chdir(src)  # the case names its table relative to the repository
out, _ = tdrun.run(["-options_file", "cases/spin_up_beam.opts"], name="spin_up")
os.chdir(cwd)
sys.path.insert(0, os.path.join(src, "tools"))
from spin_up_beam import tip_lag  # noqa: E402
t, th, lag, radial = tip_lag(out)
ws, Ts = 6.0, 15.0
ref = np.where(t <= Ts, ws / Ts * (t * t / 2 + (Ts / (2 * math.pi)) ** 2 * (np.cos(2 * math.pi * t / Ts) - 1)), ws * (t - Ts / 2))
checks.true("hub angle against the spin-up law, worst %.1e rad (<= 1e-4)" % np.abs(th - ref).max(), np.abs(th - ref).max() <= 1e-4)
late = t > 16
stretch = 1.2 * ws ** 2 * 10 ** 3 / (3 * 2.8e7)
checks.close("radial tip stretch at 6 rad/s [m] (rho A w^2 L^3 / (3 EA))", (radial[late] - 10).mean(), stretch, 1e-2)
i = int(np.argmin(lag))
checks.true("the lag settles at the constant speed: |lag| <= %.2e m after 16 s, 1 %% of the extreme %.4f m" % (np.abs(lag[late]).max(), lag[i]),
            np.abs(lag[late]).max() <= 0.01 * abs(lag[i]))
print(subprocess.run(["/usr/bin/python3", os.path.join(src, "tools", "spin_up_beam.py"), "--file", out, "--outdir", os.path.dirname(out)],
                     capture_output=True, text=True).stdout)
checks.finish()
