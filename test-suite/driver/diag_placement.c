// Spread constructs where they cannot be lowered: in an included file, and nested in the loop
// of 'target spread' (device code).
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

// ERR: {{^.*}}Inputs{{/}}spread_in_header.h:3:1: error: 'target spread' is only supported in the source file being compiled, not in included file '{{.*}}Inputs/spread_in_header.h'{{$}}
// ERR-NEXT: {{^}}    3 | #pragma omp target spread devices(0) map(tofrom: a[omp_spread_start:omp_spread_size]){{$}}
// ERR-NEXT: {{^}}      | ^{{$}}
#include "Inputs/spread_in_header.h"

void f(int n, int *a) {
#pragma omp target spread devices(0)
  for (int i = 0; i < n; i++) {
// ERR: {{^.*}}diag_placement.c:[[@LINE+3]]:1: error: 'target update spread' cannot be nested inside the loop of a 'target spread' construct{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update spread range(0:n) to(a[0:n]){{$}}
// ERR-NEXT: {{^}}      | ^{{$}}
#pragma omp target update spread range(0:n) to(a[0:n])
  }
}
// ERR: {{^}}2 errors generated.{{$}}
