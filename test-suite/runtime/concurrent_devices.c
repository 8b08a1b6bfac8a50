// Four host devices computing at once (nowait target tasks) share the cores:
// each kernel's parallel region gets an equal share of SPREAD_HOST_THREADS,
// and every device's result matches the serial computation.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: env SPREAD_HOST_THREADS=8 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_THREADS=8 %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 4096
#define D 4

int main(void) {
  static double x[D][N];
  int threads[D];
  int ndev = omp_get_num_devices();
  if (ndev < D) {
    printf("FAIL: %d devices\n", ndev);
    return 1;
  }
#pragma omp parallel num_threads(D)
#pragma omp single
  for (int d = 0; d < D; d++) {
    double *xd = x[d];
    int *td = &threads[d];
#pragma omp target teams distribute parallel for map(from : xd[0:N], td[0:1]) device(d) nowait
    for (int i = 0; i < N; i++) {
      if (i == 0) {
        // Hold the device long enough for the others to start.
        usleep(200000);
        *td = omp_get_num_threads();
      }
      xd[i] = d * 1000.0 + i * 0.5;
    }
  }
  int bad = 0;
  for (int d = 0; d < D; d++)
    for (int i = 0; i < N; i++)
      bad += x[d][i] != d * 1000.0 + i * 0.5;
  printf("%s results: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  // CHECK: PASS results: 0 mismatches
  int min = 1 << 30;
  for (int d = 0; d < D; d++)
    min = threads[d] < min ? threads[d] : min;
  // Kernels that start while others run get a share, not all 8 threads.
  printf("%s smallest thread count while shared: %d\n", min < 8 && min >= 1 ? "PASS" : "FAIL", min);
  // CHECK: PASS smallest thread count while shared
  return 0;
}
