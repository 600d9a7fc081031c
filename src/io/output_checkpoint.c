/*
  The /checkpoint group of a result file (include/tribodyn/output.h): named arrays of doubles
  and 64-bit integers that a restart reads back (src/solver/checkpoint.c decides what they are).

  Written atomically in the sense of issue 12: a kill during a checkpoint leaves the previous one
  valid.  There are two slots, /checkpoint/slot0 and /checkpoint/slot1; a checkpoint is written
  into the slot that does not hold the valid one, the file is flushed (the records written so
  far with it), and only then is the small dataset /checkpoint/valid overwritten:
      [slot, t, records, field records]   (doubles)
  one 32-byte write into a dataset whose space was allocated when it was made, followed by a
  flush.  A kill before that write leaves /checkpoint/valid naming the previous slot, which the
  new checkpoint did not touch.  The record counts are those the checkpoint's state belongs to;
  a restart cuts every series back to them.

  Writing.  On one rank, rank 0 makes every HDF5 call.  On several, a checkpoint is written
  through MPI-IO (parallel HDF5): TdOutputCheckpointBegin has rank 0 close its handles and every
  rank open the file with the mpio driver; each array is then made by all ranks together
  (collective metadata) and written by a collective H5Dwrite in which a whole array
  (TdOutputCheckpointPutReal/Int: values given on other ranks than 0 are ignored) comes from rank
  0, and a distributed one (...PutRealDistributed/IntDistributed: the ranks' parts one after the
  other, in rank order) from every rank at its own offset, so that no rank gathers another's
  part (at the finest slider-guide level, the kept LU's Jacobian values are 0.5 GB).  The
  ranks write arrays uncompressed and only ever grow them (HDF5 1.10.8 lost or refused values
  the ranks rewrote shorter, see TdCheckpointPutRoot); a distributed array's readers take its
  parts by its counts.  TdOutputCheckpointEnd commits the slot, closes the parallel file and
  rank 0 opens it again.

  Reading: rank 0 reads, and what is read is broadcast to every rank; but a distributed array
  (TdCheckpointFileGetRealPart/IntPart) is read by rank 0 one rank's part at a time and sent to
  that rank alone, so that no rank holds the whole of it.
*/
#include "output_private.h"
#include <string.h>

#define TD_CHECKPOINT_VALID "/checkpoint/valid"

/* ---------------------------------------------------------------------------------------------
   Writing (through the run's TdOutput)
   --------------------------------------------------------------------------------------------- */
PetscErrorCode TdOutputCheckpointBegin(TdOutput out)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCheck(out, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdOutputCheckpointBegin: no output object");
  PetscCheck(!out->checkpoint_open, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "TdOutputCheckpointBegin: a checkpoint is already being written (call TdOutputCheckpointEnd)");
  PetscCallMPI(MPI_Comm_size(out->comm, &size));
  if (size > 1) {
    TdOutputRootCall(out, TdOutputSuspendRoot(out));
    PetscCall(TdOutputShareAll(out, TdOutputOpenParallel(out, "to write a checkpoint"), "the checkpoint"));
    out->checkpoint_parallel = PETSC_TRUE;
  }
  out->checkpoint_open = PETSC_TRUE;
  PetscFunctionReturn(0);
}

static int TdCheckpointWriteSlot(TdOutput out) { return out->checkpoint_slot == 0 ? 1 : 0; }

/* An array of n values in all (on one rank: rank 0's whole array), of which this rank writes
   nlocal from offset (the parallel phase; else rank 0 writes all). */
