// Exhausted device memory: the construct fails with a message naming the
// device, the size and the source location, and the mappings made earlier in
// the same construct are taken back (the API sees no half-applied mapping
// before the failing construct aborts).
//
// REQUIRES: spread
// RUN: %clang-offload -g %s -o %t
// RUN: not --crash %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  // omp_target_alloc reports failure with NULL and a message.
  void *p = omp_target_alloc((size_t)1 << 50, 0);
  printf("%s alloc of 1 PiB returned %p\n", p == NULL ? "PASS" : "FAIL", p);
  // CHECK: host device 0 cannot allocate 1125899906842624 bytes
  // CHECK: PASS alloc of 1 PiB returned (nil)

  int small[4] = {1, 2, 3, 4};
  char *huge = malloc(16); // never read: the device allocation fails first
  printf("mapping a 16 TiB section\n");
  // CHECK: mapping a 16 TiB section
#pragma omp target enter data map(to : small[0:4], huge[0:(size_t)1 << 44]) device(0)
  // CHECK: omptarget error: host device 0 cannot allocate 17592186044416 bytes
  // CHECK: omptarget error: Call to getTargetPointer returned null pointer (device failure or illegal mapping).
  // CHECK: out_of_memory.c:[[@LINE-3]]:{{[0-9]+}}: omptarget fatal error 1: failure of target construct while offloading is mandatory
  printf("FAIL: the construct returned\n");
  return 0;
}
