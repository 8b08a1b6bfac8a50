void f(int n, int *a) {
  _Pragma("omp target spread devices(0") for (int i = 0; i < n; i++) a[i] = i;
}
