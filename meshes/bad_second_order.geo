// bad_second_order.geo: a 2 x 1 x 1 structured hexahedral box meshed with second-order
// (27-node) hexahedra.  tribodyn needs first-order 8-node hexahedra and must reject it: used by
// tests/test_mesh.c (which also checks that Mesh.ElementOrder does not leak into later meshes).
Mesh.ElementOrder = 2;
Point(1) = {0, 0, 0};
l[] = Extrude {0.2, 0, 0} { Point{1}; Layers{2}; };
s[] = Extrude {0, 0.1, 0} { Curve{l[1]}; Layers{1}; Recombine; };
v[] = Extrude {0, 0, 0.1} { Surface{s[1]}; Layers{1}; Recombine; };
