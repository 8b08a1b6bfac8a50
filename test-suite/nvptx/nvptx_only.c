// A binary carrying only an nvptx64 image, on a machine whose devices cannot run it (host
// devices only): stock libomptarget has no device for it and runs the regions on the host;
// Spread does the same (and says so under SPREAD_INFO=devices). With OMP_TARGET_OFFLOAD=
// mandatory it is an error naming the device and what the program carries, not a crash.
//
// REQUIRES: spread, nvptx-toolchain
// RUN: env LIBRARY_PATH=%llvm-lib %clang-plain -O1 -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path=%cuda-path %s -o %t
// RUN: env SPREAD_DEVICES=host:2 SPREAD_INFO=devices %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_DEVICES=host:2 OMP_TARGET_OFFLOAD=mandatory %libpath-run not --crash %t 2>&1 | FileCheck %s --check-prefix=MANDATORY

#include <omp.h>
#include <stdio.h>

int main(void) {
  enum { N = 1000 };
  double x[N], y[N], ref[N];
  for (int i = 0; i < N; i++) {
    x[i] = i;
    y[i] = 1;
    ref[i] = 1 + 2.0 * i;
  }
#pragma omp target teams distribute parallel for map(to: x) map(tofrom: y)
  for (int i = 0; i < N; i++)
    y[i] += 2 * x[i];
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += y[i] != ref[i];
  printf("%s: %d wrong\n", bad ? "FAIL" : "PASS", bad);
  return bad != 0;
}

// CHECK: spread: info: device 0 (host) skips image {{[0-9]+}}: CUDA sm_90 image (not runnable here)
// CHECK: spread: info: device 0 (host) has no image of this program it can run; its constructs run on the host
// CHECK: PASS: 0 wrong

// MANDATORY: omptarget error: kernel '{{.*}}' is not in any image loaded on device 0 (host device 0 {{.*}}: it runs none of the program's images: CUDA sm_90 image)
// MANDATORY: omptarget fatal error 1: failure of target construct while offloading is mandatory
