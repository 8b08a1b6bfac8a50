// SPREAD_STRICT=1: a kernel on a host device that uses memory a GPU in its place could not reach
// is an error naming the construct, the variable and the memory: another device's
// omp_target_alloc block (is_device_ptr on the wrong device), memory of a space the device is
// not in. Without it both run (host devices share the host's memory); correct programs run the
// same either way, checked against the host's sum.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -g %s -o %t
// RUN: env SPREAD_HOST_DEVICES=3 SPREAD_STRICT=1 %t ok | FileCheck %s --check-prefix=OK
// RUN: env SPREAD_HOST_DEVICES=3 %t ok | FileCheck %s --check-prefix=OK
// RUN: env SPREAD_HOST_DEVICES=3 SPREAD_STRICT=1 not --crash %t devptr 2>&1 | FileCheck %s --check-prefix=DEVPTR
// RUN: env SPREAD_HOST_DEVICES=3 SPREAD_STRICT=1 not --crash %t space 2>&1 | FileCheck %s --check-prefix=SPACE
// RUN: env SPREAD_HOST_DEVICES=3 %t devptr | FileCheck %s --check-prefix=LAX
// OK: sum 32896 (want 32896)
// LAX: sum
// DEVPTR: omptarget message: SPREAD_STRICT: the target construct at {{.*}}strict.c:36:1 on host device 0 uses 0x{{[0-9a-f]+}} through 'd1': it is device 1's own memory (omp_target_alloc block [0x{{[0-9a-f]+}}+2048)); a GPU in host device 0's place could not reach it (map the data, or allocate it where the device reaches it)
// SPACE: omptarget message: SPREAD_STRICT: the target construct at {{.*}}strict.c:41:1 on host device 2 uses 0x{{[0-9a-f]+}} through 's': it is memory of a space of devices [0, 1] (omp_alloc from allocator 0x{{[0-9a-f]+}}), which device 2 is not in; a GPU in host device 2's place could not reach it

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <string.h>

#define N 256

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "ok";
  double *d1 = omp_target_alloc(N * sizeof(double), 1);
  int pair[2] = {0, 1};
  omp_allocator_handle_t al = omp_get_devices_allocator(2, pair, omp_default_mem_space);
  double *s = omp_alloc(N * sizeof(double), al);
  for (int i = 0; i < N; i++)
    s[i] = i;
  double sum = 0;
  if (!strcmp(mode, "devptr")) {
#pragma omp target is_device_ptr(d1) device(0) map(tofrom : sum)
    for (int i = 0; i < N; i++)
      sum += d1[i];
  } else if (!strcmp(mode, "space")) {
    // No map: the pointer keeps its host value on device 2, outside the space.
#pragma omp target device(2) map(tofrom : sum)
    for (int i = 0; i < N; i++)
      sum += s[i];
  } else {
#pragma omp target is_device_ptr(d1) device(1)
    for (int i = 0; i < N; i++)
      d1[i] = 1;
#pragma omp target is_device_ptr(d1) device(1) map(tofrom : sum)
    for (int i = 0; i < N; i++)
      sum += s[i] + d1[i];
  }
  double want = 0;
  for (int i = 0; i < N; i++)
    want += i + 1;
  printf("sum %g (want %g)\n", sum, want);
  omp_target_free(d1, 1);
  omp_free(s, al);
  return 0;
}
