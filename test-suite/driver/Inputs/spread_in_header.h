// A spread construct in a header (diag_placement.c).
static inline void header_loop(int n, int *a) {
#pragma omp target spread devices(0) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] = 0;
}
