// The paper's distribution example (seed 000, Listing 3/4): N = 14,
// devices(2,0,1), spread_schedule(static, 4) and (static, 2). SPREAD_INFO=chunks
// shows exactly the paper's chunk-to-device assignment; results equal the serial
// stencil. With the pass disabled the construct runs as one chunk on the first
// device, with the same results.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_INFO=chunks %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: %spread-cc -O1 --spread-no-pass %s -o %t.nopass
// RUN: env SPREAD_INFO=chunks %t.nopass 2>&1 | FileCheck %s --check-prefix=NOPASS --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 14

static int check(const char *what, const double *B, const double *A) {
  int bad = 0;
  for (int i = 1; i < N - 1; i++)
    bad += B[i] != A[i - 1] + A[i] + A[i + 1];
  bad += B[0] != -1 || B[N - 1] != -1;
  printf("%s %s: %d mismatches\n", bad ? "FAIL" : "PASS", what, bad);
  return bad;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  double A[N], B[N];
  for (int i = 0; i < N; i++) {
    A[i] = i * 1.5;
    B[i] = -1;
  }
#pragma omp target spread devices(2, 0, 1) spread_schedule(static, 4)          \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i] + A[i + 1];
  // CHECK:      spread: {{.*}}paper_distribution.c:[[#@LINE-5]] chunk [1,5) -> device 2
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:34 chunk [5,9) -> device 0
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:34 chunk [9,13) -> device 1
  // NOPASS:     spread: {{.*}}paper_distribution.c:[[#@LINE-8]] chunk [1,13) -> device 2
  check("static,4", B, A);
  // CHECK-NEXT: PASS static,4
  // NOPASS-NEXT: PASS static,4

  for (int i = 0; i < N; i++)
    B[i] = -1;
#pragma omp target spread teams distribute parallel for devices(2, 0, 1)      \
    spread_schedule(static, 2) num_teams(2)                                    \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i] + A[i + 1];
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:[[#@LINE-6]] chunk [1,3) -> device 2
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:49 chunk [3,5) -> device 0
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:49 chunk [5,7) -> device 1
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:49 chunk [7,9) -> device 2
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:49 chunk [9,11) -> device 0
  // CHECK-NEXT: spread: {{.*}}paper_distribution.c:49 chunk [11,13) -> device 1
  // NOPASS-NEXT: spread: {{.*}}paper_distribution.c:[[#@LINE-12]] chunk [1,13) -> device 2
  check("static,2", B, A);
  // CHECK-NEXT: PASS static,2
  // NOPASS-NEXT: PASS static,2
  return 0;
}
