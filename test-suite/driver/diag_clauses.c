// Malformed clauses on 'target spread': clang-style errors at the user's line and column,
// with the source line and a caret; nothing is compiled.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

#define SCHED guided
void f(int n, int *a) {
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:27: error: the 'device' clause cannot be used on 'target spread'; use 'devices' to list the devices{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread device(1){{$}}
// ERR-NEXT: {{^}}      |                           ^{{$}}
#pragma omp target spread device(1)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:35: error: the 'devices' clause needs at least one device number{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(){{$}}
// ERR-NEXT: {{^}}      |                                   ^{{$}}
#pragma omp target spread devices()
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:37: error: expected a device number in 'devices'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(1,,2){{$}}
// ERR-NEXT: {{^}}      |                                     ^{{$}}
#pragma omp target spread devices(1,,2)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+5]]:25: error: spread schedule kind 'guided' is not supported; use 'static', 'dynamic' or 'adaptive'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+4]] |         spread_schedule(SCHED, 4) num_teams(2){{$}}
// ERR-NEXT: {{^}}      |                         ^{{$}}
#pragma omp target spread teams distribute parallel for \
        devices(0, 1) \
        spread_schedule(SCHED, 4) num_teams(2)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:38: error: unknown clause 'bogus' on 'target spread'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(0) bogus(3){{$}}
// ERR-NEXT: {{^}}      |                                      ^{{$}}
#pragma omp target spread devices(0) bogus(3)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:51: error: clause 'num_teams' is not allowed on 'target spread parallel for'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread parallel for devices(0) num_teams(2){{$}}
// ERR-NEXT: {{^}}      |                                                   ^{{$}}
#pragma omp target spread parallel for devices(0) num_teams(2)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:38: error: the 'devices' clause can appear only once on 'target spread'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(0) devices(1){{$}}
// ERR-NEXT: {{^}}      |                                      ^{{$}}
#pragma omp target spread devices(0) devices(1)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:35: error: 'omp_spread_start' cannot be used in the 'devices' clause; it only has a value inside each chunk{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(omp_spread_start){{$}}
// ERR-NEXT: {{^}}      |                                   ^{{$}}
#pragma omp target spread devices(omp_spread_start)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:27: error: 'range' cannot be used on 'target spread': the iteration range is the loop's{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread range(0:n){{$}}
// ERR-NEXT: {{^}}      |                           ^{{$}}
#pragma omp target spread range(0:n)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:27: error: 'chunk_size' cannot be used on 'target spread'; use 'spread_schedule(static, chunk)'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread chunk_size(4){{$}}
// ERR-NEXT: {{^}}      |                           ^{{$}}
#pragma omp target spread chunk_size(4)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:27: error: 'target spread teams' is not supported; 'target spread' combines with 'teams distribute [parallel for] [simd]', 'parallel for [simd]', 'simd', 'teams loop' and 'parallel loop'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread teams devices(0){{$}}
// ERR-NEXT: {{^}}      |                           ^{{$}}
#pragma omp target spread teams devices(0)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:52: error: 'spread_schedule' takes a kind and at most one chunk size{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread spread_schedule(static, 4, 2){{$}}
// ERR-NEXT: {{^}}      |                                                    ^{{$}}
#pragma omp target spread spread_schedule(static, 4, 2)
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:34: error: expected '(' after 'devices'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices{{$}}
// ERR-NEXT: {{^}}      |                                  ^{{$}}
#pragma omp target spread devices
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_clauses.c:[[@LINE+3]]:34: error: expected ')' to end the 'devices' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(0{{$}}
// ERR-NEXT: {{^}}      |                                  ^{{$}}
#pragma omp target spread devices(0
  for (int i = 0; i < n; i++) a[i] = 0;
}
// ERR: {{^}}14 errors generated.{{$}}
