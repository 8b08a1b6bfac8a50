// Automatic spreading of `target teams distribute` loops whose body runs `parallel for` loops
// over bounds of their own (issue 44's block-stencil shape): the distribute loop is cut over the
// devices (its teams are independent), and each distribute iteration touches what its parallel
// loops touch over their whole ranges. Conditions on a parallel loop's index bound the offsets of
// the accesses they guard (`if (i < n)`, `i > 0 ? a[i-1] : ...`), so edge blocks stay inside the
// mapped sections. Shapes: a 1-D stencil per block with guarded halos, a GPU-style grid of blocks
// whose last block runs past n, two parallel loops in one distribute iteration, a block stencil
// inside `target data` over many steps, rows normalized by a reduction into a variable of the
// teams region (HeCBench rmsnorm's form), and a reduction into mapped data shared by all teams
// (refused at compile time: its result would be per device). Every result is the serial loop's, on 1 to 8
// devices, both load paths, -O0 and -O2, and on stock.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass -Rpass=spread-auto -Rpass-missed=spread-auto %s -o %t 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: env SPREAD_AUTO=1 SPREAD_INFO=auto %libpath-run %t 100003 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=3 SPREAD_SCHEDULE=dynamic,3 %preload-run %t 20011 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %libpath-run %t 777 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=2 %libpath-run %t 3 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 20011 | FileCheck %s --implicit-check-not=FAIL
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.O0 5003 2>%t.info0 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info0
//
// CHECK: stencil: 0 wrong
// CHECK: grid: 0 wrong
// CHECK: two: 0 wrong
// CHECK: steps: 0 wrong
// CHECK: rows: 0 wrong
// CHECK: total: 0 wrong
//
// REMARK-DAG: kernel {{.*}}_stencil_l{{[0-9]+}} can be spread over devices: {{.*}}; if offset >= 0
// REMARK-DAG: kernel {{.*}}_grid_l{{[0-9]+}} can be spread over devices: {{.*}}; if -offset
// REMARK-DAG: kernel {{.*}}_two_l{{[0-9]+}} can be spread over devices:
// REMARK-DAG: kernel {{.*}}_sweep_l{{[0-9]+}} can be spread over devices:
// REMARK-DAG: kernel {{.*}}_normalize_l{{[0-9]+}} can be spread over devices:
// REMARK-DAG: kernel {{.*}}_total_l{{[0-9]+}} runs on one device: a write to arg{{[0-9]+}} at an address that does not depend on the iteration
//
// INFO-DAG: kernel {{.*}}_stencil_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO-DAG: kernel {{.*}}_grid_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO-DAG: kernel {{.*}}_two_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO-DAG: summary: {{.*}}_sweep_l{{[0-9]+}}: 10 launches: 10 spread over devices [0, 1, 2, 3]
// INFO-DAG: kernel {{.*}}_normalize_l{{[0-9]+}} spread over devices [0, 1, 2, 3]

#include <stdio.h>
#include <stdlib.h>

#define BS 256

static void stencil(int n, const double *a, double *b) {
  int nb = (n + BS - 1) / BS;
#pragma omp target teams distribute map(to : a[0 : n]) map(from : b[0 : n])
  for (int blk = 0; blk < nb; blk++) {
#pragma omp parallel for
    for (int t = 0; t < BS; t++) {
      int i = blk * BS + t;
      if (i < n)
        b[i] = ((i > 0 ? a[i - 1] : 0) + a[i] + (i < n - 1 ? a[i + 1] : 0)) / 3;
    }
  }
}

// A kernel ported from CUDA: blocks of threads, the last block partly past the end.
static void grid(int n, float alpha, const float *x, float *y) {
  int nb = (n + 127) / 128;
#pragma omp target teams distribute map(to : x[0 : n]) map(tofrom : y[0 : n])
  for (int b = 0; b < nb; b++) {
#pragma omp parallel for
    for (int t = 0; t < 128; t++)
      if (b * 128 + t < n)
        y[b * 128 + t] = alpha * x[b * 128 + t] + y[b * 128 + t];
  }
}

// Two parallel loops per distribute iteration: one per half of the block.
static void two(int n, const float *x, float *y, float *z) {
  int nb = (n + BS - 1) / BS;
#pragma omp target teams distribute map(to : x[0 : n]) map(from : y[0 : n], z[0 : n])
  for (int blk = 0; blk < nb; blk++) {
#pragma omp parallel for
    for (int t = 0; t < BS; t++)
      if (blk * BS + t < n)
        y[blk * BS + t] = 2 * x[blk * BS + t];
#pragma omp parallel for
    for (int t = 0; t < BS; t++)
      if (blk * BS + t < n)
        z[blk * BS + t] = x[blk * BS + t] + 1;
  }
}

