/* Tiled matrix multiply C = A x B (doubles) with `target device(any)` (seed 002, paper §4:
 * "each task is responsible for the computation of one of such blocks of the output matrix C"),
 * in three configurations run one after the other in one process:
 *   devices-only  if_device(nvidia) + if_device(cpu): the host is not a candidate
 *   host-only     if_device(host) only
 *   hybrid        all three kinds
 * One instance per C block: A's block row and B's block column are mapped `to`, the C block
 * `tofrom`. Layouts make each of them one contiguous range: A row-major; B stored by block
 * columns (block column bj = rows 0..n-1 of columns bj*b..bj*b+b-1, row after row); C stored
 * block after block (b*b row-major values each).
 *
 *   matmul [-n N] [-b BS] [-s reps] [-q] [-Q]   default -n 1024 -b 128 -s 1; paper: -n 8192 -b 512
 *   (-q: -n 256 -b 64)
 *
 * Build: spread-cc -O2 matmul.c -o matmul
 *
 * Bitwise results: every version and the serial reference run the same MM_ROW body, which adds
 * the products of one C element in k order (the jj loop vectorises across elements, not across
 * k), so on host devices the results are bitwise equal; a GPU's FMA contraction rounds
 * differently (accepted within a relative 1e-12). */
#include "common.h"

/* Row ii of C block (bi, bj): c[ii][jj] += sum_k A[bi*b+ii][k] * B[k][bj*b+jj]. */
#define MM_ROW(ii)                                                        \
  do {                                                                    \
    double *crow = &C[cblk + (long)(ii) * b];                             \
    const double *arow = &A[arow0 + (long)(ii) * n];                      \
    for (int k = 0; k < n; ++k) {                                         \
      const double aik = arow[k];                                         \
      const double *brow = &B[bcol0 + (long)k * b];                       \
      for (int jj = 0; jj < b; ++jj) crow[jj] += aik * brow[jj];          \
    }                                                                     \
  } while (0)

/* resources() (defaults; -r HOST,CPU,NVIDIA): the paper gives no values for matmul.
 *   nvidia 25  four C blocks in flight per GPU: one computes while the others copy.
 *   cpu    100 a host device computes one block with all its threads.
 *   host   100 one block at a time on the host's own cores, with all of the share's threads
 *              (two blocks of half the threads each would compete for the same caches). */

/* Instances for C blocks (bi, bj) with bi in [bi0, bi1). */
static void mm_devices(const double *A, const double *B, double *C, int n, int b, int bi0, int bi1) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  const int nb = n / b;
  for (int bi = bi0; bi < bi1; ++bi)
    for (int bj = 0; bj < nb; ++bj) {
      const long arow0 = (long)bi * b * n, bcol0 = (long)bj * n * b;
      const long cblk = ((long)bi * nb + bj) * b * b;
#pragma omp target device(any) map(to: A[arow0:(long)b * n], B[bcol0:(long)n * b]) map(tofrom: C[cblk:(long)b * b]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
      for (int ii = 0; ii < b; ++ii) MM_ROW(ii);
    }
#pragma omp taskwait
  }
}

static void mm_host(const double *A, const double *B, double *C, int n, int b, int bi0, int bi1) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  const int nb = n / b;
  for (int bi = bi0; bi < bi1; ++bi)
    for (int bj = 0; bj < nb; ++bj) {
      const long arow0 = (long)bi * b * n, bcol0 = (long)bj * n * b;
      const long cblk = ((long)bi * nb + bj) * b * b;
#pragma omp target device(any) map(to: A[arow0:(long)b * n], B[bcol0:(long)n * b]) map(tofrom: C[cblk:(long)b * b]) nowait
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (int ii = 0; ii < b; ++ii) MM_ROW(ii);
    }
#pragma omp taskwait
  }
}

static void mm_hybrid(const double *A, const double *B, double *C, int n, int b, int bi0, int bi1) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  const int nb = n / b;
  for (int bi = bi0; bi < bi1; ++bi)
    for (int bj = 0; bj < nb; ++bj) {
      const long arow0 = (long)bi * b * n, bcol0 = (long)bj * n * b;
      const long cblk = ((long)bi * nb + bj) * b * b;
#pragma omp target device(any) map(to: A[arow0:(long)b * n], B[bcol0:(long)n * b]) map(tofrom: C[cblk:(long)b * b]) nowait
#pragma omp if_device(nvidia) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
      for (int ii = 0; ii < b; ++ii) MM_ROW(ii);
    }
