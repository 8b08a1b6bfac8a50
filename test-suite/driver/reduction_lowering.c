// reduction(op: s) on 'target spread' (docs/spread-abi.md §4): s is registered once per region
// with the runtime (guarded: the pass repeats the code between begin and end per chunk), each
// chunk reduces into its device's partial *__spread_rv_K_j (the body's s), and the partials are
// combined into s after __spread_region_end; with nowait in a task after all the chunks.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck --strict-whitespace %s
// The lowered program compiles (C and C++, with and without the pass, pedantic C99 too):
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Wextra -Werror %s
// RUN: %spread-cc -std=c99 -pedantic -fsyntax-only -Wall -Werror %s
// RUN: %spread-cc -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck --check-prefix=SYMS %s
// RUN: %spread-cxx -x c++ -fsyntax-only -Wall -Wextra -Werror %s
// RUN: %spread-cxx -x c++ -c %s -o %t-cxx.o
// RUN: llvm-nm %t-cxx.o | FileCheck --check-prefix=SYMS %s
// SYMS-DAG: U __spread_reduction
// SYMS-DAG: U __spread_reduction_slot
// SYMS-DAG: U __spread_region_reductions
// SYMS-DAG: U __spread_reductions_finish

double dot(int n, const double *x, const double *y, int *count) {
  double s = 0;
  int c = 0;
#pragma omp target spread teams distribute parallel for devices(0, 1) \
        reduction(+: s) map(to: x[omp_spread_start:omp_spread_size], y[omp_spread_start:omp_spread_size]) \
        map(tofrom: s) reduction(+: c)
  for (int i = 0; i < n; i++) {
    s += x[i] * y[i];
    if (x[i] != 0)
      c++;
  }
  *count = c;
  return s;
}
// CHECK-LABEL: {{^}}double dot(
// CHECK: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}reduction_lowering.c", 22, __SPREAD_KIND_TARGET, 0, 0 }; const int32_t __spread_devs_0[] = { (int32_t)(0), (int32_t)(1) }; __extension__ _Static_assert((__extension__ __SPREAD_TYPE_OF(s)) != __SPREAD_TYPE_UNSUPPORTED, "reduction variable 's' of 'target spread teams distribute parallel for' must have an arithmetic type (char, short, int, long, long long, their unsigned forms, float or double)"); __extension__ _Static_assert((__extension__ __SPREAD_TYPE_OF(c)) != __SPREAD_TYPE_UNSUPPORTED, "{{[^"]*}}"); __spread_reductions_t *__spread_rd_0 = 0; __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (0), (n), __spread_devs_0, 2, 0); if (!__spread_rd_0) { __spread_reduction(__spread_r_0, __SPREAD_RED_ADD, (__extension__ __SPREAD_TYPE_OF(s)), (void *)&(s), sizeof(s)); __spread_reduction(__spread_r_0, __SPREAD_RED_ADD, (__extension__ __SPREAD_TYPE_OF(c)), (void *)&(c), sizeof(c)); __spread_rd_0 = __spread_region_reductions(__spread_r_0); } { const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0); const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size; __typeof__(s) *const __spread_rv_0_0 = (__typeof__(s) *)__spread_reduction_slot(__spread_r_0, 0); __typeof__(c) *const __spread_rv_0_1 = (__typeof__(c) *)__spread_reduction_slot(__spread_r_0, 1);{{$}}
// CHECK-NEXT: {{^}}#line 22 "{{.*}}reduction_lowering.c"
// The user's map of s is dropped: the partial is mapped instead.
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) reduction(+: __spread_rv_0_0[0:1]) map(tofrom: __spread_rv_0_0[0:1]) map(to: x[omp_spread_start:omp_spread_size], y[omp_spread_start:omp_spread_size]) reduction(+: __spread_rv_0_1[0:1]) map(tofrom: __spread_rv_0_1[0:1]){{$}}
// CHECK-EMPTY:
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}    __spread_rv_0_0[0] += x[i] * y[i];{{$}}
// CHECK-NEXT: {{^}}    if (x[i] != 0){{$}}
// CHECK-NEXT: {{^}}      __spread_rv_0_1[0]++;{{$}}
// CHECK-NEXT: {{^}}  } } __spread_region_end(__spread_r_0); if (__spread_rd_0) __spread_reductions_finish(__spread_rd_0); }{{$}}
// CHECK-NEXT: {{^}}  *count = c;{{$}}

