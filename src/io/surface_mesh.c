/*
  Quadrilateral reference surfaces of films (include/tribodyn/surface_mesh.h, formulation.md §2).

  A loaded surface is the set of 4-node quadrangles of a Gmsh model (a .msh file, or a .geo
  script meshed here in 2-D): those of the 2-D physical groups if the model has any (what Gmsh
  saves to a .msh), otherwise all of them.  After reading:
  - nodes are the nodes of the quadrangles, numbered in the order of their Gmsh tags;
  - every quadrangle must be convex and non-degenerate, every edge must be shared by at most two
    quadrangles (a manifold surface);
  - the quadrangles are oriented consistently by a breadth-first search over each connected
    component (neighbours traverse their shared edge in opposite directions), keeping the
    orientation of the file for the majority of each component; a non-orientable surface (a
    Moebius strip) is an error;
  - boundary edges (one quadrangle) are ambient (Dirichlet nodes) unless they are in the 1-D
    physical group "noflux"; the 1-D groups "noflux" and "ambient" must consist of boundary
    edges.  Boundary nodes that coincide with other boundary nodes (a duplicated seam) are
    reported in a warning: the surface is cut there.

  Gmsh conventions are those of src/io/mesh_gmsh.c: Gmsh is initialised once by
  TdMeshInitializeGmsh() (General.AbortOnError = 0, errors read from Gmsh's logger by
  TdMeshGmshCheck()); the file is tested with PetscTestFile() first (gmshOpen() does not fail on
  a missing file); the mesh options a .geo may change are reset to Gmsh's defaults before each
  load, and the model is cleared before and after.  No MPI communication: every rank may load the
  surface on its own.
*/
#include <tribodyn/surface_mesh.h>
#include <tribodyn/vec3.h>
#include <tribodyn/mesh.h>
#include <gmshc.h>
#include <stdlib.h>
#include <string.h>

#define TD_SURF_DUP_TOL 1e-10 /* coincident boundary nodes: distance / bounding-box diagonal */

#define TdSurfGmshCall(comm, code, source, call) \
  do { \
    int td_gmsh_ierr_ = 0; \
    call; \
    PetscCall(TdMeshGmshCheck(comm, td_gmsh_ierr_, code, #call, source)); \
  } while (0)

/* ------------------------------------------------------------------------------------------ */
/* Small helpers                                                                               */

/* An edge of a quadrangle: nodes a < b, the quadrangle and its local edge k (from corner k to
   corner k+1). */
typedef struct {
  PetscInt a, b, quad, k;
} TdSurfEdge;

static int TdSurfCompareEdge(const void *x_, const void *y_)
{
  const TdSurfEdge *x = (const TdSurfEdge *)x_, *y = (const TdSurfEdge *)y_;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  if (x->b != y->b) return x->b < y->b ? -1 : 1;
  if (x->quad != y->quad) return x->quad < y->quad ? -1 : 1;
  return x->k < y->k ? -1 : (x->k > y->k ? 1 : 0);
}

static int TdSurfCompareEdgeNodes(const void *x_, const void *y_)
{
  const TdSurfEdge *x = (const TdSurfEdge *)x_, *y = (const TdSurfEdge *)y_;
  if (x->a != y->a) return x->a < y->a ? -1 : 1;
  return x->b < y->b ? -1 : (x->b > y->b ? 1 : 0);
}

/* Boundary conditions of a unique edge. */
enum {
  TD_SURF_EDGE_PLAIN   = 0,
  TD_SURF_EDGE_AMBIENT = 1,
  TD_SURF_EDGE_NOFLUX  = 2
};

typedef struct {
  size_t      nquads;
  size_t     *qtags;    /* Gmsh element tags of the quadrangles */
  size_t     *qnodes;   /* 4 nquads Gmsh node tags */
  size_t      maxquads;
  size_t     *nodetags; /* sorted unique node tags of the quadrangles: the node numbering */
  PetscInt    nedges;   /* 4 nquads half-edges sorted by nodes */
  TdSurfEdge *edges;
  PetscInt    nunique;  /* unique edges: first half-edge, number of quadrangles, flag */
  PetscInt   *ufirst, *ucount, *uflag;
  PetscInt   *nbr;      /* 4 nquads: quadrangle across local edge k, or -1 */
  PetscBool  *same;     /* 4 nquads: the neighbour traverses the edge in the same direction */
  PetscInt   *queue, *comp;
  PetscBool  *flip;
  PetscInt   *dup;
} TdSurfScratch;

static PetscErrorCode TdSurfScratchDestroy(TdSurfScratch *s)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(s->qtags));
  PetscCall(PetscFree(s->qnodes));
  PetscCall(PetscFree(s->nodetags));
  PetscCall(PetscFree(s->edges));
  PetscCall(PetscFree(s->ufirst));
  PetscCall(PetscFree(s->ucount));
  PetscCall(PetscFree(s->uflag));
  PetscCall(PetscFree(s->nbr));
  PetscCall(PetscFree(s->same));
  PetscCall(PetscFree(s->queue));
  PetscCall(PetscFree(s->comp));
  PetscCall(PetscFree(s->flip));
  PetscCall(PetscFree(s->dup));
  PetscCall(PetscMemzero(s, sizeof(*s)));
  PetscFunctionReturn(0);
}

