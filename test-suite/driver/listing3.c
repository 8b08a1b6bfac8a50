// Listing 3 of the paper: 'target spread' on its own, the pragma continued over several lines.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck %s
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Wextra -Werror %s

#define N 14
double A[N], B[N];

void listing3(void) {
#pragma omp target spread \
        devices(2,0,1) \
        spread_schedule(static, 4) \
        map(to: A[omp_spread_start-1:omp_spread_size+2]) \
        map(from:B[omp_spread_start :omp_spread_size ])
  for(int i=1;i< N-1;i++){
    B[i]=A[i-1]+A[i]+A[i+1];}
}

// CHECK: {{^}}#include "{{.*}}spread.h"
// CHECK-NEXT: {{^}}#line 1 "{{.*}}listing3.c"
// CHECK: {{^}}void listing3(void) {
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}listing3.c", 9, __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_STATIC }; const int32_t __spread_devs_0[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) }; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (1), (14 -1), __spread_devs_0, 3, (4)); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;{{$}}
// CHECK-NEXT: {{^}}#line 9 "{{.*}}listing3.c"
// CHECK-NEXT: {{^}}#pragma omp target device(__spread_chunk_device(__spread_r_0)) map(to: A[omp_spread_start-1:omp_spread_size+2]) map(from:B[omp_spread_start :omp_spread_size ]){{$}}
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++){
// CHECK-NEXT: {{^}}    B[i]=A[i-1]+A[i]+A[i+1];} } __spread_region_end(__spread_r_0); }{{$}}
// CHECK-NEXT: {{^}}}{{$}}
