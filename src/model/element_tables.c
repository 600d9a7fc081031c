/*
  The element tables of the bodies' cells (Ancf3843Geometry: the Gauss weights, shape-function
  gradients and mass integrals of ancf3843_geometry_init and _init_mapped, 54 kB each), and which
  rank keeps which.

  Box cells.  A table depends only on the cell's edge lengths, so a box mesh has a few, made at
  set-up (TdBodyTablesInternal) and kept on every rank.

  Curved cells (formulation.md §1, curved cells).  Each cell has tables of its own reference map;
  congruent cells (a tube's cells of one layer, rotated copies) have the same ones to rounding,
  but the cells of a general hexahedral mesh all differ.  Kept for every cell on every rank, they
  were the largest part of the model that every rank holds: 54 kB per cell against about 1 kB of
  state per element, so an unstructured mesh of 20 000 cells would have held 1.1 GB on each rank
  whatever the number of ranks.  So:
    - at set-up every rank visits every cell once with one scratch table (its mass, the check
      that its map is not inverted) and sorts the cells into classes of equal tables (to 1e-12,
      as before), each class named by its lowest cell (cell_class).  Candidates are found by a
      signature, the tables rounded to a grid of 1e-6 of each field's scale, in an open-addressed
      hash table: the cells are visited in one order on every rank, so every rank count finds
      the same classes, shares the same tables and computes the same numbers (the pairwise
      search it replaces compared each cell with every class so far: quadratic in the cells);
    - once the partition is known (TdModelElementTablesSetUp, from the solver), each rank makes
      the tables of the classes of the elements it computes, and only those: cell_geometry is -1
      for the cells of other ranks' elements.
  Elements are the only users of the tables (forces, tangents, mass, energy: each on the rank that
  computes it); the loads' face tables and the solver's scales take the cell's edge lengths from
  the mesh (mesh.size), and a free rigid body's mass properties make their tables one cell at a
  time (TdBodyCellTableInternal).
*/
#include "model_private.h"
#include <math.h>

/* Box cells: the distinct edge lengths, one table each. */
static PetscErrorCode BodyTablesBox(TdBody *body)
{
  PetscInt ncells = body->mesh.ncells, n = 0, max = 0;
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(ncells, &body->cell_geometry));
  body->geometry = NULL;
  body->mass     = 0;
  for (PetscInt c = 0; c < ncells; c++) {
    const PetscReal *s = &body->mesh.size[3 * c];
    PetscInt         g;
    for (g = 0; g < n; g++) {
      const Ancf3843Geometry *geo = &body->geometry[g];
      if (PetscAbsReal(geo->a - s[0]) <= 1e-12 * s[0] && PetscAbsReal(geo->b - s[1]) <= 1e-12 * s[1] && PetscAbsReal(geo->c - s[2]) <= 1e-12 * s[2]) break;
    }
    if (g == n) {
      /* grown as sizes appear, not one per cell (ncells of them were 314 MB per rank at the
         finest slider-guide level) */
      if (n == max) {
        Ancf3843Geometry *more;
        max = 2 * max + 1;
        PetscCall(PetscMalloc1(max, &more));
        if (n) PetscCall(PetscArraycpy(more, body->geometry, n));
        PetscCall(PetscFree(body->geometry));
        body->geometry = more;
      }
      ancf3843_geometry_init(s[0], s[1], s[2], &body->geometry[n++]);
    }
    body->cell_geometry[c] = g;
    body->mass += body->rho * s[0] * s[1] * s[2];
  }
  body->ngeometry = n;
  PetscFunctionReturn(0);
}

