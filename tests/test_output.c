/*
  Output module (src/io/output.c): writes the files that tests/check_output.py then reads back
  with h5py and checks against the same formulas (independent reader, independent XDMF parser).

    test_output [PREFIX]          PREFIX.h5 (+ .xdmf), closed "complete", and PREFIX_failed.h5,
                                  closed "failed: ...", plus error checks (any number of ranks).
                                  PREFIX_checkpoint.h5: checkpoints (WriteCheckpoints).
    test_output --killed PREFIX   PREFIX_killed.h5: three records, a flush after the second, then
                                  the process ends without closing (as a killed run would).

  Data arguments are passed only on rank 0 (NULL elsewhere), as the interface allows.

  Test data (the same formulas are in check_output.py):
    record r = 0..4 at t = 0.25 r;
    /energy/kinetic        = 1 + 1.5 r, not set at r = 2 (NaN);
    /sensors/s1/position   = (r, -r, 0.5 r^2);
    body "beam": nodes (i, 0.5 j, 0.25 k), node = i + 3 (j + 2 k), i < 3, j, k < 2; cell c has
                 ANCF corner n at node (c + (n&1), (n>>1)&1, (n>>2)&1);
                 position = X + 0.01 r (X_y + X_z, X_x^2, -X_x);
    surface "film": nodes (0.5 i, 0.5 j, 0), node = i + 3 j, i < 3, j < 2, quads (0,1,4,3), (1,2,5,4);
                 /films/film/pressure = 1e5 (r + 1) + 1000 node;
    /late (added after record 1) = 10 r from record 2 on, NaN before.
*/
#include <tribodyn/output.h>
#include <hdf5.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#define NREC 5

static void Reference(PetscReal X[36])
{
  for (PetscInt k = 0; k < 2; k++)
    for (PetscInt j = 0; j < 2; j++)
      for (PetscInt i = 0; i < 3; i++) {
        PetscInt n    = i + 3 * (j + 2 * k);
        X[3 * n + 0] = (PetscReal)i;
        X[3 * n + 1] = 0.5 * (PetscReal)j;
        X[3 * n + 2] = 0.25 * (PetscReal)k;
      }
}

static void Cells(PetscInt cells[16])
{
  for (PetscInt c = 0; c < 2; c++)
    for (PetscInt n = 0; n < 8; n++) cells[8 * c + n] = (c + (n & 1)) + 3 * (((n >> 1) & 1) + 2 * ((n >> 2) & 1));
}

static void Position(PetscInt r, const PetscReal X[36], PetscReal x[36])
{
  for (PetscInt n = 0; n < 12; n++) {
    const PetscReal *p = &X[3 * n];
    x[3 * n + 0]       = p[0] + 0.01 * r * (p[1] + p[2]);
    x[3 * n + 1]       = p[1] + 0.01 * r * p[0] * p[0];
    x[3 * n + 2]       = p[2] - 0.01 * r * p[0];
  }
}

/* The message of the last error names what (skipped when what is NULL). */
static PetscErrorCode CheckMessage(PetscErrorCode e, const char call[], const char what[])
{
  const char *text;
  char       *specific = NULL;

  PetscFunctionBeginUser;
  if (!what) PetscFunctionReturn(0);
  PetscCall(PetscErrorMessage(e, &text, &specific));
  PetscCheck(specific && strstr(specific, what), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: the message \"%s\" does not name %s", call, specific ? specific : "", what);
  PetscFunctionReturn(0);
}

