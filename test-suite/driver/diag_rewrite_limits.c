// The lines the driver rewrites (the pragma through the loop header, and the construct's last
// line) are taken from the preprocessor's output, so they cannot hold conditionals.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

void f(int n, int *a) {
#pragma omp target spread devices(0)
// ERR: {{^.*}}diag_rewrite_limits.c:[[@LINE+3]]:1: error: preprocessor directive '#ifdef' inside the lines of a spread construct is not supported; move it out of the loop header and the construct's first and last lines{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #ifdef NEVER{{$}}
// ERR-NEXT: {{^}}      | ^{{$}}
#ifdef NEVER
  for (int i = 0; i < n; i++) a[i] = 1;
#else
  for (int i = 0; i < n; i++) a[i] = 2;
#endif
}
// ERR: {{^}}1 error generated.{{$}}