/* Same tables to a relative 1e-12 (congruent curved cells, e.g. a tube's cells of one layer). */
static PetscBool SameTables(const Ancf3843Geometry *g, const Ancf3843Geometry *h)
{
  const PetscReal tol = 1e-12;
  if (PetscAbsReal(g->volume - h->volume) > tol * h->volume || PetscAbsReal(g->a - h->a) > tol * h->a || PetscAbsReal(g->b - h->b) > tol * h->b || PetscAbsReal(g->c - h->c) > tol * h->c) return PETSC_FALSE;
  for (PetscInt q = 0; q < ANCF3843_NQP; q++)
    if (PetscAbsReal(g->w[q] - h->w[q]) > tol * h->volume) return PETSC_FALSE;
  for (PetscInt q = 0; q < ANCF3843_NQP; q++)
    for (PetscInt k = 0; k < 3 * ANCF3843_NSHAPE; k++)
      if (PetscAbsReal((&g->dSdX[q][0][0])[k] - (&h->dSdX[q][0][0])[k]) > tol / PetscMin(h->a, PetscMin(h->b, h->c))) return PETSC_FALSE;
  for (PetscInt k = 0; k < ANCF3843_NSHAPE * ANCF3843_NSHAPE; k++)
    if (PetscAbsReal((&g->mass_unit[0][0])[k] - (&h->mass_unit[0][0])[k]) > tol * h->volume * h->a * h->a) return PETSC_FALSE;
  return PETSC_TRUE;
}

/* An entry rounded for the signature: to a grid of 2^-20 of its field's scale (that scale itself
   rounded down to a power of 2, so that congruent cells use the same grid).  Congruent cells'
   entries differ by rounding, about 1e-16 of the scale, so they straddle a grid line about once
   in 10^10 entries (a table has 3700); a grid relative to each entry's own magnitude would split
   them at every entry that is small by cancellation. */
static inline uint64_t Rounded(double x, double scale)
{
  return (uint64_t)(int64_t)llround(x / ldexp(1.0, ilogb(scale) - 20));
}

/* The signature: FNV-1a of the rounded tables.  Cells of equal signature are candidates; the
   tables themselves decide (SameTables). */
static uint64_t Signature(const Ancf3843Geometry *g)
{
  const double L = PetscMin(g->a, PetscMin(g->b, g->c)), V = g->a * g->b * g->c;
  uint64_t     h = 14695981039346656037ULL;
#define MIX(x, scale) h = (h ^ Rounded((x), (scale))) * 1099511628211ULL
  MIX(g->a, L);
  MIX(g->b, L);
  MIX(g->c, L);
  MIX(g->volume, V);
  for (PetscInt q = 0; q < ANCF3843_NQP; q++) MIX(g->w[q], V);
  for (PetscInt k = 0; k < ANCF3843_NQP * 3 * ANCF3843_NSHAPE; k++) MIX((&g->dSdX[0][0][0])[k], 1 / L);
  for (PetscInt k = 0; k < ANCF3843_NSHAPE * ANCF3843_NSHAPE; k++) MIX((&g->mass_unit[0][0])[k], V * L * L);
#undef MIX
  return h;
}

PetscErrorCode TdBodyCellTableInternal(TdModel model, const TdBody *body, PetscInt c, Ancf3843Geometry *geo)
{
  PetscReal e0[ANCF3843_NDOF], ratio;
  PetscFunctionBegin;
  TdMeshCellReference(&body->mesh, c, e0);
  if (ancf3843_geometry_init_mapped(body->mesh.size[3 * c], body->mesh.size[3 * c + 1], body->mesh.size[3 * c + 2], e0, geo, &ratio))
    SETERRQ(model->comm, PETSC_ERR_USER_INPUT, "Body '%s' (mesh %s): cell %" PetscInt_FMT " is inverted or degenerate inside (the Jacobian determinant of its reference map reaches %g of its box's at a Gauss point); remesh it with better-shaped hexahedra", body->name, body->mesh.source, c, (double)ratio);
  PetscFunctionReturn(0);
}

/* Curved cells: every cell's table once (its mass, its check), and the classes of equal tables:
   an open-addressed table of signatures, each candidate class checked against its lowest cell's
   tables, kept in a small round-robin cache (congruent cells come in runs: a tube's ring) and
   made again on a miss.  Every rank visits the cells in the same order, so all find the same
   classes. */
