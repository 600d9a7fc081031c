# Linearisation of projected ANCF face points (src/kernels/projection.c, film_linearize_ancf_face;
# formulation.md F6-F9, §6): exact derivatives of uv, n.r, the normal rate, v and the profile
# terms with respect to e and edot against central differences with re-projection.
tribodyn_test_program(test_projection_linearization test_projection_linearization.c unit)
