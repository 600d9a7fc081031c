// bad_triangles.geo: a small flat surface meshed with triangles (no Recombine).  A film surface
// must be made of quadrangles: tribodyn rejects it (tests/test_surface_mesh.c).
Point(1) = {0, 0, 0, 0.004};
Point(2) = {0.01, 0, 0, 0.004};
Point(3) = {0.01, 0.01, 0, 0.004};
Point(4) = {0, 0.01, 0, 0.004};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 1};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Physical Curve("ambient") = {1:4};
Physical Surface("film") = {1};