// Every operator; members named like the variable are not it.
struct acc { long max; };
long ops(long n, const long *v, struct acc *a) {
  long p = 1, lo = 0, hi = 0, band = -1, bor = 0, bxor = 0, land = 1, lor = 0, d = 0;
#pragma omp target spread parallel for spread_schedule(dynamic, 8) map(to: v[omp_spread_start:omp_spread_size]) \
        reduction(*: p) reduction(min: lo) reduction(max: hi) reduction(&: band) reduction(|: bor) \
        reduction(^: bxor) reduction(&&: land) reduction(||: lor) reduction(-: d)
  for (long i = 0; i < n; i++) {
    p *= v[i]; lo = v[i] < lo ? v[i] : lo; hi = a->max > hi ? a->max : hi;
    band &= v[i]; bor |= v[i]; bxor ^= v[i]; land = land && v[i]; lor = lor || v[i]; d -= v[i];
  }
  return p + lo + hi + band + bor + bxor + land + lor + d;
}
// CHECK-LABEL: {{^}}long ops(
// CHECK: __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_DYNAMIC };
// CHECK-SAME: __spread_reduction(__spread_r_1, __SPREAD_RED_MUL, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_MIN, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_MAX, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_BAND, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_BOR, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_BXOR, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_LAND, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_LOR, {{.*}} __spread_reduction(__spread_r_1, __SPREAD_RED_SUB,
// '-' combines as '+' on the device (OpenMP 5.2 deprecates the '-' identifier).
// CHECK: {{^}}#pragma omp target parallel for device(__spread_chunk_device(__spread_r_1)) map(to: v[omp_spread_start:omp_spread_size]) reduction(*: __spread_rv_1_0[0:1]) map(tofrom: __spread_rv_1_0[0:1]) reduction(min: __spread_rv_1_1[0:1]) {{.*}} reduction(&&: __spread_rv_1_6[0:1]) map(tofrom: __spread_rv_1_6[0:1]) reduction(||: __spread_rv_1_7[0:1]) map(tofrom: __spread_rv_1_7[0:1]) reduction(+: __spread_rv_1_8[0:1]) map(tofrom: __spread_rv_1_8[0:1]){{$}}
// CHECK: {{^}}    __spread_rv_1_0[0] *= v[i]; __spread_rv_1_1[0] = v[i] < __spread_rv_1_1[0] ? v[i] : __spread_rv_1_1[0]; __spread_rv_1_2[0] = a->max > __spread_rv_1_2[0] ? a->max : __spread_rv_1_2[0];{{$}}

// nowait: one task runs the construct without nowait (its chunks as without nowait, a host
// chunk on the task's thread), then combines the partials; the user's depend clauses go to the
// task, default(shared) keeps the variables the body uses those of the enclosing function.
float sum_nowait(int n, const float *x) {
  float s = 0;
#pragma omp target spread teams distribute parallel for nowait reduction(+: s) \
        map(to: x[omp_spread_start:omp_spread_size]) depend(in: x[0])
  for (int i = 0; i < n; i++)
    s += x[i];
#pragma omp taskwait
  return s;
}
// CHECK-LABEL: {{^}}float sum_nowait(
// CHECK-NEXT: {{^}}  float s = 0;{{$}}
// CHECK-NEXT: {{^}}#pragma omp task default(shared) depend(in: x[0]){{$}}
// CHECK-NEXT: {{^}}#line [[L:[0-9]+]] "{{.*}}reduction_lowering.c"
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_2 = { "{{.*}}reduction_lowering.c", [[L]], __SPREAD_KIND_TARGET, 0, 0 }; {{.*}} __spread_reductions_t *__spread_rd_2 = 0; __spread_region_t *__spread_r_2 = __spread_region_begin(&__spread_c_2, (0), (n), (const int32_t *)0, 0, 0); if (!__spread_rd_2) { __spread_reduction(__spread_r_2, __SPREAD_RED_ADD, {{.*}}; __spread_rd_2 = __spread_region_reductions(__spread_r_2); } { {{.*}} __typeof__(s) *const __spread_rv_2_0 = (__typeof__(s) *)__spread_reduction_slot(__spread_r_2, 0);{{$}}
// CHECK-NEXT: {{^}}#line [[L]] "{{.*}}reduction_lowering.c"
// CHECK-NEXT: {{^}}#pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_2)) reduction(+: __spread_rv_2_0[0:1]) map(tofrom: __spread_rv_2_0[0:1]) map(to: x[omp_spread_start:omp_spread_size]){{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (int i = omp_spread_start; i < (int)(omp_spread_start + omp_spread_size); i++){{$}}
// CHECK-NEXT: {{^}}    __spread_rv_2_0[0] += x[i]; } __spread_region_end(__spread_r_2); if (__spread_rd_2) __spread_reductions_finish(__spread_rd_2); }{{$}}
// CHECK-NEXT: {{^}}#pragma omp taskwait
