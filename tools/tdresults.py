"""Helpers shared by the plotting tools that read tribodyn result files (h5py)."""


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
