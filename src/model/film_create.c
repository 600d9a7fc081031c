/*
  Lubricant films from the options (film.h, formulation.md §2-§3): the film's model and fluid,
  its bounding faces, its reference surface and mesh, its unknowns, and the set-up checks that
  every film point's line meets both faces.
*/
#include "film_private.h"
#include <tribodyn/options.h>
#include <tribodyn/output.h>
#include <errno.h>
#include <string.h>

static const char *const film_models[]      = {"reynolds", "dry", NULL};
static const char *const film_cavitations[] = {"none", "swift_stieber", "jfo", NULL};
static const char *const profile_kinds[]    = {"none", "crown", "chamfer", "table", NULL};

/* The faces of a set that share a corner node with each face (TD_FACE_NEIGHBOURS per face, -1
   padded; the first ones found if a corner is shared by more): a film point that leaves its last
   face has almost always moved onto one of these, so TdFilmProjectSurface tries them before it scans
   the whole set (a scan per lost point costs O(faces), which made fine surfaces 10x slower per
   quad). */
static PetscErrorCode FaceNeighbours(const TdMesh *mesh, const TdMeshSet *set, PetscInt **out)
{
  PetscInt *first, *next, *nb, nf = set->nfaces;
  PetscFunctionBegin;
  /* per mesh node, a linked list of the set's faces touching it */
  PetscCall(PetscMalloc3(mesh->nnodes, &first, 4 * nf, &next, TD_FACE_NEIGHBOURS * nf, &nb));
  for (PetscInt n = 0; n < mesh->nnodes; n++) first[n] = -1;
  for (PetscInt k = 0; k < nf; k++) {
    PetscInt corner[4];
    TdMeshFaceCorners(set->faces[k].face, corner);
    for (PetscInt c = 0; c < 4; c++) {
      const PetscInt n = mesh->cells[8 * set->faces[k].cell + corner[c]];
      next[4 * k + c]  = first[n];
      first[n]         = 4 * k + c;
    }
  }
  for (PetscInt k = 0; k < nf; k++) {
    PetscInt corner[4], cnt = 0;
    TdMeshFaceCorners(set->faces[k].face, corner);
    for (PetscInt i = 0; i < TD_FACE_NEIGHBOURS; i++) nb[TD_FACE_NEIGHBOURS * k + i] = -1;
    for (PetscInt c = 0; c < 4; c++)
      for (PetscInt e = first[mesh->cells[8 * set->faces[k].cell + corner[c]]]; e >= 0; e = next[e]) {
        const PetscInt j = e / 4;
        PetscBool      seen = j == k ? PETSC_TRUE : PETSC_FALSE;
        for (PetscInt i = 0; i < cnt && !seen; i++) seen = nb[TD_FACE_NEIGHBOURS * k + i] == j ? PETSC_TRUE : PETSC_FALSE;
        if (!seen && cnt < TD_FACE_NEIGHBOURS) nb[TD_FACE_NEIGHBOURS * k + cnt++] = j;
      }
  }
  /* keep nb alone: free the lists */
  {
    PetscInt *keep;
    PetscCall(PetscMalloc1(TD_FACE_NEIGHBOURS * nf, &keep));
    PetscCall(PetscArraycpy(keep, nb, TD_FACE_NEIGHBOURS * nf));
    PetscCall(PetscFree3(first, next, nb));
    *out = keep;
  }
  PetscFunctionReturn(0);
}

