// omp_target_memcpy and omp_target_memcpy_rect (and omp_target_memset) that
// would run past the end of a device allocation omp_target_alloc made: stock
// libomptarget copies anyway and corrupts the heap (SIGSEGV at exit); Spread
// refuses the copy, copies nothing, says why and returns an error.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  setvbuf(stderr, NULL, _IONBF, 0);
  int dev = 0, host = omp_get_initial_device();
  char *d = omp_target_alloc(100, dev);
  char h[400], back[100];
  memset(h, 7, sizeof h);
  memset(back, 0, sizeof back);
  if (omp_target_memcpy(d, h, 100, 0, 0, dev, host) != 0)
    printf("FAIL: in-bounds copy refused\n");

  memset(h, 9, sizeof h);
  int rc = omp_target_memcpy(d, h, 200, 0, 0, dev, host);
  printf("%s to device, 200 into 100: rc=%d\n", rc != 0 ? "PASS" : "FAIL", rc);
  // CHECK: omptarget error: 200 bytes at 0x{{[0-9a-f]+}} run past the end of the 100-byte allocation at 0x{{[0-9a-f]+}} on device 0
  // CHECK-NEXT: omptarget error: the destination of a 200-byte copy is too small
  // CHECK-NEXT: omptarget error: Call to omp_target_memcpy failed
  // CHECK-NEXT: PASS to device, 200 into 100

  rc = omp_target_memcpy(h, d, 200, 0, 0, host, dev);
  printf("%s from device, 200 of 100: rc=%d\n", rc != 0 ? "PASS" : "FAIL", rc);
  // CHECK: the source of a 200-byte copy is too small
  // CHECK: PASS from device, 200 of 100

  rc = omp_target_memcpy(d, h, 50, 80, 0, dev, host);
  printf("%s offset 80 + 50 bytes: rc=%d\n", rc != 0 ? "PASS" : "FAIL", rc);
  // CHECK: 50 bytes at 0x{{[0-9a-f]+}} run past the end of the 100-byte allocation
  // CHECK: PASS offset 80 + 50 bytes

  // 20 rows of 10 bytes into a 10x10 destination: the last rows are outside.
  size_t vol[2] = {20, 10}, zero[2] = {0, 0}, dd[2] = {10, 10}, hd[2] = {20, 20};
  rc = omp_target_memcpy_rect(d, h, 1, 2, vol, zero, zero, dd, hd, dev, host);
  printf("%s rect 20x10 into 10x10: rc=%d\n", rc != 0 ? "PASS" : "FAIL", rc);
  // CHECK: omptarget error: Call to omp_target_memcpy_rect failed
  // CHECK-NEXT: PASS rect 20x10 into 10x10

  // Offsets and dimensions whose byte positions overflow size_t: unchecked, the
  // arithmetic wraps to addresses anywhere in the process.
  size_t one[2] = {1, 10}, far[2] = {(size_t)-1 / 8, 0}, wide[2] = {10, (size_t)-1 / 2};
  rc = omp_target_memcpy_rect(d, h, 1, 2, one, far, zero, dd, hd, dev, host);
  printf("%s rect offset overflowing size_t: rc=%d\n", rc != 0 ? "PASS" : "FAIL", rc);
  // CHECK: omptarget error: the rectangle's volume, offsets and dimensions address more memory than exists
  // CHECK-NEXT: omptarget error: Call to omp_target_memcpy_rect failed
  // CHECK-NEXT: PASS rect offset overflowing size_t
  rc = omp_target_memcpy_rect(d, h, 4, 2, one, zero, zero, dd, wide, dev, host);
  printf("%s rect dimensions overflowing size_t: rc=%d\n", rc != 0 ? "PASS" : "FAIL", rc);
  // CHECK: omptarget error: the rectangle's volume
  // CHECK: PASS rect dimensions overflowing size_t

  // omp_target_memset has no error return: it says why and writes nothing.
  omp_target_memset(d + 50, 0, 100, dev);
  printf("memset past the end returned\n");
  // CHECK: omptarget error: 100 bytes at 0x{{[0-9a-f]+}} run past the end of the 100-byte allocation at 0x{{[0-9a-f]+}} on device 0
  // CHECK-NEXT: omptarget error: Call to omp_target_memset failed
  // CHECK-NEXT: memset past the end returned

  // Nothing of the refused copies reached the device.
  omp_target_memcpy(back, d, 100, 0, 0, host, dev);
  int same = 1;
  for (int i = 0; i < 100; i++)
    same &= back[i] == 7;
  printf("%s device memory unchanged\n", same ? "PASS" : "FAIL");
  // CHECK: PASS device memory unchanged
  omp_target_free(d, dev);
  return 0;
}
