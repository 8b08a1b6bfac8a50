void f(void) {
#pragma omp wait device(
