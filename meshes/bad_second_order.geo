// bad_second_order.geo: a 2 x 1 x 1 structured hexahedral box meshed with second-order
// (27-node) hexahedra.  As a film surface it is bad (second-order quadrangles:
// tests/test_surface_mesh.c); as a body it is a curved mesh whose corner slope maps are the unit
// axes (tests/test_mesh.c, which also checks that Mesh.ElementOrder does not leak into later
// meshes).
Mesh.ElementOrder = 2;
Point(1) = {0, 0, 0};
l[] = Extrude {0.2, 0, 0} { Point{1}; Layers{2}; };
s[] = Extrude {0, 0.1, 0} { Curve{l[1]}; Layers{1}; Recombine; };
v[] = Extrude {0, 0, 0.1} { Surface{s[1]}; Layers{1}; Recombine; };
