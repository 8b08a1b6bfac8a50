/* Step 2 of docs/porting.md: each chunk's rows on its device with `target data spread`, and
 * both kernels spread with the same chunks, naming their sections. The halo rows are never
 * refreshed, so the result is wrong after the first iteration (FAIL): step 4 fixes that. */
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

    iter++;
  }
  return jacobi_check(&J, "step2", iter, error);
}
