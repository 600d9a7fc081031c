# Mesh module (src/io/mesh_gmsh.c): boxes through the Gmsh API, .geo/.msh files, bad inputs.
tribodyn_test_program(test_mesh test_mesh.c unit input)
target_compile_definitions(test_mesh PRIVATE TRIBODYN_SOURCE_DIR="${TRIBODYN_SOURCE_DIR}")
set_tests_properties(test_mesh PROPERTIES WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} TIMEOUT 60)
# Every rank meshes on its own (replicated meshes): Gmsh must work under mpiexec.
if(TRIBODYN_MPIEXEC)
  add_test(NAME test_mesh_mpi2 COMMAND ${TRIBODYN_MPIEXEC} -n 2 $<TARGET_FILE:test_mesh>)
  set_tests_properties(test_mesh_mpi2 PROPERTIES LABELS "mpi" WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} TIMEOUT 120)
endif()
