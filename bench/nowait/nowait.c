// nowait benchmark: how much of the device work of `target ... nowait` regions overlaps.
//
//   initial  four regions of 50 ms, one per device, issued from the initial thread (outside any
//            parallel region), then taskwait: about 50 ms when they overlap, 200 ms when each
//            runs synchronously.
//   threads  8 threads each issue 20 regions of 1 ms to one device (160 in all), then taskwait:
//            about 160 ms when a device runs one region at a time, 20 ms at best (each
//            thread's regions form a depend chain).
//
// A region waits by sleeping on a host device and by spinning on omp_get_wtime on a GPU (one
// thread of it), so the binary built with an nvptx image measures a GPU too. The threads case
// uses the default device (OMP_DEFAULT_DEVICE), the initial case DEVICES devices from it on.
// Each case runs REPS times; the median is printed as "case seconds". Results are checked.
// Usage: nowait [reps] [devices]     (devices default: all, at most 4)
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* Holds the region's device for `s` seconds. */
#pragma omp declare target
static void hold(double s) {
#ifdef __NVPTX__
  double t0 = omp_get_wtime();
  while (omp_get_wtime() - t0 < s)
    ;
#else
  usleep((useconds_t)(s * 1e6));
#endif
}
#pragma omp end declare target

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n) {
  qsort(v, n, sizeof *v, cmp);
  return v[n / 2];
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 5;
  if (reps < 1 || reps > 100)
    reps = 5;
  int nd = omp_get_num_devices();
  if (nd < 1) {
    printf("no devices\n");
    return 1;
  }
  int first = omp_get_default_device();
  if (first < 0 || first >= nd)
    first = 0;
  int used = argc > 2 ? atoi(argv[2]) : nd;
  if (used < 1 || used > nd)
    used = nd;
  if (used > 4)
    used = 4;
  double t_init[100], t_thr[100];
  int ok = 1;
  for (int rep = 0; rep < reps; rep++) {
    int r[4] = {0};
    double t0 = now();
    for (int d = 0; d < used; d++) {
#pragma omp target nowait device((first + d) % nd) map(tofrom : r[d : 1])
      {
        hold(0.05);
        r[d] = d + 1;
      }
    }
#pragma omp taskwait
    t_init[rep] = now() - t0;
    for (int d = 0; d < used; d++)
      ok &= r[d] == d + 1;

    int cnt[8] = {0};
    t0 = now();
#pragma omp parallel num_threads(8)
    {
      int t = omp_get_thread_num();
      for (int k = 0; k < 20; k++) {
#pragma omp target nowait device(first) map(tofrom : cnt[t : 1]) depend(inout : cnt[t])
        {
          hold(0.001);
          cnt[t]++;
        }
      }
#pragma omp taskwait
    }
    t_thr[rep] = now() - t0;
    for (int t = 0; t < 8; t++)
      ok &= cnt[t] == 20 || omp_get_max_threads() < 1;
  }
  printf("devices %d\n", used);
  printf("initial %.4f\n", median(t_init, reps));
  printf("threads %.4f\n", median(t_thr, reps));
  printf("check %s\n", ok ? "OK" : "FAILED");
  return !ok;
}
