// Two target spread nowait constructs chained by depend, both on one remote device: the second
// copies to the device what the first brought back to the host. Its copy used to carry the
// host's older values (a copy to a remote device reads host memory when it is queued, before
// the first construct's copy back had landed): wrong results, exit 0 (cluster-mode fuzzer).
#include <stdio.h>
#include <stdlib.h>

#define N 1086
typedef unsigned long long elem_t;
static elem_t A[N], B[N], RA[N], RB[N];

int main(int argc, char **argv) {
  const int dev = argc > 1 ? atoi(argv[1]) : 1;
  const long lo = 6, hi = N, c1 = 936, c2 = 7;
  const int hl = 3;
  for (long i = 0; i < N; i++) A[i] = RA[i] = i * 2654435761u, B[i] = RB[i] = i;
  static char tokA, tokB;
  for (int step = 0; step < 3; step++) {
    for (long i = lo; i < hi; i++) {
      elem_t s = (elem_t)i * 7u + 1u;
      for (int k = -hl; k <= 0; k++) s = s * 31u + RA[i + k];
      RB[i] = s;
    }
    for (long i = lo; i < hi; i++) RA[i] = RB[i] * 3u + 1u;
  }
  #pragma omp parallel
  #pragma omp single
  for (int step = 0; step < 3; step++) {
    #pragma omp target spread teams distribute parallel for devices(dev, dev) \
        spread_schedule(static, c1) nowait depend(in: tokA) depend(out: tokB) \
        map(to: A[omp_spread_start - hl : omp_spread_size + hl]) \
        map(tofrom: B[omp_spread_start : omp_spread_size])
    for (long i = lo; i < hi; i++) {
      elem_t s = (elem_t)i * 7u + 1u;
      for (int k = -hl; k <= 0; k++) s = s * 31u + A[i + k];
      B[i] = s;
    }
    #pragma omp target spread teams distribute parallel for devices(dev, dev) \
        spread_schedule(static, c2) nowait depend(in: tokB) depend(out: tokA) \
        map(to: B[omp_spread_start : omp_spread_size]) \
        map(from: A[omp_spread_start : omp_spread_size])
    for (long i = lo; i < hi; i++) A[i] = B[i] * 3u + 1u;
    #pragma omp taskwait
  }
  int bad = 0;
  for (long i = 0; i < N; i++) bad += A[i] != RA[i] || B[i] != RB[i];
  printf("nowait chain on device %d: %s (%d wrong)\n", dev, bad ? "FAIL" : "ok", bad);
  return bad != 0;
}
