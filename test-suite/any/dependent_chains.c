// Chains of dependent `target device(any) nowait` instances created by the initial thread,
// outside any parallel region: the task of an instance that depends on another one still
// running no longer waits for it when it is created (the creating thread would then place
// nothing else until it ends, and the chains would run one after another); its instance
// follows the one it depends on, on the same server, which runs it after it (docs/task-sharing.md,
// "Where instances are created"). The first instance of each chain waits (at most 5 s) for the
// first instance of the other chain: they meet only if the second chain was created while the
// first one still ran. Each later instance of a chain reads what the one before it wrote, and the
// results are compared with the same chains computed serially. Run on the host share (host
// versions) and on two host devices (cpu versions, whose data stays mapped between them).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=2 SPREAD_ANY_HOST_THREADS=2 SPREAD_HOST_DEVICES=2 %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define C 2     /* chains */
#define L 4     /* instances per chain */
#define N 256

#include "../Inputs/rendezvous.h"

static double x[C * N];

static void reference(double *r) {
  for (int c = 0; c < C; c++)
    for (int i = 0; i < N; i++) {
      double v = c * N + i;
      for (int s = 0; s < L; s++)
        v = 2 * v + s;
      r[c * N + i] = v;
    }
}

static int check(const char *what, const int *met) {
  static double r[C * N];
  reference(r);
  int bad = 0;
  for (int i = 0; i < C * N; i++)
    bad += x[i] != r[i];
  printf("%s: %s, %s\n", what, bad ? "FAIL: wrong values" : "values OK",
         met[0] && met[1] ? "chains overlap" : "FAIL: chains ran one after another");
  return !bad && met[0] && met[1];
}

int main(void) {
  int ok = 1;
  static int counter[2];
  for (int kind = 0; kind < 2; kind++) {
    int *cnt = &counter[kind];
    int met[C] = {0};
    for (int i = 0; i < C * N; i++)
      x[i] = i;
    for (int c = 0; c < C; c++)
      for (int s = 0; s < L; s++) {
        double *xc = &x[c * N];
        if (kind == 0) {
#pragma omp target device(any) is_device_ptr(cnt) map(tofrom : xc[0 : N], met[c : 1]) depend(inout : xc[0]) nowait
#pragma omp if_device(host) parallel for resources(50)
          for (int i = 0; i < N; i++) {
            if (s == 0 && i == 0)
              met[c] = meet(cnt, C);
            xc[i] = 2 * xc[i] + s;
          }
        } else {
#pragma omp target device(any) is_device_ptr(cnt) map(tofrom : xc[0 : N], met[c : 1]) depend(inout : xc[0]) nowait
#pragma omp if_device(cpu) parallel for resources(100)
          for (int i = 0; i < N; i++) {
            if (s == 0 && i == 0)
              met[c] = meet(cnt, C);
            xc[i] = 2 * xc[i] + s;
          }
        }
      }
#pragma omp taskwait
    ok &= check(kind == 0 ? "host share" : "host devices", met);
  }
  return !ok;
}

// CHECK: host share: values OK, chains overlap
// CHECK: host devices: values OK, chains overlap
