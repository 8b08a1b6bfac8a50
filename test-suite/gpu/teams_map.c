/* target teams distribute parallel for with map(to/from/tofrom) on every GPU.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 teams_map.c -o teams_map
 * Run:   ./teams_map
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: teams_map

#include "gpu_test.h"

#define N (1 << 20)

int main(void) {
  if (!gpu_setup(1))
    return 1;
  double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c),
         *d = malloc(N * sizeof *d);
  int bad = 0;
  for (int g = 0; g < gpu_count; g++) {
    for (int i = 0; i < N; i++) {
      a[i] = i % 1000;
      b[i] = g + 0.5;
      c[i] = -1;
      d[i] = i % 3;
    }
    double s = 2.0;
    int kind = -1;
#pragma omp target teams distribute parallel for device(g) map(to : a[0:N], b[0:N], s)       \
    map(from : c[0:N]) map(tofrom : d[0:N]) map(tofrom : kind)
    for (int i = 0; i < N; i++) {
      c[i] = a[i] * b[i];
      d[i] += s * a[i];
      if (i == 0)
        kind = ON_GPU;
    }
    int wrong = kind != expected_kind(g);
    for (int i = 0; i < N; i++)
      wrong += c[i] != (i % 1000) * (g + 0.5) || d[i] != i % 3 + 2.0 * (i % 1000);
    if (wrong)
      printf("FAIL device %d: %d wrong values (kind %d)\n", g, wrong, kind);
    bad += wrong != 0;
  }
  printf("%s: teams_map on %d GPU(s)\n", bad ? "FAIL" : "PASS", gpu_count);
  free(a), free(b), free(c), free(d);
  return bad != 0;
}
