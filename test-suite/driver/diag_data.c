// Malformed data constructs (target data spread, target enter/exit data spread, target update spread).
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

void f(int n, int *a) {
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:54: error: 'nowait' cannot be used on 'target data spread' (use 'target enter data spread' and 'target exit data spread' for asynchronous transfers){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target data spread devices(0) range(0:n) nowait map(tofrom: a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                                      ^{{$}}
#pragma omp target data spread devices(0) range(0:n) nowait map(tofrom: a[0:n])
  { }
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:54: error: 'depend' cannot be used on 'target data spread' (use 'target enter data spread' and 'target exit data spread' for asynchronous transfers){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target data spread devices(0) range(0:n) depend(in: a[0]) map(tofrom: a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                                      ^{{$}}
#pragma omp target data spread devices(0) range(0:n) depend(in: a[0]) map(tofrom: a[0:n])
  { }
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:13: error: 'target enter data spread' requires a 'range(start:length)' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target enter data spread devices(0) map(to: a[0:n]){{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp target enter data spread devices(0) map(to: a[0:n])
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:13: error: 'target exit data spread' requires at least one 'map' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target exit data spread devices(0) range(0:n){{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp target exit data spread devices(0) range(0:n)
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:13: error: 'target update spread' requires a 'to' or 'from' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update spread range(0:n) chunk_size(4){{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp target update spread range(0:n) chunk_size(4)
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:49: error: 'spread_schedule' cannot be used on 'target enter data spread'; use 'chunk_size(chunk)' (data is always spread round-robin){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target enter data spread range(0:n) spread_schedule(static, 4) map(to: a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                                 ^{{$}}
#pragma omp target enter data spread range(0:n) spread_schedule(static, 4) map(to: a[0:n])
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:47: error: map type 'delete' is not allowed on 'target data spread'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target data spread range(0:n) map(delete: a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                               ^{{$}}
#pragma omp target data spread range(0:n) map(delete: a[0:n])
  { }
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:40: error: expected 'start:length' in 'range'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update spread range(0 n) to(a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                        ^{{$}}
#pragma omp target update spread range(0 n) to(a[0:n])
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:43: error: 'use_device_ptr' cannot be used on 'target data spread': its data lives on several devices{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target data spread range(0:n) use_device_ptr(a) map(a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                           ^{{$}}
#pragma omp target data spread range(0:n) use_device_ptr(a) map(a[0:n])
  { }
// ERR: {{^.*}}diag_data.c:[[@LINE+3]]:45: error: the 'device' clause cannot be used on 'target update spread'; use 'devices' to list the devices{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update spread range(0:n) device(1) to(a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                             ^{{$}}
#pragma omp target update spread range(0:n) device(1) to(a[0:n])
  {
// ERR: {{^.*}}diag_data.c:[[@LINE+4]]:3: error: 'target data spread' must be followed by a structured block{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   }{{$}}
// ERR-NEXT: {{^}}      |   ^{{$}}
#pragma omp target data spread range(0:n) map(a[0:n])
  }
}
// ERR: {{^}}11 errors generated.{{$}}
