// Page-locked host memory on fake GPUs: with LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS=1 the host
// side of mapped data is registered (cuMemHostRegister) while it is mapped, once however many
// GPUs map it, and unregistered when the last mapping goes; llvm_omp_target_lock_mem and a
// mapping of the same buffer share one registration, which ends at the last of the two. Results
// are checked against the host's. Without the variable nothing is registered.
//
// REQUIRES: spread, nvptx-toolchain, fakecuda
// RUN: %spread-cc -O1 --offload-arch=sm_90 %s -o %t
// RUN: %extract-x86 %t --image=file=%t.so,triple=x86_64-unknown-linux-gnu
// RUN: rm -f %t.log %t.off.log
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_LOG=%t.log LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS=1 SPREAD_DEVICES=cuda %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=fakecuda:
// RUN: FileCheck --check-prefix=PIN %s < %t.log
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_LOG=%t.off.log SPREAD_DEVICES=cuda %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=fakecuda:
// RUN: FileCheck --check-prefix=OFF %s < %t.off.log
// A value that is not a boolean is reported.
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS=maybe SPREAD_DEVICES=cuda %t 2>&1 | FileCheck --check-prefix=BAD %s
//
// CHECK: two GPUs: OK
// CHECK: locked and mapped: OK
// PIN: {{^}}register [[A:0x[0-9a-f]+]] 8388608
// PIN-NOT: {{^}}register
// PIN: {{^}}unregister [[A]]
// PIN: {{^}}register [[A]] 8388608
// PIN-NOT: {{^}}register
// PIN: {{^}}unregister [[A]]
// PIN-NOT: {{^}}register
// Without the variable only llvm_omp_target_lock_mem registers.
// OFF-NOT: {{^}}register
// OFF: launch {{.*}} dev 1
// OFF: {{^}}register [[B:0x[0-9a-f]+]] 8388608
// OFF-NOT: {{^}}register
// OFF: {{^}}unregister [[B]]
// OFF-NOT: {{^}}register
// BAD: LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS="maybe" is not a boolean

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)

void *llvm_omp_target_lock_mem(void *ptr, size_t size, int device);
void llvm_omp_target_unlock_mem(void *ptr, int device);

int main(void) {
  double *a = malloc(N * sizeof *a);
  if (!a || omp_get_num_devices() < 2) {
    printf("FAIL: needs 2 GPUs and memory\n");
    return 1;
  }
  for (int i = 0; i < N; i++)
    a[i] = i;
  /* The same buffer mapped on both GPUs: one registration. */
#pragma omp target enter data device(0) map(to : a[0:N])
#pragma omp target enter data device(1) map(to : a[0:N])
  for (int d = 0; d < 2; d++) {
#pragma omp target teams distribute parallel for device(d)
    for (int i = 0; i < N; i++)
      a[i] += d + 1;
  }
#pragma omp target exit data device(0) map(from : a[0:N])
  int wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += a[i] != i + 1.0;
#pragma omp target exit data device(1) map(from : a[0:N])
  for (int i = 0; i < N; i++)
    wrong += a[i] != i + 2.0;
  printf("two GPUs: %s\n", wrong ? "FAIL" : "OK");

  /* Locked by the program, then mapped: the registration outlives the mapping. */
  if (llvm_omp_target_lock_mem(a, N * sizeof *a, 0) != a)
    printf("FAIL: llvm_omp_target_lock_mem\n");
#pragma omp target teams distribute parallel for device(0) map(tofrom : a[0:N])
  for (int i = 0; i < N; i++)
    a[i] *= 2;
  int wrong2 = 0;
  for (int i = 0; i < N; i++)
    wrong2 += a[i] != 2 * (i + 2.0);
  llvm_omp_target_unlock_mem(a, 0);
  printf("locked and mapped: %s\n", wrong2 ? "FAIL" : "OK");
  free(a);
  return wrong || wrong2;
}
