"""tools/sweep on this machine (issue 12): a 2 x 2 sweep of the lubricated slider-guide case, run
locally two at a time, checked against runs made by hand:

1. summary.csv has the columns of src/docs/interface.md ("Cluster runs"), one row per
   combination, and its figures equal those read from each run's result file; each run's stored
   options hold its values.  Each result file equals (1e-10) the same run made by hand with
   tribodyn alone.
2. A sweep stopped by SIGTERM (its runs write checkpoints and stop) and started again continues
   its runs with -restart, and their histories equal the uninterrupted runs' to 1e-10.
3. Bad input, each refused with exit 2 and a message naming it, nothing run or overwritten: an
   option tribodyn does not know, an unwritable sweep directory (a path under a file, and one
   under /sys), a directory that holds another sweep.
"""
import csv
import shutil
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import time

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import tdrun  # noqa: E402

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
case = os.path.join(src, "cases", "slider_guide_lubricated.opts")
sweep = [os.path.join(src, "tools", "sweep"), "--tribodyn", tdrun.EXE]
work = tempfile.mkdtemp(prefix="tribodyn_sweep_")
checks = tdrun.Checks("tools/sweep: a 2 x 2 sweep run locally, stopped and resumed, and bad input")
sets = ["--set", "film_mu=0.03,0.045", "--set", "hammer_duration=0.01,0.005"]
extra = ["--", "-t_final", "0.002"]
env = dict(os.environ, OMP_NUM_THREADS="1")


def histories(path):
    out = {}
    with h5py.File(path, "r") as f:
        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and not name.startswith("checkpoint") and not name.startswith("solver/") \
                    and obj.maxshape and obj.maxshape[0] is None:
                out[name] = np.array(obj)
        f.visititems(visit)
    return out


def worst_difference(a, b):
    worst = 0.0
    for name, x in a.items():
        if name not in b or b[name].shape != x.shape:
            return np.inf
        scale = np.nanmax(np.abs(x)) if x.size else 0
        d = np.nanmax(np.abs(x - b[name])) if x.size else 0
        worst = max(worst, d / scale if scale > 0 else d)
    return worst


def tree_md5(d):
    h = hashlib.md5()
    for root, _, files in sorted(os.walk(d)):
        for fn in sorted(files):
            h.update(fn.encode())
            h.update(open(os.path.join(root, fn), "rb").read())
    return h.hexdigest()


# 1. the sweep, and the same runs by hand
out = os.path.join(work, "local")
p = subprocess.run(sweep + ["--case", case] + sets + ["--out", out, "--jobs", "2"] + extra, capture_output=True, text=True, env=env)
print(p.stdout + p.stderr)
checks.true("2 x 2 sweep, --jobs 2: exit %d" % p.returncode, p.returncode == 0)
rows = list(csv.DictReader(open(os.path.join(out, "summary.csv"))))
with h5py.File(os.path.join(out, "runs", [fn for fn in os.listdir(os.path.join(out, "runs")) if fn.endswith(".h5")][0]), "r") as f:
    sensors, films = sorted(f["sensors"]), sorted(f["films"])
want = ["film_mu", "hammer_duration", "status", "wall_s"] + ["peak_az_" + s for s in sensors] + \
       ["peak_pressure_" + f for f in films] + ["h_min_" + f for f in films]
checks.true("summary.csv columns (interface.md): %s" % ",".join(rows[0].keys()), list(rows[0].keys()) == want)
combos = [(r["film_mu"], r["hammer_duration"]) for r in rows]
checks.true("one row per combination, all complete: %s" % combos,
            sorted(combos) == sorted([(a, b) for a in ("0.03", "0.045") for b in ("0.01", "0.005")]) and all(r["status"] == "complete" for r in rows))
