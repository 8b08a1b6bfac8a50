// reduction on 'target spread': what the driver rejects, at the user's line and column. Only
// plain scalar variables with an OpenMP operator can be reduced across devices; plain 'target
// spread' (no teams/parallel/simd/loop) has no reduction clause; the body must use the
// variable itself (it becomes the device's partial). Reductions on plain (non-spread)
// constructs are clang's and keep working.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s
// RUN: not %spread-cc -DTYPE -c %s -o %t.o 2>&1 | FileCheck --check-prefix=TYPE %s
// RUN: %spread-cc -DGOOD %s -o %t.good
// RUN: %t.good | FileCheck --check-prefix=GOOD %s
// ERR-NOT: panicked

#include <stdio.h>

#if defined(GOOD)
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
#elif defined(TYPE)
struct pair { int a, b; };
int g(int n, struct pair p) {
// TYPE: diag_reduction.c:[[@LINE+1]]:{{[0-9]+}}: error: static assertion failed {{.*}}: reduction variable 'p' of 'target spread parallel for' must have an arithmetic type (char, short, int, long, long long, their unsigned forms, float or double)
#pragma omp target spread parallel for reduction(+: p)
  for (int i = 0; i < n; i++)
    p.a += i;
  return p.a;
}
#else
struct pt { double x; };
double f(int n, double *a, struct pt p) {
  double s = 0;
  int m = 0;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+3]]:70: error: only variables can be reduced on 'target spread teams distribute parallel for', not 'a[0:n]' (array sections, array elements and members are not supported){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread teams distribute parallel for reduction(+: a[0:n]) map(to: a[omp_spread_start:omp_spread_size]){{$}}
// ERR-NEXT: {{^}}      |                                                                      ^{{$}}
#pragma omp target spread teams distribute parallel for reduction(+: a[0:n]) map(to: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++)
    s += a[i];
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:53: error: only variables can be reduced on 'target spread parallel for', not 'p.x' (array sections, array elements and members are not supported){{$}}
#pragma omp target spread parallel for reduction(+: p.x)
  for (int i = 0; i < n; i++)
    p.x += 1;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:55: error: user-defined reduction 'merge' is not supported on 'target spread parallel for simd'; use one of + - * max min & | ^ && ||{{$}}
#pragma omp target spread parallel for simd reduction(merge: s)
  for (int i = 0; i < n; i++)
    s += 1;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:27: error: 'reduction' cannot be used on 'target spread' alone: combine it with 'teams distribute', 'parallel for', 'simd' or 'loop' (plain 'target' has no reduction clause){{$}}
#pragma omp target spread reduction(+: s)
  for (int i = 0; i < n; i++)
    s += 1;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:72: error: 's' appears in more than one reduction list of 'target spread teams loop'{{$}}
#pragma omp target spread teams loop reduction(+: s, m) reduction(max: s)
  for (int i = 0; i < n; i++)
    s += 1;
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:50: error: the reduction modifier 'inscan' is not supported on 'target spread parallel for'{{$}}
#pragma omp target spread parallel for reduction(inscan, +: s)
  for (int i = 0; i < n; i++)
    s += 1;
#pragma omp target spread parallel for reduction(+: s)
  for (int i = 0; i < n; i++) {
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:12: error: reduction variable 's' is redeclared in the loop body of 'target spread parallel for'; rename the inner variable{{$}}
    double s = a[i];
    a[i] = s;
  }
#pragma omp target spread parallel for reduction(+: m)
  for (int i = 0; i < n; i++) {
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:16: error: reduction variable 'm' is redeclared in the loop body of 'target spread parallel for'; rename the inner variable{{$}}
    int k = 1, m;
    m = k;
    a[i] = m;
  }
#pragma omp target spread parallel for reduction(+: s)
  for (int i = 0; i < n; i++) {
// ERR: {{^.*}}diag_reduction.c:[[@LINE+1]]:31: error: reduction variable 's' of 'target spread parallel for' cannot be named in a directive inside its loop body{{$}}
#pragma omp simd reduction(+: s)
    for (int j = 0; j < 4; j++)
      s += a[j];
  }
// With nowait, one task runs the construct and takes its depend clauses: they cannot name a chunk.
// ERR: {{^.*}}diag_reduction.c:[[@LINE+3]]:69: error: per-chunk depend clauses cannot be combined with reduction and nowait on 'target spread parallel for': this 'depend' uses 'omp_spread_start', which only has a value inside each chunk{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread parallel for reduction(+: s) depend(in: a[omp_spread_start]) nowait{{$}}
// ERR-NEXT: {{^}}      |                                                                     ^{{$}}
#pragma omp target spread parallel for reduction(+: s) depend(in: a[omp_spread_start]) nowait
  for (int i = 0; i < n; i++)
    s += a[i];
  return s + m + p.x;
}
// ERR: 10 errors generated.
#endif