static void sweep(int n, const double *a, double *b) {
  int nb = (n + BS - 1) / BS;
#pragma omp target teams distribute
  for (int blk = 0; blk < nb; blk++) {
#pragma omp parallel for
    for (int t = 0; t < BS; t++) {
      int i = blk * BS + t;
      if (i > 0 && i < n - 1)
        b[i] = (a[i - 1] + a[i] + a[i + 1]) / 3;
    }
  }
}

// Each row scaled by its norm: a reduction into `m`, one per distribute iteration.
static void normalize(int rows, int cols, const float *x, float *y) {
#pragma omp target teams distribute map(to : x[0 : rows * cols]) map(from : y[0 : rows * cols])
  for (int r = 0; r < rows; r++) {
    float m = 0;
#pragma omp parallel for reduction(+ : m)
    for (int c = 0; c < cols; c++)
      m += x[r * cols + c] * x[r * cols + c];
    m = m / cols + 1;
#pragma omp parallel for
    for (int c = 0; c < cols; c++)
      y[r * cols + c] = x[r * cols + c] / m;
  }
}

// The teams share `sum`: spread, each device would reduce into its own copy.
static float total(int n, const float *x) {
  float sum = 0;
  int nb = (n + BS - 1) / BS;
#pragma omp target teams distribute map(to : x[0 : n]) map(tofrom : sum)
  for (int b = 0; b < nb; b++) {
#pragma omp parallel for reduction(+ : sum)
    for (int t = 0; t < BS; t++)
      if (b * BS + t < n)
        sum += x[b * BS + t];
  }
  return sum;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100003;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
  float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y), *z = malloc(n * sizeof *z);
  float *ry = malloc(n * sizeof *ry);
  for (int i = 0; i < n; i++)
    a[i] = (i * 37) % 101, x[i] = (float)(i % 13), y[i] = ry[i] = (float)(i % 7);

  stencil(n, a, b);
  int wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += b[i] != ((i > 0 ? a[i - 1] : 0) + a[i] + (i < n - 1 ? a[i + 1] : 0)) / 3;
  printf("stencil: %d wrong\n", wrong);

  grid(n, 1.5f, x, y);
  wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += y[i] != 1.5f * x[i] + ry[i];
  printf("grid: %d wrong\n", wrong);

  two(n, x, y, z);
  wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += y[i] != 2 * x[i] || z[i] != x[i] + 1;
  printf("two: %d wrong\n", wrong);

  // Jacobi-like steps with the data resident; the edges keep their values.
  for (int i = 0; i < n; i++)
    b[i] = r[i] = a[i];
#pragma omp target data map(tofrom : a[0 : n], b[0 : n])
  for (int s = 0; s < 5; s++) {
    sweep(n, a, b);
    sweep(n, b, a);
  }
  wrong = 0;
  {
    double *u = malloc(n * sizeof *u), *v = malloc(n * sizeof *v);
    for (int i = 0; i < n; i++)
      u[i] = v[i] = (i * 37) % 101;
    for (int s = 0; s < 5; s++) {
      for (int i = 1; i < n - 1; i++)
        v[i] = (u[i - 1] + u[i] + u[i + 1]) / 3;
      for (int i = 1; i < n - 1; i++)
        u[i] = (v[i - 1] + v[i] + v[i + 1]) / 3;
    }
    for (int i = 0; i < n; i++)
      wrong += a[i] != u[i] || b[i] != v[i];
    free(u);
    free(v);
  }
  printf("steps: %d wrong\n", wrong);

  // Rows of 128; every value a small integer, so the sums are exact in any order.
  int rows = n / 128 > 0 ? n / 128 : 1, cols = n / 128 > 0 ? 128 : n;
  normalize(rows, cols, x, y);
  wrong = 0;
  for (int r = 0; r < rows; r++) {
    float m = 0;
    for (int c = 0; c < cols; c++)
      m += x[r * cols + c] * x[r * cols + c];
    m = m / cols + 1;
    for (int c = 0; c < cols; c++)
      wrong += y[r * cols + c] != x[r * cols + c] / m;
  }
  printf("rows: %d wrong\n", wrong);

  float want = 0;
  for (int i = 0; i < n; i++)
    want += x[i];
  float got = total(n, x);
  printf("total: %d wrong\n", got != want);
  return 0;
}
