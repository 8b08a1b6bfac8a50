// The halos of neighbouring chunks of one `target enter data spread` overlap by design: the
// chunk on device 1 maps A[249:501] while device 0 holds A[0:252], made by the same execution.
// Their chunks are checked for data held elsewhere (`nowait`: as target tasks; `presence.rs`),
// and a neighbour's halo is not warned about (the demo's Somier printed such a warning). Another
// execution whose chunks overlap the first one's mappings on other devices is still warned
// about, once: its chunks hold separate copies of data the first execution's chunks may change
// (the cluster-mode fuzzer's wrong results came from such a pair). Every result is the serial
// one; the `nowait` run fails on a runtime that warns about halos.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t sync 2>&1 | FileCheck %s --check-prefix=HALO --implicit-check-not=warning
// RUN: %t nowait 2>&1 | FileCheck %s --check-prefix=HALO --implicit-check-not=warning
// RUN: %t other 2>&1 | FileCheck %s --check-prefix=OTHER
//
// HALO: PASS halos
// OTHER: spread: warning: {{.*}}target enter data spread {{.*}}halo_overlap.c:{{[0-9]+}} on device {{[23]}}: 'A[omp_spread_start:omp_spread_size]' is mapped on device 0 {{.*}} hold separate copies
// OTHER-NOT: spread: warning
// OTHER: PASS halos

#include <stdio.h>
#include <string.h>

#define N 1000

static double A[N], B[N], R[N];

static void stencil(void) {
#pragma omp target spread devices(0, 1, 2, 3) spread_schedule(static, 250)                      \
    map(present, alloc : A[omp_spread_start - 1 : omp_spread_size + 2])                        \
    map(present, alloc : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "sync";
  for (int i = 0; i < N; i++)
    A[i] = (double)((i * 7) % 13), B[i] = 0;
  for (int i = 1; i < N - 1; i++)
    R[i] = A[i - 1] + 2 * A[i] + A[i + 1];
  if (strcmp(mode, "nowait") == 0) {
#pragma omp target enter data spread devices(0, 1, 2, 3) range(1 : N - 2) chunk_size(250) nowait \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                                    \
    map(alloc : B[omp_spread_start : omp_spread_size])
#pragma omp taskwait
  } else {
#pragma omp target enter data spread devices(0, 1, 2, 3) range(1 : N - 2) chunk_size(250)      \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                                    \
    map(alloc : B[omp_spread_start : omp_spread_size])
  }
  if (strcmp(mode, "other") == 0) {
    // A second execution on devices 3 and 2 (`nowait`: its chunks are checked as target
    // tasks): its chunks overlap what the first execution mapped on device 0.
#pragma omp target enter data spread devices(3, 2) range(1 : 200) chunk_size(100) nowait       \
    map(to : A[omp_spread_start : omp_spread_size])
#pragma omp taskwait
#pragma omp target exit data spread devices(3, 2) range(1 : 200) chunk_size(100)               \
    map(release : A[omp_spread_start : omp_spread_size])
  }
  stencil();
#pragma omp target exit data spread devices(0, 1, 2, 3) range(1 : N - 2) chunk_size(250)       \
    map(release : A[omp_spread_start - 1 : omp_spread_size + 2])                               \
    map(from : B[omp_spread_start : omp_spread_size])
  int wrong = 0;
  for (int i = 1; i < N - 1; i++)
    wrong += B[i] != R[i];
  printf("%s halos: %d wrong\n", wrong ? "FAIL" : "PASS", wrong);
  return wrong != 0;
}
