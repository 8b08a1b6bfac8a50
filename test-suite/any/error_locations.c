// Errors inside Spread's constructs name the construct's line even in a program built without
// debug information (clang's ident_t then has no location, and libomptarget says only "Source
// location information not present"): a mapping conflict in a device(any) instance's arm names
// the instance's construct (one host device and no host arm: the instance runs on device 0),
// one in a spread chunk its construct and chunk.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -g0 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=1 not --crash %t any 2>&1 | FileCheck %s --check-prefix=ANY
// RUN: env SPREAD_HOST_DEVICES=2 not --crash %t spread 2>&1 | FileCheck %s --check-prefix=SPREAD
// ANY: omptarget message: explicit extension not allowed
// ANY: omptarget error: in an instance of target device(any) {{.*}}error_locations.c:[[#ANYLINE:]] (compile with -g or -gline-tables-only for the failing construct's own location)
// ANY-NEXT: {{.*}}error_locations.c:[[#ANYLINE]]: omptarget fatal error 1: failure of target construct while offloading is mandatory
// SPREAD: omptarget message: explicit extension not allowed
// SPREAD: omptarget error: in target spread {{.*}}error_locations.c:[[#SPREADLINE:]] chunk [0,50) on device 0
// SPREAD: {{.*}}error_locations.c:[[#SPREADLINE]]: omptarget fatal error 1

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <string.h>

#define N 100
double a[N];

int main(int argc, char **argv) {
  // a[0:10] is mapped on device 0; the constructs below extend it there.
#pragma omp target enter data map(to : a[0 : 10]) device(0)
  if (argc > 1 && !strcmp(argv[1], "any")) {
#pragma omp target device(any) map(tofrom : a[0 : N])
#pragma omp if_device(cpu) teams distribute parallel for
    for (int i = 0; i < N; i++)
      a[i] += 1;
  } else {
#pragma omp target spread teams distribute parallel for devices(0, 1) \
    map(tofrom : a[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      a[i] += 1;
  }
  printf("FAIL: no error\n");
  return 0;
}
