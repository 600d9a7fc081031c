// journal_film.geo: the lubricant film of a short journal bearing, a reference surface for
// tribodyn films (-<f>_surface meshes/journal_film.geo).  The full 360-degree cylinder of the
// bore, radius R, axis along z from z = 0 to z = L (L/D = 1/8), meshed with nc x nz structured
// quadrangles (Gmsh built-in kernel: four 90-degree circle arcs extruded along z in one command,
// so the lateral lines, including the seam at x = R, are shared by the neighbouring surfaces:
// one closed surface without duplicated nodes).  Nodes on circle arcs are placed on the circle
// by Gmsh, and the extrusion translates them along z: every node lies on the cylinder.
// Boundary conditions: both end circles are ambient (1-D physical group "ambient"; every
// boundary edge not in a group "noflux" is ambient anyway).  Surface group: film (a .msh
// exported from this file then contains the quadrangles).

R  = 0.02;    // bore radius [m]
L  = 0.005;   // bearing length [m], L/D = 1/8
nc = 180;     // quadrangles around the circumference (a multiple of 4)
nz = 16;      // quadrangles along the axis

Point(1) = {0, 0, 0};    // centre of the arcs
Point(2) = {R, 0, 0};
Point(3) = {0, R, 0};
Point(4) = {-R, 0, 0};
Point(5) = {0, -R, 0};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Transfinite Curve {1:4} = nc / 4 + 1;

// e[4 k]: the arc at z = L, e[4 k + 1]: the surface, e[4 k + 2 .. 4 k + 3]: the axial lines
e[] = Extrude {0, 0, L} { Curve{1:4}; Layers{nz}; Recombine; };

Physical Curve("ambient") = {1:4, e[0], e[4], e[8], e[12]};
Physical Surface("film") = {e[1], e[5], e[9], e[13]};
