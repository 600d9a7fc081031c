"""The lubricated slider-guide case (cases/slider_guide_lubricated.opts) gives the same sensor
histories and film pressures on 1, 2 and 4 MPI ranks (each rank assembles its elements and its
strip of the film's quads), on 2 ranks without the graph partition (-partition false: contiguous
slices of the elements and of the natural numbering), and on 1 rank with 2 OpenMP threads (the
film assembly shares its quads among threads), to 1e-8 relative (a short run: 0.5 ms, the film
under load, the slider moving; Newton's tolerance leaves differences of about 1e-10).

The partition (src/model/partition.c) is checked by what it is for, from the Jacobian's COO
entries that -info counts: on 2 ranks, the entries whose rows another rank owns (they travel at
every Jacobian) fall at least 3-fold against contiguous slices; on 4 ranks the ranks' element
entries stay within 10 % of each other (the partitioner balances the elements)."""
import re
import os
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

src = tdrun.SOURCE_DIR
case = os.path.join(src, "cases/slider_guide_lubricated.opts")
checks = tdrun.Checks("Lubricated slider-guide: 1, 2 and 4 MPI ranks, 1 and 2 threads")
res = {}
coo = {}
for n, threads, part in ((1, 1, True), (2, 1, True), (4, 1, True), (1, 2, True), (2, 1, False)):
    extra = [] if part else ["-partition", "false"]
    if n > 1:
        extra += ["-info", ":sys"]  # the COO entry counts of each rank (TdSolverBuildJacobian)
    out, proc = tdrun.run(["-options_file", case, "-t_final", "5e-4"] + extra, nproc=n, threads=threads, name="np%dt%d%s" % (n, threads, "" if part else "_slices"))
    if n > 1:
        off = [int(a) + int(b) + int(c) for a, b, c in re.findall(r"rows another rank owns: elements (\d+), films (\d+), constraints (\d+)", proc.stdout)]
        elem = [int(a) for a in re.findall(r"COO entries of this rank: \d+ \(elements (\d+)", proc.stdout)]
        coo[n, part] = (off[:n], elem[:n])  # the first pattern of each rank
    if not part:
        n = (n, "slices")
    res[n, threads] = tdrun.rig_histories(out)
    if (n, threads) == (1, 1):
        # the film is carried by the drive: its recorded node positions move with the slider
        # (ParaView shows it under the slider), and the XDMF places it by them
        shift = tdrun.dataset(out, "/films/film/position") - tdrun.dataset(out, "/films/film/nodes")[None, :, :]
        dx = tdrun.sensor(out, "slider", "displacement")[1][:, 0]
        err = np.max(np.abs(shift[:, :, 0] - dx[:, None]))
        xdmf = open(out[:-3] + ".xdmf").read()
        checks.true("film nodes follow the drive: x shift vs the slider's x displacement (up to %.3e m), max difference %.2e m; y, z shifts %.1e; XDMF uses /films/film/position" % (np.abs(dx).max(), err, np.abs(shift[:, :, 1:]).max()),
                    err <= 1e-3 * np.abs(dx).max() and np.abs(shift[:, :, 1:]).max() == 0 and np.abs(dx).max() > 1e-4 and "/films/film/position" in xdmf)
for other in ((2, 1), (4, 1), (1, 2), ((2, "slices"), 1)):
    for key in ("slider", "guide_mid", "p"):
        a, b = res[1, 1][key], res[other][key]
        rel = np.max(np.abs(a - b)) / np.max(np.abs(a))
        label = "2 ranks (-partition false)" if other[0] == (2, "slices") else "%d rank(s)" % other[0]
        checks.true("%s: max rel. difference, %s x %d thread(s) vs 1 x 1: %.2e <= 1e-8 (peak %.3e)" % (key, label, other[1], rel, np.max(np.abs(a))), rel <= 1e-8)
part, slices = sum(coo[2, True][0]), sum(coo[2, False][0])
checks.true("2 ranks: COO entries of rows another rank owns, graph partition %d vs contiguous slices %d: at least 3-fold fewer" % (part, slices),
            len(coo[2, True][0]) == 2 and len(coo[2, False][0]) == 2 and 3 * part <= slices)
elem4 = coo[4, True][1]
checks.true("4 ranks: element COO entries per rank %s: max/min %.3f <= 1.10" % (elem4, max(elem4) / max(min(elem4), 1)),
            len(elem4) == 4 and max(elem4) <= 1.10 * min(elem4))
checks.finish()
