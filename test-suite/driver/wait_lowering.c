// 'wait device(d)' (seed 003, the OpenACC 'wait device' extension): one call of
// __spread_device_wait with the construct's descriptor; '#pragma omp wait' never reaches clang.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck --strict-whitespace %s
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s
// RUN: %spread-cxx --spread-no-pass -fsyntax-only -Wall -Werror -x c++ %s
// Clang's diagnostics on the lowered file point at the user's lines.
// RUN: not %spread-cc --spread-no-pass -DBAD -c %s -o %t.o 2>&1 | FileCheck --check-prefix=CLANG %s
// RUN: %spread-cc --spread-no-pass -Wall -DWARN -c %s -o %t.o 2>&1 | FileCheck --check-prefix=WARN %s
//
// A program using both directives compiles (C and C++) to calls of the runtime's entry points.
// RUN: %spread-cc -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck --check-prefix=SYMS %s
// RUN: %spread-cxx -x c++ -c %s -o %t-cxx.o
// RUN: llvm-nm %t-cxx.o | FileCheck --check-prefix=SYMS %s
// SYMS-DAG: U __spread_device_wait
// SYMS-DAG: U __spread_update_peer
// (peer_link.c links such a program; what the calls do is tested with the runtime.)

#include <stdlib.h>

#define STR(x) #x
#define WAIT(d) _Pragma(STR(omp wait device(d)))
#define LAST(n) ((n) - 1)

// Algorithm 9 of the paper: wait for every device's queue.
void wait_all(int num_devices) {
  for (int d = 0; d < num_devices; d++) {
#pragma omp wait device(d)
  }
  for (int d = 0; d < num_devices; d++)
#pragma omp wait \
    device(num_devices - 1 - d)
  WAIT(LAST(num_devices)) int after = 0;
  _Pragma("omp wait device(0)")
  (void)after;
}
// CHECK-LABEL: {{^}}void wait_all(
// CHECK-NEXT: {{^}}  for (int d = 0; d < num_devices; d++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}wait_lowering.c", [[#@LINE-11]], __SPREAD_KIND_WAIT_DEVICE, 0, 0 }; __spread_device_wait(&__spread_c_0, __spread_device_arg(&__spread_c_0, (d))); }{{$}}
// CHECK-NEXT: {{^}}  }{{$}}
// CHECK-NEXT: {{^}}  for (int d = 0; d < num_devices; d++){{$}}
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_1 = { "{{.*}}wait_lowering.c", [[#@LINE-11]], __SPREAD_KIND_WAIT_DEVICE, 0, 0 }; __spread_device_wait(&__spread_c_1, __spread_device_arg(&__spread_c_1, (num_devices - 1 - d))); }{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_2 = { "{{.*}}wait_lowering.c", [[#@LINE-11]], __SPREAD_KIND_WAIT_DEVICE, 0, 0 }; __spread_device_wait(&__spread_c_2, __spread_device_arg(&__spread_c_2, (((num_devices) - 1)))); }{{ +}}int after = 0;{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_3 = { "{{.*}}wait_lowering.c", [[#@LINE-11]], __SPREAD_KIND_WAIT_DEVICE, 0, 0 }; __spread_device_wait(&__spread_c_3, (int32_t)(0)); }{{$}}
// CHECK-NEXT: {{^}}  (void)after;{{$}}
// CHECK-NEXT: {{^}}}{{$}}

// Algorithm 10 of the paper: halo exchange between neighbours, then wait.
void exchange(int num_devices, int rows, int LDA, double *temp2_h) {
  for (int d = 0; d < num_devices; d++) {
    if (d > 0) {
#pragma omp target update peer to(temp2_h[d*rows*LDA:LDA]) to_device(d) from(temp2_h[d*rows*LDA:LDA]) from_device(d-1)
    }
  }
  for (int d = 0; d < num_devices; d++) {
#pragma omp wait device(d)
#ifdef BAD
#pragma omp wait device(undeclared_device)
#endif
#ifdef WARN
    int unused;
#endif
  }
}
// CHECK-LABEL: {{^}}void exchange(
// CHECK: {{^}}{ {{.*}}__SPREAD_KIND_UPDATE_PEER{{.*}}__spread_update_peer(&__spread_c_4, {{.*}}); }{{$}}
// CHECK: {{^}}{ {{.*}}__SPREAD_KIND_WAIT_DEVICE{{.*}}__spread_device_wait(&__spread_c_5, __spread_device_arg(&__spread_c_5, (d))); }{{$}}
// CLANG: wait_lowering.c:[[#@LINE-10]]:{{[0-9]+}}: error: use of undeclared identifier 'undeclared_device'
// WARN: wait_lowering.c:[[#@LINE-8]]:9: warning: unused variable 'unused'

int main(void) {
  wait_all(2);
  double *t = (double *)malloc(64 * sizeof(double));
  exchange(2, 2, 8, t);
  free(t);
  return 0;
}
