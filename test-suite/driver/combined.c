// Listing 4 of the paper and the other combined forms of 'target spread': the inner
// construct keeps the combined directive and every clause other than devices/spread_schedule.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck %s
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s

void listing4(int N, double *A, double *B) {
#pragma omp target spread teams distribute parallel for \
devices(2,0,1) \
spread_schedule(static, 4) \
num_teams(2) \
map(to: A[omp_spread_start-1:omp_spread_size+2]) \
map(from:B[omp_spread_start :omp_spread_size ])
for(int i=1;i< N-1;i++){
B[i]=A[i-1]+A[i]+A[i+1];}
}
// CHECK-LABEL: {{^}}void listing4(
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}combined.c", 7, __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_STATIC }; const int32_t __spread_devs_0[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) }; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (1), (N-1), __spread_devs_0, 3, (4)); { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;{{$}}
// CHECK-NEXT: {{^}}#line 7 "{{.*}}combined.c"
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) num_teams(2) map(to: A[omp_spread_start-1:omp_spread_size+2]) map(from:B[omp_spread_start :omp_spread_size ]){{$}}
// CHECK-NEXT: {{^}}#line 13 "{{.*}}combined.c"
// CHECK-NEXT: {{^}}for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++){
// CHECK-NEXT: {{^}}B[i]=A[i-1]+A[i]+A[i+1];} } __spread_region_end(__spread_r_0); }{{$}}

void simd_forms(long n, float *x) {
#pragma omp target spread teams distribute parallel for simd devices(0) simdlen(8) map(tofrom: x[omp_spread_start:omp_spread_size])
  for (long i = 0; i <= n; ++i) x[i] *= 2;
#pragma omp target spread teams distribute devices(1, 0) dist_schedule(static, 16) map(tofrom: x[omp_spread_start:omp_spread_size])
  for (long i = 0; i < n; i += 1) x[i] += 1;
#pragma omp target spread parallel for devices(0) num_threads(4) schedule(static) map(tofrom: x[omp_spread_start:omp_spread_size]) nowait
  for (long i = 0; i < n; i = i + 1) {
    x[i] -= 1;
  }
#pragma omp taskwait
#pragma omp target spread teams distribute simd spread_schedule(static) map(tofrom: x[omp_spread_start:omp_spread_size])
  for (long i = 0; n > i; i++) x[i] = 0;
#pragma omp target spread parallel for simd devices(0) map(tofrom: x[omp_spread_start:omp_spread_size])
  for (long i = 0; i < n; i++) x[i] = 1;
}
// CHECK-LABEL: {{^}}void simd_forms(
// CHECK-NEXT: {{^}}{ {{.*}} = __spread_region_begin(&__spread_c_1, (0), (n) + (int64_t)1, __spread_devs_1, 1, 0);
// CHECK-NEXT: #line 25
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for simd device(__spread_chunk_device(__spread_r_1)) simdlen(8) map(tofrom: x[omp_spread_start:omp_spread_size]){{$}}
// CHECK-NEXT: {{^}}  for (long i = omp_spread_start; i <= (long)(omp_spread_start + omp_spread_size - 1); ++i) x[i] *= 2; } __spread_region_end(__spread_r_1); }{{$}}
// CHECK-NEXT: {{^}}{ {{.*}}const int32_t __spread_devs_2[] = { (int32_t)(1), (int32_t)(0) }; {{.*}} = __spread_region_begin(&__spread_c_2, (0), (n), __spread_devs_2, 2, 0);
// CHECK-NEXT: #line 27
// CHECK-NEXT: {{^}}#pragma omp target teams distribute device(__spread_chunk_device(__spread_r_2)) dist_schedule(static, 16) map(tofrom: x[omp_spread_start:omp_spread_size]){{$}}
// CHECK-NEXT: {{^}}  for (long i = omp_spread_start; i < (long)(omp_spread_start + omp_spread_size); i += 1) x[i] += 1; } __spread_region_end(__spread_r_2); }{{$}}
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_3 = { "{{.*}}combined.c", 29, __SPREAD_KIND_TARGET, __SPREAD_FLAG_NOWAIT, 0 };
// CHECK-NEXT: #line 29
// CHECK-NEXT: {{^}}#pragma omp target parallel for device(__spread_chunk_device(__spread_r_3)) num_threads(4) schedule(static) map(tofrom: x[omp_spread_start:omp_spread_size]) nowait depend(inout: __spread_chunk_order(__spread_r_3)[0]){{$}}
// CHECK-NEXT: {{^}}  for (long i = omp_spread_start; i < (long)(omp_spread_start + omp_spread_size); i = i + 1) {
// CHECK-NEXT: {{^}}    x[i] -= 1;
// CHECK-NEXT: {{^}}  } } __spread_region_end(__spread_r_3); }{{$}}
// CHECK-NEXT: {{^}}#pragma omp taskwait
// no devices clause: every device, in number order
// CHECK-NEXT: {{^}}{ {{.*}} = __spread_region_begin(&__spread_c_4, (0), (n), (const int32_t *)0, 0, 0);
// CHECK-NEXT: #line 34
// CHECK-NEXT: {{^}}#pragma omp target teams distribute simd device(__spread_chunk_device(__spread_r_4)) map(tofrom: x[omp_spread_start:omp_spread_size]){{$}}
// CHECK-NEXT: {{^}}  for (long i = omp_spread_start; i < (long)(omp_spread_start + omp_spread_size); i++) x[i] = 0; } __spread_region_end(__spread_r_4); }{{$}}
// CHECK-NEXT: {{^}}{ {{.*}}__spread_region_begin(&__spread_c_5,
// CHECK-NEXT: #line 36
// CHECK-NEXT: {{^}}#pragma omp target parallel for simd device(__spread_chunk_device(__spread_r_5)) map(tofrom: x[omp_spread_start:omp_spread_size]){{$}}

void plain_target(int n, int *a) {
  int j;
#pragma omp target spread devices(n - 1) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (j = 0; j < n; j++)
    a[j] = omp_spread_start + (int)omp_spread_size;
}
// CHECK-LABEL: {{^}}void plain_target(
// CHECK: {{^}}{ {{.*}}const int32_t __spread_devs_6[] = { __spread_device_arg(&__spread_c_6, (n - 1)) }; {{.*}}__spread_region_begin(&__spread_c_6, (0), (n), __spread_devs_6, 1, 0);
// CHECK: {{^}}  for (j = omp_spread_start; j < omp_spread_start + omp_spread_size; j++){{$}}
// CHECK-NEXT: {{^}}    a[j] = omp_spread_start + (int)omp_spread_size; } __spread_region_end(__spread_r_6); }{{$}}
