// SPREAD_HOST_DEVICE_CORES pins each host device's kernel threads to its cores:
// every thread of a `target teams ... parallel` kernel, libomp's workers
// included, runs on the device's core (sched_getcpu() and the affinity mask),
// the thread count defaults to the number of cores, and the threads' masks are
// restored afterwards (a later host parallel region may use every allowed core).
// Needs 2 allowed cores (lit feature two-cores; the program also says SKIP
// rather than FAIL when it finds fewer).
//
// REQUIRES: spread, two-cores
// RUN: %clang-offload %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_CORES="%cpu0;%cpu1" SPREAD_HOST_DEVICE_THREADS=2 %libpath-run %t %cpu0 %cpu1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_CORES="%cpu0;%cpu1" SPREAD_HOST_DEVICE_THREADS=2 %preload-run %t %cpu0 %cpu1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_CORES="%cpu0;%cpu0,%cpu1" %spread-info | FileCheck %s --check-prefix=INFO
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_CORES="%cpu0;%cpu1,1023" %spread-info 2>&1 | FileCheck %s --check-prefix=OUTSIDE
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_CORES="%cpu0;%cpu1-x" %spread-info 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_CORES="1023;%cpu1" not --crash %libpath-run %t %cpu0 %cpu1 2>&1 | FileCheck %s --check-prefix=NONE

// CHECK: {{^(PASS|SKIP)}} device 0
// CHECK: {{^(PASS|SKIP)}} device 1
// CHECK: {{^(PASS|SKIP)}} host
// INFO: device 0: host | host device 0 (x86_64, 1 threads, cores {{[0-9]+}}) | {{.*}} | 1 compute units
// INFO: device 1: host | host device 1 (x86_64, 2 threads, cores {{[0-9,-]+}}) | {{.*}} | 2 compute units
// OUTSIDE: spread: warning: SPREAD_HOST_DEVICE_CORES: host device 1: cores 1023 are outside the cores this process may run on
// BAD: spread: warning: SPREAD_HOST_DEVICE_CORES={{.*}}: "x" is not a core number; using the default (no pinning)
// NONE: spread: error: SPREAD_HOST_DEVICE_CORES: host device 0 is given cores 1023, none of which this process may run on

#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define MAXT 8

static int only_on(int core) {
  cpu_set_t s;
  if (sched_getaffinity(0, sizeof s, &s) != 0)
    return 0;
  return CPU_COUNT(&s) == 1 && CPU_ISSET(core, &s);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    printf("FAIL: usage: %s CORE0 CORE1\n", argv[0]);
    return 1;
  }
  int core[2] = {atoi(argv[1]), atoi(argv[2])};
  cpu_set_t allowed;
  sched_getaffinity(0, sizeof allowed, &allowed);
  int skip = core[0] == core[1] || CPU_COUNT(&allowed) < 2;
  for (int d = 0; d < 2; d++) {
    int nth = 0, cpu[MAXT], pinned[MAXT];
    long sum = 0;
#pragma omp target teams map(from : nth, cpu, pinned) map(tofrom : sum) device(d)
#pragma omp parallel reduction(+ : sum)
    {
      int t = omp_get_thread_num();
      if (t == 0)
        nth = omp_get_num_threads();
      // Work long enough for the scheduler to move an unpinned thread.
#pragma omp for
      for (long i = 0; i < 20000000; i++)
        sum += i % 3;
      if (t < MAXT) {
        cpu[t] = sched_getcpu();
        pinned[t] = only_on(core[d]);
      }
    }
    int ok = nth == 2 && sum == 19999999;
    for (int t = 0; t < nth && t < MAXT; t++)
      ok = ok && cpu[t] == core[d] && pinned[t];
    printf("%s device %d: %d threads on cpus %d %d\n", skip ? "SKIP" : ok ? "PASS" : "FAIL", d, nth,
           cpu[0], nth > 1 ? cpu[1] : -1);
  }
  // libomp's workers went back with the masks they had.
  int unpinned = 1;
#pragma omp parallel num_threads(2) reduction(&& : unpinned)
  {
    cpu_set_t s;
    sched_getaffinity(0, sizeof s, &s);
    unpinned = CPU_EQUAL(&s, &allowed);
  }
  printf("%s host threads unpinned after the kernels\n", skip ? "SKIP" : unpinned ? "PASS" : "FAIL");
  return 0;
}
