// target spread in a binary with an nvptx64 (sm_90) and an x86_64 image: built by
// spread-cc --offload-arch=sm_90 (the pass runs on the host module and leaves the nvptx64 and
// x86_64 device modules alone), the constructs run on host devices: the chunks go to the
// devices of the devices() list (SPREAD_INFO=chunks), data is mapped per chunk (target data
// spread, target update spread) and the result equals the serial stencil. Without the pass
// each construct is one chunk on its first device, with the same result.
//
// REQUIRES: spread, nvptx-toolchain
// RUN: %spread-cc -O1 --offload-arch=sm_90 %s -o %t
// RUN: llvm-objdump --offloading %t | FileCheck --check-prefix=IMAGES %s
// RUN: env SPREAD_INFO=chunks OMP_TARGET_OFFLOAD=MANDATORY %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: %spread-cc -O1 --offload-arch=sm_90 --spread-no-pass %s -o %t.nopass
// RUN: env SPREAD_INFO=chunks OMP_TARGET_OFFLOAD=MANDATORY %t.nopass 2>&1 | FileCheck %s --check-prefix=NOPASS --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 1000

static double A[N], B[N], ref[N];

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  for (int i = 0; i < N; i++) {
    A[i] = (i % 13) * 0.5;
    B[i] = ref[i] = -1;
  }
  for (int step = 0; step < 2; step++)
    for (int i = 1; i < N - 1; i++)
      ref[i] = (step ? ref[i] : 0) + A[i - 1] + A[i] + A[i + 1];

#pragma omp target spread teams distribute parallel for devices(3, 1, 0)       \
    spread_schedule(static, 250)                                               \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i] + A[i + 1];
  // CHECK:      chunk [1,251) -> device 3
  // CHECK-NEXT: chunk [251,501) -> device 1
  // CHECK-NEXT: chunk [501,751) -> device 0
  // CHECK-NEXT: chunk [751,999) -> device 3
  // NOPASS:     chunk [1,999) -> device 3

  // the second sweep adds to B on the devices: B's chunks stay mapped between the constructs
#pragma omp target data spread devices(0, 2) range(1 : N - 2) chunk_size(500) \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(tofrom : B[omp_spread_start : omp_spread_size])
  {
#pragma omp target spread teams distribute parallel for devices(0, 2)          \
    spread_schedule(static, 500)
    for (int i = 1; i < N - 1; i++)
      B[i] += A[i - 1] + A[i] + A[i + 1];
  }
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += B[i] != ref[i];
  printf("%s: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  return bad != 0;
}

// IMAGES-DAG: triple{{ +}}x86_64-unknown-linux-gnu
// IMAGES-DAG: arch{{ +}}sm_90
// IMAGES-DAG: triple{{ +}}nvptx64-nvidia-cuda
// CHECK: chunk [1,501) -> device 0
// CHECK: chunk [501,999) -> device 2
// CHECK: PASS: 0 mismatches
// NOPASS: PASS: 0 mismatches
