/* What every step of the Jacobi example shares (docs/porting.md): the arguments, the grid, the
 * serial reference and the check. The solver itself is in step0.c ... step6.c.
 *
 * Laplace's equation on an n x m grid (n rows of m points, row-major) whose outer rows and
 * columns are a fixed boundary, solved by Jacobi iteration until the largest change of a point
 * is at most TOL or iter_max iterations have run:
 *
 *   f[i][j] = (f_old[i][j-1] + f_old[i][j+1] + f_old[i-1][j] + f_old[i+1][j]) / 4
 *   error   = max |f[i][j] - f_old[i][j]|,   then f_old = f   (interior points)
 *
 * usage: stepN [n [m [iter_max [chunk]]]]
 *   defaults 514 514 1000; chunk: rows per chunk of the spread constructs, by default
 *   (n - 2) / devices rounded up (one block of rows per device). TOL is 1e-6.
 *
 * The serial run comes first; the step's run must give the same iteration count and error and
 * every point within 1e-12 of it (on host devices the arithmetic is the serial run's: they
 * agree bit for bit): PASS, else FAIL and exit status 1.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOL 1e-6

struct jacobi {
  int n, m, iter_max, ch, ndev;
  double *f, *f_old;          /* what the step computes on */
  double *ref, *ref_old;      /* the serial run's */
  int ref_iter;
  double ref_error, t_serial, t0;
};

/* The top row and the left column are hot (a sine along each), the other edges and the
 * interior start at 0: heat enters every block of rows from the start. */
static void jacobi_init(double *f, int n, int m) {
  memset(f, 0, sizeof(double) * n * m);
  for (int j = 0; j < m; j++)
    f[j] = sin(M_PI * j / (m - 1));
  for (int i = 0; i < n; i++)
    f[i * m] = sin(M_PI * i / (n - 1));
}

/* The solver on the host: the reference. */
static int jacobi_serial(double *f, double *f_old, int n, int m, int iter_max, double *err) {
  double error = 1.0;
  int iter = 0;
  while (error > TOL && iter < iter_max) {
    error = 0.0;
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++) {
        f[i * m + j] = 0.25 * (f_old[i * m + j + 1] + f_old[i * m + j - 1] +
                               f_old[(i - 1) * m + j] + f_old[(i + 1) * m + j]);
        error = fmax(error, fabs(f[i * m + j] - f_old[i * m + j]));
      }
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        f_old[i * m + j] = f[i * m + j];
    iter++;
  }
  *err = error;
  return iter;
}

/* Reads the arguments, runs the serial reference, and sets up f and f_old. 0 on success. */
static int jacobi_setup(int argc, char **argv, struct jacobi *J) {
  J->n = argc > 1 ? atoi(argv[1]) : 514;
  J->m = argc > 2 ? atoi(argv[2]) : 514;
  J->iter_max = argc > 3 ? atoi(argv[3]) : 1000;
  J->ndev = omp_get_num_devices();
  int d = J->ndev > 0 ? J->ndev : 1;
  J->ch = argc > 4 ? atoi(argv[4]) : (J->n - 2 + d - 1) / d;
  if (J->n < 3 || J->m < 3 || J->iter_max < 0 || J->ch < 1) {
    fprintf(stderr, "usage: %s [n [m [iter_max [chunk]]]]  (n, m >= 3, chunk >= 1)\n", argv[0]);
    return 2;
  }
  size_t bytes = sizeof(double) * J->n * J->m;
  J->f = malloc(bytes);
  J->f_old = malloc(bytes);
  J->ref = malloc(bytes);
  J->ref_old = malloc(bytes);
  if (!J->f || !J->f_old || !J->ref || !J->ref_old) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 2;
  }
  jacobi_init(J->ref, J->n, J->m);
  jacobi_init(J->ref_old, J->n, J->m);
  double t = omp_get_wtime();
  J->ref_iter = jacobi_serial(J->ref, J->ref_old, J->n, J->m, J->iter_max, &J->ref_error);
  J->t_serial = omp_get_wtime() - t;
  jacobi_init(J->f, J->n, J->m);
  jacobi_init(J->f_old, J->n, J->m);
  J->t0 = omp_get_wtime();
  return 0;
}

/* Prints the step's result against the serial run's; the exit status (0 PASS, 1 FAIL). */
static int jacobi_check(struct jacobi *J, const char *step, int iter, double error) {
  double t = omp_get_wtime() - J->t0;
  double diff = 0.0;
  for (long k = 0; k < (long)J->n * J->m; k++)
    diff = fmax(diff, fabs(J->f[k] - J->ref[k]));
  int ok = iter == J->ref_iter && fabs(error - J->ref_error) <= 1e-12 && diff <= 1e-12;
  printf("%s: %d x %d, %d devices, chunk %d rows: %d iterations, error %.6e, %.3f s\n", step,
         J->n, J->m, J->ndev, J->ch, iter, error, t);
  printf("%s: serial: %d iterations, error %.6e, %.3f s; largest difference %.3e: %s\n", step,
         J->ref_iter, J->ref_error, J->t_serial, diff, ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