#define NCACHE 4
static PetscErrorCode BodyTablesCurved(TdModel model, TdBody *body)
{
  const PetscInt    ncells = body->mesh.ncells;
  PetscInt          cap = 16, nclass = 0, cached[NCACHE], next = 0;
  uint64_t         *key;
  PetscInt         *rep;
  Ancf3843Geometry *geo, *cache;
  PetscFunctionBegin;
  while (cap < 2 * ncells) cap *= 2;
  PetscCall(PetscMalloc1(ncells, &body->cell_class));
  PetscCall(PetscMalloc1(ncells, &body->cell_geometry));
  PetscCall(PetscMalloc4(cap, &key, cap, &rep, 1, &geo, NCACHE, &cache));
  for (PetscInt i = 0; i < cap; i++) rep[i] = -1;
  for (PetscInt i = 0; i < NCACHE; i++) cached[i] = -1;
  body->mass = 0;
  for (PetscInt c = 0; c < ncells; c++) {
    uint64_t sig;
    PetscInt slot;
    PetscCall(TdBodyCellTableInternal(model, body, c, geo));
    sig = Signature(geo);
    body->mass += body->rho * geo->volume;
    for (slot = (PetscInt)(sig & (uint64_t)(cap - 1)); rep[slot] >= 0; slot = (slot + 1) & (cap - 1)) {
      PetscInt k;
      if (key[slot] != sig) continue;
      for (k = 0; k < NCACHE && cached[k] != rep[slot]; k++) {}
      if (k == NCACHE) {
        k = next;
        next = (next + 1) % NCACHE;
        PetscCall(TdBodyCellTableInternal(model, body, rep[slot], &cache[k]));
        cached[k] = rep[slot];
      }
      if (SameTables(geo, &cache[k])) break;
    }
    if (rep[slot] < 0) { /* a new class, and its tables into the cache */
      rep[slot] = c;
      key[slot] = sig;
      nclass++;
      cache[next] = *geo;
      cached[next] = c;
      next = (next + 1) % NCACHE;
    }
    body->cell_class[c]    = rep[slot];
    body->cell_geometry[c] = -1; /* made once the ranks' elements are known */
  }
  PetscCall(PetscFree4(key, rep, geo, cache));
  body->geometry  = NULL;
  body->ngeometry = 0;
  body->nclass    = nclass;
  PetscFunctionReturn(0);
}
#undef NCACHE

PetscErrorCode TdBodyTablesInternal(TdModel model, TdBody *body)
{
  PetscFunctionBegin;
  if (body->mesh.curved) PetscCall(BodyTablesCurved(model, body));
  else PetscCall(BodyTablesBox(body));
  PetscFunctionReturn(0);
}

PetscErrorCode TdModelElementTablesSetUp(TdModel m, PetscInt nlocal, const PetscInt elem_local[])
{
  PetscFunctionBegin;
  for (PetscInt b = 0; b < m->nbodies; b++) {
    TdBody  *body = &m->bodies[b];
    PetscInt n    = 0, *index;
    if (!body->cell_class) continue;
    PetscCall(PetscFree(body->geometry));
    body->ngeometry = 0;
    /* index[r]: the table of class r on this rank (-2 wanted, -1 not) */
    PetscCall(PetscMalloc1(body->mesh.ncells, &index));
    for (PetscInt c = 0; c < body->mesh.ncells; c++) index[c] = -1;
    for (PetscInt le = 0; le < nlocal; le++)
      if (m->element_body[elem_local[le]] == b) index[body->cell_class[m->element_cell[elem_local[le]]]] = -2;
    for (PetscInt c = 0; c < body->mesh.ncells; c++)
      if (index[c] == -2) index[c] = n++;
    PetscCall(PetscMalloc1(PetscMax(n, 1), &body->geometry));
    for (PetscInt c = 0; c < body->mesh.ncells; c++)
      if (index[c] >= 0) PetscCall(TdBodyCellTableInternal(m, body, c, &body->geometry[index[c]]));
    for (PetscInt c = 0; c < body->mesh.ncells; c++) body->cell_geometry[c] = index[body->cell_class[c]];
    body->ngeometry = n;
    PetscCall(PetscFree(index));
    PetscCall(PetscInfo(NULL, "body %s: %" PetscInt_FMT " cells in %" PetscInt_FMT " classes of equal element tables; this rank's elements use %" PetscInt_FMT " of them (%.1f MB)\n", body->name, body->mesh.ncells, body->nclass, n, (double)n * sizeof(Ancf3843Geometry) / 1048576.0));
  }
  PetscFunctionReturn(0);
}
