void f(int n, int *a) {
#pragma omp target spread teams parallel
  for (int i = 0; i < n; i++) a[i] = i;
}
