// The directives of seed 003 end to end: `target update peer` copies mapped
// array sections and scalars device to device (the i-th to item receives the
// i-th from item), `wait device(d)` waits for one device; results against the
// same steps on the host. Unmapped data and items of different sizes stop the
// program with the directive's location, as a failing `target update` does.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAILED
// RUN: %spread-cc -O1 -DUNMAPPED %s -o %t.unmapped
// RUN: not --crash %t.unmapped 2>&1 | FileCheck %s --check-prefix=UNMAPPED
// RUN: %spread-cc -O1 -DSIZES %s -o %t.sizes
// RUN: not --crash %t.sizes 2>&1 | FileCheck %s --check-prefix=SIZES

#include <omp.h>
#include <stdio.h>

#define N 1024

int main(void) {
  static double a[N], b[N];
  double s = 0, t = 0;
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = -i;
  }
#pragma omp target enter data map(to : a[0 : N], s) device(0)
#pragma omp target enter data map(to : b[0 : N], t) device(2)
#pragma omp target device(0) map(always, to : s)
  {
    for (int i = 0; i < N; i++)
      a[i] = 2 * a[i] + 1;
    s = 42;
  }
#pragma omp wait device(0)
  int lo = N / 4, len = N / 2, from = 0, to = 2;
  // b[lo:len] on device 2 receives a[0:len] from device 0, and t receives s.
#pragma omp target update peer to(b[lo : len], t) to_device(to) from(a[0 : len], s) from_device(from)
#pragma omp target device(2) map(tofrom : t) // t is present: the device copy is used
  for (int i = 0; i < N; i++)
    b[i] += t;
#pragma omp wait device(2)
#pragma omp target exit data map(from : b[0 : N], t) device(2)
#pragma omp target exit data map(release : a[0 : N], s) device(0)
  int ok = t == 42;
  for (int i = 0; i < N; i++) {
    double expect = (i >= lo && i < lo + len) ? 2 * (i - lo) + 1 : -i;
    ok &= b[i] == expect + 42;
  }
  printf("update peer and wait device: %s\n", ok ? "OK" : "FAILED");
  // CHECK: update peer and wait device: OK

#ifdef UNMAPPED
#pragma omp target enter data map(to : a[0 : N]) device(1)
#pragma omp target update peer to(b[0 : 8]) to_device(3) from(a[0 : 8]) from_device(1)
  // UNMAPPED: omptarget message: the destination data at host address 0x{{[0-9a-f]+}} (64 bytes) is not mapped on device 3
  // UNMAPPED: omptarget error: target update peer failed
  // UNMAPPED: peer_directive.c:[[#@LINE-3]]: omptarget fatal error 1: failure of target construct while offloading is mandatory
#endif
#ifdef SIZES
  int n = 8, m = 16;
#pragma omp target enter data map(to : a[0 : N]) device(1)
#pragma omp target enter data map(to : b[0 : N]) device(3)
#pragma omp target update peer to(b[0 : n]) to_device(3) from(a[0 : m]) from_device(1)
  // SIZES: target update peer: the to item has 64 bytes but the from item has 128
  // SIZES: peer_directive.c:[[#@LINE-2]]: omptarget fatal error 1: failure of target construct while offloading is mandatory
#endif
  return 0;
}
