// A Spread clause on a 'target' directive without 'spread' is an error naming the construct it
// needs: clang would ignore it, and every clause after it, with a warning. A misspelt or
// misplaced 'spread' elsewhere in the directive is named too.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace %s
// The same words inside clauses are the program's.
// RUN: %spread-cc -DVALID -fsyntax-only %s 2>&1 | FileCheck --allow-empty --check-prefix=VALID %s
// VALID-NOT: error:
// VALID-NOT: warning:

void f(int n, double *a, double *devices, double *range) {
#ifdef VALID
  int chunk_size = 4;
#pragma omp target teams distribute parallel for map(tofrom: devices[0:n], range[0:n]) firstprivate(chunk_size)
  for (int i = 0; i < n; i++) devices[i] = range[i] * chunk_size;
#else
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:50: error: the 'devices' clause needs 'target spread' (clang would ignore it and everything after it on 'target teams distribute parallel for'){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target teams distribute parallel for devices(0, 1) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                                                  ^{{$}}
#pragma omp target teams distribute parallel for devices(0, 1) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:40: error: the 'spread_schedule' clause needs 'target spread' (clang would ignore it and everything after it on 'target parallel for'){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target parallel for nowait spread_schedule(dynamic, 8){{$}}
// CHECK-NEXT: {{^}}      |                                        ^{{$}}
#pragma omp target parallel for nowait spread_schedule(dynamic, 8)
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:45: error: the 'range' clause needs 'target data spread' (clang would ignore it and everything after it on 'target data'){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target data map(tofrom: a[0:n]) range(0:n) devices(0, 1){{$}}
// CHECK-NEXT: {{^}}      |                                             ^{{$}}
#pragma omp target data map(tofrom: a[0:n]) range(0:n) devices(0, 1)
  { a[0] = 1; }
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:47: error: the 'chunk_size' clause needs 'target enter data spread' (clang would ignore it and everything after it on 'target enter data'){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target enter data map(to: a[0:n]) chunk_size(4){{$}}
// CHECK-NEXT: {{^}}      |                                               ^{{$}}
#pragma omp target enter data map(to: a[0:n]) chunk_size(4)
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:27: error: the 'devices' clause needs 'target update spread' (clang would ignore it and everything after it on 'target update'){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update devices(0, 1) range(0:n) from(a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                           ^{{$}}
#pragma omp target update devices(0, 1) range(0:n) from(a[0:n])
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:38: error: the 'to_device' clause needs 'target update peer' (clang would ignore it and everything after it on 'target update'){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update to(a[0:n]) to_device(1) from(a[0:n]) from_device(0){{$}}
// CHECK-NEXT: {{^}}      |                                      ^{{$}}
#pragma omp target update to(a[0:n]) to_device(1) from(a[0:n]) from_device(0)
// A misspelt 'spread' that is not right after 'target' is named with the clause.
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:48: error: the 'devices' clause needs 'target spread' (clang would ignore it and everything after it on 'target teams'); did you mean 'spread' instead of 'sprad'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target teams sprad distribute simd devices(0){{$}}
// CHECK-NEXT: {{^}}      |                                                ^{{$}}
#pragma omp target teams sprad distribute simd devices(0)
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_spread_clause_plain.c:[[@LINE+3]]:26: error: 'spread' must come right after 'target' (clang would ignore it and everything after it){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target teams spread distribute parallel for devices(0){{$}}
// CHECK-NEXT: {{^}}      |                          ^{{$}}
#pragma omp target teams spread distribute parallel for devices(0)
  for (int i = 0; i < n; i++) a[i] = 0;
#endif
}
// CHECK: {{^}}8 errors generated.{{$}}
