# Output module (src/io/output.c): test_output writes HDF5 + XDMF files, check_output.py reads
# them back (h5py, xml.etree, h5dump -H).  Fixtures make each check run after its writer.

tribodyn_test_program(test_output test_output.c unit)
set_tests_properties(test_output PROPERTIES FIXTURES_SETUP output_serial_files)
add_test(NAME check_output
  COMMAND ${TRIBODYN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_output.py ${CMAKE_CURRENT_BINARY_DIR}/output_serial)
set_tests_properties(check_output PROPERTIES LABELS unit FIXTURES_REQUIRED output_serial_files TIMEOUT 120)

# A run that ends without closing the file (as if killed) keeps its completed records.
add_test(NAME test_output_killed
  COMMAND $<TARGET_FILE:test_output> --killed ${CMAKE_CURRENT_BINARY_DIR}/output)
set_tests_properties(test_output_killed PROPERTIES LABELS unit FIXTURES_SETUP output_killed_files TIMEOUT 120)
add_test(NAME check_output_killed
  COMMAND ${TRIBODYN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_output.py --killed ${CMAKE_CURRENT_BINARY_DIR}/output)
set_tests_properties(check_output_killed PROPERTIES LABELS unit FIXTURES_REQUIRED output_killed_files TIMEOUT 120)

# Two ranks: rank 0 writes, rank 1 passes no data; the files must be the same.
add_test(NAME test_output_mpi
  COMMAND ${MPIEXEC_EXECUTABLE} --allow-run-as-root --oversubscribe -n 2 $<TARGET_FILE:test_output> ${CMAKE_CURRENT_BINARY_DIR}/output_mpi)
set_tests_properties(test_output_mpi PROPERTIES LABELS mpi FIXTURES_SETUP output_mpi_files TIMEOUT 300 PROCESSORS 2)
add_test(NAME check_output_mpi
  COMMAND ${TRIBODYN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_output.py ${CMAKE_CURRENT_BINARY_DIR}/output_mpi)
set_tests_properties(check_output_mpi PROPERTIES LABELS mpi FIXTURES_REQUIRED output_mpi_files TIMEOUT 120)