static PetscErrorCode TdCheckpointPutRoot(TdOutput out, const char name[], PetscInt n, PetscInt offset, PetscInt nlocal, PetscBool isint, const void *values)
{
  char      path[PETSC_MAX_PATH_LEN];
  PetscBool exists;
  hid_t     dset, ftype = isint ? H5T_STD_I64LE : H5T_IEEE_F64LE, mtype = isint ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
  hsize_t   dims = (hsize_t)n;

  PetscFunctionBegin;
  PetscCheck(nlocal == 0 || values, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "No values given on rank %d for the checkpoint array %s", (int)out->rank, name);
  PetscCall(PetscSNPrintf(path, sizeof(path), "/checkpoint/slot%d/%s", TdCheckpointWriteSlot(out), name));
  PetscCall(TdH5Exists(out, path, &exists));
  if (exists && out->checkpoint_parallel) {
    /* an array the ranks cannot rewrite together: compressed (one-rank checkpoints) or with
       chunks allocated as first written (earlier versions).  It is made anew; its old space
       stays unused in the file, once per array, as the ranks then keep rewriting the new one */
    hid_t            dcpl;
    H5D_alloc_time_t when;
    int              nfilters;
    TdH5Check(dset = H5Dopen2(out->file, path, H5P_DEFAULT), "Cannot open the checkpoint array %s in %s", path, out->path);
    TdH5Check(dcpl = H5Dget_create_plist(dset), "Cannot get the creation properties of %s", path);
    TdH5Check(H5Pget_alloc_time(dcpl, &when), "Cannot get the allocation time of %s", path);
    TdH5Check(nfilters = H5Pget_nfilters(dcpl), "Cannot get the filters of %s", path);
    TdH5Check(H5Pclose(dcpl), "Cannot close a property list");
    TdH5Check(H5Dclose(dset), "Cannot close %s", path);
    if (when != H5D_ALLOC_TIME_EARLY || nfilters > 0) {
      TdH5Check(H5Ldelete(out->file, path, H5P_DEFAULT), "Cannot remove the old checkpoint array %s from %s", path, out->path);
      exists = PETSC_FALSE;
    }
  }
  if (exists) {
    hid_t dtype;
    htri_t same;
    TdH5Check(dset = H5Dopen2(out->file, path, H5P_DEFAULT), "Cannot open the checkpoint array %s in %s", path, out->path);
    TdH5Check(dtype = H5Dget_type(dset), "Cannot get the type of %s", path);
    TdH5Check(same = H5Tequal(dtype, ftype), "Cannot compare the type of %s", path);
    TdH5Check(H5Tclose(dtype), "Cannot close a datatype");
    PetscCheck(same > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The checkpoint array %s in %s has another type than this run writes; was the file written by another version of tribodyn?", path, out->path);
    if (out->checkpoint_parallel) {
      /* the ranks only grow an array: HDF5 1.10.8 lost the values the ranks wrote into an
         array they had made shorter (test_output).  The values past n are then stale; a
         distributed array's readers take its parts by its counts (checkpoint.c, RankSlice) */
      hid_t   space;
      hsize_t cur;
      TdH5Check(space = H5Dget_space(dset), "Cannot get the dataspace of %s", path);
      TdH5Check(H5Sget_simple_extent_dims(space, &cur, NULL), "Cannot get the length of %s", path);
      TdH5Check(H5Sclose(space), "Cannot close a dataspace");
      if (cur < dims) TdH5Check(H5Dset_extent(dset, &dims), "Cannot resize the checkpoint array %s in %s to %llu values", path, out->path, (unsigned long long)dims);
    } else TdH5Check(H5Dset_extent(dset, &dims), "Cannot resize the checkpoint array %s in %s to %llu values", path, out->path, (unsigned long long)dims);
  } else {
    hsize_t maxdims = H5S_UNLIMITED, chunk = (hsize_t)PetscMax(1, PetscMin(n, 65536));
    hid_t   space, dcpl;
    TdH5Check(space = H5Screate_simple(1, &dims, &maxdims), "Cannot make the dataspace of %s", path);
    TdH5Check(dcpl = H5Pcreate(H5P_DATASET_CREATE), "Cannot make a dataset creation property list");
    TdH5Check(H5Pset_chunk(dcpl, 1, &chunk), "Cannot set the chunks of %s", path);
    /* chunks allocated when made (and when the array grows), as parallel HDF5 needs */
    TdH5Check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "Cannot allocate the chunks of %s early", path);
    if (out->deflate > 0 && !out->checkpoint_parallel) {
      /* compressed by one rank only: HDF5 1.10.8's collective writes of compressed arrays
         failed when an array written before was rewritten shorter ("can't insert duplicate
         key", and on 3 ranks wrong values; test_output), so the ranks write them uncompressed
         (the kept LU's Jacobian values compress by about a quarter) */
      /* a fast level: a checkpoint is written often and read once */
      TdH5Check(H5Pset_shuffle(dcpl), "Cannot set the shuffle filter of %s", path);
      TdH5Check(H5Pset_deflate(dcpl, 1), "Cannot set the deflate filter of %s", path);
    }
    TdH5Check(dset = H5Dcreate2(out->file, path, ftype, space, out->lcpl, dcpl, H5P_DEFAULT), "Cannot create the checkpoint array %s in %s", path, out->path);
    TdH5Check(H5Pclose(dcpl), "Cannot close a property list");
    TdH5Check(H5Sclose(space), "Cannot close a dataspace");
  }
  if (!out->checkpoint_parallel) {
    if (n) TdH5Check(H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, values), "Cannot write the checkpoint array %s in %s (disk full?)", path, out->path);
  } else if (n) {
    /* collective: each rank its hyperslab, possibly empty */
    const hsize_t start = (hsize_t)offset, count = (hsize_t)nlocal;
    PetscCall(TdH5WriteCollective(out, dset, 1, &start, &count, nlocal ? PETSC_TRUE : PETSC_FALSE, mtype, values, path));
  }
  TdH5Check(H5Dclose(dset), "Cannot close %s", path);
  PetscFunctionReturn(0);
}

