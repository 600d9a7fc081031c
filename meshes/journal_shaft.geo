// journal_shaft.geo: the flexible hollow journal of cases/journal_bearing_flexible.opts, a tube
// (meshes/tube.geo) with bore radius 0.006 m, outer radius 0.01995 m (radial clearance 50 um in
// journal_bushing.geo's 0.02 m bore), length 0.02 m, 24 x 1 x 2 second-order (27-node)
// hexahedra.  Surface groups: outer (the film's base), inner, end0, end1.
a = 0.006; b = 0.01995; L = 0.02; NT = 6; NR = 1; NZ = 2;
Include "tube.geo";
Mesh.ElementOrder = 2;
