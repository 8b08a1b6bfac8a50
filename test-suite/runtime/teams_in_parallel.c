// A `target teams` kernel on a host device, launched by a thread inside a parallel region after
// the initial thread ran one (a compute unit's thread does exactly this): libomp 19 aborts in
// __kmpc_fork_teams (`th_set_nproc >= 1`, llvm/llvm-project#146262, stock libomptarget too)
// when the league is forked from that thread, so Spread runs such a kernel on a thread of its
// own. Every kernel's result is checked.
//
// RUN: %clang-offload %s -o %t
// RUN: env SPREAD_HOST_DEVICES=1 %libpath-run %t | FileCheck %s
// RUN: env SPREAD_HOST_DEVICES=2 %preload-run %t | FileCheck %s
// CHECK: PASS

#include <omp.h>
#include <stdio.h>

#define M 100
static double a[M];

int main(void) {
  omp_set_max_active_levels(3);
  int dev = omp_get_num_devices() - 1;
  for (int rep = 0; rep < 3; rep++) {
#pragma omp target teams distribute parallel for device(0) map(tofrom : a[0 : M])
    for (int i = 0; i < M; i++)
      a[i] += 1;
#pragma omp parallel num_threads(2)
    {
      if (omp_get_thread_num() == 1) {
#pragma omp target teams distribute parallel for device(dev) map(tofrom : a[0 : M])
        for (int i = 0; i < M; i++)
          a[i] += 1;
      } else {
#pragma omp parallel num_threads(1)
        a[0] += 0;
      }
    }
  }
  int bad = 0;
  for (int i = 0; i < M; i++)
    bad += a[i] != 6;
  printf("%s: a[5] = %g (want 6)\n", bad ? "FAIL" : "PASS", a[5]);
  return bad != 0;
}
