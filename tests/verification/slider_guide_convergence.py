"""Slow: time-step refinement of the lubricated slider-guide case over its first 6 ms
(tools/convergence.py, dt = 1e-4, 5e-5, 2.5e-5): the slider's peak vertical acceleration
converges at the order of generalised-alpha (observed order between 1.5 and 3).  A mesh series
(--param mesh: film, guide and slider refined together) over 0.5 ms: every level's cell counts
reach the model (the finest file's film has (80 + 1)^2 nodes, its guide 69 x 11 x 3), and a
level with too few counts is refused; relative --case and --outdir are taken from where the tool
is started."""
import os
import re
import subprocess
import shutil
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
checks = [ok]
levels = "20x20/17x5x1/2x2x2,40x40/34x5x1/4x4x3,80x80/68x10x2/8x8x6"
proc = subprocess.run(["/usr/bin/python3", os.path.join(src, "tools", "convergence.py"), "--case", os.path.join(src, "cases", "slider_guide_lubricated.opts"),
                       "--param", "mesh", "--levels", levels, "--t_final", "0.0005", "--tribodyn", exe, "--outdir", out],
                      capture_output=True, text=True)
print(proc.stdout[-2500:])
import h5py  # noqa: E402
fine = os.path.join(out, "convergence_mesh_80x80x68x10x2x8x8x6.h5")
nodes = guide = None
if os.path.isfile(fine):
    with h5py.File(fine, "r") as f:
        nodes = f["films/film/nodes"].shape[0]
        guide = f["bodies/guide/reference"].shape[0]
ok = proc.returncode == 0 and "-film_cells 80,80 -guide_cells 68,10,2 -slider_block_cells 8,8,6" in proc.stdout and nodes == 81 * 81 and guide == 69 * 11 * 3
print("  mesh series: 3 levels complete, finest film %s nodes (6561), guide %s nodes (2277): %s" % (nodes, guide, "ok" if ok else "FAIL"))
checks.append(ok)
proc = subprocess.run(["/usr/bin/python3", os.path.join(src, "tools", "convergence.py"), "--case", os.path.join(src, "cases", "slider_guide_lubricated.opts"),
                       "--param", "mesh", "--levels", "20x20/17x5x1,40x40/34x5x1", "--tribodyn", exe, "--outdir", out],
                      capture_output=True, text=True)
ok = proc.returncode != 0 and "gives 2 cell counts for 3 options" in proc.stderr
print("  mesh level with 2 counts for 3 options refused (exit %d): %s" % (proc.returncode, "ok" if ok else "FAIL"))
checks.append(ok)
# paths relative to where the user stands (the runs start in the top directory)
rel_case = os.path.relpath(os.path.join(src, "cases", "slider_guide_lubricated.opts"), out)
proc = subprocess.run(["/usr/bin/python3", os.path.join(src, "tools", "convergence.py"), "--case", rel_case,
                       "--param", "dt", "--levels", "1e-4,5e-5", "--t_final", "0.0002", "--tribodyn", exe, "--outdir", "rel"],
                      capture_output=True, text=True, cwd=out)
ok = proc.returncode == 0 and os.path.isfile(os.path.join(out, "rel", "convergence_dt_5e-5.h5")) and proc.stdout.count("complete") >= 2
print("  relative --case %s and --outdir rel from %s: both levels complete there (exit %d): %s" % (rel_case, out, proc.returncode, "ok" if ok else "FAIL"))
checks.append(ok)
print("%d passed, %d failed" % (sum(checks), len(checks) - sum(checks)))
if all(checks) and not os.environ.get("TRIBODYN_KEEP_TEST_FILES"):
    shutil.rmtree(out, ignore_errors=True)
else:
    print("test files kept in " + out)
sys.exit(0 if all(checks) else 1)