static PetscErrorCode ParseFace(TdModel m, TdFilm *f, const char which[], TdFilmSurface *s)
{
  char      value[256], opt[128], *colon;
  PetscBool set;
  PetscInt  b = -1;
  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof opt, "-%s_%s", f->name, which));
  PetscCall(TdOptionsString(f->name, which, !strcmp(which, "wall") ? "the wall surface body:face (the reference normal points from the wall to the base)" : "the base surface body:face", NULL, value, sizeof value, &set));
  if (TdOptionsHelpRequested() && !set) PetscFunctionReturn(0);
  if (!set) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s' has no %s surface: set %s body:face (e.g. slider:zmin)", f->name, which, opt);
  colon = strchr(value, ':');
  if (!colon) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option %s = '%s': write the surface as body:face, e.g. guide:zmax", opt, value);
  *colon = 0;
  PetscCall(TdModelFindBodyInternal(m, value, opt, &b));
  s->body = b;
  PetscCall(PetscStrncpy(s->face, colon + 1, sizeof s->face));
  if (m->bodies[b].is_cylinder) {
    if (strcmp(s->face, "surface")) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option %s: the rigid cylinder '%s' has one face, 'surface', not '%s'", opt, value, s->face);
    s->kind = m->bodies[b].type == TD_BODY_FREE ? TD_FACE_FREE_CYLINDER : TD_FACE_RIGID_CYLINDER;
  } else {
    const TdMeshSet *set_;
    PetscCall(TdModelFindFaceSetInternal(m, b, s->face, opt, &set_));
    s->set    = set_;
    s->nfaces = set_->nfaces;
    if (m->bodies[b].type == TD_BODY_FREE) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option %s: body '%s' is a free rigid body given by a mesh; a film on a free rigid body runs on its exact cylinder (-%s_cylinder, face 'surface', F25)", opt, m->bodies[b].name, m->bodies[b].name);
    s->kind   = m->bodies[b].type == TD_BODY_ANCF ? TD_FACE_ANCF : TD_FACE_RIGID_MESH;
    PetscCall(FaceNeighbours(&m->bodies[b].mesh, set_, &s->neighbours));
  }
  /* profile carried by the surface's material points */
  {
    char      pre[128], table[PETSC_MAX_PATH_LEN];
    PetscInt  kind;
    PetscBool tset;
    PetscReal zero3[3] = {0, 0, 0}, xaxis[3] = {1, 0, 0};
    PetscCall(PetscSNPrintf(pre, sizeof pre, "%s_%s", f->name, which));
    PetscCall(TdOptionsEnum(pre, "profile", "surface profile carried by the material points (F7)", profile_kinds, 0, &kind, NULL));
    s->profile.type = (FilmProfileType)kind;
    PetscCall(TdOptionsRealArray(pre, "profile_center", "profile origin (reference coordinates)", "m", 3, zero3, s->profile.center, NULL));
    PetscCall(TdOptionsRealArray(pre, "profile_axis", "profile direction", NULL, 3, xaxis, s->profile.axis, NULL));
    PetscCall(TdOptionsRealPositive(pre, "profile_amplitude", "crown: drop at |s| = half_length; chamfer: depth at the edge", "m", 0, PETSC_FALSE, &s->profile.amplitude, NULL));
    PetscCall(TdOptionsRealPositive(pre, "profile_half_length", "crown: half length; chamfer: distance of the edges from the centre", "m", 1, PETSC_TRUE, &s->profile.half_length, NULL));
    PetscCall(TdOptionsRealPositive(pre, "profile_width", "chamfer: length of the ramp", "m", 1e-3, PETSC_TRUE, &s->profile.width, NULL));
    PetscCall(TdOptionsString(pre, "profile_table", "table profile: CSV s [m], h [m] along the profile axis", NULL, table, sizeof table, &tset));
    {
      PetscReal l = PetscSqrtReal(vec3_dot(s->profile.axis, s->profile.axis));
      if (!(l > 0)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_profile_axis: the axis must not be zero", pre);
      for (PetscInt i = 0; i < 3; i++) s->profile.axis[i] /= l;
    }
    if (s->profile.type == FILM_PROFILE_TABLE) {
      FILE    *fp;
      char     line[512];
      PetscInt n = 0, cap = 1024;
      if (!tset) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': a table profile needs -%s_profile_table FILE.csv", f->name, pre);
      fp = fopen(table, "r");
      if (!fp) SETERRQ(m->comm, PETSC_ERR_FILE_OPEN, "Option -%s_profile_table: cannot open '%s' (%s)", pre, table, strerror(errno));
      PetscCall(PetscMalloc1(2 * cap, &s->profile_table));
      while (fgets(line, sizeof line, fp) && n < cap) {
        double a, h;
        if (sscanf(line, "%lf , %lf", &a, &h) == 2 || sscanf(line, "%lf %lf", &a, &h) == 2) {
          s->profile_table[n]       = a;
          s->profile_table[cap + n] = h;
          n++;
        }
      }
      fclose(fp);
      if (n < 2) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Profile table '%s' (option -%s_profile_table) needs at least two rows 's, h'", table, pre);
      s->profile.ntable  = (int)n;
      s->profile.table_s = s->profile_table;
      s->profile.table_h = s->profile_table + cap;
    }
  }
  PetscFunctionReturn(0);
}

