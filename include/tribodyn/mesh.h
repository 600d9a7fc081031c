#ifndef TRIBODYN_MESH_H
#define TRIBODYN_MESH_H
/*
  Hexahedral meshes of bodies, made or read through the Gmsh C API (src/io/mesh_gmsh.c).

  Cells are stored in the ANCF corner order of ancf3843.h: corner n at
  (xi, eta, zeta) = (n&1 ? +1 : -1, n&2 ? +1 : -1, n&4 ? +1 : -1) in the cell's material frame.
  A mesh whose cells are all rectangular boxes (possibly rotated) keeps each cell's frame (axes)
  and edge lengths (size).  Any other all-hexahedral mesh, of first or second order, is `curved`
  (formulation.md §1, curved cells): each cell then has a parametric box size[3] (its mean edge
  lengths) and, at each corner n, the slope map G_n[i][j] = dX_i/dXbar_j of the mesh's
  isoparametric map (Xbar_j = a_j (1 + xi_j)/2), stored as slope_map[72 c + 9 n + 3 j + i].  The
  ANCF nodes are the corners and their slopes are taken along the global axes, with the reference
  value I at every node: the cell's element vector in parametric slopes is e_{n,j} = sum_i
  G_n[i][j] r_{n,i} (r_{n,i} = dr/dX_i), so elements sharing a node need no averaged normal and
  the reference configuration is free of strain exactly.

  Named faces ("sets") are the faces a user refers to as body:face: for a box xmin, xmax, ymin,
  ymax, zmin, zmax; for a mesh file the names of its 2-D physical groups.  Each set lists its
  nodes and its boundary quads (cell index and local face), so films and clamps can use it.
*/
#include <petscsys.h>

/* Local face f of a cell: 0 xi=-1, 1 xi=+1, 2 eta=-1, 3 eta=+1, 4 zeta=-1, 5 zeta=+1. */
typedef struct {
  PetscInt cell;
  PetscInt face;
} TdMeshFace;

typedef struct {
  char       name[64];
  PetscInt   nnodes;
  PetscInt  *nodes;  /* sorted, unique */
  PetscInt   nfaces;
  TdMeshFace *faces;
} TdMeshSet;

typedef struct {
  char       source[PETSC_MAX_PATH_LEN]; /* file name, or "box" */
  PetscInt   nnodes;
  PetscReal *X;       /* 3 nnodes reference coordinates [m] */
  PetscInt   ncells;
  PetscInt  *cells;   /* 8 ncells node indices, ANCF corner order */
  PetscReal *size;    /* 3 ncells: edge lengths a, b, c along the cell's material axes */
  PetscReal *axes;    /* 9 ncells: axes[9 c + 3 I + i] = component i of material axis I */
  PetscBool  axis_aligned; /* every cell's material axes are the global axes */
  PetscInt   nsets;
  TdMeshSet *sets;
  PetscReal  bbox[6]; /* xmin, ymin, zmin, xmax, ymax, zmax */
  PetscBool  uniform_axes; /* every cell has the same material axes (those of cell 0) */
  PetscBool  curved;    /* cells are general hexahedra: slope_map holds their corner maps */
  PetscReal *slope_map; /* 72 ncells, curved meshes only (see above) */
} TdMesh;

/* Structured nx x ny x nz hexahedra of the box [x0,x1] x [y0,y1] x [z0,z1], meshed through the
   Gmsh API; sets xmin .. zmax. */
PetscErrorCode TdMeshCreateBox(MPI_Comm comm, const PetscReal box[6], const PetscInt cells[3], TdMesh *mesh);
/* A .msh or .geo file (a .geo is meshed in 3-D by Gmsh); only hexahedra are kept as cells.
   Errors (PETSC_ERR_FILE_OPEN / PETSC_ERR_USER_INPUT) name the file and what is wrong. */
PetscErrorCode TdMeshLoad(MPI_Comm comm, const char path[], TdMesh *mesh);
PetscErrorCode TdMeshDestroy(TdMesh *mesh);
/* Gmsh is initialised once per process on first use (silent unless -mesh_gmsh_verbose) and
   finalised by PetscFinalize().  Other modules that call the Gmsh C API directly must call
   TdMeshInitializeGmsh() first and leave General.AbortOnError at 0 (see mesh_gmsh.c).
   TdMeshGmshCheck() turns a Gmsh ierr and the errors Gmsh logged since the previous check into
   a PETSc error with code `code`, naming `what` (the call) and `source` (the file). */
PetscErrorCode TdMeshInitializeGmsh(MPI_Comm comm);
PetscErrorCode TdMeshFinalizeGmsh(void);
PetscErrorCode TdMeshGmshCheck(MPI_Comm comm, int ierr, PetscErrorCode code, const char what[], const char source[]);
/* Opens a Gmsh .msh or .geo file for reading its model: checks that it exists and is readable
   (errors name `what`, e.g. "film surface", and the `option` that gave the path), resets Gmsh (no
   models, the default mesh options, silent), opens it and meshes a .geo in `dim` dimensions.
   Pair with TdMeshGmshClose(), also on error paths. */
PetscErrorCode TdMeshGmshOpen(MPI_Comm comm, const char path[], const char what[], const char option[], int dim);
void           TdMeshGmshClose(void);
/* Gmsh node tags: qsort comparison, and the index of tag in the sorted array tags[n] (-1 if absent). */
int      TdMeshGmshCompareTags(const void *a, const void *b);
PetscInt TdMeshGmshFindTag(size_t n, const size_t tags[], size_t tag);
/* Frees the arrays gmshModelMeshGetElements returned. */
void TdMeshGmshFreeElements(int *types, size_t **etags, size_t *etags_n, size_t etags_nn, size_t **ntags, size_t *ntags_n, size_t ntags_nn);
/* The set called name, or NULL. */
const TdMeshSet *TdMeshFindSet(const TdMesh *mesh, const char name[]);
/* The local nodes (0..7, node n at xi = (n&1, n&2, n&4) -> +1) of local face f (0 xi=-1,
   1 xi=+1, 2 eta=-1, 3 eta=+1, 4 zeta=-1, 5 zeta=+1), counter-clockwise in the face coordinates
   (u, v): the corners (-1,-1), (1,-1), (1,1), (-1,1) of film_project_bilinear. */
void TdMeshFaceCorners(PetscInt f, PetscInt corners[4]);
/* The reference element vector of cell c in the cell's parametric slopes (positions relative to
   its corner 0, slopes G_n of a curved cell, the material axes of a box): what the element and
   face kernels see in the reference configuration. */
void TdMeshCellReference(const TdMesh *mesh, PetscInt c, PetscReal e0[96]);
/* Cell containing the reference point X and its local coordinates xi in [-1,1]^3; a point on the
   surface within rel_tol times the body's size counts as inside.  *cell = -1 if outside. */
PetscErrorCode TdMeshLocatePoint(const TdMesh *mesh, const PetscReal X[3], PetscReal rel_tol, PetscInt *cell, PetscReal xi[3]);

#endif
