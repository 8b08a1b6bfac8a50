// A `target spread ... nowait` construct issued by the initial thread, outside any
// parallel region, returns before its chunks finish: every chunk waits until the
// host sets a flag, which the host does only after the construct and before its
// taskwait (a chunk that ran inside the construct gives up after 5 s and reports
// it). The chunks read the flag through is_device_ptr (host devices share the
// program's address space) and their results are checked against the serial loop.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define N 8

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  static int flag;
  int *f = &flag;
  int a[N] = {0}, saw[N] = {0};
#pragma omp target spread teams distribute parallel for devices(0, 1, 2, 3)                      \
    spread_schedule(static, 2) is_device_ptr(f) nowait                                         \
    map(from : a[omp_spread_start : omp_spread_size], saw[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++) {
    double t0 = now();
    while (!__atomic_load_n(f, __ATOMIC_ACQUIRE) && now() - t0 < 5.0)
      usleep(200);
    saw[i] = __atomic_load_n(f, __ATOMIC_ACQUIRE);
    a[i] = 3 * i + 1;
  }
  __atomic_store_n(f, 1, __ATOMIC_RELEASE);
#pragma omp taskwait
  int ok = 1;
  for (int i = 0; i < N; i++) {
    if (!saw[i])
      printf("FAIL: iteration %d ran before the host went on (synchronous nowait)\n", i);
    if (a[i] != 3 * i + 1)
      printf("FAIL: a[%d] = %d, expected %d\n", i, a[i], 3 * i + 1);
    ok &= saw[i] && a[i] == 3 * i + 1;
  }
  printf("spread nowait from the initial thread: %s\n", ok ? "asynchronous" : "FAIL");
  return !ok;
}

// CHECK: spread nowait from the initial thread: asynchronous
