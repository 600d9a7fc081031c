/*
  Hexahedral meshes of bodies through the Gmsh C API (include/tribodyn/mesh.h).

  Gmsh 4.8 (Debian libgmsh4.8) notes, found by experiment and relied on below:
  - gmshInitialize() sets General.AbortOnError = 2: an error throws inside Gmsh and the call
    returns ierr = 1.  But an error thrown while a file is being read leaves Gmsh's internal
    "busy" lock set, and every later gmshOpen() in the process is then silently ignored ("I'm
    busy! Ask me that later...", ierr = 0).  We therefore run with General.AbortOnError = 0 and
    detect errors from the Gmsh logger (messages starting with "Error"), plus ierr.
  - gmshOpen() of a missing file returns ierr = 0 with no message, and a .msh that is not a mesh
    file may return ierr = 0 with an empty model: we test the file ourselves first.
  - Options set by a .geo file (Mesh.ElementOrder = 2, ...) persist in the process: the mesh
    options Gmsh had at initialisation are restored before every operation.
  - Debian's libgmsh is not linked with MPI (it does not call MPI_Init/MPI_Finalize), so every
    rank can use it independently under mpiexec; it uses OpenMP with General.NumThreads = 1.

  Every rank may call these functions on its own (the mesh is replicated); no MPI communication.
*/
#include <tribodyn/mesh.h>
#include <tribodyn/vec3.h>
#include <tribodyn/ancf3843.h>
#include <gmshc.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <math.h>

/* Relative tolerances of the box-cell check and of the geometric face sets. */
#define TD_MESH_ORTHO_TOL   1e-6  /* cosine between edges of a cell, corner misfit / edge */
#define TD_MESH_SNAP_TOL    1e-10 /* axes this close to the global axes are taken exactly */
#define TD_MESH_PLANE_TOL   1e-8  /* box faces: distance to the plane / box diagonal */

static PetscBool td_gmsh_initialized = PETSC_FALSE;
static PetscBool td_gmsh_verbose     = PETSC_FALSE;

/* Mesh options that a .geo may change; their values at initialisation are restored before each
   operation so one file does not affect the next mesh. */
static const char *td_gmsh_mesh_options[] = {"Mesh.ElementOrder", "Mesh.RecombineAll", "Mesh.Recombine3DAll", "Mesh.SubdivisionAlgorithm", "Mesh.Algorithm", "Mesh.Algorithm3D", "Mesh.MeshSizeFactor", "Mesh.MeshSizeMin", "Mesh.MeshSizeMax", "Mesh.RecombinationAlgorithm", "Mesh.SecondOrderIncomplete", "Mesh.SecondOrderLinear", "Mesh.HighOrderOptimize", "Mesh.MeshSizeFromPoints", "Mesh.MeshSizeExtendFromBoundary", "Mesh.MeshSizeFromCurvature", "Mesh.ScalingFactor", "Mesh.Smoothing", "Mesh.SaveAll", "General.NumThreads"};
#define TD_GMSH_NOPTIONS ((int)(sizeof(td_gmsh_mesh_options) / sizeof(td_gmsh_mesh_options[0])))
static double td_gmsh_option_defaults[TD_GMSH_NOPTIONS];

/* ------------------------------------------------------------------------------------------ */
/* Gmsh session                                                                                */

PetscErrorCode TdMeshGmshCheck(MPI_Comm comm, int ierr, PetscErrorCode code, const char what[], const char source[])
{
  char   **log = NULL, msg[1024], name[128];
  size_t   n = 0, len = 0;
  int      ierr2 = 0, nerr = 0;

  PetscFunctionBegin;
  msg[0] = 0;
  gmshLoggerGet(&log, &n, &ierr2);
  for (size_t i = 0; i < n; i++) {
    if (log[i] && !strncmp(log[i], "Error", 5)) {
      const char *m = log[i] + 5;
      while (*m == ':' || *m == ' ') m++;
      if (nerr < 3 && len + strlen(m) + 3 < sizeof(msg)) {
        if (nerr) strcat(msg, "; ");
        strcat(msg, m);
        len = strlen(msg);
      }
      nerr++;
    }
    gmshFree(log[i]);
  }
  gmshFree(log);
  gmshLoggerStop(&ierr2);  /* restarting clears the log */
  gmshLoggerStart(&ierr2);
  if (!ierr && !nerr) PetscFunctionReturn(0);
  { /* name the Gmsh function: `what` may be the text of the call, "x = gmshFoo(args)" */
    const char *f = strstr(what, "gmsh");
    size_t      k = 0;
    if (!f) f = what;
    while (f[k] && f[k] != '(' && k < sizeof(name) - 1) {
      name[k] = f[k];
      k++;
    }
    name[k] = 0;
  }
  SETERRQ(comm, code, "Gmsh failed in %s for %s: %s%s", name, source, msg[0] ? msg : "(no message; rerun with -mesh_gmsh_verbose to see Gmsh's output)", nerr > 3 ? " (and more errors)" : "");
}

