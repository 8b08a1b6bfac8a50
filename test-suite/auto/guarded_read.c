// Halo reads guarded at the edges (`i > 0 ? u[i-1] : 0`, issue 44's heat-equation shape): the
// pass finds the comparisons of the loop's variables that dominate each read (of the collapsed
// loop's row or column, or of a 1-D loop's index) and puts them in the descriptor as guards; the
// runtime cuts each block's section to the iterations where the read happens, so the reads stay
// inside the mapped section and the launch is spread. A guard the pass cannot follow (a condition
// on data) leaves the read counted for every iteration: the launch stays on its device, and the
// reason says that a read under a condition is the likely cause, naming the array as the program
// wrote it where the build has debug info (-g: the map's name string), else by its number. The
// results are the serial loop's either way.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -g -fpass-plugin=%spread-pass %s -o %t.g
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.g 4096 300 2>%t.g.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefixes=INFO,G %s < %t.g.info
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 4096 300 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefixes=INFO,NOG %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=3 SPREAD_SCHEDULE=dynamic,7 %preload-run %t 101 13 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %libpath-run %t 5 2 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 4096 300 | FileCheck %s --implicit-check-not=FAIL
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.O0 999 31 2>%t.info0 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info0
//
// CHECK: step: 0 wrong
// CHECK: heat: 0 wrong
// CHECK: masked: 0 wrong
// INFO-DAG: kernel {{.*}}_step_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_heat_l{{[0-9]+}} spread over devices
// G-DAG: kernel {{.*}}_masked_l{{[0-9]+}} runs on device {{[0-9]+}}: argument {{[0-9]+}} ('u[0:n]' (declared at {{.*}}guarded_read.c:{{[0-9]+}}:{{[0-9]+}})): the loop touches bytes [-8, {{[0-9]+}}) of a mapped section of {{[0-9]+}} bytes (only reads leave it: a read under a condition
// NOG-DAG: kernel {{.*}}_masked_l{{[0-9]+}} runs on device {{[0-9]+}}: argument {{[0-9]+}}: the loop touches bytes [-8, {{[0-9]+}}) of a mapped section of {{[0-9]+}} bytes (only reads leave it: a read under a condition

#include <stdio.h>
#include <stdlib.h>

static void step(int n, const double *u, double *v) {
#pragma omp target teams distribute parallel for map(to : u[0 : n]) map(from : v[0 : n])
  for (int i = 0; i < n; i++)
    v[i] = 0.25 * ((i > 0 ? u[i - 1] : 0) + 2 * u[i] + (i < n - 1 ? u[i + 1] : 0));
}

// A 5-point heat step over collapse(2): the row guards bound the reads of the rows above and
// below, the column guards those of the neighbouring columns.
static void heat(int n, const double *u, double *v) {
#pragma omp target teams distribute parallel for collapse(2) map(to : u[0 : n * n]) map(from : v[0 : n * n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double c = u[i * n + j];
      double up = i > 0 ? u[(i - 1) * n + j] : 0, down = i < n - 1 ? u[(i + 1) * n + j] : 0;
      double left = 0, right = 0;
      if (j > 0)
        left = u[i * n + j - 1];
      if (j < n - 1 && j + 1 < n)
        right = u[i * n + j + 1];
      v[i * n + j] = c + 0.1 * (up + down + left + right - 4 * c);
    }
}

// The guard is data: the pass cannot bound the read by it.
static void masked(int n, const double *u, const int *flag, double *v) {
#pragma omp target teams distribute parallel for map(to : u[0 : n], flag[0 : n]) map(from : v[0 : n])
  for (int i = 0; i < n; i++)
    v[i] = flag[i] ? u[i - 1] : u[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096, h = argc > 2 ? atoi(argv[2]) : 300;
  double *u = malloc(sizeof(double) * n), *v = malloc(sizeof(double) * n);
  int *flag = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++)
    u[i] = i % 17, flag[i] = i > 0 && i % 3 == 0;
  step(n, u, v);
  int wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += v[i] != 0.25 * ((i > 0 ? u[i - 1] : 0) + 2 * u[i] + (i < n - 1 ? u[i + 1] : 0));
  printf("step: %d wrong\n", wrong);

  double *hu = malloc(sizeof(double) * h * h), *hv = malloc(sizeof(double) * h * h);
  for (int k = 0; k < h * h; k++)
    hu[k] = (k * 31) % 23, hv[k] = -1;
  heat(h, hu, hv);
  wrong = 0;
  for (int i = 0; i < h; i++)
    for (int j = 0; j < h; j++) {
      double c = hu[i * h + j];
      double up = i > 0 ? hu[(i - 1) * h + j] : 0, down = i < h - 1 ? hu[(i + 1) * h + j] : 0;
      double left = j > 0 ? hu[i * h + j - 1] : 0, right = j < h - 1 ? hu[i * h + j + 1] : 0;
      wrong += hv[i * h + j] != c + 0.1 * (up + down + left + right - 4 * c);
    }
  printf("heat: %d wrong\n", wrong);

  masked(n, u, flag, v);
  wrong = 0;
  for (int i = 0; i < n; i++)
    wrong += v[i] != (flag[i] ? u[i - 1] : u[i]);
  printf("masked: %d wrong\n", wrong);
  return 0;
}