/* Free the arrays returned by gmshModelMeshGetElements(). */
/* Description of a 2-D element type that is not a 4-node quadrangle. */
static void TdSurfTypeName(int type, char name[], size_t len)
{
  switch (type) {
  case 2: snprintf(name, len, "triangles"); break;
  case 9: snprintf(name, len, "6-node (second-order) triangles"); break;
  case 21: snprintf(name, len, "10-node (third-order) triangles"); break;
  case 10: snprintf(name, len, "9-node (second-order) quadrangles"); break;
  case 16: snprintf(name, len, "8-node (second-order) quadrangles"); break;
  case 36: snprintf(name, len, "16-node (third-order) quadrangles"); break;
  default: {
    char   *gname = NULL;
    int     dim, order, nnodes, nprimary, ierr = 0;
    double *lc  = NULL;
    size_t  nlc = 0;
    gmshModelMeshGetElementProperties(type, &gname, &dim, &order, &nnodes, &lc, &nlc, &nprimary, &ierr);
    snprintf(name, len, "elements of Gmsh type %d (%s)", type, (!ierr && gname) ? gname : "?");
    gmshFree(gname);
    gmshFree(lc);
  }
  }
}

/* ------------------------------------------------------------------------------------------ */
/* Reading the Gmsh model                                                                      */

/* The 2-D entities that make the surface: those of the 2-D physical groups, or all of them. */
static PetscErrorCode TdSurfEntities(MPI_Comm comm, const char source[], int **ents_out, size_t *nents_out, PetscBool *physical)
{
  int   *groups = NULL, *ents = NULL;
  size_t ngroups = 0, nents = 0;

  PetscFunctionBegin;
  *ents_out  = NULL;
  *nents_out = 0;
  TdSurfGmshCall(comm, PETSC_ERR_LIB, source, gmshModelGetPhysicalGroups(&groups, &ngroups, 2, &td_gmsh_ierr_));
  *physical = ngroups ? PETSC_TRUE : PETSC_FALSE;
  if (ngroups) {
    size_t n = 0, max = 0;
    int   *list = NULL;
    for (size_t gi = 0; gi < ngroups / 2; gi++) {
      int    *ge  = NULL;
      size_t  nge = 0;
      int     ierr = 0;
      gmshModelGetEntitiesForPhysicalGroup(2, groups[2 * gi + 1], &ge, &nge, &ierr);
      if (!ierr && n + nge > max) {
        int *nl;
        max = PetscMax(2 * max, n + nge);
        if (PetscMalloc1(max, &nl)) {
          gmshFree(ge);
          ierr = 1;
        } else {
          if (n) memcpy(nl, list, n * sizeof(int));
          (void)PetscFree(list);
          list = nl;
        }
      }
      if (!ierr) {
        for (size_t i = 0; i < nge; i++) list[n++] = ge[i];
        gmshFree(ge);
      }
      if (ierr) {
        gmshFree(groups);
        (void)PetscFree(list);
      }
      PetscCall(TdMeshGmshCheck(comm, ierr, PETSC_ERR_LIB, "gmshModelGetEntitiesForPhysicalGroup", source));
    }
    gmshFree(groups);
    /* unique entity tags */
    if (n) {
      PetscInt nn = (PetscInt)n, *tmp;
      PetscCall(PetscMalloc1(nn, &tmp));
      for (PetscInt i = 0; i < nn; i++) tmp[i] = list[i];
      PetscCall(PetscSortRemoveDupsInt(&nn, tmp));
      for (PetscInt i = 0; i < nn; i++) list[i] = (int)tmp[i];
      PetscCall(PetscFree(tmp));
      n = (size_t)nn;
    }
    *ents_out  = list;
    *nents_out = n;
  } else {
    gmshFree(groups);
    TdSurfGmshCall(comm, PETSC_ERR_LIB, source, gmshModelGetEntities(&ents, &nents, 2, &td_gmsh_ierr_));
    if (nents) {
      PetscErrorCode ierr = PetscMalloc1(nents / 2, ents_out);
      if (!ierr)
        for (size_t i = 0; i < nents / 2; i++) (*ents_out)[i] = ents[2 * i + 1];
      gmshFree(ents);
      PetscCall(ierr);
      *nents_out = nents / 2;
    } else gmshFree(ents);
  }
  PetscFunctionReturn(0);
}