#define TdGmshCall(comm, code, source, call) \
  do { \
    int td_gmsh_ierr_ = 0; \
    call; \
    PetscCall(TdMeshGmshCheck(comm, td_gmsh_ierr_, code, #call, source)); \
  } while (0)

PetscErrorCode TdMeshFinalizeGmsh(void)
{
  int ierr = 0;

  PetscFunctionBegin;
  if (!td_gmsh_initialized) PetscFunctionReturn(0);
  gmshLoggerStop(&ierr);
  gmshFinalize(&ierr);
  td_gmsh_initialized = PETSC_FALSE;
  PetscCheck(!ierr, PETSC_COMM_SELF, PETSC_ERR_LIB, "gmshFinalize failed");
  PetscFunctionReturn(0);
}

static PetscErrorCode TdGmshSetTerminal(MPI_Comm comm)
{
  PetscFunctionBegin;
  /* Verbosity 1 keeps errors in the logger (verbosity 0 drops them) without printing them. */
  TdGmshCall(comm, PETSC_ERR_LIB, "Gmsh options", gmshOptionSetNumber("General.Terminal", td_gmsh_verbose ? 1 : 0, &td_gmsh_ierr_));
  TdGmshCall(comm, PETSC_ERR_LIB, "Gmsh options", gmshOptionSetNumber("General.Verbosity", td_gmsh_verbose ? 5 : 1, &td_gmsh_ierr_));
  TdGmshCall(comm, PETSC_ERR_LIB, "Gmsh options", gmshOptionSetNumber("General.AbortOnError", 0, &td_gmsh_ierr_));
  PetscFunctionReturn(0);
}

PetscErrorCode TdMeshInitializeGmsh(MPI_Comm comm)
{
  int ierr = 0;

  PetscFunctionBegin;
  if (td_gmsh_initialized) PetscFunctionReturn(0);
  PetscOptionsBegin(comm, NULL, "Gmsh meshes (tribodyn)", NULL);
  PetscCall(PetscOptionsBool("-mesh_gmsh_verbose", "Show Gmsh's messages on the terminal", "TdMeshInitializeGmsh", td_gmsh_verbose, &td_gmsh_verbose, NULL));
  PetscOptionsEnd();
  {
    /* gmshInitialize sets OpenMP's thread count to Gmsh's General.NumThreads (1): keep the
       program's own (OMP_NUM_THREADS), which the element and film assembly use */
    const int threads = omp_get_max_threads();
    gmshInitialize(0, NULL, 0, &ierr); /* no command line, no gmshrc: a reproducible Gmsh */
    omp_set_num_threads(threads);
  }
  PetscCheck(!ierr, comm, PETSC_ERR_LIB, "gmshInitialize failed (Gmsh C API, libgmsh)");
  td_gmsh_initialized = PETSC_TRUE;
  gmshOptionSetNumber("General.AbortOnError", 0, &ierr); /* before anything can fail */
  PetscCheck(!ierr, comm, PETSC_ERR_LIB, "Gmsh: setting General.AbortOnError failed");
  gmshLoggerStart(&ierr);
  PetscCheck(!ierr, comm, PETSC_ERR_LIB, "Gmsh: gmshLoggerStart failed");
  PetscCall(TdGmshSetTerminal(comm));
  for (int i = 0; i < TD_GMSH_NOPTIONS; i++) TdGmshCall(comm, PETSC_ERR_LIB, "Gmsh options", gmshOptionGetNumber(td_gmsh_mesh_options[i], &td_gmsh_option_defaults[i], &td_gmsh_ierr_));
  PetscCall(PetscRegisterFinalize(TdMeshFinalizeGmsh));
  PetscFunctionReturn(0);
}

/* A clean Gmsh state for one operation: no models, default mesh options, our terminal settings. */
static PetscErrorCode TdGmshBegin(MPI_Comm comm, const char source[])
{
  PetscFunctionBegin;
  PetscCall(TdMeshInitializeGmsh(comm));
  TdGmshCall(comm, PETSC_ERR_LIB, source, gmshClear(&td_gmsh_ierr_));
  for (int i = 0; i < TD_GMSH_NOPTIONS; i++) TdGmshCall(comm, PETSC_ERR_LIB, source, gmshOptionSetNumber(td_gmsh_mesh_options[i], td_gmsh_option_defaults[i], &td_gmsh_ierr_));
  PetscCall(TdGmshSetTerminal(comm));
  PetscFunctionReturn(0);
}

/* Release Gmsh's copy of the model; errors are ignored (used on error paths too). */
static void TdGmshEnd(void)
{
  int    ierr = 0;
  char **log  = NULL;
  size_t n    = 0;

  if (!td_gmsh_initialized) return;
  gmshClear(&ierr);
  gmshLoggerGet(&log, &n, &ierr); /* drop the log of a failed operation */
  for (size_t i = 0; i < n; i++) gmshFree(log[i]);
  gmshFree(log);
  gmshLoggerStop(&ierr);
  gmshLoggerStart(&ierr);
}

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */

void TdMeshGmshFreeElements(int *types, size_t **etags, size_t *etags_n, size_t etags_nn, size_t **ntags, size_t *ntags_n, size_t ntags_nn)
{
  for (size_t t = 0; t < etags_nn; t++) gmshFree(etags[t]);
  for (size_t t = 0; t < ntags_nn; t++) gmshFree(ntags[t]);
  gmshFree(types);
  gmshFree(etags);
  gmshFree(etags_n);
  gmshFree(ntags);
  gmshFree(ntags_n);
}

int TdMeshGmshCompareTags(const void *a, const void *b)
{
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return x < y ? -1 : (x > y ? 1 : 0);
}

PetscInt TdMeshGmshFindTag(size_t n, const size_t tags[], size_t tag)
{
  const size_t *p = n ? (const size_t *)bsearch(&tag, tags, n, sizeof(size_t), TdMeshGmshCompareTags) : NULL;
  return p ? (PetscInt)(p - tags) : -1;
}

typedef struct {
  PetscInt n[4]; /* sorted node indices of the face */
  PetscInt cell, face;
} TdFaceKey;

static int TdCompareFace(const void *a, const void *b)
{
  const TdFaceKey *x = (const TdFaceKey *)a, *y = (const TdFaceKey *)b;
  for (int i = 0; i < 4; i++) {
    if (x->n[i] != y->n[i]) return x->n[i] < y->n[i] ? -1 : 1;
  }
  if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
  return x->face < y->face ? -1 : (x->face > y->face ? 1 : 0);
}

static int TdCompareFaceNodes(const void *a, const void *b)
{
  const TdFaceKey *x = (const TdFaceKey *)a, *y = (const TdFaceKey *)b;
  for (int i = 0; i < 4; i++) {
    if (x->n[i] != y->n[i]) return x->n[i] < y->n[i] ? -1 : 1;
  }
  return 0;
}

static int TdCompareMeshFace(const void *a, const void *b)
{
  const TdMeshFace *x = (const TdMeshFace *)a, *y = (const TdMeshFace *)b;
  if (x->cell != y->cell) return x->cell < y->cell ? -1 : 1;
  return x->face < y->face ? -1 : (x->face > y->face ? 1 : 0);
}

static void TdSort4(PetscInt n[4])
{
  for (int i = 1; i < 4; i++)
    for (int j = i; j > 0 && n[j - 1] > n[j]; j--) {
      PetscInt t = n[j];
      n[j]       = n[j - 1];
      n[j - 1]   = t;
    }
}

void TdMeshFaceCorners(PetscInt f, PetscInt corners[4])
{
  const PetscInt ax = f / 2, side = f % 2;
  const PetscInt a1 = ax == 0 ? 1 : 0, a2 = ax == 2 ? 1 : 2; /* the face coordinates (u, v) */
  const PetscInt uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  for (PetscInt k = 0; k < 4; k++) corners[k] = (side << ax) | (uv[k][0] << a1) | (uv[k][1] << a2);
}

/* ------------------------------------------------------------------------------------------ */
/* Cell frames                                                                                 */

/* Gmsh's first-order hexahedron: corner k at (u,v,w) in {0,1}^3 along the edges 0-1, 0-3, 0-4. */
static const int td_gmsh_hex_uvw[8][3] = {
  {0, 0, 0},
  {1, 0, 0},
  {1, 1, 0},
  {0, 1, 0},
  {0, 0, 1},
  {1, 0, 1},
  {1, 1, 1},
  {0, 1, 1}
};

/* Lexicographic comparison of two candidate frames with a tolerance: >0 if A is "greater". */
static int TdCompareFrames(const PetscReal A[9], const PetscReal B[9], PetscReal tol)
{
  for (int i = 0; i < 9; i++) {
    if (A[i] > B[i] + tol) return 1;
    if (A[i] < B[i] - tol) return -1;
  }
  return 0;
}

/* Material frame of a box cell from its three edge directions d[3][3] (unit vectors): the
   assignment of directions to X, Y, Z that maximises sum_I |d_sigma(I) . e_I| (the local axes
   as close as possible to the global ones), each axis oriented so that its I-th component is
   positive; if that frame is left-handed the axis with the smallest such component is flipped.
   Near ties (e.g. a box rotated by 45 degrees) are broken by the lexicographically greatest
   frame, a rule that depends only on the set of directions, so all cells of a mesh get the same
   frame.  Returns the frame axes[3I+i] and perm[K] = the direction used for axis K. */
static void TdChooseFrame(const PetscReal d[3][3], PetscReal axes[9], PetscInt perm[3])
{
  static const PetscInt perms[6][3] = {
    {0, 1, 2},
    {0, 2, 1},
    {1, 0, 2},
    {1, 2, 0},
    {2, 0, 1},
    {2, 1, 0}
  };
  const PetscReal tie  = 1e-9;
  PetscReal       best = -1, bestA[9] = {0};
  PetscInt        bestp = 0;

  for (PetscInt p = 0; p < 6; p++) {
    PetscReal A[9], score = 0, Z[3];
    for (PetscInt K = 0; K < 3; K++) {
      const PetscReal *v    = d[perms[p][K]];
      PetscReal        sign = 1;
      if (PetscAbsReal(v[K]) > 1e-12) sign = v[K] > 0 ? 1 : -1;
      else {
        for (PetscInt i = 0; i < 3; i++)
          if (PetscAbsReal(v[i]) > 1e-12) {
            sign = v[i] > 0 ? 1 : -1;
            break;
          }
      }
      for (PetscInt i = 0; i < 3; i++) A[3 * K + i] = sign * v[i];
      score += PetscAbsReal(v[K]);
    }
    vec3_cross(&A[0], &A[3], Z);
    if (vec3_dot(Z, &A[6]) < 0) { /* left-handed: flip the axis least aligned with its global axis */
      PetscInt J = 2;
      for (PetscInt K = 1; K >= 0; K--)
        if (PetscAbsReal(A[3 * K + K]) < PetscAbsReal(A[3 * J + J]) - tie) J = K;
      for (PetscInt i = 0; i < 3; i++) A[3 * J + i] = -A[3 * J + i];
    }
    if (score > best + tie || (score > best - tie && TdCompareFrames(A, bestA, tie) > 0)) {
      if (score > best) best = score;
      bestp = p;
      for (PetscInt i = 0; i < 9; i++) bestA[i] = A[i];
    }
  }
  for (PetscInt i = 0; i < 9; i++) axes[i] = bestA[i];
  for (PetscInt K = 0; K < 3; K++) perm[K] = perms[bestp][K];
}

/* Convert a hexahedron with corners P (Gmsh order) that TdHexIsBox found to be a rectangular box:
   nodes g (Gmsh order) -> cell (ANCF corner order), size, axes.  A collapsed edge is refused,
   naming the cell. */
static PetscErrorCode TdConvertHex(MPI_Comm comm, const char source[], PetscInt c, size_t elemtag, const PetscReal P[8][3], const PetscInt g[8], PetscReal diag, PetscInt cell[8], PetscReal size[3], PetscReal axes[9])
{
  PetscReal e[3][3], L[3], E[3][3], d[3][3], ell[3], C[3] = {0, 0, 0};
  PetscInt  perm[3], used = 0;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 3; k++) {
    const int nb = k == 0 ? 1 : (k == 1 ? 3 : 4);
    for (PetscInt i = 0; i < 3; i++) e[k][i] = P[nb][i] - P[0][i];
    L[k] = vec3_norm(e[k]);
  }
  PetscCheck(L[0] > 1e-12 * diag && L[1] > 1e-12 * diag && L[2] > 1e-12 * diag, comm, PETSC_ERR_USER_INPUT,
             "mesh %s: cell %" PetscInt_FMT " (Gmsh element %zu) is degenerate (edge lengths %g, %g, %g m); the ANCF 3843 element needs box cells. Check the mesh for collapsed hexahedra.", source, c, elemtag, (double)L[0], (double)L[1], (double)L[2]);
  /* Edge vectors averaged over the four parallel edges. */
  for (PetscInt k = 0; k < 3; k++)
    for (PetscInt i = 0; i < 3; i++) E[k][i] = 0;
  for (PetscInt n = 0; n < 8; n++)
    for (PetscInt k = 0; k < 3; k++)
      for (PetscInt i = 0; i < 3; i++) E[k][i] += 0.25 * (td_gmsh_hex_uvw[n][k] ? P[n][i] : -P[n][i]);
  for (PetscInt k = 0; k < 3; k++) {
    ell[k] = vec3_norm(E[k]);
    for (PetscInt i = 0; i < 3; i++) d[k][i] = E[k][i] / ell[k];
  }
  TdChooseFrame(d, axes, perm);
  { /* exactly orthonormal: Gram-Schmidt in the order X, Y, Z = X x Y */
    PetscReal *X = &axes[0], *Y = &axes[3], *Z = &axes[6], s, nx = vec3_norm(X), ny;
    for (PetscInt i = 0; i < 3; i++) X[i] /= nx;
    s = vec3_dot(X, Y);
    for (PetscInt i = 0; i < 3; i++) Y[i] -= s * X[i];
    ny = vec3_norm(Y);
    for (PetscInt i = 0; i < 3; i++) Y[i] /= ny;
    vec3_cross(X, Y, Z);
  }
  {
    PetscReal dev = 0;
    for (PetscInt K = 0; K < 3; K++)
      for (PetscInt i = 0; i < 3; i++) dev = PetscMax(dev, PetscAbsReal(axes[3 * K + i] - (K == i ? 1.0 : 0.0)));
    if (dev <= TD_MESH_SNAP_TOL)
      for (PetscInt K = 0; K < 3; K++)
        for (PetscInt i = 0; i < 3; i++) axes[3 * K + i] = K == i ? 1.0 : 0.0;
  }
  for (PetscInt K = 0; K < 3; K++) size[K] = PetscAbsReal(vec3_dot(E[perm[K]], &axes[3 * K]));

  /* ANCF corner n: bit I set if the corner lies on the + side of the centre along axis I. */
  for (PetscInt n = 0; n < 8; n++)
    for (PetscInt i = 0; i < 3; i++) C[i] += 0.125 * P[n][i];
  for (PetscInt n = 0; n < 8; n++) cell[n] = -1;
  for (PetscInt k = 0; k < 8; k++) {
    PetscReal x[3];
    PetscInt  n = 0;
    for (PetscInt i = 0; i < 3; i++) x[i] = P[k][i] - C[i];
    for (PetscInt K = 0; K < 3; K++)
      if (vec3_dot(x, &axes[3 * K]) > 0) n |= 1 << K;
    used |= 1 << n;
    cell[n] = g[k];
  }
  PetscCheck(used == 0xff, comm, PETSC_ERR_USER_INPUT, "mesh %s: cell %" PetscInt_FMT " (Gmsh element %zu): could not order its corners (not a box?)", source, c, elemtag);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Reading the Gmsh model                                                                      */

typedef struct {
  size_t     nhex;
  size_t    *hextags;  /* Gmsh element tags */
  size_t    *hexnodes; /* 8 nhex Gmsh node tags (the corners) */
  int       *hextype;  /* Gmsh element type of each hexahedron: 5, 12 (27 nodes) or 17 (20 nodes) */
  PetscBool  order2;   /* some hexahedra are second order */
  size_t    *nodetags; /* sorted unique node tags used by hexes = the mesh numbering */
  PetscInt   nfaces;
  TdFaceKey *faces;    /* 6 ncells faces sorted by nodes */
  PetscInt  *setnodes;
  TdMeshFace *setfaces;
} TdGmshScratch;

static PetscErrorCode TdGmshScratchDestroy(TdGmshScratch *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(s->hextags));
  PetscCall(PetscFree(s->hexnodes));
  PetscCall(PetscFree(s->hextype));
  PetscCall(PetscFree(s->nodetags));
  PetscCall(PetscFree(s->faces));
  PetscCall(PetscFree(s->setnodes));
  PetscCall(PetscFree(s->setfaces));
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscFunctionReturn(0);
}

/* The hexahedra of the current model: first order (Gmsh type 5) and second order (12: 27 nodes,
   17: 20 nodes), whose first 8 nodes are the corners (Gmsh's ordering); the corners are the ANCF
   nodes and the second-order nodes only shape the reference geometry (TdGmshCurvedCells). */
static PetscErrorCode TdGmshReadHexes(MPI_Comm comm, const char source[], TdGmshScratch *s)
{
  int     *types = NULL;
  size_t   ntypes = 0, **etags = NULL, *etags_n = NULL, etags_nn = 0, **ntags = NULL, *ntags_n = NULL, ntags_nn = 0, nother = 0;
  char     other[256] = "";
  PetscInt higher = -1;
  PetscBool nomem = PETSC_FALSE;

  PetscFunctionBegin;
  TdGmshCall(comm, PETSC_ERR_LIB, source, gmshModelMeshGetElements(&types, &ntypes, &etags, &etags_n, &etags_nn, &ntags, &ntags_n, &ntags_nn, 3, -1, &td_gmsh_ierr_));
  for (size_t t = 0; t < ntypes; t++)
    if (types[t] == 5 || types[t] == 12 || types[t] == 17) s->nhex += etags_n[t];
  if (s->nhex && (PetscMalloc1(s->nhex, &s->hextags) || PetscMalloc1(8 * s->nhex, &s->hexnodes) || PetscMalloc1(s->nhex, &s->hextype))) nomem = PETSC_TRUE;
  for (size_t t = 0, h = 0; t < ntypes && !nomem; t++) {
    if (types[t] == 5 || types[t] == 12 || types[t] == 17) {
      const size_t stride = types[t] == 5 ? 8 : (types[t] == 12 ? 27 : 20);
      for (size_t e = 0; e < etags_n[t]; e++, h++) {
        s->hextags[h] = etags[t][e];
        s->hextype[h] = types[t];
        memcpy(&s->hexnodes[8 * h], &ntags[t][stride * e], 8 * sizeof(size_t));
      }
      if (types[t] != 5) s->order2 = PETSC_TRUE;
    } else if (types[t] == 92 || types[t] == 93) {
      higher = types[t];
    } else {
      char *name = NULL, buf[64];
      int   dim, order, nnodes, nprimary, ierr = 0;
      double *lc = NULL;
      size_t  nlc = 0;
      gmshModelMeshGetElementProperties(types[t], &name, &dim, &order, &nnodes, &lc, &nlc, &nprimary, &ierr);
      PetscCall(PetscSNPrintf(buf, sizeof(buf), "%s%zu %s", nother ? ", " : "", etags_n[t], (!ierr && name) ? name : "other elements"));
      if (strlen(other) + strlen(buf) + 1 < sizeof(other)) strcat(other, buf);
      nother += etags_n[t];
      gmshFree(name);
      gmshFree(lc);
      PetscCall(TdMeshGmshCheck(comm, 0, PETSC_ERR_LIB, "gmshModelMeshGetElementProperties", source));
    }
  }
  TdMeshGmshFreeElements(types, etags, etags_n, etags_nn, ntags, ntags_n, ntags_nn);
  PetscCheck(!nomem, comm, PETSC_ERR_MEM, "mesh %s: out of memory for %zu hexahedra", source, s->nhex);
  PetscCheck(higher < 0, comm, PETSC_ERR_USER_INPUT, "mesh %s: has third-order hexahedra (Gmsh element type %" PetscInt_FMT "); tribodyn reads first- and second-order hexahedra (set Mesh.ElementOrder = 1 or 2)", source, higher);
  PetscCheck(s->nhex > 0, comm, PETSC_ERR_USER_INPUT, "mesh %s: contains no hexahedra%s%s%s; tribodyn bodies need all-hexahedral meshes (use Transfinite and Recombine in the .geo)", source, nother ? " (3-D elements: " : "", other, nother ? ")" : "");
  if (nother) PetscCall(PetscPrintf(comm, "tribodyn: warning: mesh %s: ignoring %zu 3-D elements that are not hexahedra (%s); only the %zu hexahedra form the body\n", source, nother, other, s->nhex));
  PetscFunctionReturn(0);
}

/* Is the hexahedron with corners P (Gmsh order) a rectangular box, to TD_MESH_ORTHO_TOL? */
static PetscBool TdHexIsBox(const PetscReal P[8][3])
{
  PetscReal e[3][3], L[3], Lmax = 0;
  for (PetscInt k = 0; k < 3; k++) {
    const int nb = k == 0 ? 1 : (k == 1 ? 3 : 4);
    for (PetscInt i = 0; i < 3; i++) e[k][i] = P[nb][i] - P[0][i];
    L[k] = vec3_norm(e[k]);
    Lmax = PetscMax(Lmax, L[k]);
  }
  if (!(L[0] > 0 && L[1] > 0 && L[2] > 0)) return PETSC_FALSE;
  for (PetscInt k = 0; k < 3; k++)
    for (PetscInt l = k + 1; l < 3; l++)
      if (PetscAbsReal(vec3_dot(e[k], e[l])) / (L[k] * L[l]) > TD_MESH_ORTHO_TOL) return PETSC_FALSE;
  for (PetscInt n = 0; n < 8; n++) {
    PetscReal x[3];
    for (PetscInt i = 0; i < 3; i++) x[i] = P[0][i] + td_gmsh_hex_uvw[n][0] * e[0][i] + td_gmsh_hex_uvw[n][1] * e[1][i] + td_gmsh_hex_uvw[n][2] * e[2][i] - P[n][i];
    if (vec3_norm(x) / Lmax > TD_MESH_ORTHO_TOL) return PETSC_FALSE;
  }
  return PETSC_TRUE;
}

/* Curved cells (any hexahedra): the ANCF corner n is Gmsh's corner with (u, v, w) = the bits of
   n, the parametric box a x b x c takes the mean corner-to-corner length of each direction's four
   edges, and the slope map of corner n is the isoparametric map's Jacobian there,
   G_n[i][j] = dx_i/dxi_j 2 / a_j (mesh.h; Gmsh evaluates it, for second-order cells through their
   mid-edge, mid-face and centre nodes).  A corner with det G_n <= 1e-6 is refused: inverted or
   degenerate (the model then checks det J at the Gauss points of the reference map too). */
static PetscErrorCode TdGmshCurvedCells(MPI_Comm comm, const char source[], TdGmshScratch *s, TdMesh *mesh)
{
  static const int types[3] = {5, 12, 17};
  double           lc[24];

  PetscFunctionBegin;
  for (PetscInt k = 0; k < 8; k++)
    for (PetscInt j = 0; j < 3; j++) lc[3 * k + j] = td_gmsh_hex_uvw[k][j] ? 1.0 : -1.0;
  PetscCall(PetscMalloc1(72 * mesh->ncells, &mesh->slope_map));
  for (PetscInt ti = 0; ti < 3; ti++) {
    double  *jac = NULL, *det = NULL, *xyz = NULL;
    size_t   njac = 0, ndet = 0, nxyz = 0, e = 0;
    PetscInt c;
    for (c = 0; c < mesh->ncells; c++)
      if (s->hextype[c] == types[ti]) break;
    if (c == mesh->ncells) continue;
    /* Gmsh returns the cells of a type in the order of gmshModelMeshGetElements (that of s) */
    TdGmshCall(comm, PETSC_ERR_LIB, source, gmshModelMeshGetJacobians(types[ti], lc, 24, &jac, &njac, &det, &ndet, &xyz, &nxyz, -1, 0, 1, &td_gmsh_ierr_));
    for (c = 0; c < mesh->ncells; c++) {
      PetscInt  *cell = &mesh->cells[8 * c];
      PetscReal *size = &mesh->size[3 * c], *G = &mesh->slope_map[72 * c];
      if (s->hextype[c] != types[ti]) continue;
      if (9 * 8 * (e + 1) > njac) break;
      for (PetscInt j = 0; j < 3; j++) { /* mean edge length along direction j: ANCF corners n, n + 2^j */
        size[j] = 0;
        for (PetscInt n = 0; n < 8; n++)
          if (!((n >> j) & 1)) {
            const PetscReal *x0 = &mesh->X[3 * cell[n]], *x1 = &mesh->X[3 * cell[n | (1 << j)]];
            size[j] += 0.25 * PetscSqrtReal(PetscSqr(x1[0] - x0[0]) + PetscSqr(x1[1] - x0[1]) + PetscSqr(x1[2] - x0[2]));
          }
        PetscCheck(size[j] > 0, comm, PETSC_ERR_USER_INPUT, "mesh %s: cell %" PetscInt_FMT " (Gmsh element %zu) is degenerate: its edges along its local direction %" PetscInt_FMT " have zero length", source, c, s->hextags[c], j);
      }
      for (PetscInt k = 0; k < 8; k++) {
        const double *J  = &jac[9 * (8 * e + k)]; /* by column: J[3 j + i] = dx_i/du_j */
        const PetscInt n = td_gmsh_hex_uvw[k][0] + 2 * td_gmsh_hex_uvw[k][1] + 4 * td_gmsh_hex_uvw[k][2];
        PetscReal      d;
        /* the corner Gmsh evaluated at is the cell's corner: guards the element order */
        const double  *x = &xyz[3 * (8 * e + k)], *X = &mesh->X[3 * cell[n]];
        PetscCheck(PetscAbsReal(x[0] - X[0]) + PetscAbsReal(x[1] - X[1]) + PetscAbsReal(x[2] - X[2]) <= 1e-9 * (size[0] + size[1] + size[2]), comm, PETSC_ERR_LIB, "mesh %s: Gmsh's Jacobians of element type %d do not come in the order of its elements (cell %" PetscInt_FMT ")", source, types[ti], c);
        for (PetscInt j = 0; j < 3; j++)
          for (PetscInt i = 0; i < 3; i++) G[9 * n + 3 * j + i] = J[3 * j + i] * 2.0 / size[j];
        d = G[9 * n + 0] * (G[9 * n + 4] * G[9 * n + 8] - G[9 * n + 5] * G[9 * n + 7]) - G[9 * n + 3] * (G[9 * n + 1] * G[9 * n + 8] - G[9 * n + 2] * G[9 * n + 7]) + G[9 * n + 6] * (G[9 * n + 1] * G[9 * n + 5] - G[9 * n + 2] * G[9 * n + 4]);
        PetscCheck(d > 1e-6, comm, PETSC_ERR_USER_INPUT, "mesh %s: cell %" PetscInt_FMT " (Gmsh element %zu) is %s at its corner %" PetscInt_FMT " (Gmsh node %zu): the Jacobian determinant of its map is %g of its box's; fix or remesh that cell (its corners must be ordered as Gmsh's hexahedron, with a positive volume)", source, c, s->hextags[c], d < 0 ? "inverted" : "degenerate", k, s->hexnodes[8 * c + k], (double)d);
      }
      e++;
    }
    gmshFree(jac);
    gmshFree(det);
    gmshFree(xyz);
    PetscCall(TdMeshGmshCheck(comm, 0, PETSC_ERR_LIB, "gmshModelMeshGetJacobians", source));
    PetscCheck(c == mesh->ncells, comm, PETSC_ERR_LIB, "mesh %s: Gmsh returned Jacobians for fewer elements of type %d than it listed", source, types[ti]);
  }
  mesh->curved       = PETSC_TRUE;
  mesh->axis_aligned = PETSC_FALSE;
  mesh->uniform_axes = PETSC_FALSE;
  for (PetscInt c = 0; c < mesh->ncells; c++)
    for (PetscInt i = 0; i < 9; i++) mesh->axes[9 * c + i] = (i % 4 == 0) ? 1.0 : 0.0; /* unused */
  PetscFunctionReturn(0);
}

/* Nodes used by the hexahedra, numbered 0..nnodes-1 in the order of their Gmsh tags; cells in
   ANCF order; size, axes, bbox. */
static PetscErrorCode TdGmshBuildCells(MPI_Comm comm, const char source[], TdGmshScratch *s, TdMesh *mesh)
{
  size_t  *tags = NULL, ntags = 0, ncoord = 0, *alltags = NULL, nall = 0;
  double  *coord = NULL, *param = NULL;
  size_t   nparam = 0, nu = 0;
  PetscInt nfound = 0;
  PetscReal diag;

  PetscFunctionBegin;
  /* unique node tags of the hexahedra */
  PetscCall(PetscMalloc1(8 * s->nhex, &alltags));
  memcpy(alltags, s->hexnodes, 8 * s->nhex * sizeof(size_t));
  qsort(alltags, 8 * s->nhex, sizeof(size_t), TdMeshGmshCompareTags);
  nall = 8 * s->nhex;
  for (size_t i = 0; i < nall; i++)
    if (i == 0 || alltags[i] != alltags[nu - 1]) alltags[nu++] = alltags[i];
  s->nodetags = alltags;
  PetscCheck(nu < (size_t)PETSC_MAX_INT / 3 && s->nhex < (size_t)PETSC_MAX_INT / 9, comm, PETSC_ERR_SUP, "mesh %s: too large for 32-bit PetscInt", source);
  mesh->nnodes = (PetscInt)nu;
  mesh->ncells = (PetscInt)s->nhex;
  PetscCall(PetscMalloc1(3 * nu, &mesh->X));
  for (size_t i = 0; i < 3 * nu; i++) mesh->X[i] = PETSC_MAX_REAL;

  /* coordinates */
  TdGmshCall(comm, PETSC_ERR_LIB, source, gmshModelMeshGetNodes(&tags, &ntags, &coord, &ncoord, &param, &nparam, -1, -1, 0, 0, &td_gmsh_ierr_));
  for (size_t i = 0; i < ntags; i++) {
    PetscInt k = TdMeshGmshFindTag(nu, s->nodetags, tags[i]);
    if (k < 0) continue;
    if (mesh->X[3 * k] == PETSC_MAX_REAL) nfound++;
    for (PetscInt j = 0; j < 3; j++) mesh->X[3 * k + j] = coord[3 * i + j];
  }
  gmshFree(tags);
  gmshFree(coord);
  gmshFree(param);
  PetscCheck(nfound == mesh->nnodes, comm, PETSC_ERR_USER_INPUT, "mesh %s: %" PetscInt_FMT " nodes of the hexahedra have no coordinates in the file", source, mesh->nnodes - nfound);

  mesh->bbox[0] = mesh->bbox[1] = mesh->bbox[2] = PETSC_MAX_REAL;
  mesh->bbox[3] = mesh->bbox[4] = mesh->bbox[5] = -PETSC_MAX_REAL;
  for (PetscInt k = 0; k < mesh->nnodes; k++)
    for (PetscInt j = 0; j < 3; j++) {
      mesh->bbox[j]     = PetscMin(mesh->bbox[j], mesh->X[3 * k + j]);
      mesh->bbox[3 + j] = PetscMax(mesh->bbox[3 + j], mesh->X[3 * k + j]);
    }
  diag = PetscSqrtReal(PetscSqr(mesh->bbox[3] - mesh->bbox[0]) + PetscSqr(mesh->bbox[4] - mesh->bbox[1]) + PetscSqr(mesh->bbox[5] - mesh->bbox[2]));

  /* cells */
  PetscCall(PetscMalloc1(8 * mesh->ncells, &mesh->cells));
  PetscCall(PetscMalloc1(3 * mesh->ncells, &mesh->size));
  PetscCall(PetscMalloc1(9 * mesh->ncells, &mesh->axes));
  mesh->axis_aligned = PETSC_TRUE;
  mesh->uniform_axes = PETSC_TRUE;
  /* Box cells keep their own frames and shared tables; a mesh with any other hexahedron (or of
     second order) is curved throughout (mesh.h). */
  if (!s->order2)
    for (PetscInt c = 0; c < mesh->ncells && !mesh->curved; c++) {
      PetscReal P[8][3];
      for (PetscInt k = 0; k < 8; k++)
        for (PetscInt j = 0; j < 3; j++) P[k][j] = mesh->X[3 * TdMeshGmshFindTag(nu, s->nodetags, s->hexnodes[8 * c + k]) + j];
      if (!TdHexIsBox((const PetscReal(*)[3])P)) mesh->curved = PETSC_TRUE;
    }
  else mesh->curved = PETSC_TRUE;
  for (PetscInt c = 0; c < mesh->ncells && mesh->curved; c++)
    for (PetscInt k = 0; k < 8; k++) {
      const PetscInt g = TdMeshGmshFindTag(nu, s->nodetags, s->hexnodes[8 * c + k]);
      mesh->cells[8 * c + td_gmsh_hex_uvw[k][0] + 2 * td_gmsh_hex_uvw[k][1] + 4 * td_gmsh_hex_uvw[k][2]] = g;
    }
  if (mesh->curved) PetscCall(TdGmshCurvedCells(comm, source, s, mesh));
  for (PetscInt c = 0; c < mesh->ncells && !mesh->curved; c++) {
    PetscReal P[8][3];
    PetscInt  g[8];
    for (PetscInt k = 0; k < 8; k++) {
      g[k] = TdMeshGmshFindTag(nu, s->nodetags, s->hexnodes[8 * c + k]);
      for (PetscInt j = 0; j < 3; j++) P[k][j] = mesh->X[3 * g[k] + j];
    }
    PetscCall(TdConvertHex(comm, source, c, s->hextags[c], (const PetscReal(*)[3])P, g, diag, &mesh->cells[8 * c], &mesh->size[3 * c], &mesh->axes[9 * c]));
    for (PetscInt K = 0; K < 3; K++)
      for (PetscInt i = 0; i < 3; i++) {
        if (mesh->axes[9 * c + 3 * K + i] != (K == i ? 1.0 : 0.0)) mesh->axis_aligned = PETSC_FALSE;
        if (PetscAbsReal(mesh->axes[9 * c + 3 * K + i] - mesh->axes[3 * K + i]) > TD_MESH_SNAP_TOL) mesh->uniform_axes = PETSC_FALSE;
      }
  }

  /* the face table: the four sorted nodes of every local face of every cell */
  s->nfaces = 6 * mesh->ncells;
  PetscCall(PetscMalloc1(s->nfaces, &s->faces));
  for (PetscInt c = 0; c < mesh->ncells; c++)
    for (PetscInt f = 0; f < 6; f++) {
      TdFaceKey *key = &s->faces[6 * c + f];
      PetscInt   corners[4];
      TdMeshFaceCorners(f, corners);
      for (PetscInt k = 0; k < 4; k++) key->n[k] = mesh->cells[8 * c + corners[k]];
      TdSort4(key->n);
      key->cell = c;
      key->face = f;
    }
  qsort(s->faces, s->nfaces, sizeof(TdFaceKey), TdCompareFace);
  PetscFunctionReturn(0);
}

/* Append a set built from nodes[nn] and faces[nf] (both sorted and made unique here). */
static PetscErrorCode TdMeshAddSet(MPI_Comm comm, TdMesh *mesh, const char name[], PetscInt nn, PetscInt nodes[], PetscInt nf, TdMeshFace faces[])
{
  TdMeshSet *sets, *set;
  PetscInt   nfu = 0;

  PetscFunctionBegin;
  PetscCheck(strlen(name) < sizeof(set->name), comm, PETSC_ERR_USER_INPUT, "mesh %s: physical group name \"%s\" is too long (at most %zu characters)", mesh->source, name, sizeof(set->name) - 1);
  for (PetscInt i = 0; i < mesh->nsets; i++) PetscCheck(strcmp(mesh->sets[i].name, name), comm, PETSC_ERR_USER_INPUT, "mesh %s: two surface groups are called \"%s\"; give the physical groups distinct names", mesh->source, name);
  PetscCall(PetscMalloc1(mesh->nsets + 1, &sets));
  if (mesh->nsets) PetscCall(PetscArraycpy(sets, mesh->sets, mesh->nsets));
  PetscCall(PetscFree(mesh->sets));
  mesh->sets = sets;
  set        = &mesh->sets[mesh->nsets++];
  PetscCall(PetscMemzero(set, sizeof(*set)));
  PetscCall(PetscStrncpy(set->name, name, sizeof(set->name)));
  PetscCall(PetscSortRemoveDupsInt(&nn, nodes));
  qsort(faces, nf, sizeof(TdMeshFace), TdCompareMeshFace);
  for (PetscInt i = 0; i < nf; i++)
    if (i == 0 || TdCompareMeshFace(&faces[i], &faces[nfu - 1])) faces[nfu++] = faces[i];
  set->nnodes = nn;
  set->nfaces = nfu;
  PetscCall(PetscMalloc1(nn, &set->nodes));
  PetscCall(PetscMalloc1(nfu, &set->faces));
  if (nn) PetscCall(PetscArraycpy(set->nodes, nodes, nn));
  if (nfu) PetscCall(PetscArraycpy(set->faces, faces, nfu));
  PetscFunctionReturn(0);
}

/* Sets from the 2-D physical groups of the current model. */
static PetscErrorCode TdGmshReadSets(MPI_Comm comm, const char source[], TdGmshScratch *s, TdMesh *mesh)
{
  int   *groups = NULL;
  size_t ngroups = 0;

  PetscFunctionBegin;
  TdGmshCall(comm, PETSC_ERR_LIB, source, gmshModelGetPhysicalGroups(&groups, &ngroups, 2, &td_gmsh_ierr_));
  for (size_t gi = 0; gi < ngroups / 2; gi++) { /* ngroups: length of the (dim, tag) array */
    const int gtag = groups[2 * gi + 1];
    char     *gname = NULL, name[256];
    int      *ents = NULL;
    size_t    nents = 0;
    PetscInt  nn = 0, nf = 0, maxn = 0, maxf = 0;

    TdGmshCall(comm, PETSC_ERR_LIB, source, gmshModelGetPhysicalName(2, gtag, &gname, &td_gmsh_ierr_));
    if (gname && gname[0]) PetscCall(PetscStrncpy(name, gname, sizeof(name)));
    else PetscCall(PetscSNPrintf(name, sizeof(name), "group%d", gtag));
    gmshFree(gname);
    TdGmshCall(comm, PETSC_ERR_LIB, source, gmshModelGetEntitiesForPhysicalGroup(2, gtag, &ents, &nents, &td_gmsh_ierr_));
    for (size_t ei = 0; ei < nents; ei++) {
      int     *types = NULL;
      size_t   ntypes = 0, **etags = NULL, *etags_n = NULL, etags_nn = 0, **ntags = NULL, *ntags_n = NULL, ntags_nn = 0;
      PetscInt bad = 0;   /* 1: not a quadrangle, 2: not a face of a hexahedron */
      int      badtype = 0;
      size_t   badtag = 0;

      TdGmshCall(comm, PETSC_ERR_LIB, source, gmshModelMeshGetElements(&types, &ntypes, &etags, &etags_n, &etags_nn, &ntags, &ntags_n, &ntags_nn, 2, ents[ei], &td_gmsh_ierr_));
      for (size_t t = 0; t < ntypes && !bad; t++) {
        const int stride = types[t] == 3 ? 4 : (types[t] == 16 ? 8 : 9); /* corners come first */
        if (types[t] != 3 && types[t] != 10 && types[t] != 16) {
          bad     = 1;
          badtype = types[t];
          badtag  = etags_n[t] ? etags[t][0] : 0;
          break;
        }
        if (nn + 4 * (PetscInt)etags_n[t] > maxn) { /* grow the scratch arrays */
          PetscInt   *nodes;
          TdMeshFace *faces;
          maxn = PetscMax(2 * maxn, nn + 4 * (PetscInt)etags_n[t]);
          maxf = maxn / 4;
          PetscCall(PetscMalloc1(maxn, &nodes));
          PetscCall(PetscMalloc1(maxf, &faces));
          if (nn) PetscCall(PetscArraycpy(nodes, s->setnodes, nn));
          if (nf) PetscCall(PetscArraycpy(faces, s->setfaces, nf));
          PetscCall(PetscFree(s->setnodes));
          PetscCall(PetscFree(s->setfaces));
          s->setnodes = nodes;
          s->setfaces = faces;
        }
        for (size_t q = 0; q < etags_n[t] && !bad; q++) {
          TdFaceKey  key;
          TdFaceKey *hit;
          for (PetscInt k = 0; k < 4; k++) {
            key.n[k] = TdMeshGmshFindTag(s->nodetags ? mesh->nnodes : 0, s->nodetags, ntags[t][stride * q + k]);
            if (key.n[k] < 0) bad = 2;
          }
          if (!bad) {
            TdSort4(key.n);
            hit = (TdFaceKey *)bsearch(&key, s->faces, s->nfaces, sizeof(TdFaceKey), TdCompareFaceNodes);
            if (!hit) bad = 2;
            else {
              while (hit > s->faces && !TdCompareFaceNodes(hit - 1, &key)) hit--; /* first cell with this face */
              s->setfaces[nf].cell = hit->cell;
              s->setfaces[nf].face = hit->face;
              nf++;
              for (PetscInt k = 0; k < 4; k++) s->setnodes[nn++] = key.n[k];
            }
          }
          if (bad) badtag = etags[t][q];
        }
      }
      TdMeshGmshFreeElements(types, etags, etags_n, etags_nn, ntags, ntags_n, ntags_nn);
      if (bad) gmshFree(ents);
      if (bad) gmshFree(groups);
      PetscCheck(bad != 1, comm, PETSC_ERR_USER_INPUT, "mesh %s: surface group \"%s\" contains element %zu of Gmsh type %d, not a quadrangle; surface groups must consist of faces of the hexahedra (Recombine the surfaces)", source, name, badtag, badtype);
      PetscCheck(bad != 2, comm, PETSC_ERR_USER_INPUT, "mesh %s: surface group \"%s\": quadrangle %zu is not a face of any hexahedron; surface groups must lie on the hexahedral mesh of the body", source, name, badtag);
    }
    gmshFree(ents);
    PetscCall(TdMeshAddSet(comm, mesh, name, nn, s->setnodes, nf, s->setfaces));
  }
  gmshFree(groups);
  PetscFunctionReturn(0);
}

/* Sets xmin .. zmax of a box: the nodes on each plane and the cell faces lying on it. */
static PetscErrorCode TdMeshBoxSets(MPI_Comm comm, const PetscReal box[6], TdMesh *mesh)
{
  static const char *names[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
  PetscInt          *nodes, nn;
  TdMeshFace        *faces;
  PetscReal          diag = PetscSqrtReal(PetscSqr(box[3] - box[0]) + PetscSqr(box[4] - box[1]) + PetscSqr(box[5] - box[2])), tol = TD_MESH_PLANE_TOL * diag;
  PetscBool         *on;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(mesh->nnodes, &nodes));
  PetscCall(PetscMalloc1(6 * mesh->ncells, &faces));
  PetscCall(PetscMalloc1(mesh->nnodes, &on));
  for (PetscInt s = 0; s < 6; s++) {
    const PetscInt  axis = s / 2;
    const PetscReal v    = (s % 2) ? box[3 + axis] : box[axis];
    PetscInt        nf   = 0;
    nn                   = 0;
    for (PetscInt k = 0; k < mesh->nnodes; k++) {
      on[k] = PetscAbsReal(mesh->X[3 * k + axis] - v) <= tol ? PETSC_TRUE : PETSC_FALSE;
      if (on[k]) nodes[nn++] = k;
    }
    for (PetscInt c = 0; c < mesh->ncells; c++)
      for (PetscInt f = 0; f < 6; f++) {
        PetscInt corners[4];
        TdMeshFaceCorners(f, corners);
        if (on[mesh->cells[8 * c + corners[0]]] && on[mesh->cells[8 * c + corners[1]]] && on[mesh->cells[8 * c + corners[2]]] && on[mesh->cells[8 * c + corners[3]]]) {
          faces[nf].cell = c;
          faces[nf].face = f;
          nf++;
        }
      }
    PetscCall(TdMeshAddSet(comm, mesh, names[s], nn, nodes, nf, faces));
  }
  PetscCall(PetscFree(nodes));
  PetscCall(PetscFree(faces));
  PetscCall(PetscFree(on));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Public functions                                                                            */

static PetscErrorCode TdMeshCreateBox_Private(MPI_Comm comm, const PetscReal box[6], const PetscInt cells[3], TdMesh *mesh, TdGmshScratch *s)
{
  const char *src = "box";
  int        *out = NULL, p;
  size_t      nout = 0;
  int         dimtag[2], line, surf;
  int         layers[3] = {(int)cells[0], (int)cells[1], (int)cells[2]};

  PetscFunctionBegin;
  PetscCall(TdGmshBegin(comm, src));
  TdGmshCall(comm, PETSC_ERR_LIB, src, gmshModelAdd("tribodyn_box", &td_gmsh_ierr_));
  /* point -> line (nx layers) -> quads (ny layers) -> hexahedra (nz layers): structured */
  TdGmshCall(comm, PETSC_ERR_LIB, src, p = gmshModelGeoAddPoint(box[0], box[1], box[2], 0, -1, &td_gmsh_ierr_));
  dimtag[0] = 0;
  dimtag[1] = p;
  TdGmshCall(comm, PETSC_ERR_LIB, src, gmshModelGeoExtrude(dimtag, 2, box[3] - box[0], 0, 0, &out, &nout, &layers[0], 1, NULL, 0, 1, &td_gmsh_ierr_));
  PetscCheck(nout >= 4 && out[2] == 1, comm, PETSC_ERR_LIB, "Gmsh: unexpected result of extruding a point (box mesh)");
  line = out[3];
  gmshFree(out);
  dimtag[0] = 1;
  dimtag[1] = line;
  TdGmshCall(comm, PETSC_ERR_LIB, src, gmshModelGeoExtrude(dimtag, 2, 0, box[4] - box[1], 0, &out, &nout, &layers[1], 1, NULL, 0, 1, &td_gmsh_ierr_));
  PetscCheck(nout >= 4 && out[2] == 2, comm, PETSC_ERR_LIB, "Gmsh: unexpected result of extruding a line (box mesh)");
  surf = out[3];
  gmshFree(out);
  dimtag[0] = 2;
  dimtag[1] = surf;
  TdGmshCall(comm, PETSC_ERR_LIB, src, gmshModelGeoExtrude(dimtag, 2, 0, 0, box[5] - box[2], &out, &nout, &layers[2], 1, NULL, 0, 1, &td_gmsh_ierr_));
  PetscCheck(nout >= 4 && out[2] == 3, comm, PETSC_ERR_LIB, "Gmsh: unexpected result of extruding a surface (box mesh)");
  gmshFree(out);
  TdGmshCall(comm, PETSC_ERR_LIB, src, gmshModelGeoSynchronize(&td_gmsh_ierr_));
  TdGmshCall(comm, PETSC_ERR_LIB, src, gmshModelMeshGenerate(3, &td_gmsh_ierr_));

  PetscCall(TdGmshReadHexes(comm, src, s));
  PetscCheck(s->nhex == (size_t)cells[0] * cells[1] * cells[2], comm, PETSC_ERR_LIB, "Gmsh made %zu hexahedra for a %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " box", s->nhex, cells[0], cells[1], cells[2]);
  PetscCall(TdGmshBuildCells(comm, src, s, mesh));
  PetscCall(TdMeshBoxSets(comm, box, mesh));
  PetscFunctionReturn(0);
}

PetscErrorCode TdMeshCreateBox(MPI_Comm comm, const PetscReal box[6], const PetscInt cells[3], TdMesh *mesh)
{
  TdGmshScratch  s;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(box && cells && mesh, comm, PETSC_ERR_ARG_NULL, "TdMeshCreateBox: NULL argument");
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  PetscCall(PetscMemzero(&s, sizeof(s)));
  for (PetscInt i = 0; i < 3; i++) {
    PetscCheck(!PetscIsInfOrNanReal(box[i]), comm, PETSC_ERR_USER_INPUT, "box: corner coordinate %g is not a finite number", (double)box[i]);
    PetscCheck(box[3 + i] > box[i] && !PetscIsInfOrNanReal(box[3 + i]), comm, PETSC_ERR_USER_INPUT, "box [%g,%g] x [%g,%g] x [%g,%g]: the upper %c bound must exceed the lower one (give x0,y0,z0,x1,y1,z1)", (double)box[0], (double)box[3], (double)box[1], (double)box[4], (double)box[2], (double)box[5], "xyz"[i]);
    PetscCheck(cells[i] >= 1 && cells[i] <= 100000, comm, PETSC_ERR_USER_INPUT, "box: %" PetscInt_FMT " cells along %c; give between 1 and 100000 cells per direction", cells[i], "xyz"[i]);
  }
  PetscCall(PetscStrncpy(mesh->source, "box", sizeof(mesh->source)));
  ierr = TdMeshCreateBox_Private(comm, box, cells, mesh, &s);
  TdGmshEnd();
  if (ierr) {
    (void)TdGmshScratchDestroy(&s);
    (void)TdMeshDestroy(mesh);
  }
  PetscCall(ierr);
  PetscCall(TdGmshScratchDestroy(&s));
  PetscFunctionReturn(0);
}

PetscErrorCode TdMeshGmshOpen(MPI_Comm comm, const char path[], const char what[], const char option[], int dim)
{
  PetscBool readable = PETSC_FALSE, geo = PETSC_FALSE, msh = PETSC_FALSE;
  size_t    len;
  PetscFunctionBegin;
  PetscCall(PetscStrlen(path, &len));
  PetscCheck(len > 0 && len < PETSC_MAX_PATH_LEN, comm, PETSC_ERR_USER_INPUT, "%s file name \"%s\" is empty or too long", what, path);
  if (len > 4) {
    PetscCall(PetscStrcasecmp(path + len - 4, ".geo", &geo));
    PetscCall(PetscStrcasecmp(path + len - 4, ".msh", &msh));
  }
  PetscCheck(geo || msh, comm, PETSC_ERR_USER_INPUT, "%s %s: unknown file type; give a Gmsh .msh mesh or a .geo script", what, path);
  /* gmshOpen does not fail on a missing file: check first */
  PetscCall(PetscTestFile(path, 'r', &readable));
  PetscCheck(readable, comm, PETSC_ERR_FILE_OPEN, "%s %s: cannot open the file (missing, not a regular file, or not readable); check the path given with %s (relative paths are relative to the working directory)", what, path, option);
  PetscCall(TdGmshBegin(comm, path));
  TdGmshCall(comm, PETSC_ERR_FILE_OPEN, path, gmshOpen(path, &td_gmsh_ierr_));
  PetscCall(TdGmshSetTerminal(comm)); /* the file may have changed them */
  if (geo) TdGmshCall(comm, PETSC_ERR_USER_INPUT, path, gmshModelMeshGenerate(dim, &td_gmsh_ierr_));
  PetscFunctionReturn(0);
}

void TdMeshGmshClose(void) { TdGmshEnd(); }

static PetscErrorCode TdMeshLoad_Private(MPI_Comm comm, const char path[], TdMesh *mesh, TdGmshScratch *s)
{
  PetscFunctionBegin;
  PetscCall(TdMeshGmshOpen(comm, path, "mesh", "-<body>_mesh", 3));
  PetscCall(TdGmshReadHexes(comm, path, s));
  PetscCall(TdGmshBuildCells(comm, path, s, mesh));
  PetscCall(TdGmshReadSets(comm, path, s, mesh));
  PetscFunctionReturn(0);
}

PetscErrorCode TdMeshLoad(MPI_Comm comm, const char path[], TdMesh *mesh)
{
  TdGmshScratch  s;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(path && mesh, comm, PETSC_ERR_ARG_NULL, "TdMeshLoad: NULL argument");
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  PetscCall(PetscMemzero(&s, sizeof(s)));
  PetscCall(PetscStrncpy(mesh->source, path, sizeof(mesh->source)));
  ierr = TdMeshLoad_Private(comm, path, mesh, &s);
  TdGmshEnd();
  if (ierr) {
    (void)TdGmshScratchDestroy(&s);
    (void)TdMeshDestroy(mesh);
  }
  PetscCall(ierr);
  PetscCall(TdGmshScratchDestroy(&s));
  PetscFunctionReturn(0);
}

PetscErrorCode TdMeshDestroy(TdMesh *mesh)
{
  PetscFunctionBegin;
  if (!mesh) PetscFunctionReturn(0);
  for (PetscInt i = 0; i < mesh->nsets; i++) {
    PetscCall(PetscFree(mesh->sets[i].nodes));
    PetscCall(PetscFree(mesh->sets[i].faces));
  }
  PetscCall(PetscFree(mesh->sets));
  PetscCall(PetscFree(mesh->X));
  PetscCall(PetscFree(mesh->cells));
  PetscCall(PetscFree(mesh->size));
  PetscCall(PetscFree(mesh->axes));
  PetscCall(PetscFree(mesh->slope_map));
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  PetscFunctionReturn(0);
}

const TdMeshSet *TdMeshFindSet(const TdMesh *mesh, const char name[])
{
  if (!mesh || !name) return NULL;
  for (PetscInt i = 0; i < mesh->nsets; i++)
    if (!strcmp(mesh->sets[i].name, name)) return &mesh->sets[i];
  return NULL;
}

void TdMeshCellReference(const TdMesh *mesh, PetscInt c, PetscReal e0[96])
{
  const PetscInt  *cell = &mesh->cells[8 * c];
  const PetscReal *X0   = &mesh->X[3 * cell[0]];
  for (PetscInt n = 0; n < 8; n++) {
    for (PetscInt i = 0; i < 3; i++) e0[12 * n + i] = mesh->X[3 * cell[n] + i] - X0[i];
    for (PetscInt j = 0; j < 3; j++)
      for (PetscInt i = 0; i < 3; i++) e0[12 * n + 3 + 3 * j + i] = mesh->curved ? mesh->slope_map[72 * c + 9 * n + 3 * j + i] : mesh->axes[9 * c + 3 * j + i];
  }
}

/* Local coordinates of X in curved cell c by Newton on its reference map (the cubic the element
   interpolates); returns how far outside [-1, 1]^3 the point is, in metres along the cell
   (PETSC_MAX_REAL if Newton does not converge: X is far from the cell). */
static PetscReal TdCurvedLocate(const TdMesh *mesh, PetscInt c, const PetscReal X[3], PetscReal xi[3])
{
  const PetscReal *L = &mesh->size[3 * c], *X0 = &mesh->X[3 * mesh->cells[8 * c]];
  PetscReal        e0[96], out = 0;
  TdMeshCellReference(mesh, c, e0);
  xi[0] = xi[1] = xi[2] = 0;
  for (PetscInt it = 0; it < 50; it++) {
    double r[3], dr[3][3], J[3][3], res[3], d[3], det, step = 0;
    ancf3843_interpolate(L[0], L[1], L[2], xi, e0, r, dr);
    for (PetscInt i = 0; i < 3; i++) {
      res[i] = X[i] - X0[i] - r[i];
      for (PetscInt A = 0; A < 3; A++) J[i][A] = dr[A][i] * 0.5 * L[A]; /* dr/dxi_I */
    }
    det = mat3_det((const double(*)[3])J);
    if (!(PetscAbsReal(det) > 0)) return PETSC_MAX_REAL;
    {
      double Jinv[3][3];
      mat3_inverse((const double(*)[3])J, det, Jinv);
      for (PetscInt A = 0; A < 3; A++) d[A] = Jinv[A][0] * res[0] + Jinv[A][1] * res[1] + Jinv[A][2] * res[2];
    }
    for (PetscInt A = 0; A < 3; A++) {
      d[A] = PetscMax(-1, PetscMin(1, d[A])); /* damped: the cubic may fold far outside */
      xi[A] += d[A];
      xi[A] = PetscMax(-3, PetscMin(3, xi[A]));
      step   = PetscMax(step, PetscAbsReal(d[A]));
    }
    if (step < 1e-13) break;
    if (it == 49) return PETSC_MAX_REAL;
  }
  for (PetscInt A = 0; A < 3; A++) out = PetscMax(out, (PetscAbsReal(xi[A]) - 1) * 0.5 * L[A]);
  return PetscMax(out, 0);
}

PetscErrorCode TdMeshLocatePoint(const TdMesh *mesh, const PetscReal X[3], PetscReal rel_tol, PetscInt *cell, PetscReal xi[3])
{
  PetscReal diag, tol, best = PETSC_MAX_REAL;

  PetscFunctionBegin;
  PetscCheck(mesh && X && cell && xi, PETSC_COMM_SELF, PETSC_ERR_ARG_NULL, "TdMeshLocatePoint: NULL argument");
  PetscCheck(rel_tol >= 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "TdMeshLocatePoint: relative tolerance %g must be >= 0", (double)rel_tol);
  *cell = -1;
  xi[0] = xi[1] = xi[2] = 0;
  diag = PetscSqrtReal(PetscSqr(mesh->bbox[3] - mesh->bbox[0]) + PetscSqr(mesh->bbox[4] - mesh->bbox[1]) + PetscSqr(mesh->bbox[5] - mesh->bbox[2]));
  tol  = rel_tol * diag;
  /* The cell the point is least outside of (distance in metres along the cell's axes); the first
     cell containing it exactly ends the search. */
  for (PetscInt c = 0; c < mesh->ncells && best > 0 && mesh->curved; c++) {
    PetscReal loc[3], out, lo[3], hi[3], span = 0;
    for (PetscInt i = 0; i < 3; i++) lo[i] = PETSC_MAX_REAL, hi[i] = -PETSC_MAX_REAL;
    for (PetscInt n = 0; n < 8; n++)
      for (PetscInt i = 0; i < 3; i++) {
        lo[i] = PetscMin(lo[i], mesh->X[3 * mesh->cells[8 * c + n] + i]);
        hi[i] = PetscMax(hi[i], mesh->X[3 * mesh->cells[8 * c + n] + i]);
      }
    for (PetscInt i = 0; i < 3; i++) span = PetscMax(span, hi[i] - lo[i]);
    /* a curved cell bulges past its corners' box by a fraction of its size */
    if (X[0] < lo[0] - 0.5 * span - tol || X[0] > hi[0] + 0.5 * span + tol || X[1] < lo[1] - 0.5 * span - tol || X[1] > hi[1] + 0.5 * span + tol || X[2] < lo[2] - 0.5 * span - tol || X[2] > hi[2] + 0.5 * span + tol) continue;
    out = TdCurvedLocate(mesh, c, X, loc);
    if (out <= tol && out < best) {
      best  = out;
      *cell = c;
      for (PetscInt K = 0; K < 3; K++) xi[K] = PetscMin(1, PetscMax(-1, loc[K]));
    }
  }
  for (PetscInt c = 0; c < mesh->ncells && best > 0 && !mesh->curved; c++) {
    const PetscReal *X0 = &mesh->X[3 * mesh->cells[8 * c]], *A = &mesh->axes[9 * c], *L = &mesh->size[3 * c];
    PetscReal        d[3] = {X[0] - X0[0], X[1] - X0[1], X[2] - X0[2]}, out = 0, loc[3];
    for (PetscInt K = 0; K < 3; K++) {
      const PetscReal s = vec3_dot(d, &A[3 * K]); /* in [0, L_I] inside */
      out               = PetscMax(out, PetscMax(-s, s - L[K]));
      loc[K]            = 2 * s / L[K] - 1;
    }
    out = PetscMax(out, 0);
    if (out <= tol && out < best) {
      best  = out;
      *cell = c;
      for (PetscInt K = 0; K < 3; K++) xi[K] = PetscMin(1, PetscMax(-1, loc[K]));
    }
  }
  PetscFunctionReturn(0);
}
