// target spread on fake GPUs: under a static schedule a chunk's operation only enqueues its
// copies and kernel, and the next chunk goes on, so several chunks of one region are in flight
// on one GPU at once (the fake logs the most streams of a GPU busy at once: `maxbusy`).
// Results are checked against serial ones for: chunks over two GPUs, halo sections overlapping
// between adjacent chunks on one GPU (an earlier chunk in flight is finished first), chunks
// under a dynamic schedule (finished one by one), and enter/exit data spread around kernels.
// (No message of the fake driver's, `fakecuda: ...`, may appear. Under the dynamic schedule two
// adjacent chunks in flight on both GPUs at once can draw the known false alarm about their
// overlapping read-only halos, docs/runtime.md "Data a spread chunk needs": its text names
// this file's path, which the check once took for a driver message.)
//
// REQUIRES: spread, nvptx-toolchain, fakecuda
// RUN: %spread-cc -O2 --offload-arch=sm_90 %s -o %t
// RUN: %extract-x86 %t --image=file=%t.so,triple=x86_64-unknown-linux-gnu
// RUN: rm -f %t.log
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_LOG=%t.log FAKECUDA_DELAY_US=1000 SPREAD_DEVICES=cuda %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=fakecuda:
// RUN: FileCheck --check-prefix=LOG %s < %t.log
//
// CHECK: static over two GPUs: OK
// CHECK: halo on one GPU: OK
// CHECK: dynamic over two GPUs: OK
// CHECK: data spread: OK
// LOG-DAG: maxbusy dev 0 {{[2-9]|[1-9][0-9]+}}
// LOG-DAG: maxbusy dev 1 {{[2-9]|[1-9][0-9]+}}

#include <omp.h>
#include <stdio.h>

#define N 64000
#define C 4000

static double A[N], B[N];

static void reset(void) {
  for (int i = 0; i < N; i++) {
    A[i] = i % 23;
    B[i] = -1;
  }
}

static int check_sum3(const char *what, int lo, int hi) {
  int bad = 0;
  for (int i = lo; i < hi; i++)
    bad += B[i] != A[i - 1] + A[i] + A[i + 1];
  printf("%s: %s (%d wrong)\n", what, bad ? "FAIL" : "OK", bad);
  return bad != 0;
}

int main(void) {
  int bad = 0;
  if (omp_get_num_devices() < 2) {
    printf("FAIL: needs 2 GPUs\n");
    return 1;
  }
  reset();
#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(static, C) \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                                      \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i] + A[i + 1];
  bad += check_sum3("static over two GPUs", 1, N - 1);

  reset();
#pragma omp target spread teams distribute parallel for devices(0) spread_schedule(static, C)    \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                                      \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i] + A[i + 1];
  bad += check_sum3("halo on one GPU", 1, N - 1);

  reset();
#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(dynamic, C) \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                                       \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i] + A[i + 1];
  bad += check_sum3("dynamic over two GPUs", 1, N - 1);

  reset();
#pragma omp target enter data spread devices(0, 1) range(0 : N) chunk_size(C)                   \
    map(to : A[omp_spread_start : omp_spread_size]) map(alloc : B[omp_spread_start : omp_spread_size])
#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(static, C) \
    map(to : A[omp_spread_start : omp_spread_size]) map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    B[i] = 2 * A[i];
#pragma omp target exit data spread devices(0, 1) range(0 : N) chunk_size(C)                    \
    map(from : B[omp_spread_start : omp_spread_size]) map(release : A[omp_spread_start : omp_spread_size])
  int wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += B[i] != 2 * A[i];
  printf("data spread: %s (%d wrong)\n", wrong ? "FAIL" : "OK", wrong);
  bad += wrong != 0;
  return bad != 0;
}