/* The 4-node quadrangles of the surface's entities; any other 2-D element is an error. */
static PetscErrorCode TdSurfReadQuads(MPI_Comm comm, const char source[], TdSurfScratch *s)
{
  int      *ents = NULL;
  size_t    nents = 0, nother[64] = {0}, nothertot = 0;
  int       othertype[64];
  PetscInt  ntypes_other = 0;
  PetscBool physical = PETSC_FALSE;

  PetscFunctionBegin;
  PetscCall(TdSurfEntities(comm, source, &ents, &nents, &physical));
  for (size_t ei = 0; ei < nents; ei++) {
    int           *types = NULL;
    size_t         ntypes = 0, **etags = NULL, *etags_n = NULL, etags_nn = 0, **ntags = NULL, *ntags_n = NULL, ntags_nn = 0;
    int            ierr = 0;
    PetscErrorCode perr = 0;

    gmshModelMeshGetElements(&types, &ntypes, &etags, &etags_n, &etags_nn, &ntags, &ntags_n, &ntags_nn, 2, ents[ei], &ierr);
    for (size_t t = 0; t < ntypes && !ierr && !perr; t++) {
      if (types[t] == 3) {
        const size_t nq = etags_n[t];
        if (s->nquads + nq > s->maxquads) {
          size_t *qt, *qn;
          s->maxquads = PetscMax(2 * s->maxquads, s->nquads + nq);
          perr        = PetscMalloc1(s->maxquads, &qt);
          if (!perr) perr = PetscMalloc1(4 * s->maxquads, &qn);
          if (perr) break;
          if (s->nquads) {
            memcpy(qt, s->qtags, s->nquads * sizeof(size_t));
            memcpy(qn, s->qnodes, 4 * s->nquads * sizeof(size_t));
          }
          (void)PetscFree(s->qtags);
          (void)PetscFree(s->qnodes);
          s->qtags  = qt;
          s->qnodes = qn;
        }
        memcpy(s->qtags + s->nquads, etags[t], nq * sizeof(size_t));
        memcpy(s->qnodes + 4 * s->nquads, ntags[t], 4 * nq * sizeof(size_t));
        s->nquads += nq;
      } else {
        PetscInt k;
        for (k = 0; k < ntypes_other; k++)
          if (othertype[k] == types[t]) break;
        if (k == ntypes_other && k < 64) {
          othertype[k] = types[t];
          ntypes_other++;
        }
        if (k < 64) nother[k] += etags_n[t];
        nothertot += etags_n[t];
      }
    }
    TdMeshGmshFreeElements(types, etags, etags_n, etags_nn, ntags, ntags_n, ntags_nn);
    if (ierr || perr) (void)PetscFree(ents);
    PetscCall(TdMeshGmshCheck(comm, ierr, PETSC_ERR_LIB, "gmshModelMeshGetElements", source));
    PetscCall(perr);
  }
  PetscCall(PetscFree(ents));
  if (nothertot) {
    char list[512] = "", buf[128];
    for (PetscInt k = 0; k < ntypes_other; k++) {
      char name[80];
      TdSurfTypeName(othertype[k], name, sizeof(name));
      snprintf(buf, sizeof(buf), "%s%zu %s", k ? ", " : "", nother[k], name);
      if (strlen(list) + strlen(buf) + 1 < sizeof(list)) strcat(list, buf);
    }
    SETERRQ(comm, PETSC_ERR_USER_INPUT, "film surface %s: the mesh has %s (and %zu 4-node quadrangles); the film surface must be made of quadrangles (use Recombine in the .geo: Recombine Surface, or Mesh.RecombineAll = 1, and first-order elements, Mesh.ElementOrder = 1)", source, list, s->nquads);
  }
  PetscCheck(s->nquads > 0, comm, PETSC_ERR_USER_INPUT, "film surface %s: contains no quadrangles%s; the film surface must be a mesh of 4-node quadrangles (Transfinite and Recombine in the .geo; a .msh saved by Gmsh holds only the elements of the physical groups when there are any: put the surface in a Physical Surface or set Mesh.SaveAll = 1)", source, physical ? " in its 2-D physical groups" : " (no 2-D elements)");
  PetscCheck(s->nquads < (size_t)PETSC_MAX_INT / 8, comm, PETSC_ERR_SUP, "film surface %s: too many quadrangles (%zu) for 32-bit PetscInt", source, s->nquads);
  PetscFunctionReturn(0);
}

/* Nodes (numbered in the order of their Gmsh tags), their coordinates and the quadrangles. */
static PetscErrorCode TdSurfBuildNodes(MPI_Comm comm, const char source[], TdSurfScratch *s, TdSurfaceMesh *mesh)
{
  size_t *tags = NULL, ntags = 0, ncoord = 0, nu = 0;
  double *coord = NULL, *param = NULL;
  size_t  nparam = 0;
  PetscInt nfound = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(4 * s->nquads, &s->nodetags));
  memcpy(s->nodetags, s->qnodes, 4 * s->nquads * sizeof(size_t));
  qsort(s->nodetags, 4 * s->nquads, sizeof(size_t), TdMeshGmshCompareTags);
  for (size_t i = 0; i < 4 * s->nquads; i++)
    if (i == 0 || s->nodetags[i] != s->nodetags[nu - 1]) s->nodetags[nu++] = s->nodetags[i];
  mesh->nnodes = (PetscInt)nu;
  mesh->nquads = (PetscInt)s->nquads;
  PetscCall(PetscMalloc1(3 * nu, &mesh->X));
  for (size_t i = 0; i < 3 * nu; i++) mesh->X[i] = PETSC_MAX_REAL;
  PetscCall(PetscMalloc1(4 * s->nquads, &mesh->quads));
  for (size_t i = 0; i < 4 * s->nquads; i++) mesh->quads[i] = TdMeshGmshFindTag(nu, s->nodetags, s->qnodes[i]);
  PetscCall(PetscCalloc1(nu, &mesh->dirichlet));
  PetscCall(PetscCalloc1(nu, &mesh->boundary));

  TdSurfGmshCall(comm, PETSC_ERR_LIB, source, gmshModelMeshGetNodes(&tags, &ntags, &coord, &ncoord, &param, &nparam, -1, -1, 0, 0, &td_gmsh_ierr_));
  for (size_t i = 0; i < ntags; i++) {
    PetscInt k = TdMeshGmshFindTag(nu, s->nodetags, tags[i]);
    if (k < 0) continue;
    if (mesh->X[3 * k] == PETSC_MAX_REAL) nfound++;
    for (PetscInt j = 0; j < 3; j++) mesh->X[3 * k + j] = coord[3 * i + j];
  }
  gmshFree(tags);
  gmshFree(coord);
  gmshFree(param);
  PetscCheck(nfound == mesh->nnodes, comm, PETSC_ERR_USER_INPUT, "film surface %s: %" PetscInt_FMT " nodes of the quadrangles have no coordinates in the file", source, mesh->nnodes - nfound);
  for (PetscInt k = 0; k < 3 * mesh->nnodes; k++) PetscCheck(!PetscIsInfOrNanReal(mesh->X[k]), comm, PETSC_ERR_USER_INPUT, "film surface %s: node %zu has a coordinate that is not a finite number", source, s->nodetags[k / 3]);
  PetscFunctionReturn(0);
}

