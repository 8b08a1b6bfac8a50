// A reduction clause on 'target spread' (any combined form) would reduce into each device's
// own copy and never combine the devices' partial results: it is an error until cross-device
// reductions exist. Reductions on plain (non-spread) constructs are clang's and keep working.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s
// RUN: %spread-cc -DGOOD %s -o %t.good
// RUN: %t.good | FileCheck --check-prefix=GOOD %s
// ERR-NOT: panicked

#include <stdio.h>

#ifdef GOOD
int main(void) {
  double a[1000], s = 0, ref = 0;
  for (int i = 0; i < 1000; i++) {
    a[i] = i * 0.5;
    ref += a[i];
  }
#pragma omp target teams distribute parallel for reduction(+: s) map(to: a[0:1000]) map(tofrom: s)
  for (int i = 0; i < 1000; i++)
    s += a[i];
  // GOOD: sum ok
  printf("sum %s\n", s == ref ? "ok" : "FAIL");
  return s != ref;
}
#else
double f(int n, double *a) {
  double s = 0;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+3]]:57: error: reduction on a target spread construct is not supported yet ('target spread teams distribute parallel for'){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread teams distribute parallel for reduction(+: s) map(to: a[omp_spread_start:omp_spread_size]){{$}}
// ERR-NEXT: {{^}}      |                                                         ^{{$}}
#pragma omp target spread teams distribute parallel for reduction(+: s) map(to: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++)
    s += a[i];
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:{{[0-9]+}}: error: reduction on a target spread construct is not supported yet ('target spread parallel for simd'){{$}}
#pragma omp target spread parallel for simd devices(0, 1) reduction(max: s) map(to: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++)
    s = a[i] > s ? a[i] : s;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:{{[0-9]+}}: error: reduction on a target spread construct is not supported yet ('target spread'){{$}}
#pragma omp target spread reduction(+: s)
  for (int i = 0; i < n; i++)
    s += 1;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:{{[0-9]+}}: error: reduction on a target spread construct is not supported yet ('target spread teams loop'){{$}}
#pragma omp target spread teams loop reduction(+: s)
  for (int i = 0; i < n; i++)
    s += 1;
  return s;
}
// ERR: 4 errors generated.
#endif