worst_fig, worst_hand = 0.0, 0.0
for i, r in enumerate(rows):
    h5 = [os.path.join(out, "runs", fn) for fn in os.listdir(os.path.join(out, "runs")) if fn.startswith("r%03d_" % i) and fn.endswith(".h5")][0]
    with h5py.File(h5, "r") as f:
        opts = f.attrs["options"]
        ok_opts = ("-film_mu %s" % r["film_mu"]) in opts and ("-hammer_duration %s" % r["hammer_duration"]) in opts
        figs = {"peak_az_" + s: np.abs(f["sensors"][s]["acceleration"][:, 2]).max() for s in sensors}
        figs.update({"peak_pressure_" + n: f["films"][n]["pressure"][:].max() for n in films})
        figs.update({"h_min_" + n: f["films"][n]["h"][:].min() for n in films})
    for k, v in figs.items():
        # the p and h fields are at the field records only; the sweep reads the per-record series
        rel = abs(float(r[k]) - v) / abs(v)
        if k.startswith("peak_az_"):
            worst_fig = max(worst_fig, rel)
        elif k.startswith("peak_pressure_"):
            ok_opts = ok_opts and float(r[k]) >= v * (1 - 1e-6)
        else:
            ok_opts = ok_opts and float(r[k]) <= v * (1 + 1e-6)
    checks.true("%s: stored options hold its values; peak p, h_min bound the field records' extremes" % os.path.basename(h5), ok_opts)
    hand, _ = tdrun.run(["-options_file", case, "-film_mu", r["film_mu"], "-hammer_duration", r["hammer_duration"], "-t_final", "0.002",
                         "-output_fields_dt", "0.001"], workdir=work, name="hand%d" % i)
    worst_hand = max(worst_hand, worst_difference(histories(hand), histories(h5)))
checks.true("peak |a_z| in summary.csv = the result files' (9 digits): worst %.1e" % worst_fig, worst_fig <= 1e-8)
checks.true("each run = the same run by hand with tribodyn: worst %.1e <= 1e-10" % worst_hand, worst_hand <= 1e-10)

# 2. stopped by SIGTERM once its first runs have a checkpoint, then started again
out2 = os.path.join(work, "resumed")
cmd = sweep + ["--case", case] + sets + ["--out", out2, "--jobs", "2", "--checkpoint_dt", "0.0005"] + extra
proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
t0 = time.time()
while time.time() - t0 < 120:
    time.sleep(0.5)
    ck = 0
    for fn in os.listdir(os.path.join(out2, "runs")) if os.path.isdir(os.path.join(out2, "runs")) else []:
        if fn.endswith(".h5"):
            try:
                with h5py.File(os.path.join(out2, "runs", fn), "r") as f:
                    ck += "checkpoint/valid" in f and f["checkpoint/valid"][1] > 0
            except Exception:
                pass
    if ck >= 1:
        break
proc.send_signal(signal.SIGTERM)
first = proc.communicate()[0]
print(first)
checks.true("sweep stopped by SIGTERM: exit %d (75), its runs interrupted at a checkpoint" % proc.returncode,
            proc.returncode == 75 and "interrupted, checkpoint written" in first)
second = subprocess.run(cmd, capture_output=True, text=True, env=env)
print(second.stdout + second.stderr)
checks.true("started again: exit %d, the interrupted runs continued with -restart" % second.returncode,
            second.returncode == 0 and "continuing from its checkpoint" in second.stdout)
worst = 0.0
for fn in sorted(os.listdir(os.path.join(out, "runs"))):
    if fn.endswith(".h5"):
        worst = max(worst, worst_difference(histories(os.path.join(out, "runs", fn)), histories(os.path.join(out2, "runs", fn))))
checks.true("resumed runs = the uninterrupted sweep's runs: worst %.1e <= 1e-10" % worst, worst <= 1e-10)

# 3. bad input
before = tree_md5(out)
blocker = os.path.join(work, "a_file")
open(blocker, "w").write("not a directory\n")
bad = [
    ("an option tribodyn does not know", sets[:2] + ["--set", "film_muu=1,2"], os.path.join(work, "bad1"), "Unknown option -film_muu"),
    ("a sweep directory under a file", sets, os.path.join(blocker, "sweep"), "cannot be written"),
    ("a sweep directory under /sys", sets, "/sys/tribodyn_sweep_test", "cannot be written"),
    ("a directory that holds another sweep", ["--set", "film_mu=0.05,0.06"], out, "holds another sweep"),
]
for what, s, d, message in bad:
    p = subprocess.run(sweep + ["--case", case] + s + ["--out", d] + extra, capture_output=True, text=True, env=env)
    nothing = not os.path.exists(os.path.join(d, "sweep.json")) or d == out
    checks.true("%s: exit %d, '%s'" % (what, p.returncode, message), p.returncode == 2 and message in p.stderr and nothing, p.stderr.strip()[:160])
checks.true("the earlier sweep's directory is unchanged", tree_md5(out) == before)

shutil.rmtree(work, ignore_errors=True)
checks.finish()
