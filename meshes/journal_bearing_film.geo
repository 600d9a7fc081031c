// journal_bearing_film.geo: the lubricant film of cases/journal_bearing_flexible.opts, a reference
// surface for tribodyn films (-<f>_surface): the bore's cylinder, radius R = 0.02 m, z from 0 to
// L = 0.02 m (L/D = 1/2), nc x nz structured quadrangles (four 90-degree arcs extruded along z,
// one closed surface without duplicated nodes, every node on the cylinder).  Both end circles
// are ambient (flooded, theta = 1 with JFO).  Surface group: film.
R  = 0.02;    // bore radius [m]
L  = 0.02;    // bearing length [m]
nc = 72;      // quadrangles around the circumference (a multiple of 4)
nz = 8;       // quadrangles along the axis

Point(1) = {0, 0, 0};
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
