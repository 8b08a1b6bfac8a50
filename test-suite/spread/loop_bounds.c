// Loop bounds at the ends of the loop variable's type: `i <= INT_MAX` runs its
// 4 iterations (the region's end, INT_MAX + 1, is computed in int64_t and the
// rewritten loop keeps `<=` on the chunk's last iteration), likewise for
// unsigned `i <= UINT_MAX`, `i < UINT_MAX` and long long; each chunk maps its
// own part of the result; each compared with a serial loop, with the pass (several chunks) and without it (one chunk).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -Werror %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=3 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %spread-cc -O1 -Werror --spread-no-pass %s -o %t.nopass
// RUN: %t.nopass | FileCheck %s --implicit-check-not=FAIL

#include <limits.h>
#include <stdio.h>

#define M 16

static long long got[M], want[M];
static int fails;

static void check(const char *what, int n) {
  int bad = 0;
  for (int k = 0; k < M; k++)
    if (got[k] != want[k])
      bad = 1;
  if (bad) {
    printf("FAIL %s\n", what);
    fails++;
  } else {
    printf("ok %s %d\n", what, n);
  }
  for (int k = 0; k < M; k++)
    got[k] = want[k] = 0;
}

int main(void) {
  int n = 0;
  // serial reference
  for (int i = INT_MAX - 3; i <= INT_MAX && i >= INT_MAX - 3; i++) {
    want[i - (INT_MAX - 3)] = i;
    if (i == INT_MAX)
      break;
  }
#pragma omp target spread teams distribute parallel for spread_schedule(static, 1) \
    map(tofrom: got[omp_spread_start - (INT_MAX - 3) : omp_spread_size])
  for (int i = INT_MAX - 3; i <= INT_MAX; i++)
    got[i - (INT_MAX - 3)] = i;
  n = 0;
  for (int k = 0; k < M; k++)
    n += got[k] != 0;
  check("int <= INT_MAX", n);
  // CHECK: ok int <= INT_MAX 4

  for (unsigned k = 0; k < 4; k++)
    want[k] = (long long)(UINT_MAX - 3 + k);
#pragma omp target spread parallel for spread_schedule(static, 2) \
    map(tofrom: got[omp_spread_start - (UINT_MAX - 3) : omp_spread_size])
  for (unsigned u = UINT_MAX - 3; u <= UINT_MAX; u++)
    got[u - (UINT_MAX - 3)] = u;
  n = 0;
  for (int k = 0; k < M; k++)
    n += got[k] != 0;
  check("unsigned <= UINT_MAX", n);
  // CHECK: ok unsigned <= UINT_MAX 4

  for (unsigned k = 0; k < 3; k++)
    want[k] = (long long)(UINT_MAX - 3 + k);
#pragma omp target spread map(tofrom: got[omp_spread_start - (UINT_MAX - 3) : omp_spread_size])
  for (unsigned u = UINT_MAX - 3; u < UINT_MAX; u++)
    got[u - (UINT_MAX - 3)] = u;
  n = 0;
  for (int k = 0; k < M; k++)
    n += got[k] != 0;
  check("unsigned < UINT_MAX", n);
  // CHECK: ok unsigned < UINT_MAX 3

  for (int k = 0; k < 5; k++)
    want[k] = 1000 + k;
  long long j;
#pragma omp target spread parallel for devices(1, 0) spread_schedule(static, 2) \
    map(tofrom: got[omp_spread_start - (4294967296LL + 10) : omp_spread_size])
  for (j = 4294967296LL + 10; j <= 4294967296LL + 14; j++)
    got[j - (4294967296LL + 10)] = 1000 + (j - (4294967296LL + 10));
  n = 0;
  for (int k = 0; k < M; k++)
    n += got[k] != 0;
  check("long long beyond 2^32", n);
  // CHECK: ok long long beyond 2^32 5

  // an empty inclusive loop stays empty
#pragma omp target spread map(tofrom: got[0:M])
  for (int i = 5; i <= 4; i++)
    got[0] = 1;
  check("empty", 0);
  // CHECK: ok empty 0
  return fails != 0;
}
