#!/usr/bin/env python3
"""Reads back the files tests/test_output.c wrote (h5py, xml.etree, h5dump) and checks them
against the formulas in test_output.c's header comment.

    check_output.py PREFIX            PREFIX.h5 / .xdmf (complete) and PREFIX_failed.h5
    check_output.py --killed PREFIX   PREFIX_killed.h5: a run that ended without closing
"""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

NREC = 5
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def reference():
    X = np.zeros((12, 3))
    for k in range(2):
        for j in range(2):
            for i in range(3):
                X[i + 3 * (j + 2 * k)] = (i, 0.5 * j, 0.25 * k)
    return X


def ancf_cells():
    return np.array([[(c + (n & 1)) + 3 * (((n >> 1) & 1) + 2 * ((n >> 2) & 1)) for n in range(8)] for c in range(2)])


def position(r, X):
    return X + 0.01 * r * np.stack([X[:, 1] + X[:, 2], X[:, 0] ** 2, -X[:, 0]], axis=1)


def string_attr(obj, name):
    v = obj.attrs.get(name)
    check(isinstance(v, str), f"attribute {name} of {obj.name} reads as str (got {type(v).__name__})")
    return v


def check_h5dump(path):
    h5dump = shutil.which("h5dump")
    check(h5dump is not None, "h5dump found (apt-get install hdf5-tools)")
    if h5dump:
        p = subprocess.run([h5dump, "-H", path], capture_output=True, text=True)
        check(p.returncode == 0, f"h5dump -H {path} exits 0 (got {p.returncode}: {p.stderr[:300]})")


def check_vtk_hexahedra(points, cells, what):
    """Each VTK hexahedron: bottom face 0-3 counter-clockwise seen from +z (its normal points
    to the top face) and top face 4-7 above 0-3, so the cell volume is positive."""
    for c, cell in enumerate(cells):
        p = points[cell]
        n = np.cross(p[1] - p[0], p[3] - p[0])
        check(np.dot(n, p[4] - p[0]) > 0, f"{what}: hexahedron {c} has positive orientation")
        check(np.allclose(p[4:] - p[:4], p[4] - p[0]), f"{what}: hexahedron {c} top face above its bottom face")


def parse_heavy(item):
    """An HDF DataItem: (file, dataset, selection or None); the selection of the form
    file.h5:/dataset|START:STRIDE:COUNT:DATASPACE (ParaView's Xdmf3 hyperslab) as 4 int arrays."""
    ref, _, sel = item.text.strip().partition("|")
    fname, _, dset = ref.partition(":")
    if not sel:
        return fname, dset, None
    parts = [np.array([int(x) for x in p.split()]) for p in sel.split(":")]
    check(len(parts) == 4 and len({len(p) for p in parts}) == 1, f"selection {sel} is START:STRIDE:COUNT:DATASPACE")
    return fname, dset, parts


