// Lazy coherence: an instance the host runs outside the scheduler (if(false), OpenMP's host
// fallback; or a construct no device has a version of) first brings home what earlier
// instances left on devices, as a host instance does: it read the host's stale copy, and the
// directory's older copy later overwrote its outputs (found by scripts/any-fuzz.py).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_COHERENCE=lazy SPREAD_HOST_DEVICES=1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_COHERENCE=lazy SPREAD_HOST_DEVICES=2 %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: if(false): ok
// CHECK: no version: ok

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define N 256
static unsigned a[N], b[N];

static int check(const char *what) {
  int ok = 1;
  for (int i = 0; i < N; i++)
    ok &= a[i] == i + 1u && b[i] == 2 * (i + 1u);
  printf("%s: %s (a[1] %u, b[1] %u)\n", what, ok ? "ok" : "FAIL", a[1], b[1]);
  return !ok;
}

int main(void) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    a[i] = i, b[i] = 0;
  // On a device, nowait: a = a + 1 (lazy: a stays there).
#pragma omp target device(any) map(tofrom : a[0 : N]) depend(inout : a[0]) nowait
#pragma omp if_device(cpu) parallel for
  for (int i = 0; i < N; i++)
    a[i] = a[i] + 1;
  // if(false): the host runs it, reading a as the instance before left it.
#pragma omp target device(any) map(to : a[0 : N]) map(from : b[0 : N]) depend(in : a[0]) if (0)
#pragma omp if_device(cpu) parallel for
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
#pragma omp taskwait
  bad += check("if(false)");

  for (int i = 0; i < N; i++)
    a[i] = i, b[i] = 0;
#pragma omp target device(any) map(tofrom : a[0 : N]) depend(inout : a[0]) nowait
#pragma omp if_device(cpu) parallel for
  for (int i = 0; i < N; i++)
    a[i] = a[i] + 1;
  // No device has an nvidia version: the host runs every instance.
#pragma omp target device(any) map(to : a[0 : N]) map(from : b[0 : N]) depend(in : a[0])
#pragma omp if_device(nvidia) parallel for
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
#pragma omp taskwait
  bad += check("no version");
  return bad;
}
