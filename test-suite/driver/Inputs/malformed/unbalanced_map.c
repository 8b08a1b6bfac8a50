void f(int n, int *a) {
#pragma omp target spread map(tofrom: a[omp_spread_start:omp_spread_size)
  for (int i = 0; i < n; i++) a[i] = i;
}
