// journal_groove.geo: the lubricant film of a finite journal bearing with L/D = 1 and a flooded
// axial supply groove, a reference surface for tribodyn films (-<f>_surface
// meshes/journal_groove.geo).  The full 360-degree cylinder of the bore, radius R, axis along z
// from z = 0 to z = L, meshed with nc x nz structured quadrangles (Gmsh built-in kernel: four
// 90-degree circle arcs extruded along z, so the lateral lines are shared by the neighbouring
// surfaces: one closed surface without duplicated nodes).
// Boundary conditions (physical group "ambient"): both end circles, and the axial line at
// (0, R) (angle 90 degrees), a groove at ambient pressure and full film (theta = 1 with JFO).
// Put the journal's centre on the -y side (eccentricity along -y) so that the groove lies at
// the largest film, as in Raimondi and Boyd's full bearing.  Surface group: film.

R  = 0.02;    // bore radius [m]
L  = 0.04;    // bearing length [m], L/D = 1
nc = 180;     // quadrangles around the circumference (a multiple of 4)
nz = 40;      // quadrangles along the axis

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

// e[4 k]: the arc at z = L, e[4 k + 1]: the surface, e[4 k + 2 .. 4 k + 3]: the axial lines;
// e[2] is the axial line through Point 3 (checked: the nodes at 90 degrees are the Dirichlet ones)
e[] = Extrude {0, 0, L} { Curve{1:4}; Layers{nz}; Recombine; };

Physical Curve("ambient") = {1:4, e[0], e[4], e[8], e[12], e[2]};
Physical Surface("film") = {e[1], e[5], e[9], e[13]};