/* Runs the call with errors returned instead of printed; checks the code and the message. */
#define ExpectError(expected, what, ...) \
  do { \
    PetscErrorCode e_; \
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL)); \
    e_ = __VA_ARGS__; \
    PetscCall(PetscPopErrorHandler()); \
    PetscCheck(e_ == (expected), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: expected error %d, got %d", #__VA_ARGS__, (int)(expected), (int)e_); \
    PetscCall(CheckMessage(e_, #__VA_ARGS__, what)); \
  } while (0)

static PetscErrorCode WriteComplete(MPI_Comm comm, const char prefix[])
{
  PetscMPIInt rank;
  char        path[PETSC_MAX_PATH_LEN];
  TdOutput    out;
  PetscInt    ke, sensor, pos, pressure, thickness, late = -1, bad, n0, n1;
  PetscReal   X[36], x[36], films[18], p[6], s[3], v;
  PetscInt    cells[16], quads[8] = {0, 1, 4, 3, 1, 2, 5, 4}, ids[5] = {3, 1, 4, 1, 5}, pairs[4] = {-1, 2, 3, 2000000000};
  PetscReal   matrix[6] = {1, 2, 3, 4, 5, 6};
  PetscBool   root;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  root = rank == 0 ? PETSC_TRUE : PETSC_FALSE;
  Reference(X);
  Cells(cells);
  for (PetscInt j = 0; j < 2; j++)
    for (PetscInt i = 0; i < 3; i++) {
      PetscInt n        = i + 3 * j;
      films[3 * n + 0] = 0.5 * i;
      films[3 * n + 1] = 0.5 * j;
      films[3 * n + 2] = 0;
    }

  PetscCall(PetscSNPrintf(path, sizeof(path), "%s.h5", prefix));
  PetscCall(TdOutputCreate(comm, path, &out));
  PetscCall(TdOutputAddSeries(out, "/energy/kinetic", 1, &ke));
  PetscCall(TdOutputAddSeries(out, "sensors/s1/position", 3, &sensor));
  PetscCall(TdOutputAddHexBody(out, "beam", 12, root ? X : NULL, 2, root ? cells : NULL, &pos));
  PetscCall(TdOutputAddQuadSurface(out, "film", 6, root ? films : NULL, 2, root ? quads : NULL, NULL));
  PetscCall(TdOutputAddFieldSeries(out, "/films/film/pressure", 6, &pressure));
  PetscCall(TdOutputAddSurfaceField(out, "film", "pressure", pressure));
  /* a field set in parts: each rank its chunk of the nodes (on one rank all of them) */
  PetscCall(TdOutputAddFieldSeries(out, "/films/film/h", 6, &thickness));
  PetscCall(TdOutputAddSurfaceField(out, "film", "h", thickness));
  PetscCall(TdOutputSeriesPartRange(out, thickness, &n0, &n1));
  PetscCall(TdOutputWriteReal(out, "/params/matrix", 2, 3, root ? matrix : NULL));
  PetscCall(TdOutputWriteInt(out, "/params/ids", 5, 1, root ? ids : NULL));
  PetscCall(TdOutputWriteInt(out, "/params/pairs", 2, 2, root ? pairs : NULL));
  PetscCall(TdOutputSetAttribute(out, "/", "options", root ? "-bodies beam -beam_E 2.1e11 -output out.h5" : NULL));
  PetscCall(TdOutputSetAttribute(out, "/sensors/s1", "units", root ? "m" : NULL));
  PetscCall(TdOutputSetAttribute(out, "/meta", "note", root ? "group made for this attribute <&>" : NULL));

  /* misuse: every rank must get the same error, and the file must stay usable */
  ExpectError(PETSC_ERR_ARG_WRONG, root ? "/energy/kinetic" : NULL, TdOutputAddSeries(out, "/energy/kinetic", 1, &bad));
  ExpectError(PETSC_ERR_ARG_OUTOFRANGE, NULL, TdOutputAddSeries(out, "/zero", 0, &bad));
  ExpectError(PETSC_ERR_ARG_WRONG, root ? "is a dataset" : NULL, TdOutputAddSeries(out, "/energy/kinetic/x", 1, &bad));
  ExpectError(PETSC_ERR_ARG_OUTOFRANGE, NULL, TdOutputSetSeries(out, 99, root ? s : NULL));
  ExpectError(PETSC_ERR_ARG_WRONG, "/time", TdOutputSetSeries(out, 0, root ? s : NULL));
  ExpectError(PETSC_ERR_ARG_WRONG, "record series", TdOutputAddSurfaceField(out, "film", "pressure2", ke));
  ExpectError(PETSC_ERR_ARG_WRONG, "only a field series", TdOutputSetSeriesPart(out, ke, 0, 1, s));
  {
    /* parts that leave a node out (on one rank: rows 1 to 6 of 6) */
    PetscReal h[6] = {0, 0, 0, 0, 0, 0};
    ExpectError(PETSC_ERR_ARG_WRONG, "cover its 6 rows", TdOutputSetSeriesPart(out, thickness, n0 + (root ? 1 : 0), n1 - n0, h));
  }
  ExpectError(PETSC_ERR_ARG_WRONG, "nowhere", TdOutputAddSurfaceField(out, "nowhere", "pressure", pressure));
  ExpectError(PETSC_ERR_ARG_WRONG, "beam", TdOutputAddHexBody(out, "beam", 12, root ? X : NULL, 2, root ? cells : NULL, &bad));
  {
    PetscInt badcells[8] = {0, 1, 2, 3, 4, 5, 6, 12};
    ExpectError(PETSC_ERR_ARG_OUTOFRANGE, root ? "node 12" : NULL, TdOutputAddHexBody(out, "broken", 12, root ? X : NULL, 1, root ? badcells : NULL, &bad));
  }

  for (PetscInt r = 0; r < NREC; r++) {
    if (r != 2) {
      v = 1 + 1.5 * r;
      PetscCall(TdOutputSetSeries(out, ke, root ? &v : NULL));
    }
    s[0] = r;
    s[1] = -r;
    s[2] = 0.5 * r * r;
    PetscCall(TdOutputSetSeries(out, sensor, root ? s : NULL));
    if (late >= 0) {
      v = 10.0 * r;
      PetscCall(TdOutputSetSeries(out, late, root ? &v : NULL));
    }
    PetscCall(TdOutputAppendRecord(out, 0.25 * r));
    if (r % 2 == 0) { /* the field series: every other record */
      Position(r, X, x);
      if (r % 4 == 0) PetscCall(TdOutputSetSeries(out, pos, root ? x : NULL));
      else {
        /* in parts, each rank its rows: the displacement (check_output.py: position minus
           reference) is formed by the ranks from their parts */
        PetscInt b0, b1;
        PetscCall(TdOutputSeriesPartRange(out, pos, &b0, &b1));
        PetscCall(TdOutputSetSeriesPart(out, pos, b0, b1 - b0, &x[3 * b0]));
      }
      for (PetscInt n = 0; n < 6; n++) p[n] = 1e5 * (r + 1) + 1000 * n;
      PetscCall(TdOutputSetSeries(out, pressure, root ? p : NULL));
      for (PetscInt n = n0; n < n1; n++) p[n - n0] = 0.5 * (r + 1) + 0.01 * n;
      PetscCall(TdOutputSetSeriesPart(out, thickness, n0, n1 - n0, p));
      PetscCall(TdOutputAppendFieldRecord(out, 0.25 * r));
    }
    if (r == 1) {
      PetscCall(TdOutputAddSeries(out, "/late", 1, &late));
      PetscCall(TdOutputFlush(out));
    }
  }
  PetscCall(TdOutputClose(&out, "complete"));
  PetscCheck(!out, PETSC_COMM_SELF, PETSC_ERR_PLIB, "TdOutputClose left the object");
  PetscCall(TdOutputClose(&out, "complete")); /* closing NULL is a no-op */
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteFailed(MPI_Comm comm, const char prefix[])
{
  char      path[PETSC_MAX_PATH_LEN];
  TdOutput  out;
  PetscInt  ke;
  PetscReal v = 2.5;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s_failed.h5", prefix));
  PetscCall(TdOutputCreate(comm, path, &out));
  PetscCall(TdOutputAddSeries(out, "/energy/kinetic", 1, &ke));
  PetscCall(TdOutputSetSeries(out, ke, &v));
  PetscCall(TdOutputAppendRecord(out, 0.5));
  PetscCall(TdOutputClose(&out, "failed: Newton diverged at t = 0.5"));
  PetscFunctionReturn(0);
}

static PetscErrorCode WriteKilled(MPI_Comm comm, const char prefix[])
{
  char      path[PETSC_MAX_PATH_LEN];
  TdOutput  out;
  PetscInt  ke, pos, cells[16];
  PetscReal X[36], x[36], v;

  PetscFunctionBeginUser;
  Reference(X);
  Cells(cells);
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s_killed.h5", prefix));
  PetscCall(TdOutputCreate(comm, path, &out));
  PetscCall(TdOutputAddSeries(out, "/energy/kinetic", 1, &ke));
  PetscCall(TdOutputAddHexBody(out, "beam", 12, X, 2, cells, &pos));
  for (PetscInt r = 0; r < 3; r++) {
    v = 1 + 1.5 * r;
    PetscCall(TdOutputSetSeries(out, ke, &v));
    Position(r, X, x);
    PetscCall(TdOutputSetSeries(out, pos, x));
    PetscCall(TdOutputAppendRecord(out, 0.25 * r));
    PetscCall(TdOutputAppendFieldRecord(out, 0.25 * r));
    if (r == 1) PetscCall(TdOutputFlush(out));
  }
  PetscFunctionReturn(0);
}

/*
  Checkpoints (src/io/output_checkpoint.c) in PREFIX_checkpoint.h5: five of them, each after a
  record, into the two slots in turn, so that arrays written before are rewritten longer and
  shorter, then one more record.  Checkpoint c (t = c) holds "whole" = (c, c+1, c+2, c+3),
  given on rank 0 only, and the distributed "parts" (rank r gives r + len[c] values
  1000 r + 10 c + i, len = 3, 1, 2, 4, 1) and "keys" (rank r gives r + 1 values 7 r + i + c); on
  several ranks each rank writes its own part through parallel HDF5.  Read back: the last
  checkpoint's arrays begin with the ranks' parts in rank order (on several ranks an array is
  only grown, so a shorter one leaves older values behind it), and the series /x holds its 6 records
  0..5 (the records go on after a checkpoint).
*/
#define NCHECK 5
static PetscErrorCode WriteCheckpoints(MPI_Comm comm, const char prefix[])
{
  char             path[PETSC_MAX_PATH_LEN];
  TdOutput         out;
  TdCheckpointFile cf;
  PetscMPIInt      rank, size;
  PetscInt         id, n, k = 0;
  PetscReal       *v, t;
  PetscInt64      *iv;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscSNPrintf(path, sizeof path, "%s_checkpoint.h5", prefix));
  PetscCall(TdOutputCreate(comm, path, &out));
  PetscCall(TdOutputAddSeries(out, "/x", 1, &id));
  for (PetscInt c = 0; c <= NCHECK; c++) {
    const PetscReal x = (PetscReal)c, whole[4] = {c, c + 1, c + 2, c + 3};
    const PetscInt  len[NCHECK] = {3, 1, 2, 4, 1};
    PetscReal       parts[64];
    PetscInt64      keys[64];
    PetscCall(TdOutputSetSeries(out, id, &x));
    PetscCall(TdOutputAppendRecord(out, (PetscReal)c));
    if (c == NCHECK) break; /* a record after the last checkpoint */
    PetscCheck(rank + len[c] <= 64, comm, PETSC_ERR_SUP, "at most 60 ranks");
    for (PetscInt i = 0; i < rank + len[c]; i++) parts[i] = 1000.0 * rank + 10.0 * c + i;
    for (PetscInt i = 0; i < rank + 1; i++) keys[i] = 7 * rank + i + c;
    PetscCall(TdOutputCheckpointBegin(out));
    PetscCall(TdOutputCheckpointPutReal(out, "whole", 4, rank ? NULL : whole));
    PetscCall(TdOutputCheckpointPutRealDistributed(out, "parts", rank + len[c], parts));
    PetscCall(TdOutputCheckpointPutIntDistributed(out, "keys", rank + 1, keys));
    PetscCall(TdOutputCheckpointEnd(out, (PetscReal)c));
  }
  PetscCall(TdOutputClose(&out, "complete"));

  PetscCall(TdCheckpointFileOpen(comm, path, &cf));
  PetscCall(TdCheckpointFileGetTime(cf, &t));
  PetscCheck(t == NCHECK - 1, comm, PETSC_ERR_PLIB, "checkpoint time %g, expected %d", (double)t, NCHECK - 1);
  PetscCall(TdCheckpointFileGetReal(cf, "whole", PETSC_TRUE, &n, &v));
  PetscCheck(n == 4 && v[0] == NCHECK - 1 && v[3] == NCHECK + 2, comm, PETSC_ERR_PLIB, "whole: %" PetscInt_FMT " values, expected %d..%d", n, NCHECK - 1, NCHECK + 2);
  PetscCall(PetscFree(v));
  PetscCall(TdCheckpointFileGetReal(cf, "parts", PETSC_TRUE, &n, &v));
  /* on several ranks an array is only grown (output_checkpoint.c): its head holds the parts */
  PetscCheck(size == 1 ? n == size * (size + 1) / 2 : n >= size * (size + 1) / 2, comm, PETSC_ERR_PLIB, "parts: %" PetscInt_FMT " values, expected %s%d", n, size == 1 ? "" : "at least ", size * (size + 1) / 2);
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscInt i = 0; i < r + 1; i++, k++) PetscCheck(v[k] == 1000.0 * r + 10 * (NCHECK - 1) + i, comm, PETSC_ERR_PLIB, "parts[%" PetscInt_FMT "] = %g, expected %g (rank %d's value %" PetscInt_FMT ")", k, (double)v[k], 1000.0 * r + 10 * (NCHECK - 1) + i, (int)r, i);
  PetscCall(PetscFree(v));
  PetscCall(TdCheckpointFileGetInt(cf, "keys", PETSC_TRUE, &n, &iv));
  k = 0;
  PetscCheck(n == size * (size + 1) / 2, comm, PETSC_ERR_PLIB, "keys: %" PetscInt_FMT " values", n);
  for (PetscMPIInt r = 0; r < size; r++)
    for (PetscInt i = 0; i < r + 1; i++, k++) PetscCheck(iv[k] == 7 * r + i + NCHECK - 1, comm, PETSC_ERR_PLIB, "keys[%" PetscInt_FMT "] = %lld, expected %d", k, (long long)iv[k], (int)(7 * r + i + NCHECK - 1));
  PetscCall(PetscFree(iv));
  PetscCall(TdCheckpointFileClose(&cf));
  if (rank == 0) {
    /* the records: NCHECK + 1, the last one written after the last checkpoint */
    hid_t   f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT), d, sp;
    hsize_t dims[1] = {0};
    double  x[8]    = {0};
    PetscCheck(f >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", path);
    d  = H5Dopen2(f, "/x", H5P_DEFAULT);
    sp = H5Dget_space(d);
    H5Sget_simple_extent_dims(sp, dims, NULL);
    PetscCheck(dims[0] == NCHECK + 1 && H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) >= 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "/x: %llu records, expected %d", (unsigned long long)dims[0], NCHECK + 1);
    for (PetscInt r = 0; r <= NCHECK; r++) PetscCheck(x[r] == r, PETSC_COMM_SELF, PETSC_ERR_PLIB, "/x[%" PetscInt_FMT "] = %g, expected %" PetscInt_FMT, r, x[r], r);
    H5Sclose(sp);
    H5Dclose(d);
    H5Fclose(f);
  }
  PetscCall(PetscPrintf(comm, "test_output: checkpoints on %d rank(s): the distributed arrays are the ranks' parts in rank order, the records go on after a checkpoint\n", (int)size));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  const char *prefix = "output_serial";
  PetscBool   killed = PETSC_FALSE;
  TdOutput    out    = NULL;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, "Output module test"));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  if (argc > 1 && !strcmp(argv[1], "--killed")) {
    killed = PETSC_TRUE;
    if (argc > 2) prefix = argv[2];
  } else if (argc > 1) prefix = argv[1];

  if (killed) {
    PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "--killed runs on one rank");
    PetscCall(WriteKilled(PETSC_COMM_WORLD, prefix));
    _exit(0); /* no close, no HDF5 or MPI finalisation: what a killed run leaves */
  }

  ExpectError(PETSC_ERR_FILE_OPEN, "/nonexistent_dir/x.h5", TdOutputCreate(PETSC_COMM_WORLD, "/nonexistent_dir/x.h5", &out));
  PetscCheck(!out, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A failed TdOutputCreate left an object");
  PetscCall(WriteComplete(PETSC_COMM_WORLD, prefix));
  PetscCall(WriteFailed(PETSC_COMM_WORLD, prefix));
  PetscCall(WriteCheckpoints(PETSC_COMM_WORLD, prefix));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_output: wrote %s.h5 and %s_failed.h5 on %d rank(s)\n", prefix, prefix, (int)size));
  PetscCall(PetscFinalize());
  return 0;
}
