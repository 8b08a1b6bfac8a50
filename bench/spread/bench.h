/* bench.h -- timing helpers shared by the bench/spread programs (header-only). */
#ifndef SPREAD_BENCH_H
#define SPREAD_BENCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BENCH_MAXREPS 101

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int bench_cmp(const void *x, const void *y) {
  double p = *(const double *)x, q = *(const double *)y;
  return (p > q) - (p < q);
}

/* Seconds per call of fn(arg): one warm-up call, an iteration count calibrated so that one
 * repetition takes about rep_seconds (at least one call), then the median over reps repetitions.
 * min (if not NULL) gets the fastest repetition's time per call. */
static inline double bench_median(void (*fn)(void *), void *arg, double rep_seconds, int reps,
                           double *min) {
  double t[BENCH_MAXREPS];
  if (reps < 1)
    reps = 1;
  if (reps > BENCH_MAXREPS)
    reps = BENCH_MAXREPS;
  fn(arg); /* warm-up */
  long iters = 1;
  for (;;) {
    double t0 = bench_now();
    for (long i = 0; i < iters; i++)
      fn(arg);
    double dt = bench_now() - t0;
    if (dt >= rep_seconds / 4 || iters >= (1L << 30)) {
      double per = dt / (double)iters;
      long want = (long)(rep_seconds / (per > 0 ? per : 1e-9));
      iters = want < 1 ? 1 : want;
      break;
    }
    iters *= 2;
  }
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    for (long i = 0; i < iters; i++)
      fn(arg);
    t[r] = (bench_now() - t0) / (double)iters;
  }
  qsort(t, (size_t)reps, sizeof t[0], bench_cmp);
  if (min)
    *min = t[0];
  return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

static inline double bench_arg_double(int argc, char **argv, int i, double dflt) {
  return argc > i ? atof(argv[i]) : dflt;
}

#endif
