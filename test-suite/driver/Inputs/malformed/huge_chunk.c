void f(int n, int *a) {
#pragma omp target spread spread_schedule(static, 99999999999999999999999999999999999999999) devices(0)
  for (int i = 0; i < n; i++) a[i] = i;
}
