# Projection kernels (src/kernels/projection.c, formulation.md F6-F9): film points onto ANCF
# faces, bilinear quads and cylinders; the normal rate dh/dt against finite differences in time.
tribodyn_test_program(test_projection test_projection.c unit)
