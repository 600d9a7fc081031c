/*
  Result file (include/tribodyn/output.h): HDF5 in the layout of src/docs/interface.md, plus an XDMF
  file beside it (same path with .xdmf instead of .h5) that ParaView opens.

  Rank 0 owns the file and makes every HDF5 call, with the default (sec2, non-MPI-IO) driver.
  All ranks keep the same bookkeeping (series names and shapes, grids, record count), so series
  ids agree everywhere; a failure on rank 0 is broadcast so that every rank returns the same
  error code (TdOutputRootCall).  Data arguments are only read on rank 0.  Two exceptions, the
  parallel phases: a checkpoint (output_checkpoint.c), and a field record with series set in
  parts (TdOutputSetSeriesPart: film fields), for which rank 0 closes its handles and every rank
  opens the file through MPI-IO and writes its own rows collectively, so that no rank gathers a
  field (a field series has as many chunks across its row as there are ranks, so that the ranks
  compress their own parts); rank 0 then opens the file again.

  Layout decisions:
    - a time series is a chunked dataset of doubles with an unlimited first dimension (records):
      1-D (n) for one column, n x ncols otherwise, n x nnodes x 3 for a hex body's positions;
      a series added after some records exists with NaN (the fill value) in those records;
    - /time is series 0, filled by TdOutputAppendRecord;
    - /bodies/<b>/reference (nnodes x 3), /bodies/<b>/cells (ncells x 8, int64, VTK/XDMF
      hexahedron order), /bodies/<b>/position and /bodies/<b>/displacement (n x nnodes x 3;
      displacement = position - reference, NaN when the position was not set);
    - /films/<f>/nodes (m x 3), /films/<f>/quads (k x 4, int64), and for a film carried by a
      drive /films/<f>/position (n x m x 3);
    - static datasets with one column are 1-D; integers are stored as int64;
    - string attributes are scalar variable-length UTF-8 strings (h5py reads them as str).
  Only the row of the record being built is held in memory.  Each record ends with H5Fflush,
  so a killed run keeps every completed record; the XDMF is rewritten (through a temporary file
  and rename) at TdOutputCreate, TdOutputFlush and TdOutputClose, and describes the records
  written up to then.  XDMF: a temporal collection of records, each a spatial collection of one
  uniform grid per body (Hexahedron, geometry = its position in that record, attribute
  displacement) and per surface (Quadrilateral, its static nodes or its position in that
  record, its nodal fields); record
  selections use the form ParaView's default (Xdmf3) readers understand, see TdXdmfRecord.
*/
#include "output_private.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>



/* ---------------------------------------------------------------------------------------------
   HDF5 error reporting: automatic printing is off; a failed call becomes a PETSc error whose
   message says what was being done and carries the innermost HDF5 error description.
   --------------------------------------------------------------------------------------------- */
typedef struct {
  char  *buf;
  size_t len;
} TdH5Message;

static herr_t TdH5WalkCallback(unsigned n, const H5E_error2_t *err, void *ctx)
{
  TdH5Message *m = (TdH5Message *)ctx;

  if (n == 0 && err && err->desc) snprintf(m->buf, m->len, "%s [%s()]", err->desc, err->func_name ? err->func_name : "?");
  return 0;
}

void TdH5Describe(char msg[], size_t len)
{
  TdH5Message m;

  m.buf = msg;
  m.len = len;
  snprintf(msg, len, "no details on the HDF5 error stack");
  (void)H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, TdH5WalkCallback, &m);
  (void)H5Eclear2(H5E_DEFAULT);
}


/* ---------------------------------------------------------------------------------------------
   Rank 0 does the work, every rank learns its outcome.
   --------------------------------------------------------------------------------------------- */
PetscErrorCode TdOutputShare(TdOutput out, PetscErrorCode ierr)
{
  int code = (int)ierr;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, out->comm));
  if (!code) PetscFunctionReturn(0);
  if (out->rank == 0) PetscCall((PetscErrorCode)code);
  SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "Rank 0 failed writing the output file %s; see its error message", out->path);
}


/* ---------------------------------------------------------------------------------------------
   Parallel phases (checkpoints, field records set in parts): rank 0 closes its handles, every
   rank opens the file through MPI-IO and makes its own HDF5 calls, collective where HDF5 asks
   for it, and every rank learns whether any failed.
   --------------------------------------------------------------------------------------------- */
PetscErrorCode TdOutputShareAll(TdOutput out, PetscErrorCode ierr, const char what[])
{
  int code = (int)ierr, any;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&code, &any, 1, MPI_INT, MPI_MAX, out->comm));
  if (!any) PetscFunctionReturn(0);
  PetscCall(ierr);
  SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)any, "Another rank failed writing %s into %s; see its error message", what, out->path);
}

