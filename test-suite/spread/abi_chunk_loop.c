// The runtime side of target spread, driven through its ABI exactly as the
// driver's lowering plus the pass's chunk loop use it (docs/spread-abi.md):
// the paper's example (N = 14, devices(2,0,1), spread_schedule(static, 4) and
// (static, 2)) yields its chunk-to-device assignment, every chunk computes on
// its own device with its halo, and the result equals the serial loop. Without
// the loop (no pass) the region is one chunk on the first device.
//
// REQUIRES: spread
// RUN: %clang-offload -I %S/../../runtime/include -L %runtime-libdir %s -o %t
// RUN: env SPREAD_INFO=chunks %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_INFO=chunks %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define N 14

static void run(int64_t chunk, int loop, int line) {
  double A[N], B[N], ref[N];
  for (int i = 0; i < N; i++) {
    A[i] = i * i;
    B[i] = ref[i] = -1;
  }
  for (int i = 1; i < N - 1; i++)
    ref[i] = A[i - 1] + A[i] + A[i + 1];
  const __spread_construct_t c = {"paper.c", line, __SPREAD_KIND_TARGET, 0, 0};
  const int32_t devs[] = {2, 0, 1};
  __spread_region_t *r = __spread_region_begin(&c, 1, N - 1, devs, 3, chunk);
  while (!loop || __spread_chunk_next(r)) {
    const int64_t omp_spread_start = __spread_chunk_start(r);
    const int64_t omp_spread_size = __spread_chunk_size(r); (void)omp_spread_start; (void)omp_spread_size;
    int dev = __spread_chunk_device(r), where = -1;
#pragma omp target teams distribute parallel for device(dev)                   \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                    \
    map(from : B[omp_spread_start : omp_spread_size]) map(tofrom : where)
    for (int64_t i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) {
      B[i] = A[i - 1] + A[i] + A[i + 1];
      if (i == omp_spread_start)
        where = omp_is_initial_device() ? -2 : dev;
    }
    if (where != dev)
      printf("FAIL: chunk at %ld ran on %d, not device %d\n", (long)omp_spread_start, where, dev);
    if (!loop)
      break;
  }
  __spread_region_end(r);
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += B[i] != ref[i];
  printf("%s chunk=%ld loop=%d mismatches=%d\n", bad ? "FAIL" : "PASS", (long)chunk, loop, bad);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  setvbuf(stderr, NULL, _IONBF, 0);
  run(4, 1, 10);
  // CHECK:      spread: paper.c:10 chunk [1,5) -> device 2
  // CHECK-NEXT: spread: paper.c:10 chunk [5,9) -> device 0
  // CHECK-NEXT: spread: paper.c:10 chunk [9,13) -> device 1
  // CHECK-NEXT: PASS chunk=4 loop=1 mismatches=0
  run(2, 1, 20);
  // CHECK-NEXT: spread: paper.c:20 chunk [1,3) -> device 2
  // CHECK-NEXT: spread: paper.c:20 chunk [3,5) -> device 0
  // CHECK-NEXT: spread: paper.c:20 chunk [5,7) -> device 1
  // CHECK-NEXT: spread: paper.c:20 chunk [7,9) -> device 2
  // CHECK-NEXT: spread: paper.c:20 chunk [9,11) -> device 0
  // CHECK-NEXT: spread: paper.c:20 chunk [11,13) -> device 1
  // CHECK-NEXT: PASS chunk=2 loop=1 mismatches=0
  run(0, 1, 30);
  // CHECK-NEXT: spread: paper.c:30 chunk [1,5) -> device 2
  // CHECK-NEXT: spread: paper.c:30 chunk [5,9) -> device 0
  // CHECK-NEXT: spread: paper.c:30 chunk [9,13) -> device 1
  // CHECK-NEXT: PASS chunk=0 loop=1 mismatches=0
  run(4, 0, 40);
  // CHECK-NEXT: spread: paper.c:40 chunk [1,13) -> device 2
  // CHECK-NEXT: PASS chunk=4 loop=0 mismatches=0
  return 0;
}
