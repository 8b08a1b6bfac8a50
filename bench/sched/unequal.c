/* unequal: spread schedules over two host devices of unequal size.
 *
 * Device D0 has twice the threads of device D1 (run.sh sets SPREAD_HOST_DEVICE_THREADS, and on
 * machines with 3 or more cores SPREAD_HOST_DEVICE_CORES so that the devices own disjoint cores).
 * A compute-bound loop (n elements x ROUNDS dependent multiply-adds, inputs and outputs mapped per
 * chunk) is run
 *
 *   alone on each device   target spread ... devices(D0) / devices(D1): each device's rate
 *                          (elements per second); ideal = the sum of the two rates, i.e. a time
 *                          per step of n / (rate0 + rate1);
 *   static                 devices(D0, D1) spread_schedule(static): one contiguous half per device,
 *                          so the larger device waits for the smaller (expected about
 *                          (r0 + r1) / (2 * min(r0, r1)) of the ideal time: 1.5 for r0 = 2 r1);
 *   dynamic, c             spread_schedule(dynamic, c): chunks of c iterations to whichever device
 *                          is free;
 *   adaptive               spread_schedule(adaptive): chunk sizes from measured device rates.
 *
 * over `steps` time steps each (the loop is the same every step, as in a time-stepping code, so
 * adaptive may learn in the first steps). Printed per schedule: median and mean time per step,
 * the time of the last step, and the fraction of ideal (ideal time / median time per step: 1.0 is
 * perfect balance without overhead). For dynamic it also measures the scheduling overhead per
 * chunk: an empty-body loop of `chunks` iterations split into chunks of 1 iteration, against the
 * same loop with spread_schedule(static, 1) (the same number of chunks, each a kernel launch),
 * in microseconds per chunk.
 *
 * Ratios are against baselines measured in the same run; there are no thresholds.
 *
 * usage: unequal [n] [steps] [chunk] [D0] [D1] [chunks]   (default 32768 8 n/64 0 1 4096)
 * Exit 1 if a result is wrong.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../spread/bench.h"

#define ROUNDS 1000
#define MAXSTEPS 101

#pragma omp declare target
static inline double work(double x) {
  double y = x;
  for (int r = 0; r < ROUNDS; r++)
    y = y * 0.9999 + 0.25;
  return y;
}
#pragma omp end declare target

static double *A, *B, *REF;
static int64_t n = 32768;
static int64_t chunk;  /* dynamic chunk size */
static int64_t nchunks = 4096; /* iterations (= chunks) of the overhead loop */
static int d0 = 0, d1 = 1;

static void alone(int dev) {
#pragma omp target spread teams distribute parallel for devices(dev)                           \
    map(to : A[omp_spread_start : omp_spread_size])                                            \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < n; i++)
    B[i] = work(A[i]);
}

static void sched_static(void) {
#pragma omp target spread teams distribute parallel for devices(d0, d1)                        \
    spread_schedule(static) map(to : A[omp_spread_start : omp_spread_size])                    \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < n; i++)
    B[i] = work(A[i]);
}

static void empty_static(void) {
#pragma omp target spread teams distribute parallel for devices(d0, d1) spread_schedule(static, 1)
  for (int64_t i = 0; i < nchunks; i++) {
  }
}

static void sched_dynamic(void) {
#pragma omp target spread teams distribute parallel for devices(d0, d1)                        \
    spread_schedule(dynamic, chunk) map(to : A[omp_spread_start : omp_spread_size])            \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < n; i++)
    B[i] = work(A[i]);
}

static void sched_adaptive(void) {
#pragma omp target spread teams distribute parallel for devices(d0, d1)                        \
    spread_schedule(adaptive) map(to : A[omp_spread_start : omp_spread_size])                  \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < n; i++)
    B[i] = work(A[i]);
}

static void empty_dynamic(void) {
#pragma omp target spread teams distribute parallel for devices(d0, d1) spread_schedule(dynamic, 1)
  for (int64_t i = 0; i < nchunks; i++) {
  }
}

static int failed = 0;

static void check(const char *what) {
  for (int64_t i = 0; i < n; i++)
    if (B[i] != REF[i]) {
      printf("check FAILED: %s: B[%lld] = %g, expected %g\n", what, (long long)i, B[i], REF[i]);
      failed = 1;
      return;
    }
}

struct steps {
  double median, mean, last;
};

/* Runs fn for `steps` time steps (after one warm-up step) and checks the result. */
static struct steps run_steps(void (*fn)(void), int steps, const char *what) {
  double t[MAXSTEPS], sum = 0;
  fn(); /* warm-up: images loaded, memory cached */
  for (int s = 0; s < steps; s++) {
    memset(B, 0, (size_t)n * sizeof *B);
    double t0 = bench_now();
    fn();
    t[s] = bench_now() - t0;
    sum += t[s];
    check(what);
  }
  struct steps r = {0, sum / steps, t[steps - 1]};
  qsort(t, (size_t)steps, sizeof t[0], bench_cmp);
  r.median = steps % 2 ? t[steps / 2] : 0.5 * (t[steps / 2 - 1] + t[steps / 2]);
  return r;
}