PetscErrorCode TdOutputOpenParallel(TdOutput out, const char what[])
{
  hid_t fapl;

  PetscFunctionBegin;
  TdH5Check(H5Eset_auto2(H5E_DEFAULT, NULL, NULL), "Cannot turn off HDF5's error printing");
  TdH5Check(fapl = H5Pcreate(H5P_FILE_ACCESS), "Cannot make a file access property list");
  TdH5Check(H5Pset_fapl_mpio(fapl, out->comm, MPI_INFO_NULL), "Cannot set the MPI-IO driver");
  TdH5Check(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "Cannot set the file close degree");
#if H5_VERSION_GE(1, 10, 7)
  /* the ranks open one file together: no locks among them */
  TdH5Check(H5Pset_file_locking(fapl, 0, 1), "Cannot set file locking");
#endif
  TdH5Check(out->file = H5Fopen(out->path, H5F_ACC_RDWR, fapl), "Cannot open %s through MPI-IO %s", out->path, what);
  TdH5Check(H5Pclose(fapl), "Cannot close a property list");
  if (out->lcpl < 0) {
    TdH5Check(out->lcpl = H5Pcreate(H5P_LINK_CREATE), "Cannot make a link creation property list");
    TdH5Check(H5Pset_create_intermediate_group(out->lcpl, 1), "Cannot ask for intermediate groups");
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdH5WriteCollective(TdOutput out, hid_t dset, int ndims, const hsize_t start[], const hsize_t count[], PetscBool mine, hid_t mtype, const void *buf, const char what[])
{
  hsize_t one = 1;
  hid_t   fspace, mspace, dxpl;

  PetscFunctionBegin;
  TdH5Check(fspace = H5Dget_space(dset), "Cannot get the dataspace of %s", what);
  if (mine) {
    TdH5Check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL), "Cannot select this rank's part of %s", what);
    TdH5Check(mspace = H5Screate_simple(ndims, count, NULL), "Cannot make a dataspace for a part of %s", what);
  } else {
    TdH5Check(H5Sselect_none(fspace), "Cannot select nothing in %s", what);
    TdH5Check(mspace = H5Screate_simple(1, &one, NULL), "Cannot make a dataspace");
    TdH5Check(H5Sselect_none(mspace), "Cannot select nothing");
  }
  TdH5Check(dxpl = H5Pcreate(H5P_DATASET_XFER), "Cannot make a transfer property list");
  TdH5Check(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "Cannot ask for collective transfers");
  TdH5Check(H5Dwrite(dset, mtype, mspace, fspace, dxpl, buf), "Cannot write this rank's part of %s in %s (disk full?)", what, out->path);
  TdH5Check(H5Pclose(dxpl), "Cannot close a property list");
  TdH5Check(H5Sclose(mspace), "Cannot close a dataspace");
  TdH5Check(H5Sclose(fspace), "Cannot close a dataspace");
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   Small helpers (rank 0 unless said otherwise)
   --------------------------------------------------------------------------------------------- */

/* Absolute dataset path (all ranks). */
PetscErrorCode TdAbsolutePath(const char name[], char buf[], size_t len)
{
  PetscFunctionBegin;
  PetscCheck(name && name[0] && strcmp(name, "/"), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "An output dataset needs a non-empty name such as /energy/kinetic");
  PetscCall(PetscSNPrintf(buf, len, "%s%s", name[0] == '/' ? "" : "/", name));
  PetscFunctionReturn(0);
}

/* Does the object at path exist?  Walks the components, so a missing group is "no". */
PetscErrorCode TdH5Exists(TdOutput out, const char path[], PetscBool *exists)
{
  char   prefix[PETSC_MAX_PATH_LEN];
  size_t i, len = strlen(path);

  PetscFunctionBegin;
  *exists = PETSC_TRUE;
  PetscCheck(len < sizeof(prefix), PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "Output object name %s is too long (at most %d characters)", path, PETSC_MAX_PATH_LEN - 1);
  for (i = 1; i <= len; i++) {
    if (i == len || path[i] == '/') {
      htri_t e;

      if (path[i - 1] == '/') continue; /* "//" or the leading "/" */
      memcpy(prefix, path, i);
      prefix[i] = 0;
      TdH5Check(e = H5Lexists(out->file, prefix, H5P_DEFAULT), "Cannot look up %s in %s", prefix, out->path);
      if (!e) {
        *exists = PETSC_FALSE;
        break;
      }
      if (i < len) { /* a parent: must be a group */
        hid_t      obj;
        H5I_type_t type;

        TdH5Check(obj = H5Oopen(out->file, prefix, H5P_DEFAULT), "Cannot open %s in %s", prefix, out->path);
        type = H5Iget_type(obj);
        TdH5Check(H5Oclose(obj), "Cannot close %s in %s", prefix, out->path);
        PetscCheck(type == H5I_GROUP, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s in %s is a dataset, not a group, so %s cannot be made under it; rename one of them", prefix, out->path, path);
      }
    }
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode TdH5CheckNew(TdOutput out, const char path[])
{
  PetscBool exists;

  PetscFunctionBegin;
  PetscCall(TdH5Exists(out, path, &exists));
  PetscCheck(!exists, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "Output dataset %s already exists in %s: every output dataset is created once; two bodies, films, sensors or series probably share a name (rename one)", path, out->path);
  PetscFunctionReturn(0);
}

static void TdSetNaN(PetscReal *v, PetscInt n)
{
  for (PetscInt i = 0; i < n; i++) v[i] = (PetscReal)NAN;
}

/* ---------------------------------------------------------------------------------------------
   Attributes and static datasets (rank 0)
   --------------------------------------------------------------------------------------------- */
static PetscErrorCode TdSetAttributeRoot(TdOutput out, const char object[], const char name[], const char value[])
{
  char      path[PETSC_MAX_PATH_LEN];
  PetscBool exists;
  hid_t     obj, type, space, attr;
  htri_t    has;

  PetscFunctionBegin;
  if (!strcmp(object, "/")) PetscCall(PetscStrncpy(path, "/", sizeof(path)));
  else PetscCall(TdAbsolutePath(object, path, sizeof(path)));
  PetscCall(TdH5Exists(out, path, &exists));
  if (exists) TdH5Check(obj = H5Oopen(out->file, path, H5P_DEFAULT), "Cannot open %s in %s to set its attribute %s", path, out->path, name);
  else TdH5Check(obj = H5Gcreate2(out->file, path, out->lcpl, H5P_DEFAULT, H5P_DEFAULT), "Cannot create the group %s in %s for its attribute %s", path, out->path, name);
  TdH5Check(has = H5Aexists(obj, name), "Cannot look up the attribute %s of %s in %s", name, path, out->path);
  if (has) TdH5Check(H5Adelete(obj, name), "Cannot replace the attribute %s of %s in %s", name, path, out->path);
  TdH5Check(type = H5Tcopy(H5T_C_S1), "Cannot make a string type");
  TdH5Check(H5Tset_size(type, H5T_VARIABLE), "Cannot make a variable-length string type");
  TdH5Check(H5Tset_cset(type, H5T_CSET_UTF8), "Cannot make a UTF-8 string type");
  TdH5Check(space = H5Screate(H5S_SCALAR), "Cannot make a scalar dataspace");
  TdH5Check(attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT), "Cannot create the attribute %s of %s in %s", name, path, out->path);
  TdH5Check(H5Awrite(attr, type, &value), "Cannot write the attribute %s of %s in %s", name, path, out->path);
  TdH5Check(H5Aclose(attr), "Cannot close the attribute %s of %s", name, path);
  TdH5Check(H5Sclose(space), "Cannot close a dataspace");
  TdH5Check(H5Tclose(type), "Cannot close a datatype");
  TdH5Check(H5Oclose(obj), "Cannot close %s in %s", path, out->path);
  PetscFunctionReturn(0);
}

/* values: nrows*ncols doubles (isint false) or PetscInts (isint true, stored as int64). */
static PetscErrorCode TdWriteStaticRoot(TdOutput out, const char path[], PetscInt nrows, PetscInt ncols, PetscBool isint, const void *values)
{
  hsize_t  dims[2];
  int      rank = ncols == 1 ? 1 : 2;
  hid_t    space, dset;
  int64_t *ibuf = NULL;
  size_t   count = (size_t)nrows * (size_t)ncols;

  PetscFunctionBegin;
  PetscCheck(count == 0 || values, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No values given on rank 0 for the output dataset %s", path);
  if (out->append) {
    /* a continued run: the static data are the first run's (the checkpoint checked the model) */
    PetscBool exists;
    PetscCall(TdH5Exists(out, path, &exists));
    if (exists) PetscFunctionReturn(0);
  }
  PetscCall(TdH5CheckNew(out, path));
  dims[0] = (hsize_t)nrows;
  dims[1] = (hsize_t)ncols;
  TdH5Check(space = H5Screate_simple(rank, dims, NULL), "Cannot make a %" PetscInt_FMT " x %" PetscInt_FMT " dataspace for %s", nrows, ncols, path);
  TdH5Check(dset = H5Dcreate2(out->file, path, isint ? H5T_STD_I64LE : H5T_IEEE_F64LE, space, out->lcpl, H5P_DEFAULT, H5P_DEFAULT), "Cannot create the dataset %s in %s", path, out->path);
  if (count) {
    if (isint) {
      const PetscInt *iv = (const PetscInt *)values;

      PetscCall(PetscMalloc1(count, &ibuf));
      for (size_t i = 0; i < count; i++) ibuf[i] = (int64_t)iv[i];
      TdH5Check(H5Dwrite(dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, ibuf), "Cannot write the dataset %s in %s", path, out->path);
      PetscCall(PetscFree(ibuf));
    } else TdH5Check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), "Cannot write the dataset %s in %s", path, out->path);
  }
  TdH5Check(H5Dclose(dset), "Cannot close the dataset %s in %s", path, out->path);
  TdH5Check(H5Sclose(space), "Cannot close a dataspace");
  PetscFunctionReturn(0);
}

/* All ranks. */
static PetscErrorCode TdOutputWriteStatic(TdOutput out, const char dataset[], PetscInt nrows, PetscInt ncols, PetscBool isint, const void *values)
{
  char path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  PetscCall(TdAbsolutePath(dataset, path, sizeof(path)));
  PetscCheck(nrows >= 0 && ncols >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Output dataset %s: %" PetscInt_FMT " x %" PetscInt_FMT " is not a valid shape (rows >= 0, columns >= 1)", path, nrows, ncols);
  TdOutputRootCall(out, TdWriteStaticRoot(out, path, nrows, ncols, isint, values));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   Series
   --------------------------------------------------------------------------------------------- */
/* An appended file's series: opened, its shape checked, and cut back to the records of its
   clock that the restart keeps (later ones belong to the run after the checkpoint). */
static PetscErrorCode TdSeriesReopenRoot(TdOutput out, const char path[], int rank, const hsize_t shape[], int clock, hid_t *dset, PetscBool *early)
{
  hid_t   space, dcpl;
  H5D_alloc_time_t when;
  hsize_t dims[3];
  int     r;

  PetscFunctionBegin;
  TdH5Check(*dset = H5Dopen2(out->file, path, H5P_DEFAULT), "Cannot open the series %s in %s", path, out->path);
  TdH5Check(space = H5Dget_space(*dset), "Cannot get the dataspace of %s", path);
  TdH5Check(r = H5Sget_simple_extent_ndims(space), "Cannot get the rank of %s", path);
  PetscCheck(r == rank, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The series %s in %s has %d dimensions, this run writes %d: the file was written by another model", path, out->path, r, rank);
  TdH5Check(H5Sget_simple_extent_dims(space, dims, NULL), "Cannot get the shape of %s", path);
  TdH5Check(H5Sclose(space), "Cannot close a dataspace");
  for (int d = 1; d < rank; d++)
    PetscCheck(dims[d] == shape[d], PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The series %s in %s has %llu values in dimension %d, this run writes %llu: the file was written by another model", path, out->path, (unsigned long long)dims[d], d, (unsigned long long)shape[d]);
  dims[0] = (hsize_t)out->nrec[clock];
  TdH5Check(H5Dset_extent(*dset, dims), "Cannot cut the series %s in %s back to %llu records", path, out->path, (unsigned long long)dims[0]);
  TdH5Check(dcpl = H5Dget_create_plist(*dset), "Cannot get the creation properties of %s", path);
  TdH5Check(H5Pget_alloc_time(dcpl, &when), "Cannot get the allocation time of %s", path);
  TdH5Check(H5Pclose(dcpl), "Cannot close a property list");
  *early = when == H5D_ALLOC_TIME_EARLY ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(0);
}

static PetscErrorCode TdSeriesCreateRoot(TdOutput out, const char path[], int rank, const hsize_t shape[], int clock, hid_t *dset, PetscBool *early)
{
  hsize_t      dims[3], maxdims[3], chunk[3], ncols = 1;
  hid_t        space, dcpl;
  const double nan = NAN;
  PetscMPIInt  size;

  PetscFunctionBegin;
  if (out->append) {
    PetscBool exists;
    PetscCall(TdH5Exists(out, path, &exists));
    if (exists) {
      PetscCall(TdSeriesReopenRoot(out, path, rank, shape, clock, dset, early));
      PetscFunctionReturn(0);
    }
  }
  PetscCall(TdH5CheckNew(out, path));
  *early = clock == TD_FIELD_RECORDS ? PETSC_TRUE : PETSC_FALSE;
  for (int d = 1; d < rank; d++) ncols *= shape[d];
  dims[0]    = (hsize_t)out->nrec[clock]; /* records so far, read as NaN (the fill value) */
  maxdims[0] = H5S_UNLIMITED;
  for (int d = 1; d < rank; d++) dims[d] = maxdims[d] = chunk[d] = shape[d];
  PetscCallMPI(MPI_Comm_size(out->comm, &size));
  /* about 64 KiB chunks: a record series holds up to 1024 records per chunk, a field series
     (a value per node) one or a few */
  chunk[0] = PetscMax(1, PetscMin(1024, 8192 / ncols));
  if (clock == TD_FIELD_RECORDS && size > 1) {
    /* on several ranks, one record per chunk: the ranks write a field record between closing
       and opening the file again, which would leave the space of the earlier versions of a
       chunk of several records unused; and a nodal scalar field, which the ranks write in parts
       (TdOutputSetSeriesPart), has as many chunks across a row as ranks, so that each rank
       compresses and writes about its own */
    if (rank == 2) chunk[1] = (shape[1] + (hsize_t)size - 1) / (hsize_t)size;
    chunk[0] = 1;
  }
  TdH5Check(space = H5Screate_simple(rank, dims, maxdims), "Cannot make the dataspace of the series %s", path);
  TdH5Check(dcpl = H5Pcreate(H5P_DATASET_CREATE), "Cannot make a dataset creation property list");
  TdH5Check(H5Pset_chunk(dcpl, rank, chunk), "Cannot set the chunks of the series %s", path);
  if (out->deflate > 0) {
    /* byte shuffle, then deflate: the exponent bytes of neighbouring doubles are alike */
    TdH5Check(H5Pset_shuffle(dcpl), "Cannot set the shuffle filter of the series %s", path);
    TdH5Check(H5Pset_deflate(dcpl, (unsigned)out->deflate), "Cannot set the deflate filter of the series %s", path);
  }
  TdH5Check(H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &nan), "Cannot set the fill value of the series %s", path);
  /* a field series' chunks are made (holding the fill value) whenever its extent grows: parallel
     HDF5 1.10.8 wrote the ranks' parts collectively only into chunks that exist (into chunks
     made on the way, its collective writes failed, or hung with compression) */
  if (clock == TD_FIELD_RECORDS) TdH5Check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "Cannot set the allocation time of the series %s", path);
  TdH5Check(*dset = H5Dcreate2(out->file, path, H5T_IEEE_F64LE, space, out->lcpl, dcpl, H5P_DEFAULT), "Cannot create the series %s in %s", path, out->path);
  TdH5Check(H5Pclose(dcpl), "Cannot close a property list");
  TdH5Check(H5Sclose(space), "Cannot close a dataspace");
  PetscFunctionReturn(0);
}

/* All ranks: creates the dataset (rank 0) and records the series; shape[1..rank-1]. */
static PetscErrorCode TdOutputNewSeries(TdOutput out, const char dataset[], int rank, const hsize_t shape[], int clock, TdSeriesKind kind, PetscInt *id)
{
  char      path[PETSC_MAX_PATH_LEN];
  hid_t     dset = H5I_INVALID_HID;
  TdSeries *s;
  PetscInt  ncols = 1;
  PetscBool early = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(TdAbsolutePath(dataset, path, sizeof(path)));
  for (int d = 1; d < rank; d++) ncols *= (PetscInt)shape[d];
  TdOutputRootCall(out, TdSeriesCreateRoot(out, path, rank, shape, clock, &dset, &early));
  PetscCallMPI(MPI_Bcast(&early, 1, MPIU_BOOL, 0, out->comm));
  if (out->nseries == out->maxseries) {
    TdSeries *more;
    PetscInt  max = 2 * out->maxseries + 8;

    PetscCall(PetscCalloc1(max, &more));
    if (out->nseries) PetscCall(PetscArraycpy(more, out->series, out->nseries));
    PetscCall(PetscFree(out->series));
    out->series    = more;
    out->maxseries = max;
  }
  s = &out->series[out->nseries];
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscCall(PetscStrallocpy(path, &s->name));
  s->kind  = kind;
  s->clock = clock;
  s->ncols = ncols;
  s->rank  = rank;
  for (int d = 1; d < rank; d++) s->shape[d] = shape[d];
  s->source = -1;
  s->dset   = dset;
  s->early  = early;
  if (out->rank == 0) {
    PetscCall(PetscMalloc1(ncols, &s->row));
    TdSetNaN(s->row, ncols);
  }
  if (id) *id = out->nseries;
  out->nseries++;
  PetscFunctionReturn(0);
}

static PetscErrorCode TdSeriesWriteRowRoot(TdOutput out, TdSeries *s, hsize_t k)
{
  hsize_t dims[3], start[3] = {0, 0, 0}, count[3];
  hid_t   fspace, mspace;

  PetscFunctionBegin;
  dims[0]  = k + 1;
  start[0] = k;
  count[0] = 1;
  for (int d = 1; d < s->rank; d++) dims[d] = count[d] = s->shape[d];
  TdH5Check(H5Dset_extent(s->dset, dims), "Cannot extend the series %s in %s to %llu records", s->name, out->path, (unsigned long long)dims[0]);
  TdH5Check(fspace = H5Dget_space(s->dset), "Cannot get the dataspace of %s", s->name);
  TdH5Check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL), "Cannot select record %llu of %s", (unsigned long long)k, s->name);
  TdH5Check(mspace = H5Screate_simple(s->rank, count, NULL), "Cannot make a row dataspace for %s", s->name);
  TdH5Check(H5Dwrite(s->dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, s->row), "Cannot write record %llu of %s in %s", (unsigned long long)k, s->name, out->path);
  TdH5Check(H5Sclose(mspace), "Cannot close a dataspace");
  TdH5Check(H5Sclose(fspace), "Cannot close a dataspace");
  PetscFunctionReturn(0);
}

/* closing: the file is closed right after (the ranks write the record's parts), which flushes it */
static PetscErrorCode TdAppendRecordRoot(TdOutput out, int clock, PetscReal t, PetscBool closing)
{
  PetscLogDouble now;

  PetscFunctionBegin;
  out->series[clock].row[0] = t; /* /time, /field_time */
  for (PetscInt i = 0; i < out->nseries; i++) {
    TdSeries *s = &out->series[i];

    if (s->clock != clock || s->parted) continue; /* a part: its rank formed it (TdOutputSetSeriesPart) */
    if (s->kind == TD_SERIES_DIFF) {
      const TdSeries *src = &out->series[s->source];

      if (src->isset)
        for (PetscInt j = 0; j < s->ncols; j++) s->row[j] = src->row[j] - s->ref[j];
      else TdSetNaN(s->row, s->ncols);
    }
  }
  for (PetscInt i = 0; i < out->nseries; i++)
    if (out->series[i].clock == clock && !out->series[i].parted) PetscCall(TdSeriesWriteRowRoot(out, &out->series[i], (hsize_t)out->nrec[clock]));
  /* Flushing writes every series' last chunk again (compressed); flushing every record made
     the file and the output time grow with rewritten chunks, so records are flushed in batches
     (a killed run keeps the records up to the last flush; a field record always flushes) */
  PetscCall(PetscTime(&now));
  if (closing) out->last_flush = now;
  else if (clock == TD_FIELD_RECORDS || now - out->last_flush >= out->flush_interval) PetscCall(TdOutputFlushFileRoot(out));
  for (PetscInt i = 0; i < out->nseries; i++)
    if (out->series[i].clock == clock) TdSetNaN(out->series[i].row, out->series[i].ncols);
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputFlushFileRoot(TdOutput out)
{
  PetscFunctionBegin;
  TdH5Check(H5Fflush(out->file, H5F_SCOPE_LOCAL), "Cannot flush %s after %" PetscInt_FMT " records (disk full?)", out->path, out->nrec[TD_RECORDS]);
  PetscCall(PetscTime(&out->last_flush));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   XDMF (rank 0)
   --------------------------------------------------------------------------------------------- */
static void TdXmlEscaped(FILE *fp, const char s[])
{
  for (; *s; s++) {
    switch (*s) {
    case '&':
      fputs("&amp;", fp);
      break;
    case '<':
      fputs("&lt;", fp);
      break;
    case '>':
      fputs("&gt;", fp);
      break;
    case '"':
      fputs("&quot;", fp);
      break;
    case '\'':
      fputs("&apos;", fp);
      break;
    default:
      fputc(*s, fp);
    }
  }
}

/* A DataItem referring to a whole dataset. */
static void TdXdmfHeavy(FILE *fp, TdOutput out, const char ind[], const char path[], int rank, const hsize_t dims[], PetscBool isint)
{
  fprintf(fp, "%s<DataItem Dimensions=\"", ind);
  for (int d = 0; d < rank; d++) fprintf(fp, "%s%llu", d ? " " : "", (unsigned long long)dims[d]);
  fprintf(fp, "\" NumberType=\"%s\" Precision=\"8\" Format=\"HDF\">", isint ? "Int" : "Float");
  TdXmlEscaped(fp, out->h5name);
  fputc(':', fp);
  TdXmlEscaped(fp, path);
  fprintf(fp, "</DataItem>\n");
}

/* A DataItem selecting record k of series s (dims 1 x shape[1] x ...).
   It is an HDF DataItem with the selection after the dataset path,
     file.h5:/dataset|START:STRIDE:COUNT:DATASPACE   (each a list of rank numbers),
   which ParaView's Xdmf3 readers (its default for .xdmf, "Xdmf3ReaderS/T") read as an HDF5
   hyperslab.  The XDMF 2 form (ItemType="HyperSlab" with a selection DataItem and the dataset
   as children) is not used: ParaView 5.11's Xdmf3 readers cannot read it (they skip the array,
   "Skipping unrecognized array type [None]", so a body has no points).  Only ParaView's legacy
   "XDMF Reader" (Xdmf2) does not understand the '|' form. */
static void TdXdmfRecord(FILE *fp, TdOutput out, const char ind[], const TdSeries *s, hsize_t k)
{
  int d;

  fprintf(fp, "%s<DataItem Dimensions=\"1", ind);
  for (d = 1; d < s->rank; d++) fprintf(fp, " %llu", (unsigned long long)s->shape[d]);
  fprintf(fp, "\" NumberType=\"Float\" Precision=\"8\" Format=\"HDF\">");
  TdXmlEscaped(fp, out->h5name);
  fputc(':', fp);
  TdXmlEscaped(fp, s->name);
  fprintf(fp, "|%llu", (unsigned long long)k); /* start */
  for (d = 1; d < s->rank; d++) fprintf(fp, " 0");
  fprintf(fp, ":1"); /* stride */
  for (d = 1; d < s->rank; d++) fprintf(fp, " 1");
  fprintf(fp, ":1"); /* count */
  for (d = 1; d < s->rank; d++) fprintf(fp, " %llu", (unsigned long long)s->shape[d]);
  fprintf(fp, ":%llu", (unsigned long long)out->nrec[s->clock]); /* dataspace */
  for (d = 1; d < s->rank; d++) fprintf(fp, " %llu", (unsigned long long)s->shape[d]);
  fprintf(fp, "</DataItem>\n");
}

static void TdXdmfGrid(FILE *fp, TdOutput out, const TdGrid *g, hsize_t k)
{
  const char *ind = "        ";
  hsize_t     dims[2];

  fprintf(fp, "%s<Grid Name=\"", ind);
  TdXmlEscaped(fp, g->name);
  fprintf(fp, "\" GridType=\"Uniform\">\n");
  fprintf(fp, "%s  <Topology TopologyType=\"%s\" NumberOfElements=\"%" PetscInt_FMT "\">\n", ind, g->hex ? "Hexahedron" : "Quadrilateral", g->ncells);
  dims[0] = (hsize_t)g->ncells;
  dims[1] = g->hex ? 8 : 4;
  TdXdmfHeavy(fp, out, "            ", g->cells, 2, dims, PETSC_TRUE);
  fprintf(fp, "%s  </Topology>\n", ind);
  fprintf(fp, "%s  <Geometry GeometryType=\"XYZ\">\n", ind);
  if (g->position >= 0) TdXdmfRecord(fp, out, "            ", &out->series[g->position], k);
  else {
    dims[0] = (hsize_t)g->nnodes;
    dims[1] = 3;
    TdXdmfHeavy(fp, out, "            ", g->nodes, 2, dims, PETSC_FALSE);
  }
  fprintf(fp, "%s  </Geometry>\n", ind);
  for (PetscInt f = 0; f < g->nfields; f++) {
    fprintf(fp, "%s  <Attribute Name=\"", ind);
    TdXmlEscaped(fp, g->fields[f].name);
    fprintf(fp, "\" AttributeType=\"%s\" Center=\"Node\">\n", g->fields[f].ncomp == 1 ? "Scalar" : "Vector");
    TdXdmfRecord(fp, out, "            ", &out->series[g->fields[f].series], k);
    fprintf(fp, "%s  </Attribute>\n", ind);
  }
  fprintf(fp, "%s</Grid>\n", ind);
}

static PetscErrorCode TdWriteXdmfRoot(TdOutput out)
{
  char       tmp[PETSC_MAX_PATH_LEN + 8];
  FILE      *fp;
  PetscReal *t      = NULL;
  hsize_t    n      = (hsize_t)out->nrec[TD_FIELD_RECORDS];
  PetscInt   ngrids = 0;
  int        bad;

  PetscFunctionBegin;
  for (PetscInt g = 0; g < out->ngrids; g++)
    if (out->grids[g].ncells > 0) ngrids++;
  if (n && ngrids) { /* the field record times (/field_time), read back rather than kept */
    hid_t   fspace, mspace;
    hsize_t start = 0;

    PetscCall(PetscMalloc1(n, &t));
    TdH5Check(fspace = H5Dget_space(out->series[TD_FIELD_RECORDS].dset), "Cannot get the dataspace of /field_time");
    TdH5Check(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, NULL, &n, NULL), "Cannot select the records of /field_time");
    TdH5Check(mspace = H5Screate_simple(1, &n, NULL), "Cannot make a dataspace");
    TdH5Check(H5Dread(out->series[TD_FIELD_RECORDS].dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, t), "Cannot read /field_time back from %s", out->path);
    TdH5Check(H5Sclose(mspace), "Cannot close a dataspace");
    TdH5Check(H5Sclose(fspace), "Cannot close a dataspace");
  }
  PetscCall(PetscSNPrintf(tmp, sizeof(tmp), "%s.tmp", out->xdmf));
  fp = fopen(tmp, "w");
  if (!fp) {
    PetscCall(PetscFree(t));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot write %s (%s); check that the directory of the output file is writable", tmp, strerror(errno));
  }
  fprintf(fp, "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n");
  fprintf(fp, "<!-- tribodyn results: the heavy data are in ");
  TdXmlEscaped(fp, out->h5name);
  fprintf(fp, "; records described: %llu -->\n", (unsigned long long)n);
  fprintf(fp, "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n  <Domain>\n");
  if (ngrids) {
    fprintf(fp, "    <Grid Name=\"tribodyn\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (hsize_t k = 0; k < n; k++) {
      fprintf(fp, "      <Grid Name=\"record_%llu\" GridType=\"Collection\" CollectionType=\"Spatial\">\n", (unsigned long long)k);
      fprintf(fp, "        <Time Value=\"%.17g\"/>\n", (double)t[k]);
      for (PetscInt g = 0; g < out->ngrids; g++)
        if (out->grids[g].ncells > 0) TdXdmfGrid(fp, out, &out->grids[g], k);
      fprintf(fp, "      </Grid>\n");
    }
    fprintf(fp, "    </Grid>\n");
  }
  fprintf(fp, "  </Domain>\n</Xdmf>\n");
  bad = ferror(fp);
  bad = fclose(fp) || bad;
  PetscCall(PetscFree(t));
  PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot write %s (%s); is the disk full?", tmp, strerror(errno));
  PetscCheck(!rename(tmp, out->xdmf), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "Cannot rename %s to %s (%s)", tmp, out->xdmf, strerror(errno));
  PetscFunctionReturn(0);
}

static PetscErrorCode TdFlushRoot(TdOutput out)
{
  PetscFunctionBegin;
  TdH5Check(H5Fflush(out->file, H5F_SCOPE_LOCAL), "Cannot flush %s (disk full?)", out->path);
  PetscCall(TdWriteXdmfRoot(out));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   Creation and destruction
   --------------------------------------------------------------------------------------------- */
/* Rank 0's file access: HDF5's default (sec2) driver, the file closed whole. */
static PetscErrorCode TdFileAccessRoot(hid_t *fapl)
{
  PetscFunctionBegin;
  TdH5Check(*fapl = H5Pcreate(H5P_FILE_ACCESS), "Cannot make a file access property list");
  TdH5Check(H5Pset_fclose_degree(*fapl, H5F_CLOSE_STRONG), "Cannot set the file close degree");
#if H5_VERSION_GE(1, 10, 7)
  /* lock the file (another run cannot write it at the same time; a reader of a running file sets
     HDF5_USE_FILE_LOCKING=FALSE), but still work on file systems without locking */
  TdH5Check(H5Pset_file_locking(*fapl, 1, 1), "Cannot set file locking");
#endif
  PetscFunctionReturn(0);
}

/* Rank 0: closes the file and the series' datasets, for the ranks to open it together through
   MPI-IO (a checkpoint, output_checkpoint.c); TdOutputResumeRoot opens them again. */
PetscErrorCode TdOutputSuspendRoot(TdOutput out)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < out->nseries; i++) {
    if (out->series[i].dset >= 0) TdH5Check(H5Dclose(out->series[i].dset), "Cannot close the series %s", out->series[i].name);
    out->series[i].dset = H5I_INVALID_HID;
  }
  TdH5Check(H5Fclose(out->file), "Cannot close %s before a checkpoint (disk full?)", out->path);
  out->file = H5I_INVALID_HID;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputResumeRoot(TdOutput out)
{
  hid_t fapl;

  PetscFunctionBegin;
  PetscCall(TdFileAccessRoot(&fapl));
  TdH5Check(out->file = H5Fopen(out->path, H5F_ACC_RDWR, fapl), "Cannot open %s again after a checkpoint", out->path);
  TdH5Check(H5Pclose(fapl), "Cannot close a property list");
  for (PetscInt i = 0; i < out->nseries; i++) TdH5Check(out->series[i].dset = H5Dopen2(out->file, out->series[i].name, H5P_DEFAULT), "Cannot open the series %s in %s again after a checkpoint", out->series[i].name, out->path);
  PetscFunctionReturn(0);
}

/* Rank 0: creates (truncates) the file, or opens it for appending (a restart, out->append). */
static PetscErrorCode TdCreateRoot(TdOutput out)
{
  hid_t fapl, file;

  PetscFunctionBegin;
  TdH5Check(H5Eset_auto2(H5E_DEFAULT, NULL, NULL), "Cannot turn off HDF5's error printing");
  PetscCall(TdFileAccessRoot(&fapl));
  if (out->append) file = H5Fopen(out->path, H5F_ACC_RDWR, fapl);
  else file = H5Fcreate(out->path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file < 0) {
    char why[1024];

    TdH5Describe(why, sizeof(why));
    (void)H5Pclose(fapl);
    if (out->append) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot open %s to continue its run (-restart): check that it exists, is a tribodyn result file, is writable and that no other program has it open (HDF5: %s)", out->path, why);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "Cannot create the output file %s: check that its directory exists and is writable and that no other program has the file open, or choose another path with -output (HDF5: %s)", out->path, why);
  }
  out->file = file;
  TdH5Check(H5Pclose(fapl), "Cannot close a property list");
  TdH5Check(out->lcpl = H5Pcreate(H5P_LINK_CREATE), "Cannot make a link creation property list");
  TdH5Check(H5Pset_create_intermediate_group(out->lcpl, 1), "Cannot ask for intermediate groups");
  if (out->append) PetscCall(TdOutputCheckpointFindRoot(out)); /* the record counts to keep */
  PetscCall(TdSetAttributeRoot(out, "/", "status", "running"));
  PetscCall(PetscTime(&out->last_flush));
  PetscFunctionReturn(0);
}

/* Rank 0: closes every HDF5 handle, going on after a failure; returns the first error. */
static PetscErrorCode TdCloseHandlesRoot(TdOutput out)
{
  herr_t   first = 0, e;
  char     what[PETSC_MAX_PATH_LEN + 64] = "";
  PetscInt i;

  PetscFunctionBegin;
  for (i = 0; i < out->nseries; i++) {
    if (out->series[i].dset < 0) continue;
    e = H5Dclose(out->series[i].dset);
    if (e < 0 && !first) {
      first = e;
      PetscCall(PetscSNPrintf(what, sizeof(what), "Cannot close the series %s", out->series[i].name));
    }
    out->series[i].dset = H5I_INVALID_HID;
  }
  if (out->lcpl >= 0) {
    e = H5Pclose(out->lcpl);
    if (e < 0 && !first) {
      first = e;
      PetscCall(PetscSNPrintf(what, sizeof(what), "Cannot close a property list"));
    }
    out->lcpl = H5I_INVALID_HID;
  }
  if (out->file >= 0) {
    e = H5Fclose(out->file);
    if (e < 0 && !first) {
      first = e;
      PetscCall(PetscSNPrintf(what, sizeof(what), "Cannot close %s (disk full?); its last records may be lost", out->path));
    }
    out->file = H5I_INVALID_HID;
  }
  TdH5Check(first, "%s", what);
  PetscFunctionReturn(0);
}

/* All ranks: frees the bookkeeping (HDF5 handles must be closed). */
static PetscErrorCode TdOutputFree(TdOutput *out)
{
  TdOutput o = *out;

  PetscFunctionBegin;
  if (!o) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < o->nseries; i++) {
    PetscCall(PetscFree(o->series[i].name));
    PetscCall(PetscFree(o->series[i].row));
    PetscCall(PetscFree(o->series[i].ref));
    PetscCall(PetscFree(o->series[i].part));
  }
  PetscCall(PetscFree(o->series));
  for (PetscInt g = 0; g < o->ngrids; g++) {
    for (PetscInt f = 0; f < o->grids[g].nfields; f++) PetscCall(PetscFree(o->grids[g].fields[f].name));
    PetscCall(PetscFree(o->grids[g].fields));
    PetscCall(PetscFree(o->grids[g].name));
    PetscCall(PetscFree(o->grids[g].cells));
    PetscCall(PetscFree(o->grids[g].nodes));
  }
  PetscCall(PetscFree(o->grids));
  PetscCall(PetscFree(o->path));
  PetscCall(PetscFree(o->xdmf));
  PetscCall(PetscFree(o->h5name));
  PetscCall(PetscFree(o));
  *out = NULL;
  PetscFunctionReturn(0);
}

static PetscErrorCode TdOutputStart(MPI_Comm comm, const char path[], PetscBool append, TdOutput *out)
{
  TdOutput       o;
  size_t         len;
  const char    *slash;
  int            code = 0;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(out, comm, PETSC_ERR_ARG_NULL, "TdOutputCreate needs a place for the output object");
  *out = NULL;
  PetscCheck(path && path[0], comm, PETSC_ERR_ARG_WRONG, "TdOutputCreate needs a file name (-output FILE.h5)");
  PetscCall(PetscNew(&o));
  o->comm            = comm;
  o->file            = o->lcpl = H5I_INVALID_HID;
  o->append          = append;
  o->deflate         = 4;
  o->checkpoint_slot = -1;
  PetscCallMPI(MPI_Comm_rank(comm, &o->rank));
  PetscCall(PetscStrallocpy(path, &o->path));
  len = strlen(path);
  PetscCall(PetscMalloc1(len + 8, &o->xdmf));
  PetscCall(PetscStrncpy(o->xdmf, path, len + 8));
  if (len > 3 && !strcmp(path + len - 3, ".h5")) o->xdmf[len - 3] = 0;
  else if (len > 5 && !strcmp(path + len - 5, ".hdf5")) o->xdmf[len - 5] = 0;
  PetscCall(PetscStrlcat(o->xdmf, ".xdmf", len + 8));
  slash = strrchr(path, '/');
  PetscCall(PetscStrallocpy(slash ? slash + 1 : path, &o->h5name));

  ierr = o->rank == 0 ? TdCreateRoot(o) : 0;
  code = (int)ierr;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  if (code) {
    if (o->rank == 0) (void)TdCloseHandlesRoot(o);
    PetscCall(TdOutputFree(&o));
    if (!ierr) SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "Rank 0 could not %s the output file %s: see its error message", append ? "open" : "create", path);
    PetscCall(ierr);
  }
  /* every rank: the record counts (an appended file's, from its checkpoint) */
  PetscCallMPI(MPI_Bcast(o->nrec, TD_NCLOCKS, MPIU_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&o->checkpoint_slot, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(&o->checkpoint_t, 1, MPIU_REAL, 0, comm));
  {
    hsize_t none[3] = {0, 0, 0};

    PetscCall(TdOutputNewSeries(o, "/time", 1, none, TD_RECORDS, TD_SERIES_TIME, NULL));
    PetscCall(TdOutputNewSeries(o, "/field_time", 1, none, TD_FIELD_RECORDS, TD_SERIES_TIME, NULL));
  }
  TdOutputRootCall(o, TdWriteXdmfRoot(o));
  *out = o;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputCreate(MPI_Comm comm, const char path[], TdOutput *out)
{
  PetscFunctionBegin;
  PetscCall(TdOutputStart(comm, path, PETSC_FALSE, out));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputOpenAppend(MPI_Comm comm, const char path[], TdOutput *out)
{
  PetscFunctionBegin;
  PetscCall(TdOutputStart(comm, path, PETSC_TRUE, out));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputClose(TdOutput *out, const char status[])
{
  TdOutput       o;
  PetscErrorCode ierr = 0;
  int            code;
  char           path[PETSC_MAX_PATH_LEN];

  PetscFunctionBegin;
  if (!out || !*out) PetscFunctionReturn(0);
  o = *out;
  if (!status) status = "failed: closed without a status";
  if (o->rank == 0) {
    PetscErrorCode e;

    ierr = TdSetAttributeRoot(o, "/", "status", status);
    if (!ierr) ierr = TdFlushRoot(o);
    e = TdCloseHandlesRoot(o);
    if (!ierr) ierr = e;
  }
  code = (int)ierr;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, o->comm));
  PetscCall(PetscStrncpy(path, o->path, sizeof(path)));
  PetscCall(TdOutputFree(out));
  if (code) {
    if (!ierr) SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "Rank 0 failed closing the output file %s; see its error message", path);
    PetscCall(ierr);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputFlush(TdOutput out)
{
  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputFlush: no output object (TdOutputCreate first)");
  TdOutputRootCall(out, TdFlushRoot(out));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   Series, records, static data, attributes
   --------------------------------------------------------------------------------------------- */
PetscErrorCode TdOutputAddSeries(TdOutput out, const char dataset[], PetscInt ncols, PetscInt *id)
{
  hsize_t shape[3] = {0, (hsize_t)ncols, 0};

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddSeries: no output object (TdOutputCreate first)");
  PetscCheck(id, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddSeries needs a place for the series id");
  PetscCheck(ncols >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Output series %s: %" PetscInt_FMT " columns; a series needs at least one", dataset ? dataset : "(null)", ncols);
  PetscCall(TdOutputNewSeries(out, dataset, ncols == 1 ? 1 : 2, shape, TD_RECORDS, TD_SERIES_USER, id));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputSetSeries(TdOutput out, PetscInt id, const PetscReal values[])
{
  TdSeries *s;

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputSetSeries: no output object (TdOutputCreate first)");
  PetscCheck(id >= 0 && id < out->nseries, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Output series id %" PetscInt_FMT " does not exist (there are %" PetscInt_FMT "); use the id TdOutputAddSeries returned", id, out->nseries);
  s = &out->series[id];
  PetscCheck(s->kind == TD_SERIES_USER, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Output series %s is computed by the output module and cannot be set", s->name);
  if (out->rank == 0) {
    PetscCheck(values, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No values given on rank 0 for the output series %s", s->name);
    PetscCall(PetscArraycpy(s->row, values, s->ncols));
  }
  s->isset = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputAddFieldSeries(TdOutput out, const char dataset[], PetscInt ncols, PetscInt *id)
{
  hsize_t shape[3] = {0, (hsize_t)ncols, 0};

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddFieldSeries: no output object (TdOutputCreate first)");
  PetscCheck(id, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddFieldSeries needs a place for the series id");
  PetscCheck(ncols >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Output field series %s: %" PetscInt_FMT " columns; a series needs at least one", dataset ? dataset : "(null)", ncols);
  PetscCall(TdOutputNewSeries(out, dataset, ncols == 1 ? 1 : 2, shape, TD_FIELD_RECORDS, TD_SERIES_USER, id));
  PetscFunctionReturn(0);
}

/* This rank's part of a record of series s, rows [start, start + count) of inner values each:
   values, less ref's rows there when ref is given (a TD_SERIES_DIFF), written at
   TdOutputAppendFieldRecord (TdSeriesWritePart). */
static PetscErrorCode SeriesStorePart(TdSeries *s, PetscInt start, PetscInt count, PetscInt inner, const PetscReal values[], const PetscReal ref[])
{
  PetscFunctionBegin;
  if (count * inner > s->part_size) {
    PetscCall(PetscFree(s->part));
    PetscCall(PetscMalloc1(count * inner, &s->part));
    s->part_size = count * inner;
  }
  for (PetscInt j = 0; j < count * inner; j++) s->part[j] = ref ? values[j] - ref[start * inner + j] : values[j];
  s->part_start = start;
  s->part_count = count;
  s->parted     = PETSC_TRUE;
  s->isset      = PETSC_TRUE;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputSetSeriesPart(TdOutput out, PetscInt id, PetscInt start, PetscInt count, const PetscReal values[])
{
  TdSeries   *s;
  PetscInt    nrows, inner, before = 0, total = 0;
  PetscMPIInt size;
  int         ok, all;

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputSetSeriesPart: no output object (TdOutputCreate first)");
  PetscCheck(id >= 0 && id < out->nseries, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Output series id %" PetscInt_FMT " does not exist (there are %" PetscInt_FMT "); use the id TdOutputAddFieldSeries returned", id, out->nseries);
  s = &out->series[id];
  PetscCheck(s->kind == TD_SERIES_USER && s->clock == TD_FIELD_RECORDS, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Output series %s: only a field series (TdOutputAddFieldSeries) can be set in parts", s->name);
  nrows = s->rank == 1 ? 1 : (PetscInt)s->shape[1];
  inner = s->ncols / nrows;
  PetscCallMPI(MPI_Comm_size(out->comm, &size));
  PetscCallMPI(MPI_Exscan(&count, &before, 1, MPIU_INT, MPI_SUM, out->comm));
  if (out->rank == 0) before = 0;
  PetscCallMPI(MPI_Allreduce(&count, &total, 1, MPIU_INT, MPI_SUM, out->comm));
  ok = start == before && count >= 0 && total == nrows && (count == 0 || values) ? 1 : 0;
  PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, out->comm));
  PetscCheck(all, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Output series %s: the ranks' parts must follow each other in rank order and cover its %" PetscInt_FMT " rows (this rank: rows %" PetscInt_FMT " to %" PetscInt_FMT ", after %" PetscInt_FMT " rows of the ranks before; %" PetscInt_FMT " rows in all)", s->name, nrows, start, start + count, before, total);
  if (size == 1) {
    PetscCall(PetscArraycpy(s->row, values, s->ncols));
    s->isset = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  if (!s->early) {
    /* a series of an older file, whose chunks are allocated as they are written: only rank 0
       can write it (TdSeriesCreateRoot), so the parts are gathered to its row */
    PetscMPIInt *counts = NULL, *displs = NULL, n = (PetscMPIInt)(count * inner);
    if (out->rank == 0) PetscCall(PetscMalloc2(size, &counts, size, &displs));
    PetscCallMPI(MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, out->comm));
    if (out->rank == 0) {
      displs[0] = 0;
      for (PetscMPIInt r = 1; r < size; r++) displs[r] = displs[r - 1] + counts[r - 1];
    }
    PetscCallMPI(MPI_Gatherv(values, n, MPIU_REAL, s->row, counts, displs, MPIU_REAL, 0, out->comm));
    if (out->rank == 0) PetscCall(PetscFree2(counts, displs));
    s->isset = PETSC_TRUE;
    PetscFunctionReturn(0);
  }
  PetscCall(SeriesStorePart(s, start, count, inner, values, NULL));
  /* the series computed from this one (a body's displacement from its positions): the same part */
  for (PetscInt i = 0; i < out->nseries; i++)
    if (out->series[i].kind == TD_SERIES_DIFF && out->series[i].source == id) PetscCall(SeriesStorePart(&out->series[i], start, count, inner, values, out->series[i].ref));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputSeriesPartRange(TdOutput out, PetscInt id, PetscInt *start, PetscInt *end)
{
  const TdSeries *s;
  PetscInt        nrows;
  PetscMPIInt     size;

  PetscFunctionBegin;
  PetscCheck(out && id >= 0 && id < out->nseries, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "TdOutputSeriesPartRange: no output series %" PetscInt_FMT, id);
  s     = &out->series[id];
  nrows = s->rank == 1 ? 1 : (PetscInt)s->shape[1];
  PetscCallMPI(MPI_Comm_size(out->comm, &size));
  TdOutputPartRange(nrows, size, out->rank, start, end);
  PetscFunctionReturn(0);
}

void TdOutputPartRange(PetscInt nrows, PetscMPIInt size, PetscMPIInt rank, PetscInt *start, PetscInt *end)
{
  const PetscInt chunk = (nrows + size - 1) / size; /* the chunks across a field row (TdSeriesCreateRoot) */
  *start               = PetscMin(nrows, chunk * rank);
  *end                 = PetscMin(nrows, chunk * (rank + 1));
}

/* Every rank: record k of a series set in parts, this rank's rows (a collective write; the
   dataset's extent is set by all ranks alike). */
static PetscErrorCode TdSeriesWritePart(TdOutput out, const TdSeries *s, hsize_t k)
{
  hsize_t dims[3], start[3] = {k, 0, 0}, count[3] = {1, 1, 1};
  hid_t   dset;
  char    what[PETSC_MAX_PATH_LEN + 64];

  PetscFunctionBegin;
  dims[0] = k + 1;
  for (int d = 1; d < s->rank; d++) dims[d] = count[d] = s->shape[d];
  if (s->rank > 1) {
    start[1] = (hsize_t)s->part_start;
    count[1] = (hsize_t)s->part_count;
  }
  PetscCall(PetscSNPrintf(what, sizeof(what), "record %llu of %s", (unsigned long long)k, s->name));
  TdH5Check(dset = H5Dopen2(out->file, s->name, H5P_DEFAULT), "Cannot open the series %s in %s", s->name, out->path);
  TdH5Check(H5Dset_extent(dset, dims), "Cannot extend the series %s in %s to %llu records", s->name, out->path, (unsigned long long)dims[0]);
  PetscCall(TdH5WriteCollective(out, dset, s->rank, start, count, s->part_count ? PETSC_TRUE : PETSC_FALSE, H5T_NATIVE_DOUBLE, s->part, what));
  TdH5Check(H5Dclose(dset), "Cannot close the series %s", s->name);
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputEndParallel(TdOutput out, PetscErrorCode ierr, const char what[])
{
  herr_t e;

  PetscFunctionBegin;
  e         = H5Fclose(out->file); /* every rank: the parallel file is done */
  out->file = H5I_INVALID_HID;
  if (!ierr && e < 0) {
    char why[1024];
    TdH5Describe(why, sizeof(why));
    ierr = PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, PETSC_ERR_FILE_WRITE, PETSC_ERROR_INITIAL, "Cannot close %s after writing %s (disk full?) (HDF5: %s)", out->path, what, why);
  }
  PetscCall(TdOutputShareAll(out, ierr, what));
  if (out->rank != 0) {
    TdH5Check(H5Pclose(out->lcpl), "Cannot close a property list");
    out->lcpl = H5I_INVALID_HID;
  }
  TdOutputRootCall(out, TdOutputResumeRoot(out));
  PetscFunctionReturn(0);
}

/* The series of a clock set in parts, record k: each rank writes its parts through MPI-IO. */
static PetscErrorCode TdAppendPartsParallel(TdOutput out, int clock, hsize_t k)
{
  PetscErrorCode ierr = 0;

  PetscFunctionBegin;
  TdOutputRootCall(out, TdOutputSuspendRoot(out));
  PetscCall(TdOutputShareAll(out, TdOutputOpenParallel(out, "to write a field record"), "a field record"));
  for (PetscInt i = 0; i < out->nseries; i++) {
    const TdSeries *s = &out->series[i];
    int             code, any;
    if (s->clock != clock || !s->parted) continue;
    ierr = TdSeriesWritePart(out, s, k);
    /* the next series' calls are collective: every rank stops if any failed */
    code = (int)ierr;
    PetscCallMPI(MPI_Allreduce(&code, &any, 1, MPI_INT, MPI_MAX, out->comm));
    if (any) break; /* TdOutputEndParallel reports it, the others "another rank failed" */
  }
  PetscCall(TdOutputEndParallel(out, ierr, "a field record"));
  PetscFunctionReturn(0);
}

static PetscErrorCode TdOutputAppend(TdOutput out, int clock, PetscReal t)
{
  PetscBool parted = PETSC_FALSE;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < out->nseries; i++)
    if (out->series[i].clock == clock && out->series[i].parted) parted = PETSC_TRUE;
  TdOutputRootCall(out, TdAppendRecordRoot(out, clock, t, parted));
  if (parted) PetscCall(TdAppendPartsParallel(out, clock, (hsize_t)out->nrec[clock]));
  out->nrec[clock]++;
  for (PetscInt i = 0; i < out->nseries; i++)
    if (out->series[i].clock == clock) out->series[i].isset = out->series[i].parted = PETSC_FALSE;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputAppendRecord(TdOutput out, PetscReal t)
{
  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAppendRecord: no output object (TdOutputCreate first)");
  PetscCall(TdOutputAppend(out, TD_RECORDS, t));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputAppendFieldRecord(TdOutput out, PetscReal t)
{
  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAppendFieldRecord: no output object (TdOutputCreate first)");
  PetscCall(TdOutputAppend(out, TD_FIELD_RECORDS, t));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputGetRecordCounts(TdOutput out, PetscInt *nrecords, PetscInt *nfield_records)
{
  PetscFunctionBegin;
  if (nrecords) *nrecords = out->nrec[TD_RECORDS];
  if (nfield_records) *nfield_records = out->nrec[TD_FIELD_RECORDS];
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputSetFlushInterval(TdOutput out, PetscReal seconds)
{
  PetscFunctionBegin;
  PetscCheck(seconds >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The flush interval of an output file is a wall time >= 0 s (0: every record), not %g", (double)seconds);
  out->flush_interval = seconds;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputWriteReal(TdOutput out, const char dataset[], PetscInt nrows, PetscInt ncols, const PetscReal values[])
{
  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputWriteReal: no output object (TdOutputCreate first)");
  PetscCall(TdOutputWriteStatic(out, dataset, nrows, ncols, PETSC_FALSE, values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputWriteInt(TdOutput out, const char dataset[], PetscInt nrows, PetscInt ncols, const PetscInt values[])
{
  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputWriteInt: no output object (TdOutputCreate first)");
  PetscCall(TdOutputWriteStatic(out, dataset, nrows, ncols, PETSC_TRUE, values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputSetAttribute(TdOutput out, const char object[], const char name[], const char value[])
{
  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputSetAttribute: no output object (TdOutputCreate first)");
  PetscCheck(object && object[0] && name && name[0], PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "TdOutputSetAttribute needs an object path (\"/\" for the file) and an attribute name");
  if (out->rank == 0) PetscCheck(value, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No value given on rank 0 for the attribute %s of %s", name, object);
  TdOutputRootCall(out, TdSetAttributeRoot(out, object, name, value));
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   Meshes for the XDMF
   --------------------------------------------------------------------------------------------- */
static PetscErrorCode TdCheckCellsRoot(const char what[], PetscInt nnodes, PetscInt ncells, PetscInt nper, const PetscInt cells[])
{
  PetscFunctionBegin;
  PetscCheck(ncells == 0 || cells, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No cells given on rank 0 for %s", what);
  for (PetscInt c = 0; c < ncells; c++)
    for (PetscInt j = 0; j < nper; j++) {
      PetscInt v = cells[c * nper + j];

      PetscCheck(v >= 0 && v < nnodes, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s: cell %" PetscInt_FMT " refers to node %" PetscInt_FMT ", but the nodes are numbered 0..%" PetscInt_FMT, what, c, v, nnodes - 1);
    }
  PetscFunctionReturn(0);
}

/* All ranks: checks the name is new and appends a grid. */
static PetscErrorCode TdOutputNewGrid(TdOutput out, const char name[], PetscBool hex, PetscInt nnodes, PetscInt ncells, const char cells[], const char nodes[], PetscInt position, TdGrid **grid)
{
  TdGrid *g;

  PetscFunctionBegin;
  if (out->ngrids == out->maxgrids) {
    TdGrid  *more;
    PetscInt max = 2 * out->maxgrids + 4;

    PetscCall(PetscCalloc1(max, &more));
    if (out->ngrids) PetscCall(PetscArraycpy(more, out->grids, out->ngrids));
    PetscCall(PetscFree(out->grids));
    out->grids    = more;
    out->maxgrids = max;
  }
  g = &out->grids[out->ngrids++];
  PetscCall(PetscMemzero(g, sizeof(*g)));
  PetscCall(PetscStrallocpy(name, &g->name));
  g->hex      = hex;
  g->nnodes   = nnodes;
  g->ncells   = ncells;
  g->position = position;
  PetscCall(PetscStrallocpy(cells, &g->cells));
  if (nodes) PetscCall(PetscStrallocpy(nodes, &g->nodes));
  *grid = g;
  PetscFunctionReturn(0);
}

static PetscErrorCode TdGridAddField(TdGrid *g, const char name[], PetscInt series, PetscInt ncomp)
{
  PetscFunctionBegin;
  if (g->nfields == g->maxfields) {
    TdField *more;
    PetscInt max = 2 * g->maxfields + 4;

    PetscCall(PetscCalloc1(max, &more));
    if (g->nfields) PetscCall(PetscArraycpy(more, g->fields, g->nfields));
    PetscCall(PetscFree(g->fields));
    g->fields    = more;
    g->maxfields = max;
  }
  PetscCall(PetscStrallocpy(name, &g->fields[g->nfields].name));
  g->fields[g->nfields].series = series;
  g->fields[g->nfields].ncomp  = ncomp;
  g->nfields++;
  PetscFunctionReturn(0);
}

static PetscErrorCode TdOutputCheckGridName(TdOutput out, const char name[], const char what[])
{
  PetscFunctionBegin;
  PetscCheck(name && name[0] && !strchr(name, '/'), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s needs a non-empty name without '/'", what);
  for (PetscInt g = 0; g < out->ngrids; g++)
    PetscCheck(strcmp(out->grids[g].name, name), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: the output already has a body or surface named %s; names must be unique", what, name);
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputAddHexBody(TdOutput out, const char name[], PetscInt nnodes, const PetscReal X[], PetscInt ncells, const PetscInt cells[], PetscInt *position_series)
{
  static const PetscInt vtk_from_ancf[8] = {0, 1, 3, 2, 4, 5, 7, 6};
  char                  path[PETSC_MAX_PATH_LEN], cellpath[PETSC_MAX_PATH_LEN];
  PetscInt             *vtk = NULL, disp;
  hsize_t               shape[3];
  TdGrid               *g;

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddHexBody: no output object (TdOutputCreate first)");
  PetscCheck(position_series, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddHexBody needs a place for the position series id");
  PetscCall(TdOutputCheckGridName(out, name, "TdOutputAddHexBody"));
  PetscCheck(nnodes >= 1 && ncells >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Body %s: %" PetscInt_FMT " nodes and %" PetscInt_FMT " cells; a body needs at least one node", name, nnodes, ncells);
  TdOutputRootCall(out, TdCheckCellsRoot(name, nnodes, ncells, 8, cells));
  if (out->rank == 0) {
    PetscCall(PetscMalloc1(8 * ncells, &vtk));
    for (PetscInt c = 0; c < ncells; c++)
      for (PetscInt j = 0; j < 8; j++) vtk[8 * c + j] = cells[8 * c + vtk_from_ancf[j]];
  }
  PetscCall(PetscSNPrintf(path, sizeof(path), "/bodies/%s/reference", name));
  PetscCall(TdOutputWriteStatic(out, path, nnodes, 3, PETSC_FALSE, X));
  PetscCall(PetscSNPrintf(cellpath, sizeof(cellpath), "/bodies/%s/cells", name));
  PetscCall(TdOutputWriteStatic(out, cellpath, ncells, 8, PETSC_TRUE, vtk));
  PetscCall(PetscFree(vtk));
  shape[1] = (hsize_t)nnodes;
  shape[2] = 3;
  PetscCall(PetscSNPrintf(path, sizeof(path), "/bodies/%s/position", name));
  PetscCall(TdOutputNewSeries(out, path, 3, shape, TD_FIELD_RECORDS, TD_SERIES_USER, position_series));
  PetscCall(PetscSNPrintf(path, sizeof(path), "/bodies/%s/displacement", name));
  PetscCall(TdOutputNewSeries(out, path, 3, shape, TD_FIELD_RECORDS, TD_SERIES_DIFF, &disp));
  out->series[disp].source = *position_series;
  /* on every rank (X is given on rank 0): the ranks that set the positions in parts form
     their displacements */
  PetscCall(PetscMalloc1(3 * nnodes, &out->series[disp].ref));
  if (out->rank == 0) PetscCall(PetscArraycpy(out->series[disp].ref, X, 3 * nnodes));
  PetscCallMPI(MPI_Bcast(out->series[disp].ref, (PetscMPIInt)(3 * nnodes), MPIU_REAL, 0, out->comm));
  PetscCall(TdOutputNewGrid(out, name, PETSC_TRUE, nnodes, ncells, cellpath, NULL, *position_series, &g));
  PetscCall(TdGridAddField(g, "displacement", disp, 3));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputAddQuadSurface(TdOutput out, const char name[], PetscInt nnodes, const PetscReal X[], PetscInt nquads, const PetscInt quads[], PetscInt *position_series)
{
  char     nodepath[PETSC_MAX_PATH_LEN], quadpath[PETSC_MAX_PATH_LEN];
  TdGrid  *g;
  PetscInt position = -1;

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddQuadSurface: no output object (TdOutputCreate first)");
  PetscCall(TdOutputCheckGridName(out, name, "TdOutputAddQuadSurface"));
  PetscCheck(nnodes >= 1 && nquads >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Surface %s: %" PetscInt_FMT " nodes and %" PetscInt_FMT " quads; a surface needs at least one node", name, nnodes, nquads);
  TdOutputRootCall(out, TdCheckCellsRoot(name, nnodes, nquads, 4, quads));
  PetscCall(PetscSNPrintf(nodepath, sizeof(nodepath), "/films/%s/nodes", name));
  PetscCall(TdOutputWriteStatic(out, nodepath, nnodes, 3, PETSC_FALSE, X));
  PetscCall(PetscSNPrintf(quadpath, sizeof(quadpath), "/films/%s/quads", name));
  PetscCall(TdOutputWriteStatic(out, quadpath, nquads, 4, PETSC_TRUE, quads));
  if (position_series) {
    /* a moving surface (a film carried by a drive): its node positions in each record */
    char    path[PETSC_MAX_PATH_LEN];
    hsize_t shape[3] = {0, (hsize_t)nnodes, 3};
    PetscCall(PetscSNPrintf(path, sizeof(path), "/films/%s/position", name));
    PetscCall(TdOutputNewSeries(out, path, 3, shape, TD_FIELD_RECORDS, TD_SERIES_USER, &position));
    *position_series = position;
  }
  PetscCall(TdOutputNewGrid(out, name, PETSC_FALSE, nnodes, nquads, quadpath, nodepath, position, &g));
  PetscFunctionReturn(0);
}

/* surface may also name a hex body; the series holds nnodes (scalar) or 3 nnodes (vector) values. */
PetscErrorCode TdOutputAddSurfaceField(TdOutput out, const char surface[], const char field[], PetscInt series)
{
  TdGrid  *g = NULL;
  PetscInt ncols;

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddSurfaceField: no output object (TdOutputCreate first)");
  PetscCheck(surface && field && field[0], PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputAddSurfaceField needs a surface name and a field name");
  for (PetscInt i = 0; i < out->ngrids; i++)
    if (!strcmp(out->grids[i].name, surface)) g = &out->grids[i];
  PetscCheck(g, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Output field %s: there is no surface or body named %s (add it with TdOutputAddQuadSurface first)", field, surface);
  PetscCheck(series >= 0 && series < out->nseries, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Output field %s of %s: series id %" PetscInt_FMT " does not exist", field, surface, series);
  PetscCheck(out->series[series].clock == TD_FIELD_RECORDS, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Output field %s of %s: the series %s is a record series; a nodal field shown in the XDMF is a field series (TdOutputAddFieldSeries)", field, surface, out->series[series].name);
  ncols = out->series[series].ncols;
  PetscCheck(ncols == g->nnodes || ncols == 3 * g->nnodes, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ,
             "Output field %s of %s: the series %s has %" PetscInt_FMT " values per record, but a nodal field needs %" PetscInt_FMT " (scalar) or %" PetscInt_FMT " (vector)", field, surface, out->series[series].name, ncols, g->nnodes, 3 * g->nnodes);
  for (PetscInt f = 0; f < g->nfields; f++) PetscCheck(strcmp(g->fields[f].name, field), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s already has a field named %s", surface, field);
  PetscCall(TdGridAddField(g, field, series, ncols == g->nnodes ? 1 : 3));
  PetscFunctionReturn(0);
}
