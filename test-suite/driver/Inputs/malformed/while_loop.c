void f(int n, int *a) {
#pragma omp target spread devices(0)
  while (n--) a[n] = 0;
}