/* distributed: this rank's n values, after those of the lower ranks */
static PetscErrorCode TdCheckpointPut(TdOutput out, const char name[], PetscInt n, PetscBool distributed, PetscBool isint, const void *values)
{
  PetscInt total = n, offset = 0, nlocal = n;

  PetscFunctionBegin;
  PetscCheck(out && out->checkpoint_open, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "TdOutputCheckpointPut(%s): call TdOutputCheckpointBegin first", name);
  if (!out->checkpoint_parallel) {
    /* one rank: its part is the whole array */
    TdOutputRootCall(out, TdCheckpointPutRoot(out, name, n, 0, n, isint, values));
    PetscFunctionReturn(0);
  }
  if (distributed) {
    PetscCallMPI(MPI_Exscan(&n, &offset, 1, MPIU_INT, MPI_SUM, out->comm));
    if (out->rank == 0) offset = 0;
    PetscCallMPI(MPI_Allreduce(&n, &total, 1, MPIU_INT, MPI_SUM, out->comm));
  } else {
    /* rank 0's array: the others write nothing */
    PetscCallMPI(MPI_Bcast(&total, 1, MPIU_INT, 0, out->comm));
    nlocal = out->rank == 0 ? total : 0;
  }
  PetscCall(TdOutputShareAll(out, TdCheckpointPutRoot(out, name, total, offset, nlocal, isint, values), "the checkpoint"));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputCheckpointPutReal(TdOutput out, const char name[], PetscInt n, const PetscReal values[])
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointPut(out, name, n, PETSC_FALSE, PETSC_FALSE, values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputCheckpointPutInt(TdOutput out, const char name[], PetscInt n, const PetscInt64 values[])
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointPut(out, name, n, PETSC_FALSE, PETSC_TRUE, values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputCheckpointPutRealDistributed(TdOutput out, const char name[], PetscInt n, const PetscReal values[])
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointPut(out, name, n, PETSC_TRUE, PETSC_FALSE, values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputCheckpointPutIntDistributed(TdOutput out, const char name[], PetscInt n, const PetscInt64 values[])
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointPut(out, name, n, PETSC_TRUE, PETSC_TRUE, values));
  PetscFunctionReturn(0);
}

static PetscErrorCode TdCheckpointCommitRoot(TdOutput out, PetscReal t)
{
  double    valid[4];
  PetscBool exists;
  hid_t     dset;
  int       slot = TdCheckpointWriteSlot(out);

  PetscFunctionBegin;
  /* the slot's arrays and the records they belong to reach the disk first */
  PetscCall(TdOutputFlushFileRoot(out));
  PetscCall(TdH5Exists(out, TD_CHECKPOINT_VALID, &exists));
  if (exists) TdH5Check(dset = H5Dopen2(out->file, TD_CHECKPOINT_VALID, H5P_DEFAULT), "Cannot open %s in %s", TD_CHECKPOINT_VALID, out->path);
  else {
    hsize_t dims = 4;
    hid_t   space, dcpl;
    TdH5Check(space = H5Screate_simple(1, &dims, NULL), "Cannot make a dataspace");
    TdH5Check(dcpl = H5Pcreate(H5P_DATASET_CREATE), "Cannot make a dataset creation property list");
    TdH5Check(H5Pset_layout(dcpl, H5D_CONTIGUOUS), "Cannot make %s contiguous", TD_CHECKPOINT_VALID);
    TdH5Check(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "Cannot allocate %s early", TD_CHECKPOINT_VALID);
    TdH5Check(dset = H5Dcreate2(out->file, TD_CHECKPOINT_VALID, H5T_IEEE_F64LE, space, out->lcpl, dcpl, H5P_DEFAULT), "Cannot create %s in %s", TD_CHECKPOINT_VALID, out->path);
    TdH5Check(H5Pclose(dcpl), "Cannot close a property list");
    TdH5Check(H5Sclose(space), "Cannot close a dataspace");
    /* the dataset itself is new metadata: on disk before it names a slot */
    PetscCall(TdOutputFlushFileRoot(out));
  }
  valid[0] = slot;
  valid[1] = t;
  valid[2] = (double)out->nrec[TD_RECORDS];
  valid[3] = (double)out->nrec[TD_FIELD_RECORDS];
  if (out->checkpoint_parallel && out->rank != 0) {
    /* the parallel phase: rank 0 writes, the others take part in the call */
    hid_t fspace, mspace;
    TdH5Check(fspace = H5Dget_space(dset), "Cannot get the dataspace of %s", TD_CHECKPOINT_VALID);
    TdH5Check(mspace = H5Scopy(fspace), "Cannot copy a dataspace");
    TdH5Check(H5Sselect_none(fspace), "Cannot select nothing");
    TdH5Check(H5Sselect_none(mspace), "Cannot select nothing");
    TdH5Check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, H5P_DEFAULT, valid), "Cannot write %s in %s (disk full?)", TD_CHECKPOINT_VALID, out->path);
    TdH5Check(H5Sclose(mspace), "Cannot close a dataspace");
    TdH5Check(H5Sclose(fspace), "Cannot close a dataspace");
  } else TdH5Check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, valid), "Cannot write %s in %s (disk full?)", TD_CHECKPOINT_VALID, out->path);
  TdH5Check(H5Dclose(dset), "Cannot close %s", TD_CHECKPOINT_VALID);
  PetscCall(TdOutputFlushFileRoot(out));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputCheckpointEnd(TdOutput out, PetscReal t)
{
  PetscFunctionBegin;
  PetscCheck(out && out->checkpoint_open, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONGSTATE, "TdOutputCheckpointEnd: call TdOutputCheckpointBegin first");
  out->checkpoint_open = PETSC_FALSE;
  if (out->checkpoint_parallel) {
    PetscErrorCode ierr      = TdCheckpointCommitRoot(out, t);
    out->checkpoint_parallel = PETSC_FALSE;
    PetscCall(TdOutputEndParallel(out, ierr, "the checkpoint"));
  } else TdOutputRootCall(out, TdCheckpointCommitRoot(out, t));
  out->checkpoint_slot = TdCheckpointWriteSlot(out);
  out->checkpoint_t    = t;
  PetscFunctionReturn(0);
}

