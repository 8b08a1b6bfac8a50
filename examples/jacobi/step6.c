/* Step 6 of docs/porting.md: step 4 with `nowait` on the copy kernel and the halo exchange,
 * each chunk's constructs ordered by `depend` on its first row (PASS). */
#include "jacobi.h"

int main(int argc, char **argv) {
  struct jacobi J;
  if (jacobi_setup(argc, argv, &J))
    return 2;
  int n = J.n, m = J.m, iter_max = J.iter_max, ch = J.ch;
  double *f = J.f, *f_old = J.f_old;
  double error = 1.0;
  int iter = 0;

  /* Chunk [s, s+len) of the interior rows 1 .. n-2 on its device: f's rows, and f_old's with
   * one halo row on each side (the stencil reads rows i-1 and i+1). */
#pragma omp target data spread range(1 : n - 2) chunk_size(ch)                                \
    map(tofrom : f[omp_spread_start * m : omp_spread_size * m])                                \
    map(to : f_old[(omp_spread_start - 1) * m : (omp_spread_size + 2) * m])
  {
    while (error > TOL && iter < iter_max) {
      error = 0.0;

      /* Synchronous (the loop condition needs error); each chunk waits for its own halos. */
#pragma omp target spread teams distribute parallel for collapse(2) reduction(max : error)    \
    spread_schedule(static, ch)                                                                \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[(omp_spread_start - 1) * m : (omp_spread_size + 2) * m])        \
    depend(in : f_old[omp_spread_start * m])
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++) {
          f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                                 f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
          error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
        }

#pragma omp target spread teams distribute parallel for collapse(2) spread_schedule(static, ch) \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[omp_spread_start * m : omp_spread_size * m])                    \
    nowait depend(inout : f_old[omp_spread_start * m])
      for (int i = 1; i < n - 1; i++)
        for (int j = 1; j < m - 1; j++)
          f_old[i * m + j] = f[i * m + j];

      /* Each chunk's edge rows leave as soon as its own copy kernel is done; the taskwait puts
       * every edge on the host before any halo is sent. */
#pragma omp target update spread range(1 : n - 2) chunk_size(ch) nowait                       \
    from(f_old[omp_spread_start * m : m]) depend(inout : f_old[omp_spread_start * m])
#pragma omp target update spread range(1 : n - 2) chunk_size(ch) nowait                       \
    from(f_old[(omp_spread_start + omp_spread_size - 1) * m : m])                              \
    depend(inout : f_old[omp_spread_start * m])
#pragma omp taskwait
#pragma omp target update spread range(1 : n - 2) chunk_size(ch) nowait                       \
    to(f_old[(omp_spread_start - 1) * m : m]) depend(inout : f_old[omp_spread_start * m])
#pragma omp target update spread range(1 : n - 2) chunk_size(ch) nowait                       \
    to(f_old[(omp_spread_start + omp_spread_size) * m : m])                                    \
    depend(inout : f_old[omp_spread_start * m])

      iter++;
    }
    /* The last halos are still in flight: they must land before the region unmaps f_old. */
#pragma omp taskwait
  }
  return jacobi_check(&J, "step6", iter, error);
}
