void f(int n, int *a) {
#pragma omp target spread devices(99999999999999999999999999999999999999999999)
  for (int i = 0; i < n; i++) a[i] = i;
}
