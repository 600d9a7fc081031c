// journal_bushing.geo: the flexible bushing of cases/journal_bearing_flexible.opts, a tube
// (meshes/tube.geo) with bore radius 0.02 m, outer radius 0.03 m, length 0.02 m, 24 x 2 x 2
// second-order (27-node) hexahedra.  Surface groups: inner (the bore: the film's wall), outer
// (clamped: the housing), end0, end1.
a = 0.02; b = 0.03; L = 0.02; NT = 6; NR = 2; NZ = 2;
Include "tube.geo";
Mesh.ElementOrder = 2;