#pragma omp taskwait
  }
}

static void mm_serial(const double *A, const double *B, double *C, int n, int b) {
  const int nb = n / b;
  for (int bi = 0; bi < nb; ++bi)
    for (int bj = 0; bj < nb; ++bj) {
      const long arow0 = (long)bi * b * n, bcol0 = (long)bj * n * b;
      const long cblk = ((long)bi * nb + bj) * b * b;
      for (int ii = 0; ii < b; ++ii) MM_ROW(ii);
    }
}

typedef void (*mm_fn)(const double *, const double *, double *, int, int, int, int);

int main(int argc, char **argv) {
  ts_opts_t o = {1024, 128, 1, 0, 0, 0};
  ts_opts_t quick = {256, 64, 1, 1, 0, 0};
  ts_res[TS_R_HOST] = 100, ts_res[TS_R_CPU] = 100, ts_res[TS_R_NVIDIA] = 25;
  ts_parse(argc, argv, &o, quick, "tiled matmul: -n matrix order, -b block order, -s repetitions");
  const int n = (int)o.n, b = (int)o.b, reps = (int)o.steps;
  if (n % b) {
    fprintf(stderr, "matmul: -n %d is not a multiple of -b %d\n", n, b);
    return 2;
  }
  const int nb = n / b;
  const long nn = (long)n * n;
  double *A = malloc(sizeof(double) * nn), *B = malloc(sizeof(double) * nn);
  double *C = malloc(sizeof(double) * nn), *R = malloc(sizeof(double) * nn);
  if (!A || !B || !C || !R) {
    fprintf(stderr, "matmul: out of memory for -n %d\n", n);
    return 2;
  }
  /* A[i][k] and B[k][j] (B in its block-column layout): small integers and halves, so the sums
   * are exact neither trivially nor never (many products round) */
  for (long i = 0; i < nn; ++i) A[i] = (double)((i * 7 + 3) % 17) / 8.0 - 1.0;
  for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
      B[(long)(j / b) * n * b + (long)k * b + j % b] = 1.0 / (1 + (k * 13 + j * 5) % 23);

  double t0 = omp_get_wtime();
  memset(R, 0, sizeof(double) * nn);
  mm_serial(A, B, R, n, b);
  double tserial = omp_get_wtime() - t0;
  printf("matmul: %dx%d doubles, blocks of %dx%d (%d instances per multiply), %d multiplies; "
         "serial %.3f s\n", n, n, b, b, nb * nb, reps, tserial);
  ts_print_resources("matmul");

  static const mm_fn fns[TS_MODES] = {mm_devices, mm_host, mm_hybrid};
  ts_result_t r[TS_MODES];
  memset(r, 0, sizeof r);
  int failed = 0;
  for (int m = 0; m < TS_MODES; ++m) {
    if (!(o.modes & (1 << m))) continue;
    /* warm-up: C's first block row (device images, the model's first measurement of each
     * device), untimed */
    memset(C, 0, sizeof(double) * nn);
    TS_CALL(fns[m](A, B, C, n, b, 0, 1));
    spread_any_stats_reset();
    double t = 0;
    for (int rep = 0; rep < reps; ++rep) {
      memset(C, 0, sizeof(double) * nn);
      t0 = omp_get_wtime();
      TS_CALL(fns[m](A, B, C, n, b, 0, nb));
      t += omp_get_wtime() - t0;
    }
    ts_collect(&r[m], t);
    printf("%s (%.3f s):\n", ts_mode_name[m], t);
    ts_print("matmul", m, &r[m], o.quiet);
    failed |= ts_check_placement("matmul", m, &r[m], (long)nb * nb * reps);
    failed |= ts_check_double("matmul", m, C, R, nn, 1e-12);
  }
  ts_summary("matmul", r, 2.0 * n * (double)n * n * reps * 1e-9, "GFLOP/s", o.modes);
  printf("matmul: %s\n", failed ? "verification FAILED" : "all modes verified: OK");
  free(A), free(B), free(C), free(R);
  return failed;
}
