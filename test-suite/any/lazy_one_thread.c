// Lazy coherence: outputs of device instances come home at a worksharing `for`'s barrier even
// when a host instance of one thread ran on the same thread before it (`resources` rounding to
// one thread, SPREAD_ANY_HOST_THREADS=1, or a team of one). A region of one thread has no
// barrier, and libomp gives it the enclosing implicit task's tool data: the runtime took the
// program's `for` barrier for the end of the instance's region and skipped its flush, so
// device outputs stayed on the devices (task-sharing fuzzer F5: 26 of 50 elements wrong).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_COHERENCE=lazy SPREAD_HOST_DEVICES=3 OMP_NUM_THREADS=1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_COHERENCE=lazy SPREAD_HOST_DEVICES=2 OMP_NUM_THREADS=2 SPREAD_ANY_HOST_THREADS=1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_COHERENCE=lazy SPREAD_HOST_DEVICES=2 OMP_NUM_THREADS=1 %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: after the for: ok

#include <stdio.h>

#define NB 8
#define BS 64
#define N (NB * BS)
static unsigned a[N], b[N];

int main(void) {
  int bad = 0;
  for (int r = 1; r <= 5; r++) {
    for (int i = 0; i < N; i++) a[i] = i + r, b[i] = 0;
    int wrong = 0;
    #pragma omp parallel reduction(+ : wrong)
    {
      #pragma omp for
      for (int k = 0; k < NB; k++) {
        const int lo = k * BS;
        // On a device (its outputs stay there under lazy coherence) or on the host.
        #pragma omp target device(any) map(tofrom: a[lo:BS]) \
            if_device(cpu) teams distribute parallel for if_device(host) parallel for resources(1)
          for (int i = lo; i < lo + BS; i++) a[i] = 3u * a[i];
        // A host instance of one thread: a region of one thread on this thread.
        #pragma omp target device(any) map(to: a[lo:BS]) map(from: b[lo:BS]) \
            if_device(host) parallel for resources(1)
          for (int i = lo; i < lo + BS; i++) b[i] = a[i] + 1u;
        #pragma omp target device(any) map(tofrom: a[lo:BS]) nowait \
            if_device(cpu) teams distribute parallel for
          for (int i = lo; i < lo + BS; i++) a[i] = a[i] + 5u;
      }
      // The for's barrier: every instance has run, its outputs are home.
      #pragma omp masked
      for (int i = 0; i < N; i++)
        wrong += a[i] != 3u * (i + r) + 5u || b[i] != 3u * (i + r) + 1u;
    }
    bad += wrong;
  }
  printf("after the for: %s (%d wrong)\n", bad ? "FAIL" : "ok", bad);
  return bad != 0;
}
