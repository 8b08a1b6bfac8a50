// LIBOMPTARGET_INFO=32 reports every data transfer on stderr.
//
// RUN: %clang-offload %s -o %t
// RUN: env LIBOMPTARGET_INFO=32 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env LIBOMPTARGET_INFO=32 %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=Copying --check-prefix=QUIET

#include <omp.h>
#include <stdio.h>

#define N 100

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int x[N];
  for (int i = 0; i < N; i++)
    x[i] = i;
  printf("before region\n");
  // CHECK: before region
  // QUIET: before region
#pragma omp target map(tofrom : x[0:N]) device(1)
  for (int i = 0; i < N; i++)
    x[i] = 2 * x[i] + 1;
  // CHECK: Copying data from host to device
  // CHECK: Copying data from device to host
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += x[i] != 2 * i + 1;
  printf("%s after region: mismatches=%d x[99]=%d\n", bad ? "FAIL" : "PASS", bad, x[N - 1]);
  // CHECK: PASS after region: mismatches=0 x[99]=199
  // QUIET: PASS after region: mismatches=0 x[99]=199
  return bad != 0;
}
