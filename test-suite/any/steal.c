// Stealing: under SPREAD_ANY_POLICY=first every instance that cannot start is queued for device
// 0; device 1, whose queue stays empty, takes queued instances when it is free (the paper's
// idle-GPU stealing). With SPREAD_STEAL=0 nothing is stolen. Results against a serial run;
// SPREAD_INFO=any names the device an instance was stolen from.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=6 SPREAD_HOST_DEVICES=2 SPREAD_ANY_POLICY=first SPREAD_INFO=any %t 2> %t.err | FileCheck %s --check-prefix=STEAL --implicit-check-not=FAIL
// RUN: FileCheck %s --check-prefix=TRACE < %t.err
// RUN: env OMP_NUM_THREADS=6 SPREAD_HOST_DEVICES=2 SPREAD_ANY_POLICY=first SPREAD_STEAL=0 %t | FileCheck %s --check-prefix=NOSTEAL --implicit-check-not=FAIL
// STEAL: results ok
// STEAL: stolen by device 1: {{[1-9][0-9]*}}
// NOSTEAL: results ok
// NOSTEAL: stolen by device 1: 0
// TRACE: device(any) {{.*}}steal.c:{{[0-9]+}}:{{[0-9]+}} instance {{[0-9]+}} -> device 1 (cpu, arm 0, tokens 0/100, stolen from device 0)

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <unistd.h>

#define N 2048
#define BS 64
static double a[N];

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) map(tofrom: a[k:BS]) nowait
#pragma omp if_device(cpu)
    {
      usleep(3000);
      for (int i = k; i < k + BS; i++)
        a[i] = a[i] * 2 + 1;
    }
  }
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += a[i] != i * 2.0 + 1;
  printf("results %s\n", bad ? "FAIL" : "ok");
  spread_any_stats_t st[4];
  int n = spread_any_stats(st, 4);
  for (int i = 0; i < n; i++)
    if (st[i].spread_device == 1)
      printf("stolen by device 1: %ld\n", (long)st[i].spread_stolen);
  return bad != 0;
}
