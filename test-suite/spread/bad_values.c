// Values the driver cannot check at compile time are range-checked by the lowered code and
// reported by the runtime with the construct and its location: a device of 'devices' that
// does not fit an int (it was silently truncated: 4294967297 became device 1) and a negative
// 'range' length (it was silently an empty range); likewise the device of 'wait device' and
// 'target update peer'. A constant that does not fit an int is a compile-time error.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -DBIG_DEVICE %s -o %t.dev
// RUN: not --crash %t.dev 2>&1 | FileCheck %s --check-prefix=DEV
// RUN: %spread-cc -O1 --spread-no-pass -DBIG_DEVICE %s -o %t.dev.nopass
// RUN: not --crash %t.dev.nopass 2>&1 | FileCheck %s --check-prefix=DEV
// RUN: %spread-cc -O1 -DNEG_LENGTH %s -o %t.len
// RUN: not --crash %t.len 2>&1 | FileCheck %s --check-prefix=LEN
// RUN: %spread-cc -O1 --spread-no-pass -DNEG_LENGTH %s -o %t.len.nopass
// RUN: not --crash %t.len.nopass 2>&1 | FileCheck %s --check-prefix=LEN
// RUN: not %spread-cc -O1 -DCONST_DEVICE -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=CONST
// RUN: %spread-cc -O1 -DWAIT_DEVICE %s -o %t.wait
// RUN: not --crash %t.wait 2>&1 | FileCheck %s --check-prefix=WAIT
// RUN: %spread-cc -O1 -DPEER_DEVICE %s -o %t.peer
// RUN: not --crash %t.peer 2>&1 | FileCheck %s --check-prefix=PEER

#include <stdio.h>

#define N 64

int main(int argc, char **argv) {
  static double A[N];
  (void)argv;
  long long big = 4294967296LL + argc; // 4294967297: device 1 once truncated
  int len = -5 * argc;
#ifdef BIG_DEVICE
#pragma omp target spread devices(0, big) map(tofrom : A[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    A[i] += 1;
  // DEV: omptarget error: device 4294967297 in the devices clause of the target spread at {{.*}}bad_values.c:[[#@LINE-3]] does not exist (a device number must fit an int; the runtime has {{[0-9]+}} devices)
  // DEV: bad_values.c:[[#@LINE-4]]: omptarget fatal error 1: failure of target construct while offloading is mandatory
#endif
#ifdef NEG_LENGTH
#pragma omp target enter data spread devices(0) range(0 : len) map(to : A[omp_spread_start : omp_spread_size])
  // LEN: omptarget error: the range of the target enter data spread at {{.*}}bad_values.c:[[#@LINE-1]] has a negative length (-5)
  // LEN: bad_values.c:[[#@LINE-2]]: omptarget fatal error 1: failure of target construct while offloading is mandatory
#endif
#ifdef WAIT_DEVICE
#pragma omp wait device(big)
  // WAIT: omptarget error: device 4294967297 of the wait device at {{.*}}bad_values.c:[[#@LINE-1]] does not exist (a device number must fit an int; the runtime has {{[0-9]+}} devices)
#endif
#ifdef PEER_DEVICE
#pragma omp target enter data map(to : A[0 : N]) device(0)
#pragma omp target update peer to(A[0 : N]) to_device(big) from(A[0 : N]) from_device(0)
  // PEER: omptarget error: device 4294967297 of the target update peer at {{.*}}bad_values.c:[[#@LINE-1]] does not exist
#endif
#ifdef CONST_DEVICE
#pragma omp target spread devices(0, 4294967297LL) map(tofrom : A[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    A[i] += 1;
  // CONST: bad_values.c:[[#@LINE-3]]:38: error: device number 4294967297LL in the 'devices' clause of 'target spread' does not fit an int
#endif
  printf("FAIL: returned (big=%lld, len=%d)\n", big, len);
  return 0;
}
