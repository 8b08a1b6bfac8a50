/* The mistakes of docs/porting.md ("When it goes wrong"): the solver of step4.c with one thing
 * wrong, chosen by the first argument:
 *
 *   swapped    the hot kernel's collapse(2) loops swapped: the columns j are spread
 *   nohalo     `target data spread` maps f_old without its halo rows
 *   nohalo-all neither the data region nor the hot kernel maps the halo rows
 *   mismatch   the hot kernel's chunks are not the data's (spread_schedule(static), no chunk)
 *   nomap      the spread kernels name no sections (no map clauses)
 *   plaincopy  the copy kernel left as a one-device `target` kernel
 *   none       nothing wrong: step4.c
 *
 * and two that do not compile: -DTYPO (`target sprad`) and -DTWO_SECTIONS (both halo rows of a
 * chunk in one `target update spread`).
 *
 * usage: mistakes WHAT [n [m [iter_max [chunk]]]]   (the rest as for the steps: jacobi.h)
 */
#include "jacobi.h"

enum { NONE, SWAPPED, NOHALO, MISMATCH, NOMAP, PLAINCOPY, NOHALO_ALL };

/* One iteration over data that `target data spread` mapped as in step4.c: the hot kernel, the
 * copy kernel, the halo exchange. */
static double sweep(int what, int n, int m, int ch, double *f, double *f_old) {
  double error = 0.0;
  if (what == SWAPPED) {
#pragma omp target spread teams distribute parallel for collapse(2) reduction(max : error)    \
    spread_schedule(static, ch)                                                                \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[(omp_spread_start - 1) * m : (omp_spread_size + 2) * m])
    for (int j = 1; j < m - 1; j++)
      for (int i = 1; i < n - 1; i++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }
  } else if (what == MISMATCH) {
#pragma omp target spread teams distribute parallel for collapse(2) reduction(max : error)    \
    spread_schedule(static)                                                                    \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[(omp_spread_start - 1) * m : (omp_spread_size + 2) * m])
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }
  } else if (what == NOHALO_ALL) {
#pragma omp target spread teams distribute parallel for collapse(2) reduction(max : error)    \
    spread_schedule(static, ch)                                                                \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[omp_spread_start * m : omp_spread_size * m])
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }
  } else if (what == NOMAP) {
#pragma omp target spread teams distribute parallel for collapse(2) reduction(max : error)    \
    spread_schedule(static, ch)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }
#ifdef TYPO
  } else if (what == NONE) {
#pragma omp target sprad teams distribute parallel for collapse(2) reduction(max : error)     \
    spread_schedule(static, ch)                                                                \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[(omp_spread_start - 1) * m : (omp_spread_size + 2) * m])
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }
#endif
  } else {
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
  }

  if (what == PLAINCOPY) {
#pragma omp target teams distribute parallel for collapse(2)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        f_old[i * m + j] = f[i * m + j];
  } else if (what == NOMAP) {
#pragma omp target spread teams distribute parallel for collapse(2) spread_schedule(static, ch)
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        f_old[i * m + j] = f[i * m + j];
  } else {
#pragma omp target spread teams distribute parallel for collapse(2) spread_schedule(static, ch) \
    map(present, alloc : f[omp_spread_start * m : omp_spread_size * m],                        \
                         f_old[omp_spread_start * m : omp_spread_size * m])
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        f_old[i * m + j] = f[i * m + j];
  }

#ifdef TWO_SECTIONS
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    from(f_old[omp_spread_start * m : m], f_old[(omp_spread_start + omp_spread_size - 1) * m : m])
#else
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    from(f_old[omp_spread_start * m : m])
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    from(f_old[(omp_spread_start + omp_spread_size - 1) * m : m])
#endif
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    to(f_old[(omp_spread_start - 1) * m : m])
#pragma omp target update spread range(1 : n - 2) chunk_size(ch)                              \
    to(f_old[(omp_spread_start + omp_spread_size) * m : m])
  return error;
}

int main(int argc, char **argv) {
  static const char *names[] = {"none",  "swapped",   "nohalo",    "mismatch",
                                "nomap", "plaincopy", "nohalo-all"};
  int what = -1;
  for (int k = 0; argc > 1 && k < (int)(sizeof names / sizeof *names); k++)
    if (!strcmp(argv[1], names[k]))
      what = k;
  if (what < 0) {
    fprintf(stderr, "usage: mistakes none|swapped|nohalo|nohalo-all|mismatch|nomap|plaincopy "
                    "[n [m [iter_max [chunk]]]]\n");
    return 2;
  }
  argv[1] = argv[0];
  struct jacobi J;
  if (jacobi_setup(argc - 1, argv + 1, &J))
    return 2;
  int n = J.n, m = J.m, iter_max = J.iter_max, ch = J.ch;
  double *f = J.f, *f_old = J.f_old;
  double error = 1.0;
  int iter = 0;

  if (what == NOHALO || what == NOHALO_ALL) {
#pragma omp target data spread range(1 : n - 2) chunk_size(ch)                                \
    map(tofrom : f[omp_spread_start * m : omp_spread_size * m])                                \
    map(to : f_old[omp_spread_start * m : omp_spread_size * m])
    while (error > TOL && iter < iter_max) {
      error = sweep(what, n, m, ch, f, f_old);
      iter++;
    }
  } else {
#pragma omp target data spread range(1 : n - 2) chunk_size(ch)                                \
    map(tofrom : f[omp_spread_start * m : omp_spread_size * m])                                \
    map(to : f_old[(omp_spread_start - 1) * m : (omp_spread_size + 2) * m])
    while (error > TOL && iter < iter_max) {
      error = sweep(what, n, m, ch, f, f_old);
      iter++;
    }
  }
  return jacobi_check(&J, names[what], iter, error);
}
