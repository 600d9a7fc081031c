"""Helpers for tests that run the tribodyn program and read its HDF5 output (/usr/bin/python3)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import h5py
import numpy as np

EXE = os.environ.get("TRIBODYN_EXE", "tribodyn")
MPIEXEC = os.environ.get("TRIBODYN_MPIEXEC", "mpiexec")
# the project's top directory (cases/, meshes/): ctest sets it, else the parent of tests/
SOURCE_DIR = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# A clamped ANCF plate (8 x 2 x 1 cells, damped, under gravity) struck at its free end by a
# half-sine point load, with a pin joint (z) at x = 0.15 and a sensor "end" at the struck end: the
# multi-rank tests' model with rank 0's parts (a load and a joint); add -t_final, -dt, sensors.
PLATE_PIN_TAP = ["-bodies", "plate", "-plate_box", "0,0,0,0.2,0.04,0.01", "-plate_cells", "8,2,1",
                 "-plate_damping", "1e-5", "-plate_clamp", "xmin", "-gravity", "0,0,-9.81",
                 "-tap_body", "plate", "-tap_point", "0.2,0.02,0.01", "-tap_force", "0,20,-50",
                 "-tap_profile", "halfsine", "-tap_duration", "1e-3",
                 "-end_body", "plate", "-end_point", "0.2,0.02,0",
                 "-joints", "pin", "-pin_body", "plate", "-pin_point", "0.15,0,0", "-pin_components", "z"]


_workdirs = []


def workdir(prefix="tribodyn_test_"):
    """A new temporary directory for a test's files: Checks.finish removes it when every check
    passed and keeps it (and says where) when one failed, or when TRIBODYN_KEEP_TEST_FILES is
    set."""
    d = tempfile.mkdtemp(prefix=prefix)
    _workdirs.append(d)
    return d


_new_workdir = workdir  # run() takes an argument of the same name


def run(args, nproc=1, threads=1, expect_ok=True, workdir=None, name="run"):
    """Runs tribodyn with args (list); returns (path of the .h5, completed process)."""
    workdir = workdir or _new_workdir()
    out = os.path.join(workdir, name + ".h5")
    cmd = [EXE] + list(args) + ["-output", out, "-progress", "false"]
    if "-output_fields_dt" not in args and "-restart" not in args:
        cmd += ["-output_fields_dt", "0"]  # the checks read the fields of every record
    if threads > 1 and "-threads_policy" not in args:
        # a test that asks for threads checks the threaded code: the governor would stay on one
        # thread while the suite's other test keeps the second CPU busy
        cmd += ["-threads_policy", "fixed"]
    if nproc > 1:
        cmd = [MPIEXEC, "--allow-run-as-root", "--oversubscribe", "-n", str(nproc)] + cmd
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if expect_ok and proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit("tribodyn failed (exit %d): %s" % (proc.returncode, " ".join(cmd)))
    return out, proc


def sensor(path, name, quantity="displacement"):
    with h5py.File(path, "r") as f:
        return np.array(f["/time"]), np.array(f["/sensors/%s/%s" % (name, quantity)])


def dataset(path, name):
    with h5py.File(path, "r") as f:
        return np.array(f[name])


def run_counts(proc):
    """The counts of a run's last line: newton, rebuilds, factorisations, krylov (-1 when absent)."""
    m = re.search(r"(\d+) Newton iterations .* (\d+) film-body coupling pattern rebuilds, (\d+) LU factorisations, (\d+) Krylov iterations", proc.stdout)
    keys = ("newton", "rebuilds", "factorisations", "krylov")
    return dict(zip(keys, (int(g) for g in m.groups()))) if m else dict.fromkeys(keys, -1)


def rig_histories(path):
    """The slider-guide rig's histories that runs are compared by: the accelerations of the
    slider and guide_mid sensors and the film pressure records ("p")."""
    h = {s: sensor(path, s, "acceleration")[1] for s in ("slider", "guide_mid")}
    h["p"] = dataset(path, "/films/film/pressure")
    return h


def check_same_histories(checks, a, b, what, bounds=(("slider", 1e-8), ("guide_mid", 1e-8), ("p", 2e-8))):
    """Checks the rig histories b against a (rig_histories) to relative bounds of a's peaks."""
    for key, bound in bounds:
        rel = np.max(np.abs(a[key] - b[key])) / np.max(np.abs(a[key]))
        checks.true("%s: max rel. difference, %s: %.2e <= %.0e (peak %.3e)" % (key, what, rel, bound, np.max(np.abs(a[key]))), rel <= bound)


def rk4(rhs, y0, times, step):
    """A reference solution of y' = rhs(y) at the given times by classical Runge-Kutta with steps
    of at most `step` (independent of tribodyn); returns one row per time."""
    import numpy as np
    y, t, out = np.array(y0, dtype=float), 0.0, []
    for tk in times:
        while t < tk - 1e-12:
            h = min(step, tk - t)
            k1 = rhs(y)
            k2 = rhs(y + h / 2 * k1)
            k3 = rhs(y + h / 2 * k2)
            k4 = rhs(y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
        out.append(y.copy())
    return np.array(out)


class Checks:
    """Collects named comparisons, prints each with its error, and exits non-zero on failure."""

    def __init__(self, title):
        self.title = title
        self.failed = 0
        self.passed = 0
        print(title)

    def close(self, name, value, reference, rel_tol):
        err = abs(value - reference) / abs(reference)
        ok = err <= rel_tol
        print("  %-48s %14.7e  reference %14.7e  error %.3e %s %.1e  %s"
              % (name, value, reference, err, "<=" if ok else ">", rel_tol, "ok" if ok else "FAIL"))
        self.passed += ok
        self.failed += not ok

    def true(self, name, condition, detail=""):
        print("  %-48s %s  %s" % (name, "ok" if condition else "FAIL", detail))
        self.passed += bool(condition)
        self.failed += not condition

    def finish(self):
        print("%d passed, %d failed" % (self.passed, self.failed))
        if self.failed or os.environ.get("TRIBODYN_KEEP_TEST_FILES"):
            if _workdirs:
                print("test files kept in " + ", ".join(_workdirs))
        else:
            for d in _workdirs:
                shutil.rmtree(d, ignore_errors=True)
        sys.exit(1 if self.failed else 0)