/* ---------------------------------------------------------------------------------------------
   Reading
   --------------------------------------------------------------------------------------------- */
/* Rank 0: the valid slot, its time and record counts; *found false if the file has none. */
static PetscErrorCode TdCheckpointValidRoot(hid_t file, const char path[], PetscBool *found, int *slot, PetscReal *t, PetscInt nrec[TD_NCLOCKS])
{
  double  valid[4];
  htri_t  e;
  hid_t   dset;

  PetscFunctionBegin;
  *found = PETSC_FALSE;
  TdH5Check(e = H5Lexists(file, "/checkpoint", H5P_DEFAULT), "Cannot look up /checkpoint in %s", path);
  if (e) TdH5Check(e = H5Lexists(file, TD_CHECKPOINT_VALID, H5P_DEFAULT), "Cannot look up %s in %s", TD_CHECKPOINT_VALID, path);
  if (!e) PetscFunctionReturn(0);
  TdH5Check(dset = H5Dopen2(file, TD_CHECKPOINT_VALID, H5P_DEFAULT), "Cannot open %s in %s", TD_CHECKPOINT_VALID, path);
  TdH5Check(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, valid), "Cannot read %s in %s", TD_CHECKPOINT_VALID, path);
  TdH5Check(H5Dclose(dset), "Cannot close %s", TD_CHECKPOINT_VALID);
  PetscCheck((valid[0] == 0 || valid[0] == 1) && valid[2] >= 1 && valid[3] >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s in %s holds [%g %g %g %g], not [slot t records field_records]: the file is damaged", TD_CHECKPOINT_VALID, path, valid[0], valid[1], valid[2], valid[3]);
  *found = PETSC_TRUE;
  *slot  = (int)valid[0];
  *t     = valid[1];
  if (nrec) {
    nrec[TD_RECORDS]       = (PetscInt)valid[2];
    nrec[TD_FIELD_RECORDS] = (PetscInt)valid[3];
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdOutputCheckpointFindRoot(TdOutput out)
{
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(TdCheckpointValidRoot(out->file, out->path, &found, &out->checkpoint_slot, &out->checkpoint_t, out->nrec));
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s has no checkpoint, so its run cannot be continued; it was written without -checkpoint_dt, or stopped before its first checkpoint. Run the case again from the start", out->path);
  PetscFunctionReturn(0);
}

struct _p_TdCheckpointFile {
  MPI_Comm    comm;
  PetscMPIInt rank;
  char       *path;
  hid_t       file; /* rank 0 */
  int         slot;
  PetscReal   t;
  PetscInt    nrec[TD_NCLOCKS];
};

static PetscErrorCode TdCheckpointFileOpenRoot(TdCheckpointFile cf)
{
  hid_t     fapl;
  PetscBool found;

  PetscFunctionBegin;
  TdH5Check(H5Eset_auto2(H5E_DEFAULT, NULL, NULL), "Cannot turn off HDF5's error printing");
  TdH5Check(fapl = H5Pcreate(H5P_FILE_ACCESS), "Cannot make a file access property list");
  TdH5Check(H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG), "Cannot set the file close degree");
  cf->file = H5Fopen(cf->path, H5F_ACC_RDONLY, fapl);
  (void)H5Pclose(fapl);
  if (cf->file < 0) {
    char why[1024];
    TdH5Describe(why, sizeof(why));
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-restart %s: cannot open the file: check that it exists and is a tribodyn result file (HDF5: %s)", cf->path, why);
  }
  PetscCall(TdCheckpointValidRoot(cf->file, cf->path, &found, &cf->slot, &cf->t, cf->nrec));
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the file has no checkpoint, so its run cannot be continued; it was written without -checkpoint_dt, or stopped before its first checkpoint. Run the case again from the start (with -checkpoint_dt to be able to continue it next time)", cf->path);
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileClose(TdCheckpointFile *cf)
{
  PetscFunctionBegin;
  if (!cf || !*cf) PetscFunctionReturn(0);
  if ((*cf)->rank == 0 && (*cf)->file >= 0) (void)H5Fclose((*cf)->file);
  PetscCall(PetscFree((*cf)->path));
  PetscCall(PetscFree(*cf));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileOpen(MPI_Comm comm, const char path[], TdCheckpointFile *out)
{
  TdCheckpointFile cf;
  PetscErrorCode   ierr = 0;
  int              code;

  PetscFunctionBegin;
  *out = NULL;
  PetscCall(PetscNew(&cf));
  cf->comm = comm;
  cf->file = H5I_INVALID_HID;
  PetscCallMPI(MPI_Comm_rank(comm, &cf->rank));
  PetscCall(PetscStrallocpy(path, &cf->path));
  if (cf->rank == 0) ierr = TdCheckpointFileOpenRoot(cf);
  code = (int)ierr;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, comm));
  if (code) {
    PetscCall(TdCheckpointFileClose(&cf));
    if (ierr) PetscCall(ierr);
    SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "Rank 0 could not read the checkpoint of %s; see its error message", path);
  }
  PetscCallMPI(MPI_Bcast(&cf->t, 1, MPIU_REAL, 0, comm));
  PetscCallMPI(MPI_Bcast(&cf->slot, 1, MPI_INT, 0, comm));
  PetscCallMPI(MPI_Bcast(cf->nrec, TD_NCLOCKS, MPIU_INT, 0, comm));
  *out = cf;
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileGetTime(TdCheckpointFile cf, PetscReal *t)
{
  PetscFunctionBegin;
  *t = cf->t;
  PetscFunctionReturn(0);
}

/* Rank 0: a root string attribute into a malloc'd buffer (empty if missing). */
static PetscErrorCode TdCheckpointAttributeRoot(TdCheckpointFile cf, const char name[], char **value)
{
  htri_t has;
  hid_t  attr, type, mtype;
  char  *v = NULL;

  PetscFunctionBegin;
  TdH5Check(has = H5Aexists(cf->file, name), "Cannot look up the attribute %s of %s", name, cf->path);
  if (!has) {
    PetscCall(PetscStrallocpy("", value));
    PetscFunctionReturn(0);
  }
  TdH5Check(attr = H5Aopen(cf->file, name, H5P_DEFAULT), "Cannot open the attribute %s of %s", name, cf->path);
  TdH5Check(type = H5Aget_type(attr), "Cannot get the type of the attribute %s", name);
  PetscCheck(H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "The attribute %s of %s is not a variable-length string: not a tribodyn result file", name, cf->path);
  TdH5Check(mtype = H5Tcopy(H5T_C_S1), "Cannot make a string type");
  TdH5Check(H5Tset_size(mtype, H5T_VARIABLE), "Cannot make a variable-length string type");
  TdH5Check(H5Tset_cset(mtype, H5Tget_cset(type)), "Cannot set the character set of a string type");
  TdH5Check(H5Aread(attr, mtype, &v), "Cannot read the attribute %s of %s", name, cf->path);
  PetscCall(PetscStrallocpy(v ? v : "", value));
  H5free_memory(v);
  TdH5Check(H5Tclose(mtype), "Cannot close a datatype");
  TdH5Check(H5Tclose(type), "Cannot close a datatype");
  TdH5Check(H5Aclose(attr), "Cannot close the attribute %s", name);
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileGetAttribute(TdCheckpointFile cf, const char name[], char **value)
{
  PetscErrorCode ierr = 0;
  int            code, len = 0;
  char          *v      = NULL;

  PetscFunctionBegin;
  if (cf->rank == 0) {
    ierr = TdCheckpointAttributeRoot(cf, name, &v);
    if (!ierr) len = (int)strlen(v) + 1;
  }
  code = (int)ierr;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, cf->comm));
  if (code) {
    if (ierr) PetscCall(ierr);
    SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "Rank 0 could not read the attribute %s of %s", name, cf->path);
  }
  PetscCallMPI(MPI_Bcast(&len, 1, MPI_INT, 0, cf->comm));
  if (cf->rank) PetscCall(PetscMalloc1(len, &v));
  PetscCallMPI(MPI_Bcast(v, len, MPI_CHAR, 0, cf->comm));
  *value = v;
  PetscFunctionReturn(0);
}

