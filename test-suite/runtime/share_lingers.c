// A host device whose asynchronous kernel has just ended still counts as computing for a
// moment (its chain of work is usually not over), so a kernel another device starts then gets
// a share of the cores; a kernel that ran synchronously does not linger, and after a pause a
// kernel gets every thread again. Results are checked against the serial computation.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: env SPREAD_HOST_THREADS=8 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_THREADS=8 %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 1024
#define TRIES 50

static double x[N];
static int bad;

// A `target parallel` kernel on `dev` (synchronous unless `async`): the thread count of its
// parallel region; checks its result.
static int kernel(int dev, int async, double scale) {
  int threads = 0;
  int *t = &threads;
  if (async) {
#pragma omp target parallel for map(tofrom : x[0:N], t[0:1]) device(dev) nowait
    for (int i = 0; i < N; i++) {
      if (i == 0)
        *t = omp_get_num_threads();
      x[i] = i * scale;
    }
#pragma omp taskwait
  } else {
#pragma omp target parallel for map(tofrom : x[0:N], t[0:1]) device(dev)
    for (int i = 0; i < N; i++) {
      if (i == 0)
        *t = omp_get_num_threads();
      x[i] = i * scale;
    }
  }
  for (int i = 0; i < N; i++)
    bad += x[i] != i * scale;
  return threads;
}

int main(void) {
  if (omp_get_num_devices() < 2) {
    printf("FAIL: %d devices\n", omp_get_num_devices());
    return 1;
  }
  // Right after device 0's nowait kernel: device 1 shares (8 / 2 = 4). The device counts for
  // 2 ms; a try the machine held up for longer sees 8, so the test needs one try in time.
  int shared = 0;
  for (int k = 0; k < TRIES && !shared; k++) {
    usleep(10000);
    kernel(0, 1, 1.0);
    shared = kernel(1, 0, 2.0) == 4;
  }
  printf("%s right after an asynchronous kernel: shared\n", shared ? "PASS" : "FAIL");
  // CHECK: PASS right after an asynchronous kernel: shared

  // Synchronous kernels one after another: each gets every thread.
  usleep(20000);
  int first = kernel(0, 0, 3.0), second = kernel(1, 0, 4.0);
  printf("%s one after another: %d and %d threads\n", first == 8 && second == 8 ? "PASS" : "FAIL",
         first, second);
  // CHECK: PASS one after another: 8 and 8 threads

  // After a pause, an asynchronous kernel's device no longer counts.
  kernel(0, 1, 5.0);
  usleep(50000);
  int later = kernel(1, 0, 6.0);
  printf("%s after a pause: %d threads\n", later == 8 ? "PASS" : "FAIL", later);
  // CHECK: PASS after a pause: 8 threads

  printf("%s results: %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  // CHECK: PASS results: 0 mismatches
  return 0;
}
