/* target spread over every device (no devices clause: all GPUs, then the host devices), and over
 * GPUs and host devices mixed in one devices() list. Each iteration records which image ran it
 * (ON_GPU): every chunk must run on the device the schedule gives it (round-robin over the list,
 * chunks of C iterations), and the results equal the serial stencil.
 * Run with SPREAD_DEVICES=cuda,host:2 (GPUs first, then two host devices).
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 spread_devices.c -o spread_devices
 * Run:   SPREAD_DEVICES=cuda,host:2 ./spread_devices
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: env SPREAD_DEVICES=cuda,host:2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: spread_devices

#include "gpu_test.h"

#define N 100000
#define C 5000

static double A[N], B[N];
static int kind[N];

static int check(const char *what, const int *list, int len) {
  int wrong = 0, wrong_kind = 0;
  for (int i = 1; i < N - 1; i++) {
    wrong += B[i] != A[i - 1] + A[i] + A[i + 1];
    int dev = list[((i - 1) / C) % len];
    wrong_kind += kind[i] != expected_kind(dev);
  }
  printf("%s %s: %d wrong values, %d iterations on the wrong kind of device\n",
         wrong || wrong_kind ? "FAIL" : "PASS", what, wrong, wrong_kind);
  return wrong || wrong_kind;
}

static void reset(void) {
  for (int i = 0; i < N; i++)
    A[i] = i % 17, B[i] = -1, kind[i] = -1;
}

int main(void) {
  if (!gpu_setup(1))
    return 1;
  int nd = omp_get_num_devices(), bad = 0;
  int all[64];
  for (int d = 0; d < nd && d < 64; d++)
    all[d] = d;

  reset();
#pragma omp target spread teams distribute parallel for spread_schedule(static, C)            \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                                    \
    map(from : B[omp_spread_start : omp_spread_size], kind[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++) {
    B[i] = A[i - 1] + A[i] + A[i + 1];
    kind[i] = ON_GPU;
  }
  bad += check("all devices", all, nd);

  if (nd - gpu_count < 2) {
    printf("FAIL: need 2 host devices after the GPUs (SPREAD_DEVICES=cuda,host:2), have %d\n",
           nd - gpu_count);
    return 1;
  }
  /* the last GPU, the first host device, the first GPU, the second host device */
  int g0 = 0, g1 = gpu_count - 1, h0 = gpu_count, h1 = gpu_count + 1;
  const int mixed[4] = {g1, h0, g0, h1};
  reset();
#pragma omp target spread teams distribute parallel for devices(g1, h0, g0, h1)             \
    spread_schedule(static, C) map(to : A[omp_spread_start - 1 : omp_spread_size + 2])         \
    map(from : B[omp_spread_start : omp_spread_size], kind[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++) {
    B[i] = A[i - 1] + A[i] + A[i + 1];
    kind[i] = ON_GPU;
  }
  bad += check("GPUs and host devices", mixed, 4);
  printf("%s: spread_devices over %d GPU(s) and %d host devices\n", bad ? "FAIL" : "PASS",
         gpu_count, nd - gpu_count);
  return bad != 0;
}
