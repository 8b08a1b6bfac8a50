void f(int n, int *a) {
#pragma omp target spread devices(2147483648)
  for (int i = 0; i < n; i++) a[i] = i;
}
