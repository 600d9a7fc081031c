// slider_crank_bearing.geo: the lubricant film of the clearance joint C of the slider-crank
// (cases/slider_crank_film.opts), a reference surface for tribodyn films (-<f>_surface).
// The bore of the slider: a full cylinder of radius R about the axis x = 0.17, y = 0 (along z),
// from z = -L/2 to L/2, meshed with nc x nz structured quadrangles (four 90-degree arcs extruded
// along z, one closed surface).  Both end circles are at ambient pressure (physical group
// "ambient"); surface group "film".

R  = 0.010;   // bore radius [m]
L  = 0.040;   // bearing length [m]
xc = 0.17;    // axis position [m]
nc = 48;      // quadrangles around the circumference (a multiple of 4)
nz = 8;       // quadrangles along the axis

Point(1) = {xc, 0, -L / 2};
Point(2) = {xc + R, 0, -L / 2};
Point(3) = {xc, R, -L / 2};
Point(4) = {xc - R, 0, -L / 2};
Point(5) = {xc, -R, -L / 2};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Transfinite Curve {1:4} = nc / 4 + 1;

e[] = Extrude {0, 0, L} { Curve{1:4}; Layers{nz}; Recombine; };

Physical Curve("ambient") = {1:4, e[0], e[4], e[8], e[12]};
Physical Surface("film") = {e[1], e[5], e[9], e[13]};
