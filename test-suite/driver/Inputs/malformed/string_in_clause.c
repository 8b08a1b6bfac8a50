void f(int n, int *a) {
#pragma omp target spread devices("0") map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] = i;
}
