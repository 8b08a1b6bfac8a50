// A `present` map that is larger than the existing mapping of its data is an
// explicit extension, and libomptarget then also reports that the `present`
// mapping does not exist: both lines, in this order, then the failed
// construct.
//
// RUN: %clang-offload %s -o %t
// RUN: not --crash %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <stdio.h>

#define N 100

int main(void) {
  int arr[N];
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("start\n");
  // CHECK: start
#pragma omp target data map(alloc : arr[0:N / 2])
  {
#pragma omp target map(present, tofrom : arr[0:N])
    arr[0] = 1;
  }
  printf("FAIL: construct with a partly present 'present' map returned\n");
  return 0;
}

// CHECK-NEXT: omptarget message: explicit extension not allowed: host address specified is 0x{{[0-9a-f]+}} (400 bytes), but device allocation maps to host at 0x{{[0-9a-f]+}} (200 bytes)
// CHECK-NEXT: omptarget message: device mapping required by 'present' map type modifier does not exist for host address 0x{{[0-9a-f]+}} (400 bytes)
// CHECK-NEXT: omptarget error: Call to getTargetPointer returned null pointer ('present' map type modifier).
// CHECK-NEXT: omptarget error: Call to targetDataBegin failed, abort target.
// CHECK-NEXT: omptarget error: Failed to process data before launching the kernel.
// CHECK: omptarget fatal error 1: failure of target construct while offloading is mandatory
