#ifndef TRIBODYN_OUTPUT_H
#define TRIBODYN_OUTPUT_H
/*
  Result file: HDF5 in the layout of src/docs/interface.md, plus an XDMF file beside it
  that ParaView opens (src/io/output.c), and the checkpoint a restart reads
  (src/io/output_checkpoint.c).

  Rank 0 of the communicator owns the file; the other ranks call the same functions
  (collectively) and their data arguments are ignored.  A file has two clocks: records
  (/time; TdOutputAddSeries, TdOutputAppendRecord), and field records (/field_time;
  TdOutputAddFieldSeries, the bodies' and surfaces' positions, TdOutputAppendFieldRecord), so
  that the full fields can be written less often than the histories.  Series are chunked and
  compressed (byte shuffle + deflate).  Records are flushed at least every flush interval of
  wall time (TdOutputSetFlushInterval, default 0: every record) and at every field record, so a
  killed run keeps the records up to its last flush.  The root attribute "status" is "running"
  while the run goes on and becomes "complete", "interrupted" or "failed: <reason>" at
  TdOutputClose; the XDMF (field records only) is rewritten at each TdOutputFlush.
*/
#include <petscsys.h>

typedef struct _p_TdOutput *TdOutput;

/* Creates (truncates) path; fails with PETSC_ERR_FILE_OPEN naming the path if it cannot. */
PetscErrorCode TdOutputCreate(MPI_Comm comm, const char path[], TdOutput *out);
/* A time series dataset: n x ncols (ncols = 1 gives a 1-D dataset of n).  Returns its id. */
PetscErrorCode TdOutputAddSeries(TdOutput out, const char dataset[], PetscInt ncols, PetscInt *id);
/* Opens an existing result file to continue its run from its checkpoint: every series added
   afterwards is the existing dataset (same shape, or an error saying the file belongs to
   another model), cut back to the records of the checkpoint; static datasets that exist are
   kept.  Fails, naming the file, if it cannot be opened or has no checkpoint. */
PetscErrorCode TdOutputOpenAppend(MPI_Comm comm, const char path[], TdOutput *out);
/* A field series: n_fields x ncols, one row per TdOutputAppendFieldRecord. */
PetscErrorCode TdOutputAddFieldSeries(TdOutput out, const char dataset[], PetscInt ncols, PetscInt *id);
/* Writes the values of series id for the record being built (ncols values). */
PetscErrorCode TdOutputSetSeries(TdOutput out, PetscInt id, const PetscReal values[]);
/* Collective: this rank's rows [start, start + count) of field series id (nodes: rows of its
   second dimension; values count x the values per row), the ranks' parts following each other
   in rank order and covering the rows.  On several ranks each rank writes its own part through
   MPI-IO at TdOutputAppendFieldRecord: no rank gathers the field; a series computed from it (a
   body's displacement from its positions) takes the same part.  On one rank the same as
   TdOutputSetSeries. */
PetscErrorCode TdOutputSetSeriesPart(TdOutput out, PetscInt id, PetscInt start, PetscInt count, const PetscReal values[]);
/* The rows [*start, *end) of field series id that this rank best sets (TdOutputSetSeriesPart):
   its chunk of the row in a file made by as many ranks, so that each chunk has one writer. */
PetscErrorCode TdOutputSeriesPartRange(TdOutput out, PetscInt id, PetscInt *start, PetscInt *end);
/* The same rows [*start, *end) of a field row of nrows for rank of size ranks, without the
   output object (the solver's ghost sets hold what each rank's part needs). */
void TdOutputPartRange(PetscInt nrows, PetscMPIInt size, PetscMPIInt rank, PetscInt *start, PetscInt *end);
/* Ends the record at time t: every record series gets its row (a series not set gets NaN). */
PetscErrorCode TdOutputAppendRecord(TdOutput out, PetscReal t);
/* Ends the field record at time t: every field series gets its row. */
PetscErrorCode TdOutputAppendFieldRecord(TdOutput out, PetscReal t);
PetscErrorCode TdOutputGetRecordCounts(TdOutput out, PetscInt *nrecords, PetscInt *nfield_records);
/* Wall time [s] between flushes of the records (0: every record). */
PetscErrorCode TdOutputSetFlushInterval(TdOutput out, PetscReal seconds);
/* Static datasets (written once). */
PetscErrorCode TdOutputWriteReal(TdOutput out, const char dataset[], PetscInt nrows, PetscInt ncols, const PetscReal values[]);
PetscErrorCode TdOutputWriteInt(TdOutput out, const char dataset[], PetscInt nrows, PetscInt ncols, const PetscInt values[]);
PetscErrorCode TdOutputSetAttribute(TdOutput out, const char object[], const char name[], const char value[]);
/* A hexahedral body for the XDMF: its reference node coordinates, cells (8 nodes, ANCF corner
   order, converted to VTK/XDMF order inside), and the series id whose rows hold the current
   node positions (3 nnodes per record).  Written under /bodies/<name>/. */
