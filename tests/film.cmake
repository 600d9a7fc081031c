# Lubricant-film kernels (formulation.md §2-§3): closures and Greenwood-Tripp integral, the
# average-Reynolds element residual and its derivatives, tractions, dry contact, and the MMS
# convergence study of the Reynolds FEM on a flat and a cylindrical reference surface.
tribodyn_test_program(test_film_closures test_film_closures.c unit)
tribodyn_test_program(test_film_reynolds test_film_reynolds.c unit)
tribodyn_test_program(test_film_mms test_film_mms.c unit)
