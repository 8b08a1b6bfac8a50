// Programs built by plain clang-19 (linked against Spread's runtime for its API)
// reach Spread's memory spaces through LD_PRELOAD, or when -lomptarget comes
// before libomp on the link line. When
// libomp precedes Spread in symbol lookup (the runtime only on the library path),
// allocators on Spread's spaces could not reach Spread: the space routines say so
// and return no space instead of handing out allocators libomp would misread.
//
// REQUIRES: spread
// RUN: %clang-offload -O1 -I %S/../../runtime/include %s -L%runtime-libdir -o %t
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAILED
// RUN: not %libpath-run %t 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: %clang-offload -O1 -I %S/../../runtime/include %s -L%runtime-libdir -lomptarget -o %t.first
// RUN: %libpath-run %t.first | FileCheck %s --implicit-check-not=FAILED

#include <omp.h>
#include <spread.h>
#include <stdio.h>

int main(void) {
  int devs[2] = {0, 2};
  omp_allocator_handle_t a = omp_get_devices_and_host_allocator(2, devs, omp_default_mem_space);
  if (a == omp_null_allocator) {
    printf("no allocator\n");
    return 1;
  }
  // ORDER: spread: omp_get_devices_and_host_allocator: libomp's allocator routines come before Spread's in this program's symbol lookup
  // ORDER: no allocator
  int n = 512;
  double *x = omp_alloc(n * sizeof(double), a);
  for (int i = 0; i < n; i++)
    x[i] = i;
  for (int k = 0; k < 2; k++) {
    int d = devs[k];
#pragma omp target teams distribute parallel for device(d)
    for (int i = 0; i < n; i++)
      x[i] = 3 * x[i] + d;
  }
  int ok = 1;
  for (int i = 0; i < n; i++)
    ok &= x[i] == 3 * (3.0 * i + 0) + 2;
  omp_alloctrait_t t[8];
  printf("shared memory: %s\n", ok && spread_get_alloc_traits(x, t, 8) > 0 ? "OK" : "FAILED");
  // CHECK: shared memory: OK
  omp_free(x, a);
  void *p = omp_alloc(100, omp_default_mem_alloc);
  omp_free(p, omp_default_mem_alloc);
  printf("libomp memory: %s\n", p && spread_get_alloc_traits(p, t, 8) < 0 ? "OK" : "FAILED");
  // CHECK: libomp memory: OK
  return 0;
}
