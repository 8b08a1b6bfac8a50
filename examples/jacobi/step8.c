/* Step 8 of docs/porting.md: step 0 with each kernel's inner loop over whole rows (the first
 * and last column skipped by a test), still ordinary OpenMP. Built with the pass plugin and run
 * with SPREAD_AUTO=1, both kernels are spread with no spread directive: the collapsed index
 * i * m + j is then affine in the collapsed iteration, which the plugin needs. */
#include "jacobi.h"

int main(int argc, char **argv) {
  struct jacobi J;
  if (jacobi_setup(argc, argv, &J))
    return 2;
  int n = J.n, m = J.m, iter_max = J.iter_max;
  double *f = J.f, *f_old = J.f_old;
  double error = 1.0;
  int iter = 0;

#pragma omp target data map(tofrom : f[0 : n * m]) map(to : f_old[0 : n * m])
  while (error > TOL && iter < iter_max) {
    error = 0.0;

#pragma omp target teams distribute parallel for collapse(2) reduction(max : error)
    for (int i = 1; i < n - 1; i++)
      for (int j = 0; j < m; j++)
        if (j > 0 && j < m - 1) {
          f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                                 f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
          error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
        }

#pragma omp target teams distribute parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 0; j < m; j++)
        f_old[i * m + j] = f[i * m + j];

    iter++;
  }
  return jacobi_check(&J, "step8", iter, error);
}
