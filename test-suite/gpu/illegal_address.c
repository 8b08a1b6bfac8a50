/* A spread chunk whose kernel reads far outside its section on a GPU: the GPU raises
 * CUDA_ERROR_ILLEGAL_ADDRESS at the next synchronization, and Spread reports it with the
 * construct, the chunk and the device, and what to check (docs/runtime.md, Errors). One chunk
 * (devices(0), no chunk size), so the chunk named is the one that faulted. The read is 2 TiB
 * past the section, where nothing of the GPU's is mapped: a small overrun may land in another
 * allocation of the GPU and pass unnoticed, as it does on GPUs.
 *
 * Self-checking for gpu-check (exit 0 = PASS): run without arguments, it runs itself with the
 * argument `child` (the faulting construct, which ends with omptarget fatal error 1) and checks
 * what the child printed.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 illegal_address.c -o illegal_address
 * Run:   SPREAD_DEVICES=cuda ./illegal_address
 * Unvalidated on a GPU: written, and checked on the fake CUDA driver's equivalent
 * (test-suite/fakecuda/spread_illegal_address.c), before any GPU run.
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: not --crash env SPREAD_DEVICES=cuda %t child 2>&1 | FileCheck %s
// RUN: env SPREAD_DEVICES=cuda %t | FileCheck %s --check-prefix=SELF
// CHECK: devices: {{[0-9]+}}, GPUs: {{[1-9]}}
// CHECK: omptarget error: CUDA device 0: {{.*}}CUDA_ERROR_ILLEGAL_ADDRESS (700)
// CHECK: omptarget error: in target spread {{.*}}illegal_address.c:[[#LINE:]] chunk [0,100000) on device 0
// CHECK: omptarget error: a kernel on device 0 accessed memory outside the device's data while target spread {{.*}}illegal_address.c:[[#LINE]] chunk [0,100000) or a later chunk in flight there ran {{.*}}: check the map clause's section bounds against the loop's accesses (with collapse(2), is the spread loop the outer one?)
// CHECK: omptarget fatal error 1: failure of target construct while offloading is mandatory
// SELF: PASS: illegal_address

#include "gpu_test.h"
#include <stdio.h>
#include <string.h>

#define N 100000

static double A[N], B[N];

/* Runs this program with the argument `child` and checks that it failed with Spread's report. */
static int check_child(void) {
  FILE *p = popen("exec /proc/self/exe child 2>&1", "r");
  if (!p) {
    printf("FAIL: illegal_address: cannot run the child\n");
    return 1;
  }
  static char out[1 << 16];
  size_t n = fread(out, 1, sizeof out - 1, p);
  out[n] = 0;
  int status = pclose(p);
  const char *need[] = {"CUDA_ERROR_ILLEGAL_ADDRESS", "in target spread",
                        "chunk [0,100000) on device 0",
                        "a kernel on device 0 accessed memory outside the device's data",
                        "check the map clause's section bounds",
                        "omptarget fatal error 1"};
  int ok = status != 0;
  for (unsigned k = 0; k < sizeof need / sizeof *need; k++)
    if (!strstr(out, need[k])) {
      printf("FAIL: illegal_address: the report lacks '%s'\n", need[k]);
      ok = 0;
    }
  if (!ok) {
    printf("--- the child printed (status %d):\n%s---\n", status, out);
    return 1;
  }
  printf("PASS: illegal_address: the fault was reported with the construct, chunk and device\n");
  return 0;
}

int main(int argc, char **argv) {
  if (!gpu_setup(1))
    return 1;
  if (argc < 2 || strcmp(argv[1], "child") != 0)
    return check_child();
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
