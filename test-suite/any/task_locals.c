// An instance's arm may name the creating function's local arrays and structs without mapping
// them: the lowering makes them firstprivate in the instance's task, and the arm's `target` maps
// them implicitly from there. Created outside a parallel region, an arm runs asynchronously (on a
// device, or on the host share) and outlives its task, whose private data libomp frees when the
// body returns: each instance must still compute with its own values. (Before the runtime
// copied such items at the launch, the host share ran the kernel on freed memory and device arms
// copied it later: most instances used another instance's coefficients, "FAIL (258048 wrong)".)
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 %t host | FileCheck %s --implicit-check-not=FAIL
// CHECK: task locals: OK

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NI 64
#define N 4096

struct affine {
  double scale, shift;
};

static int host_only;

static void instances(double *x, double *y) {
  for (int k = 0; k < NI; k++) {
    double c[4] = {k, k + 0.25, k + 0.5, k + 0.75};
    struct affine a = {2.0, (double)k};
    double *xs = x + (long)k * N, *ys = y + (long)k * N;
    if (host_only) {
#pragma omp target device(any) map(to : xs[0 : N]) map(from : ys[0 : N]) nowait
#pragma omp if_device(host) parallel for
      for (int i = 0; i < N; i++)
        ys[i] = a.scale * xs[i] * c[i % 4] + a.shift;
    } else {
#pragma omp target device(any) map(to : xs[0 : N]) map(from : ys[0 : N]) nowait
#pragma omp if_device(host) parallel for
#pragma omp if_device(cpu) teams distribute parallel for
      for (int i = 0; i < N; i++)
        ys[i] = a.scale * xs[i] * c[i % 4] + a.shift;
    }
    // The next instance's locals reuse the freed ones: make stale data look wrong.
    memset(c, 0xff, sizeof c);
    memset(&a, 0xff, sizeof a);
  }
#pragma omp taskwait
}

int main(int argc, char **argv) {
  host_only = argc > 1 && strcmp(argv[1], "host") == 0;
  double *x = malloc(sizeof(double) * NI * N), *y = malloc(sizeof(double) * NI * N);
  if (!x || !y)
    return 2;
  for (long i = 0; i < (long)NI * N; i++) {
    x[i] = 1.0;
    y[i] = -1.0;
  }
  instances(x, y);
  long bad = 0;
  for (int k = 0; k < NI; k++)
    for (int i = 0; i < N; i++) {
      double want = 2.0 * (k + 0.25 * (i % 4)) + k;
      if (y[(long)k * N + i] != want) {
        if (!bad)
          printf("instance %d, i %d: %g, serial %g\n", k, i, y[(long)k * N + i], want);
        bad++;
      }
    }
  printf("task locals: %s (%ld wrong of %d)\n", bad ? "FAIL" : "OK", bad, NI * N);
  return bad != 0;
}