/* The default reference surface: the wall face's footprint, nx x ny quads (axis-aligned planar
   faces of boxes). */
static PetscErrorCode DefaultSurface(TdModel m, TdFilm *f, const PetscInt cells[2], const PetscBool noflux[4], PetscReal normal[3])
{
  const TdBody    *body = &m->bodies[f->wall.body];
  const TdMeshSet *set  = (const TdMeshSet *)f->wall.set;
  PetscInt         ax = -1, side = -1;
  PetscReal        lo[3] = {PETSC_MAX_REAL, PETSC_MAX_REAL, PETSC_MAX_REAL}, hi[3] = {-PETSC_MAX_REAL, -PETSC_MAX_REAL, -PETSC_MAX_REAL};
  PetscReal        origin[3], e1[3] = {0, 0, 0}, e2[3] = {0, 0, 0};
  PetscFunctionBegin;
  if (f->wall.kind == TD_FACE_RIGID_CYLINDER || f->wall.kind == TD_FACE_FREE_CYLINDER) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall is a cylinder; give its reference surface with -%s_surface FILE", f->name, f->name);
  if (body->mesh.curved) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall %s:%s is a face of a curved mesh, which has no default footprint; give the reference surface with -%s_surface FILE", f->name, body->name, f->wall.face, f->name);
  for (PetscInt k = 0; k < set->nfaces; k++) {
    const PetscInt   cell = set->faces[k].cell, fa = set->faces[k].face;
    const PetscReal *axes = &body->mesh.axes[9 * cell];
    PetscInt         g    = -1;
    for (PetscInt i = 0; i < 3; i++)
      if (PetscAbsReal(axes[3 * (fa / 2) + i]) > 1 - 1e-9) g = i;
    if (g < 0 || (ax >= 0 && g != ax)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall face %s:%s is not a plane normal to a coordinate axis, so it has no default footprint; give the reference surface with -%s_surface FILE", f->name, body->name, f->wall.face, f->name);
    ax   = g;
    side = (axes[3 * (fa / 2) + g] > 0) == (fa % 2 == 1) ? 1 : 0;
  }
  for (PetscInt k = 0; k < set->nnodes; k++)
    for (PetscInt i = 0; i < 3; i++) {
      lo[i] = PetscMin(lo[i], body->mesh.X[3 * set->nodes[k] + i]);
      hi[i] = PetscMax(hi[i], body->mesh.X[3 * set->nodes[k] + i]);
    }
  if (hi[ax] - lo[ax] > 1e-9 * body->size) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the wall face %s:%s is not planar; give the reference surface with -%s_surface FILE", f->name, body->name, f->wall.face, f->name);
  {
    const PetscInt a1 = ax == 0 ? 1 : 0, a2 = ax == 2 ? 1 : 2;
    for (PetscInt i = 0; i < 3; i++) origin[i] = lo[i];
    e1[a1] = hi[a1] - lo[a1];
    e2[a2] = hi[a2] - lo[a2];
    normal[0] = normal[1] = normal[2] = 0;
    normal[ax] = side ? 1 : -1; /* the wall's outward normal: towards the base */
  }
  PetscCall(TdSurfaceMeshCreateRectangle(origin, e1, e2, cells[0], cells[1], noflux, &f->surface));
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmsCreateFromOptions(TdModel m, PetscInt nf, char (*names)[64], PetscInt first_unknown)
{
  PetscInt next = first_unknown;
  PetscFunctionBegin;
  m->nfilms = nf;
  PetscCall(PetscCalloc1(PetscMax(nf, 1), &m->films));
  for (PetscInt fi = 0; fi < nf; fi++) {
    TdFilm   *f = &m->films[fi];
    PetscInt  kind, cav, cells[2] = {20, 20};
    char      surf[PETSC_MAX_PATH_LEN], frame[64], (*noflux)[64];
    PetscInt  nnoflux;
    PetscBool has_surf;
    PetscBool nf_flags[4] = {PETSC_FALSE, PETSC_FALSE, PETSC_FALSE, PETSC_FALSE};
    PetscReal hint[3] = {0, 0, 0}, sw, sb, gamma, E_star;
    const char *p = names[fi];
    PetscCall(PetscStrncpy(f->name, p, sizeof f->name));
    PetscCall(TdOptionsEnum(p, "model", "reynolds: average Reynolds mixed lubrication; dry: Lankarani-Nikravesh contact", film_models, 0, &kind, NULL));
    f->model = (TdFilmModel)kind;
    PetscCall(ParseFace(m, f, "wall", &f->wall));
    PetscCall(ParseFace(m, f, "base", &f->base));
    PetscCall(TdOptionsIntArray(p, "cells", "quads nx,ny of the default reference surface (the wall face's footprint)", 2, cells, cells, NULL));
    PetscCall(TdOptionsString(p, "surface", "reference surface from a Gmsh quad mesh (.msh/.geo), flat or curved; 1-D groups ambient, noflux", NULL, surf, sizeof surf, &has_surf));
    PetscCall(TdOptionsNameList(p, "noflux", "zero-flux edges of the default surface: xmin,xmax,ymin,ymax (first and second in-plane axis)", &nnoflux, &noflux));
    PetscCall(TdOptionsString(p, "frame", "reference frame: static, the name of a crank_slider joint carrying it, or (a film on free rigid bodies) the free body of its wall or base", "static", frame, sizeof frame, NULL));
    f->pattern_lookahead = 2e-3;
    PetscCall(TdOptionsRealPositive(p, "pattern_lookahead", "a film carried by a drive: the coupling pattern also holds the element-face pairs its points will meet within this time (fewer pattern rebuilds and LU analyses; 0: only the pairs met now)", "s", f->pattern_lookahead, PETSC_FALSE, &f->pattern_lookahead, NULL));
    PetscCall(TdOptionsRealPositive(p, "mu", "viscosity", "Pa s", 0.045, PETSC_TRUE, &f->fluid.mu, NULL));
    PetscCall(TdOptionsRealPositive(p, "density", "lubricant density", "kg/m^3", 889, PETSC_TRUE, &f->fluid.rho, NULL));
    PetscCall(TdOptionsRealPositive(p, "sigma_wall", "RMS roughness of the wall", "m", 0, PETSC_FALSE, &sw, NULL));
    PetscCall(TdOptionsRealPositive(p, "sigma_base", "RMS roughness of the base", "m", 0, PETSC_FALSE, &sb, NULL));
    PetscCall(TdOptionsReal(p, "gamma", "Patir-Cheng surface pattern parameter (1/9, 1/6, 1/3, 1, 3, 6 or 9)", NULL, 1, &gamma, NULL));
    PetscCall(TdOptionsRealPositive(p, "gt_K", "Greenwood-Tripp coefficient K", NULL, 0.003, PETSC_FALSE, &f->contact.K, NULL));
    PetscCall(TdOptionsRealPositive(p, "mu_asperity", "asperity friction coefficient", NULL, 0.1, PETSC_FALSE, &f->contact.mu_asperity, NULL));
    PetscCall(TdOptionsRealPositive(p, "v_eps", "regularisation speed of friction directions", "m/s", 1e-3, PETSC_TRUE, &f->contact.v_eps, NULL));
    PetscCall(TdOptionsEnum(p, "cavitation", "cavitation model: none, swift_stieber (p >= p_cav, F >= 0, (p - p_cav) F = 0), or jfo (mass-conserving: a film fraction theta per node, p >= p_cav, theta <= 1, (p - p_cav)(1 - theta) = 0; F18)", film_cavitations, 0, &cav, NULL));
    f->cavitation = (TdFilmCavitation)cav;
    PetscCall(TdOptionsReal(p, "p_cav", "cavitation pressure (gauge)", "Pa", 0, &f->p_cav, NULL));
    {
      PetscBool theta0_set;
      f->theta0 = 1;
      PetscCall(TdOptionsReal(p, "theta0", "jfo: film fraction at the start off the ambient edges, in (0, 1], kept through the initial-acceleration solve (default: that solve's quasi-steady film fractions, from a full film)", NULL, 1, &f->theta0, &theta0_set));
      f->theta0_set = theta0_set;
      if (!TdOptionsHelpRequested() && theta0_set && f->cavitation != TD_CAVITATION_JFO)
        SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_theta0: film '%s' has no film fraction (its cavitation is %s); set -%s_cavitation jfo or remove -%s_theta0", p, p, film_cavitations[cav], p, p);
      if (!TdOptionsHelpRequested() && !(f->theta0 > 0 && f->theta0 <= 1)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_theta0 = %g: a film fraction lies in (0, 1]", p, (double)f->theta0);
    }
    PetscCall(TdOptionsRealPositive(p, "p_ref", "pressure scale of the unknowns p/p_ref", "Pa", 1e6, PETSC_TRUE, &f->p_ref, NULL));
    PetscCall(TdOptionsRealPositive(p, "h_ref", "film height scale of the residual (default: the mean initial film height)", "m", 0, PETSC_FALSE, &f->h_ref, NULL));
    PetscCall(TdOptionsRealPositive(p, "Kg", "dry: generalised stiffness", "N/m^n", 70e6, PETSC_TRUE, &f->Kg, NULL));
    PetscCall(TdOptionsRealPositive(p, "eta", "dry: damping factor", "N s/m^(n+1)", 50e7, PETSC_FALSE, &f->eta, NULL));
    PetscCall(TdOptionsRealPositive(p, "n", "dry: exponent", NULL, 1.5, PETSC_TRUE, &f->exponent, NULL));
    PetscCall(TdOptionsRealPositive(p, "mu_dry", "dry: friction coefficient", NULL, 0.15, PETSC_FALSE, &f->mu_dry, NULL));
    PetscCall(TdOptionsRealPositive(p, "dry_eps", "dry: smoothing width of the penetration", "m", 1e-8, PETSC_TRUE, &f->eps_dry, NULL));
    if (TdOptionsHelpRequested()) {
      PetscCall(PetscFree(noflux));
      continue;
    }
    if (film_roughness_init(sw, sb, gamma, &f->fluid.rough)) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_gamma = %g: the Patir-Cheng tables cover gamma = 1/9, 1/6, 1/3, 1, 3, 6, 9 only", p, (double)gamma);
    /* composite modulus of the two surfaces (F12) */
    {
      const TdBody *bw = &m->bodies[f->wall.body], *bb = &m->bodies[f->base.body];
      E_star = 1 / ((1 - bw->nu * bw->nu) / bw->E + (1 - bb->nu * bb->nu) / bb->E);
    }
    f->contact.E_star = E_star;
    /* frame */
    f->frame_joint = -1;
    if (f->wall.kind == TD_FACE_FREE_CYLINDER || f->base.kind == TD_FACE_FREE_CYLINDER) PetscCall(TdFilmRigidSetupInternal(m, f, frame));
    else if (strcmp(frame, "static")) {
      for (PetscInt j = 0; j < m->njoints; j++)
        if (!strcmp(m->joints[j].name, frame)) f->frame_joint = j;
      if (f->frame_joint < 0 || m->joints[f->frame_joint].type != TD_JOINT_CRANK_SLIDER) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_frame = %s: give static or the name of a crank_slider joint", p, frame);
    }
    /* reference surface */
    for (PetscInt e = 0; e < nnoflux; e++) {
      const char *edges[] = {"xmin", "xmax", "ymin", "ymax"};
      PetscBool   known   = PETSC_FALSE;
      for (PetscInt k = 0; k < 4; k++)
        if (!strcmp(noflux[e], edges[k])) nf_flags[k] = known = PETSC_TRUE;
      if (!known) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_noflux: unknown edge '%s'; use xmin, xmax, ymin, ymax", p, noflux[e]);
    }
    PetscCall(PetscFree(noflux));
    if (has_surf) {
      if (nnoflux) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': -%s_noflux applies to the default surface; a -%s_surface mesh names its zero-flux edges with the 1-D group 'noflux'", p, p, p);
      PetscCall(TdSurfaceMeshLoad(PETSC_COMM_SELF, surf, &f->surface));
    } else {
      if (cells[0] < 1 || cells[1] < 1) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Option -%s_cells: %" PetscInt_FMT ",%" PetscInt_FMT ": every count must be at least 1", p, cells[0], cells[1]);
      PetscCall(DefaultSurface(m, f, cells, nf_flags, hint));
    }
    /* unknowns: the film nodes off the Dirichlet boundary (Reynolds only) */
    PetscCall(PetscMalloc1(f->surface.nnodes, &f->unknown));
    f->first_unknown = next;
    for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) f->unknown[nd] = (f->model == TD_FILM_REYNOLDS && !f->surface.dirichlet[nd]) ? next++ : -1;
    if (f->cavitation == TD_CAVITATION_JFO) {
      /* the film fractions after the pressures, node for node; flooded (theta = 1) on the
         ambient boundary, -<f>_theta0 (default full) at the start */
      PetscCheck(f->model == TD_FILM_REYNOLDS, m->comm, PETSC_ERR_USER_INPUT, "Option -%s_cavitation jfo: film '%s' is a dry contact (-%s_model dry); cavitation applies to a Reynolds film", p, p, p);
      PetscCall(PetscMalloc2(f->surface.nnodes, &f->theta_unknown, f->surface.nnodes, &f->theta_old));
      for (PetscInt nd = 0; nd < f->surface.nnodes; nd++) {
        f->theta_unknown[nd] = f->unknown[nd] >= 0 ? next++ : -1;
        f->theta_old[nd]     = f->theta_unknown[nd] >= 0 ? f->theta0 : 1;
      }
    }
    f->nunknowns = next - f->first_unknown;
    /* geometry, oriented from the wall to the base; first projections; start-up checks */
    TdFilmHit hit00[2];             /* quad 0's first wall and base hits, and its first normal: */
    PetscReal n00[3] = {0, 0, 0};   /* the check below that the faces face each other */
    {
      /* the ranks' shares of the quads: contiguous strips of equal length (each quad costs the
         same: its projections and one Reynolds element); of the nodes, the chunks whose output
         fields each rank writes (TdOutputPartRange, as the output's datasets are chunked) */
      PetscMPIInt rank, size;
      PetscCallMPI(MPI_Comm_rank(m->comm, &rank));
      PetscCallMPI(MPI_Comm_size(m->comm, &size));
      f->quad_start = (PetscInt)(((PetscInt64)f->surface.nquads * rank) / size);
      f->quad_end   = (PetscInt)(((PetscInt64)f->surface.nquads * (rank + 1)) / size);
      TdOutputPartRange(f->surface.nnodes, size, rank, &f->node_start, &f->node_end);
    }
    /* only this rank's quads and nodes keep their geometry and hits (the bulk of a fine film's
       memory: about 1.2 kB per quad); the loop below visits every quad alike on every rank, so
       that the start-up checks, h_ref and the searches' starting faces are those of one rank */
    PetscCall(PetscMalloc1(PetscMax(f->quad_end - f->quad_start, 1), &f->geometry));
    PetscCall(PetscCalloc1(PetscMax(8 * (f->quad_end - f->quad_start), 1), &f->hits));
    PetscCall(PetscCalloc1(PetscMax(2 * (f->node_end - f->node_start), 1), &f->node_hits));
    PetscCall(PetscCalloc1(PetscMax(3 * (f->node_end - f->node_start), 1), &f->node_normal));
    for (PetscInt k = 0; k < 2 * (f->node_end - f->node_start); k++) f->node_hits[k].face = -1;
    hit00[0].face = hit00[1].face = -1;
    {
      PetscReal        hsum = 0, area = 0;
      FilmQuadGeometry g_other;
      TdFilmHit        hits_other[8];
      /* each search starts on the face the point before it found (its start uv at the face's
         centre, as a search over all faces starts): a neighbouring point almost always lies on
         the same face or on one around it, where a search over all faces of the set cost each
         of the film's points a scan of the whole set (at the finest slider-guide level about
         8 s per rank, at every start and restart) */
      PetscInt last[3] = {-1, -1, -1}; /* wall, base, orientation probe */
      for (PetscInt qd = 0; qd < f->surface.nquads; qd++) {
        const PetscBool   mine = qd >= f->quad_start && qd < f->quad_end ? PETSC_TRUE : PETSC_FALSE;
        FilmQuadGeometry *g    = mine ? TdFilmGeometry(f, qd) : &g_other;
        TdFilmHit        *hq   = mine ? TdFilmHits(f, qd) : hits_other;
        PetscReal         X[4][3], h0[3];
        FilmPointState    ps = {0};
        SurfaceState      s1, s2;
        PetscBool         ok = PETSC_TRUE;
        s1.want_lin = s2.want_lin = PETSC_FALSE;
        for (PetscInt i = 0; i < 4; i++)
          for (PetscInt d = 0; d < 3; d++) X[i][d] = f->surface.X[3 * f->surface.quads[4 * qd + i] + d];
        if (hint[0] == 0 && hint[1] == 0 && hint[2] == 0) {
          /* a mesh surface: orient each quad so that the wall lies behind it */
          PetscReal a[3], b[3];
          TdFilmHit probe;
          FilmLine  line;
          for (PetscInt d = 0; d < 3; d++) {
            a[d] = X[1][d] - X[0][d] + X[2][d] - X[3][d];
            b[d] = X[3][d] - X[0][d] + X[2][d] - X[1][d];
          }
          vec3_cross(a, b, h0);
          film_quad_geometry(X, h0, g);
          probe.face     = last[2];
          probe.pt.uv[0] = probe.pt.uv[1] = 0;
          film_line_init(g->n[0], &line);
          PetscCall(TdFilmProjectSurface(m, f, &f->wall, &probe, g->x[0], g->n[0], &line, (PetscReal[3]){0, 0, 0}, 0, m->q_ref, NULL, 1e-9, NULL, &s1, &ok));
          if (!ok) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the line through the film point (%g, %g, %g) normal to the reference surface misses the wall %s:%s; the reference surface must lie between the wall and the base", p, (double)g->x[0][0], (double)g->x[0][1], (double)g->x[0][2], m->bodies[f->wall.body].name, f->wall.face);
          last[2] = probe.face;
          if (probe.pt.s > 0)
            for (PetscInt d = 0; d < 3; d++) h0[d] = -h0[d];
          film_quad_geometry(X, h0, g);
        } else film_quad_geometry(X, hint, g);
        for (PetscInt gp = 0; gp < 4; gp++) {
          for (PetscInt a = 0; a < 2; a++) {
            TdFilmHit *hit = &hq[4 * a + gp];
            hit->face      = last[a];
            hit->pt.uv[0] = hit->pt.uv[1] = 0;
          }
          PetscCall(TdFilmPointState(m, f, f->miss, &hq[gp], &hq[4 + gp], g->x[gp], g->n[gp], NULL, (PetscReal[3]){0, 0, 0}, 0, m->q_ref, NULL, 1e-9, NULL, &ps, &s1, &s2, &ok));
          last[0] = hq[gp].face;
          last[1] = hq[4 + gp].face;
          if (!ok) SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "%s; check -%s_wall, -%s_base and the reference surface", f->miss, p, p);
          if (f->model == TD_FILM_REYNOLDS && !(ps.h > 0))
            SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the film height at the start is %g m at the film point (%g, %g, %g); the Reynolds film needs a positive gap between %s:%s and %s:%s (the wall above, the base below along the normal)", p, (double)ps.h, (double)g->x[gp][0], (double)g->x[gp][1], (double)g->x[gp][2], m->bodies[f->wall.body].name, f->wall.face, m->bodies[f->base.body].name, f->base.face);
          /* the faces must face each other: the wall behind the point, the base ahead */
          if (!(hq[gp].pt.s <= hq[4 + gp].pt.s))
            SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the faces %s:%s and %s:%s do not face each other at the film point (%g, %g, %g)", p, m->bodies[f->wall.body].name, f->wall.face, m->bodies[f->base.body].name, f->base.face, (double)g->x[gp][0], (double)g->x[gp][1], (double)g->x[gp][2]);
          hsum += g->w[gp] * ps.h;
          area += g->w[gp];
        }
        if (qd == 0) { /* for the facing check below */
          hit00[0] = hq[0];
          hit00[1] = hq[4];
          for (PetscInt d = 0; d < 3; d++) n00[d] = g->n[0][d];
        }
        /* this rank's output nodes: the sum of their quads' Gauss-point normals, and their
           first search's faces, those of the first quad around them that found its faces */
        for (PetscInt k = 0; k < 4; k++) {
          const PetscInt nd = f->surface.quads[4 * qd + k];
          if (nd < f->node_start || nd >= f->node_end) continue;
          for (PetscInt gp = 0; gp < 4; gp++)
            for (PetscInt d = 0; d < 3; d++) f->node_normal[3 * (nd - f->node_start) + d] += g->n[gp][d];
          for (PetscInt a = 0; a < 2; a++) {
            TdFilmHit *hit = &TdFilmNodeHits(f, nd)[a];
            if (hit->face >= 0 || hq[4 * a].face < 0) continue;
            hit->face     = hq[4 * a].face;
            hit->pt.uv[0] = hit->pt.uv[1] = 0;
          }
        }
      }
      for (PetscInt nd = f->node_start; nd < f->node_end; nd++) {
        PetscReal *nrm = &f->node_normal[3 * (nd - f->node_start)], l = PetscSqrtReal(vec3_dot(nrm, nrm));
        for (PetscInt d = 0; d < 3; d++) nrm[d] /= l;
      }
      f->area = area;
      if (!(f->h_ref > 0)) f->h_ref = hsum / area;
      /* the lines of this rank's Gauss points, which the passes would otherwise form again
         (an orthonormal basis around the fixed reference normal) for every point */
      PetscCall(PetscMalloc1(PetscMax(4 * (f->quad_end - f->quad_start), 1), &f->lines));
      for (PetscInt qd = f->quad_start; qd < f->quad_end; qd++)
        for (PetscInt gp = 0; gp < 4; gp++) film_line_init(TdFilmGeometry(f, qd)->n[gp], &f->lines[4 * (qd - f->quad_start) + gp]);
      if (f->model == TD_FILM_DRY) f->h_ref = PetscMax(f->h_ref, 1e-6);
    }
    f->residual_scale = f->fluid.rho * f->h_ref * f->h_ref * f->h_ref * f->p_ref / (12 * f->fluid.mu);
    /* the faces face each other: their outward normals oppose (ANCF and rigid mesh faces) */
    {
      const TdFilmSurface *ss[2] = {&f->wall, &f->base};
      PetscReal            sgn[2] = {1, -1};
      for (PetscInt k = 0; k < 2; k++) {
        const TdBody    *body = &m->bodies[ss[k]->body];
        const TdMeshSet *set  = (const TdMeshSet *)ss[k]->set;
        const TdFilmHit *h    = &hit00[k];
        if (ss[k]->kind == TD_FACE_RIGID_CYLINDER || ss[k]->kind == TD_FACE_FREE_CYLINDER || h->face < 0) continue;
        {
          /* outward normal from the hit's tangents: r_u x r_v is +axis for faces of xi and zeta,
             -axis for faces of eta (the (u, v) order of projection.h), times the side */
          const PetscInt   fa = set->faces[h->face].face;
          const PetscReal(*t)[2] = h->pt.r_uv;
          const PetscReal  sign = (fa % 2 ? 1 : -1) * (fa / 2 == 1 ? -1 : 1);
          PetscReal        out[3], len;
          (void)body;
          out[0] = sign * (t[1][0] * t[2][1] - t[2][0] * t[1][1]);
          out[1] = sign * (t[2][0] * t[0][1] - t[0][0] * t[2][1]);
          out[2] = sign * (t[0][0] * t[1][1] - t[1][0] * t[0][1]);
          len    = PetscSqrtReal(vec3_dot(out, out));
          for (PetscInt d = 0; d < 3; d++) out[d] /= len;
          if (sgn[k] * vec3_dot(out, n00) < 0.5)
            SETERRQ(m->comm, PETSC_ERR_USER_INPUT, "Film '%s': the faces %s:%s and %s:%s do not face each other (the %s's outward normal does not point %s the film); choose faces whose outward normals oppose", p, m->bodies[f->wall.body].name, f->wall.face, m->bodies[f->base.body].name, f->base.face, k ? "base" : "wall", k ? "into" : "across");
        }
      }
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdFilmsDestroy(TdModel m)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(m->film_work));
  m->film_work_size = 0;
  for (PetscInt fi = 0; fi < m->nfilms; fi++) {
    TdFilm *f = &m->films[fi];
    PetscCall(PetscFree(f->node_normal));
    PetscCall(TdSurfaceMeshDestroy(&f->surface));
    PetscCall(PetscFree(f->unknown));
    PetscCall(PetscFree2(f->theta_unknown, f->theta_old));
    PetscCall(PetscFree(f->geometry));
    PetscCall(PetscFree(f->lines));
    PetscCall(PetscFree(f->hits));
    PetscCall(PetscFree(f->node_hits));
    PetscCall(PetscFree(f->wall.profile_table));
    PetscCall(PetscFree(f->base.profile_table));
    PetscCall(PetscFree(f->wall.neighbours));
    PetscCall(PetscFree(f->base.neighbours));
  }
  PetscCall(PetscFree(m->films));
  PetscCall(PetscFree(m->coupling_qq));
  PetscCall(PetscFree(m->coupling_qp));
  PetscCall(PetscFree(m->coupling_qq_offset));
  PetscCall(PetscFree(m->coupling_qp_offset));
  PetscFunctionReturn(0);
}