def check_xdmf(xdmf, h5, exact):
    """Every HDF DataItem's dataset exists with the declared dimensions (or, exact=False, at
    least as many records), selections stay in range; returns the number of time steps."""
    check(os.path.exists(xdmf), f"{xdmf} exists")
    if not os.path.exists(xdmf):
        return -1
    check(not os.path.exists(xdmf + ".tmp"), f"no temporary {xdmf}.tmp left")
    root = ET.parse(xdmf).getroot()
    check(root.tag == "Xdmf" and root.get("Version") in ("2.0", "3.0"), "root element Xdmf, version 2 or 3")
    h5name = os.path.basename(h5.filename)
    for item in root.iter("DataItem"):
        if item.get("Format") != "HDF":
            continue
        fname, dset, sel = parse_heavy(item)
        check(fname == h5name, f"DataItem refers to {fname}, the .h5 beside it by basename ({h5name})")
        dims = tuple(int(d) for d in item.get("Dimensions").split())
        check(dset in h5, f"{dset} exists in {h5name}")
        if dset not in h5:
            continue
        shape = h5[dset].shape
        want = "Int" if np.issubdtype(h5[dset].dtype, np.integer) else "Float"
        check(item.get("NumberType") == want and item.get("Precision") == "8", f"{dset}: NumberType {item.get('NumberType')} matches its {h5[dset].dtype}")
        if sel is None:
            check(shape == dims, f"{dset}: declared {dims}, stored {shape}")
            continue
        start, stride, count, space = sel
        space = tuple(int(x) for x in space)
        if exact:
            check(shape == space, f"{dset}: declared dataspace {space}, stored {shape}")
        else:
            check(len(shape) == len(space) and shape[1:] == space[1:] and space[0] <= shape[0], f"{dset}: declared dataspace {space}, stored {shape}")
        check(tuple(count) == dims, f"{dset}: selection count {count} equals the DataItem's Dimensions {dims}")
        check(all(start >= 0) and all(stride >= 1) and all(start + (count - 1) * stride < space), f"{dset}: selection {sel} within {space}")
    temporal = [g for g in root.iter("Grid") if g.get("CollectionType") == "Temporal"]
    check(len(temporal) == 1, "one temporal collection")
    if not temporal:
        return 0
    steps = [g for g in temporal[0] if g.tag == "Grid"]
    times = [float(g.find("Time").get("Value")) for g in steps]
    check(np.allclose(times, h5["field_time"][: len(times)]), f"XDMF times {times} are /field_time (the field records)")
    for k, step in enumerate(steps):
        for grid in step.iter("Grid"):
            if grid.get("GridType") != "Uniform":
                continue
            geometry = grid.find("Geometry")
            check(geometry is not None and geometry.get("GeometryType") == "XYZ", f"step {k} of {grid.get('Name')}: XYZ geometry")
            for item in grid.iter("DataItem"):
                if item.get("Format") == "HDF" and parse_heavy(item)[2] is not None:
                    check(parse_heavy(item)[2][0][0] == k, f"step {k} of {grid.get('Name')} selects record {k}")
    return len(steps)


