# The thread governor (src/solver/thread_governor.c) driven with chosen step costs and idle CPUs:
# the choices it must make are known beforehand.
tribodyn_test_program(test_thread_governor test_thread_governor.c unit)
