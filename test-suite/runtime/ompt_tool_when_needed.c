// Spread's OMPT tool runs only where it acts: with any tool libomp takes its OMPT paths on every
// parallel region, implicit task and barrier (HeCBench's asta, barrier-heavy, ran 1.4x slower
// with it). A program without `nowait` constructs runs without a tool, as on stock; one with
// them (here a `target nowait`, in the program or in a library it links) gets it, so that Spread
// owns its `nowait` work; pinning host devices (SPREAD_HOST_DEVICE_CORES) asks for it too.
// libomp's OMP_TOOL_VERBOSE_INIT log says which. Results are checked against the serial loop.
//
// RUN: %clang-offload -O2 %s -o %t.plain
// RUN: %clang-offload -O2 -DNOWAIT %s -o %t.nowait
// RUN: env OMP_TOOL_VERBOSE_INIT=stdout %libpath-run %t.plain | FileCheck %s --check-prefixes=CHECK,NONE
// RUN: env OMP_TOOL_VERBOSE_INIT=stdout %preload-run %t.plain | FileCheck %s --check-prefixes=CHECK,NONE
// RUN: env OMP_TOOL_VERBOSE_INIT=stdout %libpath-run %t.nowait | FileCheck %s --check-prefixes=CHECK,TOOL
// RUN: env OMP_TOOL_VERBOSE_INIT=stdout %preload-run %t.nowait | FileCheck %s --check-prefixes=CHECK,TOOL
// RUN: env OMP_TOOL_VERBOSE_INIT=stdout SPREAD_HOST_DEVICE_CORES=0 %libpath-run %t.plain | FileCheck %s --check-prefixes=CHECK,TOOL
//
// The `nowait` construct in a shared library the program links:
// RUN: %clang-offload -O2 -DNOWAIT -DLIBRARY -fPIC -shared %s -o %t.lib.so
// RUN: %clang-offload -O2 -DMAIN_ONLY %s %t.lib.so -Wl,-rpath,%T -o %t.main
// RUN: env OMP_TOOL_VERBOSE_INIT=stdout %libpath-run %t.main | FileCheck %s --check-prefixes=CHECK,TOOL
//
// NONE: Search for OMP tool in current address space... Failed.
// TOOL: Search for OMP tool in current address space... Success.
// CHECK: result ok
#include <stdio.h>

#define N 100000

#ifndef MAIN_ONLY
int scale(double *x, int n) {
#ifdef NOWAIT
#pragma omp target teams distribute parallel for map(tofrom : x[0 : n]) nowait
  for (int i = 0; i < n; i++)
    x[i] = 2 * x[i] + 1;
#pragma omp taskwait
#else
#pragma omp target teams distribute parallel for map(tofrom : x[0 : n])
  for (int i = 0; i < n; i++)
    x[i] = 2 * x[i] + 1;
#endif
  return 0;
}
#else
int scale(double *x, int n);
#endif

#ifndef LIBRARY
int main(void) {
  static double x[N];
  for (int i = 0; i < N; i++)
    x[i] = i;
  for (int round = 0; round < 3; round++)
    scale(x, N);
  for (int i = 0; i < N; i++) {
    double want = i;
    for (int round = 0; round < 3; round++)
      want = 2 * want + 1;
    if (x[i] != want) {
      printf("FAIL x[%d] = %g, expected %g\n", i, x[i], want);
      return 1;
    }
  }
  printf("result ok\n");
  return 0;
}
#endif
