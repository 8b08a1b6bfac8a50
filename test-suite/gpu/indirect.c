/* declare target indirect: host function pointers called inside target regions on every GPU.
 * A pointer captured by a region is translated by the runtime on the way in (the indirect
 * functions are in its mapping table); a pointer loaded from mapped memory is a host address,
 * which the device runtime translates through the indirect-call table the runtime builds when it
 * loads the image (`__llvm_omp_indirect_call_lookup`). Clang 19 does not call that lookup for
 * calls through pointers (checked on an H200: calling a mapped pointer directly is an illegal
 * address), so the program calls it, as LLVM 19's own tests do; on host devices a host address
 * is the function. A pointer taken on the device is called directly.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 indirect.c -o indirect
 * Run:   ./indirect
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: indirect

#include "gpu_test.h"

#define N 1000

typedef double (*op_t)(double);

/* The device runtime's translation of a host function address (identity on host devices). */
#pragma omp begin declare variant match(device = {kind(gpu)})
void *__llvm_omp_indirect_call_lookup(void *host_ptr);
#pragma omp declare target to(__llvm_omp_indirect_call_lookup) device_type(nohost)
#pragma omp end declare variant
#pragma omp begin declare variant match(device = {kind(cpu)})
static void *__llvm_omp_indirect_call_lookup(void *host_ptr) { return host_ptr; }
#pragma omp end declare variant

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
      out[i] = ((op_t)__llvm_omp_indirect_call_lookup((void *)ops[i % 3]))(i + 0.5);
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