/* Every quadrangle convex with distinct corners: the normal at each corner (cross product of
   its two edges) points along the quadrangle's normal (cross product of the diagonals). */
static PetscErrorCode TdSurfCheckQuads(MPI_Comm comm, const char source[], const TdSurfScratch *s, const TdSurfaceMesh *mesh)
{
  PetscFunctionBegin;
  for (PetscInt q = 0; q < mesh->nquads; q++) {
    const PetscInt *n = &mesh->quads[4 * q];
    PetscReal       d1[3], d2[3], nq[3];
    for (PetscInt i = 0; i < 3; i++) {
      d1[i] = mesh->X[3 * n[2] + i] - mesh->X[3 * n[0] + i];
      d2[i] = mesh->X[3 * n[3] + i] - mesh->X[3 * n[1] + i];
    }
    vec3_cross(d1, d2, nq);
    for (PetscInt k = 0; k < 4; k++) {
      const PetscReal *x = &mesh->X[3 * n[k]], *xn = &mesh->X[3 * n[(k + 1) % 4]], *xp = &mesh->X[3 * n[(k + 3) % 4]];
      PetscReal        a[3], b[3], c[3];
      for (PetscInt i = 0; i < 3; i++) {
        a[i] = xn[i] - x[i];
        b[i] = xp[i] - x[i];
      }
      vec3_cross(a, b, c);
      PetscCheck(vec3_dot(c, nq) > 0, comm, PETSC_ERR_USER_INPUT, "film surface %s: quadrangle %zu (Gmsh element tag) is degenerate or not convex at its corner %" PetscInt_FMT " (node %zu at (%g, %g, %g)); the film needs convex quadrangles with four distinct corners", source, s->qtags[q], k, s->nodetags[n[k]], (double)x[0], (double)x[1], (double)x[2]);
    }
  }
  PetscFunctionReturn(0);
}

/* Half-edge table, unique edges, neighbours; non-manifold edges are errors. */
static PetscErrorCode TdSurfBuildEdges(MPI_Comm comm, const char source[], TdSurfScratch *s, const TdSurfaceMesh *mesh)
{
  const PetscInt nq = mesh->nquads;

  PetscFunctionBegin;
  s->nedges = 4 * nq;
  PetscCall(PetscMalloc1(s->nedges, &s->edges));
  for (PetscInt q = 0; q < nq; q++)
    for (PetscInt k = 0; k < 4; k++) {
      TdSurfEdge    *e = &s->edges[4 * q + k];
      const PetscInt u = mesh->quads[4 * q + k], v = mesh->quads[4 * q + (k + 1) % 4];
      e->a             = PetscMin(u, v);
      e->b             = PetscMax(u, v);
      e->quad          = q;
      e->k             = k;
    }
  qsort(s->edges, s->nedges, sizeof(TdSurfEdge), TdSurfCompareEdge);
  PetscCall(PetscMalloc1(s->nedges, &s->ufirst));
  PetscCall(PetscMalloc1(s->nedges, &s->ucount));
  PetscCall(PetscCalloc1(s->nedges, &s->uflag));
  PetscCall(PetscMalloc1(4 * nq, &s->nbr));
  PetscCall(PetscCalloc1(4 * nq, &s->same));
  for (PetscInt i = 0; i < 4 * nq; i++) s->nbr[i] = -1;
  s->nunique = 0;
  for (PetscInt i = 0; i < s->nedges;) {
    PetscInt j = i + 1;
    while (j < s->nedges && !TdSurfCompareEdgeNodes(&s->edges[i], &s->edges[j])) j++;
    if (j - i > 2) {
      const PetscReal *xa = &mesh->X[3 * s->edges[i].a], *xb = &mesh->X[3 * s->edges[i].b];
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "film surface %s: the edge between nodes %zu (%g, %g, %g) and %zu (%g, %g, %g) is shared by %" PetscInt_FMT " quadrangles; a film surface must be a manifold (every edge in one or two quadrangles)", source, s->nodetags[s->edges[i].a], (double)xa[0], (double)xa[1], (double)xa[2], s->nodetags[s->edges[i].b], (double)xb[0], (double)xb[1], (double)xb[2], j - i);
    }
    if (j - i == 2) {
      const TdSurfEdge *e = &s->edges[i], *f = &s->edges[i + 1];
      /* direction of traversal: does the quadrangle go from a to b? */
      const PetscBool de = mesh->quads[4 * e->quad + e->k] == e->a ? PETSC_TRUE : PETSC_FALSE;
      const PetscBool df = mesh->quads[4 * f->quad + f->k] == f->a ? PETSC_TRUE : PETSC_FALSE;
      PetscCheck(e->quad != f->quad, comm, PETSC_ERR_USER_INPUT, "film surface %s: quadrangle %zu uses the edge between nodes %zu and %zu twice", source, s->qtags[e->quad], s->nodetags[e->a], s->nodetags[e->b]);
      s->nbr[4 * e->quad + e->k]  = f->quad;
      s->nbr[4 * f->quad + f->k]  = e->quad;
      s->same[4 * e->quad + e->k] = de == df ? PETSC_TRUE : PETSC_FALSE;
      s->same[4 * f->quad + f->k] = de == df ? PETSC_TRUE : PETSC_FALSE;
    }
    s->ufirst[s->nunique] = i;
    s->ucount[s->nunique] = j - i;
    s->nunique++;
    i = j;
  }
  PetscFunctionReturn(0);
}

