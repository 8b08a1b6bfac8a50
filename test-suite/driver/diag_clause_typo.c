// An unknown clause on a Spread construct that misspells one of the construct's clauses (or
// one of Spread's) gets "did you mean", on every family the driver parses: target spread, the
// spread data constructs, target update peer, wait, target device(any) and its construct-sets,
// and teams with compute units.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace %s

void f(int n, double *a, double *b) {
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:57: error: unknown clause 'devcies' on 'target spread teams distribute parallel for'; did you mean 'devices'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread teams distribute parallel for devcies(0, 1) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                                                         ^{{$}}
#pragma omp target spread teams distribute parallel for devcies(0, 1) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:54: error: unknown clause 'spread_schedul' on 'target spread parallel for'; did you mean 'spread_schedule'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread parallel for devices(0, 1) spread_schedul(static, 4){{$}}
// CHECK-NEXT: {{^}}      |                                                      ^{{$}}
#pragma omp target spread parallel for devices(0, 1) spread_schedul(static, 4)
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:41: error: unknown clause 'Devices' on 'target spread'; did you mean 'devices'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(0, 1) Devices(2){{$}}
// CHECK-NEXT: {{^}}      |                                         ^{{$}}
#pragma omp target spread devices(0, 1) Devices(2)
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:46: error: unknown clause 'rnage' on 'target data spread'; did you mean 'range'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target data spread devices(0, 1) rnage(0:n) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                                              ^{{$}}
#pragma omp target data spread devices(0, 1) rnage(0:n) map(tofrom: a[0:n])
  { a[0] = 1; }
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:63: error: unknown clause 'chunksize' on 'target enter data spread'; did you mean 'chunk_size'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target enter data spread devices(0, 1) range(0:n) chunksize(4) map(to: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                                                               ^{{$}}
#pragma omp target enter data spread devices(0, 1) range(0:n) chunksize(4) map(to: a[0:n])
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:80: error: unknown clause 'chunk_sise' on 'target exit data spread'; did you mean 'chunk_size'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target exit data spread devices(0, 1) range(0:n) map(from: a[0:n]) chunk_sise(4){{$}}
// CHECK-NEXT: {{^}}      |                                                                                ^{{$}}
#pragma omp target exit data spread devices(0, 1) range(0:n) map(from: a[0:n]) chunk_sise(4)
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:73: error: unknown clause 'form' on 'target update spread'; did you mean 'from'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update spread devices(0, 1) range(0:n) chunk_size(4) form(a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                                                                         ^{{$}}
#pragma omp target update spread devices(0, 1) range(0:n) chunk_size(4) form(a[0:n])
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:43: error: unknown clause 'to_devcie' on 'target update peer'; did you mean 'to_device'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_devcie(1) from(b[0:n]) from_device(0){{$}}
// CHECK-NEXT: {{^}}      |                                           ^{{$}}
#pragma omp target update peer to(a[0:n]) to_devcie(1) from(b[0:n]) from_device(0)
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:18: error: unknown clause 'devcie' on 'wait'; did you mean 'device'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait devcie(1){{$}}
// CHECK-NEXT: {{^}}      |                  ^{{$}}
#pragma omp wait devcie(1)
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:32: error: unknown clause 'resource' on 'target device(any)'; did you mean 'resources'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target device(any) resource(2) map(tofrom: a[0:n]){{$}}
// CHECK-NEXT: {{^}}      |                                ^{{$}}
#pragma omp target device(any) resource(2) map(tofrom: a[0:n])
  a[0] = 1;
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:80: error: unknown clause 'resource' in the construct-set of 'if_device(nvidia)'; did you mean 'resources'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target device(any) if_device(nvidia) teams distribute parallel for resource(3){{$}}
// CHECK-NEXT: {{^}}      |                                                                                ^{{$}}
#pragma omp target device(any) if_device(nvidia) teams distribute parallel for resource(3)
  for (int i = 0; i < n; i++) a[i] = 0;
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:49: error: unknown clause 'dist_schedul' on 'teams distribute' with compute units; did you mean 'dist_schedule'?{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp teams distribute num_teams(2:CPU:2) dist_schedul(static){{$}}
// CHECK-NEXT: {{^}}      |                                                 ^{{$}}
#pragma omp teams distribute num_teams(2:CPU:2) dist_schedul(static)
  for (int i = 0; i < n; i++) a[i] = 0;
// A word that misspells no clause gets no suggestion.
// CHECK: {{^.*}}diag_clause_typo.c:[[@LINE+3]]:38: error: unknown clause 'bogus' on 'target spread'{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(0) bogus(3){{$}}
// CHECK-NEXT: {{^}}      |                                      ^{{$}}
#pragma omp target spread devices(0) bogus(3)
  for (int i = 0; i < n; i++) a[i] = 0;
}
// CHECK: {{^}}13 errors generated.{{$}}
