// Hand-split multi-device stencil in plain OpenMP: the way a program spreads a loop over the
// devices without Spread's directives. A 1-D 3-point Jacobi stencil over N points is cut into one
// slice per device; every step launches one `target teams distribute parallel for nowait` per
// device and waits for all with `taskwait`, then exchanges the slices' edge cells through the host
// (`target update`). Issued from the initial thread, outside any parallel region, as such
// programs usually are.
//
// Built with -DTEAMS the kernels are `target teams distribute parallel for`: stock libomptarget 19
// with libomp's hidden helper threads (its default) aborts in most runs of that form
// (`kmp_tasking.cpp(4368): task_team != NULL`: the helper that runs the host kernel forks a
// league), so the plain build uses `target parallel for`, which it runs.
//
// Prints "devices D", "seconds S" (median of REPS runs of STEPS steps) and "check OK|FAILED"
// (the result against a serial run). Usage: stencil [N] [steps] [reps] [devices]
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void init(double *u, long n) {
  for (long i = 0; i < n + 2; i++)
    u[i] = (i == 0 || i == n + 1) ? 0.0 : sin(0.001 * (double)i) + (i % 977 == 0);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4L << 20;
  int steps = argc > 2 ? atoi(argv[2]) : 50;
  int reps = argc > 3 ? atoi(argv[3]) : 3;
  int nd = omp_get_num_devices();
  if (argc > 4 && atoi(argv[4]) > 0 && atoi(argv[4]) < nd)
    nd = atoi(argv[4]);
  if (n < 16 || steps < 1 || reps < 1 || nd < 1) {
    fprintf(stderr, "usage: stencil [N>=16] [steps>=1] [reps>=1] [devices]; needs a device\n");
    return 2;
  }
  double *u = malloc(sizeof(double) * (size_t)(n + 2));
  double *v = malloc(sizeof(double) * (size_t)(n + 2));
  double *ref = malloc(sizeof(double) * (size_t)(n + 2));
  double *tmp = malloc(sizeof(double) * (size_t)(n + 2));
  long *lo = malloc(sizeof(long) * (size_t)nd), *hi = malloc(sizeof(long) * (size_t)nd);
  if (!u || !v || !ref || !tmp || !lo || !hi) {
    fprintf(stderr, "stencil: out of memory\n");
    return 2;
  }
  for (int d = 0; d < nd; d++) {
    lo[d] = 1 + n * d / nd;
    hi[d] = 1 + n * (d + 1) / nd;
  }
  // Serial reference.
  init(ref, n);
  memcpy(tmp, ref, sizeof(double) * (size_t)(n + 2));
  for (int s = 0; s < steps; s++) {
    for (long i = 1; i <= n; i++)
      tmp[i] = ref[i] + 0.25 * (ref[i - 1] - 2 * ref[i] + ref[i + 1]);
    double *t = ref; ref = tmp; tmp = t;
  }
  double times[64];
  int ok = 1;
  if (reps > 64)
    reps = 64;
  for (int r = 0; r < reps; r++) {
    init(u, n);
    memcpy(v, u, sizeof(double) * (size_t)(n + 2));
    for (int d = 0; d < nd; d++) {
      long l = lo[d] - 1, len = hi[d] - lo[d] + 2;
#pragma omp target enter data device(d) map(to : u[l : len], v[l : len])
    }
    double t0 = now();
    for (int s = 0; s < steps; s++) {
      for (int d = 0; d < nd; d++) {
        long a = lo[d], b = hi[d];
#ifdef TEAMS
#pragma omp target teams distribute parallel for nowait device(d) \
    map(alloc : u[a - 1 : b - a + 2], v[a - 1 : b - a + 2])
#else
#pragma omp target parallel for nowait device(d) \
    map(alloc : u[a - 1 : b - a + 2], v[a - 1 : b - a + 2])
#endif
        for (long i = a; i < b; i++)
          v[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
      }
#pragma omp taskwait
      // Edge cells to the host, then each slice's halo cells from its neighbours' edges.
      for (int d = 0; d < nd; d++) {
        long a = lo[d], b = hi[d];
#pragma omp target update device(d) from(v[a : 1])
#pragma omp target update device(d) from(v[b - 1 : 1])
      }
      for (int d = 0; d < nd; d++) {
        long a = lo[d], b = hi[d];
#pragma omp target update device(d) to(v[a - 1 : 1])
#pragma omp target update device(d) to(v[b : 1])
      }
      double *t = u; u = v; v = t;
    }
    times[r] = now() - t0;
    for (int d = 0; d < nd; d++) {
      long a = lo[d], b = hi[d];
#pragma omp target update device(d) from(u[a : b - a])
#pragma omp target exit data device(d) map(delete : u[a - 1 : b - a + 2], v[a - 1 : b - a + 2])
    }
    for (long i = 1; i <= n; i++)
      if (fabs(u[i] - ref[i]) > 1e-12) {
        if (ok)
          fprintf(stderr, "stencil: u[%ld] = %.17g, serial %.17g\n", i, u[i], ref[i]);
        ok = 0;
      }
  }
  qsort(times, (size_t)reps, sizeof *times, cmp);
  printf("devices %d\nseconds %.4f\ncheck %s\n", nd, times[reps / 2], ok ? "OK" : "FAILED");
  return !ok;
}
