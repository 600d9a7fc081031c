/*
  The partition of the model over the ranks (model.h, TdModelPartition): which rank computes
  each element, and which rank owns each unknown (its entry of U and its row of the Jacobian).

  Why.  Each rank sums the Jacobian entries of its elements and film quads into the matrix
  (MatSetValuesCOO); an entry whose row another rank owns travels at every Jacobian.  With
  contiguous slices of the elements and of the natural numbering (bodies' nodes, then film
  pressures, then multipliers), 44 % of the finest level's entries did on two ranks (0.79 of
  2.55 million on the paper's case): a rank's elements and its rows were different parts of the
  model, and every film pressure row lay on the last rank.

  How.  The elements are divided by a graph partitioner (PETSc's MatPartitioning, PT-Scotch by
  default where PETSc has it) over their dual graph: two elements are adjacent when they share a
  face (4 nodes), so each rank's elements form compact pieces with short interfaces.  Each node
  then belongs to the lowest rank among its elements, each film node to the rank of its lowest
  quad (the ranks share a film's quads in contiguous strips, film.c), and the free rigid bodies'
  coordinates and the multipliers, which rank 0 assembles, to rank 0.  The solver numbers the
  unknowns rank after rank, each rank's in their natural order (TdSolverCreate), so that a
  rank's rows are one contiguous range of U and its film unknowns one contiguous range of those.
*/
#include <petscmat.h>
#include <tribodyn/model.h>

/* The dual graph rows of elements [lo, hi): element neighbours sharing at least 4 nodes, in the
   CSR arrays MatCreateMPIAdj takes (PetscMalloc'ed; the matrix frees them). */
static PetscErrorCode ElementDualGraph(TdModel m, PetscInt lo, PetscInt hi, PetscInt **ia_out, PetscInt **ja_out)
{
  const PetscInt ne = m->nelements, nn = PetscMax(m->nnodes, 1);
  PetscInt      *node_off, *node_elem, *fill, *count, *ia, *ja, *seen, nnz = 0, cap, maxdeg = 1;
  PetscFunctionBegin;
  /* node -> elements */
  PetscCall(PetscCalloc2(nn + 1, &node_off, nn, &fill));
  for (PetscInt e = 0; e < ne; e++) {
    const TdBody   *body = &m->bodies[m->element_body[e]];
    const PetscInt *cell = &body->mesh.cells[8 * m->element_cell[e]];
    for (PetscInt a = 0; a < 8; a++) node_off[body->node_offset + cell[a] + 1]++;
  }
  for (PetscInt n = 0; n < nn; n++) {
    maxdeg = PetscMax(maxdeg, node_off[n + 1]);
    node_off[n + 1] += node_off[n];
  }
  PetscCall(PetscMalloc1(PetscMax(node_off[nn], 1), &node_elem));
  for (PetscInt e = 0; e < ne; e++) {
    const TdBody   *body = &m->bodies[m->element_body[e]];
    const PetscInt *cell = &body->mesh.cells[8 * m->element_cell[e]];
    for (PetscInt a = 0; a < 8; a++) {
      const PetscInt n = body->node_offset + cell[a];
      node_elem[node_off[n] + fill[n]++] = e;
    }
  }
  /* face neighbours: elements met at 4 or more of the element's nodes */
  cap = 6 * (hi - lo) + 1;
  PetscCall(PetscCalloc1(PetscMax(ne, 1), &count));
  PetscCall(PetscMalloc1(8 * maxdeg, &seen)); /* the elements met at one element's 8 nodes */
  PetscCall(PetscMalloc1(hi - lo + 1, &ia));
  PetscCall(PetscMalloc1(cap, &ja));
  ia[0] = 0;
  for (PetscInt e = lo; e < hi; e++) {
    const TdBody   *body = &m->bodies[m->element_body[e]];
    const PetscInt *cell = &body->mesh.cells[8 * m->element_cell[e]];
    PetscInt        nseen = 0;
    for (PetscInt a = 0; a < 8; a++) {
      const PetscInt n = body->node_offset + cell[a];
      for (PetscInt k = node_off[n]; k < node_off[n + 1]; k++) {
        const PetscInt e2 = node_elem[k];
        if (e2 == e) continue;
        if (count[e2]++ == 0) seen[nseen++] = e2;
      }
    }
    for (PetscInt k = 0; k < nseen; k++) {
      if (count[seen[k]] >= 4) {
        if (nnz == cap) {
          PetscInt *grown;
          cap *= 2;
          PetscCall(PetscMalloc1(cap, &grown));
          PetscCall(PetscArraycpy(grown, ja, nnz));
          PetscCall(PetscFree(ja));
          ja = grown;
        }
        ja[nnz++] = seen[k];
      }
      count[seen[k]] = 0;
    }
    PetscCall(PetscSortInt(nnz - ia[e - lo], &ja[ia[e - lo]]));
    ia[e - lo + 1] = nnz;
  }
  PetscCall(PetscFree2(node_off, fill));
  PetscCall(PetscFree(node_elem));
  PetscCall(PetscFree(count));
  PetscCall(PetscFree(seen));
  *ia_out = ia;
  *ja_out = ja;
  PetscFunctionReturn(0);
}

