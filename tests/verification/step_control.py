"""Step control: a step whose Newton solve fails is halved, never accepted.

1. Rescue: a violent tip pulse on a slender cantilever at dt = 1 ms with at most 5 Newton
   iterations per solve: steps are rejected and halved, the run completes, and its history
   matches a run with a uniform small step (same physics, so the halved steps were solved,
   not skipped).
2. Failure: at most 1 Newton iteration and 2 halvings: the run stops with a message that says
   what failed and what to do, exits non-zero, and the result file is marked failed (not
   complete) while keeping its completed records.
"""
import re
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import h5py
import numpy as np
import tdrun

checks = tdrun.Checks("Step halving on Newton failure")
beam = ["-bodies", "beam", "-beam_box", "0,0,0,0.3,0.005,0.01", "-beam_cells", "10,1,1", "-beam_clamp", "xmin",
        "-loads", "f", "-f_body", "beam", "-f_point", "0.3,0.0025,0.01", "-f_force", "0,0,-3000",
        "-f_profile", "halfsine", "-f_duration", "2e-3", "-sensors", "tip", "-tip_body", "beam",
        "-tip_point", "0.3,0.0025,0.005", "-t_final", "4e-3", "-output_dt", "1e-3"]
out, proc = tdrun.run(beam + ["-dt", "1e-3", "-snes_max_it", "5"], name="rescued")
m = re.search(r"(\d+) rejected", proc.stdout)
rejected = int(m.group(1)) if m else -1
with h5py.File(out, "r") as f:
    status = f.attrs["status"]
checks.true("rescue: %d rejected steps, status '%s'" % (rejected, status), rejected > 0 and status == "complete")
_, d_rescued = tdrun.sensor(out, "tip")
out, _ = tdrun.run(beam + ["-dt", "1.25e-4"], name="fine")
_, d_fine = tdrun.sensor(out, "tip")
rel = np.max(np.abs(d_rescued - d_fine)) / np.max(np.abs(d_fine))
checks.true("rescue: history matches uniform dt = 0.125 ms (rel. %.2e, tip travel %.3f m)" % (rel, np.max(np.abs(d_fine))), rel < 0.05 and np.max(np.abs(d_fine)) > 0.05)

out, proc = tdrun.run(beam + ["-dt", "1e-3", "-snes_max_it", "1", "-max_step_halvings", "2"], expect_ok=False, name="failed")
text = proc.stdout + proc.stderr
checks.true("failure: exit status %d" % proc.returncode, proc.returncode != 0)
checks.true("failure: message says halving failed", "even after halving the step 2 times" in text and "-dt" in text)
with h5py.File(out, "r") as f:
    status = f.attrs["status"]
    n = len(f["/time"])
checks.true("failure: file marked '%s', %d completed record(s) kept" % (status, n), status.startswith("failed") and n >= 1)
checks.finish()
