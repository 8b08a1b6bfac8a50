/*
 * launch: target-region launch latency.
 *
 * Cases (all on the default device):
 *   empty    `#pragma omp target {}`                       - pure launch path
 *   mapped   `map(to:a[:16],b[:16]) map(tofrom:c[:16])`    - allocate, copy in,
 *            c[i] += a[i]*b[i], copy out, free: every launch
 *   present  same region, but a, b, c already mapped by an enclosing
 *            `target data` (mapping lookups + refcounting, no transfers)
 *   enter_exit `target enter data map(to:a,b,c)` + `target exit data map(release:a,b)
 *            map(from:c)`: a pair of unstructured mappings, no kernel
 *
 * For each case: warm up, calibrate an iteration count so that one
 * repetition takes about SECONDS/REPS, run REPS repetitions and report the
 * median time per launch in microseconds.
 *
 * Usage: launch [seconds_per_case] [reps]     (default 0.5 s, 5 reps)
 *
 * Output: one "key value" pair per line, machine-readable:
 *   devices 4
 *   libomptarget /path/to/libomptarget.so.19.1
 *   empty_region_us 0.612          (median over reps)
 *   empty_region_min_us 0.598
 *   empty_region_iters 163840      (launches per repetition)
 *   ...
 *   launches_checked 1234567
 *   check OK                       (c[] shows every mapped/present launch ran)
 */
#define _GNU_SOURCE
#include <link.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEN 16
#define MAXREPS 101

static double a[LEN], b[LEN], c[LEN];

static void run_empty(long iters) {
  for (long i = 0; i < iters; ++i) {
#pragma omp target
    {
    }
  }
}

static void run_mapped(long iters) {
  for (long i = 0; i < iters; ++i) {
#pragma omp target map(to : a[:LEN], b[:LEN]) map(tofrom : c[:LEN])
    for (int j = 0; j < LEN; ++j)
      c[j] += a[j] * b[j];
  }
}

/* caller has a, b, c mapped already (target data) */
static void run_present(long iters) {
  for (long i = 0; i < iters; ++i) {
#pragma omp target map(to : a[:LEN], b[:LEN]) map(tofrom : c[:LEN])
    for (int j = 0; j < LEN; ++j)
      c[j] += a[j] * b[j];
  }
}

static void run_enter_exit(long iters) {
  for (long i = 0; i < iters; ++i) {
#pragma omp target enter data map(to : a[:LEN], b[:LEN], c[:LEN])
#pragma omp target exit data map(release : a[:LEN], b[:LEN]) map(from : c[:LEN])
  }
}

typedef void (*case_fn)(long);

static int cmp_double(const void *x, const void *y) {
  double p = *(const double *)x, q = *(const double *)y;
  return (p > q) - (p < q);
}

/* returns launches per repetition; fills median/min in microseconds */
static long measure(case_fn fn, double seconds, int reps, double *median_us,
                    double *min_us, long *total) {
  fn(1000); /* warm-up (first launch also loads the image) */
  *total = 1000;

  /* calibrate: double until one run takes >= 20 ms, then scale */
  double per_rep = seconds / reps;
  long iters = 64;
  double t;
  for (;;) {
    double t0 = omp_get_wtime();
    fn(iters);
    t = omp_get_wtime() - t0;
    *total += iters;
    if (t >= 0.02 || iters >= (1L << 40))
      break;
    iters *= 2;
  }
  double est = t / (double)iters; /* seconds per launch */
  long n = (long)(per_rep / (est > 0 ? est : 1e-9));
  if (n < 1)
    n = 1;

  double us[MAXREPS];
  for (int r = 0; r < reps; ++r) {
    double t0 = omp_get_wtime();
    fn(n);
    *total += n;
    us[r] = (omp_get_wtime() - t0) * 1e6 / (double)n;
  }
  qsort(us, (size_t)reps, sizeof(double), cmp_double);
  *median_us = reps % 2 ? us[reps / 2]
                        : 0.5 * (us[reps / 2 - 1] + us[reps / 2]);
  *min_us = us[0];
  return n;
}

static int find_omptarget(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  if (info->dlpi_name && strstr(info->dlpi_name, "libomptarget")) {
    *(const char **)data = info->dlpi_name;
    return 1;
  }
  return 0;
}

/* launches of cases that run the body, to check c at the end */
static long total_launches;

static void report(const char *name, case_fn fn, double seconds, int reps,
                   int counts) {
  double med, mn;
  long total;
  long n = measure(fn, seconds, reps, &med, &mn, &total);
  if (counts)
    total_launches += total;
  printf("%s_us %.4f\n", name, med);
  printf("%s_min_us %.4f\n", name, mn);
  printf("%s_iters %ld\n", name, n);
  fflush(stdout);
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.5;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (!(seconds > 0) || reps < 1 || reps > MAXREPS) {
    fprintf(stderr, "usage: %s [seconds_per_case>0] [reps 1..%d]\n", argv[0],
            MAXREPS);
    return 2;
  }

  printf("devices %d\n", omp_get_num_devices());
  const char *lib = NULL;
  dl_iterate_phdr(find_omptarget, &lib);
  printf("libomptarget %s\n", lib ? lib : "(not loaded)");
  printf("seconds_per_case %g\n", seconds);
  printf("reps %d\n", reps);
  fflush(stdout);

  /* a*b is exactly 0.5, so c[j] == 0.5 * (launches that ran the body),
     exactly (well below 2^53) */
  for (int j = 0; j < LEN; ++j) {
    a[j] = 1.0;
    b[j] = 0.5;
    c[j] = 0.0;
  }

  if (omp_get_num_devices() == 0)
    fprintf(stderr, "launch: warning: no offload devices, measuring host "
                    "fallback\n");

  report("empty_region", run_empty, seconds, reps, 0);
  report("mapped_region", run_mapped, seconds, reps, 1);

  /* present: keep a, b, c resident; c is brought back at the end */
#pragma omp target data map(to : a[:LEN], b[:LEN]) map(tofrom : c[:LEN])
  { report("present_region", run_present, seconds, reps, 1); }
  /* c goes to the device and back unchanged: the check below still holds */
  report("enter_exit_region", run_enter_exit, seconds, reps, 0);

  /* check: every launch of the mapped/present regions updated c */
  int ok = 1;
  for (int j = 0; j < LEN; ++j)
    if (c[j] != 0.5 * (double)total_launches)
      ok = 0;
  printf("launches_checked %ld\n", total_launches);
  printf("check %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
