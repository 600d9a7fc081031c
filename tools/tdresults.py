"""Helpers shared by the plotting tools that read tribodyn result files (h5py)."""
import os
import sys


def plotting_modules(tool):
    """numpy, h5py and matplotlib.pyplot (Agg backend) for the plotting tool named `tool`, which
    exits with a message naming what is missing when they are not installed.  Result files are
    read without HDF5 file locking, so that a run still writing one can be plotted."""
    os.environ.setdefault("HDF5_USE_FILE_LOCKING", "FALSE")
    try:
        import numpy
        import h5py
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as e:  # pragma: no cover
        sys.exit(f"{tool}: needs numpy, h5py and matplotlib ({e}); run it with /usr/bin/python3 "
                 "(Debian: apt-get install python3-numpy python3-h5py python3-matplotlib)")
    return numpy, h5py, plt


def option(f, name, default=None):
    """The value of option -name in force in a run: from the result file's 'options' attribute
    (every option of the run, in order; the last occurrence wins, as in PETSc), else default."""
    opts = f.attrs.get("options", "")
    if isinstance(opts, bytes):
        opts = opts.decode()
    words = opts.split()
    value = default
    for i, w in enumerate(words[:-1]):
        if w == "-" + name:
            value = words[i + 1]
    return value
