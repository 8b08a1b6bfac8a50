// A nowait pipeline over 4 devices with chunk-level dependences: enter data
// spread, two dependent spread kernels and exit data spread, all nowait, each
// chunk depending only on its own sections; a taskwait completes them. Results
// equal the serial computation.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_INFO=chunks %t 2>&1 | FileCheck %s --check-prefix=CHUNKS
// RUN: %spread-cc -O1 --spread-no-pass %s -o %t.nopass
// RUN: %t.nopass | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 4096
#define C 512

static double X[N], Y[N];

int main(void) {
  for (int i = 0; i < N; i++) {
    X[i] = i;
    Y[i] = 0;
  }
#pragma omp parallel
#pragma omp single
  {
#pragma omp target enter data spread range(0 : N) chunk_size(C) nowait        \
    map(to : X[omp_spread_start : omp_spread_size])                            \
    map(alloc : Y[omp_spread_start : omp_spread_size])                         \
    depend(out : X[omp_spread_start : omp_spread_size])

#pragma omp target spread teams distribute parallel for spread_schedule(static, C) nowait \
    map(present, alloc : X[omp_spread_start : omp_spread_size])                \
    depend(inout : X[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      X[i] = 2 * X[i] + 1;

#pragma omp target spread teams distribute parallel for spread_schedule(static, C) nowait \
    map(present, alloc : X[omp_spread_start : omp_spread_size],                \
        Y[omp_spread_start : omp_spread_size])                                 \
    depend(in : X[omp_spread_start : omp_spread_size])                         \
    depend(out : Y[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      Y[i] = X[i] * X[i];

#pragma omp target exit data spread range(0 : N) chunk_size(C) nowait         \
    map(from : Y[omp_spread_start : omp_spread_size])                          \
    map(release : X[omp_spread_start : omp_spread_size])                       \
    depend(in : Y[omp_spread_start : omp_spread_size])
#pragma omp taskwait
  }
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double x = 2.0 * i + 1;
    bad += Y[i] != x * x;
  }
  printf("%s pipeline: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  // CHECK: PASS pipeline: 0 mismatches
  // Chunks are dealt round-robin over all 4 devices.
  // CHUNKS-DAG: chunk [0,512) -> device 0
  // CHUNKS-DAG: chunk [512,1024) -> device 1
  // CHUNKS-DAG: chunk [1536,2048) -> device 3
  // CHUNKS-DAG: chunk [2048,2560) -> device 0
  return 0;
}
