// Image selection in a binary with an nvptx64 (sm_90) and an x86_64 image: SPREAD_INFO=devices
// shows each host device skip the CUDA image and load the x86_64 one, for a binary built by
// spread-cc --offload-arch=sm_90 and for one built by clang-19 with the targets in the other
// order.
//
// REQUIRES: spread, nvptx-toolchain
// RUN: %spread-cc -O1 --offload-arch=sm_90 %s -o %t
// RUN: env SPREAD_DEVICES=host:2 SPREAD_INFO=devices %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env LIBRARY_PATH=%llvm-lib %clang-plain -O1 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu,nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path=%cuda-path %s -o %t.clang
// RUN: env SPREAD_DEVICES=host:2 SPREAD_INFO=devices %libpath-run %t.clang 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

int main(void) {
  int ok = 1;
  for (int d = 0; d < omp_get_num_devices(); d++) {
    int v = 0;
#pragma omp target device(d) map(from: v)
    v = 40 + d + !omp_is_initial_device();
    if (v != 41 + d) {
      printf("FAIL device %d: %d\n", d, v);
      ok = 0;
    }
  }
  printf("%s: %d devices\n", ok ? "PASS" : "FAIL", omp_get_num_devices());
  return !ok;
}

// CHECK-DAG: spread: info: device 0 (host) skips image {{[0-9]+}}: CUDA sm_90 image (not runnable here)
// CHECK-DAG: spread: info: device 0 (host) loads image {{[0-9]+}}: x86_64 host image
// CHECK-DAG: spread: info: device 1 (host) skips image {{[0-9]+}}: CUDA sm_90 image (not runnable here)
// CHECK-DAG: spread: info: device 1 (host) loads image {{[0-9]+}}: x86_64 host image
// CHECK: PASS: 2 devices
