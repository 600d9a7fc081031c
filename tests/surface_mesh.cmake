# Film surface module (src/io/surface_mesh.c): the default rectangle, Gmsh quad meshes of flat and
# curved surfaces (meshes/journal_film.geo, meshes/flat_film_noflux.geo), bad inputs.
tribodyn_test_program(test_surface_mesh test_surface_mesh.c unit)
target_compile_definitions(test_surface_mesh PRIVATE TRIBODYN_SOURCE_DIR="${TRIBODYN_SOURCE_DIR}")
set_tests_properties(test_surface_mesh PROPERTIES WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} TIMEOUT 60)
# Every rank loads the surface on its own: Gmsh must work under mpiexec.
if(TRIBODYN_MPIEXEC)
  add_test(NAME test_surface_mesh_mpi2 COMMAND ${TRIBODYN_MPIEXEC} -n 2 $<TARGET_FILE:test_surface_mesh>)
  set_tests_properties(test_surface_mesh_mpi2 PROPERTIES LABELS "mpi" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} TIMEOUT 120)
endif()
