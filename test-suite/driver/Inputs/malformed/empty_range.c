void f(int n, int *a) {
#pragma omp target enter data spread range() map(to: a[0:n])
}
