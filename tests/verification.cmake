# Verification against independent references, running the tribodyn program (label verification).
# tribodyn_python_test(NAME SCRIPT LABELS...) runs tests/SCRIPT with /usr/bin/python3.
function(tribodyn_python_test name script)
  add_test(NAME ${name} COMMAND ${TRIBODYN_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/${script})
  set_tests_properties(${name} PROPERTIES LABELS "${ARGN}" TIMEOUT 900
    ENVIRONMENT "TRIBODYN_EXE=$<TARGET_FILE:tribodyn>;TRIBODYN_MPIEXEC=${MPIEXEC_EXECUTABLE};TRIBODYN_SOURCE_DIR=${PROJECT_SOURCE_DIR};OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1")
endfunction()

tribodyn_python_test(beam_statics verification/beam_statics.py verification)
tribodyn_python_test(guide_frequencies verification/guide_frequencies.py verification)
tribodyn_python_test(time_integration verification/time_integration.py verification)
tribodyn_python_test(parallel_consistency verification/parallel_consistency.py verification mpi)
tribodyn_python_test(jacobian verification/jacobian.py verification)
tribodyn_python_test(joints_loads verification/joints_loads.py verification)
tribodyn_python_test(step_control verification/step_control.py verification)
tribodyn_python_test(film_bearings verification/film_bearings.py verification)
tribodyn_python_test(film_jacobian verification/film_jacobian.py verification)
tribodyn_python_test(coupled_film verification/coupled_film.py verification)
tribodyn_python_test(slider_guide_mpi verification/slider_guide_mpi.py verification mpi)
tribodyn_python_test(slider_guide_convergence verification/slider_guide_convergence.py slow)
tribodyn_python_test(slider_guide_jacobian verification/slider_guide_jacobian.py slow)
# the slow studies run the slider-guide case for minutes (tools/test-slow)
set_tests_properties(slider_guide_convergence slider_guide_jacobian PROPERTIES TIMEOUT 3600)
tribodyn_python_test(restart verification/restart.py verification mpi)
