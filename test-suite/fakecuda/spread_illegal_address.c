// A spread chunk whose kernel faults on a GPU (CUDA_ERROR_ILLEGAL_ADDRESS at a synchronize, the
// context's sticky error) is reported with the construct, the chunk and the device, and what to
// check, then ends the program as libomptarget's fatal errors do. The fake driver makes the
// second launch fault (FAKECUDA_ILLEGAL_ADDRESS=2): the chunk of device 1, whose loop (the two
// loops of the collapse swapped, as the user's mistake) reads rows outside its section, which
// a GPU may or may not catch. Device 0's chunk is unaffected.
//
// REQUIRES: spread, nvptx-toolchain, fakecuda
// RUN: %spread-cc -O2 --offload-arch=sm_90 %s -o %t
// RUN: %extract-x86 %t --image=file=%t.so,triple=x86_64-unknown-linux-gnu
// RUN: rm -f %t.log
// RUN: not --crash %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_LOG=%t.log FAKECUDA_ILLEGAL_ADDRESS=2 SPREAD_DEVICES=cuda %t 2>&1 | FileCheck %s --implicit-check-not='fakecuda:'
// RUN: FileCheck --check-prefix=LOG %s < %t.log
//
// CHECK: omptarget error: CUDA device 1: {{.*}}CUDA_ERROR_ILLEGAL_ADDRESS (700)
// CHECK: omptarget error: in target spread {{.*}}spread_illegal_address.c:[[#LINE:]] chunk [32,64) on device 1
// CHECK-NEXT: omptarget error: a kernel on device 1 accessed memory outside the device's data while target spread {{.*}}spread_illegal_address.c:[[#LINE]] chunk [32,64) or a later chunk in flight there ran (the device names neither the kernel nor the address): check the map clause's section bounds against the loop's accesses (with collapse(2), is the spread loop the outer one?)
// CHECK: omptarget fatal error 1: failure of target construct while offloading is mandatory
// LOG: illegal address dev 1 launch

#include <stdio.h>

#define N 64

static double f_old[N * N], f_new[N * N];

int main(void) {
  for (int i = 0; i < N * N; i++)
    f_old[i] = i % 7;
#pragma omp target spread teams distribute parallel for collapse(2) devices(0, 1) spread_schedule(static, N / 2) \
    map(to : f_old[omp_spread_start * N : omp_spread_size * N])                                  \
    map(from : f_new[omp_spread_start * N : omp_spread_size * N])
  for (int j = 0; j < N; j++)
    for (int i = 0; i < N; i++)
      f_new[i * N + j] = 0.5 * f_old[i * N + j];
  printf("FAIL: the fault was not reported\n");
  return 0;
}
