/*
 * latency: command latency and copy bandwidth of every device, measured in one
 * run. Run under cluster mode (bench/remote/run.sh) device 0 is rank 0's own
 * host device and the others belong to other MPI ranks, so each remote figure
 * has its local baseline beside it ("x local").
 *
 *   empty     an empty `target` region (launch + completion), microseconds
 *   nowait    `target nowait` regions issued back to back, then one taskwait:
 *             microseconds per region (commands pipelined, no round trip each)
 *   to/from   `target update to/from` of an array already mapped, after three
 *             untimed copies of each size: MB/s
 *
 * Usage: latency [repetitions]   (default 200)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes[] = {8, 4096, 1 << 20, 16 << 20};
#define NSIZES (sizeof sizes / sizeof sizes[0])

typedef struct {
  double empty_us, nowait_us, to_mbs[NSIZES], from_mbs[NSIZES];
} result_t;

static double now(void) { return omp_get_wtime(); }

static void measure(int d, int reps, char *buf, result_t *r) {
  /* Warm up: load the image, map the buffer. */
#pragma omp target device(d)
  { }
#pragma omp target enter data device(d) map(alloc : buf[0 : sizes[NSIZES - 1]])

  double t = now();
  for (int i = 0; i < reps; i++) {
#pragma omp target device(d)
    { }
  }
  r->empty_us = (now() - t) / reps * 1e6;

  t = now();
#pragma omp parallel num_threads(1)
#pragma omp single
  {
    for (int i = 0; i < reps; i++) {
#pragma omp target device(d) nowait
      { }
    }
#pragma omp taskwait
  }
  r->nowait_us = (now() - t) / reps * 1e6;

  for (size_t k = 0; k < NSIZES; k++) {
    size_t n = sizes[k];
    int m = n >= (16 << 20) ? (reps / 20 > 3 ? reps / 20 : 3)
            : n >= (1 << 20) ? (reps / 4 > 3 ? reps / 4 : 3)
                             : reps;
    /* Warm-up: the first copies of a size pay for fresh buffers (page faults) on both ranks. */
    for (int i = 0; i < 3; i++) {
#pragma omp target update device(d) to(buf[0 : n])
#pragma omp target update device(d) from(buf[0 : n])
    }
    t = now();
    for (int i = 0; i < m; i++) {
#pragma omp target update device(d) to(buf[0 : n])
    }
    r->to_mbs[k] = (double)n * m / (now() - t) / 1e6;
    t = now();
    for (int i = 0; i < m; i++) {
#pragma omp target update device(d) from(buf[0 : n])
    }
    r->from_mbs[k] = (double)n * m / (now() - t) / 1e6;
  }
#pragma omp target exit data device(d) map(release : buf[0 : sizes[NSIZES - 1]])
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 200;
  int ndev = omp_get_num_devices();
  if (reps < 1 || ndev < 1) {
    fprintf(stderr, "latency: need repetitions >= 1 and a device (have %d)\n", ndev);
    return 2;
  }
  char *buf = malloc(sizes[NSIZES - 1]);
  if (!buf)
    return 2;
  memset(buf, 1, sizes[NSIZES - 1]);
  result_t *res = calloc(ndev, sizeof *res);
  for (int d = 0; d < ndev; d++)
    measure(d, reps, buf, &res[d]);

  printf("%-6s %10s %10s", "device", "empty_us", "nowait_us");
  for (size_t k = 0; k < NSIZES; k++)
    printf(" %9s%-3s %9s%-3s", "to_", sizes[k] >= (1 << 20) ? "M" : sizes[k] >= 1024 ? "K" : "B",
           "from_", sizes[k] >= (1 << 20) ? "M" : sizes[k] >= 1024 ? "K" : "B");
  printf("\n");
  for (int d = 0; d < ndev; d++) {
    result_t *r = &res[d];
    printf("%-6d %10.1f %10.1f", d, r->empty_us, r->nowait_us);
    for (size_t k = 0; k < NSIZES; k++)
      printf(" %12.0f %12.0f", r->to_mbs[k], r->from_mbs[k]);
    printf("\n");
  }
  printf("sizes (bytes):");
  for (size_t k = 0; k < NSIZES; k++)
    printf(" %zu", sizes[k]);
  printf("; copies in MB/s\n");
  for (int d = 1; d < ndev; d++) {
    result_t *r = &res[d], *l = &res[0];
    printf("device %d vs device 0: empty %.1fx, nowait %.1fx, to 1M %.2fx, from 1M %.2fx, to 16M %.2fx, from 16M %.2fx\n",
           d, r->empty_us / l->empty_us, r->nowait_us / l->nowait_us, r->to_mbs[2] / l->to_mbs[2],
           r->from_mbs[2] / l->from_mbs[2], r->to_mbs[3] / l->to_mbs[3], r->from_mbs[3] / l->from_mbs[3]);
  }
  free(res);
  free(buf);
  return 0;
}