/* Consistent orientation by breadth-first search over each connected component. */
static PetscErrorCode TdSurfOrient(MPI_Comm comm, const char source[], TdSurfScratch *s, TdSurfaceMesh *mesh)
{
  const PetscInt nq = mesh->nquads;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(nq, &s->queue));
  PetscCall(PetscMalloc1(nq, &s->comp));
  PetscCall(PetscCalloc1(nq, &s->flip));
  for (PetscInt q = 0; q < nq; q++) s->comp[q] = -1;
  for (PetscInt seed = 0, ncomp = 0; seed < nq; seed++) {
    PetscInt head = 0, tail = 0, nflip = 0;
    if (s->comp[seed] >= 0) continue;
    s->comp[seed]    = ncomp;
    s->flip[seed]    = PETSC_FALSE;
    s->queue[tail++] = seed;
    while (head < tail) {
      const PetscInt q = s->queue[head++];
      for (PetscInt k = 0; k < 4; k++) {
        const PetscInt r = s->nbr[4 * q + k];
        PetscBool      want;
        if (r < 0) continue;
        want = s->same[4 * q + k] ? (PetscBool)!s->flip[q] : s->flip[q];
        if (s->comp[r] < 0) {
          s->comp[r]       = ncomp;
          s->flip[r]       = want;
          s->queue[tail++] = r;
        } else if (s->flip[r] != want) {
          const PetscInt   a = mesh->quads[4 * q + k], b = mesh->quads[4 * q + (k + 1) % 4];
          const PetscReal *xa = &mesh->X[3 * a];
          SETERRQ(comm, PETSC_ERR_USER_INPUT, "film surface %s: the surface is not orientable (a Moebius strip?): quadrangles %zu and %zu cannot be oriented consistently across the edge between nodes %zu (%g, %g, %g) and %zu; a film surface needs a continuous normal", source, s->qtags[q], s->qtags[r], s->nodetags[a], (double)xa[0], (double)xa[1], (double)xa[2], s->nodetags[b]);
        }
      }
    }
    /* keep the file's orientation for the majority of the component */
    for (PetscInt i = 0; i < tail; i++) nflip += s->flip[s->queue[i]] ? 1 : 0;
    if (2 * nflip > tail)
      for (PetscInt i = 0; i < tail; i++) s->flip[s->queue[i]] = (PetscBool)!s->flip[s->queue[i]];
    ncomp++;
  }
  for (PetscInt q = 0; q < nq; q++)
    if (s->flip[q]) { /* reverse the corner order, keeping corner 0 */
      PetscInt t           = mesh->quads[4 * q + 1];
      mesh->quads[4 * q + 1] = mesh->quads[4 * q + 3];
      mesh->quads[4 * q + 3] = t;
    }
  PetscFunctionReturn(0);
}

