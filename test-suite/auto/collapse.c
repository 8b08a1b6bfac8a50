// Automatic spreading of collapse(2) loops whose rows do not cover the array (issue 44, the
// iterative Jacobi shape): `f[i*m + j]` over i in 1..n-1, j in 1..m-1 is not affine in the
// collapsed iteration, but is affine in its row q = it / (m-2) and column r = it % (m-2). The
// pass describes it so (a divisor, descriptor version 2), and the runtime gives each block the
// exact hull of its rows, cut anywhere in a row. A convergence loop in a `target data` runs a
// collapse(2) reduction kernel and a copy kernel; both are spread, the data stays resident, and
// every step's error and the final grid equal the serial loop's. Also: a transposed copy (the
// written array jumps back at each row: refused, reads fine), square sizes given at compile time,
// and three-deep collapse (its two divisors stay opaque: refused at compile time, as before).
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass -Rpass=spread-auto -Rpass-missed=spread-auto %s -o %t 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 61 45 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=3 SPREAD_SCHEDULE=dynamic,37 %libpath-run %t 61 45 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %preload-run %t 9 200 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=2 %libpath-run %t 3 3 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 61 45 | FileCheck %s --implicit-check-not=FAIL
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.O0 50 33 2>%t.info0 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info0
//
// CHECK: jacobi: 0 wrong
// CHECK: square: 0 wrong
// CHECK: transpose: 0 wrong
// CHECK: deep: 0 wrong
//
// REMARK-DAG: kernel {{.*}}_sweep_l{{[0-9]+}} can be spread over devices: {{.*}}reduce(+, double){{.*}}(collapsed: q, r = i / m, i % m with m = -2+arg
// REMARK-DAG: kernel {{.*}}_copy_l{{[0-9]+}} can be spread over devices: {{.*}}(collapsed: q, r = i / m, i % m with m = -2+arg
// REMARK-DAG: kernel {{.*}}_square_l{{[0-9]+}} can be spread over devices: {{.*}}(collapsed: q, r = i / m, i % m with m = 30)
// REMARK-DAG: kernel {{.*}}_transpose_l{{[0-9]+}} can be spread over devices:
// REMARK-DAG: kernel {{.*}}_deep_l{{[0-9]+}} runs on one device: a non-affine write
//
// INFO-DAG: kernel {{.*}}_sweep_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO-DAG: kernel {{.*}}_copy_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO-DAG: kernel {{.*}}_square_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO-DAG: kernel {{.*}}_transpose_l{{[0-9]+}} runs on device 0: argument {{.*}}: the bytes one iteration writes back may overlap
// INFO-DAG: summary: {{.*}}_sweep_l{{[0-9]+}}: 12 launches: 12 spread over devices [0, 1, 2, 3]

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double sweep(int n, int m, const double *u, double *f) {
  double error = 0;
#pragma omp target teams distribute parallel for collapse(2) reduction(+ : error)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++) {
      f[i * m + j] = 0.25 * (u[(i - 1) * m + j] + u[(i + 1) * m + j] + u[i * m + j - 1] + u[i * m + j + 1]);
      error += fabs(f[i * m + j] - u[i * m + j]);
    }
  return error;
}

static void copy(int n, int m, double *u, const double *f) {
#pragma omp target teams distribute parallel for collapse(2)
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      u[i * m + j] = f[i * m + j];
}

#define S 32
static void square(const float *a, float *b) {
#pragma omp target teams distribute parallel for collapse(2) map(to : a[0 : S * S]) map(tofrom : b[0 : S * S])
  for (int i = 1; i < S - 1; i++)
    for (int j = 1; j < S - 1; j++)
      b[i * S + j] = a[i * S + j - 1] + 2 * a[i * S + j + 1] + 3 * a[(i + 1) * S + j];
}

// With a size known at compile time the pass describes the write (its offset jumps back at each
// row), and the runtime refuses it; with symbolic sizes `j * n` is not affine in q and r.
static void transpose(const float *a, float *b) {
#pragma omp target teams distribute parallel for collapse(2) map(to : a[0 : S * S]) map(tofrom : b[0 : S * S])
  for (int i = 0; i < S; i++)
    for (int j = 0; j < S; j++)
      b[j * S + i] = a[i * S + j];
}

static void deep(int n, float *a) {
#pragma omp target teams distribute parallel for collapse(3) map(tofrom : a[0 : n * n * n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      for (int k = 1; k < n; k++)
        a[(i * n + j) * n + k] += 1;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 61, m = argc > 2 ? atoi(argv[2]) : 45;
  size_t sz = (size_t)n * m;
  double *u = malloc(sz * sizeof *u), *f = calloc(sz, sizeof *f);
  double *ru = malloc(sz * sizeof *u), *rf = calloc(sz, sizeof *f);
  for (size_t k = 0; k < sz; k++)
    u[k] = ru[k] = (double)((k * 7919) % 101) / 10;
  int wrong = 0;
  // The convergence loop, as an application writes it: data resident, a reduction per step.
#pragma omp target data map(tofrom : u[0 : sz]) map(alloc : f[0 : sz])
  for (int step = 0; step < 12; step++) {
    double err = sweep(n, m, u, f);
    copy(n, m, u, f);
    double want = 0;
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++) {
        rf[i * m + j] = 0.25 * (ru[(i - 1) * m + j] + ru[(i + 1) * m + j] + ru[i * m + j - 1] + ru[i * m + j + 1]);
        want += fabs(rf[i * m + j] - ru[i * m + j]);
      }
    for (int i = 1; i < n - 1; i++)
      for (int j = 1; j < m - 1; j++)
        ru[i * m + j] = rf[i * m + j];
    if (fabs(err - want) > 1e-9 * (1 + want)) {
      printf("FAIL: step %d error %.12g, expected %.12g\n", step, err, want);
      wrong++;
    }
  }
  for (size_t k = 0; k < sz; k++)
    if (u[k] != ru[k]) {
      if (!wrong)
        printf("FAIL: u[%zu] = %g, expected %g\n", k, u[k], ru[k]);
      wrong++;
    }
  printf("jacobi: %d wrong\n", wrong);

  static float a[S * S], b[S * S], rb[S * S];
  for (int k = 0; k < S * S; k++)
    a[k] = k % 13, b[k] = rb[k] = -1;
  square(a, b);
  for (int i = 1; i < S - 1; i++)
    for (int j = 1; j < S - 1; j++)
      rb[i * S + j] = a[i * S + j - 1] + 2 * a[i * S + j + 1] + 3 * a[(i + 1) * S + j];
  wrong = 0;
  for (int k = 0; k < S * S; k++)
    wrong += b[k] != rb[k];
  printf("square: %d wrong\n", wrong);

  static float ta[S * S], tb[S * S];
  for (int k = 0; k < S * S; k++)
    ta[k] = (float)(k % 1000), tb[k] = -1;
  transpose(ta, tb);
  wrong = 0;
  for (int i = 0; i < S; i++)
    for (int j = 0; j < S; j++)
      wrong += tb[j * S + i] != ta[i * S + j];
  printf("transpose: %d wrong\n", wrong);

  int d = 7;
  float *c = calloc((size_t)d * d * d, sizeof *c);
  deep(d, c);
  wrong = 0;
  for (int k = 0; k < d * d * d; k++)
    wrong += c[k] != (k % d ? 1 : 0);
  printf("deep: %d wrong\n", wrong);
  return 0;
}
