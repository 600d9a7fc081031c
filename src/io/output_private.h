#ifndef TRIBODYN_OUTPUT_PRIVATE_H
#define TRIBODYN_OUTPUT_PRIVATE_H
/*
  The result file's bookkeeping, shared by src/io/output.c (records, static data, XDMF) and
  src/io/output_checkpoint.c (the /checkpoint slots).  Not part of the interface (output.h).
*/
#include <tribodyn/output.h>
#include <hdf5.h>

#if !defined(PETSC_USE_REAL_DOUBLE)
  #error "src/io/output.c writes PetscReal as IEEE double; tribodyn needs PETSc with real double scalars"
#endif

/* the two clocks of a result file: records at -output_dt (/time) and field records at
   -output_fields_dt (/field_time) */
enum { TD_RECORDS = 0, TD_FIELD_RECORDS = 1, TD_NCLOCKS = 2 };

typedef enum {
  TD_SERIES_USER, /* set by TdOutputSetSeries */
  TD_SERIES_TIME, /* /time, set by TdOutputAppendRecord */
  TD_SERIES_DIFF  /* row of series 'source' minus 'ref' (hex body displacement) */
} TdSeriesKind;

typedef struct {
  char        *name;     /* absolute dataset path */
  TdSeriesKind kind;
  int          clock;    /* TD_RECORDS (/time) or TD_FIELD_RECORDS (/field_time) */
  PetscInt     ncols;    /* values per record */
  int          rank;     /* dataset rank: 1, 2 or 3 */
  hsize_t      shape[3]; /* shape[0] is the record count (not stored); shape[1..rank-1] */
  PetscInt     source;   /* TD_SERIES_DIFF */
  PetscReal   *ref;      /* TD_SERIES_DIFF, every rank: ncols values subtracted from the source row (or its part) */
  hid_t        dset;     /* rank 0 */
  PetscReal   *row;      /* rank 0: the record being built */
  PetscBool    isset;    /* set in the record being built */
  /* a field series set in parts (TdOutputSetSeriesPart) on several ranks: this rank's rows
     [part_start, part_start + part_count) of shape[1], written by this rank through MPI-IO */
  PetscBool    parted;
  PetscBool    early; /* its chunks are allocated when it grows (field series): parts can be
                         written by the ranks; else (an older file's) they are gathered */
  PetscInt     part_start, part_count, part_size;
  PetscReal   *part;
} TdSeries;

typedef struct {
  char    *name;
  PetscInt series;
  PetscInt ncomp; /* 1: scalar, 3: vector */
} TdField;

typedef struct {
  char     *name;
  PetscBool hex;      /* hexahedra (body) or quadrilaterals (surface) */
  PetscInt  nnodes, ncells;
  char     *cells;    /* connectivity dataset */
  char     *nodes;    /* static node coordinates (surfaces), NULL for bodies */
  PetscInt  position; /* position series (bodies, moving surfaces), -1 for static surfaces */
  PetscInt  nfields, maxfields;
  TdField  *fields;
} TdGrid;

struct _p_TdOutput {
  MPI_Comm    comm;
  PetscMPIInt rank;
  char       *path;   /* the .h5 file */
  char       *xdmf;   /* the .xdmf file beside it */
  char       *h5name; /* basename of path, as the XDMF refers to it */
  hid_t       file, lcpl;
  PetscInt    nseries, maxseries;
  TdSeries   *series;
  PetscInt    ngrids, maxgrids;
  TdGrid     *grids;
  PetscInt    nrec[TD_NCLOCKS];     /* records of each clock written so far */
  PetscBool   append;               /* opened by TdOutputOpenAppend: series and static data exist */
  int         deflate;              /* deflate level of the series (0: no compression) */
  PetscReal   flush_interval;       /* [s of wall time] between flushes of the records */
  PetscLogDouble last_flush;        /* rank 0 */
  /* /checkpoint (output_checkpoint.c): the slot being written, or the valid one that was read */
  int         checkpoint_slot;      /* -1: none yet */
  PetscBool   checkpoint_open;      /* between TdOutputCheckpointBegin and End */
  PetscReal   checkpoint_t;         /* the time of the valid checkpoint */
  PetscBool   checkpoint_parallel;  /* the checkpoint being written goes through MPI-IO: every
                                       rank has the file open (file, lcpl), rank 0's series'
                                       datasets are closed */
};

/* HDF5 error reporting: automatic printing is off; a failed call becomes a PETSc error whose
   message says what was being done and carries the innermost HDF5 error description. */
void TdH5Describe(char msg[], size_t len);

/* expr: an HDF5 call or assignment from one (negative on failure); then the printf-style
   description of what was being done. */
#define TdH5Check(expr, ...) \
  do { \
    if ((expr) < 0) { \
      char td_h5_what_[PETSC_MAX_PATH_LEN + 512], td_h5_why_[1024]; \
      TdH5Describe(td_h5_why_, sizeof(td_h5_why_)); \
      PetscCall(PetscSNPrintf(td_h5_what_, sizeof(td_h5_what_), __VA_ARGS__)); \
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "%s (HDF5: %s)", td_h5_what_, td_h5_why_); \
    } \
  } while (0)

/* Rank 0 does the work, every rank learns its outcome (ierr: rank 0's). */
PetscErrorCode TdOutputShare(TdOutput out, PetscErrorCode ierr);

#define TdOutputRootCall(out, call) \
  do { \
    PetscErrorCode td_root_ierr_ = 0; \
    if ((out)->rank == 0) td_root_ierr_ = (call); \
    PetscCall(TdOutputShare((out), td_root_ierr_)); \
  } while (0)

/* Every rank learns whether any failed (a parallel phase, in which each rank makes its own
   HDF5 calls); what: the file is being written for what. */
PetscErrorCode TdOutputShareAll(TdOutput out, PetscErrorCode ierr, const char what[]);
/* Every rank: the file through MPI-IO (rank 0 has closed its own handles, TdOutputSuspendRoot);
   what: what for, for the error message. */
PetscErrorCode TdOutputOpenParallel(TdOutput out, const char what[]);
/* Every rank, a parallel phase: its block (start, count in ndims dimensions) of dset from buf,
   or nothing (mine false), in one collective write; what names the data in messages. */
PetscErrorCode TdH5WriteCollective(TdOutput out, hid_t dset, int ndims, const hsize_t start[], const hsize_t count[], PetscBool mine, hid_t mtype, const void *buf, const char what[]);
/* Every rank: closes the parallel file, shares ierr (this rank's outcome so far) and has rank 0
   open the file again (TdOutputResumeRoot). */
PetscErrorCode TdOutputEndParallel(TdOutput out, PetscErrorCode ierr, const char what[]);

/* Absolute dataset path (all ranks); does the object at path exist (rank 0; a missing group is "no")? */
PetscErrorCode TdAbsolutePath(const char name[], char buf[], size_t len);
PetscErrorCode TdH5Exists(TdOutput out, const char path[], PetscBool *exists);
/* Rank 0: closes the file and the series' datasets (the ranks then open it together for a
   checkpoint), and opens them again. */
PetscErrorCode TdOutputSuspendRoot(TdOutput out);
PetscErrorCode TdOutputResumeRoot(TdOutput out);
/* Rank 0: flushes the HDF5 file (records and checkpoint data on disk). */
PetscErrorCode TdOutputFlushFileRoot(TdOutput out);
/* Rank 0, a file opened for appending: the valid checkpoint's slot, time and record counts
   (an error naming the file if it has none). */
PetscErrorCode TdOutputCheckpointFindRoot(TdOutput out);

#endif
