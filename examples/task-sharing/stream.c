/* STREAM (McCalpin) with `target device(any)` (seed 002, paper §4): the four kernels on a, b, c
 *   copy  c = a;  scale b = s*c;  add c = a + b;  triad a = b + s*c
 * tiled into instances, `depend` between the four kernels of a tile (and, through the same
 * tiles, from one iteration to the next), several iterations, one taskwait at the end. Three
 * configurations run one after the other in one process:
 *   devices-only  if_device(nvidia) + if_device(cpu): the host is not a candidate
 *   host-only     if_device(host) only
 *   hybrid        all three kinds
 * This is the dependent chain where SPREAD_COHERENCE=lazy pays: a tile's outputs stay on the
 * device that produced them and its next kernel there needs no copy, while copy coherence moves
 * every input in and every output back for every instance. The line
 *   stream <mode>: instances host H devices D bytes B
 * gives the bytes moved (in + out, all devices) for each mode.
 *
 *   stream [-n N] [-b tile] [-s iterations] [-q] [-Q]   default -n 2097152 -b 131072 -s 10
 *   (-q: -n 65536 -b 4096 -s 3)
 *
 * Build: spread-cc -O2 stream.c -o stream
 *
 * Checked bitwise against a serial run of the same iterations (one multiply or add per value;
 * triad's b + s*c could become an FMA on a GPU, accepted within a relative 1e-15). */
#include "common.h"

#define SCALAR 3.0

/* resources() (defaults; -r HOST,CPU,NVIDIA): STREAM instances are short and memory-bound.
 *   nvidia 10  ten tiles in flight per GPU (the runtime's nvidia slots are 4 when it is 0).
 *   cpu    50  two tiles at once on a host device: one copies while the other computes.
 *   host   50  two tiles at once on the host's own cores, each with half of the share's
 *              threads: the host's bandwidth, not its cores, bounds STREAM (the paper's i7 is
 *              best with 2 cores). */

/* devices: `iters` iterations of the four kernels over every tile. */
static void stream_devices(double *a, double *b, double *c, long n, long T, int iters) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  const double scalar = SCALAR;
  for (int it = 0; it < iters; ++it)
    for (long k = 0; k < n; k += T) {
      /* copy */
#pragma omp target device(any) map(to: a[k:T]) map(from: c[k:T]) depend(in: a[k]) depend(out: c[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
      for (long i = k; i < k + T; ++i) c[i] = a[i];
      /* scale */
#pragma omp target device(any) map(to: c[k:T]) map(from: b[k:T]) depend(in: c[k]) depend(out: b[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
      for (long i = k; i < k + T; ++i) b[i] = scalar * c[i];
      /* add */
#pragma omp target device(any) map(to: a[k:T], b[k:T]) map(from: c[k:T]) depend(in: a[k], b[k]) depend(out: c[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
      for (long i = k; i < k + T; ++i) c[i] = a[i] + b[i];
      /* triad */
#pragma omp target device(any) map(to: b[k:T], c[k:T]) map(from: a[k:T]) depend(in: b[k], c[k]) depend(out: a[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
      for (long i = k; i < k + T; ++i) a[i] = b[i] + scalar * c[i];
    }
#pragma omp taskwait
  }
}

/* host: `iters` iterations of the four kernels over every tile. */
static void stream_host(double *a, double *b, double *c, long n, long T, int iters) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  const double scalar = SCALAR;
  for (int it = 0; it < iters; ++it)
    for (long k = 0; k < n; k += T) {
      /* copy */
#pragma omp target device(any) map(to: a[k:T]) map(from: c[k:T]) depend(in: a[k]) depend(out: c[k]) nowait
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) c[i] = a[i];
      /* scale */
#pragma omp target device(any) map(to: c[k:T]) map(from: b[k:T]) depend(in: c[k]) depend(out: b[k]) nowait
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) b[i] = scalar * c[i];
      /* add */
#pragma omp target device(any) map(to: a[k:T], b[k:T]) map(from: c[k:T]) depend(in: a[k], b[k]) depend(out: c[k]) nowait
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) c[i] = a[i] + b[i];
      /* triad */
#pragma omp target device(any) map(to: b[k:T], c[k:T]) map(from: a[k:T]) depend(in: b[k], c[k]) depend(out: a[k]) nowait
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) a[i] = b[i] + scalar * c[i];
    }
#pragma omp taskwait
  }
}

