// Host devices of unequal size: SPREAD_HOST_DEVICE_THREADS gives each host device
// its own thread count (the last entry repeated). Inside a `target teams ...
// parallel` kernel, device 0 runs 1 thread and device 1 runs 2, also when both
// compute at once, and the results match a serial computation. spread-info and
// SPREAD_INFO=devices show the sizes.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_THREADS=1,2 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_THREADS=1,2 %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=3 SPREAD_HOST_DEVICE_THREADS=1,2 %spread-info | FileCheck %s --check-prefix=INFO
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_THREADS=1,2 SPREAD_INFO=devices %libpath-run %t 2>&1 | FileCheck %s --check-prefix=DEVICES
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_HOST_DEVICE_THREADS=1,zero %libpath-run %t 2>&1 | FileCheck %s --check-prefix=BAD

// INFO: device 0: host | host device 0 (x86_64, 1 threads) | {{.*}} | 1 compute units
// INFO: device 1: host | host device 1 (x86_64, 2 threads) | {{.*}} | 2 compute units
// INFO: device 2: host | host device 2 (x86_64, 2 threads) | {{.*}} | 2 compute units
// DEVICES: spread: info: device 0 (host): 1 threads per kernel (own), cores any (not pinned)
// DEVICES: spread: info: device 1 (host): 2 threads per kernel (own), cores any (not pinned)
// BAD: spread: warning: SPREAD_HOST_DEVICE_THREADS="1,zero": "zero" is not a positive number; using the default

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 100000
#define D 2

static double f(int i) { return 0.5 * i + (i % 7); }

int main(void) {
  static double x[D][N];
  int threads[D] = {0, 0};
  if (omp_get_num_devices() < D) {
    printf("FAIL: %d devices\n", omp_get_num_devices());
    return 1;
  }
  // One device at a time.
  for (int d = 0; d < D; d++) {
    double *xd = x[d];
    int *td = &threads[d];
#pragma omp target teams map(from : xd[0:N], td[0:1]) device(d)
#pragma omp parallel
    {
      if (omp_get_thread_num() == 0)
        *td = omp_get_num_threads();
#pragma omp for
      for (int i = 0; i < N; i++)
        xd[i] = f(i);
    }
  }
  int bad = 0;
  for (int d = 0; d < D; d++)
    for (int i = 0; i < N; i++)
      bad += x[d][i] != f(i);
  printf("%s alone: device 0 %d threads, device 1 %d threads, %d mismatches\n",
         threads[0] == 1 && threads[1] == 2 && !bad ? "PASS" : "FAIL", threads[0], threads[1], bad);
  // CHECK: PASS alone: device 0 1 threads, device 1 2 threads, 0 mismatches

  // Both at once (nowait): each keeps its own count instead of a share of the cores.
  threads[0] = threads[1] = 0;
#pragma omp parallel num_threads(D)
#pragma omp single
  for (int d = 0; d < D; d++) {
    double *xd = x[d];
    int *td = &threads[d];
#pragma omp target teams distribute parallel for map(from : xd[0:N], td[0:1]) device(d) nowait
    for (int i = 0; i < N; i++) {
      if (i == 0) {
        usleep(100000); // hold the device while the other starts
        *td = omp_get_num_threads();
      }
      xd[i] = 2.0 * f(i);
    }
  }
  bad = 0;
  for (int d = 0; d < D; d++)
    for (int i = 0; i < N; i++)
      bad += x[d][i] != 2.0 * f(i);
  printf("%s together: device 0 %d threads, device 1 %d threads, %d mismatches\n",
         threads[0] == 1 && threads[1] == 2 && !bad ? "PASS" : "FAIL", threads[0], threads[1], bad);
  // CHECK: PASS together: device 0 1 threads, device 1 2 threads, 0 mismatches
  return 0;
}