PetscErrorCode TdOutputAddHexBody(TdOutput out, const char name[], PetscInt nnodes, const PetscReal X[], PetscInt ncells, const PetscInt cells[], PetscInt *position_series);
/* A quadrilateral surface (films, issue 3): node coordinates, quads, and nodal scalar series
   shown in the XDMF.  position_series NULL: the surface stays at X; else it receives the id of
   a series /films/<name>/position (3 nnodes per record) that places it in each record. */
PetscErrorCode TdOutputAddQuadSurface(TdOutput out, const char name[], PetscInt nnodes, const PetscReal X[], PetscInt nquads, const PetscInt quads[], PetscInt *position_series);
PetscErrorCode TdOutputAddSurfaceField(TdOutput out, const char surface[], const char field[], PetscInt series);
/* Flushes the HDF5 file and rewrites the XDMF. */
PetscErrorCode TdOutputFlush(TdOutput out);
/* status: "complete", "interrupted" or "failed: ..." */
PetscErrorCode TdOutputClose(TdOutput *out, const char status[]);

/* Checkpoints: named 1-D arrays under /checkpoint (src/io/output_checkpoint.c), written into
   the slot that does not hold the valid checkpoint; End flushes the file and then marks the new
   slot valid, with time t and the current record counts, so that a kill at any moment leaves a
   valid checkpoint (the previous one until End has finished).  The values of a whole array are
   read on rank 0 (the others may pass NULL). */
PetscErrorCode TdOutputCheckpointBegin(TdOutput out);
PetscErrorCode TdOutputCheckpointPutReal(TdOutput out, const char name[], PetscInt n, const PetscReal values[]);
PetscErrorCode TdOutputCheckpointPutInt(TdOutput out, const char name[], PetscInt n, const PetscInt64 values[]);
/* An array made of the ranks' parts in rank order (n: this rank's), each written by its own
   rank through parallel HDF5 (collective), not gathered. */
PetscErrorCode TdOutputCheckpointPutRealDistributed(TdOutput out, const char name[], PetscInt n, const PetscReal values[]);
PetscErrorCode TdOutputCheckpointPutIntDistributed(TdOutput out, const char name[], PetscInt n, const PetscInt64 values[]);
PetscErrorCode TdOutputCheckpointEnd(TdOutput out, PetscReal t);

/* Reading a checkpoint (read-only; every rank gets every value). */
typedef struct _p_TdCheckpointFile *TdCheckpointFile;
/* Fails, naming the file and saying what to do, if it cannot be opened or has no checkpoint. */
PetscErrorCode TdCheckpointFileOpen(MPI_Comm comm, const char path[], TdCheckpointFile *cf);
PetscErrorCode TdCheckpointFileGetTime(TdCheckpointFile cf, PetscReal *t);
/* A root string attribute ("options", "status"); empty if missing.  PetscFree it. */
PetscErrorCode TdCheckpointFileGetAttribute(TdCheckpointFile cf, const char name[], char **value);
/* The array name of the valid checkpoint: *n values (PetscFree them); a missing array is an
   error if required, else *n = -1 and *values = NULL. */
PetscErrorCode TdCheckpointFileGetReal(TdCheckpointFile cf, const char name[], PetscBool required, PetscInt *n, PetscReal **values);
PetscErrorCode TdCheckpointFileGetInt(TdCheckpointFile cf, const char name[], PetscBool required, PetscInt *n, PetscInt64 **values);
/* This rank's part of a distributed array (TdOutputCheckpointPut*Distributed) by its counts array
   counts_name (one count per rank): *count its length, or -1 (and *values NULL, on every rank)
   when either array is absent or the counts are not for this many ranks.  No rank reads or
   receives another rank's part. */
PetscErrorCode TdCheckpointFileGetRealPart(TdCheckpointFile cf, const char name[], const char counts_name[], PetscInt64 *count, PetscReal **values);
PetscErrorCode TdCheckpointFileGetIntPart(TdCheckpointFile cf, const char name[], const char counts_name[], PetscInt64 *count, PetscInt64 **values);
PetscErrorCode TdCheckpointFileClose(TdCheckpointFile *cf);

#endif
