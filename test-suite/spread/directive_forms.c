// Every spread directive form computes the serial result: target spread with
// each combined form, target data spread around a spread loop, target enter /
// exit data spread, and target update spread moving halos between chunks.
// Device results stay on the devices until brought back (checked mid-way).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %spread-cc -O1 --spread-no-pass %s -o %t.nopass
// RUN: %t.nopass | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 1000

static double A[N], B[N], R[N];

static void reset(void) {
  for (int i = 0; i < N; i++) {
    A[i] = (i % 17) * 0.25;
    B[i] = -1;
  }
  for (int i = 1; i < N - 1; i++)
    R[i] = A[i - 1] + 2 * A[i] + A[i + 1];
  R[0] = R[N - 1] = -1;
}

static void check(const char *what) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += B[i] != R[i];
  printf("%s %s: %d mismatches\n", bad ? "FAIL" : "PASS", what, bad);
}

int main(void) {
  reset();
#pragma omp target spread devices(1, 0) spread_schedule(static, 100)          \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
  check("target spread");
  // CHECK: PASS target spread

  reset();
#pragma omp target spread teams distribute parallel for simd                   \
    spread_schedule(static, 64) num_teams(2)                                   \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
  check("teams distribute parallel for simd");
  // CHECK: PASS teams distribute parallel for simd

  reset();
#pragma omp target spread teams distribute devices(0, 1)                       \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
  check("teams distribute");
  // CHECK: PASS teams distribute

  reset();
#pragma omp target spread parallel for devices(1)                              \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i <= N - 2; i++)
    B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
  check("parallel for");
  // CHECK: PASS parallel for

  // target data spread around a spread loop: the loop finds its data present.
  reset();
#pragma omp target data spread devices(1, 0) range(1 : N - 2) chunk_size(125) \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(tofrom : B[omp_spread_start : omp_spread_size])
  {
#pragma omp target spread devices(1, 0) spread_schedule(static, 125)          \
    map(present, to : A[omp_spread_start - 1 : omp_spread_size + 2])           \
    map(present, from : B[omp_spread_start : omp_spread_size])
    for (int i = 1; i < N - 1; i++)
      B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
    // Still on the devices: the host copy of B is untouched until the data
    // region ends.
    printf("%s host B unchanged inside target data spread: B[5]=%g\n", B[5] == -1 ? "PASS" : "FAIL", B[5]);
    // CHECK: PASS host B unchanged inside target data spread
  }
  check("target data spread");
  // CHECK: PASS target data spread

  // enter data / kernels / update / exit data.
  reset();
#pragma omp target enter data spread devices(0, 1) range(1 : N - 2) chunk_size(250) \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(alloc : B[omp_spread_start : omp_spread_size])
#pragma omp target spread devices(0, 1) spread_schedule(static, 250)          \
    map(present, alloc : A[omp_spread_start - 1 : omp_spread_size + 2])        \
    map(present, alloc : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
#pragma omp target update spread devices(0, 1) range(1 : N - 2) chunk_size(250) \
    from(B[omp_spread_start : omp_spread_size])
  check("target update spread from");
  // CHECK: PASS target update spread from

  // Change A on the host, send it with update to, recompute, bring B back with
  // exit data.
  for (int i = 0; i < N; i++)
    A[i] += 1;
  for (int i = 1; i < N - 1; i++)
    R[i] = A[i - 1] + 2 * A[i] + A[i + 1];
#pragma omp target update spread devices(0, 1) range(1 : N - 2) chunk_size(250) \
    to(A[omp_spread_start - 1 : omp_spread_size + 2])
#pragma omp target spread devices(0, 1) spread_schedule(static, 250)          \
    map(present, alloc : A[omp_spread_start - 1 : omp_spread_size + 2])        \
    map(present, alloc : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + 2 * A[i] + A[i + 1];
#pragma omp target exit data spread devices(0, 1) range(1 : N - 2) chunk_size(250) \
    map(release : A[omp_spread_start - 1 : omp_spread_size + 2])               \
    map(from : B[omp_spread_start : omp_spread_size])
  check("update to + exit data spread");
  // CHECK: PASS update to + exit data spread
  int left = omp_target_is_present(&B[300], 1) + omp_target_is_present(&A[300], 1);
  printf("%s nothing left mapped: %d\n", left ? "FAIL" : "PASS", left);
  // CHECK: PASS nothing left mapped
  return 0;
}
