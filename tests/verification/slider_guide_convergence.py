"""Slow: time-step refinement of the lubricated slider-guide case over its first 6 ms
(tools/convergence.py, dt = 1e-4, 5e-5, 2.5e-5): the slider's peak vertical acceleration
converges at the order of generalised-alpha (observed order between 1.5 and 3)."""
import os
import re
import subprocess
import sys
import tempfile

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
exe = os.environ.get("TRIBODYN_EXE", os.path.join(src, "build", "tribodyn"))
out = tempfile.mkdtemp(prefix="tribodyn_conv_")
proc = subprocess.run(["/usr/bin/python3", os.path.join(src, "tools", "convergence.py"), "--case", os.path.join(src, "cases", "slider_guide_lubricated.opts"),
                       "--param", "dt", "--levels", "1e-4,5e-5,2.5e-5", "--t_final", "0.006", "--tribodyn", exe, "--outdir", out],
                      capture_output=True, text=True)
print(proc.stdout[-3000:])
m = re.search(r"peak \|a_z\| of slider: observed order ([0-9.]+)", proc.stdout)
ok = proc.returncode == 0 and m is not None and 1.5 <= float(m.group(1)) <= 3.0
print("  slider peak acceleration, observed order %s in [1.5, 3]: %s" % (m.group(1) if m else "?", "ok" if ok else "FAIL"))
print("%d passed, %d failed" % (int(ok), int(not ok)))
sys.exit(0 if ok else 1)
