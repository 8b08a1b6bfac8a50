// Directives written through macros and _Pragma are seen after preprocessing; the lowered
// file keeps the user's macros everywhere else.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck %s
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s

#define DEVS 2,0,1
#define CHUNK (2 * 2)
#define STR(x) #x
#define SPREAD(x) _Pragma(STR(omp target spread x))
#define SPREAD_LOOP(v, n) _Pragma("omp target spread devices(0) map(tofrom: a[omp_spread_start:omp_spread_size])") for (int v = 0; v < (n); v++)
#define ADD(x, y) ((x) + (y))

void f(int n, int *a) {
#pragma omp target spread devices(DEVS) spread_schedule(static, CHUNK) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] = ADD(a[i], 1);
  // CHECK-LABEL: {{^}}void f(
  // CHECK-NEXT: {{^}}{ {{.*}}const int32_t __spread_devs_0[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) }; {{.*}} = __spread_region_begin(&__spread_c_0, (0), (n), __spread_devs_0, 3, ((2 * 2)));
  // CHECK-NEXT: {{^}}#line 14 "{{.*}}macros.c"
  // CHECK-NEXT: {{^}}#pragma omp target device(__spread_chunk_device(__spread_r_0)) map(tofrom: a[omp_spread_start:omp_spread_size]){{$}}
  // the rewritten lines come from the preprocessor; ADD is expanded there
  // CHECK-NEXT: {{^}}  for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) a[i] = ((a[i]) + (1)); } __spread_region_end(__spread_r_0); }{{$}}

  _Pragma("omp target spread devices(1) map(tofrom: a[omp_spread_start:omp_spread_size])") for (int i = 0; i < n; i++) a[i] += 2;
  // CHECK: {{^}}{ static const __spread_construct_t __spread_c_1 = { "{{.*}}macros.c", [[@LINE-1]], __SPREAD_KIND_TARGET, 0, 0 }; const int32_t __spread_devs_1[] = { (int32_t)(1) };
  // CHECK-NEXT: {{^}}#line [[@LINE-2]] "{{.*}}macros.c"
  // CHECK-NEXT: {{^}}#pragma omp target device(__spread_chunk_device(__spread_r_1)) map(tofrom: a[omp_spread_start:omp_spread_size]){{$}}
  // CHECK-NEXT: {{^}}#line [[@LINE-4]] "{{.*}}macros.c"
  // CHECK-NEXT: {{^ +}}for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) a[i] += 2; } __spread_region_end(__spread_r_1); }{{$}}

  SPREAD(devices(DEVS) nowait map(tofrom: a[omp_spread_start:omp_spread_size]))
  for (int i = 0; i < n; i++) {
    a[i] = ADD(a[i], 3);
  }
  // CHECK: {{^}}{ static const __spread_construct_t __spread_c_2 = { "{{.*}}macros.c", [[@LINE-4]], __SPREAD_KIND_TARGET, __SPREAD_FLAG_NOWAIT, 0 }; const int32_t __spread_devs_2[] = { (int32_t)(2), (int32_t)(0), (int32_t)(1) };
  // CHECK-NEXT: {{^}}#line [[@LINE-5]] "{{.*}}macros.c"
  // CHECK-NEXT: {{^}}#pragma omp target device(__spread_chunk_device(__spread_r_2)) nowait map(tofrom: a[omp_spread_start:omp_spread_size]) depend(inout: __spread_chunk_order(__spread_r_2)[0]){{$}}
  // CHECK-NEXT: {{^}}  for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) {{[{]}}{{$}}
  // lines of the body that no construct touches stay as written
  // CHECK-NEXT: {{^}}    a[i] = ADD(a[i], 3);{{$}}
  // CHECK-NEXT: {{^}}  } } __spread_region_end(__spread_r_2); }{{$}}
#pragma omp taskwait

  SPREAD_LOOP(k, ADD(n,
                     -1)) a[k] = 0;
  int after = 1;
  (void)after;
  // a macro call over two lines is taken whole from the preprocessor
  // CHECK: {{^}}{ static const __spread_construct_t __spread_c_3 = { "{{.*}}macros.c", [[@LINE-5]], {{.*}}__spread_region_begin(&__spread_c_3, (0), ((((n) + (-1)))), __spread_devs_3, 1, 0);
  // CHECK-NEXT: {{^}}#line [[@LINE-6]] "{{.*}}macros.c"
  // CHECK-NEXT: {{^}}#pragma omp target device(__spread_chunk_device(__spread_r_3)) map(tofrom: a[omp_spread_start:omp_spread_size]){{$}}
  // CHECK-NEXT: {{^}}#line [[@LINE-8]] "{{.*}}macros.c"
  // CHECK-NEXT: {{^}}  for (int k = omp_spread_start; k < (int)(omp_spread_start + omp_spread_size); k++) a[k] = 0; } __spread_region_end(__spread_r_3); }{{$}}
  // CHECK-EMPTY:
  // CHECK-NEXT: {{^}}  int after = 1;{{$}}
}
