// Mapping a section of a null pointer with a nonzero length: stock
// libomptarget reads the null page and dies of SIGSEGV; Spread refuses the
// construct with libomptarget's error lines and the source location, and
// nothing stays mapped (the earlier map of `other` is taken back).
//
// REQUIRES: spread
// RUN: %clang-offload -gline-tables-only %s -o %t
// RUN: not --crash %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash env LIBOMPTARGET_INFO=4 %preload-run %t 2>&1 | FileCheck %s --check-prefixes=CHECK,TABLE --implicit-check-not=FAIL

#include <stdio.h>

int main(void) {
  int *p = NULL;
  int other[4] = {1, 2, 3, 4};
  setvbuf(stdout, NULL, _IONBF, 0);
  // A zero-length section of a null pointer is fine.
#pragma omp target map(tofrom : p[0:0])
  { }
  printf("zero-length section of NULL: ok\n");
  // CHECK: zero-length section of NULL: ok

#pragma omp target map(tofrom : other[0:4], p[0:100])
  {
    if (p)
      p[0] = other[0];
  }
  printf("FAIL: construct mapping a null section returned\n");
  return 0;
}

// CHECK: omptarget message: host address 0x0000000000000000 (400 bytes) is not program memory: a section of a null pointer cannot be mapped
// CHECK-NEXT: omptarget error: Call to getTargetPointer returned null pointer (device failure or illegal mapping).
// CHECK-NEXT: omptarget error: Call to targetDataBegin failed, abort target.
// CHECK-NEXT: omptarget error: Failed to process data before launching the kernel.
// TABLE: OpenMP Host-Device pointer mappings table empty
// CHECK: null_section.c:23:{{[0-9]+}}: omptarget fatal error 1: failure of target construct while offloading is mandatory
