// 'target spread' must be followed by a canonical for loop with unit increment.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

void f(int n, int *a) {
// ERR: {{^.*}}diag_loops.c:[[@LINE+4]]:3: error: 'target spread' must be followed by a for loop{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   while (n) n--;{{$}}
// ERR-NEXT: {{^}}      |   ^{{$}}
#pragma omp target spread devices(0)
  while (n) n--;
// ERR: {{^.*}}diag_loops.c:[[@LINE+4]]:26: error: the loop of 'target spread' must increment 'i' by 1 ('i++', '++i' or 'i += 1'){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   for (int i = 0; i < n; i += 2) a[i] = 0;{{$}}
// ERR-NEXT: {{^}}      |                          ^{{$}}
#pragma omp target spread devices(0)
  for (int i = 0; i < n; i += 2) a[i] = 0;
// ERR: {{^.*}}diag_loops.c:[[@LINE+4]]:19: error: the condition of the loop of 'target spread' must be 'i < end' or 'i <= end'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   for (int i = n; i > 0; i--) a[i] = 0;{{$}}
// ERR-NEXT: {{^}}      |                   ^{{$}}
#pragma omp target spread devices(0)
  for (int i = n; i > 0; i--) a[i] = 0;
// ERR: {{^.*}}diag_loops.c:[[@LINE+4]]:8: error: the loop of 'target spread' must have a single loop variable{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   for (int i = 0, j = 0; i < n; i++) a[i] = j;{{$}}
// ERR-NEXT: {{^}}      |        ^{{$}}
#pragma omp target spread devices(0)
  for (int i = 0, j = 0; i < n; i++) a[i] = j;
// ERR: {{^.*}}diag_loops.c:[[@LINE+4]]:8: error: the loop of 'target spread' must initialize its variable ('T i = start' or 'i = start'){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   for (; n < 10; n++) a[n] = 0;{{$}}
// ERR-NEXT: {{^}}      |        ^{{$}}
#pragma omp target spread devices(0)
  for (; n < 10; n++) a[n] = 0;
// ERR: {{^.*}}diag_loops.c:[[@LINE+4]]:26: error: the loop of 'target spread' must increment 'i' by 1 ('i++', '++i' or 'i += 1'){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   for (int i = 0; i < n; j++) a[i] = 0;{{$}}
// ERR-NEXT: {{^}}      |                          ^{{$}}
#pragma omp target spread devices(0)
  for (int i = 0; i < n; j++) a[i] = 0;
  {
// ERR: {{^.*}}diag_loops.c:[[@LINE+4]]:3: error: 'target spread' must be followed by a for loop{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   }{{$}}
// ERR-NEXT: {{^}}      |   ^{{$}}
#pragma omp target spread devices(0)
  }
}
// ERR: {{^}}7 errors generated.{{$}}
