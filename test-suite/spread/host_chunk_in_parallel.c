// A `target spread ... reduction` whose devices list holds the host, dealt
// from inside a parallel region of more threads than cores: the host chunk's
// `teams` league formed on the dealing thread never returned (libomp 19; stock
// libomptarget's host fallback of `target teams ... reduction` inside such a
// region hangs the same way). The host chunk runs on the host share instead (the
// host's cores and memory, from an executor outside any parallel region).
// Found by scripts/spread-fuzz.py (F1). With `depend` (no `nowait`) each chunk's
// `target` is clang's undeferred target task, whose kernel call reaches the runtime
// as a plain `__tgt_target_kernel`: it is run as the chunk's too (it hung the same
// way, found by the fuzzer's 10,000-case run).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=8 timeout 120 %t | FileCheck %s
// RUN: env OMP_NUM_THREADS=5 timeout 120 %preload-run %t | FileCheck %s
// CHECK: parallel, host first: PASS
// CHECK: parallel, host last: PASS
// CHECK: nested tasks: PASS
// CHECK: initial thread: PASS
// CHECK: depend, host only: PASS
// CHECK: depend, host and devices: PASS

#include <omp.h>
#include <stdio.h>

#define N 1000
static double A[N];

int main(void) {
  for (int i = 0; i < N; i++)
    A[i] = i % 7;
  const int host = omp_get_initial_device();
  double want = 0.5;
  for (int i = 0; i < N; i++)
    want += A[i];

  double red = 0.5;
#pragma omp parallel
#pragma omp single
  {
#pragma omp target spread teams distribute parallel for reduction(+ : red)   \
    devices(host, 0) spread_schedule(static, 100)                              \
    map(to : A[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      red += A[i];
  }
  printf("parallel, host first: %s (%g, want %g)\n", red == want ? "PASS" : "FAIL", red, want);

  double mx = -1;
#pragma omp parallel
  {
#pragma omp masked
#pragma omp target spread teams distribute parallel for reduction(max : mx)   \
    devices(1, 2, host) map(to : A[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      mx = A[i] > mx ? A[i] : mx;
  }
  printf("parallel, host last: %s\n", mx == 6 ? "PASS" : "FAIL");

  red = 0.5;
#pragma omp parallel
#pragma omp single
  {
#pragma omp task shared(red)
    {
#pragma omp target spread teams distribute parallel for reduction(+ : red) \
    devices(host, 3) spread_schedule(static, 7)                               \
    map(to : A[omp_spread_start : omp_spread_size])
      for (int i = 0; i < N; i++)
        red += A[i];
    }
  }
  printf("nested tasks: %s\n", red == want ? "PASS" : "FAIL");

  red = 0.5;
#pragma omp target spread teams distribute parallel for reduction(+ : red)     \
    devices(host, 0) map(to : A[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    red += A[i];
  printf("initial thread: %s\n", red == want ? "PASS" : "FAIL");

  static char tok;
  double lo = 100;
#pragma omp parallel
#pragma omp single
  {
#pragma omp target spread teams distribute parallel for reduction(min : lo) \
    devices(host) spread_schedule(adaptive, 100) depend(inout : tok)          \
    map(to : A[omp_spread_start : omp_spread_size])
    for (int i = 1; i < N; i++)
      lo = A[i] < lo ? A[i] : lo;
  }
  printf("depend, host only: %s\n", lo == 0 ? "PASS" : "FAIL");

  red = 0.5;
#pragma omp parallel
#pragma omp single
  {
#pragma omp target spread teams distribute parallel for reduction(+ : red) \
    devices(0, host, 1) spread_schedule(dynamic, 64) depend(inout : tok)     \
    map(to : A[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      red += A[i];
  }
  printf("depend, host and devices: %s\n", red == want ? "PASS" : "FAIL");
  return 0;
}
