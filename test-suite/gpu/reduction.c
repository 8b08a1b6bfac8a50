/* Reductions inside one target region on every GPU: +, max and a two-variable reduction over
 * teams distribute parallel for, equal to the serial values (integers and exactly representable
 * doubles, so the order of the partial sums does not matter).
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 reduction.c -o reduction
 * Run:   ./reduction
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: reduction

#include "gpu_test.h"

#define N 3000000

int main(void) {
  if (!gpu_setup(1))
    return 1;
  int bad = 0;
  long ref_sum = 0, ref_max = 0;
  double ref_dsum = 0;
  for (int g = 0; g < gpu_count; g++) {
    ref_sum = 0, ref_max = 0, ref_dsum = 0;
    for (long i = 0; i < N; i++) {
      long v = (i * 37 + g) % 1001;
      ref_sum += v;
      ref_max = v * (i % 5) > ref_max ? v * (i % 5) : ref_max;
      ref_dsum += 0.5 * (i % 64);
    }
    long sum = 0, max = 0;
    double dsum = 0;
#pragma omp target teams distribute parallel for device(g) map(tofrom : sum, max, dsum)       \
    reduction(+ : sum, dsum) reduction(max : max)
    for (long i = 0; i < N; i++) {
      long v = (i * 37 + g) % 1001;
      sum += v;
      max = v * (i % 5) > max ? v * (i % 5) : max;
      dsum += 0.5 * (i % 64);
    }
    int wrong = sum != ref_sum || max != ref_max || dsum != ref_dsum;
    if (wrong)
      printf("FAIL device %d: sum %ld (%ld), max %ld (%ld), dsum %.1f (%.1f)\n", g, sum, ref_sum,
             max, ref_max, dsum, ref_dsum);
    bad += wrong;
  }
  printf("%s: reduction on %d GPU(s)\n", bad ? "FAIL" : "PASS", gpu_count);
  return bad != 0;
}
