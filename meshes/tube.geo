// tube.geo: a thick-walled tube along z, inner radius a, outer radius b, length L, meshed with
// structured (transfinite) hexahedra: the annulus in the plane z = 0 is split into four
// quarter-arc patches (circle arcs about the axis), each a transfinite, recombined quadrangle
// patch, and the annulus is extruded along z with Layers and Recombine.  The tube has a hole,
// so every cell is a hexahedron (no prisms at the axis).
//   tribodyn -bodies tube -tube_mesh meshes/tube.geo -tube_clamp end0 ...
// Surface groups (the names used as body:face): inner (r = a), outer (r = b), end0 (z = 0),
// end1 (z = L).  Volume group: tube.
//
// Parameters.  tribodyn only opens the file, so change the defaults below, or define any of
// them in a small .geo of your own before including this one, e.g.
//     NT = 12; NR = 4;
//     Include "/path/to/meshes/tube.geo";
// (meshes/tube_order2.geo does this to ask for second-order hexahedra), or on the gmsh command
// line: gmsh -3 -setnumber NT 12 meshes/tube.geo.  A value defined beforehand wins.
If (!Exists(a))  a  = 0.05; EndIf   // inner radius [m]
If (!Exists(b))  b  = 0.1;  EndIf   // outer radius [m]
If (!Exists(L))  L  = 0.02; EndIf   // length [m], z from 0 to L
If (!Exists(NT)) NT = 6;    EndIf   // cells along each quarter arc (4 NT around)
If (!Exists(NR)) NR = 2;    EndIf   // cells through the wall
If (!Exists(NZ)) NZ = 1;    EndIf   // cells along the axis

Point(1) = {0, 0, 0};                                  // centre of the arcs
Point(2) = { a, 0, 0}; Point(3) = {0,  a, 0}; Point(4) = {-a, 0, 0}; Point(5) = {0, -a, 0};
Point(6) = { b, 0, 0}; Point(7) = {0,  b, 0}; Point(8) = {-b, 0, 0}; Point(9) = {0, -b, 0};

Circle(1) = {2, 1, 3}; Circle(2) = {3, 1, 4}; Circle(3) = {4, 1, 5}; Circle(4) = {5, 1, 2};  // inner
Circle(5) = {6, 1, 7}; Circle(6) = {7, 1, 8}; Circle(7) = {8, 1, 9}; Circle(8) = {9, 1, 6};  // outer
Line(9) = {2, 6}; Line(10) = {3, 7}; Line(11) = {4, 8}; Line(12) = {5, 9};                 // radial

// quarter k (k = 1..4, from angle (k-1) 90 deg to k 90 deg), counter-clockwise seen from +z:
// radial line out, outer arc, radial line back, inner arc back
Curve Loop(1) = {9,  5, -10, -1}; Plane Surface(1) = {1};
Curve Loop(2) = {10, 6, -11, -2}; Plane Surface(2) = {2};
Curve Loop(3) = {11, 7, -12, -3}; Plane Surface(3) = {3};
Curve Loop(4) = {12, 8,  -9, -4}; Plane Surface(4) = {4};

Transfinite Curve {1:8} = NT + 1;
Transfinite Curve {9:12} = NR + 1;
Transfinite Surface {1:4};
Recombine Surface {1:4};

// for each base surface Extrude returns: top surface, volume, then the four lateral surfaces in
// the order of the base's curve loop (radial, outer arc, radial, inner arc)
ex[] = Extrude {0, 0, L} { Surface{1:4}; Layers{NZ}; Recombine; };

Physical Surface("end0") = {1:4};
Physical Surface("end1") = {ex[0], ex[6], ex[12], ex[18]};
Physical Surface("outer") = {ex[3], ex[9], ex[15], ex[21]};
Physical Surface("inner") = {ex[5], ex[11], ex[17], ex[23]};
Physical Volume("tube") = {ex[1], ex[7], ex[13], ex[19]};
