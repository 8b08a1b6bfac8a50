// Malformed '#pragma omp wait device(d)' directives: clang-style errors at the user's line
// and column, with the source line and a caret; nothing is compiled (and clang, which does
// not know 'omp wait', never sees them).
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

#define STR(x) #x
#define WAIT(x) _Pragma(STR(omp wait x))
#define NO_DEVICE
void f(int n, int *a) {
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:13: error: 'wait' requires a 'device' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait{{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp wait
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:25: error: expected a device number in 'device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device(){{$}}
// ERR-NEXT: {{^}}      |                         ^{{$}}
#pragma omp wait device()
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:3: error: expected a device number in 'device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] |   WAIT(device(NO_DEVICE)){{$}}
// ERR-NEXT: {{^}}      |   ^{{$}}
  WAIT(device(NO_DEVICE))
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:26: error: 'device' takes one device number; write one 'wait' per device{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device(0, 1){{$}}
// ERR-NEXT: {{^}}      |                          ^{{$}}
#pragma omp wait device(0, 1)
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:28: error: the 'device' clause can appear only once on 'wait'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device(0) device(1){{$}}
// ERR-NEXT: {{^}}      |                            ^{{$}}
#pragma omp wait device(0) device(1)
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:18: error: 'devices' cannot be used on 'wait'; use 'device(d)', one 'wait' per device{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait devices(0, 1){{$}}
// ERR-NEXT: {{^}}      |                  ^{{$}}
#pragma omp wait devices(0, 1)
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:28: error: clause 'nowait' is not allowed on 'wait'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device(0) nowait{{$}}
// ERR-NEXT: {{^}}      |                            ^{{$}}
#pragma omp wait device(0) nowait
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:28: error: unknown clause 'async' on 'wait'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device(0) async(1){{$}}
// ERR-NEXT: {{^}}      |                            ^{{$}}
#pragma omp wait device(0) async(1)
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:18: error: expected a clause on 'wait'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait (0){{$}}
// ERR-NEXT: {{^}}      |                  ^{{$}}
#pragma omp wait (0)
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:24: error: expected '(' after 'device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device{{$}}
// ERR-NEXT: {{^}}      |                        ^{{$}}
#pragma omp wait device
#pragma omp target spread devices(0) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) {
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:1: error: 'wait' cannot be nested inside the loop of a 'target spread' construct{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device(0){{$}}
// ERR-NEXT: {{^}}      | ^{{$}}
#pragma omp wait device(0)
    a[i] = i;
  }
}
// ERR: {{^.*}}wait_diag.c:[[@LINE+3]]:1: error: 'wait' is a standalone directive; it can only appear where a statement can, inside a function{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp wait device(0){{$}}
// ERR-NEXT: {{^}}      | ^{{$}}
#pragma omp wait device(0)
// ERR: {{^}}12 errors generated.{{$}}
