// Read-only map entries that share host bytes (issue 44: HeCBench flip passes one array as two
// arguments; a stencil passes two pointers into one input): SPREAD_AUTO spreads the launch,
// giving each block one section that covers the entries' sections (two partly overlapping
// sections could not both be mapped on a device), and each argument points into it. Pointers
// into one resident object are compared by the bytes the loop touches through them, so written
// ones at disjoint ranges are spread too. A written entry that shares bytes with another stays on
// one device (refused.c). Results are the serial loop's on every path and device count.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 1000 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=3 SPREAD_SCHEDULE=dynamic,7 %preload-run %t 333 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %libpath-run %t 9 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
//
// CHECK: shifted: ok
// CHECK: twice: ok
// CHECK: resident: ok
// CHECK: halves: ok
// INFO-DAG: kernel {{.*}}_shifted_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_twice_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_resident_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_halves_l{{[0-9]+}} spread over devices

#include <stdio.h>
#include <stdlib.h>

#include "../Inputs/check_floats.h"

// Two pointers into one input, q's section inside p's (OpenMP allows no partial overlap on one
// device); a block's sections of the two overlap in part.
static void shifted(int n, const float *p, const float *q, float *y) {
#pragma omp target teams distribute parallel for map(to : p[0:n / 2], q[0:n / 4]) map(from : y[0:n / 4])
  for (int i = 0; i < n / 4; i++)
    y[i] = p[i] - 2 * q[i];
}

// The same small table passed twice (flip's strides), read whole by every iteration.
static void twice(int n, const int *a, const int *b, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : a[0:4], b[0:4], x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[i] * a[i % 4] + b[(i + 1) % 4];
}

// Both pointers into data that an enclosing target data keeps on the devices.
static void resident(int n, const float *p, const float *q, float *y) {
#pragma omp target teams distribute parallel for map(from : y[0:n / 2])
  for (int i = 0; i < n / 2; i++)
    y[i] = p[i] + q[i];
}

// Two pointers into one resident array, both written, at disjoint ranges (HeCBench permute's
// Q, K, V): each stands for the whole object, but what the loop touches through them does not
// overlap.
static void halves(int n, const float *x, float *lo, float *hi) {
#pragma omp target teams distribute parallel for map(to : x[0:n])
  for (int i = 0; i < n / 2; i++) {
    lo[i] = x[i] + 1;
    hi[i] = x[i] - 1;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
  float *want = malloc(sizeof(float) * n);
  int table[4] = {3, -1, 4, 1};
  for (int i = 0; i < n; i++)
    x[i] = (float)((i * 7) % 19) - 9;

  shifted(n, x, x + n / 8, y);
  for (int i = 0; i < n / 4; i++)
    want[i] = x[i] - 2 * x[i + n / 8];
  check("shifted", y, want, n / 4);

  twice(n, table, table, x, y);
  for (int i = 0; i < n; i++)
    want[i] = x[i] * table[i % 4] + table[(i + 1) % 4];
  check("twice", y, want, n);

#pragma omp target data map(to : x[0:n])
  resident(n, x, x + n / 2, y);
  for (int i = 0; i < n / 2; i++)
    want[i] = x[i] + x[i + n / 2];
  check("resident", y, want, n / 2);

  for (int i = 0; i < n; i++)
    y[i] = -7;
#pragma omp target data map(tofrom : y[0:n])
  halves(n, x, y, y + n / 2);
  for (int i = 0; i < n / 2; i++)
    want[i] = x[i] + 1, want[i + n / 2] = x[i] - 1;
  if (n % 2)
    want[n - 1] = -7;
  check("halves", y, want, n);

  free(x);
  free(y);
  free(want);
  return fails != 0;
}
