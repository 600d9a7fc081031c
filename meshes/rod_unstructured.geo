// rod_unstructured.geo: a round steel rod (radius 0.03 m, length 0.2 m along z) meshed with
// unstructured all-hexahedral cells: Gmsh's tetrahedra each split into four hexahedra
// (Mesh.SubdivisionAlgorithm = 2), so that no two cells are congruent and every cell has
// element tables of its own (src/model/element_tables.c; tests/verification/curved_ranks.py).
// Surface groups: side, end0 (z = 0), end1 (z = 0.2).  Volume group: rod.
// Parameters: define Lc (the tetrahedra's size [m]) before including this file, or
// gmsh -3 -setnumber Lc 0.01 meshes/rod_unstructured.geo.
If (!Exists(Lc)) Lc = 0.03; EndIf
SetFactory("OpenCASCADE");
Cylinder(1) = {0, 0, 0, 0, 0, 0.2, 0.03};
Mesh.CharacteristicLengthMax = Lc;
Mesh.SubdivisionAlgorithm = 2;
Physical Volume("rod") = {1};
Physical Surface("side") = {1};
Physical Surface("end1") = {2};
Physical Surface("end0") = {3};
