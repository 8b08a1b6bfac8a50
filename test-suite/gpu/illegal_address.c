/* A spread chunk whose kernel reads far outside its section on a GPU: the GPU raises
 * CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronization, and Spread reports it with the
 * construct, the chunk and the device, and what to check (docs/runtime.md, Errors). One chunk
 * (devices(0), no chunk size), so the chunk named is the one that faulted. The read is 2 TiB
 * past the section, where nothing of the GPU's is mapped: a small overrun may land in another
 * allocation of the GPU and pass unnoticed, as it does on GPUs.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 illegal_address.c -o illegal_address
 * Run:   SPREAD_DEVICES=cuda ./illegal_address   (ends with omptarget fatal error 1)
 * Unvalidated on a GPU: written, and checked on the fake CUDA driver's equivalent
 * (test-suite/fakecuda/spread_illegal_address.c), before any GPU run.
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: not --crash env SPREAD_DEVICES=cuda %t 2>&1 | FileCheck %s
// CHECK: devices: {{[0-9]+}}, GPUs: {{[1-9]}}
// CHECK: omptarget error: CUDA device 0: {{.*}}CUDA_ERROR_ILLEGAL_ADDRESS (700)
// CHECK: omptarget error: in target spread {{.*}}illegal_address.c:[[#LINE:]] chunk [0,100000) on device 0
// CHECK: omptarget error: a kernel on device 0 accessed memory outside the device's data while target spread {{.*}}illegal_address.c:[[#LINE]] chunk [0,100000) or a later chunk in flight there ran {{.*}}: check the map clause's section bounds against the loop's accesses (with collapse(2), is the spread loop the outer one?)
// CHECK: omptarget fatal error 1: failure of target construct while offloading is mandatory

#include "gpu_test.h"

#define N 100000

static double A[N], B[N];

int main(void) {
  if (!gpu_setup(1))
    return 1;
  for (int i = 0; i < N; i++)
    A[i] = i;
  long far = 1L << 38; /* elements: 2 TiB past the section */
#pragma omp target spread teams distribute parallel for devices(0)                              \
    map(to : A[omp_spread_start : omp_spread_size]) map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    B[i] = A[i + (i == N / 2 ? far : 0)];
  printf("FAIL: illegal_address: the kernel's fault was not reported\n");
  return 1;
}
