/* declare target indirect: host function pointers called inside target regions on every GPU.
 * The device runtime translates each host function address into the device function's through
 * the indirect-call table the runtime builds when it loads the image; a pointer chosen on the
 * host, passed in firstprivate or taken on the device, and kept in a mapped array of pointers,
 * must call the right function.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 indirect.c -o indirect
 * Run:   ./indirect
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Unvalidated: written before any GPU run.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: indirect

#include "gpu_test.h"

#define N 1000

typedef double (*op_t)(double);

double twice(double x) { return 2 * x; }
double square(double x) { return x * x; }
double negate(double x) { return -x; }
#pragma omp declare target indirect to(twice, square, negate)

int main(void) {
  if (!gpu_setup(1))
    return 1;
  op_t ops[3] = {twice, square, negate};
  static double out[N];
  int bad = 0;
  for (int g = 0; g < gpu_count; g++) {
    /* A pointer chosen on the host, firstprivate in the region. */
    op_t f = ops[g % 3];
#pragma omp target teams distribute parallel for device(g) map(from : out[0:N])
    for (int i = 0; i < N; i++)
      out[i] = f(i);
    int wrong = 0;
    for (int i = 0; i < N; i++)
      wrong += out[i] != ops[g % 3](i);
    /* An array of pointers mapped to the device, each element called there. */
#pragma omp target teams distribute parallel for device(g) map(to : ops[0:3]) map(from : out[0:N])
    for (int i = 0; i < N; i++)
      out[i] = ops[i % 3](i + 0.5);
    for (int i = 0; i < N; i++)
      wrong += out[i] != ops[i % 3](i + 0.5);
    /* A pointer taken on the device and called there. */
    double r = 0;
#pragma omp target device(g) map(from : r)
    {
      op_t h = &square;
      r = h(7);
    }
    wrong += r != 49;
    if (wrong)
      printf("FAIL device %d: %d wrong values\n", g, wrong);
    bad += wrong != 0;
  }
  printf("%s: indirect on %d GPU(s)\n", bad ? "FAIL" : "PASS", gpu_count);
  return bad != 0;
}
