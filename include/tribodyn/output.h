#ifndef TRIBODYN_OUTPUT_H
#define TRIBODYN_OUTPUT_H
/*
  Result file: HDF5 in the layout of src/docs/interface.md, plus an XDMF file beside it
  that ParaView opens (src/io/output.c).

  Rank 0 of the communicator owns the file; the other ranks call the same functions
  (collectively) and their data arguments are ignored.  Time series grow by one record per
  call of TdOutputAppendRecord and are flushed, so a killed run keeps every completed record.
  The root attribute "status" is "running" while the run goes on and becomes "complete" or
  "failed: <reason>" at TdOutputClose; the XDMF is rewritten at each flush.
*/
#include <petscsys.h>

typedef struct _p_TdOutput *TdOutput;

/* Creates (truncates) path; fails with PETSC_ERR_FILE_OPEN naming the path if it cannot. */
PetscErrorCode TdOutputCreate(MPI_Comm comm, const char path[], TdOutput *out);
/* A time series dataset: n x ncols (ncols = 1 gives a 1-D dataset of n).  Returns its id. */
PetscErrorCode TdOutputAddSeries(TdOutput out, const char dataset[], PetscInt ncols, PetscInt *id);
/* Writes the values of series id for the record being built (ncols values). */
PetscErrorCode TdOutputSetSeries(TdOutput out, PetscInt id, const PetscReal values[]);
/* Ends the record at time t: every series gets its row (a series not set repeats NaN). */
PetscErrorCode TdOutputAppendRecord(TdOutput out, PetscReal t);
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
/* status: "complete" or "failed: ..." */
PetscErrorCode TdOutputClose(TdOutput *out, const char status[]);

#endif
