// A kernel that accesses memory outside the sections mapped for it, on a host device, is
// reported as Spread's error (runtime/src/runtime/fault.rs) instead of corrupting the program's
// heap or dying of a bare SIGSEGV: host devices keep each block between guard regions
// (runtime/src/device/host/guarded.rs). The report names the device, the construct and chunk,
// the address's distance from the nearest section, the section's variable (with -g) and what
// to check; the program ends as libomptarget's fatal errors do (abort). One run per case:
//   after    chunk [512,1024) (device 1) writes B[1026], 16 bytes past the end of its section
//   before   chunk [1536,2048) (device 3) reads A[1534], 16 bytes before the start of its section
//   swapped  a Jacobi sweep whose collapse(2) loops are swapped: chunks read rows of f_old
//            outside their row sections (which chunk faults first varies)
//   target   a plain target construct writes one element past its section (device 2)
//   null     a plain target construct reads through a null pointer: not Spread's fault, so the
//            process dies of SIGSEGV as before, after the same line (the nearest section)
// Without -g the sections have no names and the plain construct no location.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -g %s -o %t
// RUN: %spread-cc -O1 -g0 %s -o %t.nog
// RUN: not --crash env SPREAD_DEVICES=host %t after 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: not --crash env SPREAD_DEVICES=host %t before 2>&1 | FileCheck %s --check-prefix=BEFORE
// RUN: not --crash env SPREAD_DEVICES=host %t swapped 2>&1 | FileCheck %s --check-prefix=SWAPPED
// RUN: not --crash env SPREAD_DEVICES=host %t target 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not --crash env SPREAD_DEVICES=host %t.nog after 2>&1 | FileCheck %s --check-prefix=NOG
// RUN: not --crash env SPREAD_DEVICES=host %t.nog target 2>&1 | FileCheck %s --check-prefix=NOGTARGET
// RUN: not --crash env SPREAD_DEVICES=host %t null 2>&1 | FileCheck %s --check-prefix=NULL
// RUN: env SPREAD_DEVICES=host %t none | FileCheck %s --check-prefix=NONE

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096
#define C 512
#define R 256 // rows and columns of the Jacobi grid

static double A[N], B[N];
static double *volatile nowhere;

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "none";
  int after = !strcmp(mode, "after"), before = !strcmp(mode, "before");
  for (int i = 0; i < N; i++)
    A[i] = i;

  if (!strcmp(mode, "swapped")) {
    double *f_old = malloc(sizeof(double) * R * R), *f_new = malloc(sizeof(double) * R * R);
    for (int i = 0; i < R * R; i++)
      f_old[i] = i % 7, f_new[i] = 0;
#pragma omp target spread teams distribute parallel for collapse(2) devices(0, 1, 2, 3) spread_schedule(static, 32) \
    map(to : f_old[(omp_spread_start - 1) * R : (omp_spread_size + 2) * R])                    \
    map(from : f_new[omp_spread_start * R : omp_spread_size * R])
    for (int j = 1; j < R - 1; j++)
      for (int i = 1; i < R - 1; i++)
        f_new[i * R + j] = 0.25 * (f_old[(i - 1) * R + j] + f_old[(i + 1) * R + j] +
                                   f_old[i * R + j - 1] + f_old[i * R + j + 1]);
    // SWAPPED: spread: error: a kernel on host device [[#]] accessed 0x{{[0-9a-f]+}}, [[#]] bytes {{before the start|past the end}} of the section of 'f_old' [host 0x{{[0-9a-f]+}}+[[#]]) mapped for target spread {{.*}}guard_fault.c:[[#@LINE-7]] chunk [{{[0-9]+}},{{[0-9]+}}): check the map clause's section bounds against the loop's accesses (with collapse(2), is the spread loop the outer one?)
    // SWAPPED-NEXT: omptarget fatal error 1: a kernel accessed memory outside the data mapped on its device (SIGSEGV)
    printf("FAIL: swapped loops ran (%f)\n", f_new[R + 1]);
    return 1;
  }

  if (!strcmp(mode, "target")) {
#pragma omp target teams distribute parallel for map(tofrom : B[0 : C]) device(2)
    for (int i = 0; i < C; i++)
      B[i + (i == C - 1)] = i; // the last iteration writes B[C]
    // TARGET: spread: error: a kernel on host device 2 accessed 0x{{[0-9a-f]+}}, just past the end of the section of 'B' [host 0x{{[0-9a-f]+}}+4096) mapped for the target construct at {{.*}}guard_fault.c:[[#@LINE-3]]:{{[0-9]+}}: check the map clause's section bounds against the loop's accesses{{$}}
    // TARGET-NEXT: omptarget fatal error 1: a kernel accessed memory outside the data mapped on its device (SIGSEGV)
    // NOGTARGET: spread: error: a kernel on host device 2 accessed 0x{{[0-9a-f]+}}, just past the end of a section (compile with -g for variable names) [host 0x{{[0-9a-f]+}}+4096) mapped for a target construct (compile with -g or -gline-tables-only for its location): check
    printf("FAIL: the target construct ran\n");
    return 1;
  }

  if (!strcmp(mode, "null")) {
#pragma omp target map(tofrom : B[0 : C]) device(0)
    B[1] = *nowhere;
    // NULL: spread: error: a kernel on host device 0 faulted (SIGSEGV) accessed 0x0 (instruction at 0x{{[0-9a-f]+}}): a null pointer, or an access the processor refused (a misaligned vector access reports address 0), in the target construct at {{.*}}guard_fault.c:[[#@LINE-2]]:{{[0-9]+}}{{$}}
    // NULL-NOT: omptarget fatal error
    printf("FAIL: the null pointer was read\n");
    return 1;
  }

#pragma omp target spread teams distribute parallel for devices(0, 1, 2, 3) spread_schedule(static, C) \
    map(to : A[omp_spread_start : omp_spread_size]) map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++) {
    B[i] = A[i];
    if (after && i == 2 * C - 1)
      B[i + 3] = -1;
    if (before && i == 3 * C)
      B[i] += A[i - 2];
  }
  // AFTER: spread: error: a kernel on host device 1 accessed 0x{{[0-9a-f]+}}, 16 bytes past the end of the section of 'B' [host 0x{{[0-9a-f]+}}+4096) mapped for target spread {{.*}}guard_fault.c:[[#@LINE-9]] chunk [512,1024): check the map clause's section bounds against the loop's accesses (with collapse(2), is the spread loop the outer one?)
  // AFTER-NEXT: omptarget fatal error 1: a kernel accessed memory outside the data mapped on its device (SIGSEGV)
  // BEFORE: spread: error: a kernel on host device 3 accessed 0x{{[0-9a-f]+}}, 16 bytes before the start of the section of 'A' [host 0x{{[0-9a-f]+}}+4096) mapped for target spread {{.*}}guard_fault.c:[[#@LINE-11]] chunk [1536,2048): check
  // NOG: spread: error: a kernel on host device 1 accessed 0x{{[0-9a-f]+}}, 16 bytes past the end of a section (compile with -g for variable names) [host 0x{{[0-9a-f]+}}+4096) mapped for target spread {{.*}}guard_fault.c:[[#@LINE-12]] chunk [512,1024): check
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += B[i] != A[i];
  printf("%s: %d wrong\n", bad ? "FAIL" : "PASS", bad);
  // NONE: PASS: 0 wrong
  return bad != 0;
}
