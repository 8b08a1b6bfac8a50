// A `present` map of data that is not mapped on the construct's device is a
// fatal error, even when the data is mapped on another device.
//
// RUN: %clang-offload %s -o %t
// RUN: not --crash %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 32

int main(void) {
  int arr[N];
  for (int i = 0; i < N; i++)
    arr[i] = i;
  setvbuf(stdout, NULL, _IONBF, 0);

#pragma omp target enter data map(to : arr[0:N]) device(1)
  int ok = -1;
#pragma omp target map(present, tofrom : arr[0:N]) map(from : ok) device(1)
  ok = arr[N - 1] == N - 1;
  printf("%s present on device 1: ok=%d\n", ok == 1 ? "PASS" : "FAIL", ok);
  // CHECK: PASS present on device 1: ok=1

  // Mapped on device 1 only: device 2 has no mapping.
#pragma omp target map(present, tofrom : arr[0:N]) device(2)
  arr[0] = -1;
  printf("FAIL: construct with missing present data returned, arr[0]=%d\n", arr[0]);
  return 0;
}

// CHECK: device mapping required by 'present'
// CHECK: fatal error 1:
