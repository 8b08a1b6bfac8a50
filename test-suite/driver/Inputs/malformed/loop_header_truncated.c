void f(int n, int *a) {
#pragma omp target spread devices(0)
  for (int i = 0; i < n
}
