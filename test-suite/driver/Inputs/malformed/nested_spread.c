void f(int n, int *a) {
#pragma omp target spread devices(0)
  for (int i = 0; i < n; i++) {
#pragma omp target spread devices(1)
    for (int j = 0; j < n; j++) a[j] = i;
  }
}
