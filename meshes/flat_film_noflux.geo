// flat_film_noflux.geo: a flat square film surface for tribodyn (-<f>_surface), 0.04 m x 0.04 m
// in the plane z = 0 centred on the origin, 20 x 20 structured quadrangles.  The edges
// y = -0.02 and y = +0.02 are zero-flux (1-D physical group "noflux"); the edges x = -0.02 and
// x = +0.02 are ambient (group "ambient"): pressure flows only along x, as in a 1-D problem.

a = 0.04;   // side [m]
n = 20;     // quadrangles per side

Point(1) = {-a / 2, -a / 2, 0};
Point(2) = { a / 2, -a / 2, 0};
Point(3) = { a / 2,  a / 2, 0};
Point(4) = {-a / 2,  a / 2, 0};
Line(1) = {1, 2};  // y = -a/2
Line(2) = {2, 3};  // x = +a/2
Line(3) = {3, 4};  // y = +a/2
Line(4) = {4, 1};  // x = -a/2
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
Transfinite Curve {1:4} = n + 1;
Transfinite Surface {1};
Recombine Surface {1};

Physical Curve("noflux") = {1, 3};
Physical Curve("ambient") = {2, 4};
Physical Surface("film") = {1};
