#!/usr/bin/python3
"""Tip lag of the spin-up beam (cases/spin_up_beam.opts, Simo & Vu-Quoc 1986).

    tools/run spin_up_beam
    /usr/bin/python3 tools/spin_up_beam.py [--file results/spin_up_beam.h5] [--outdir results]

The lag is the tip's displacement normal to the hub's radius, x_tip . (-sin th, cos th) with th
the hub joint's angle (negative: behind the rotating frame).  Prints it every second with the
tip's radial stretch, and its extreme value and time; writes spin_up_tip_lag.png.
"""
import argparse
import os
import sys

os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")
try:
    import numpy as np  # noqa: E402
    import h5py  # noqa: E402
except ImportError as e:  # pragma: no cover
    sys.exit(f"spin_up_beam.py: needs numpy and h5py ({e}); run it with /usr/bin/python3 "
             "(Debian: apt-get install python3-numpy python3-h5py)")

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tip_lag(path):
    """time, hub angle, tip lag and radial tip position from a result file."""
    with h5py.File(path, "r") as f:
        t = f["time"][:]
        x = f["sensors/tip/position"][:]
        th = f["joints/hub/angle"][:]
    lag = -np.sin(th) * x[:, 0] + np.cos(th) * x[:, 1]
    radial = np.cos(th) * x[:, 0] + np.sin(th) * x[:, 1]
    return t, th, lag, radial


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--file", default=os.path.join(TOP, "results", "spin_up_beam.h5"))
    ap.add_argument("--outdir", default=os.path.join(TOP, "results"))
    a = ap.parse_args()
    if not os.path.exists(a.file):
        print(f"spin_up_beam.py: {a.file} does not exist; run tools/run spin_up_beam first", file=sys.stderr)
        return 1
    t, th, lag, radial = tip_lag(a.file)
    print("   t [s]   hub angle [rad]   tip lag [m]   radial tip - 10 m [m]")
    for k in range(len(t)):
        if abs(t[k] - round(t[k])) < 1e-9:
            print("%8.2f %16.5f %13.5f %21.3e" % (t[k], th[k], lag[k], radial[k] - 10))
    i = int(np.argmin(lag))
    print("extreme tip lag %.4f m at t = %.2f s (largest lead %.4f m)" % (lag[i], t[i], lag.max()))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        os.makedirs(a.outdir, exist_ok=True)
        fig, ax = plt.subplots(figsize=(8, 4))
        ax.plot(t, lag)
        ax.set_xlabel("t [s]")
        ax.set_ylabel("tip lag [m]")
        ax.set_title("spin-up beam: tip displacement normal to the hub's radius")
        ax.grid(alpha=0.3)
        fig.tight_layout()
        path = os.path.join(a.outdir, "spin_up_tip_lag.png")
        fig.savefig(path, dpi=120)
        print("wrote", path)
    except ImportError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
