#ifndef TRIBODYN_TESTS_TD_CHECK_PETSC_H
#define TRIBODYN_TESTS_TD_CHECK_PETSC_H
/*
  Shared scaffolding of the PETSc unit tests that run on several ranks (test_mesh,
  test_surface_mesh): CHECK(cond, printf-args) counts a check on this rank and prints its
  failure; CaptureError is an error handler that returns the code silently and keeps the first
  message in last_error; MeshPath names a file of meshes/; TdChecksSummary adds the counts over
  all ranks and prints them.  Header-only; each test program includes it once.
*/
#include <petscsys.h>
#include <stdio.h>

#ifndef TRIBODYN_SOURCE_DIR
  #error "compile with -DTRIBODYN_SOURCE_DIR=..."
#endif

static int         nfail = 0, ncheck = 0;
static PetscMPIInt rank;

#define CHECK(cond, ...) \
  do { \
    ncheck++; \
    if (!(cond)) { \
      nfail++; \
      printf("[rank %d] FAIL %s:%d: ", (int)rank, __FILE__, __LINE__); \
      printf(__VA_ARGS__); \
      printf("\n"); \
    } \
  } while (0)

static char           last_error[4096];
static PetscErrorCode CaptureError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL && mess) snprintf(last_error, sizeof(last_error), "%s", mess);
  return n;
}

static inline void MeshPath(char path[], size_t len, const char name[])
{
  snprintf(path, len, "%s/meshes/%s", TRIBODYN_SOURCE_DIR, name);
}

/* The failures over all ranks in *failed_all, and the summary line. */
static inline PetscErrorCode TdChecksSummary(int *failed_all)
{
  int ncheck_all = 0;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Allreduce(&nfail, failed_all, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&ncheck, &ncheck_all, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %d of %d checks failed (all ranks)\n", *failed_all ? "FAILED" : "PASSED", *failed_all, ncheck_all));
  PetscFunctionReturn(0);
}
#endif
