#ifndef TRIBODYN_SURFACE_MESH_H
#define TRIBODYN_SURFACE_MESH_H
/*
  Quadrilateral reference surfaces of films (formulation.md §2): the default rectangle on a
  wall face's footprint, or a Gmsh quad mesh of a flat or curved surface (src/io/surface_mesh.c).

  Boundary conditions: every boundary edge (an edge of one quad only) is ambient (Dirichlet,
  p = p_amb) unless it belongs to the 1-D physical group "noflux" (zero flux); a node on any
  ambient boundary edge is a Dirichlet node.  A 1-D group "ambient" may list ambient edges
  explicitly (they are ambient anyway).
*/
#include <petscsys.h>

typedef struct {
  char       source[PETSC_MAX_PATH_LEN];
  PetscInt   nnodes;
  PetscReal *X;          /* 3 nnodes, frame coordinates [m] */
  PetscInt   nquads;
  PetscInt  *quads;      /* 4 nquads, each counter-clockwise around its normal, consistently
                            oriented over the surface (neighbours share edges in opposite order) */
  PetscBool *dirichlet;  /* nnodes: on an ambient boundary edge */
  PetscBool *boundary;   /* nnodes: on any boundary edge */
} TdSurfaceMesh;

/* Structured nx x ny quads of the parallelogram origin + s e1 + t e2, s, t in [0, 1]; edges
   0: s = 0 ("xmin"), 1: s = 1 ("xmax"), 2: t = 0 ("ymin"), 3: t = 1 ("ymax"); noflux[e] makes
   edge e zero-flux (noflux may be NULL: all edges ambient).  A corner node is a Dirichlet node if
   either of its edges is ambient.  source is "rectangle".  Errors (PETSC_ERR_USER_INPUT): nx or
   ny < 1, e1 or e2 zero, not finite or parallel. */
PetscErrorCode TdSurfaceMeshCreateRectangle(const PetscReal origin[3], const PetscReal e1[3], const PetscReal e2[3], PetscInt nx, PetscInt ny, const PetscBool noflux[4], TdSurfaceMesh *mesh);
/* A .msh or .geo file (a .geo is meshed in 2-D as it says: it must Recombine its surfaces, which
   is not forced here); only quadrangles (type 3)
   are kept; any other 2-D element is an error naming the file ("the film surface must be made
   of quadrangles").  1-D physical groups "noflux" (and "ambient") set the boundary conditions.
   The surface is made of the 2-D elements of the 2-D physical groups if the model has any (what
   Gmsh saves to a .msh), else of all 2-D elements; nodes are numbered in the order of their Gmsh
   tags; the quadrangles are re-oriented consistently, each connected component keeping the
   file's orientation for the majority of its quadrangles.  Errors (PETSC_ERR_FILE_OPEN,
   PETSC_ERR_USER_INPUT) name the file: a missing file, elements other than 4-node quadrangles,
   no quadrangles, degenerate or non-convex quadrangles, an edge shared by more than two
   quadrangles, a non-orientable surface, group lines that are not boundary edges.  Every rank
   may call it on its own (no communication; Gmsh through TdMeshInitializeGmsh()). */
PetscErrorCode TdSurfaceMeshLoad(MPI_Comm comm, const char path[], TdSurfaceMesh *mesh);
PetscErrorCode TdSurfaceMeshDestroy(TdSurfaceMesh *mesh);

#endif
