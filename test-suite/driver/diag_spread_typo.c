// A misspelt 'spread' right after 'target', 'target data', 'target enter data',
// 'target exit data' or 'target update' is an error with "did you mean 'spread'?": clang would
// only warn and run the construct on one device without any of its clauses.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace %s
// Words clang takes after 'target' are left alone (plain_openmp.c and the unit tests of
// plain_target.rs check the others).
// RUN: %spread-cc -DVALID -fsyntax-only %s 2>&1 | FileCheck --allow-empty --check-prefix=VALID %s
// VALID-NOT: error:
// VALID-NOT: warning:

void f(int n, double *a) {
#ifdef VALID
#pragma omp target teams distribute parallel for map(tofrom: a[0:n]) device(0) nowait
  for (int i = 0; i < n; i++) a[i] = 0;
#pragma omp target data map(tofrom: a[0:n]) if(n > 0)
  {
#pragma omp target update to(a[0:n])
  }
#pragma omp target enter data map(to: a[0:n])
#pragma omp target exit data map(delete: a[0:n])
#pragma omp target simd defaultmap(tofrom: scalar) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] = 1;
#pragma omp target parallel proc_bind(spread) map(tofrom: a[0:1])
  a[0] = 2;
#else
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:20: error: unknown word 'sprad' after 'target' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target sprad teams distribute parallel for devices(0, 1) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                    ^{{$}}
#pragma omp target sprad teams distribute parallel for devices(0, 1) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:20: error: unknown word 'Spread' after 'target' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target Spread parallel for devices(0){{$}}
// CHECK-NEXT: {{^}}      |                    ^{{$}}
#pragma omp target Spread parallel for devices(0)
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:20: error: unknown word 'spraed' after 'target' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spraed{{$}}
// CHECK-NEXT: {{^}}      |                    ^{{$}}
#pragma omp target spraed
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:25: error: unknown word 'sperad' after 'target data' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target data sperad devices(0, 1) range(0:n) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                         ^{{$}}
#pragma omp target data sperad devices(0, 1) range(0:n) map(tofrom: a[0:n])
  { a[0] = 1; }
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:31: error: unknown word 'spred' after 'target enter data' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target enter data spred devices(0, 1) range(0:n) map(to: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                               ^{{$}}
#pragma omp target enter data spred devices(0, 1) range(0:n) map(to: a[0:n])
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:30: error: unknown word 'spreads' after 'target exit data' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target exit data spreads devices(0, 1) range(0:n) map(from: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                              ^{{$}}
#pragma omp target exit data spreads devices(0, 1) range(0:n) map(from: a[0:n])
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:27: error: unknown word 'sprad' after 'target update' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update sprad devices(0, 1) range(0:n) to(a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                           ^{{$}}
#pragma omp target update sprad devices(0, 1) range(0:n) to(a[0:n])
// Through a macro, the error points at the macro's use.
#define SPREAD_LOOP _Pragma("omp target sprad parallel for devices(0)")
// CHECK: {{^.*}}diag_spread_typo.c:[[@LINE+3]]:3: error: unknown word 'sprad' after 'target' (clang would ignore it and everything after it); did you mean 'spread'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] |   SPREAD_LOOP{{$}}
// CHECK-NEXT: {{^}}      |   ^{{$}}
  SPREAD_LOOP
  for (int i = 0; i < n; i++) a[i] = 0;
#endif
}
// CHECK: {{^}}8 errors generated.{{$}}
