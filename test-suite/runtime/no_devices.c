// Without devices (SPREAD_HOST_DEVICES=0) the default policy runs target regions
// on the host with correct results; OMP_TARGET_OFFLOAD=mandatory makes the same
// region a fatal error naming the cause.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: env SPREAD_HOST_DEVICES=0 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=0 %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=0 OMP_TARGET_OFFLOAD=mandatory not --crash %libpath-run %t 2>&1 | FileCheck %s --check-prefix=MANDATORY

#include <omp.h>
#include <stdio.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  printf("devices: %d\n", omp_get_num_devices());
  // CHECK: devices: 0
  int a[100], on_host = 0;
  for (int i = 0; i < 100; i++)
    a[i] = i;
#pragma omp target map(tofrom : a[0:100]) map(from : on_host)
  {
    on_host = omp_is_initial_device();
    for (int i = 0; i < 100; i++)
      a[i] *= 3;
  }
  int bad = 0;
  for (int i = 0; i < 100; i++)
    bad += a[i] != 3 * i;
  printf("%s host fallback: on_host=%d mismatches=%d\n", bad == 0 && on_host ? "PASS" : "FAIL", on_host, bad);
  // CHECK: PASS host fallback: on_host=1 mismatches=0
  // MANDATORY: offloading is mandatory but there are no devices
  // MANDATORY: omptarget fatal error 1: failure of target construct while offloading is mandatory
  return 0;
}
