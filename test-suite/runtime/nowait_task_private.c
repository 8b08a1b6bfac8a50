// A `target nowait` inside an explicit task names the task's firstprivate array (implicitly
// mapped). libomp frees a task's private data once the task has ended and its children have
// completed; an owned construct's target task completes at once, so the data was freed while
// the device still had to copy it (and copy it back): instances read other instances' values
// or garbage (stock libomptarget keeps the target task, and so the data, until the device work
// is done). Inside a parallel region the task may end before its target task starts; outside one
// the task runs at once. Every value is checked against the serial result.
//
// RUN: %clang-offload -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 %libpath-run %t team | FileCheck %s
// RUN: env SPREAD_HOST_DEVICES=2 %preload-run %t team | FileCheck %s
// RUN: env SPREAD_HOST_DEVICES=2 %libpath-run %t initial | FileCheck %s
// RUN: env SPREAD_HOST_DEVICES=2 %preload-run %t initial | FileCheck %s
// CHECK: task private: OK

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI 64
#define N 4096

static void instance(int k, int nd, double *x, double *y) {
  double c[4] = {k, k + 0.25, k + 0.5, k + 0.75};
  double *xs = x + (long)k * N, *ys = y + (long)k * N;
#pragma omp task firstprivate(c)
  {
#pragma omp target nowait device(k % nd) map(to : xs[0 : N]) map(from : ys[0 : N])
    for (int i = 0; i < N; i++)
      ys[i] = xs[i] * c[i % 4];
  }
  // The next instance's task reuses the freed memory: make stale values look wrong.
  memset(c, 0xff, sizeof c);
}

int main(int argc, char **argv) {
  int team = argc > 1 && strcmp(argv[1], "team") == 0;
  double *x = malloc(sizeof(double) * NI * N), *y = malloc(sizeof(double) * NI * N);
  if (!x || !y)
    return 2;
  for (long i = 0; i < (long)NI * N; i++) {
    x[i] = 1.0;
    y[i] = -1.0;
  }
  int nd = omp_get_num_devices();
  if (nd < 1)
    return 2;
  if (team) {
#pragma omp parallel
#pragma omp single
    for (int k = 0; k < NI; k++)
      instance(k, nd, x, y);
  } else {
    for (int k = 0; k < NI; k++)
      instance(k, nd, x, y);
#pragma omp taskwait
  }
  long bad = 0;
  for (int k = 0; k < NI; k++)
    for (int i = 0; i < N; i++)
      if (y[(long)k * N + i] != k + 0.25 * (i % 4)) {
        if (!bad)
          printf("instance %d, i %d: %g, serial %g\n", k, i, y[(long)k * N + i], k + 0.25 * (i % 4));
        bad++;
      }
  printf("task private: %s (%ld wrong of %d)\n", bad ? "FAIL" : "OK", bad, NI * N);
  return bad != 0;
}
