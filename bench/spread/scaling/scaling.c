/* scaling: a compute-bound target spread loop on two host devices against one.
 *
 *   one device:   #pragma omp target spread teams distribute parallel for devices(D0) ...
 *   two devices:  #pragma omp target spread teams distribute parallel for devices(D0, D1) ...
 *                 (no spread_schedule: one contiguous half of the loop per device)
 * The kernel does `rounds` dependent multiply-adds per element (n elements, 256 KiB in and out),
 * so transfers are negligible and the time is the kernels'.
 *
 * Rows:
 *   1 thread/device   num_teams(1) thread_limit(1) num_threads(1): each device's kernel uses one
 *                     core, so two devices can use two cores. This is the device-level scaling.
 *   default threads   no thread clauses: a kernel alone uses every core (OMP_NUM_THREADS, or
 *                     SPREAD_HOST_THREADS), and kernels of devices running at once share the
 *                     cores (SPREAD_HOST_THREADS / running kernels each). On a machine with C
 *                     cores, one device already uses all C of them, so two devices cannot be
 *                     faster; the row shows what sharing the cores costs.
 * speedup = time(1 device) / time(2 devices); the ideal for the first row is min(2, cores).
 *
 * usage: scaling [seconds_per_case] [reps] [D0] [D1]   (default 1.0 3 0 1)
 * Exit 1 if a result is wrong.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#define N (32 << 10)
#define ROUNDS 1000

#pragma omp declare target
static inline double work(double x) {
  double y = x;
  for (int r = 0; r < ROUNDS; r++)
    y = y * 0.9999 + 0.25;
  return y;
}
#pragma omp end declare target

static double A[N], B[N];
static int d0 = 0, d1 = 1;

static void one_dev_1t(void *unused) {
  (void)unused;
#pragma omp target spread teams distribute parallel for devices(d0) num_teams(1)               \
    thread_limit(1) num_threads(1) map(to : A[omp_spread_start : omp_spread_size])             \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < N; i++)
    B[i] = work(A[i]);
}

static void two_dev_1t(void *unused) {
  (void)unused;
#pragma omp target spread teams distribute parallel for devices(d0, d1) num_teams(1)           \
    thread_limit(1) num_threads(1) map(to : A[omp_spread_start : omp_spread_size])             \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < N; i++)
    B[i] = work(A[i]);
}

static void one_dev(void *unused) {
  (void)unused;
#pragma omp target spread teams distribute parallel for devices(d0)                            \
    map(to : A[omp_spread_start : omp_spread_size])                                            \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < N; i++)
    B[i] = work(A[i]);
}

static void two_dev(void *unused) {
  (void)unused;
#pragma omp target spread teams distribute parallel for devices(d0, d1)                        \
    map(to : A[omp_spread_start : omp_spread_size])                                            \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < N; i++)
    B[i] = work(A[i]);
}

static void host_1t(void *unused) {
  (void)unused;
  for (int64_t i = 0; i < N; i++)
    B[i] = work(A[i]);
}

static int check(const char *what) {
  for (int64_t i = 0; i < N; i++)
    if (B[i] != work(A[i])) {
      fprintf(stderr, "scaling: %s: B[%ld] = %g, expected %g\n", what, (long)i, B[i], work(A[i]));
      return 1;
    }
  return 0;
}

static int run_checked(void (*fn)(void *), const char *what) {
  memset(B, 0, sizeof B);
  fn(NULL);
  return check(what);
}

int main(int argc, char **argv) {
  double seconds = bench_arg_double(argc, argv, 1, 1.0);
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (argc > 3)
    d0 = atoi(argv[3]);
  if (argc > 4)
    d1 = atoi(argv[4]);
  int ndev = omp_get_num_devices();
  if (d0 == d1 || d0 < 0 || d1 < 0 || d0 >= ndev || d1 >= ndev) {
    fprintf(stderr, "scaling: needs two different devices (have %d; asked for %d and %d)\n",
            ndev, d0, d1);
    return 2;
  }
  for (int64_t i = 0; i < N; i++)
    A[i] = (double)(i % 977) * 0.5;

  int bad = 0;
  bad |= run_checked(one_dev_1t, "1 device, 1 thread");
  bad |= run_checked(two_dev_1t, "2 devices, 1 thread");
  bad |= run_checked(one_dev, "1 device");
  bad |= run_checked(two_dev, "2 devices");

  double per = seconds / 5; /* five measurements */
  double th = bench_median(host_1t, NULL, per, reps, NULL);
  double t1a = bench_median(one_dev_1t, NULL, per, reps, NULL);
  double t2a = bench_median(two_dev_1t, NULL, per, reps, NULL);
  double t1b = bench_median(one_dev, NULL, per, reps, NULL);
  double t2b = bench_median(two_dev, NULL, per, reps, NULL);

  printf("compute-bound spread loop (n = %d, %d multiply-adds per element), devices %d and %d, "
         "%d host cores, median ms per construct\n",
         N, ROUNDS, d0, d1, omp_get_num_procs());
  printf("%-17s %12s %12s %9s\n", "kernel threads", "1 device", "2 devices", "speedup");
  printf("%-17s %12.2f %12.2f %9.2f\n", "1 thread/device", 1e3 * t1a, 1e3 * t2a, t1a / t2a);
  printf("%-17s %12.2f %12.2f %9.2f\n", "default threads", 1e3 * t1b, 1e3 * t2b, t1b / t2b);
  printf("(host loop, 1 thread, no offload: %.2f ms)\n", 1e3 * th);
  printf("check %s\n", bad ? "FAILED" : "OK");
  return bad;
}
