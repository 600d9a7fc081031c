// ring.geo: a thin ring in the x-y plane, mean radius R, radial thickness h, axial width w
// (z from 0 to w), meshed with structured hexahedra: 4 NT cells around (four quarter-arc
// patches, transfinite and recombined, extruded along z), one cell through the thickness and
// one across the width.  Used by tests/verification/curved_bodies.py (in-plane bending
// frequencies of a free ring).
// Surface groups: inner (r = R - h/2), outer (r = R + h/2), side0 (z = 0), side1 (z = w).
// Volume group: ring.
// Parameters: change them here, or define them in your own .geo before including this one
// (a value defined beforehand wins), as described in tube.geo.
If (!Exists(R))  R  = 0.1;   EndIf  // mean radius [m]
If (!Exists(h))  h  = 0.005; EndIf  // radial thickness [m]
If (!Exists(w))  w  = 0.005; EndIf  // axial width [m]
If (!Exists(NT)) NT = 12;    EndIf  // cells along each quarter arc (4 NT around)

ri = R - h / 2;
ro = R + h / 2;
Point(1) = {0, 0, 0};                                  // centre of the arcs
Point(2) = { ri, 0, 0}; Point(3) = {0,  ri, 0}; Point(4) = {-ri, 0, 0}; Point(5) = {0, -ri, 0};
Point(6) = { ro, 0, 0}; Point(7) = {0,  ro, 0}; Point(8) = {-ro, 0, 0}; Point(9) = {0, -ro, 0};

Circle(1) = {2, 1, 3}; Circle(2) = {3, 1, 4}; Circle(3) = {4, 1, 5}; Circle(4) = {5, 1, 2};  // inner
Circle(5) = {6, 1, 7}; Circle(6) = {7, 1, 8}; Circle(7) = {8, 1, 9}; Circle(8) = {9, 1, 6};  // outer
Line(9) = {2, 6}; Line(10) = {3, 7}; Line(11) = {4, 8}; Line(12) = {5, 9};                 // radial

Curve Loop(1) = {9,  5, -10, -1}; Plane Surface(1) = {1};
Curve Loop(2) = {10, 6, -11, -2}; Plane Surface(2) = {2};
Curve Loop(3) = {11, 7, -12, -3}; Plane Surface(3) = {3};
Curve Loop(4) = {12, 8,  -9, -4}; Plane Surface(4) = {4};

Transfinite Curve {1:8} = NT + 1;
Transfinite Curve {9:12} = 2;       // one cell through the thickness
Transfinite Surface {1:4};
Recombine Surface {1:4};

// per base surface: top, volume, then the laterals in the order of its curve loop
ex[] = Extrude {0, 0, w} { Surface{1:4}; Layers{1}; Recombine; };

Physical Surface("side0") = {1:4};
Physical Surface("side1") = {ex[0], ex[6], ex[12], ex[18]};
Physical Surface("outer") = {ex[3], ex[9], ex[15], ex[21]};
Physical Surface("inner") = {ex[5], ex[11], ex[17], ex[23]};
Physical Volume("ring") = {ex[1], ex[7], ex[13], ex[19]};
