// A heat-equation step whose halo reads are guarded (`i > 0 ? u[i-1] : 0`): the pass cannot see
// the guard and counts u[i-1] for every iteration, so at run time the loop seems to read before
// the mapped section and SPREAD_AUTO leaves the launch on its device. The reason says so: only
// reads leave the section, most likely a guarded read, and it names the array as the program
// wrote it where the build has debug info (-g: the map's name string), else by its number. The
// result is the serial loop's either way.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -g -fpass-plugin=%spread-pass %s -o %t.g
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.g 2>%t.g.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=G %s < %t.g.info
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=NOG %s < %t.info
//
// CHECK: results: 0 wrong
// G: kernel {{.*}}_step_l{{[0-9]+}} runs on device {{[0-9]+}}: argument {{[0-9]+}} ('u[0:n]' (declared at {{.*}}guarded_read.c:{{[0-9]+}}:{{[0-9]+}})): the loop touches bytes [-8, {{[0-9]+}}) of a mapped section of {{[0-9]+}} bytes (only reads leave it: a read under a condition
// NOG: kernel {{.*}}_step_l{{[0-9]+}} runs on device {{[0-9]+}}: argument {{[0-9]+}}: the loop touches bytes [-8, {{[0-9]+}}) of a mapped section of {{[0-9]+}} bytes (only reads leave it: a read under a condition

#include <stdio.h>

#define N 4096

static void step(int n, const double *u, double *v) {
#pragma omp target teams distribute parallel for map(to : u[0 : n]) map(from : v[0 : n])
  for (int i = 0; i < n; i++)
    v[i] = 0.25 * ((i > 0 ? u[i - 1] : 0) + 2 * u[i] + (i < n - 1 ? u[i + 1] : 0));
}

int main(void) {
  static double u[N], v[N];
  for (int i = 0; i < N; i++)
    u[i] = i % 17;
  step(N, u, v);
  int wrong = 0;
  for (int i = 0; i < N; i++) {
    double want = 0.25 * ((i > 0 ? u[i - 1] : 0) + 2 * u[i] + (i < N - 1 ? u[i + 1] : 0));
    wrong += v[i] != want;
  }
  printf("results: %d wrong\n", wrong);
  return wrong != 0;
}
