// A file with #line directives cannot be lowered (its presumed lines are not its lines).
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

// ERR: {{^.*}}diag_line_directive.c:[[@LINE+3]]:1: error: spread constructs cannot be lowered in a file that has #line directives{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #line 100 "generated.c"{{$}}
// ERR-NEXT: {{^}}      | ^{{$}}
#line 100 "generated.c"
void f(int n, int *a) {
#pragma omp target spread devices(0)
  for (int i = 0; i < n; i++) a[i] = 1;
}
// ERR: {{^}}1 error generated.{{$}}
