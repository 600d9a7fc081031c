# Threaded product (src/solver/seqaij_threads.c) and COO assembly (src/solver/coo_map.c) of the
# one-rank Jacobian: against sums formed from the COO triplets, on 1-4 threads.
tribodyn_test_program(test_seqaij_threads test_seqaij_threads.c unit)
