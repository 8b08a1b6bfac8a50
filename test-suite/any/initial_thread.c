// `target device(any) nowait` instances created by the initial thread, outside any parallel
// region, run at once: libomp runs each instance's task when it is created, and Spread runs the
// instance's device arm as a `target nowait` it owns, so the next instance is created while the
// previous one still runs. Each instance announces itself on a shared counter and waits (at most
// 5 s) for all of its round; instances that ran one after another would never see the others.
// The results are checked after the taskwait (and after a taskgroup), the tokens come back
// (a second round needs them), and a host task that depends on an instance sees its output
// (under SPREAD_COHERENCE=lazy after spread_any_flush(), as docs/task-sharing.md asks: a host
// task is not one of lazy coherence's sync points). A host instance does not hold the creating
// thread either: it runs on the host share while the creator goes on to a device instance, and
// the two meet (before the host share, the host instance ran on the creating thread and waited
// in vain for an instance not yet created).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=4 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=4 SPREAD_COHERENCE=lazy %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define K 4
#define N 64

#include "../Inputs/rendezvous.h"

static int counter[2];
static double a[K * N];

int main(void) {
  int ok = 1;
  for (int round = 0; round < 2; round++) {
    int *c = &counter[round];
    int met[K] = {0};
    for (int i = 0; i < K * N; i++)
      a[i] = i;
    // One instance per device (tokens: 100 each), so all four must run at once.
    for (int k = 0; k < K; k++) {
#pragma omp target device(any) is_device_ptr(c) map(tofrom : a[k * N : N], met[k : 1]) nowait
#pragma omp if_device(cpu) parallel for resources(100)
      for (int i = k * N; i < (k + 1) * N; i++) {
        if (i == k * N)
          met[k] = meet(c, K);
        a[i] = 2 * a[i] + round;
      }
    }
    if (round == 0) {
#pragma omp taskwait
    } else {
#pragma omp taskgroup
      {
      }
#pragma omp taskwait
    }
    int bad = 0;
    for (int i = 0; i < K * N; i++)
      bad += a[i] != 2.0 * i + round;
    for (int k = 0; k < K; k++)
      ok &= met[k] == 1;
    printf("round %d: %s, %s\n", round, bad ? "FAIL: wrong values" : "values OK",
           met[0] && met[1] && met[2] && met[3] ? "overlap" : "FAIL: ran one after another");
    ok &= !bad;
  }
  // A host instance, then a device instance, both from the initial thread: they run at once.
  static int hc;
  int *hcp = &hc;
  int hmet[2] = {0};
  static double h[2 * N];
  for (int i = 0; i < 2 * N; i++)
    h[i] = i;
#pragma omp target device(any) is_device_ptr(hcp) map(tofrom : h[0 : N], hmet[0 : 1]) nowait
#pragma omp if_device(host) parallel for
  for (int i = 0; i < N; i++) {
    if (i == 0)
      hmet[0] = meet(hcp, 2);
    h[i] = 3 * h[i];
  }
#pragma omp target device(any) is_device_ptr(hcp) map(tofrom : h[N : N], hmet[1 : 1]) nowait
#pragma omp if_device(cpu) parallel for
  for (int i = N; i < 2 * N; i++) {
    if (i == N)
      hmet[1] = meet(hcp, 2);
    h[i] = 3 * h[i];
  }
#pragma omp taskwait
  int hbad = 0;
  for (int i = 0; i < 2 * N; i++)
    hbad += h[i] != 3.0 * i;
  printf("host and device instance: %s, %s\n", hbad ? "FAIL: wrong values" : "values OK",
         hmet[0] && hmet[1] ? "overlap" : "FAIL: ran one after another");
  ok &= !hbad && hmet[0] && hmet[1];
  // A host task that depends on an instance reads its output.
  double seen = -1, x = 1;
#pragma omp target device(any) map(tofrom : x) nowait depend(out : x)
#pragma omp if_device(cpu)
  {
    usleep(2000);
    x = 42;
  }
#pragma omp task depend(in : x) shared(x, seen)
  {
    spread_any_flush();
    seen = x;
  }
#pragma omp taskwait
  printf("dependent host task: %s\n", seen == 42 ? "OK" : "FAIL: ran too early");
  return !ok || seen != 42;
}

// CHECK: round 0: values OK, overlap
// CHECK: round 1: values OK, overlap
// CHECK: host and device instance: values OK, overlap
// CHECK: dependent host task: OK
