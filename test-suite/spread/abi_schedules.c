// The scheduling core under target spread, driven through the ABI as the driver lowers a
// construct and the pass turns it into a chunk loop (docs/spread-abi.md): every schedule
// (static, dynamic, adaptive over several executions) runs every iteration exactly once
// (each iteration counts itself on the device that ran it) and gives the serial result, with
// 1, 2 and 4 devices and with the host (omp_get_initial_device()) in the device list, whose
// chunks run the host fallback; cross-device reductions (+ on double, max and * on int)
// equal the serial ones, with and without nowait.
//
// REQUIRES: spread
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O1 -fpass-plugin=%spread-pass \
// RUN:   -I %S/../../runtime/include -L %runtime-libdir %s -o %t
// RUN: env SPREAD_HOST_DEVICES=4 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=4 SPREAD_INFO=chunks %preload-run %t 2>%t.chunks | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=CHUNKS %s < %t.chunks

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 10000

static double A[N], B[N];
static int count[N], where[N];

// One execution of
//   #pragma omp target spread teams distribute parallel for devices(...) spread_schedule(kind, chunk)
//   for (i = 0; i < N; i++) { B[i] = 2 * A[i] + 1; count[i]++; where[i] = device; }
static void spread_loop(int line, int kind, int64_t chunk, const int32_t *devs, int ndev) {
  const __spread_construct_t c = {"sched.c", line, __SPREAD_KIND_TARGET, 0, kind};
  __spread_region_t *r = __spread_region_begin(&c, 0, N, devs, ndev, chunk);
  {
    const int64_t omp_spread_start = __spread_chunk_start(r);
    const int64_t omp_spread_size = __spread_chunk_size(r); (void)omp_spread_start; (void)omp_spread_size;
    // omp_get_device_num() is the host's inside a host device's kernel: the device is passed in.
    const int dev = __spread_chunk_device(r);
#pragma omp target teams distribute parallel for device(dev) firstprivate(dev)                     \
    map(to : A[omp_spread_start : omp_spread_size])                                                 \
    map(tofrom : B[omp_spread_start : omp_spread_size], count[omp_spread_start : omp_spread_size])  \
    map(from : where[omp_spread_start : omp_spread_size])
    for (int64_t i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) {
      B[i] = 2 * A[i] + 1;
      count[i]++;
      where[i] = omp_is_initial_device() ? -1 : dev;
    }
  }
  __spread_region_end(r);
}

static int check(const char *what, int line, const int32_t *devs, int ndev) {
  int bad = 0, used[8] = {0};
  for (int i = 0; i < N; i++) {
    if (count[i] != 1 || B[i] != 2 * A[i] + 1) {
      if (bad++ < 3)
        printf("FAIL %s line %d: iteration %d ran %d times, B = %g\n", what, line, i, count[i], B[i]);
    }
    int ok = 0;
    for (int k = 0; k < ndev; k++) {
      // The host fallback may report itself as device -1 or as the initial device.
      int w = where[i] == -1 ? omp_get_initial_device() : where[i];
      if (w == devs[k]) {
        ok = 1;
        used[k] = 1;
      }
    }
    if (!ok && bad++ < 3)
      printf("FAIL %s line %d: iteration %d ran on %d, not a listed device\n", what, line, i, where[i]);
    count[i] = 0;
    B[i] = -1;
  }
  return bad;
}

// The driver's lowering of a reduction construct without nowait: the region, then the finish.
// With nowait (docs/spread-abi.md §4) the same region and finish run in one deferred task
// (default(shared)), whose chunks run as without nowait (a host chunk on the task's thread,
// not on a hidden helper thread); the result is in s after the taskwait.
#define REDUCE_REGION()                                                                            \
  {                                                                                                \
    __spread_region_t *r = __spread_region_begin(&c, 0, N, devs, ndev, 700);                       \
    __spread_reduction(r, __SPREAD_RED_ADD, __SPREAD_TYPE_OF(s), (void *)&s, sizeof(s));          \
    __spread_reduction(r, __SPREAD_RED_MAX, __SPREAD_TYPE_OF(m), (void *)&m, sizeof(m));          \
    __spread_reduction(r, __SPREAD_RED_MUL, __SPREAD_TYPE_OF(p), (void *)&p, sizeof(p));          \
    {                                                                                              \
      const int64_t omp_spread_start = __spread_chunk_start(r);                                    \
      const int64_t omp_spread_size = __spread_chunk_size(r); (void)omp_spread_start; (void)omp_spread_size;                                      \
      __typeof__(s) *const rv0 = (__typeof__(s) *)__spread_reduction_slot(r, 0);                  \
      __typeof__(m) *const rv1 = (__typeof__(m) *)__spread_reduction_slot(r, 1);                  \
      __typeof__(p) *const rv2 = (__typeof__(p) *)__spread_reduction_slot(r, 2);                  \
      _Pragma("omp target teams distribute parallel for device(__spread_chunk_device(r)) map(to : A[omp_spread_start : omp_spread_size]) reduction(+ : rv0[0:1]) map(tofrom : rv0[0:1]) reduction(max : rv1[0:1]) map(tofrom : rv1[0:1]) reduction(* : rv2[0:1]) map(tofrom : rv2[0:1])") \
      for (int64_t i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) {            \
        rv0[0] += A[i];                                                                            \
        rv1[0] = rv1[0] > (int)A[i] % 1000 ? rv1[0] : (int)A[i] % 1000;                            \
        if (i % 1000 == 0)                                                                         \
          rv2[0] *= 3;                                                                             \
      }                                                                                            \
    }                                                                                              \
    __spread_reductions_t *rd = __spread_region_reductions(r);                                     \
    __spread_region_end(r);                                                                        \
    __spread_reductions_finish(rd);                                                                \
  }

