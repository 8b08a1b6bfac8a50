void f(int n, int *a) {
#pragma omp target update spread range(0 n) to(a[0:n])
}
