// A `target` whose body is a lone `parallel for` runs on a host device while another host
// device computes (so its kernel gets a share of the cores), then the same thread runs a
// `target teams` kernel alone. clang passes `num_teams` 1 for the first kernel although it forms
// no teams; a teams size pushed for it was left on the thread, and the next `teams` construct
// there skipped libomp's defaults and aborted in __kmpc_fork_teams (`th_set_nproc >= 1`,
// kmp_csupport.cpp(539)) in every run. Task sharing's host instances on the host share are such
// kernels. Every kernel's result is checked against the serial values.
//
// RUN: %clang-offload -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 %libpath-run %t | FileCheck %s
// RUN: env SPREAD_HOST_DEVICES=2 %preload-run %t | FileCheck %s
// CHECK: PASS

#include <stdio.h>

#define N 4096
#define ROUNDS 20
static double a[N], b[N];

int main(void) {
  for (int r = 0; r < ROUNDS; r++) {
    // Device 1 keeps computing while device 0 runs the lone parallel region.
#pragma omp target teams distribute parallel for device(1) map(tofrom: b) nowait
    for (int i = 0; i < N; i++) {
      double x = b[i];
      for (int k = 0; k < 2000; k++)
        x = x * 0.5 + 1.0;
      b[i] = x;
    }
#pragma omp target device(0) map(tofrom: a)
#pragma omp parallel for
    for (int i = 0; i < N; i++)
      a[i] += 1.0;
#pragma omp taskwait
#pragma omp target teams distribute parallel for device(0) map(tofrom: a)
    for (int i = 0; i < N; i++)
      a[i] += 2.0;
  }
  int ok = 1;
  for (int i = 0; i < N; i++) {
    // b converges to 2 (x = x/2 + 1); a gets 3 per round.
    ok &= a[i] == 3.0 * ROUNDS && b[i] > 1.999 && b[i] < 2.001;
  }
  printf("%s\n", ok ? "PASS" : "FAIL");
  return !ok;
}
