/* declare target globals and functions on every GPU: each device has its own copy, updated to
 * and from the host with target update.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 declare_target.c -o declare_target
 * Run:   ./declare_target
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: declare_target

#include "gpu_test.h"

#define N 4096

#pragma omp declare target
int table[N];
double coef = 1.0;
long counter;
static double apply(int i) { return coef * table[i] + i; }
#pragma omp end declare target

int main(void) {
  if (!gpu_setup(1))
    return 1;
  static double out[N];
  int bad = 0;
  for (int g = 0; g < gpu_count; g++) {
    for (int i = 0; i < N; i++)
      table[i] = (i * 7 + g) % 100;
    coef = 0.25 * (g + 1);
    counter = 0;
#pragma omp target update device(g) to(table, coef, counter)
#pragma omp target teams distribute parallel for device(g) map(from : out[0:N])
    for (int i = 0; i < N; i++)
      out[i] = apply(i);
#pragma omp target device(g)
    {
      counter = 1000 + g;
      table[0] = -5;
    }
    int wrong = counter != 0 || table[0] != g % 100; /* host copies unchanged */
#pragma omp target update device(g) from(counter, table)
    wrong += counter != 1000 + g || table[0] != -5;
    for (int i = 0; i < N; i++)
      wrong += out[i] != 0.25 * (g + 1) * ((i * 7 + g) % 100) + i;
    if (wrong)
      printf("FAIL device %d: %d wrong values\n", g, wrong);
    bad += wrong != 0;
  }
  printf("%s: declare_target on %d GPU(s)\n", bad ? "FAIL" : "PASS", gpu_count);
  return bad != 0;
}
