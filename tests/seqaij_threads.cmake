# Threaded product and COO assembly of the one-rank Jacobian (src/solver/seqaij_threads.c):
# against sums formed from the COO triplets, on 1-4 threads.
tribodyn_test_program(test_seqaij_threads test_seqaij_threads.c unit)
