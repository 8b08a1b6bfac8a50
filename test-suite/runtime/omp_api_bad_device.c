// omp_target_alloc on a device number that does not exist ends the program
// with a message naming the device number.
//
// RUN: %clang-offload %s -o %t
// RUN: not --crash %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  // A valid allocation first, so the runtime is initialised.
  void *ok = omp_target_alloc(64, 3);
  printf("%s valid device 3: %d\n", ok ? "PASS" : "FAIL", ok != NULL);
  // CHECK: PASS valid device 3: 1
  omp_target_free(ok, 3);

  void *p = omp_target_alloc(64, 9);
  // CHECK: {{9.*out of range|out of range.*9}}
  printf("FAIL: omp_target_alloc on device 9 returned %p\n", p);
  return 0;
}