/* Rank 0: the 1-D array `name` of the valid slot, open in *dset with its length *dims, or
   *dset = H5I_INVALID_HID if the slot has no such array. */
static PetscErrorCode TdCheckpointArrayOpenRoot(TdCheckpointFile cf, const char name[], hid_t *dset, hsize_t *dims)
{
  char   path[PETSC_MAX_PATH_LEN];
  htri_t e;
  hid_t  space;

  PetscFunctionBegin;
  *dset = H5I_INVALID_HID;
  *dims = 0;
  PetscCall(PetscSNPrintf(path, sizeof(path), "/checkpoint/slot%d/%s", cf->slot, name));
  TdH5Check(e = H5Lexists(cf->file, path, H5P_DEFAULT), "Cannot look up %s in %s", path, cf->path);
  if (!e) PetscFunctionReturn(0);
  TdH5Check(*dset = H5Dopen2(cf->file, path, H5P_DEFAULT), "Cannot open %s in %s", path, cf->path);
  TdH5Check(space = H5Dget_space(*dset), "Cannot get the dataspace of %s", path);
  PetscCheck(H5Sget_simple_extent_ndims(space) == 1, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s in %s is not a 1-D array: the file is damaged", path, cf->path);
  TdH5Check(H5Sget_simple_extent_dims(space, dims, NULL), "Cannot get the size of %s", path);
  TdH5Check(H5Sclose(space), "Cannot close a dataspace");
  PetscFunctionReturn(0);
}

static PetscErrorCode TdCheckpointReadRoot(TdCheckpointFile cf, const char name[], PetscBool isint, PetscBool required, PetscInt *n, void **values)
{
  hid_t   dset;
  hsize_t dims;

  PetscFunctionBegin;
  *n      = -1;
  *values = NULL;
  PetscCall(TdCheckpointArrayOpenRoot(cf, name, &dset, &dims));
  if (dset < 0) {
    PetscCheck(!required, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the checkpoint has no array /checkpoint/slot%d/%s; was it written by another version of tribodyn?", cf->path, cf->slot, name);
    PetscFunctionReturn(0);
  }
  *n = (PetscInt)dims;
  if (isint) {
    PetscInt64 *v;
    PetscCall(PetscMalloc1(PetscMax(dims, 1), &v));
    if (dims) TdH5Check(H5Dread(dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), "Cannot read %s in %s", name, cf->path);
    *values = v;
  } else {
    PetscReal *v;
    PetscCall(PetscMalloc1(PetscMax(dims, 1), &v));
    if (dims) TdH5Check(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v), "Cannot read %s in %s", name, cf->path);
    *values = v;
  }
  TdH5Check(H5Dclose(dset), "Cannot close %s", name);
  PetscFunctionReturn(0);
}

static PetscErrorCode TdCheckpointRead(TdCheckpointFile cf, const char name[], PetscBool isint, PetscBool required, PetscInt *n, void **values)
{
  PetscErrorCode ierr = 0;
  int            code;
  void          *v = NULL;

  PetscFunctionBegin;
  *n = -1;
  if (cf->rank == 0) ierr = TdCheckpointReadRoot(cf, name, isint, required, n, &v);
  code = (int)ierr;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, cf->comm));
  if (code) {
    if (ierr) PetscCall(ierr);
    SETERRQ(PETSC_COMM_SELF, (PetscErrorCode)code, "Rank 0 could not read the checkpoint array %s of %s", name, cf->path);
  }
  PetscCallMPI(MPI_Bcast(n, 1, MPIU_INT, 0, cf->comm));
  if (*n < 0) {
    *values = NULL;
    PetscFunctionReturn(0);
  }
  if (cf->rank) {
    if (isint) PetscCall(PetscMalloc1(PetscMax(*n, 1), (PetscInt64 **)&v));
    else PetscCall(PetscMalloc1(PetscMax(*n, 1), (PetscReal **)&v));
  }
  if (*n) PetscCallMPI(MPI_Bcast(v, (PetscMPIInt)*n, isint ? MPIU_INT64 : MPIU_REAL, 0, cf->comm));
  *values = v;
  PetscFunctionReturn(0);
}