/* Boundary conditions from the 1-D physical groups "noflux" and "ambient". */
static PetscErrorCode TdSurfReadGroups(MPI_Comm comm, const char source[], TdSurfScratch *s, TdSurfaceMesh *mesh)
{
  int   *groups = NULL;
  size_t ngroups = 0;

  PetscFunctionBegin;
  TdSurfGmshCall(comm, PETSC_ERR_LIB, source, gmshModelGetPhysicalGroups(&groups, &ngroups, 1, &td_gmsh_ierr_));
  for (size_t gi = 0; gi < ngroups / 2; gi++) {
    const int gtag = groups[2 * gi + 1];
    char     *gname = NULL, name[256];
    int      *ents = NULL, ierr = 0;
    size_t    nents = 0;
    PetscInt  flag;

    gmshModelGetPhysicalName(1, gtag, &gname, &ierr);
    if (!ierr && gname && gname[0]) snprintf(name, sizeof(name), "%s", gname);
    else snprintf(name, sizeof(name), "group%d", gtag);
    gmshFree(gname);
    if (ierr) gmshFree(groups);
    PetscCall(TdMeshGmshCheck(comm, ierr, PETSC_ERR_LIB, "gmshModelGetPhysicalName", source));
    if (!strcmp(name, "noflux")) flag = TD_SURF_EDGE_NOFLUX;
    else if (!strcmp(name, "ambient")) flag = TD_SURF_EDGE_AMBIENT;
    else {
      PetscCall(PetscPrintf(comm, "tribodyn: warning: film surface %s: ignoring the 1-D physical group \"%s\" (film surfaces use the groups \"noflux\" and \"ambient\")\n", source, name));
      continue;
    }
    gmshModelGetEntitiesForPhysicalGroup(1, gtag, &ents, &nents, &ierr);
    if (ierr) gmshFree(groups);
    PetscCall(TdMeshGmshCheck(comm, ierr, PETSC_ERR_LIB, "gmshModelGetEntitiesForPhysicalGroup", source));
    for (size_t ei = 0; ei < nents; ei++) {
      int     *types = NULL;
      size_t   ntypes = 0, **etags = NULL, *etags_n = NULL, etags_nn = 0, **ntags = NULL, *ntags_n = NULL, ntags_nn = 0;
      PetscInt bad = 0; /* 1: not a 2-node line, 2: not an edge of the quadrangles, 3: not a boundary edge, 4: in both groups */
      size_t   badtag = 0, badn[2] = {0, 0};
      int      badtype = 0;

      gmshModelMeshGetElements(&types, &ntypes, &etags, &etags_n, &etags_nn, &ntags, &ntags_n, &ntags_nn, 1, ents[ei], &ierr);
      for (size_t t = 0; t < ntypes && !ierr && !bad; t++) {
        if (types[t] != 1) {
          bad     = 1;
          badtype = types[t];
          badtag  = etags_n[t] ? etags[t][0] : 0;
          break;
        }
        for (size_t l = 0; l < etags_n[t] && !bad; l++) {
          TdSurfEdge key, *hit = NULL;
          PetscInt   u = TdMeshGmshFindTag((size_t)mesh->nnodes, s->nodetags, ntags[t][2 * l]);
          PetscInt   v = TdMeshGmshFindTag((size_t)mesh->nnodes, s->nodetags, ntags[t][2 * l + 1]);
          key.a        = PetscMin(u, v);
          key.b        = PetscMax(u, v);
          if (u >= 0 && v >= 0) hit = (TdSurfEdge *)bsearch(&key, s->edges, s->nedges, sizeof(TdSurfEdge), TdSurfCompareEdgeNodes);
          if (!hit) bad = 2;
          else {
            PetscInt lo = 0, hi = s->nunique - 1, e = (PetscInt)(hit - s->edges), ue; /* unique edge containing half-edge e */
            while (lo < hi) {
              PetscInt mid = (lo + hi + 1) / 2;
              if (s->ufirst[mid] <= e) lo = mid;
              else hi = mid - 1;
            }
            ue = lo;
            if (s->ucount[ue] != 1 && flag != TD_SURF_EDGE_AMBIENT) bad = 3; /* an ambient line may run inside: a supply groove */
            else if (s->uflag[ue] && s->uflag[ue] != flag) bad = 4;
            else s->uflag[ue] = flag;
          }
          if (bad) {
            badtag  = etags[t][l];
            badn[0] = ntags[t][2 * l];
            badn[1] = ntags[t][2 * l + 1];
          }
        }
      }
      TdMeshGmshFreeElements(types, etags, etags_n, etags_nn, ntags, ntags_n, ntags_nn);
      if (ierr || bad) {
        gmshFree(ents);
        gmshFree(groups);
      }
      PetscCall(TdMeshGmshCheck(comm, ierr, PETSC_ERR_LIB, "gmshModelMeshGetElements", source));
      PetscCheck(bad != 1, comm, PETSC_ERR_USER_INPUT, "film surface %s: physical group \"%s\" contains element %zu of Gmsh type %d, not a 2-node line; the groups \"noflux\" and \"ambient\" must be first-order lines on the boundary of the surface", source, name, badtag, badtype);
      PetscCheck(bad != 2, comm, PETSC_ERR_USER_INPUT, "film surface %s: physical group \"%s\": line %zu (nodes %zu, %zu) is not an edge of the quadrangles; the groups \"noflux\" and \"ambient\" must consist of boundary edges of the surface", source, name, badtag, badn[0], badn[1]);
      PetscCheck(bad != 3, comm, PETSC_ERR_USER_INPUT, "film surface %s: physical group \"%s\": line %zu (nodes %zu, %zu) is an interior edge of the surface (shared by two quadrangles), not a boundary edge; the group \"noflux\" must consist of boundary edges of the surface (only \"ambient\" may also run inside it, as a supply groove)", source, name, badtag, badn[0], badn[1]);
      PetscCheck(bad != 4, comm, PETSC_ERR_USER_INPUT, "film surface %s: physical group \"%s\": line %zu (nodes %zu, %zu) is in both \"noflux\" and \"ambient\"; an edge is either zero-flux or ambient", source, name, badtag, badn[0], badn[1]);
    }
    gmshFree(ents);
  }
  gmshFree(groups);
  PetscFunctionReturn(0);
}

/* Node flags from the boundary edges: every boundary edge's nodes are boundary nodes, and
   Dirichlet nodes unless the edge is zero-flux; the nodes of an interior "ambient" line (a
   supply groove) are Dirichlet nodes too. */
static PetscErrorCode TdSurfSetFlags(TdSurfScratch *s, TdSurfaceMesh *mesh)
{
  PetscFunctionBegin;
  for (PetscInt u = 0; u < s->nunique; u++) {
    const TdSurfEdge *e = &s->edges[s->ufirst[u]];
    if (s->ucount[u] != 1) {
      if (s->uflag[u] == TD_SURF_EDGE_AMBIENT) mesh->dirichlet[e->a] = mesh->dirichlet[e->b] = PETSC_TRUE;
      continue;
    }
    mesh->boundary[e->a] = mesh->boundary[e->b] = PETSC_TRUE;
    if (s->uflag[u] != TD_SURF_EDGE_NOFLUX) mesh->dirichlet[e->a] = mesh->dirichlet[e->b] = PETSC_TRUE;
  }
  PetscFunctionReturn(0);
}