static double reduce_sum(int line, int kind, const int32_t *devs, int ndev, int nowait, int *mx, long long *prod) {
  double s = 0.5;
  int m = -7;
  long long p = 1;
  // (no __SPREAD_FLAG_NOWAIT: with nowait the region is synchronous inside its task)
  const __spread_construct_t c = {"red.c", line, __SPREAD_KIND_TARGET, 0, kind};
  if (nowait) {
#pragma omp task default(shared)
    REDUCE_REGION()
#pragma omp taskwait
  } else {
    REDUCE_REGION()
  }
  *mx = m;
  *prod = p;
  return s;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  for (int i = 0; i < N; i++) {
    A[i] = (i * 7) % 1013;
    B[i] = -1;
  }
  int host = omp_get_initial_device();
  int32_t one[] = {1}, two[] = {0, 1}, four[] = {3, 0, 2, 1}, hosted[] = {0, 1, host}, hostonly[] = {host};
  struct { const int32_t *d; int n; } lists[] = {{one, 1}, {two, 2}, {four, 4}, {hosted, 3}, {hostonly, 1}};
  int kinds[] = {__SPREAD_SCHED_STATIC, __SPREAD_SCHED_DYNAMIC, __SPREAD_SCHED_ADAPTIVE};
  const char *names[] = {"static", "dynamic", "adaptive"};
  int64_t chunks[] = {0, 7, 333};
  int bad = 0;
  double t0 = omp_get_wtime();
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < 5; l++)
      for (int c = 0; c < 3; c++) {
        if (chunks[c] == 7 && l != 1)
          continue; // small chunks (1429 launches) once is enough
        int line = 100 * k + 10 * l + c;
        // adaptive learns from its first executions: run each construct three times
        for (int rep = 0; rep < (kinds[k] == __SPREAD_SCHED_ADAPTIVE ? 3 : 1); rep++) {
          spread_loop(line, kinds[k], chunks[c], lists[l].d, lists[l].n);
          bad += check(names[k], line, lists[l].d, lists[l].n);
        }
      }
  fprintf(stderr, "schedules took %.2f s\n", omp_get_wtime() - t0);
  printf("%s schedules\n", bad ? "FAIL" : "PASS");
  // CHECK: PASS schedules

  double ref = 0.5;
  int mref = -7;
  long long pref = 1;
  for (int i = 0; i < N; i++) {
    ref += A[i];
    mref = mref > (int)A[i] % 1000 ? mref : (int)A[i] % 1000;
    if (i % 1000 == 0)
      pref *= 3;
  }
  int rbad = 0;
  for (int k = 0; k < 3; k++)
    for (int l = 0; l < 5; l++)
      for (int nw = 0; nw < 2; nw++) {
        int m;
        long long p;
        double s = reduce_sum(1000 + 100 * k + 10 * l + nw, kinds[k], lists[l].d, lists[l].n, nw, &m, &p);
        if (s != ref || m != mref || p != pref) {
          rbad++;
          printf("FAIL reduction %s list %d nowait %d: sum %.17g (want %.17g) max %d (want %d) prod %lld (want %lld)\n",
                 names[k], l, nw, s, ref, m, mref, p, pref);
        }
      }
  printf("%s reductions\n", rbad ? "FAIL" : "PASS");
  // CHECK: PASS reductions
  return bad || rbad;
}

// The chunk report names each chunk's device and the policy that dealt it.
// CHUNKS-DAG: spread: sched.c:0 chunk [0,10000) -> device 1
// CHUNKS-DAG: spread: sched.c:110 chunk [{{[0-9]+}},{{[0-9]+}}) -> device {{[01]}} (dynamic)
// CHUNKS-DAG: spread: sched.c:240 chunk [{{[0-9]+}},{{[0-9]+}}) -> device {{[0-9]}} (adaptive)
// CHUNKS-DAG: spread: sched.c:230 chunk [{{[0-9]+}},{{[0-9]+}}) -> device 4
// a nowait reduction's region, chunked inside its task, with a chunk on the host:
// CHUNKS-DAG: spread: red.c:1031 chunk [1400,2100) -> device 4
