// Errors in directives written through _Pragma and macros point at the user's source:
// inside the _Pragma string, or at the macro.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

#define DEVS
#define STR(x) #x
#define SPREAD(x) _Pragma(STR(omp target spread x))
void f(int n, int *a) {
// ERR: {{^.*}}diag_macros.c:[[@LINE+3]]:57: error: spread schedule kind 'guided' is not supported; use 'static', 'dynamic' or 'adaptive'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] |   _Pragma("omp target spread devices(0) spread_schedule(guided)") for (int i = 0; i < n; i++) a[i] = 0;{{$}}
// ERR-NEXT: {{^}}      |                                                         ^{{$}}
  _Pragma("omp target spread devices(0) spread_schedule(guided)") for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_macros.c:[[@LINE+3]]:3: error: unknown clause 'foo' on 'target spread'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] |   SPREAD(devices(0) nowait(1) foo) for (int i = 0; i < n; i++) a[i] = 0;{{$}}
// ERR-NEXT: {{^}}      |   ^{{$}}
  SPREAD(devices(0) nowait(1) foo) for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_macros.c:[[@LINE+3]]:39: error: the 'devices' clause needs at least one device number{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread devices(DEVS) map(tofrom: a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                       ^{{$}}
#pragma omp target spread devices(DEVS) map(tofrom: a[0:n])
  for (int i = 0; i < n; i++) a[i] = 0;
// ERR: {{^.*}}diag_macros.c:[[@LINE+3]]:42: error: 'target spread' must be followed by a for loop{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] |         _Pragma("omp target spread devices(0)") while (n) n--;{{$}}
// ERR-NEXT: {{^}}      |                                                 ^{{$}}
	_Pragma("omp target spread devices(0)") while (n) n--;
}
// ERR: {{^}}4 errors generated.{{$}}
