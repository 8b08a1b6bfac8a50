// Chunks of a `target spread ... nowait` on one device whose `map(to:)` sections
// overlap (a halo of one element each side), and a plain `target nowait`
// that maps a section overlapping the one of the construct it depends on.
// Each chunk's target task maps its sections once the device's earlier chunks
// released theirs (in program order they are gone): before, a chunk found the
// previous chunk's section still in the table (an explicit-extension failure),
// and a failed chunk's error was dropped, so its outputs were silently never
// written. Repeated with more threads than cores so that chunk tasks run at
// once; from the initial thread too.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=8 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env OMP_NUM_THREADS=2 %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_NOWAIT=libomp OMP_NUM_THREADS=4 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_STREAMS=1 OMP_NUM_THREADS=4 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: halo chunks: PASS
// CHECK: halo chunks, initial thread: PASS
// CHECK: two devices: PASS
// CHECK: dependent overlap: PASS

#include <omp.h>
#include <stdio.h>

#define N 256
#define ROUNDS 60

static double A[N + 2], B[N];

static int check(const char *what) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    if (B[i] != A[i] + A[i + 1] + A[i + 2]) {
      if (bad < 4)
        printf("%s: B[%d] = %g, expected %g\n", what, i, B[i],
               A[i] + A[i + 1] + A[i + 2]);
      bad++;
    }
  return bad;
}

static void reset(int r) {
  for (int i = 0; i < N + 2; i++)
    A[i] = i + r;
  for (int i = 0; i < N; i++)
    B[i] = -1;
}

static void halo(int dev) {
#pragma omp target spread teams distribute parallel for devices(dev)           \
    spread_schedule(static, 4) nowait                                          \
    map(to : A[omp_spread_start : omp_spread_size + 2])                        \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    B[i] = A[i] + A[i + 1] + A[i + 2];
}

int main(void) {
  int bad = 0;
  for (int r = 0; r < ROUNDS && !bad; r++) {
    reset(r);
#pragma omp parallel
#pragma omp single
    {
      halo(0);
#pragma omp taskwait
    }
    bad += check("halo chunks");
  }
  printf("halo chunks: %s\n", bad ? "FAIL" : "PASS");

  bad = 0;
  for (int r = 0; r < ROUNDS && !bad; r++) {
    reset(r);
    halo(1);
#pragma omp taskwait
    bad += check("initial thread");
  }
  printf("halo chunks, initial thread: %s\n", bad ? "FAIL" : "PASS");

  bad = 0;
  for (int r = 0; r < ROUNDS && !bad; r++) {
    reset(r);
#pragma omp parallel
#pragma omp single
    {
#pragma omp target spread teams distribute parallel for devices(2, 3)         \
    spread_schedule(static, 3) nowait                                          \
    map(to : A[omp_spread_start : omp_spread_size + 2])                        \
    map(from : B[omp_spread_start : omp_spread_size])
      for (int i = 0; i < N; i++)
        B[i] = A[i] + A[i + 1] + A[i + 2];
    }
    bad += check("two devices");
  }
  printf("two devices: %s\n", bad ? "FAIL" : "PASS");

  // OpenMP maps a dependent construct's data when its dependences are met: by
  // then the first construct's p[1:1] is unmapped, and p[0:4] is a new section.
  bad = 0;
  for (int r = 0; r < ROUNDS && !bad; r++) {
    int p[4] = {1, 2, 3, 4}, s = 0;
#pragma omp parallel
#pragma omp single
    {
#pragma omp target device(0) map(from : p[1 : 1]) depend(out : p[1]) nowait
      { p[1] = 20 + r; }
#pragma omp target device(0) map(to : p[0 : 4]) map(from : s) depend(in : p[1]) nowait
      { s = p[0] + p[1] + p[2] + p[3]; }
#pragma omp taskwait
    }
    if (s != 28 + r || p[1] != 20 + r) {
      printf("dependent overlap: s = %d, p[1] = %d, expected %d, %d\n", s, p[1],
             28 + r, 20 + r);
      bad++;
    }
  }
  printf("dependent overlap: %s\n", bad ? "FAIL" : "PASS");
  return 0;
}
