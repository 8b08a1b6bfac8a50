// A construct on a device that does not exist ends the program with the
// device number, the device count and the construct's source location.
//
// REQUIRES: spread
// RUN: %clang-offload -g %s -o %t
// RUN: not --crash %libpath-run %t 2>&1 | FileCheck %s
// RUN: not --crash env SPREAD_HOST_DEVICES=2 %preload-run %t 2>&1 | FileCheck %s --check-prefix=TWO

#include <stdio.h>

int main(void) {
  int x = 0;
#pragma omp target map(tofrom : x) device(7)
  x = 1;
  // CHECK: bad_device_location.c:[[@LINE-2]]:{{[0-9]+}}: omptarget fatal error 7: Device number '7' out of range, only 4 devices available
  // TWO: bad_device_location.c:[[@LINE-3]]:{{[0-9]+}}: omptarget fatal error 7: Device number '7' out of range, only 2 devices available
  printf("FAIL: x=%d\n", x);
  return 0;
}
