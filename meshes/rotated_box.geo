// rotated_box.geo: a 0.3 m x 0.2 m x 0.1 m box with 3 x 2 x 1 structured hexahedra (transfinite
// + recombine), rotated by 30 degrees about the z axis through the origin.  The cells are
// rotated rectangular boxes (the ANCF 3843 element accepts them); their material axes are the
// rotated x, y and z axes.
// Surface groups: xlow, xhigh, ylow, yhigh (the box's own faces before rotation), bottom, top.

lx = 0.3; ly = 0.2; lz = 0.1;  // [m]
angle = 30 * Pi / 180;         // about z
c = Cos(angle); s = Sin(angle);

// corners (x, y) of the unrotated box, rotated: (c x - s y, s x + c y)
Point(1) = {0,               0,               0};
Point(2) = {c*lx,            s*lx,            0};
Point(3) = {c*lx - s*ly,     s*lx + c*ly,     0};
Point(4) = {-s*ly,           c*ly,            0};
Point(5) = {0,               0,               lz};
Point(6) = {c*lx,            s*lx,            lz};
Point(7) = {c*lx - s*ly,     s*lx + c*ly,     lz};
Point(8) = {-s*ly,           c*ly,            lz};

Line(1)  = {1, 2}; Line(2)  = {2, 3}; Line(3)  = {3, 4}; Line(4)  = {4, 1};
Line(5)  = {5, 6}; Line(6)  = {6, 7}; Line(7)  = {7, 8}; Line(8)  = {8, 5};
Line(9)  = {1, 5}; Line(10) = {2, 6}; Line(11) = {3, 7}; Line(12) = {4, 8};

Curve Loop(1) = {1, 2, 3, 4};     Plane Surface(1) = {1};  // bottom
Curve Loop(2) = {5, 6, 7, 8};     Plane Surface(2) = {2};  // top
Curve Loop(3) = {1, 10, -5, -9};  Plane Surface(3) = {3};  // ylow
Curve Loop(4) = {3, 12, -7, -11}; Plane Surface(4) = {4};  // yhigh
Curve Loop(5) = {4, 9, -8, -12};  Plane Surface(5) = {5};  // xlow
Curve Loop(6) = {2, 11, -6, -10}; Plane Surface(6) = {6};  // xhigh
Surface Loop(1) = {1, 2, 3, 4, 5, 6};
Volume(1) = {1};

Transfinite Curve {1, 3, 5, 7} = 4;     // 3 cells along the box's x
Transfinite Curve {2, 4, 6, 8} = 3;     // 2 cells along its y
Transfinite Curve {9, 10, 11, 12} = 2;  // 1 cell along z
Transfinite Surface {1:6};
Recombine Surface {1:6};
Transfinite Volume {1};

Physical Surface("bottom") = {1};
Physical Surface("top") = {2};
Physical Surface("ylow") = {3};
Physical Surface("yhigh") = {4};
Physical Surface("xlow") = {5};
Physical Surface("xhigh") = {6};
Physical Volume("box") = {1};
