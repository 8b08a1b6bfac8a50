/* Step 4 of docs/porting.md: step 2 plus the halo exchange between iterations, with
 * `target update spread` over the same chunks (PASS). */
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
  while (error > TOL && iter < iter_max) {
    error = 0.0;

    /* The loop over rows i = 1 .. n-2 is the range above; chunk k has the same rows, on the
     * same device. collapse(2) spreads the outer loop (rows): see the guide. */
#pragma omp target spread teams distribute parallel for collapse(2) reduction(max : error)    \
    spread_schedule(static, ch)                                                                \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[(omp_spread_start - 1) * m : (omp_spread_size + 2) * m])
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }

#pragma omp target spread teams distribute parallel for collapse(2) spread_schedule(static, ch) \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[omp_spread_start * m : omp_spread_size * m])
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        f_old[i * m + j] = f[i * m + j];

    /* The halo exchange: each chunk's first and last rows to the host, then the rows next to
     * each chunk (its neighbours' edge rows, or the fixed boundary) to its halo rows. Every
     * edge is on the host before any halo is sent: the four constructs run in order. */
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    from(f_old[omp_spread_start * m : m])
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    from(f_old[(omp_spread_start + omp_spread_size - 1) * m : m])
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    to(f_old[(omp_spread_start - 1) * m : m])
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    to(f_old[(omp_spread_start + omp_spread_size) * m : m])

    iter++;
  }
  return jacobi_check(&J, "step4", iter, error);
}