/* Rank 0: checks that the distributed array `name` holds the sum of the counts (*code 0; 1:
   absent; 2: of another length) and leaves it open in *dset. */
static PetscErrorCode TdCheckpointPartOpenRoot(TdCheckpointFile cf, const char name[], PetscInt64 total, hid_t *dset, int *code)
{
  hsize_t dims;

  PetscFunctionBegin;
  PetscCall(TdCheckpointArrayOpenRoot(cf, name, dset, &dims));
  /* the writers only ever grow an array (TdCheckpointPutRoot): its parts are its first total entries */
  *code = *dset < 0 ? 1 : ((PetscInt64)dims >= total ? 0 : 2);
  PetscFunctionReturn(0);
}

/* Rank 0: entries [offset, offset + count) of the open array into buf. */
static PetscErrorCode TdCheckpointPartReadRoot(TdCheckpointFile cf, const char name[], hid_t dset, PetscBool isint, PetscInt64 offset, PetscInt64 count, void *buf)
{
  hid_t   space, mem;
  hsize_t start = (hsize_t)offset, n = (hsize_t)count;

  PetscFunctionBegin;
  if (!count) PetscFunctionReturn(0);
  TdH5Check(space = H5Dget_space(dset), "Cannot get the dataspace of %s", name);
  TdH5Check(H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &n, NULL), "Cannot select a part of %s", name);
  TdH5Check(mem = H5Screate_simple(1, &n, NULL), "Cannot make a dataspace");
  TdH5Check(H5Dread(dset, isint ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE, mem, space, H5P_DEFAULT, buf), "Cannot read a part of %s in %s", name, cf->path);
  TdH5Check(H5Sclose(mem), "Cannot close a dataspace");
  TdH5Check(H5Sclose(space), "Cannot close a dataspace");
  PetscFunctionReturn(0);
}

