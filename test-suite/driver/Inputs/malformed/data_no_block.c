void f(int n, int *a) {
#pragma omp target data spread range(0:n) map(a[0:n])
}
