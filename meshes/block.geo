// block.geo: a 0.4 m x 0.1 m x 0.05 m block, 8 x 2 x 2 structured hexahedra (Gmsh built-in
// kernel, transfinite + recombine).  Every tribodyn cell must be a rectangular box, so use
// this file as a template: straight edges, Transfinite curves with uniform (Progression 1)
// spacing, Transfinite/Recombine surfaces and a Transfinite volume.
//   tribodyn -bodies blk -blk_mesh meshes/block.geo -blk_clamp left ...
// Surface groups (the names used as body:face): left (x=0), right (x=lx), front (y=0),
// back (y=ly), bottom (z=0), top (z=lz).  Volume group: block.

lx = 0.4; ly = 0.1; lz = 0.05;  // [m]
nx = 8;   ny = 2;   nz = 2;     // cells

Point(1) = {0,  0,  0};
Point(2) = {lx, 0,  0};
Point(3) = {lx, ly, 0};
Point(4) = {0,  ly, 0};
Point(5) = {0,  0,  lz};
Point(6) = {lx, 0,  lz};
Point(7) = {lx, ly, lz};
Point(8) = {0,  ly, lz};

Line(1)  = {1, 2}; Line(2)  = {2, 3}; Line(3)  = {3, 4}; Line(4)  = {4, 1};  // z = 0
Line(5)  = {5, 6}; Line(6)  = {6, 7}; Line(7)  = {7, 8}; Line(8)  = {8, 5};  // z = lz
Line(9)  = {1, 5}; Line(10) = {2, 6}; Line(11) = {3, 7}; Line(12) = {4, 8};  // vertical

Curve Loop(1) = {1, 2, 3, 4};     Plane Surface(1) = {1};  // bottom
Curve Loop(2) = {5, 6, 7, 8};     Plane Surface(2) = {2};  // top
Curve Loop(3) = {1, 10, -5, -9};  Plane Surface(3) = {3};  // front
Curve Loop(4) = {3, 12, -7, -11}; Plane Surface(4) = {4};  // back
Curve Loop(5) = {4, 9, -8, -12};  Plane Surface(5) = {5};  // left
Curve Loop(6) = {2, 11, -6, -10}; Plane Surface(6) = {6};  // right
Surface Loop(1) = {1, 2, 3, 4, 5, 6};
Volume(1) = {1};

Transfinite Curve {1, 3, 5, 7} = nx + 1;
Transfinite Curve {2, 4, 6, 8} = ny + 1;
Transfinite Curve {9, 10, 11, 12} = nz + 1;
Transfinite Surface {1:6};
Recombine Surface {1:6};
Transfinite Volume {1};

Physical Surface("bottom") = {1};
Physical Surface("top") = {2};
Physical Surface("front") = {3};
Physical Surface("back") = {4};
Physical Surface("left") = {5};
Physical Surface("right") = {6};
Physical Volume("block") = {1};