static int alone_dev;
static void alone_fn(void) { alone(alone_dev); }

/* Seconds per call of an empty-body spread loop (median of 5 calls after a warm-up). */
static double per_call(void (*fn)(void)) {
  double t[5];
  fn();
  for (int r = 0; r < 5; r++) {
    double t0 = bench_now();
    fn();
    t[r] = bench_now() - t0;
  }
  qsort(t, 5, sizeof t[0], bench_cmp);
  return t[2];
}

static void row(const char *name, struct steps s, double ideal) {
  printf("%-22s %10.2f %10.2f %10.2f %9.2f\n", name, 1e3 * s.median, 1e3 * s.mean, 1e3 * s.last,
         ideal / s.median);
}

int main(int argc, char **argv) {
  if (argc > 1)
    n = atoll(argv[1]);
  int steps = argc > 2 ? atoi(argv[2]) : 8;
  chunk = argc > 3 ? atoll(argv[3]) : 0;
  if (argc > 4)
    d0 = atoi(argv[4]);
  if (argc > 5)
    d1 = atoi(argv[5]);
  if (argc > 6)
    nchunks = atoll(argv[6]);
  if (n < 2 || steps < 1 || steps > MAXSTEPS || nchunks < 1) {
    fprintf(stderr, "usage: %s [n>=2] [steps 1..%d] [chunk] [D0] [D1] [chunks]\n", argv[0],
            MAXSTEPS);
    return 2;
  }
  if (chunk <= 0)
    chunk = n / 64 > 0 ? n / 64 : 1;
  int ndev = omp_get_num_devices();
  if (d0 < 0 || d1 < 0 || d0 >= ndev || d1 >= ndev || d0 == d1) {
    fprintf(stderr, "unequal: devices %d and %d: the runtime has %d devices\n", d0, d1, ndev);
    return 2;
  }
  A = malloc((size_t)n * sizeof *A);
  B = malloc((size_t)n * sizeof *B);
  REF = malloc((size_t)n * sizeof *REF);
  if (!A || !B || !REF) {
    fprintf(stderr, "unequal: out of memory\n");
    return 2;
  }
  for (int64_t i = 0; i < n; i++) {
    A[i] = (double)(i % 1000) * 0.001;
    REF[i] = work(A[i]);
  }

  printf("unequal: n %lld x %d rounds, %d steps per schedule, devices %d and %d, dynamic chunk "
         "%lld\n",
         (long long)n, ROUNDS, steps, d0, d1, (long long)chunk);
  printf("device threads: SPREAD_HOST_DEVICE_THREADS=%s SPREAD_HOST_DEVICE_CORES=%s\n",
         getenv("SPREAD_HOST_DEVICE_THREADS") ? getenv("SPREAD_HOST_DEVICE_THREADS") : "(unset)",
         getenv("SPREAD_HOST_DEVICE_CORES") ? getenv("SPREAD_HOST_DEVICE_CORES") : "(unset)");

  alone_dev = d0;
  struct steps a0 = run_steps(alone_fn, steps, "device D0 alone");
  alone_dev = d1;
  struct steps a1 = run_steps(alone_fn, steps, "device D1 alone");
  double r0 = (double)n / a0.median, r1 = (double)n / a1.median;
  double ideal = (double)n / (r0 + r1);
  printf("rate alone: D0 %.3g elements/s, D1 %.3g elements/s, D0/D1 %.2f\n", r0, r1, r0 / r1);
  printf("ideal time per step (n / (rate0 + rate1)): %.2f ms\n\n", 1e3 * ideal);

  printf("%-22s %10s %10s %10s %9s\n", "schedule", "median ms", "mean ms", "last ms", "of ideal");
  row("D0 alone", a0, ideal);
  row("D1 alone", a1, ideal);
  row("static", run_steps(sched_static, steps, "static"), ideal);
  char name[64];
  snprintf(name, sizeof name, "dynamic, %lld", (long long)chunk);
  row(name, run_steps(sched_dynamic, steps, "dynamic"), ideal);
  row("adaptive", run_steps(sched_adaptive, steps, "adaptive"), ideal);

  double ts = per_call(empty_static);
  printf("\nscheduling overhead, empty body, %lld chunks of 1 iteration on 2 devices:\n",
         (long long)nchunks);
  printf("  static, 1    %8.2f us per chunk\n", 1e6 * ts / (double)nchunks);
  double td = per_call(empty_dynamic);
  printf("  dynamic, 1   %8.2f us per chunk (%+.2f us against static, ratio %.2f)\n",
         1e6 * td / (double)nchunks, 1e6 * (td - ts) / (double)nchunks, td / ts);
  if (failed)
    return 1;
  printf("check OK\n");
  return 0;
}
