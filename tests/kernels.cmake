# Element kernels (formulation.md §1): ANCF 3843 shape functions, mass, force, tangent.
tribodyn_test_program(test_ancf3843 test_ancf3843.c unit)
# Face evaluation of the ANCF 3843 shape functions (the 12 nonzero on a face), used by the film
# projections, against the whole-cell routine, the interpolation conditions and finite differences.
tribodyn_test_program(test_ancf3843_face test_ancf3843_face.c unit)
# Curved (mapped) cells: box tables, sector volume, homogeneous strain energy, tangent.
tribodyn_test_program(test_ancf3843_mapped test_ancf3843_mapped.c unit)
tribodyn_test_program(test_face_pressure test_face_pressure.c unit)
tribodyn_test_program(test_film_jfo test_film_jfo.c unit)
