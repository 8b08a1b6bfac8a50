// Automatic spreading of loops with sequential loops inside (issue 44): what an access touches
// in one iteration of the parallel loop lies between its addresses at the inner loops' first
// and last iterations, so the pass describes it by those two forms (symbolic row lengths, two
// levels of inner loops, a trip count given by an argument, guarded rows, an inner loop with a
// second exit on data, bounded by its counted one). Writes and reads in inner loops are spread
// with the sections of their rows; a write whose inner loop's only bound is data stays on its
// device. Every result is the serial loop's, on 1 to 8 devices, both load paths, -O0 and -O2,
// and on stock.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 203 37 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=3 SPREAD_SCHEDULE=dynamic,5 %preload-run %t 101 13 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %libpath-run %t 9 1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=1 %libpath-run %t 50 50 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 203 37 | FileCheck %s --implicit-check-not=FAIL
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.O0 64 17 2>%t.info0 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info0
//
// CHECK: rows: 0 wrong
// CHECK: rowsum: 0 wrong
// CHECK: tiles: 0 wrong
// CHECK: smooth: 0 wrong
// CHECK: until: 0 wrong
// CHECK: scan: 0 wrong
// CHECK: tri: 0 wrong
// INFO-DAG: kernel {{.*}}_rows_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_rowsum_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_tiles_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_smooth_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_until_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_scan_l{{[0-9]+}} has no descriptor
// INFO-DAG: kernel {{.*}}_tri_l{{[0-9]+}} spread over devices

#include <stdio.h>
#include <stdlib.h>

static void rows(int n, int m, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0 : n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      y[i * m + j] = y[i * m + j] * 2 + i - j;
}

static void rowsum(int n, int m, const float *x, double *s) {
#pragma omp target teams distribute parallel for map(to : x[0 : n * m]) map(from : s[0 : n])
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int j = 0; j < m; j++)
      t += x[i * m + j];
    s[i] = t;
  }
}

// Four rows per iteration, two inner loops.
static void tiles(int n, int m, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0 : 4 * n * m])
  for (int t = 0; t < n; t++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < m; b++)
        y[(4 * t + a) * m + b] += a + b;
}

// Each row averaged with its neighbours, the edge rows guarded.
static void smooth(int n, int m, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0 : n * m]) map(from : y[0 : n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      float up = i > 0 ? x[(i - 1) * m + j] : 0, down = i < n - 1 ? x[(i + 1) * m + j] : 0;
      y[i * m + j] = (up + x[i * m + j] + down) / 3;
    }
}

// The inner loop stops at the row's end or at a zero, whichever comes first.
static void until(int n, int m, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0 : n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m && y[i * m + j] != 0; j++)
      y[i * m + j] = -y[i * m + j];
}

// The inner loop runs until it meets a zero: its range is data (each row ends with one).
static void scan(int n, int m, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0 : n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; y[i * m + j] != 0; j++)
      y[i * m + j] = 0;
}

// A triangular inner loop: row i (of the first k <= m rows) writes its first i + 1 elements
// (the ends step by 4m and 4m + 4).
static void tri(int k, int m, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0 : k * m])
  for (int i = 0; i < k; i++)
    for (int j = 0; j <= i; j++)
      y[i * m + j] = i + 2 * j;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 203, m = argc > 2 ? atoi(argv[2]) : 37;
  size_t sz = (size_t)n * m;
  float *y = malloc(4 * sz * sizeof *y), *r = malloc(4 * sz * sizeof *r), *x = malloc(sz * sizeof *x);
  double *s = malloc(n * sizeof *s);
  for (size_t k = 0; k < sz; k++)
    x[k] = y[k] = r[k] = (float)(k % 29) - 3;
  int wrong = 0;

  rows(n, m, y);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      r[i * m + j] = r[i * m + j] * 2 + i - j;
  for (size_t k = 0; k < sz; k++)
    wrong += y[k] != r[k];
  printf("rows: %d wrong\n", wrong);

  rowsum(n, m, x, s);
  wrong = 0;
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int j = 0; j < m; j++)
      t += x[i * m + j];
    wrong += s[i] != t;
  }
  printf("rowsum: %d wrong\n", wrong);

  for (size_t k = 0; k < 4 * sz; k++)
    y[k] = r[k] = (float)(k % 7);
  tiles(n, m, y);
  for (int t = 0; t < n; t++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < m; b++)
        r[(4 * t + a) * m + b] += a + b;
  wrong = 0;
  for (size_t k = 0; k < 4 * sz; k++)
    wrong += y[k] != r[k];
  printf("tiles: %d wrong\n", wrong);

  smooth(n, m, x, y);
  wrong = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++) {
      float up = i > 0 ? x[(i - 1) * m + j] : 0, down = i < n - 1 ? x[(i + 1) * m + j] : 0;
      wrong += y[i * m + j] != (up + x[i * m + j] + down) / 3;
    }
  printf("smooth: %d wrong\n", wrong);

  for (size_t k = 0; k < sz; k++)
    y[k] = r[k] = (float)(k % 5);
  until(n, m, y);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m && r[i * m + j] != 0; j++)
      r[i * m + j] = -r[i * m + j];
  wrong = 0;
  for (size_t k = 0; k < sz; k++)
    wrong += y[k] != r[k];
  printf("until: %d wrong\n", wrong);

  for (size_t k = 0; k < sz; k++)
    y[k] = k % m == (size_t)m - 1 ? 0 : 1 + k % 3;
  scan(n, m, y);
  wrong = 0;
  for (size_t k = 0; k < sz; k++)
    wrong += y[k] != 0;
  printf("scan: %d wrong\n", wrong);

  for (size_t k = 0; k < sz; k++)
    y[k] = r[k] = -1;
  int k = n < m ? n : m;
  tri(k, m, y);
  for (int i = 0; i < k; i++)
    for (int j = 0; j <= i; j++)
      r[i * m + j] = i + 2 * j;
  wrong = 0;
  for (size_t k = 0; k < sz; k++)
    wrong += y[k] != r[k];
  printf("tri: %d wrong\n", wrong);
  return 0;
}
