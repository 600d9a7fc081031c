"""The lubricated slider-guide case (cases/slider_guide_lubricated.opts) gives the same sensor
histories and film pressures on 1, 2 and 4 MPI ranks (each rank assembles its elements and its
strip of the film's quads), and on 1 rank with 2 OpenMP threads (the film assembly shares its
quads among threads), to 1e-8 relative (a short run: 0.5 ms, the film under load, the slider
moving; Newton's tolerance leaves differences of about 1e-10)."""
import os
import sys
sys.path.insert(0, __file__.rsplit("/", 2)[0])
import numpy as np
import tdrun

src = os.environ.get("TRIBODYN_SOURCE_DIR", os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
case = os.path.join(src, "cases/slider_guide_lubricated.opts")
checks = tdrun.Checks("Lubricated slider-guide: 1, 2 and 4 MPI ranks, 1 and 2 threads")
res = {}
for n, threads in ((1, 1), (2, 1), (4, 1), (1, 2)):
    out, _ = tdrun.run(["-options_file", case, "-t_final", "5e-4"], nproc=n, threads=threads, name="np%dt%d" % (n, threads))
    res[n, threads] = {s: tdrun.sensor(out, s, "acceleration")[1] for s in ("slider", "guide_mid")}
    res[n, threads]["p"] = tdrun.dataset(out, "/films/film/pressure")
    if (n, threads) == (1, 1):
        # the film is carried by the drive: its recorded node positions move with the slider
        # (ParaView shows it under the slider), and the XDMF places it by them
        shift = tdrun.dataset(out, "/films/film/position") - tdrun.dataset(out, "/films/film/nodes")[None, :, :]
        dx = tdrun.sensor(out, "slider", "displacement")[1][:, 0]
        err = np.max(np.abs(shift[:, :, 0] - dx[:, None]))
        xdmf = open(out[:-3] + ".xdmf").read()
        checks.true("film nodes follow the drive: x shift vs the slider's x displacement (up to %.3e m), max difference %.2e m; y, z shifts %.1e; XDMF uses /films/film/position" % (np.abs(dx).max(), err, np.abs(shift[:, :, 1:]).max()),
                    err <= 1e-3 * np.abs(dx).max() and np.abs(shift[:, :, 1:]).max() == 0 and np.abs(dx).max() > 1e-4 and "/films/film/position" in xdmf)
for other in ((2, 1), (4, 1), (1, 2)):
    for key in ("slider", "guide_mid", "p"):
        a, b = res[1, 1][key], res[other][key]
        rel = np.max(np.abs(a - b)) / np.max(np.abs(a))
        checks.true("%s: max rel. difference, %d rank(s) x %d thread(s) vs 1 x 1: %.2e <= 1e-8 (peak %.3e)" % (key, other[0], other[1], rel, np.max(np.abs(a))), rel <= 1e-8)
checks.finish()
