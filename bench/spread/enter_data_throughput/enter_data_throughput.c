/* enter_data_throughput: `target enter data spread` of a large array against memcpy of the same
 * bytes.
 *
 * Rows (A: `MiB` MiB of doubles, touched beforehand):
 *   memcpy (reused dst)   memcpy(dst, A) into a buffer written before: memory bandwidth
 *   memcpy (new dst)      malloc + memcpy + free: what a device allocation plus copy costs on the
 *                         host, page faults of the new memory included
 *   target, 1 device      #pragma omp target enter data device(0) map(to: A[0:N])
 *   spread, K devices     #pragma omp target enter data spread range(0:N) chunk_size(ceil(N/K))
 *                             devices(0[,1...]) map(to: A[omp_spread_start:omp_spread_size])
 *                         for K = 1, 2 and every device (no devices clause), each device gets
 *                         one chunk and the chunks' copies run on the devices' queues at once
 * Each enter is followed (untimed for the enter column) by the matching exit data with
 * map(from: ...), timed separately (device -> host). GB/s = bytes / median time / 1e9; the
 * ratio column is enter GB/s / memcpy (reused dst) GB/s.
 *
 * usage: enter_data_throughput [MiB] [reps]   (default 128 7)
 * Exit 1 if the data did not make the round trip.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

static double *A;
static int64_t N;
static int ndev;

typedef enum { TARGET1, SPREAD1, SPREAD2, SPREADALL } mode_t_;

static void enter(mode_t_ m) {
  double *a = A;
  const int64_t n = N;
  switch (m) {
  case TARGET1: {
#pragma omp target enter data device(0) map(to : a[0 : n])
  } break;
  case SPREAD1: {
#pragma omp target enter data spread range(0 : n) chunk_size(n) devices(0)                     \
    map(to : a[omp_spread_start : omp_spread_size])
  } break;
  case SPREAD2: {
    const int64_t chunk = (n + 1) / 2;
#pragma omp target enter data spread range(0 : n) chunk_size(chunk) devices(0, 1)              \
    map(to : a[omp_spread_start : omp_spread_size])
  } break;
  case SPREADALL: {
    const int64_t chunk = (n + ndev - 1) / ndev;
#pragma omp target enter data spread range(0 : n) chunk_size(chunk)                            \
    map(to : a[omp_spread_start : omp_spread_size])
  } break;
  }
}

static void exit_from(mode_t_ m) {
  double *a = A;
  const int64_t n = N;
  switch (m) {
  case TARGET1: {
#pragma omp target exit data device(0) map(from : a[0 : n])
  } break;
  case SPREAD1: {
#pragma omp target exit data spread range(0 : n) chunk_size(n) devices(0)                      \
    map(from : a[omp_spread_start : omp_spread_size])
  } break;
  case SPREAD2: {
    const int64_t chunk = (n + 1) / 2;
#pragma omp target exit data spread range(0 : n) chunk_size(chunk) devices(0, 1)               \
    map(from : a[omp_spread_start : omp_spread_size])
  } break;
  case SPREADALL: {
    const int64_t chunk = (n + ndev - 1) / ndev;
#pragma omp target exit data spread range(0 : n) chunk_size(chunk)                             \
    map(from : a[omp_spread_start : omp_spread_size])
  } break;
  }
}

static double expected(int64_t i) { return (double)(i % 65536) + 0.5; }

/* The round trip must bring A back: enter (to), clobber the host copy, exit (from). */
static int check(mode_t_ m, const char *name) {
  enter(m);
  memset(A, 0, sizeof(double) * N);
  exit_from(m);
  for (int64_t i = 0; i < N; i++)
    if (A[i] != expected(i)) {
      fprintf(stderr, "enter_data_throughput: %s: A[%ld] = %g after the round trip, expected %g\n",
              name, (long)i, A[i], expected(i));
      for (int64_t j = 0; j < N; j++)
        A[j] = expected(j);
      return 1;
    }
  return 0;
}

static double median(double *t, int reps) {
  qsort(t, (size_t)reps, sizeof t[0], bench_cmp);
  return reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
}

int main(int argc, char **argv) {
  double mib = bench_arg_double(argc, argv, 1, 128);
  int reps = argc > 2 ? atoi(argv[2]) : 7;
  if (reps < 1 || reps > BENCH_MAXREPS || mib <= 0) {
    fprintf(stderr, "usage: enter_data_throughput [MiB] [reps]\n");
    return 2;
  }
  ndev = omp_get_num_devices();
  if (ndev < 1) {
    fprintf(stderr, "enter_data_throughput: no devices\n");
    return 2;
  }
  N = (int64_t)(mib * 1048576.0 / sizeof(double));
  const size_t bytes = sizeof(double) * (size_t)N;
  A = malloc(bytes);
  double *dst = malloc(bytes);
  if (!A || !dst) {
    fprintf(stderr, "enter_data_throughput: out of memory\n");
    return 2;
  }
  for (int64_t i = 0; i < N; i++)
    A[i] = expected(i);
  memset(dst, 1, bytes);

  double t[BENCH_MAXREPS], u[BENCH_MAXREPS];
  memcpy(dst, A, bytes);
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    memcpy(dst, A, bytes);
    t[r] = bench_now() - t0;
  }
  double t_memcpy = median(t, reps);
  if (memcmp(dst, A, bytes) != 0)
    return 1;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    double *fresh = malloc(bytes);
    memcpy(fresh, A, bytes);
    volatile double sink = fresh[N - 1];
    (void)sink;
    free(fresh);
    t[r] = bench_now() - t0;
  }
  double t_fresh = median(t, reps);

  printf("%.0f MiB (%ld doubles), %d devices, median of %d\n", mib, (long)N, ndev, reps);
  printf("%-22s %8s %12s %12s %14s\n", "case", "devices", "enter_GB/s", "exit_GB/s",
         "enter/memcpy");
  const double gb = (double)bytes / 1e9;
  printf("%-22s %8s %12.2f %12s %14.2f\n", "memcpy (reused dst)", "-", gb / t_memcpy, "-", 1.0);
  printf("%-22s %8s %12.2f %12s %14.2f\n", "memcpy (new dst)", "-", gb / t_fresh, "-",
         t_memcpy / t_fresh);

  static const struct {
    mode_t_ m;
    const char *name;
    int need;
  } cases[] = {{TARGET1, "target enter data", 1},
               {SPREAD1, "spread", 1},
               {SPREAD2, "spread", 2},
               {SPREADALL, "spread (all devices)", 3}};
  int bad = 0;
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    if (ndev < cases[k].need)
      continue;
    int devs = cases[k].m == TARGET1 || cases[k].m == SPREAD1 ? 1 : cases[k].m == SPREAD2 ? 2 : ndev;
    bad |= check(cases[k].m, cases[k].name);
    for (int r = 0; r < reps; r++) {
      double t0 = bench_now();
      enter(cases[k].m);
      double t1 = bench_now();
      exit_from(cases[k].m);
      t[r] = t1 - t0;
      u[r] = bench_now() - t1;
    }
    double te = median(t, reps), tx = median(u, reps);
    char ndevs[16];
    snprintf(ndevs, sizeof ndevs, "%d", devs);
    printf("%-22s %8s %12.2f %12.2f %14.2f\n", cases[k].name, ndevs, gb / te, gb / tx,
           t_memcpy / te);
    fflush(stdout);
  }
  printf("check %s\n", bad ? "FAILED" : "OK");
  free(A);
  free(dst);
  return bad;
}