/* This rank's part of a distributed array (TdOutputCheckpointPut*Distributed) and its counts
   array (one count per rank, in rank order).  Rank 0 reads the parts one after the other and
   sends each to its rank, so that a rank holds only its own part and rank 0 one other at a time
   (the whole array was read and broadcast to every rank before: at the finest slider-guide
   level the kept LU's matrix values are 260 MB).  *count = -1 and *values = NULL, on every
   rank, when the array or its counts are absent, or the counts are not for this many ranks. */
static PetscErrorCode TdCheckpointReadPart(TdCheckpointFile cf, const char name[], const char counts_name[], PetscBool isint, PetscInt64 *count, void **values)
{
  PetscInt64    *counts, total = 0;
  PetscInt       nc;
  PetscMPIInt    size;
  PetscErrorCode ierr = 0;
  int            code = 1;
  hid_t          dset = H5I_INVALID_HID;
  const size_t   esize = isint ? sizeof(PetscInt64) : sizeof(PetscReal);
  MPI_Datatype   type  = isint ? MPIU_INT64 : MPIU_REAL;

  PetscFunctionBegin;
  *count  = -1;
  *values = NULL;
  PetscCallMPI(MPI_Comm_size(cf->comm, &size));
  PetscCall(TdCheckpointRead(cf, counts_name, PETSC_TRUE, PETSC_FALSE, &nc, (void **)&counts));
  if (!counts || nc != size) {
    PetscCall(PetscFree(counts));
    PetscFunctionReturn(0);
  }
  for (PetscMPIInt r = 0; r < size; r++) total += counts[r];
  if (cf->rank == 0) ierr = TdCheckpointPartOpenRoot(cf, name, total, &dset, &code);
  if (ierr) code = -1;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, cf->comm));
  if (code) {
    PetscCall(PetscFree(counts));
    if (cf->rank == 0 && dset >= 0) (void)H5Dclose(dset);
    if (code == 1) PetscFunctionReturn(0);
    if (ierr) PetscCall(ierr);
    PetscCheck(code != 2, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "-restart %s: the checkpoint array %s is shorter than its counts %s: the file is damaged", cf->path, name, counts_name);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Rank 0 could not open the checkpoint array %s of %s", name, cf->path);
  }
  *count = counts[cf->rank];
  PetscCall(PetscMalloc((size_t)PetscMax(*count, 1) * esize, values));
  if (cf->rank == 0) {
    /* every part is sent, even after a failed read, so that no rank waits forever; the failure
       is then broadcast */
    PetscInt64 off = counts[0], nmax = 0;
    void      *buf = NULL;
    ierr           = TdCheckpointPartReadRoot(cf, name, dset, isint, 0, counts[0], *values);
    for (PetscMPIInt r = 1; r < size; r++) nmax = PetscMax(nmax, counts[r]);
    if (size > 1) PetscCall(PetscMalloc((size_t)PetscMax(nmax, 1) * esize, &buf));
    for (PetscMPIInt r = 1; r < size; r++) {
      if (!ierr) ierr = TdCheckpointPartReadRoot(cf, name, dset, isint, off, counts[r], buf);
      if (counts[r]) PetscCallMPI(MPI_Send(buf, (PetscMPIInt)counts[r], type, r, 0, cf->comm));
      off += counts[r];
    }
    PetscCall(PetscFree(buf));
    (void)H5Dclose(dset);
  } else if (*count) PetscCallMPI(MPI_Recv(*values, (PetscMPIInt)*count, type, 0, 0, cf->comm, MPI_STATUS_IGNORE));
  PetscCall(PetscFree(counts));
  code = (int)ierr;
  PetscCallMPI(MPI_Bcast(&code, 1, MPI_INT, 0, cf->comm));
  if (code) {
    PetscCall(PetscFree(*values));
    *count = -1;
    if (ierr) PetscCall(ierr);
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "Rank 0 could not read the checkpoint array %s of %s", name, cf->path);
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileGetRealPart(TdCheckpointFile cf, const char name[], const char counts_name[], PetscInt64 *count, PetscReal **values)
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointReadPart(cf, name, counts_name, PETSC_FALSE, count, (void **)values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileGetIntPart(TdCheckpointFile cf, const char name[], const char counts_name[], PetscInt64 *count, PetscInt64 **values)
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointReadPart(cf, name, counts_name, PETSC_TRUE, count, (void **)values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileGetReal(TdCheckpointFile cf, const char name[], PetscBool required, PetscInt *n, PetscReal **values)
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointRead(cf, name, PETSC_FALSE, required, n, (void **)values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdCheckpointFileGetInt(TdCheckpointFile cf, const char name[], PetscBool required, PetscInt *n, PetscInt64 **values)
{
  PetscFunctionBegin;
  PetscCall(TdCheckpointRead(cf, name, PETSC_TRUE, required, n, (void **)values));
  PetscFunctionReturn(0);
}