def check_complete(prefix):
    path = prefix + ".h5"
    X = reference()
    with h5py.File(path, "r") as f:
        check(string_attr(f, "status") == "complete", "status complete")
        check(string_attr(f, "options") == "-bodies beam -beam_E 2.1e11 -output out.h5", "options attribute")
        check(string_attr(f["sensors/s1"], "units") == "m", "units attribute of /sensors/s1")
        check(string_attr(f["meta"], "note") == "group made for this attribute <&>", "attribute on a new group")
        t = f["time"][:]
        check(t.shape == (NREC,) and np.allclose(t, 0.25 * np.arange(NREC)), f"/time {t}")
        ke = f["energy/kinetic"][:]
        expect = 1 + 1.5 * np.arange(NREC)
        expect[2] = np.nan
        check(ke.shape == (NREC,) and np.array_equal(ke, expect, equal_nan=True), f"/energy/kinetic {ke} (NaN where not set)")
        s = f["sensors/s1/position"][:]
        r = np.arange(NREC)
        check(s.shape == (NREC, 3) and np.allclose(s, np.stack([r, -r, 0.5 * r * r], axis=1)), "/sensors/s1/position")
        late = f["late"][:]
        check(late.shape == (NREC,) and np.array_equal(late, np.where(r >= 2, 10.0 * r, np.nan), equal_nan=True), f"/late {late} (NaN before it was added)")
        for name in ("time", "field_time", "energy/kinetic", "sensors/s1/position", "bodies/beam/position", "films/film/pressure"):
            d = f[name]
            check(d.chunks is not None and d.maxshape[0] is None and d.dtype == np.float64, f"{name} chunked, extendible, double")
            check(d.shuffle and d.compression == "gzip", f"{name} compressed: shuffle {d.shuffle}, {d.compression}")
        tf = f["field_time"][:]
        rf = np.arange(0, NREC, 2)  # the field records: every other record
        check(np.allclose(tf, 0.25 * rf), f"/field_time {tf}")

        b = f["bodies/beam"]
        check(b["reference"].shape == (12, 3) and np.allclose(b["reference"][:], X), "beam reference")
        cells = b["cells"][:]
        vtk = ancf_cells()[:, [0, 1, 3, 2, 4, 5, 7, 6]]
        check(cells.dtype == np.int64 and np.array_equal(cells, vtk), f"beam cells in VTK order {cells.tolist()}")
        check_vtk_hexahedra(X, cells, "beam")
        pos = b["position"][:]
        check(pos.shape == (len(rf), 12, 3), f"beam position shape {pos.shape}")
        check(all(np.allclose(pos[k], position(r, X)) for k, r in enumerate(rf)), "beam positions")
        disp = b["displacement"][:]
        check(disp.shape == (len(rf), 12, 3) and np.allclose(disp, pos - X[None]), "beam displacement = position - reference")

        m = f["films/film"]
        check(m["nodes"].shape == (6, 3) and np.allclose(m["nodes"][:, :2], [[0.5 * (n % 3), 0.5 * (n // 3)] for n in range(6)]), "film nodes")
        check(m["quads"].dtype == np.int64 and np.array_equal(m["quads"][:], [[0, 1, 4, 3], [1, 2, 5, 4]]), "film quads")
        pr = m["pressure"][:]
        check(pr.shape == (len(rf), 6) and np.allclose(pr, 1e5 * (rf[:, None] + 1) + 1000 * np.arange(6)[None]), "film pressure")
        h = m["h"][:]  # written in parts (TdOutputSetSeriesPart): on 2 ranks by both, one chunk each
        check(h.shape == (len(rf), 6) and np.array_equal(h, 0.5 * (rf[:, None] + 1) + 0.01 * np.arange(6)[None]), f"film h written in parts {h.tolist()}")
        check(m["h"].chunks in ((1, 3), (1024, 6)) and m["h"].compression == "gzip", f"film h chunks {m['h'].chunks} (one rank: 1024 records of 6 nodes; two: one record of half the nodes)")

        check(np.array_equal(f["params/matrix"][:], [[1, 2, 3], [4, 5, 6]]), "static real matrix 2x3")
        ids = f["params/ids"]
        check(ids.shape == (5,) and ids.dtype == np.int64 and list(ids[:]) == [3, 1, 4, 1, 5], "static int vector (1-D)")
        check(np.array_equal(f["params/pairs"][:], [[-1, 2], [3, 2000000000]]), "static int 2x2")
        check("zero" not in f and "bodies/broken" not in f, "rejected calls left nothing behind")

        nsteps = check_xdmf(prefix + ".xdmf", f, exact=True)
        check(nsteps == len(tf), f"XDMF has {nsteps} time steps, /field_time {len(tf)}")
        root = ET.parse(prefix + ".xdmf").getroot()
        step = [g for g in root.iter("Grid") if g.get("CollectionType") == "Spatial"][0]
        grids = {g.get("Name"): g for g in step if g.tag == "Grid"}
        check(set(grids) == {"beam", "film"}, f"grids per step {sorted(grids)}")
        if "beam" in grids:
            check(grids["beam"].find("Topology").get("TopologyType") == "Hexahedron", "beam topology Hexahedron")
            check([a.get("Name") for a in grids["beam"].iter("Attribute")] == ["displacement"], "beam attribute displacement")
        if "film" in grids:
            check(grids["film"].find("Topology").get("TopologyType") == "Quadrilateral", "film topology Quadrilateral")
            check([a.get("Name") for a in grids["film"].iter("Attribute")] == ["pressure", "h"], "film attributes pressure, h")
    check_h5dump(path)

    path = prefix + "_failed.h5"
    with h5py.File(path, "r") as f:
        check(string_attr(f, "status") == "failed: Newton diverged at t = 0.5", "status of the failed run")
        check(np.array_equal(f["time"][:], [0.5]) and np.array_equal(f["energy/kinetic"][:], [2.5]), "failed run's record")
    check(os.path.exists(prefix + "_failed.xdmf"), "the failed run has an XDMF")
    ET.parse(prefix + "_failed.xdmf")
    check_h5dump(path)


def check_killed(prefix):
    path = prefix + "_killed.h5"
    X = reference()
    with h5py.File(path, "r") as f:
        check(string_attr(f, "status") == "running", "status of a killed run stays running")
        check(np.allclose(f["time"][:], [0, 0.25, 0.5]), f"killed run keeps its 3 records: /time {f['time'][:]}")
        check(np.allclose(f["energy/kinetic"][:], [1, 2.5, 4]), "killed run's energy")
        pos = f["bodies/beam/position"][:]
        check(pos.shape == (3, 12, 3) and np.allclose(pos[2], position(2, X)), "killed run's last position")
        nsteps = check_xdmf(prefix + "_killed.xdmf", f, exact=False)
        check(nsteps == 2, f"the XDMF of the last flush describes 2 records (has {nsteps})")
    check_h5dump(path)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--killed":
        check_killed(args[1])
    elif len(args) == 1:
        check_complete(args[0])
    else:
        sys.exit(__doc__)
    if failures:
        print(f"check_output: {len(failures)} check(s) failed")
        sys.exit(1)
    print("check_output: all checks passed")
