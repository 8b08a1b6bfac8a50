// A spread construct that names only one of omp_spread_start / omp_spread_size
// (a halo row refreshed by `target update spread`) compiles cleanly with -Wall
// -Werror: the driver's chunk locals must not warn on lines the user did not
// write (they drew `unused variable 'omp_spread_size'`, twice, on another
// construct's line).
//
// REQUIRES: spread
// RUN: %spread-cc -Wall -Wextra -Werror -O1 -c %s -o %t.o

#define N 64
double A[N * N];

void halo(int c) {
#pragma omp target data spread range(1 : N - 2) chunk_size(c)                 \
    map(tofrom : A[(omp_spread_start - 1) * N : (omp_spread_size + 2) * N])
  {
#pragma omp target update spread range(1 : N - 2) chunk_size(c)              \
    from(A[omp_spread_start * N : N])
#pragma omp target update spread range(1 : N - 2) chunk_size(c)              \
    to(A[(omp_spread_start - 1) * N : N])
  }
}
