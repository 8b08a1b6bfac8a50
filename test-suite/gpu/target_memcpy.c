/* omp_target_alloc on every device and omp_target_memcpy between devices: a buffer travels
 * host -> GPU 0 -> GPU 1 -> ... -> each host device -> host, and a kernel on every device adds
 * its number + 1 to it (is_device_ptr). Run with SPREAD_DEVICES=cuda,host:1 to include a host
 * device in the chain (copies GPU <-> host device).
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 target_memcpy.c -o target_memcpy
 * Run:   SPREAD_DEVICES=cuda,host:1 ./target_memcpy
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: env SPREAD_DEVICES=cuda,host:1 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: target_memcpy

#include "gpu_test.h"

#define N (1 << 18)

int main(void) {
  if (!gpu_setup(1))
    return 1;
  int nd = omp_get_num_devices(), host = omp_get_initial_device(), wrong = 0;
  long *h = malloc(N * sizeof *h);
  long **buf = calloc(nd, sizeof *buf);
  for (int i = 0; i < N; i++)
    h[i] = i;
  for (int d = 0; d < nd; d++) {
    buf[d] = omp_target_alloc(N * sizeof(long), d);
    if (!buf[d]) {
      printf("FAIL: omp_target_alloc on device %d\n", d);
      return 1;
    }
  }
  long expect_add = 0;
  for (int d = 0; d < nd; d++) {
    void *src = d == 0 ? (void *)h : (void *)buf[d - 1];
    int src_dev = d == 0 ? host : d - 1;
    if (omp_target_memcpy(buf[d], src, N * sizeof(long), 0, 0, d, src_dev)) {
      printf("FAIL: omp_target_memcpy device %d -> device %d\n", src_dev, d);
      return 1;
    }
    long *p = buf[d];
    long add = d + 1;
#pragma omp target teams distribute parallel for device(d) is_device_ptr(p)
    for (int i = 0; i < N; i++)
      p[i] += add;
    expect_add += add;
  }
  for (int i = 0; i < N; i++)
    h[i] = -1;
  if (omp_target_memcpy(h, buf[nd - 1], N * sizeof(long), 0, 0, host, nd - 1)) {
    printf("FAIL: omp_target_memcpy device %d -> host\n", nd - 1);
    return 1;
  }
  for (int i = 0; i < N; i++)
    wrong += h[i] != i + expect_add;
  for (int d = 0; d < nd; d++)
    omp_target_free(buf[d], d);
  printf("%s: target_memcpy through %d devices (%d GPUs): %d wrong values\n",
         wrong ? "FAIL" : "PASS", nd, gpu_count, wrong);
  free(h), free(buf);
  return wrong != 0;
}
