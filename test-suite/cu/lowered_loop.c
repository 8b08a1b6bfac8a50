// Compute-unit loops (seed 004), end to end: `teams distribute num_teams(...)
// dist_schedule(...)` and the paper's two-line `teams` + `distribute` form, with every schedule
// (none, static, static with a chunk, dynamic, dynamic with a chunk, static_opt, adaptive), on
// CPU CUs and a GPU CU (which offloads its tasks to its device): every task runs exactly once,
// on one CU, and the result equals the serial loop. The C++ variant is cu_loop.cpp.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env OMP_NUM_THREADS=2 SPREAD_SCHEDULE=dynamic %t | FileCheck %s --implicit-check-not=FAIL
// CHECK-COUNT-9: ok
// CHECK: all cu loops ok

#include <omp.h>
#include <stdio.h>

#define N 203
#define STR(x) #x
#define PRAGMA(x) _Pragma(STR(x))

static double in[N], out[N];
static int runs[N], owner[N];
static int failures;

static void reset(void) {
  for (int i = 0; i < N; i++) {
    out[i] = -1;
    runs[i] = 0;
    owner[i] = -1;
  }
}

// one task: on a GPU CU offloaded to its device, on a CPU CU with its CPUs
static void task(int zone) {
#pragma omp atomic
  runs[zone]++;
  owner[zone] = (int)omp_get_cu_num();
  if (omp_is_gpu()) {
    double v = in[zone], r = 0;
#pragma omp target device(omp_get_gpu()) map(to: v) map(from: r)
    r = v * v + 1;
    out[zone] = r;
  } else {
    double r = 0;
#pragma omp parallel for num_threads(omp_get_cu_num_cpus()) reduction(+: r)
    for (int k = 0; k < 4; k++)
      r += in[zone] * in[zone] / 4;
    out[zone] = r + 1;
  }
}

static void check(const char *what, int lo) {
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double want = i < lo ? -1 : in[i] * in[i] + 1;
    int want_runs = i < lo ? 0 : 1;
    if ((out[i] != want || runs[i] != want_runs) && bad++ < 3)
      printf("FAIL %s: task %d ran %d times, out %g, serial %g\n", what, i, runs[i], out[i], want);
    if (i >= lo && (owner[i] < 0 || owner[i] > 2) && bad++ < 3)
      printf("FAIL %s: task %d ran on CU %d\n", what, i, owner[i]);
  }
  failures += bad != 0;
  if (!bad)
    printf("%s ok\n", what);
}

#define CU_LOOP(NAME, SCHED)                                                                   \
  reset();                                                                                     \
  PRAGMA(omp teams distribute num_teams(2:CPU:1, 1:GPU:1) SCHED)                               \
  for (int z = 0; z < N; z++)                                                                  \
    task(z);                                                                                   \
  check(NAME, 0);

int main(void) {
  for (int i = 0; i < N; i++)
    in[i] = i % 13;

  CU_LOOP("no dist_schedule", )
  CU_LOOP("static", dist_schedule(static))
  CU_LOOP("static, 5", dist_schedule(static, 5))
  CU_LOOP("dynamic", dist_schedule(dynamic))
  CU_LOOP("dynamic, 9", dist_schedule(dynamic, 9))
  CU_LOOP("static_opt", dist_schedule(static_opt))
  CU_LOOP("adaptive", dist_schedule(adaptive))

  // the paper's form: teams and distribute on two lines, the loop variable declared outside,
  // an inclusive bound from 1
  int zone;
  reset();
#pragma omp teams num_teams(2::CPU::1, 1::GPU::1)
#pragma omp distribute dist_schedule(dynamic, 1)
  for (zone = 1; zone <= N - 1; zone++)
    task(zone);
  check("two lines, dynamic, 1", 1);

  // a reduction on the teams goes to the CUs' threads
  double sum = 0, ref = 0;
  for (int i = 0; i < N; i++)
    ref += in[i];
#pragma omp teams loop num_teams(2:CPU:1) reduction(+: sum)
  for (int i = 0; i < N; i++)
    sum += in[i];
  if (sum != ref) {
    printf("FAIL reduction: %g, serial %g\n", sum, ref);
    failures++;
  } else {
    printf("reduction ok\n");
  }

  if (failures == 0)
    printf("all cu loops ok\n");
  return failures != 0;
}
