void f(int *a, int *b) {
#pragma omp target update peer to(a[0:4], b[0:4]) to_device(1) from(a[0:4]) from_device(0)
}
