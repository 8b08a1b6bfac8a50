/* target data, target enter/exit data and target update on every GPU: data stays on the device
 * between regions, updates move it both ways, exit data copies back or deletes.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 data_regions.c -o data_regions
 * Run:   ./data_regions
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: data_regions

#include "gpu_test.h"

#define N 100000

int main(void) {
  if (!gpu_setup(1))
    return 1;
  static int a[N], b[N], c[N];
  int bad = 0;
  for (int g = 0; g < gpu_count; g++) {
    int wrong = 0;
    for (int i = 0; i < N; i++)
      a[i] = i, b[i] = -1, c[i] = 7;
    /* structured: a to, b from; two kernels and an update from in between */
#pragma omp target data device(g) map(to : a[0:N]) map(from : b[0:N])
    {
#pragma omp target teams distribute parallel for device(g)
      for (int i = 0; i < N; i++)
        a[i] *= 2; /* device copy only */
#pragma omp target update device(g) from(a[0:N])
      for (int i = 0; i < N; i++)
        wrong += a[i] != 2 * i;
      for (int i = 0; i < N; i++)
        a[i] = 5; /* host copy only: the device keeps 2*i */
#pragma omp target teams distribute parallel for device(g)
      for (int i = 0; i < N; i++)
        b[i] = a[i] + 1;
    }
    for (int i = 0; i < N; i++)
      wrong += b[i] != 2 * i + 1 || a[i] != 5;
    /* unstructured: enter, update to, kernels, exit with from and delete */
#pragma omp target enter data device(g) map(to : c[0:N]) map(alloc : b[0:N])
    for (int i = 0; i < N; i++)
      c[i] = i % 11;
#pragma omp target update device(g) to(c[0:N])
#pragma omp target teams distribute parallel for device(g)
    for (int i = 0; i < N; i++)
      b[i] = 3 * c[i];
    for (int i = 0; i < N; i++)
      b[i] = -2;
#pragma omp target exit data device(g) map(from : b[0:N]) map(delete : c[0:N])
    for (int i = 0; i < N; i++)
      wrong += b[i] != 3 * (i % 11);
    wrong += omp_target_is_present(c, g) != 0 || omp_target_is_present(b, g) != 0;
    if (wrong)
      printf("FAIL device %d: %d wrong values\n", g, wrong);
    bad += wrong != 0;
  }
  printf("%s: data_regions on %d GPU(s)\n", bad ? "FAIL" : "PASS", gpu_count);
  return bad != 0;
}
