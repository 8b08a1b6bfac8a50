void f(int n, int *a) {
#pragma omp target spread spread_schedule(static,
  for (int i = 0; i < n; i++) a[i] = i;
}
