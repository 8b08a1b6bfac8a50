/*
 * transfer: host <-> device copy bandwidth through plain OpenMP, the same binary on stock
 * libomptarget and on Spread (scripts/gpu-check.sh runs it on both).
 *
 * For each size: `target enter data map(alloc:)` once, then REPS x `target update to(a[0:n])`
 * (host to device) and REPS x `target update from(a[0:n])` (device to host), timed one by one;
 * reports the median as GB/s (1e9 bytes/s). Before the copies back a kernel adds 1 to every
 * element, so the last copy back is checked.
 *
 * usage: transfer [max_MiB] [reps]     (default 256 7; sizes 1, 16, ..., max_MiB, times 16)
 * Output, one "key value" per line:
 *   device 0
 *   h2d_GBps_1MiB 11.2
 *   d2h_GBps_1MiB 12.0
 *   ...
 *   check OK
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXREPS 101

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *t, int n) {
  qsort(t, n, sizeof *t, cmp);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

int main(int argc, char **argv) {
  long max_mib = argc > 1 ? atol(argv[1]) : 256;
  int reps = argc > 2 ? atoi(argv[2]) : 7;
  if (max_mib < 1 || reps < 1 || reps > MAXREPS) {
    fprintf(stderr, "usage: transfer [max_MiB >= 1] [reps 1..%d]\n", MAXREPS);
    return 2;
  }
  int dev = omp_get_default_device();
  printf("device %d\n", dev);
  int ok = 1;
  for (long mib = 1; mib <= max_mib; mib *= 16) {
    long n = mib * (1L << 20) / sizeof(double);
    double *a = malloc(n * sizeof *a);
    if (!a) {
      fprintf(stderr, "transfer: out of memory\n");
      return 1;
    }
    for (long i = 0; i < n; ++i)
      a[i] = (double)i;
    double th[MAXREPS], td[MAXREPS];
#pragma omp target enter data map(alloc : a[0 : n])
    for (int r = 0; r < reps; ++r) {
      double t0 = omp_get_wtime();
#pragma omp target update to(a[0 : n])
      th[r] = omp_get_wtime() - t0;
    }
#pragma omp target teams distribute parallel for
    for (long i = 0; i < n; ++i)
      a[i] += 1.0;
    for (int r = 0; r < reps; ++r) {
      double t0 = omp_get_wtime();
#pragma omp target update from(a[0 : n])
      td[r] = omp_get_wtime() - t0;
    }
#pragma omp target exit data map(release : a[0 : n])
    for (long i = 0; i < n; i += 4097)
      if (a[i] != (double)i + 1.0) {
        ok = 0;
        break;
      }
    double bytes = (double)n * sizeof *a;
    printf("h2d_GBps_%ldMiB %.3f\n", mib, bytes / median(th, reps) / 1e9);
    printf("d2h_GBps_%ldMiB %.3f\n", mib, bytes / median(td, reps) / 1e9);
    free(a);
  }
  printf("check %s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
