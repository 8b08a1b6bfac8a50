// A program that carries an nvptx64 (sm_90) image and an x86_64 image, built with clang-19's own
// flags (no Spread driver), runs with OMP_TARGET_OFFLOAD=MANDATORY on Spread (library path and
// LD_PRELOAD) and on stock libomptarget: without a GPU every device is a host device, which runs
// the x86_64 image. Each device's saxpy equals the serial reference computed in the program.
//
// REQUIRES: nvptx-toolchain
// RUN: env LIBRARY_PATH=%llvm-lib %clang-plain -O2 -fopenmp -fopenmp-targets=nvptx64-nvidia-cuda,x86_64-unknown-linux-gnu -Xopenmp-target=nvptx64-nvidia-cuda -march=sm_90 --cuda-path=%cuda-path %s -o %t
// RUN: llvm-objdump --offloading %t | FileCheck --check-prefix=IMAGES %s
// RUN: env OMP_TARGET_OFFLOAD=MANDATORY %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env OMP_TARGET_OFFLOAD=MANDATORY %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env OMP_TARGET_OFFLOAD=MANDATORY %stock-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 4096

static double x[N], y[N], ref[N];

int main(void) {
  int nd = omp_get_num_devices(), bad = 0;
  for (int d = 0; d < nd; d++) {
    double a = 1.5 + d;
    for (int i = 0; i < N; i++) {
      x[i] = i;
      y[i] = i % 7;
      ref[i] = a * x[i] + y[i];
    }
    int on_host = -1;
#pragma omp target teams distribute parallel for device(d) map(to: x[0:N]) map(tofrom: y[0:N])
    for (int i = 0; i < N; i++)
      y[i] = a * x[i] + y[i];
#pragma omp target device(d) map(from: on_host)
    on_host = omp_is_initial_device();
    int wrong = 0;
    for (int i = 0; i < N; i++)
      wrong += y[i] != ref[i];
    if (wrong || on_host != 0)
      printf("FAIL device %d: %d wrong values, initial device %d\n", d, wrong, on_host);
    bad += wrong || on_host != 0;
  }
  if (nd < 1)
    printf("FAIL: no offload devices\n");
  else if (!bad)
    printf("PASS: %d devices\n", nd);
  return bad || nd < 1;
}

// IMAGES-DAG: triple{{ +}}x86_64-unknown-linux-gnu
// IMAGES-DAG: arch{{ +}}sm_90
// IMAGES-DAG: triple{{ +}}nvptx64-nvidia-cuda
// CHECK: PASS: {{[1-9][0-9]*}} devices