static const PetscReal *td_surf_sort_X; /* coordinates for TdSurfCompareNodeX (qsort has no context) */

static int TdSurfCompareNodeX(const void *a, const void *b)
{
  const PetscReal x = td_surf_sort_X[3 * *(const PetscInt *)a], y = td_surf_sort_X[3 * *(const PetscInt *)b];
  if (x != y) return x < y ? -1 : 1;
  return *(const PetscInt *)a < *(const PetscInt *)b ? -1 : (*(const PetscInt *)a > *(const PetscInt *)b ? 1 : 0);
}

/* Warn about boundary nodes that coincide with other boundary nodes: the surface is cut there
   (a seam whose nodes were duplicated), and the cut is an ambient boundary. */
static PetscErrorCode TdSurfCheckCoincident(MPI_Comm comm, const char source[], TdSurfScratch *s, const TdSurfaceMesh *mesh)
{
  PetscReal lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL}, tol;
  PetscInt  nb = 0, ndup = 0, first = -1;

  PetscFunctionBegin;
  for (PetscInt k = 0; k < mesh->nnodes; k++)
    for (PetscInt i = 0; i < 3; i++) {
      lo[i] = PetscMin(lo[i], mesh->X[3 * k + i]);
      hi[i] = PetscMax(hi[i], mesh->X[3 * k + i]);
    }
  tol = TD_SURF_DUP_TOL * PetscSqrtReal(PetscSqr(hi[0] - lo[0]) + PetscSqr(hi[1] - lo[1]) + PetscSqr(hi[2] - lo[2]));
  PetscCall(PetscMalloc1(mesh->nnodes, &s->dup));
  for (PetscInt k = 0; k < mesh->nnodes; k++)
    if (mesh->boundary[k]) s->dup[nb++] = k;
  td_surf_sort_X = mesh->X;
  qsort(s->dup, nb, sizeof(PetscInt), TdSurfCompareNodeX);
  td_surf_sort_X = NULL;
  for (PetscInt i = 0; i < nb; i++) {
    const PetscReal *x = &mesh->X[3 * s->dup[i]];
    for (PetscInt j = i + 1; j < nb && mesh->X[3 * s->dup[j]] - x[0] <= tol; j++) {
      const PetscReal *y = &mesh->X[3 * s->dup[j]];
      if (PetscAbsReal(y[1] - x[1]) <= tol && PetscAbsReal(y[2] - x[2]) <= tol) {
        if (first < 0) first = s->dup[i];
        ndup++;
        break;
      }
    }
  }
  if (ndup) {
    const PetscReal *x = &mesh->X[3 * first];
    PetscCall(PetscPrintf(comm, "tribodyn: warning: film surface %s: %" PetscInt_FMT " boundary nodes coincide with other boundary nodes (the first, node %zu, at (%g, %g, %g)): the surface is cut there, and the cut is a boundary (ambient unless in \"noflux\"); if the surface should be closed (a seam), make its nodes shared (Coherence Mesh; or extrude the curves in one command)\n", source, ndup, s->nodetags[first], (double)x[0], (double)x[1], (double)x[2]));
  }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Public functions                                                                            */

