// Every schedule of a compute-unit region (static, dynamic, adaptive,
// static_opt, and the default from SPREAD_SCHEDULE) hands every task to exactly
// one CU, and the result equals the serial loop. The code is what the lowering
// of
//   #pragma omp teams distribute num_teams(2:CPU:2, 2:GPU:1) dist_schedule(K)
//   for (zone = 0; zone < NZ; zone++) ...
// produces (digest §6.2), with the paper's per-CU divergence (Fig. 12): CPU CUs
// run a nested parallel loop, GPU CUs (host devices) a `target nowait` region
// that omp_synchronize (in the commit) must have finished before the commit
// returns. spread_cu_last_stats reports what each CU did.
//
// REQUIRES: spread
// RUN: %clang-offload -I %S/../../runtime/include -L %runtime-libdir %s -o %t
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 SPREAD_SCHEDULE=dynamic,4 %libpath-run %t 2>&1 | FileCheck %s --check-prefix=ENV --implicit-check-not=FAIL
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 SPREAD_INFO=chunks %libpath-run %t static 2>&1 | FileCheck %s --check-prefix=INFO --implicit-check-not=FAIL

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <string.h>

#define NZ 37
#define Z 64

static double out[NZ * Z];

static double f(int zone, int k) { return zone * 1000.0 + k * 0.5 + (zone % 3) * k; }

static int run(int sched, int line) {
  static int count[NZ];
  static int unsynced;
  memset(out, 0, sizeof out);
  memset(count, 0, sizeof count);
  unsynced = 0;
  {
    const __spread_construct_t c = {"schedules.c", line, __SPREAD_KIND_CU, 0, sched};
    const __spread_cud_t cuds[] = {{2, __SPREAD_CU_CPU, 2}, {2, __SPREAD_CU_GPU, 1}};
    int zone;
    __spread_cu_region_t *cu = __spread_cu_begin(&c, 0, NZ, cuds, 2, 0, 0);
#pragma omp parallel num_threads(__spread_cu_num_threads(cu)) private(zone)
    {
      int64_t lo, hi;
      __spread_cu_enter(cu);
      while (__spread_cu_next(cu, &lo, &hi)) {
        for (zone = lo; zone < hi; zone++) {
#pragma omp atomic
          count[zone]++;
          double *z = out + (size_t)zone * Z;
          if (omp_is_cpu()) {
#pragma omp parallel for num_threads(omp_get_cu_num_cpus())
            for (int k = 0; k < Z; k++)
              z[k] = f(zone, k);
          } else {
            int dev = omp_get_gpu(), zn = zone;
#pragma omp target teams distribute parallel for device(dev) map(tofrom : z[0 : Z]) nowait
            for (int k = 0; k < Z; k++)
              z[k] = f(zn, k);
          }
        }
        __spread_cu_commit(cu, lo, hi);
        for (zone = lo; zone < hi; zone++)
          if (out[(size_t)zone * Z + Z - 1] != f(zone, Z - 1)) {
#pragma omp atomic
            unsynced++;
          }
      }
      __spread_cu_leave(cu);
    }
    __spread_cu_end(cu);
  }
  int twice = 0, missing = 0, wrong = 0;
  for (int i = 0; i < NZ; i++) {
    twice += count[i] > 1;
    missing += count[i] == 0;
    for (int k = 0; k < Z; k++)
      wrong += out[(size_t)i * Z + k] != f(i, k);
  }
  spread_cu_stats_t st[8];
  int n = spread_cu_last_stats(st, 8);
  long long iters = 0, units = 0;
  for (int i = 0; i < n && i < 8; i++) {
    iters += st[i].spread_iterations;
    units += st[i].spread_units;
  }
  int bad = twice || missing || wrong || unsynced || n != 4 || iters != NZ;
  printf("%s sched=%d line=%d twice=%d missing=%d wrong=%d unsynced=%d cus=%d iterations=%lld units=%lld\n",
         bad ? "FAIL" : "PASS", sched, line, twice, missing, wrong, unsynced, n, iters, units);
  return bad;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  if (argc > 1 && !strcmp(argv[1], "static")) {
    run(__SPREAD_SCHED_STATIC, 100);
    // Static: one contiguous block per CU, the first NZ % 4 one longer.
    // INFO-DAG: spread: schedules.c:100 task [0,10) -> cu 0 (cpu)
    // INFO-DAG: spread: schedules.c:100 task [10,19) -> cu 1 (cpu)
    // INFO-DAG: spread: schedules.c:100 task [19,28) -> cu 2 (gpu device 0)
    // INFO-DAG: spread: schedules.c:100 task [28,37) -> cu 3 (gpu device 1)
    // INFO-DAG: spread: schedules.c:100 cu 0 (cpu, 2 CPUs): 1 units, 10 iterations, busy {{[0-9.]+}} ms
    // INFO-DAG: spread: schedules.c:100 cu 1 (cpu, 2 CPUs): 1 units, 9 iterations, busy {{[0-9.]+}} ms
    // INFO-DAG: spread: schedules.c:100 cu 2 (gpu device 0): 1 units, 9 iterations, busy {{[0-9.]+}} ms
    // INFO-DAG: spread: schedules.c:100 cu 3 (gpu device 1): 1 units, 9 iterations, busy {{[0-9.]+}} ms
    // INFO: PASS sched=1 line=100
    return 0;
  }
  int bad = 0;
  // Two executions of each construct: the model-based schedules measure on the first one
  // (under dynamic) and divide by the rates on the second.
  for (int round = 0; round < 2; round++) {
    bad += run(__SPREAD_SCHED_STATIC, 10);
    bad += run(__SPREAD_SCHED_DYNAMIC, 20);
    bad += run(__SPREAD_SCHED_ADAPTIVE, 30);
    bad += run(__SPREAD_SCHED_STATIC_OPT, 40);
    bad += run(__SPREAD_SCHED_DEFAULT, 50);
  }
  // CHECK: PASS sched=1 line=10 {{.*}} cus=4 iterations=37 units=4
  // dynamic: one task per unit (the paper's chunk 1)
  // CHECK: PASS sched=2 line=20 {{.*}} iterations=37 units=37
  // CHECK: PASS sched=3 line=30
  // CHECK: PASS sched=4 line=40
  // without SPREAD_SCHEDULE the default is static
  // CHECK: PASS sched=0 line=50 {{.*}} units=4
  // CHECK: PASS sched=1 line=10
  // CHECK: PASS sched=2 line=20
  // CHECK: PASS sched=3 line=30
  // CHECK: PASS sched=4 line=40
  // CHECK: PASS sched=0 line=50
  // ENV: PASS sched=0 line=50 {{.*}} iterations=37 units=10
  printf("%s\n", bad ? "FAILED" : "ALL PASSED");
  // CHECK: ALL PASSED
  return bad;
}
