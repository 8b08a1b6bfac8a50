// A task-sharing construct in a header (diag_any_header.c): one error, none for its arms.
static inline void header_blocks(float *a, float *b, int n, int bs) {
  for (int k = 0; k < n; k += bs) {
#pragma omp target device(any) map(to: a[k:bs]) map(from: b[k:bs])
#pragma omp if_device(cpu) teams distribute parallel for
#pragma omp if_device(host) parallel for
    for (int i = k; i < k + bs; i++) b[i] = 2 * a[i];
  }
}
