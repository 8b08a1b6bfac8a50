// Lazy coherence: a chain of dependent instances per tile (depend(inout)) keeps its tile on the
// device that produced it, so it moves fewer bytes than OpenMP's copy semantics, with identical
// results, and taskwait brings everything home (checked right after it). With two devices and
// the host sharing the chain, tiles move between places (device to device, or home before a host
// instance) and the results stay identical.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=1 %t cpu > %t.copy
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.copy
// RUN: env SPREAD_HOST_DEVICES=1 SPREAD_COHERENCE=lazy %t cpu > %t.lazy
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.lazy
// RUN: awk '/^moved/ { print $2 }' %t.copy %t.lazy | awk 'NR == 1 { c = $1 } NR == 2 { l = $1 } END { if (l < c) print "lazy moves less: " l " < " c; else print "FAIL: lazy " l " copy " c }' | FileCheck %s --check-prefix=LESS
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy %t all | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy SPREAD_ANY_POLICY=tokens %t all | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 %t all | FileCheck %s --implicit-check-not=FAIL
// Instance times feed the scheduling core's model: a recorded profile has them, and a run that
// loads it starts from them.
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_SCHED_PROFILE=record:%t.prof %t all > /dev/null
// RUN: FileCheck %s --check-prefix=PROF < %t.prof
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_SCHED_PROFILE=load:%t.prof %t all | FileCheck %s --implicit-check-not=FAIL
// PROF-DAG: device(any) {{.*}}lazy_chain.c:{{[0-9]+}}:{{[0-9]+}}{{[[:space:]]}}host{{[[:space:]]}}
// PROF-DAG: device(any) {{.*}}lazy_chain.c:{{[0-9]+}}:{{[0-9]+}}{{[[:space:]]}}device 0{{[[:space:]]}}
// CHECK: after taskwait: ok
// CHECK: checksum {{[0-9.e+]+}} ok
// LESS: lazy moves less:

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <string.h>

#define N 8192
#define BS 1024
#define STEPS 6
static double a[N], ref[N];

int main(int argc, char **argv) {
  int all = argc > 1 && strcmp(argv[1], "all") == 0;
  for (int i = 0; i < N; i++)
    a[i] = ref[i] = i % 17;
  for (int s = 0; s < STEPS; s++)
    for (int i = 0; i < N; i++)
      ref[i] = ref[i] * 0.5 + s;
  spread_any_stats_reset();
  int bad = 0;
#pragma omp parallel
#pragma omp single
  {
  for (int s = 0; s < STEPS; s++) {
    for (int k = 0; k < N; k += BS) {
      if (all) {
#pragma omp target device(any) map(tofrom: a[k:BS]) depend(inout: a[k]) nowait
#pragma omp if_device(cpu) teams distribute parallel for resources(50)
#pragma omp if_device(host) parallel for resources(50)
        for (int i = k; i < k + BS; i++)
          a[i] = a[i] * 0.5 + s;
      } else {
#pragma omp target device(any) map(tofrom: a[k:BS]) depend(inout: a[k]) nowait
#pragma omp if_device(cpu) teams distribute parallel for
        for (int i = k; i < k + BS; i++)
          a[i] = a[i] * 0.5 + s;
      }
    }
  }
#pragma omp taskwait
  // Right after the taskwait, still in the parallel region: everything must be home.
  for (int i = 0; i < N; i++)
    bad += a[i] != ref[i];
  printf("after taskwait: %s\n", bad ? "FAIL" : "ok");
  }
  double sum = 0;
  for (int i = 0; i < N; i++) {
    bad += a[i] != ref[i];
    sum += a[i];
  }
  spread_any_stats_t st[8];
  int n = spread_any_stats(st, 8);
  long moved = 0;
  for (int i = 0; i < n; i++)
    moved += st[i].spread_bytes_in + st[i].spread_bytes_out;
  printf("moved %ld bytes\n", moved);
  printf("checksum %.6e %s\n", sum, bad ? "FAIL" : "ok");
  return bad != 0;
}
