// Small chunks over a huge range (Reliability, item 5): the runtime produces a
// construct's chunks on demand and keeps only the last operation per device,
// so a region's memory does not grow with its number of chunks. The program
// runs under a 512 MB address-space cap; a list of the 2^26 chunks of part 1
// alone would take 1.5 GB (the runtime that built one aborted there), and
// part 2 took minutes when each operation copied its device's earlier chunks.
//
// 1. target spread over 2^26 iterations with spread_schedule(static, 1) and
//    if(0): every chunk runs its iteration on the host, the chunk loop itself
//    is the whole cost.
// 2. target spread over 2^19 iterations with chunk 1: one kernel per chunk,
//    each adding its iteration to its device's instance of a declare target
//    global; each device's sum equals the serial one for its chunks.
// 3. target update spread over 2^26 iterations with chunk_size(1), where
//    every 4096th chunk copies one element to its device.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: export MALLOC_ARENA_MAX=2
// RUN: ulimit -v 524288
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
//
// (`env` would drop lit's ulimit: hence `export`. The program checks that the
// cap is in force.)

#include <omp.h>
#include <stdio.h>
#include <sys/resource.h>

#define NDEV 3
#define K 4096
#define M (1 << 14)

#pragma omp declare target
long long dsum;
#pragma omp end declare target

static double X[M];

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  struct rlimit as;
  if (getrlimit(RLIMIT_AS, &as) != 0 || as.rlim_cur > (1ULL << 30)) {
    printf("FAIL: the address space is not capped\n");
    return 1;
  }

  // 1. The chunk loop alone, 2^26 chunks.
  const long long n1 = 1LL << 26;
  long long s = 0;
#pragma omp target spread if(0) devices(0, 1, 2) spread_schedule(static, 1)  \
    map(tofrom : s)
  for (long long i = 0; i < n1; i++)
    s += i;
  printf("%s loop: %lld chunks, sum %lld\n",
         s == n1 * (n1 - 1) / 2 ? "PASS" : "FAIL", n1, s);
  // CHECK: PASS loop: 67108864 chunks, sum 2251799780130816

  // 2. One kernel per chunk, 2^19 chunks dealt round-robin to 3 devices.
  const long long n2 = 1LL << 19;
#pragma omp target spread devices(2, 0, 1) spread_schedule(static, 1)
  for (long long i = 0; i < n2; i++)
    dsum += i;
  const int order[NDEV] = {2, 0, 1};
  int bad = 0;
  for (int k = 0; k < NDEV; k++) {
    long long expect = 0;
    for (long long i = k; i < n2; i += NDEV)
      expect += i;
    dsum = -1;
#pragma omp target update from(dsum) device(order[k])
    if (dsum != expect) {
      printf("FAIL kernels: device %d sum %lld, expected %lld\n", order[k],
             dsum, expect);
      bad++;
    }
  }
  printf("%s kernels: %lld chunks\n", bad ? "FAIL" : "PASS", n2);
  // CHECK: PASS kernels: 524288 chunks

  // 3. A data construct over 2^26 chunks; chunk j*K updates X[j] on device
  //    (j*K) % 3 = j % 3.
  for (int d = 0; d < NDEV; d++) {
#pragma omp target enter data map(alloc : X) device(d)
  }
  for (int j = 0; j < M; j++)
    X[j] = j + 1;
  const long long n3 = (long long)M * K;
#pragma omp target update spread devices(0, 1, 2) range(0 : n3) chunk_size(1) \
    if (omp_spread_start % K == 0) to(X[omp_spread_start / K : 1])
  bad = 0;
  for (int d = 0; d < NDEV; d++) {
    for (int j = 0; j < M; j++)
      X[j] = -1;
#pragma omp target update from(X) device(d)
    for (int j = 0; j < M; j++)
      bad += j % NDEV == d && X[j] != j + 1;
#pragma omp target exit data map(delete : X) device(d)
  }
  printf("%s update: %lld chunks, %d mismatches\n", bad ? "FAIL" : "PASS", n3,
         bad);
  // CHECK: PASS update: 67108864 chunks, 0 mismatches
  return 0;
}
