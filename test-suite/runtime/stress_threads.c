// Many host threads offloading at once: 12 threads each run 2000 iterations of
// target regions (2 per iteration), unstructured enter/update/exit data and nowait +
// depend chains (every 50th iteration: with libomp's hidden helpers on 2 cores a
// taskwait costs milliseconds) on devices chosen round-robin, while all of them share one
// read-only table whose mapping every thread enters and exits on every device
// (shared reference counts). The results must equal a serial run, and at the end
// nothing may still be mapped on any device (a leaked or lost reference shows up as
// a present buffer, an early release as a wrong result or a runtime error).
//
// RUN: %clang-offload -O2 %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env OMP_NUM_THREADS=16 %libpath-run %t 16 1000 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
#define MAXT 16

static double table[N];
static double work[MAXT][N];
static double expect[MAXT][N];

// One iteration's update, as the devices compute it.
static void step(double *a, const double *t, int r, int kind) {
  for (int i = 0; i < N; i++)
    a[i] = kind == 0 ? a[i] + t[i] * 0.5 + r : a[i] * 0.75 + t[(i + r) % N];
}

int main(int argc, char **argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 12;
  int iters = argc > 2 ? atoi(argv[2]) : 2000;
  int nd = omp_get_num_devices();
  if (nthreads > MAXT || nd < 1) {
    printf("FAIL: bad set-up (%d threads, %d devices)\n", nthreads, nd);
    return 1;
  }
  for (int i = 0; i < N; i++)
    table[i] = (i % 17) * 0.25;
  for (int t = 0; t < nthreads; t++)
    for (int i = 0; i < N; i++)
      work[t][i] = expect[t][i] = t + i * 0.001;

  // Serial reference.
  for (int t = 0; t < nthreads; t++)
    for (int r = 0; r < iters; r++) {
      step(expect[t], table, r, 0);
      step(expect[t], table, r, 1);
    }

  long regions = 0;
#pragma omp parallel num_threads(nthreads) reduction(+ : regions)
  {
    int t = omp_get_thread_num();
    double *a = work[t];
    // Every thread holds a reference to the table on every device.
    for (int d = 0; d < nd; d++) {
#pragma omp target enter data map(to : table[0 : N]) device(d)
    }
    for (int r = 0; r < iters; r++) {
      int d = (t + r) % nd;
      if (r % 50 == 0) {
        // Unstructured data with nowait + depend: enter, two kernels, exit.
#pragma omp target enter data map(to : a[0 : N]) device(d) nowait depend(inout : a[0])
#pragma omp target device(d) nowait depend(inout : a[0]) map(present, alloc : a[0 : N])
        for (int i = 0; i < N; i++)
          a[i] = a[i] + table[i] * 0.5 + r;
#pragma omp target device(d) nowait depend(inout : a[0])
        for (int i = 0; i < N; i++)
          a[i] = a[i] * 0.75 + table[(i + r) % N];
#pragma omp target exit data map(from : a[0 : N]) device(d) nowait depend(inout : a[0])
#pragma omp taskwait
      } else if (r % 2 == 1) {
        // Synchronous regions, the table found present.
#pragma omp target device(d) map(tofrom : a[0 : N]) map(present, to : table[0 : N])
        for (int i = 0; i < N; i++)
          a[i] = a[i] + table[i] * 0.5 + r;
#pragma omp target data map(tofrom : a[0 : N]) device(d)
        {
#pragma omp target device(d)
          for (int i = 0; i < N; i++)
            a[i] = a[i] * 0.75 + table[(i + r) % N];
        }
      } else {
        // Update motion inside an outer mapping.
#pragma omp target enter data map(alloc : a[0 : N]) device(d)
#pragma omp target update to(a[0 : N]) device(d)
#pragma omp target device(d)
        for (int i = 0; i < N; i++)
          a[i] = a[i] + table[i] * 0.5 + r;
#pragma omp target device(d)
        for (int i = 0; i < N; i++)
          a[i] = a[i] * 0.75 + table[(i + r) % N];
#pragma omp target update from(a[0 : N]) device(d)
#pragma omp target exit data map(release : a[0 : N]) device(d)
      }
      regions += 2;
    }
    for (int d = 0; d < nd; d++) {
#pragma omp target exit data map(release : table[0 : N]) device(d)
    }
  }

  int bad = 0;
  for (int t = 0; t < nthreads; t++)
    for (int i = 0; i < N; i++)
      if (work[t][i] != expect[t][i]) {
        if (bad++ < 5)
          printf("FAIL: thread %d element %d: %g, expected %g\n", t, i, work[t][i],
                 expect[t][i]);
      }
  int leaked = 0;
  for (int d = 0; d < nd; d++) {
    if (omp_target_is_present(table, d)) {
      printf("FAIL: the shared table is still mapped on device %d\n", d);
      leaked++;
    }
    for (int t = 0; t < nthreads; t++)
      if (omp_target_is_present(work[t], d)) {
        printf("FAIL: thread %d's array is still mapped on device %d\n", t, d);
        leaked++;
      }
  }
  printf("%d threads x %ld target regions on %d devices: %s\n", nthreads,
         regions / nthreads, nd, bad || leaked ? "FAIL" : "match serial, nothing mapped");
  return bad || leaked;
}

// CHECK: threads x {{[0-9]+}} target regions on {{[0-9]+}} devices: match serial, nothing mapped
