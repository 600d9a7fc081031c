#ifndef TRIBODYN_OPTIONS_H
#define TRIBODYN_OPTIONS_H
/*
  Reading tribodyn's options from the PETSc options database (src/io/options.c).

  Every option the program understands is read through these functions, which
    - record its full name, so that an option the user set but nobody read (a misspelling) is
      reported before the run starts, with the nearest valid name (TdOptionsCheckUnknown);
    - print "-name <default>: help [unit]" under -help;
    - validate ranges and report bad values naming the option and what is allowed.
  An instance prefix ("guide" for -guide_E) is given separately; NULL or "" means none.
*/
#include <petscsys.h>

PetscErrorCode TdOptionsInitialize(MPI_Comm comm);
PetscErrorCode TdOptionsFinalize(void);
PetscBool      TdOptionsHelpRequested(void);
/* Records a valid option name without reading it (options read by PETSc objects or later). */
PetscErrorCode TdOptionsRegisterName(const char prefix[], const char name[]);

PetscErrorCode TdOptionsReal(const char prefix[], const char name[], const char help[], const char unit[], PetscReal def, PetscReal *value, PetscBool *set);
/* A real that must be > 0 (positive = PETSC_TRUE) or >= 0. */
PetscErrorCode TdOptionsRealPositive(const char prefix[], const char name[], const char help[], const char unit[], PetscReal def, PetscBool strictly, PetscReal *value, PetscBool *set);
PetscErrorCode TdOptionsInt(const char prefix[], const char name[], const char help[], PetscInt def, PetscInt *value, PetscBool *set);
PetscErrorCode TdOptionsBool(const char prefix[], const char name[], const char help[], PetscBool def, PetscBool *value, PetscBool *set);
/* Comma-separated reals: exactly n values (n > 0). */
PetscErrorCode TdOptionsRealArray(const char prefix[], const char name[], const char help[], const char unit[], PetscInt n, const PetscReal def[], PetscReal values[], PetscBool *set);
/* The same with nmin..nmax values; the entries past those given keep their defaults. */
PetscErrorCode TdOptionsRealArrayRange(const char prefix[], const char name[], const char help[], const char unit[], PetscInt nmin, PetscInt nmax, const PetscReal def[], PetscReal values[], PetscBool *set);
PetscErrorCode TdOptionsIntArray(const char prefix[], const char name[], const char help[], PetscInt n, const PetscInt def[], PetscInt values[], PetscBool *set);
PetscErrorCode TdOptionsString(const char prefix[], const char name[], const char help[], const char def[], char value[], size_t len, PetscBool *set);
/* One of choices (NULL-terminated); *index receives its position. */
PetscErrorCode TdOptionsEnum(const char prefix[], const char name[], const char help[], const char *const choices[], PetscInt def, PetscInt *index, PetscBool *set);
/* Comma-separated names (each non-empty, at most 63 characters): returns count and a PetscMalloc'ed
   array of 64-char names (free with PetscFree). */
PetscErrorCode TdOptionsNameList(const char prefix[], const char name[], const char help[], PetscInt *count, char (**names)[64]);

/* Options set but never read: an error naming the first one and the nearest valid name.
   PETSc's own runtime options (-log_view, -malloc_*, ...) and options in PETSc solver
   namespaces (-snes_, -ksp_, -pc_, -mat_, ...) are left to PETSc (-options_left reports them). */
PetscErrorCode TdOptionsCheckUnknown(MPI_Comm comm);
/* All options in force as one string (for the result file), PetscFree it. */
PetscErrorCode TdOptionsAllString(char **str);

#endif
