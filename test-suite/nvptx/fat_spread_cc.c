// spread-cc --offload-arch=sm_90 builds one binary with an nvptx64 (sm_90) image and the x86_64
// image of Spread's host devices, compiling and linking in one step or in two (-c, then a link
// that names the arch again), and spread-c++ does the same; each binary runs with
// OMP_TARGET_OFFLOAD=MANDATORY on every host device (no GPU here) with results equal to the
// serial reference, also with a declare-target function and global.
//
// REQUIRES: nvptx-toolchain
// RUN: %spread-cc -O2 --offload-arch=sm_90 %s -o %t
// RUN: llvm-objdump --offloading %t | FileCheck --check-prefix=IMAGES %s
// RUN: env OMP_TARGET_OFFLOAD=MANDATORY %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env OMP_TARGET_OFFLOAD=MANDATORY %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %spread-cc -O1 --offload-arch=sm_90 -c %s -o %t.o
// RUN: %spread-cc --offload-arch=sm_90 %t.o -o %t.two
// RUN: llvm-objdump --offloading %t.two | FileCheck --check-prefix=IMAGES %s
// RUN: env OMP_TARGET_OFFLOAD=MANDATORY %t.two | FileCheck %s --implicit-check-not=FAIL
// RUN: %spread-cxx -O2 --offload-arch=sm_90 -x c++ %s -o %t.cxx
// RUN: llvm-objdump --offloading %t.cxx | FileCheck --check-prefix=IMAGES %s
// RUN: env OMP_TARGET_OFFLOAD=MANDATORY %t.cxx | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 3000

#pragma omp declare target
static int scale = 3;
static long f(long v) { return scale * v + 1; }
#pragma omp end declare target

static long a[N], ref[N];

int main(void) {
  int nd = omp_get_num_devices(), bad = 0;
  for (int i = 0; i < N; i++)
    ref[i] = 3 * (long)(i * i % 1000) + 1;
  for (int d = 0; d < nd; d++) {
    for (int i = 0; i < N; i++)
      a[i] = i * i % 1000;
#pragma omp target teams distribute parallel for device(d) map(tofrom: a[0:N])
    for (int i = 0; i < N; i++)
      a[i] = f(a[i]);
    int wrong = 0;
    for (int i = 0; i < N; i++)
      wrong += a[i] != ref[i];
    if (wrong)
      printf("FAIL device %d: %d wrong values\n", d, wrong);
    bad += wrong != 0;
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
