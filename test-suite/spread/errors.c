// Runtime errors of spread constructs name the construct and its location: a
// device list with a device that does not exist, and chunks whose halos overlap
// on one device (the standard OpenMP mapping error plus which chunks overlap),
// a range with a negative length.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -DBAD_DEVICE %s -o %t.dev
// RUN: not --crash %t.dev 2>&1 | FileCheck %s --check-prefix=DEV
// RUN: %spread-cc -O1 -DOVERLAP %s -o %t.overlap
// RUN: not --crash %t.overlap 2>&1 | FileCheck %s --check-prefix=OVERLAP
// RUN: %spread-cc -O1 -DNEGATIVE_RANGE %s -o %t.neg
// RUN: not --crash %t.neg 2>&1 | FileCheck %s --check-prefix=NEG

#include <stdio.h>

#define N 64

int main(void) {
  static double A[N];
  int last = 7;
#ifdef BAD_DEVICE
#pragma omp target spread devices(0, last) map(tofrom : A[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    A[i] += 1;
  // DEV: omptarget error: device 7 in the devices clause of the target spread at {{.*}}errors.c:[[#@LINE-3]] does not exist (the runtime has 4 devices; the host is omp_get_initial_device() = 4)
  // DEV: errors.c:[[#@LINE-4]]: omptarget fatal error 1: failure of target construct while offloading is mandatory
#endif
#ifdef OVERLAP
  // Chunks of 8 on one device with a halo of 8 on each side overlap.
#pragma omp target enter data spread devices(2) range(8 : 48) chunk_size(8)   \
    map(to : A[omp_spread_start - 8 : omp_spread_size + 16])
  // OVERLAP: omptarget message: explicit extension not allowed
  // OVERLAP: omptarget error: in target enter data spread {{.*}}errors.c:[[#@LINE-3]] chunk [16,24) on device 2
  // OVERLAP: omptarget error: the data of chunk [16,24) overlaps data mapped for chunk(s) [8,16) on device 2
  // OVERLAP: fatal error 1: failure of target construct while offloading is mandatory
#endif
#ifdef NEGATIVE_RANGE
  int len = 4 - last;
#pragma omp target update spread devices(0, 1) range(8 : len) chunk_size(1)   \
    to(A[omp_spread_start : omp_spread_size])
  // NEG: omptarget error: the range of the target update spread at {{.*}}errors.c:[[#@LINE-2]] has a negative length (-3)
  // NEG: errors.c:[[#@LINE-3]]: omptarget fatal error 1: failure of target construct while offloading is mandatory
#endif
  printf("FAIL: returned (last=%d)\n", last);
  return 0;
}
