// spread_schedule(static | dynamic | adaptive [, chunk]) on 'target spread': the kind goes into
// the descriptor's __spread_schedule field, the chunk stays the last argument of
// __spread_region_begin; without the clause the field is 0 (the runtime reads SPREAD_SCHEDULE)
// and the chunk 0. Data constructs keep chunk_size and write 0.
// RUN: %spread-cc --spread-print-lowered %s | FileCheck %s
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s
// RUN: not %spread-cc -DBAD -c %s -o %t.o 2>&1 | FileCheck --check-prefix=ERR %s

void f(int n, double *a) {
#pragma omp target spread parallel for spread_schedule(static, 4) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] += 1;
#pragma omp target spread parallel for spread_schedule(dynamic, n / 8) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] += 1;
#pragma omp target spread parallel for spread_schedule(adaptive) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] += 1;
#pragma omp target spread parallel for spread_schedule(dynamic) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] += 1;
#pragma omp target spread parallel for map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] += 1;
#pragma omp target enter data spread range(0:n) chunk_size(16) map(to: a[omp_spread_start:omp_spread_size])
}
// CHECK: __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_STATIC };{{.*}} __spread_region_begin(&__spread_c_0, (0), (n), (const int32_t *)0, 0, (4));
// CHECK: __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_DYNAMIC };{{.*}} __spread_region_begin(&__spread_c_1, (0), (n), (const int32_t *)0, 0, (n / 8));
// CHECK: __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_ADAPTIVE };{{.*}} __spread_region_begin(&__spread_c_2, (0), (n), (const int32_t *)0, 0, 0);
// CHECK: __SPREAD_KIND_TARGET, 0, __SPREAD_SCHED_DYNAMIC };{{.*}} __spread_region_begin(&__spread_c_3, (0), (n), (const int32_t *)0, 0, 0);
// CHECK: __SPREAD_KIND_TARGET, 0, 0 };{{.*}} __spread_region_begin(&__spread_c_4, (0), (n), (const int32_t *)0, 0, 0);
// CHECK: __SPREAD_KIND_ENTER_DATA, 0, 0 };{{.*}} const int64_t __spread_chunk_5 = (16);

#ifdef BAD
void g(int n, double *a) {
// ERR: schedule_lowering.c:[[@LINE+1]]:56: error: spread schedule kind 'guided' is not supported; use 'static', 'dynamic' or 'adaptive'
#pragma omp target spread parallel for spread_schedule(guided, 4)
  for (int i = 0; i < n; i++) a[i] += 1;
// ERR: schedule_lowering.c:[[@LINE+1]]:66: error: 'spread_schedule' takes a kind and at most one chunk size
#pragma omp target spread parallel for spread_schedule(dynamic, 4, 2)
  for (int i = 0; i < n; i++) a[i] += 1;
// ERR: schedule_lowering.c:[[@LINE+1]]:45: error: 'spread_schedule' cannot be used on 'target update spread'; use 'chunk_size(chunk)'
#pragma omp target update spread range(0:n) spread_schedule(dynamic, 4) to(a[omp_spread_start:omp_spread_size])
}
#endif
