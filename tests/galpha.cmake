tribodyn_test_program(test_galpha test_galpha.c unit)
