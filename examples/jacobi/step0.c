/* Step 0 of docs/porting.md: the solver as written for one device, ordinary OpenMP
 * offloading (build it with clang-19 or spread-cc). */
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
      for (int j = 1; j < m - 1; j++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }

#pragma omp target teams distribute parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        f_old[i * m + j] = f[i * m + j];

    iter++;
  }
  return jacobi_check(&J, "step0", iter, error);
}
