/*
 * jacobi: a 1-D Jacobi heat stencil whose data stays on the devices for the
 * whole run (persistent data), over every device the runtime offers: with
 * SPREAD_REMOTE=mpi under mpirun, the devices of the other MPI ranks too.
 *
 *   v[i] = u[i] + R (u[i-1] - 2 u[i] + u[i+1]),  i = 1..N,  u[0] = u[N+1] = 0
 *
 * Each device owns chunks of [1, N] (target spread's static schedule) plus one
 * halo cell on each side of each chunk, of both arrays:
 *
 *   target enter data spread   map(to: u, v chunks with halos)        nowait depend
 *   per step:
 *     target spread kernel     u -> v on every chunk                  nowait depend
 *     target update spread x2  from: each chunk's edge cells          nowait depend
 *     taskwait                 (every edge is on the host)
 *     target update spread x2  to: each chunk's halo cells            nowait depend
 *     swap u and v
 *   target exit data spread    map(from: u) map(release: v)           nowait depend
 *
 * (A chunk's halo cells come back with it: they hold its neighbours' edge
 * values, so every copy of a cell carries the same value.)
 *
 * The result is compared with the serial loop; both compute the same
 * operations in the same order, so they must agree bit for bit.
 *
 * Usage: jacobi [N] [steps] [chunk]   (defaults 100000, 50, N / devices)
 * Exit status 0 when verified.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R 0.25

static void init(double *u, long n) {
  u[0] = u[n + 1] = 0.0;
  for (long i = 1; i <= n; i++) {
    double x = (double)i / (double)(n + 1);
    u[i] = sin(M_PI * x) + 0.5 * sin(7.0 * M_PI * x) + (i % 97 == 0 ? 1.0 : 0.0);
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  int steps = argc > 2 ? atoi(argv[2]) : 50;
  int ndev = omp_get_num_devices();
  if (n < 1 || steps < 0 || ndev < 1) {
    fprintf(stderr, "jacobi: need N >= 1, steps >= 0 and a device (have %d)\n", ndev);
    return 2;
  }
  long chunk = argc > 3 ? atol(argv[3]) : (n + ndev - 1) / ndev;
  if (chunk < 1) {
    fprintf(stderr, "jacobi: the chunk must be >= 1\n");
    return 2;
  }
  double *u = malloc((n + 2) * sizeof *u), *v = malloc((n + 2) * sizeof *v);
  double *ru = malloc((n + 2) * sizeof *ru), *rv = malloc((n + 2) * sizeof *rv);
  if (!u || !v || !ru || !rv) {
    fprintf(stderr, "jacobi: out of memory\n");
    return 2;
  }
  init(u, n);
  memcpy(v, u, (n + 2) * sizeof *u);
  memcpy(ru, u, (n + 2) * sizeof *u);
  memcpy(rv, u, (n + 2) * sizeof *u);

  /* Serial reference. */
  for (int s = 0; s < steps; s++) {
    for (long i = 1; i <= n; i++)
      rv[i] = ru[i] + R * (ru[i - 1] - 2.0 * ru[i] + ru[i + 1]);
    double *t = ru;
    ru = rv;
    rv = t;
  }

  double t0 = omp_get_wtime();
#pragma omp parallel
#pragma omp single
  {
#pragma omp target enter data spread range(1 : n) chunk_size(chunk) nowait     \
    map(to : u[omp_spread_start - 1 : omp_spread_size + 2],                    \
            v[omp_spread_start - 1 : omp_spread_size + 2])                     \
    depend(inout : u[omp_spread_start : omp_spread_size],                      \
               v[omp_spread_start : omp_spread_size])
    for (int s = 0; s < steps; s++) {
#pragma omp target spread teams distribute parallel for                        \
    spread_schedule(static, chunk) nowait                                      \
    map(present, alloc : u[omp_spread_start - 1 : omp_spread_size + 2],        \
                        v[omp_spread_start - 1 : omp_spread_size + 2])         \
    depend(inout : u[omp_spread_start : omp_spread_size],                      \
               v[omp_spread_start : omp_spread_size])
      for (long i = 1; i <= n; i++)
        v[i] = u[i] + R * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
#pragma omp target update spread range(1 : n) chunk_size(chunk) nowait        \
    from(v[omp_spread_start : 1])                                              \
    depend(inout : u[omp_spread_start : omp_spread_size],                      \
               v[omp_spread_start : omp_spread_size])
#pragma omp target update spread range(1 : n) chunk_size(chunk) nowait        \
    from(v[omp_spread_start + omp_spread_size - 1 : 1])                        \
    depend(inout : u[omp_spread_start : omp_spread_size],                      \
               v[omp_spread_start : omp_spread_size])
#pragma omp taskwait
#pragma omp target update spread range(1 : n) chunk_size(chunk) nowait        \
    to(v[omp_spread_start - 1 : 1])                                            \
    depend(inout : u[omp_spread_start : omp_spread_size],                      \
               v[omp_spread_start : omp_spread_size])
#pragma omp target update spread range(1 : n) chunk_size(chunk) nowait        \
    to(v[omp_spread_start + omp_spread_size : 1])                              \
    depend(inout : u[omp_spread_start : omp_spread_size],                      \
               v[omp_spread_start : omp_spread_size])
      double *t = u;
      u = v;
      v = t;
    }
#pragma omp target exit data spread range(1 : n) chunk_size(chunk) nowait      \
    map(from : u[omp_spread_start - 1 : omp_spread_size + 2])                  \
    map(release : v[omp_spread_start - 1 : omp_spread_size + 2])               \
    depend(inout : u[omp_spread_start : omp_spread_size],                      \
               v[omp_spread_start : omp_spread_size])
#pragma omp taskwait
  }
  double t1 = omp_get_wtime();

  long bad = 0;
  double sum = 0;
  for (long i = 0; i <= n + 1; i++) {
    bad += u[i] != ru[i];
    sum += u[i];
  }
  printf("jacobi: N=%ld steps=%d devices=%d chunk=%ld time=%.3f s sum=%.12e\n", n, steps, ndev,
         chunk, t1 - t0, sum);
  printf("jacobi: %s (%ld of %ld points differ from the serial loop)\n",
         bad ? "FAILED" : "verified", bad, n + 2);
  return bad != 0;
}
