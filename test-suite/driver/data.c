// The data constructs (Listings 5-7 of the paper): target data spread around a block, and the
// standalone enter/exit data and update constructs with nowait and depend.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck %s
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s

void listing5(int N, double *A, double *B) {
#pragma omp target data spread \
devices(2,0,1) \
range(1:N-2) \
chunk_size(4) \
map(tofrom:A[omp_spread_start-1:omp_spread_size+2], \
B[omp_spread_start :omp_spread_size ])
{
#pragma omp target spread teams distribute parallel for devices(2,0,1) spread_schedule(static, 4) \
    map(to: A[omp_spread_start-1:omp_spread_size+2]) map(from: B[omp_spread_start:omp_spread_size])
  for (int i = 1; i < N - 1; i++)
    B[i] = A[i - 1] + A[i] + A[i + 1];
}
}
// The bounds, devices and chunk size are evaluated once; the enter half maps 'to', the exit
// half maps 'from' (tofrom), both with the construct's own descriptor line.
// CHECK-LABEL: {{^}}void listing5(
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}data.c", [[L5:[0-9]+]], __SPREAD_KIND_DATA, 0, 0 }; const int32_t __spread_devs_0[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) }; const int64_t __spread_lb_0 = (1); const int64_t __spread_ub_0 = __spread_lb_0 + __spread_length_arg(&__spread_c_0, (N-2)); const int64_t __spread_chunk_0 = (4); { __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, __spread_lb_0, __spread_ub_0, __spread_devs_0, 3, __spread_chunk_0); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;{{$}}
// CHECK-NEXT: {{^}}#line [[L5]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}#pragma omp target enter data device(__spread_chunk_device(__spread_r_0)) map(to: A[omp_spread_start-1:omp_spread_size+2], B[omp_spread_start :omp_spread_size ]){{$}}
// CHECK-NEXT: {{^}}#line [[L5]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}} __spread_region_end(__spread_r_0); }{{$}}
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}{{[{]}}{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_1 = { "{{.*}}data.c", [[L5IN:[0-9]+]], __SPREAD_KIND_TARGET,
// CHECK-NEXT: {{^}}#line [[L5IN]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_1)) map(to: A[omp_spread_start-1:omp_spread_size+2]) map(from: B[omp_spread_start:omp_spread_size]){{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++){{$}}
// CHECK-NEXT: {{^}}    B[i] = A[i - 1] + A[i] + A[i + 1]; } __spread_region_end(__spread_r_1); }{{$}}
// CHECK-NEXT: {{^}}} { __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, __spread_lb_0, __spread_ub_0, __spread_devs_0, 3, __spread_chunk_0); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;{{$}}
// CHECK-NEXT: {{^}}#line [[L5END:[0-9]+]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}#pragma omp target exit data device(__spread_chunk_device(__spread_r_0)) map(from: A[omp_spread_start-1:omp_spread_size+2], B[omp_spread_start :omp_spread_size ]){{$}}
// CHECK-NEXT: {{^}}#line [[L5END]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}} __spread_region_end(__spread_r_0); } }{{$}}
// CHECK-NEXT: {{^}}}{{$}}

void map_types(int n, float *a, float *b, float *c, float *d) {
#pragma omp target data spread range(0:n) map(to: a[omp_spread_start:omp_spread_size]) map(from: b[omp_spread_start:omp_spread_size]) map(alloc: c[omp_spread_start:omp_spread_size]) map(always, tofrom: d[omp_spread_start:omp_spread_size]) if(n > 100)
  d[0] = 1;
}
// no devices clause: all devices; no chunk_size: one chunk per device
// CHECK-LABEL: {{^}}void map_types(
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_2 = { "{{.*}}data.c", [[#LM:]], {{.*}}; const int64_t __spread_lb_2 = (0); const int64_t __spread_ub_2 = __spread_lb_2 + __spread_length_arg(&__spread_c_2, (n)); const int64_t __spread_chunk_2 = 0; { {{.*}}__spread_region_begin(&__spread_c_2, __spread_lb_2, __spread_ub_2, (const int32_t *)0, 0, __spread_chunk_2);
// CHECK-NEXT: #line [[#LM]]
// CHECK-NEXT: {{^}}#pragma omp target enter data device(__spread_chunk_device(__spread_r_2)) if(n > 100) map(to: a[omp_spread_start:omp_spread_size]) map(alloc: b[omp_spread_start:omp_spread_size]) map(alloc: c[omp_spread_start:omp_spread_size]) map(always, to: d[omp_spread_start:omp_spread_size]){{$}}
// CHECK: {{^}}  d[0] = 1; {{.*}}__spread_region_begin(&__spread_c_2,
// CHECK-NEXT: #line [[#LM+1]]
// CHECK-NEXT: {{^}}#pragma omp target exit data device(__spread_chunk_device(__spread_r_2)) if(n > 100) map(release: a[omp_spread_start:omp_spread_size]) map(from: b[omp_spread_start:omp_spread_size]) map(release: c[omp_spread_start:omp_spread_size]) map(always, from: d[omp_spread_start:omp_spread_size]){{$}}

void listings6_7(int N, double *A, double *B) {
#pragma omp target enter data spread \
devices(2,0,1) \
range(1:N-2) \
chunk_size(4) \
nowait \
map(to:A[omp_spread_start-1:omp_spread_size+2], \
B[omp_spread_start :omp_spread_size ])

#pragma omp target update spread devices(2,0,1) range(1:N-2) chunk_size(4) nowait depend(inout: A[omp_spread_start:omp_spread_size]) to( A[omp_spread_start-1:omp_spread_size+2]) from(B[omp_spread_start :omp_spread_size ])

#pragma omp target exit data spread \
devices(2,0,1) \
range(1:N-2) \
chunk_size(4) \
nowait \
depend(in: B[omp_spread_start:omp_spread_size]) \
map(from:A[omp_spread_start:omp_spread_size], \
B[omp_spread_start:omp_spread_size])
#pragma omp taskwait
}
// CHECK-LABEL: {{^}}void listings6_7(
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_3 = { "{{.*}}data.c", [[L6:[0-9]+]], __SPREAD_KIND_ENTER_DATA, __SPREAD_FLAG_NOWAIT, 0 }; const int32_t __spread_devs_3[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) }; const int64_t __spread_lb_3 = (1); const int64_t __spread_ub_3 = __spread_lb_3 + __spread_length_arg(&__spread_c_3, (N-2)); const int64_t __spread_chunk_3 = (4); { __spread_region_t *__spread_r_3 = __spread_region_begin(&__spread_c_3, __spread_lb_3, __spread_ub_3, __spread_devs_3, 3, __spread_chunk_3); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_3); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_3); (void)omp_spread_start; (void)omp_spread_size;{{$}}
// CHECK-NEXT: {{^}}#line [[L6]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}#pragma omp target enter data device(__spread_chunk_device(__spread_r_3)) nowait map(to:A[omp_spread_start-1:omp_spread_size+2], B[omp_spread_start :omp_spread_size ]) depend(inout: __spread_chunk_order(__spread_r_3)[0]){{$}}
// CHECK-NEXT: {{^}}#line [[L6]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}} __spread_region_end(__spread_r_3); } }{{$}}
// CHECK: {{^}}{ static const __spread_construct_t __spread_c_4 = { "{{.*}}data.c", [[L7:[0-9]+]], __SPREAD_KIND_UPDATE, __SPREAD_FLAG_NOWAIT, 0 };
// CHECK-NEXT: {{^}}#line [[L7]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}#pragma omp target update device(__spread_chunk_device(__spread_r_4)) nowait depend(inout: A[omp_spread_start:omp_spread_size]) to( A[omp_spread_start-1:omp_spread_size+2]) from(B[omp_spread_start :omp_spread_size ]) depend(inout: __spread_chunk_order(__spread_r_4)[0]){{$}}
// CHECK: {{^}}{ static const __spread_construct_t __spread_c_5 = { "{{.*}}data.c", [[L6X:[0-9]+]], __SPREAD_KIND_EXIT_DATA, __SPREAD_FLAG_NOWAIT, 0 };
// CHECK-NEXT: {{^}}#line [[L6X]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}#pragma omp target exit data device(__spread_chunk_device(__spread_r_5)) nowait depend(in: B[omp_spread_start:omp_spread_size]) map(from:A[omp_spread_start:omp_spread_size], B[omp_spread_start:omp_spread_size]) depend(inout: __spread_chunk_order(__spread_r_5)[0]){{$}}
// CHECK-NEXT: {{^}}#line [[L6X]] "{{.*}}data.c"
// CHECK-NEXT: {{^}}} __spread_region_end(__spread_r_5); } }{{$}}
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}#pragma omp taskwait
