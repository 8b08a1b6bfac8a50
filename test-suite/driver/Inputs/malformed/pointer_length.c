void f(int n, int *a) {
#pragma omp target enter data spread range(0:a) map(to: a[omp_spread_start:omp_spread_size])
}
