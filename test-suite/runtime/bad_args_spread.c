// omp_target_free of a pointer omp_target_alloc did not return for that device ends the program
// with a message naming the pointer and the device, before anything is freed: a host pointer, a
// pointer freed already, a pointer into an allocation, another device's allocation.
//
// REQUIRES: spread
// Stock libomptarget 19 is worse on all four (its host plugin hands the pointer to free()): a
// foreign host pointer is freed behind the program's back, a second free returns quietly,
// an interior pointer aborts in glibc ("free(): invalid pointer"), and another device's
// allocation is freed and later freed again ("double free detected").
//
// RUN: %clang-offload %s -o %t
// RUN: not --crash %libpath-run %t foreign 2>&1 | FileCheck %s --check-prefixes=CHECK,FOREIGN
// RUN: not --crash %libpath-run %t twice 2>&1 | FileCheck %s --check-prefixes=CHECK,TWICE
// RUN: not --crash %libpath-run %t interior 2>&1 | FileCheck %s --check-prefixes=CHECK,INTERIOR
// RUN: not --crash %libpath-run %t other-device 2>&1 | FileCheck %s --check-prefixes=CHECK,OTHER
// RUN: not --crash %preload-run %t twice 2>&1 | FileCheck %s --check-prefixes=CHECK,TWICE
//
// CHECK: PASS valid free
// FOREIGN: freeing 0x[[P:[0-9a-f]+]] on device 0
// TWICE: freeing 0x[[P:[0-9a-f]+]] on device 0
// INTERIOR: freeing 0x[[P:[0-9a-f]+]] on device 0
// OTHER: freeing 0x[[P:[0-9a-f]+]] on device 1
// FOREIGN: omptarget fatal error 0: Failed to deallocate device ptr: 0x{{0*}}[[P]] was not allocated on device 0 by omp_target_alloc
// TWICE: omptarget fatal error 0: Failed to deallocate device ptr: 0x{{0*}}[[P]] was not allocated on device 0 by omp_target_alloc
// INTERIOR: omptarget fatal error 0: Failed to deallocate device ptr: 0x{{0*}}[[P]] was not allocated on device 0 by omp_target_alloc
// OTHER: omptarget fatal error 1: Failed to deallocate device ptr: 0x{{0*}}[[P]] was not allocated on device 1 by omp_target_alloc
// CHECK-NOT: returned

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  const char *c = argc > 1 ? argv[1] : "";
  void *d0 = omp_target_alloc(64, 0), *tmp = omp_target_alloc(64, 0);
  omp_target_free(tmp, 0);
  printf("%s valid free\n", d0 && tmp ? "PASS" : "FAIL");
  void *p = NULL;
  int dev = 0;
  if (!strcmp(c, "foreign"))
    p = malloc(64);
  else if (!strcmp(c, "twice"))
    p = tmp;
  else if (!strcmp(c, "interior"))
    p = (char *)d0 + 8;
  else if (!strcmp(c, "other-device"))
    p = d0, dev = 1;
  printf("freeing %p on device %d\n", p, dev);
  omp_target_free(p, dev);
  printf("returned\n");
  return 0;
}
