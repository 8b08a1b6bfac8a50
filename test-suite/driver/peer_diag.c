// Malformed 'target update peer' directives: clang-style errors at the user's line and column,
// with the source line and a caret; nothing is compiled.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s

#define STR(x) #x
#define PEER(x) _Pragma(STR(omp target update peer x))
#define NOTHING
struct s { int v; };
void f(int n, int *a, int *b, int x, int y, int m[4][8], struct s *p) {
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:59: error: 'to' has 2 list items but 'from' has 1; on 'target update peer' the i-th 'to' item receives the i-th 'from' item{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n], x) to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                                           ^{{$}}
#pragma omp target update peer to(a[0:n], x) to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:60: error: 'to' has 2 list items but 'from' has 1; on 'target update peer' the i-th 'to' item receives the i-th 'from' item{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer from(b[0:n]) from_device(0) to(a[0:n], x) to_device(1){{$}}
// ERR-NEXT: {{^}}      |                                                            ^{{$}}
#pragma omp target update peer from(b[0:n]) from_device(0) to(a[0:n], x) to_device(1)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:13: error: 'target update peer' requires a 'to_device' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp target update peer to(a[0:n]) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:13: error: 'target update peer' requires a 'to' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp target update peer to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:13: error: 'target update peer' requires a 'from' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device(1) from_device(0){{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device(1) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:13: error: 'target update peer' requires a 'from_device' clause{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]){{$}}
// ERR-NEXT: {{^}}      |             ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n])
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:84: error: the 'to_device' clause can appear only once on 'target update peer'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device(0) to_device(2){{$}}
// ERR-NEXT: {{^}}      |                                                                                    ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device(0) to_device(2)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:43: error: the 'to' clause can appear only once on 'target update peer'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to(x) to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                           ^{{$}}
#pragma omp target update peer to(a[0:n]) to(x) to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:84: error: unknown clause 'bogus' on 'target update peer'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device(0) bogus(1){{$}}
// ERR-NEXT: {{^}}      |                                                                                    ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device(0) bogus(1)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:84: error: clause 'nowait' is not allowed on 'target update peer'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device(0) nowait{{$}}
// ERR-NEXT: {{^}}      |                                                                                    ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device(0) nowait
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:43: error: the 'device' clause cannot be used on 'target update peer'; use 'to_device' and 'from_device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                           ^{{$}}
#pragma omp target update peer to(a[0:n]) device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:32: error: 'devices' cannot be used on 'target update peer': a peer copy is not spread; it copies between the devices named by 'to_device' and 'from_device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer devices(0, 1) to(a[0:n]) to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                ^{{$}}
#pragma omp target update peer devices(0, 1) to(a[0:n]) to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:32: error: 'spread' cannot be used on 'target update peer': a peer copy is not spread; it copies between the devices named by 'to_device' and 'from_device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer spread to(a[0:n]) to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                ^{{$}}
#pragma omp target update peer spread to(a[0:n]) to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:34: error: 'target update spread' cannot be combined with 'peer'; write 'target update peer' for a copy between two devices{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update spread peer range(0:n) to(a[0:n]){{$}}
// ERR-NEXT: {{^}}      |                                  ^{{$}}
#pragma omp target update spread peer range(0:n) to(a[0:n])
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:35: error: expected a list item in 'to'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to() to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                   ^{{$}}
#pragma omp target update peer to() to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:68: error: expected a list item in 'from'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device(1) from(NOTHING) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                                                    ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device(1) from(NOTHING) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:42: error: expected a list item in 'to'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n],, x) to_device(1) from(b[0:n], y) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                          ^{{$}}
#pragma omp target update peer to(a[0:n],, x) to_device(1) from(b[0:n], y) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:53: error: expected a device number in 'to_device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device() from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                                     ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device() from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:80: error: expected '(' after 'from_device'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device{{$}}
// ERR-NEXT: {{^}}      |                                                                                ^{{$}}
#pragma omp target update peer to(a[0:n]) to_device(1) from(b[0:n]) from_device
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:42: error: expected a variable or an array section in 'to' (modifiers are not supported on 'target update peer'){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(present: a[0:n]) to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                          ^{{$}}
#pragma omp target update peer to(present: a[0:n]) to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:38: error: only the last subscript of a list item of 'target update peer' can be an array section (the data copied must be contiguous){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(m[0:2][0:8]) to_device(1) from(m[2:2][0:8]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                      ^{{$}}
#pragma omp target update peer to(m[0:2][0:8]) to_device(1) from(m[2:2][0:8]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:40: error: strided array sections are not supported on 'target update peer' (the data copied must be contiguous){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[0:n:2]) to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                        ^{{$}}
#pragma omp target update peer to(a[0:n:2]) to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:39: error: the length of an array section on 'target update peer' must be given{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(a[1:]) to_device(1) from(b[0:n]) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                       ^{{$}}
#pragma omp target update peer to(a[1:]) to_device(1) from(b[0:n]) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:41: error: an array section must end the list item on 'target update peer'{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(p[0:1].v) to_device(1) from(y) from_device(0){{$}}
// ERR-NEXT: {{^}}      |                                         ^{{$}}
#pragma omp target update peer to(p[0:1].v) to_device(1) from(y) from_device(0)
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:3: error: 'to' has 1 list item but 'from' has 2; on 'target update peer' the i-th 'to' item receives the i-th 'from' item{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] |   PEER(to(a[0:n]) to_device(1) from(b[0:n], y) from_device(0)){{$}}
// ERR-NEXT: {{^}}      |   ^{{$}}
  PEER(to(a[0:n]) to_device(1) from(b[0:n], y) from_device(0))
}
// ERR: {{^.*}}peer_diag.c:[[@LINE+3]]:1: error: 'target update peer' is a standalone directive; it can only appear where a statement can, inside a function{{$}}
// ERR-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target update peer to(x) to_device(1) from(y) from_device(0){{$}}
// ERR-NEXT: {{^}}      | ^{{$}}
#pragma omp target update peer to(x) to_device(1) from(y) from_device(0)
// ERR: {{^}}26 errors generated.{{$}}
