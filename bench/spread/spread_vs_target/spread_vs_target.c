/* spread_vs_target: the cost of `target spread` on one device against a plain `target` with the
 * same kernel and the same data.
 *
 *   target:  #pragma omp target teams distribute parallel for device(D) map(...)
 *   spread:  #pragma omp target spread teams distribute parallel for devices(D) map(...)
 *            (one device, no spread_schedule: one chunk covering the loop)
 *
 * Cases (n = loop length, doubles):
 *   small    n = 256,    A mapped to, B mapped from by every construct (launch + 2 small maps)
 *   large    n = 4 Mi,   the same with 32 MiB per array (transfers dominate)
 *   present  n = 64 Ki,  A and B already mapped by an enclosing target data (launch + lookups)
 *   compute  n = 64 Ki,  present, 200 dependent multiply-adds per element (kernel dominates)
 *
 * Prints one table row per case: median microseconds per construct and spread/target.
 * usage: spread_vs_target [seconds_per_case] [reps] [device]   (default 0.4 5 0)
 * Exit 1 if a construct computed a wrong result.
 */
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench.h"

#pragma omp declare target
static inline double work(double x, int rounds) {
  double y = x;
  for (int r = 0; r < rounds; r++)
    y = y * 0.999 + 0.5;
  return y;
}
#pragma omp end declare target

typedef struct {
  double *A, *B;
  int64_t n;
  int rounds;
  int dev;
} case_t;

static void target_loop(void *p) {
  case_t *c = p;
  double *A = c->A, *B = c->B;
  const int64_t n = c->n;
  const int rounds = c->rounds;
#pragma omp target teams distribute parallel for device(c->dev) map(to : A[0 : n])         \
    map(from : B[0 : n])
  for (int64_t i = 0; i < n; i++)
    B[i] = work(A[i], rounds);
}

static void spread_loop(void *p) {
  case_t *c = p;
  double *A = c->A, *B = c->B;
  const int64_t n = c->n;
  const int rounds = c->rounds;
  const int dev = c->dev;
#pragma omp target spread teams distribute parallel for devices(dev)                          \
    map(to : A[omp_spread_start : omp_spread_size])                                           \
    map(from : B[omp_spread_start : omp_spread_size])
  for (int64_t i = 0; i < n; i++)
    B[i] = work(A[i], rounds);
}

static int check(const case_t *c, const char *what) {
  for (int64_t i = 0; i < c->n; i++)
    if (c->B[i] != work(c->A[i], c->rounds)) {
      fprintf(stderr, "spread_vs_target: %s: B[%ld] = %g, expected %g\n", what, (long)i, c->B[i],
              work(c->A[i], c->rounds));
      return 1;
    }
  return 0;
}

int main(int argc, char **argv) {
  double seconds = bench_arg_double(argc, argv, 1, 0.4);
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  int dev = argc > 3 ? atoi(argv[3]) : 0;
  if (omp_get_num_devices() <= dev) {
    fprintf(stderr, "spread_vs_target: device %d does not exist (%d devices)\n", dev,
            omp_get_num_devices());
    return 2;
  }
  static const struct {
    const char *name;
    int64_t n;
    int rounds;
    int present;
  } cases[] = {
      {"small", 256, 1, 0},
      {"large", 4 << 20, 1, 0},
      {"present", 64 << 10, 1, 1},
      {"compute", 64 << 10, 200, 1},
  };
  int bad = 0;
  printf("target vs target spread on device %d: median microseconds per construct "
         "(%d reps of ~%.2f s)\n",
         dev, reps, seconds / reps);
  printf("%-9s %10s %12s %12s %14s\n", "case", "n", "target_us", "spread_us", "spread/target");
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    case_t c = {malloc(sizeof(double) * cases[k].n), malloc(sizeof(double) * cases[k].n),
                cases[k].n, cases[k].rounds, dev};
    double *A = c.A, *B = c.B;
    const int64_t n = c.n;
    for (int64_t i = 0; i < n; i++)
      A[i] = (double)(i % 1000) * 0.25;
    if (cases[k].present) {
#pragma omp target enter data device(dev) map(to : A[0 : n]) map(alloc : B[0 : n])
    }
    /* alternate the two so drifts of the machine hit both alike */
    double tt = 0, ts = 0;
    for (int round = 0; round < 2; round++) {
      tt += bench_median(target_loop, &c, seconds / 2, reps, NULL);
      ts += bench_median(spread_loop, &c, seconds / 2, reps, NULL);
    }
    if (cases[k].present) {
#pragma omp target exit data device(dev) map(from : B[0 : n]) map(release : A[0 : n])
    }
    memset(B, 0, sizeof(double) * n);
    target_loop(&c);
    bad |= check(&c, "target");
    memset(B, 0, sizeof(double) * n);
    if (cases[k].present) {
#pragma omp target enter data device(dev) map(to : A[0 : n]) map(alloc : B[0 : n])
      spread_loop(&c);
#pragma omp target exit data device(dev) map(from : B[0 : n]) map(release : A[0 : n])
    } else {
      spread_loop(&c);
    }
    bad |= check(&c, "spread");
    printf("%-9s %10ld %12.2f %12.2f %14.2f\n", cases[k].name, (long)n, 1e6 * tt / 2,
           1e6 * ts / 2, ts / tt);
    fflush(stdout);
    free(A);
    free(B);
  }
  printf("check %s\n", bad ? "FAILED" : "OK");
  return bad;
}
