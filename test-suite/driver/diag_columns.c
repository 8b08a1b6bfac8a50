// clang's diagnostics on the lines the driver rewrites (the pragma, the loop header, the
// construct's last line) point at the user's own line and column and quote the user's line, not
// the generated code: errors in a map clause (also on a continued pragma line), in the loop body
// on the header's line, in a devices expression, and a warning.
// RUN: not %spread-cc -fno-color-diagnostics -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace %s
// CHECK-NOT: __spread

struct S { int x; };

void f(int n, double *A, struct S s) {
// CHECK: {{^}}{{.*}}diag_columns.c:[[@LINE+3]]:82: error: expression must have integral or unscoped enumeration type, not 'struct S'{{$}}
// CHECK-NEXT: {{^}}{{ +}}[[@LINE+2]] | #pragma omp target spread teams distribute parallel for devices(0) map(tofrom: A[s:n]){{$}}
// CHECK-NEXT: {{^}}      |                                                                                  ^{{$}}
#pragma omp target spread teams distribute parallel for devices(0) map(tofrom: A[s:n])
  for (int i = 0; i < n; i++) A[i] = i;
// CHECK: {{^}}{{.*}}diag_columns.c:[[@LINE+4]]:36: error: assigning to 'double' from incompatible type 'struct S'{{$}}
// CHECK-NEXT: {{^}}{{ +}}[[@LINE+3]] |   for (int i = 0; i < n; i++) A[i] = s;{{$}}
// CHECK-NEXT: {{^}}      |                                    ^ ~{{$}}
#pragma omp target spread parallel for devices(0) map(tofrom: A[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) A[i] = s;
// CHECK: {{^}}{{.*}}diag_columns.c:[[@LINE+4]]:17: error: use of undeclared identifier 'undeclared_len'{{$}}
// CHECK-NEXT: {{^}}{{ +}}[[@LINE+3]] |     map(to: A[0:undeclared_len]){{$}}
// CHECK-NEXT: {{^}}      |                 ^{{$}}
#pragma omp target spread devices(0) \
    map(to: A[0:undeclared_len])
  for (int i = 0; i < n; i++) A[i] = i;
// CHECK: {{^}}{{.*}}diag_columns.c:[[@LINE+3]]:35: error: use of undeclared identifier 'undeclared_dev'{{$}}
// CHECK-NEXT: {{^}}{{ +}}[[@LINE+2]] | #pragma omp target spread devices(undeclared_dev) map(tofrom: A[omp_spread_start:omp_spread_size]){{$}}
// CHECK-NEXT: {{^}}      |                                   ^{{$}}
#pragma omp target spread devices(undeclared_dev) map(tofrom: A[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) A[i] = i;
// CHECK: {{^}}{{.*}}diag_columns.c:[[@LINE+8]]:45: warning: equality comparison result unused [-Wunused-comparison]{{$}}
// CHECK-NEXT: {{^}}{{ +}}[[@LINE+7]] |   for (int i = 0; i < n; i++) { A[i] = i; i == 2; }{{$}}
// CHECK-NEXT: {{^}}      |                                             ^~~~{{$}}
// CHECK: {{^}}{{.*}}diag_columns.c:[[@LINE+5]]:45: note: use '=' to turn this equality comparison into an assignment{{$}}
// CHECK-NEXT: {{^}}{{ +}}[[@LINE+4]] |   for (int i = 0; i < n; i++) { A[i] = i; i == 2; }{{$}}
// CHECK-NEXT: {{^}}      |                                             ^~{{$}}
// CHECK-NEXT: {{^}}      |                                             ={{$}}
#pragma omp target spread devices(0) map(tofrom: A[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) { A[i] = i; i == 2; }
}
