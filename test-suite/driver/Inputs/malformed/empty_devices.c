void f(int n, int *a) {
#pragma omp target spread devices()
  for (int i = 0; i < n; i++) a[i] = i;
}
