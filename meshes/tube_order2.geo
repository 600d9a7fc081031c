// tube_order2.geo: the tube of tube.geo (same parameters and physical groups: inner, outer,
// end0, end1; volume tube) meshed with second-order hexahedra (27-node; set
// Mesh.SecondOrderIncomplete = 1 for 20-node ones).  The arcs' mid-side nodes lie on the
// circles, so the cells follow the curved surfaces instead of faceting them.
// Parameters may be set before the Include, as described in tube.geo.
Include "tube.geo";
Mesh.ElementOrder = 2;