PetscErrorCode TdSurfaceMeshCreateRectangle(const PetscReal origin[3], const PetscReal e1[3], const PetscReal e2[3], PetscInt nx, PetscInt ny, const PetscBool noflux[4], TdSurfaceMesh *mesh)
{
  const MPI_Comm comm = PETSC_COMM_SELF;
  PetscReal      n1, n2, c[3], nc;
  PetscBool      nf[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};

  PetscFunctionBegin;
  PetscCheck(origin && e1 && e2 && mesh, comm, PETSC_ERR_ARG_NULL, "TdSurfaceMeshCreateRectangle: NULL argument");
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  if (noflux)
    for (PetscInt e = 0; e < 4; e++) nf[e] = noflux[e];
  PetscCheck(nx >= 1 && ny >= 1, comm, PETSC_ERR_USER_INPUT, "film rectangle: %" PetscInt_FMT " x %" PetscInt_FMT " cells; give at least 1 cell in each direction", nx, ny);
  PetscCheck((double)(nx + 1) * (double)(ny + 1) * 4 < (double)PETSC_MAX_INT, comm, PETSC_ERR_USER_INPUT, "film rectangle: %" PetscInt_FMT " x %" PetscInt_FMT " cells are too many for 32-bit PetscInt", nx, ny);
  for (PetscInt i = 0; i < 3; i++) {
    PetscCheck(!PetscIsInfOrNanReal(origin[i]), comm, PETSC_ERR_USER_INPUT, "film rectangle: the origin (%g, %g, %g) is not finite", (double)origin[0], (double)origin[1], (double)origin[2]);
    PetscCheck(!PetscIsInfOrNanReal(e1[i]), comm, PETSC_ERR_USER_INPUT, "film rectangle: the first side e1 = (%g, %g, %g) is not finite", (double)e1[0], (double)e1[1], (double)e1[2]);
    PetscCheck(!PetscIsInfOrNanReal(e2[i]), comm, PETSC_ERR_USER_INPUT, "film rectangle: the second side e2 = (%g, %g, %g) is not finite", (double)e2[0], (double)e2[1], (double)e2[2]);
  }
  n1 = PetscSqrtReal(vec3_dot(e1, e1));
  n2 = PetscSqrtReal(vec3_dot(e2, e2));
  vec3_cross(e1, e2, c);
  nc = PetscSqrtReal(vec3_dot(c, c));
  PetscCheck(n1 > 0, comm, PETSC_ERR_USER_INPUT, "film rectangle: the first side e1 is the zero vector");
  PetscCheck(n2 > 0, comm, PETSC_ERR_USER_INPUT, "film rectangle: the second side e2 is the zero vector");
  PetscCheck(nc > 1e-12 * n1 * n2, comm, PETSC_ERR_USER_INPUT, "film rectangle: the sides e1 = (%g, %g, %g) and e2 = (%g, %g, %g) are parallel (degenerate parallelogram)", (double)e1[0], (double)e1[1], (double)e1[2], (double)e2[0], (double)e2[1], (double)e2[2]);

  PetscCall(PetscStrncpy(mesh->source, "rectangle", sizeof(mesh->source)));
  mesh->nnodes = (nx + 1) * (ny + 1);
  mesh->nquads = nx * ny;
  PetscCall(PetscMalloc1(3 * mesh->nnodes, &mesh->X));
  PetscCall(PetscMalloc1(4 * mesh->nquads, &mesh->quads));
  PetscCall(PetscCalloc1(mesh->nnodes, &mesh->dirichlet));
  PetscCall(PetscCalloc1(mesh->nnodes, &mesh->boundary));
  for (PetscInt j = 0; j <= ny; j++)
    for (PetscInt i = 0; i <= nx; i++) {
      const PetscInt  k = i + (nx + 1) * j;
      const PetscReal s = (PetscReal)i / (PetscReal)nx, t = (PetscReal)j / (PetscReal)ny;
      const PetscBool on[4] = {i == 0 ? PETSC_TRUE : PETSC_FALSE, i == nx ? PETSC_TRUE : PETSC_FALSE, j == 0 ? PETSC_TRUE : PETSC_FALSE, j == ny ? PETSC_TRUE : PETSC_FALSE};
      for (PetscInt d = 0; d < 3; d++) mesh->X[3 * k + d] = origin[d] + s * e1[d] + t * e2[d];
      for (PetscInt e = 0; e < 4; e++) {
        if (!on[e]) continue;
        mesh->boundary[k] = PETSC_TRUE;
        if (!nf[e]) mesh->dirichlet[k] = PETSC_TRUE;
      }
    }
  for (PetscInt j = 0; j < ny; j++)
    for (PetscInt i = 0; i < nx; i++) {
      PetscInt *q = &mesh->quads[4 * (i + nx * j)];
      q[0]        = i + (nx + 1) * j;
      q[1]        = i + 1 + (nx + 1) * j;
      q[2]        = i + 1 + (nx + 1) * (j + 1);
      q[3]        = i + (nx + 1) * (j + 1);
    }
  PetscFunctionReturn(0);
}

static PetscErrorCode TdSurfaceMeshLoad_Private(MPI_Comm comm, const char path[], TdSurfaceMesh *mesh, TdSurfScratch *s)
{
  PetscFunctionBegin;
  PetscCall(TdMeshGmshOpen(comm, path, "film surface", "-<film>_surface", 2));
  PetscCall(TdSurfReadQuads(comm, path, s));
  PetscCall(TdSurfBuildNodes(comm, path, s, mesh));
  PetscCall(TdSurfCheckQuads(comm, path, s, mesh));
  PetscCall(TdSurfBuildEdges(comm, path, s, mesh));
  PetscCall(TdSurfOrient(comm, path, s, mesh));
  PetscCall(TdSurfReadGroups(comm, path, s, mesh));
  PetscCall(TdSurfSetFlags(s, mesh));
  PetscCall(TdSurfCheckCoincident(comm, path, s, mesh));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSurfaceMeshLoad(MPI_Comm comm, const char path[], TdSurfaceMesh *mesh)
{
  TdSurfScratch  s;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCheck(path && mesh, comm, PETSC_ERR_ARG_NULL, "TdSurfaceMeshLoad: NULL argument");
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  PetscCall(PetscMemzero(&s, sizeof(s)));
  PetscCall(PetscStrncpy(mesh->source, path, sizeof(mesh->source)));
  ierr = TdSurfaceMeshLoad_Private(comm, path, mesh, &s);
  TdMeshGmshClose();
  if (ierr) {
    (void)TdSurfScratchDestroy(&s);
    (void)TdSurfaceMeshDestroy(mesh);
  }
  PetscCall(ierr);
  PetscCall(TdSurfScratchDestroy(&s));
  PetscFunctionReturn(0);
}

PetscErrorCode TdSurfaceMeshDestroy(TdSurfaceMesh *mesh)
{
  PetscFunctionBegin;
  if (!mesh) PetscFunctionReturn(0);
  PetscCall(PetscFree(mesh->X));
  PetscCall(PetscFree(mesh->quads));
  PetscCall(PetscFree(mesh->dirichlet));
  PetscCall(PetscFree(mesh->boundary));
  PetscCall(PetscMemzero(mesh, sizeof(*mesh)));
  PetscFunctionReturn(0);
}
