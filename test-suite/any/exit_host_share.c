// main returns while nowait instances still run on the host share (host versions whose
// kernels fork a team): the exit path finishes them on the exiting thread, after its
// thread-locals were destroyed. It panicked in some runs ("cannot access a Thread Local
// Storage value during or after destruction", exit 134, stdout lost; the task-sharing fuzzer's
// F6). The program checks its results in an atexit handler that runs before the runtime's
// exit work, so it checks only what a sync point made final, then exits.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: bash -c 'for i in 1 2 3 4 5 6; do env SPREAD_HOST_DEVICES=1 SPREAD_COHERENCE=lazy %t > %t.out 2> %t.err || exit 1; FileCheck %s < %t.out || exit 1; FileCheck %s --check-prefix=CLEAN --allow-empty < %t.err || exit 1; done'
// RUN: bash -c 'for i in 1 2 3 4 5 6; do env SPREAD_HOST_DEVICES=0 %preload-run %t > %t.out 2> %t.err || exit 1; FileCheck %s < %t.out || exit 1; FileCheck %s --check-prefix=CLEAN --allow-empty < %t.err || exit 1; done'
// CHECK: synced: ok
// CHECK: returning with instances in flight
// CLEAN-NOT: panicked
// CLEAN-NOT: fatal

#include <stdio.h>

#define NB 16
#define BS 4096
#define N (NB * BS)
static double a[N], b[N];

static void launch(int r) {
  for (int k = 0; k < NB; k++) {
    const int lo = k * BS;
    #pragma omp target device(any) map(to: a[lo:BS]) map(from: b[lo:BS]) nowait \
        if_device(host) parallel for num_threads(2)
      for (int i = lo; i < lo + BS; i++) {
        double x = a[i];
        for (int j = 0; j < 20; j++) x = x * 0.5 + r;
        b[i] = x;
      }
  }
}

int main(void) {
  for (int i = 0; i < N; i++) a[i] = i % 13;
  launch(1);
  #pragma omp taskwait
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double x = a[i];
    for (int j = 0; j < 20; j++) x = x * 0.5 + 1;
    bad += b[i] != x;
  }
  printf("synced: %s (%d wrong)\n", bad ? "FAIL" : "ok", bad);
  launch(2);
  launch(3);
  printf("returning with instances in flight\n");
  return bad != 0;
}
