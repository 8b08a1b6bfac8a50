// 'target update peer' (seed 003, the OpenACC 'update peer' extension): each pair of list
// items becomes one __spread_update_peer call with the address and byte size of the 'to'
// item (on to_device) and of the 'from' item (on from_device); the devices are evaluated once,
// in the order they are written.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck --strict-whitespace %s
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s
// RUN: %spread-cxx --spread-no-pass -fsyntax-only -Wall -Werror -x c++ %s
// The program compiles to calls of the runtime's entry point (peer_link.c links one).
// RUN: %spread-cc -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck --check-prefix=SYMS %s
// SYMS: U __spread_update_peer

#define STR(x) #x
#define PEER(dst, d, src, e) _Pragma(STR(omp target update peer to(dst) to_device(d) from(src) from_device(e)))
#define ROW(buf, r) buf[(r) * LDA:LDA]

// Algorithm 10 of the paper: halo rows between neighbouring devices.
void halo(int num_devices, int rows, int LDA, double *temp2_h) {
  for (int d = 0; d < num_devices; d++) {
    if (d > 0) {
#pragma omp target update peer to(temp2_h[d*rows*LDA:LDA]) to_device(d) \
        from(temp2_h[d*rows*LDA:LDA]) from_device(d-1)
    }
    if (d < num_devices - 1)
#pragma omp target update peer to(temp2_h[(d+1)*rows*LDA+LDA:LDA]) to_device(d) from(temp2_h[(d+1)*rows*LDA+LDA:LDA]) from_device(d+1)
    int after = d;
    (void)after;
  }
}
// CHECK-LABEL: {{^}}void halo(
// CHECK-NEXT: {{^}}  for (int d = 0; d < num_devices; d++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}    if (d > 0) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}peer_lowering.c", [[#@LINE-12]], __SPREAD_KIND_UPDATE_PEER, 0, 0 }; const int32_t __spread_to_dev_0 = __spread_device_arg(&__spread_c_0, (d)); const int32_t __spread_from_dev_0 = __spread_device_arg(&__spread_c_0, (d-1)); __spread_update_peer(&__spread_c_0, (void *)&(temp2_h)[d*rows*LDA], (size_t)(LDA) * sizeof((temp2_h)[0]), __spread_to_dev_0, (const void *)&(temp2_h)[d*rows*LDA], (size_t)(LDA) * sizeof((temp2_h)[0]), __spread_from_dev_0); }{{$}}
// the continued pragma's second line stays empty: the lines after keep their numbers
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}    }{{$}}
// CHECK-NEXT: {{^}}    if (d < num_devices - 1){{$}}
// as the body of an if without braces: one block
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_1 = { "{{.*}}peer_lowering.c", [[#@LINE-14]], __SPREAD_KIND_UPDATE_PEER, 0, 0 }; const int32_t __spread_to_dev_1 = __spread_device_arg(&__spread_c_1, (d)); const int32_t __spread_from_dev_1 = __spread_device_arg(&__spread_c_1, (d+1)); __spread_update_peer(&__spread_c_1, (void *)&(temp2_h)[(d+1)*rows*LDA+LDA], (size_t)(LDA) * sizeof((temp2_h)[0]), __spread_to_dev_1, (const void *)&(temp2_h)[(d+1)*rows*LDA+LDA], (size_t)(LDA) * sizeof((temp2_h)[0]), __spread_from_dev_1); }{{$}}
// CHECK-NEXT: {{^}}    int after = d;{{$}}

struct grid {
  int n;
  float cells[64];
};

// Several items: scalars, whole arrays, struct members, sections of a row; clauses in any
// order (from_device first: it is evaluated first).
void items(int dst, int src, int n, double x, double y, int m[8][16], struct grid *g, struct grid *h) {
#pragma omp target update peer from(y, m[2][1:n], h->cells, h->n) from_device(src) to(x, m[3][:n], g->cells, g->n) to_device(dst)
}
// CHECK-LABEL: {{^}}void items(
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_2 = { "{{.*}}peer_lowering.c", [[#@LINE-3]], __SPREAD_KIND_UPDATE_PEER, 0, 0 }; const int32_t __spread_from_dev_2 = __spread_device_arg(&__spread_c_2, (src)); const int32_t __spread_to_dev_2 = __spread_device_arg(&__spread_c_2, (dst));
// CHECK-SAME: {{ }}__spread_update_peer(&__spread_c_2, (void *)&(x), sizeof(x), __spread_to_dev_2, (const void *)&(y), sizeof(y), __spread_from_dev_2);
// CHECK-SAME: {{ }}__spread_update_peer(&__spread_c_2, (void *)&(m[3])[0], (size_t)(n) * sizeof((m[3])[0]), __spread_to_dev_2, (const void *)&(m[2])[1], (size_t)(n) * sizeof((m[2])[0]), __spread_from_dev_2);
// CHECK-SAME: {{ }}__spread_update_peer(&__spread_c_2, (void *)&(g->cells), sizeof(g->cells), __spread_to_dev_2, (const void *)&(h->cells), sizeof(h->cells), __spread_from_dev_2);
// CHECK-SAME: {{ }}__spread_update_peer(&__spread_c_2, (void *)&(g->n), sizeof(g->n), __spread_to_dev_2, (const void *)&(h->n), sizeof(h->n), __spread_from_dev_2); }{{$}}
// CHECK-NEXT: {{^}}}{{$}}

// Written through macros and _Pragma: the directive is seen after preprocessing.
void macros(int d, int LDA, float *a, float *b) {
  PEER(ROW(a, d), d + 1, ROW(b, d), d); int after = 0;
  _Pragma("omp target update peer to(a[0:LDA]) to_device(1) from(b[0:LDA]) from_device(0)")
  (void)after;
}
// CHECK-LABEL: {{^}}void macros(
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_3 = { "{{.*}}peer_lowering.c", [[#@LINE-5]], __SPREAD_KIND_UPDATE_PEER, 0, 0 }; const int32_t __spread_to_dev_3 = __spread_device_arg(&__spread_c_3, (d + 1)); const int32_t __spread_from_dev_3 = __spread_device_arg(&__spread_c_3, (d)); __spread_update_peer(&__spread_c_3, (void *)&(a)[(d) * LDA], (size_t)(LDA) * sizeof((a)[0]), __spread_to_dev_3, (const void *)&(b)[(d) * LDA], (size_t)(LDA) * sizeof((b)[0]), __spread_from_dev_3); }{{ +}}; int after = 0;{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_4 = { "{{.*}}peer_lowering.c", [[#@LINE-5]], __SPREAD_KIND_UPDATE_PEER, 0, 0 }; {{.*}}(void *)&(a)[0], (size_t)(LDA) * sizeof((a)[0]), __spread_to_dev_4, (const void *)&(b)[0], (size_t)(LDA) * sizeof((b)[0]), __spread_from_dev_4); }{{$}}
// CHECK-NEXT: {{^}}  (void)after;{{$}}

// A plain 'target update' (no 'peer') is clang's, untouched.
void plain(int n, double *a) {
#pragma omp target update to(a[0:n]) device(1)
}
// CHECK-LABEL: {{^}}void plain(
// CHECK-NEXT: {{^}}#pragma omp target update to(a[0:n]) device(1){{$}}