/* hybrid: `iters` iterations of the four kernels over every tile. */
static void stream_hybrid(double *a, double *b, double *c, long n, long T, int iters) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  const double scalar = SCALAR;
  for (int it = 0; it < iters; ++it)
    for (long k = 0; k < n; k += T) {
      /* copy */
#pragma omp target device(any) map(to: a[k:T]) map(from: c[k:T]) depend(in: a[k]) depend(out: c[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) c[i] = a[i];
      /* scale */
#pragma omp target device(any) map(to: c[k:T]) map(from: b[k:T]) depend(in: c[k]) depend(out: b[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) b[i] = scalar * c[i];
      /* add */
#pragma omp target device(any) map(to: a[k:T], b[k:T]) map(from: c[k:T]) depend(in: a[k], b[k]) depend(out: c[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) c[i] = a[i] + b[i];
      /* triad */
#pragma omp target device(any) map(to: b[k:T], c[k:T]) map(from: a[k:T]) depend(in: b[k], c[k]) depend(out: a[k]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (long i = k; i < k + T; ++i) a[i] = b[i] + scalar * c[i];
    }
#pragma omp taskwait
  }
}

static void stream_serial(double *a, double *b, double *c, long n, long T, int iters) {
  const double scalar = SCALAR;
  for (int it = 0; it < iters; ++it)
    for (long k = 0; k < n; k += T) {
      for (long i = k; i < k + T; ++i) c[i] = a[i];
      for (long i = k; i < k + T; ++i) b[i] = scalar * c[i];
      for (long i = k; i < k + T; ++i) c[i] = a[i] + b[i];
      for (long i = k; i < k + T; ++i) a[i] = b[i] + scalar * c[i];
    }
}

static void init(double *a, double *b, double *c, long n) {
  for (long i = 0; i < n; ++i) {
    a[i] = 1.0 + (double)(i % 1000) * 1e-3;
    b[i] = 2.0;
    c[i] = 0.0;
  }
}

typedef void (*stream_fn)(double *, double *, double *, long, long, int);

int main(int argc, char **argv) {
  ts_opts_t o = {2097152, 131072, 10, 0, 0, 0};
  ts_opts_t quick = {65536, 4096, 3, 1, 0, 0};
  ts_res[TS_R_HOST] = 50, ts_res[TS_R_CPU] = 50, ts_res[TS_R_NVIDIA] = 10;
  ts_parse(argc, argv, &o, quick, "STREAM: -n elements per array, -b tile, -s iterations");
  const long n = o.n, T = o.b;
  const int iters = (int)o.steps;
  if (n % T) {
    fprintf(stderr, "stream: -n %ld is not a multiple of -b %ld\n", n, T);
    return 2;
  }
  const long tiles = n / T;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  double *c = malloc(sizeof(double) * n), *ref = malloc(sizeof(double) * 3 * n);
  if (!a || !b || !c || !ref) {
    fprintf(stderr, "stream: out of memory for -n %ld\n", n);
    return 2;
  }
  double t0 = omp_get_wtime();
  init(ref, ref + n, ref + 2 * n, n);
  stream_serial(ref, ref + n, ref + 2 * n, n, T, iters);
  double tserial = omp_get_wtime() - t0;
  printf("stream: 3 arrays of %ld doubles, tiles of %ld (%ld instances per iteration), %d "
         "iterations; serial %.3f s\n", n, T, 4 * tiles, iters, tserial);
  ts_print_resources("stream");

  static const stream_fn fns[TS_MODES] = {stream_devices, stream_host, stream_hybrid};
  ts_result_t r[TS_MODES];
  memset(r, 0, sizeof r);
  int failed = 0;
  for (int m = 0; m < TS_MODES; ++m) {
    if (!(o.modes & (1 << m))) continue;
    /* warm-up iteration (device images, the model's first measurements), untimed */
    init(a, b, c, n);
    TS_CALL(fns[m](a, b, c, n, T, 1));
    init(a, b, c, n);
    spread_any_stats_reset();
    t0 = omp_get_wtime();
    TS_CALL(fns[m](a, b, c, n, T, iters));
    double t = omp_get_wtime() - t0;
    ts_collect(&r[m], t);
    printf("%s (%.3f s):\n", ts_mode_name[m], t);
    ts_print("stream", m, &r[m], o.quiet);
    failed |= ts_check_placement("stream", m, &r[m], 4 * tiles * iters);
    int bad = ts_check_double("stream a", m, a, ref, n, 1e-15);
    bad |= ts_check_double("stream b", m, b, ref + n, n, 1e-15);
    bad |= ts_check_double("stream c", m, c, ref + 2 * n, n, 1e-15);
    printf("stream %s: verified: %s\n", ts_mode_name[m], bad ? "FAILED" : "OK");
    failed |= bad;
  }
  /* STREAM's count: copy and scale move 2 words per element, add and triad 3 */
  ts_summary("stream", r, 10.0 * 8 * n * (double)iters * 1e-9, "GB/s", o.modes);
  printf("stream: %s\n", failed ? "verification FAILED" : "all modes verified: OK");
  free(a), free(b), free(c), free(ref);
  return failed;
}