PetscErrorCode TdModelPartition(TdModel m, PetscInt element_rank[], PetscInt unknown_rank[])
{
  PetscMPIInt    rank, size;
  const PetscInt ne = m->nelements, N = m->row_offset + m->nrows;
  PetscInt      *node_rank;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(m->comm, &rank));
  PetscCallMPI(MPI_Comm_size(m->comm, &size));
  for (PetscInt e = 0; e < ne; e++) element_rank[e] = 0;
  for (PetscInt i = 0; i < N; i++) unknown_rank[i] = 0;
  if (size == 1) PetscFunctionReturn(0);
  if (m->given_element_rank) {
    /* a restart's: the checkpoint's partition, which its per-rank data belong to.  PT-Scotch
       had been seen to answer otherwise in a restarted process than in the run that wrote the
       checkpoint, which then had to factor afresh (its threads, below; and a checkpoint may
       come from another version's partitioner) */
    PetscCall(PetscArraycpy(element_rank, m->given_element_rank, ne));
    PetscCall(PetscInfo(NULL, "the given partition of the %" PetscInt_FMT " elements over %d ranks (a restart's checkpoint), not the partitioner's\n", ne, (int)size));
  } else if (ne > 0) {
    /* the elements: rank 0 partitions the whole dual graph on its own and tells the others.
       The model is whole on every rank, the graph is small (one vertex per element), and a
       partitioner running on several ranks may answer differently from run to run (its
       messages arrive in another order), which would change the order of the Jacobian's
       entries between a run and its restart */
    if (rank == 0) {
      PetscInt       *ia = NULL, *ja = NULL;
      Mat             adj;
      MatPartitioning part;
      IS              is;
      const PetscInt *r;
      PetscCall(ElementDualGraph(m, 0, ne, &ia, &ja));
      PetscCall(MatCreateMPIAdj(PETSC_COMM_SELF, ne, ne, ia, ja, NULL, &adj));
      PetscCall(MatPartitioningCreate(PETSC_COMM_SELF, &part));
      PetscCall(MatPartitioningSetAdjacency(part, adj));
      PetscCall(MatPartitioningSetNParts(part, size));
#if defined(PETSC_HAVE_PTSCOTCH)
      PetscCall(MatPartitioningSetType(part, MATPARTITIONINGPTSCOTCH));
#elif defined(PETSC_HAVE_PARMETIS)
      PetscCall(MatPartitioningSetType(part, MATPARTITIONINGPARMETIS));
#endif
      PetscCall(PetscObjectSetOptionsPrefix((PetscObject)part, "partition_"));
      PetscCall(MatPartitioningSetFromOptions(part));
      /* PT-Scotch 7 shares its work among threads (SCOTCH_PTHREAD_NUMBER, by default one per
         core), and the threads' matchings make its answer differ from run to run: at the finest
         slider-guide level (5 824 elements) 4 of 8 runs of one command on 2 ranks had another
         partition than the most frequent, and two runs of the same command with other partitions
         differed by 4.7e-8 (sensors) and took other ghost sets and times.
         One thread gives one partition (in 6 of 6 runs, and 5 of 5 with the variable set
         outside) at no cost on graphs of this size; it also holds for any later Scotch call in
         this process (MUMPS's scotch ordering, if chosen).  Scotch reads it at each call. */
      PetscCheck(setenv("SCOTCH_PTHREAD_NUMBER", "1", 1) == 0, PETSC_COMM_SELF, PETSC_ERR_SYS, "could not set SCOTCH_PTHREAD_NUMBER=1 for a reproducible partition");
      PetscCall(MatPartitioningApply(part, &is));
      PetscCall(ISGetIndices(is, &r));
      for (PetscInt e = 0; e < ne; e++) element_rank[e] = r[e];
      PetscCall(ISRestoreIndices(is, &r));
      PetscCall(ISDestroy(&is));
      PetscCall(MatPartitioningDestroy(&part));
      PetscCall(MatDestroy(&adj));
    }
    PetscCallMPI(MPI_Bcast(element_rank, (PetscMPIInt)ne, MPIU_INT, 0, m->comm));
  }
  /* nodes: the lowest rank among their elements (nodes of no element, a free body's: rank 0) */
  PetscCall(PetscMalloc1(PetscMax(m->nnodes, 1), &node_rank));
  for (PetscInt n = 0; n < m->nnodes; n++) node_rank[n] = -1;
  for (PetscInt e = 0; e < ne; e++) {
    const TdBody   *body = &m->bodies[m->element_body[e]];
    const PetscInt *cell = &body->mesh.cells[8 * m->element_cell[e]];
    for (PetscInt a = 0; a < 8; a++) {
      PetscInt *nr = &node_rank[body->node_offset + cell[a]];
      if (*nr < 0 || element_rank[e] < *nr) *nr = element_rank[e];
    }
  }
  for (PetscInt c = 0; c < m->nfull; c++) {
    const PetscInt k = m->free_index[c];
    if (k >= 0) unknown_rank[k] = PetscMax(node_rank[c / TD_NODE_DOF], 0);
  }
  PetscCall(PetscFree(node_rank));
  /* film nodes: the rank of their lowest quad, in the strips of film.c (quad_start, quad_end) */
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    const TdFilm  *f  = &m->films[fi];
    const PetscInt nq = f->surface.nquads;
    PetscInt      *film_rank;
    PetscCall(PetscMalloc1(PetscMax(f->surface.nnodes, 1), &film_rank));
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) film_rank[nd] = -1;
    for (PetscMPIInt r = 0; r < size; r++) {
      const PetscInt q0 = (PetscInt)(((PetscInt64)nq * r) / size), q1 = (PetscInt)(((PetscInt64)nq * (r + 1)) / size);
      for (PetscInt qd = q0; qd < q1; qd++)
        for (PetscInt a = 0; a < 4; a++)
          if (film_rank[f->surface.quads[4 * qd + a]] < 0) film_rank[f->surface.quads[4 * qd + a]] = r;
    }
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) {
      const PetscInt owner = PetscMax(film_rank[nd], 0);
      if (f->unknown && f->unknown[nd] >= 0) unknown_rank[f->unknown[nd]] = owner;
      if (f->theta_unknown && f->theta_unknown[nd] >= 0) unknown_rank[f->theta_unknown[nd]] = owner;
    }
    PetscCall(PetscFree(film_rank));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdModelSetPartition(TdModel m, PetscInt n, const PetscInt64 element_rank[], PetscBool *taken)
{
  PetscMPIInt size;
  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(m->comm, &size));
  *taken = n == m->nelements && n > 0 ? PETSC_TRUE : PETSC_FALSE;
  for (PetscInt e = 0; *taken && e < n; e++)
    if (element_rank[e] < 0 || element_rank[e] >= size) *taken = PETSC_FALSE;
  if (!*taken) PetscFunctionReturn(0);
  PetscCall(PetscFree(m->given_element_rank));
  PetscCall(PetscMalloc1(n, &m->given_element_rank));
  for (PetscInt e = 0; e < n; e++) m->given_element_rank[e] = (PetscInt)element_rank[e];
  PetscFunctionReturn(0);
}
