// Compute-unit regions (seed 004, docs/spread-abi.md §5): a host 'teams' whose num_teams has
// descriptors count:family:size becomes a parallel region with one thread per CU; each CU takes
// units of the distributed loop from the runtime (__spread_cu_next) and commits them. The
// paper's two-line form (teams, then distribute) and its '#pragma distribute' typo (a warning),
// ':' and '::', a structured block (one turn per CU), clauses moved to the parallel region.
// RUN: %spread-cc --spread-print-lowered %s 2>%t.err | FileCheck --strict-whitespace %s
// RUN: FileCheck --check-prefix=WARN %s < %t.err
// RUN: %spread-cc --spread-no-pass -fsyntax-only -Wall -Werror %s
// RUN: %spread-cc -c %s -o %t.o
// RUN: llvm-nm %t.o | FileCheck --check-prefix=SYMS %s
// RUN: %spread-cxx -x c++ -fsyntax-only -Wall -Werror %s
// SYMS-DAG: U __spread_cu_begin
// SYMS-DAG: U __spread_cu_num_threads
// SYMS-DAG: U __spread_cu_enter
// SYMS-DAG: U __spread_cu_next
// SYMS-DAG: U __spread_cu_commit
// SYMS-DAG: U __spread_cu_leave
// SYMS-DAG: U __spread_cu_end

#include <omp.h>

void comp(int zone);

// Fig. 11 of the paper.
void step(int num_zones) {
  int zone;
#pragma omp teams num_teams(4:CPU:4, 2:GPU:1)
#pragma omp distribute dist_schedule(dynamic, 1)
  for (zone = 0; zone < num_zones; zone++) {
    comp(zone);
  }
}
// CHECK-LABEL: {{^}}void step(
// CHECK-NEXT: {{^}}  int zone;
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_0 = { "{{.*}}cu_lowering.c", 27, __SPREAD_KIND_CU, 0, __SPREAD_SCHED_DYNAMIC }; const __spread_cud_t __spread_cud_0[] = { { (4), __SPREAD_CU_CPU, (4) }, { (2), __SPREAD_CU_GPU, (1) } }; __spread_cu_region_t *__spread_cu_0 = __spread_cu_begin(&__spread_c_0, (0), (num_zones), __spread_cud_0, 2, (1), 0);{{$}}
// CHECK-NEXT: {{^}}#line 27 "{{.*}}cu_lowering.c"
// The loop variable is declared outside: private in the CUs' parallel region.
// CHECK-NEXT: {{^}}#pragma omp parallel num_threads(__spread_cu_num_threads(__spread_cu_0)) firstprivate(__spread_cu_0) private(zone){{$}}
// CHECK-NEXT: {{^}}#line 27 "{{.*}}cu_lowering.c"
// CHECK-NEXT: {{^}}{ int64_t __spread_lo_0, __spread_hi_0; __spread_cu_enter(__spread_cu_0); while (__spread_cu_next(__spread_cu_0, &__spread_lo_0, &__spread_hi_0)) { {{[{]}}{{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  for (zone = __spread_lo_0; zone < __spread_hi_0; zone++) {{[{]}}{{$}}
// CHECK-NEXT: {{^}}    comp(zone);{{$}}
// CHECK-NEXT: {{^}}  } } __spread_cu_commit(__spread_cu_0, __spread_lo_0, __spread_hi_0); } __spread_cu_leave(__spread_cu_0); } __spread_cu_end(__spread_cu_0); }{{$}}

// Combined, '::', an inclusive bound, thread_limit and the teams' data-sharing and reduction
// clauses (on the parallel region); '#pragma distribute' and a dropped 'parallel for' warn.
double combined(int n, int ncpu, const double *x) {
  double sum = 0;
#pragma omp teams distribute num_teams(ncpu::CPU::2, 1::GPU::1) dist_schedule(static_opt) thread_limit(2) reduction(+: sum) default(none) shared(x)
  for (int i = 1; i <= n; i++)
    sum += x[i];
// WARN: cu_lowering.c:[[@LINE+2]]:9: warning: '#pragma distribute' is not an OpenMP directive; did you mean '#pragma omp distribute'? (treated as one)
#pragma omp teams num_teams(1:CPU:2)
#pragma distribute dist_schedule(static, 4)
  for (int i = 0; i < n; i++)
    comp(i);
// WARN: cu_lowering.c:[[@LINE+1]]:30: warning: 'parallel for' is ignored in 'teams distribute parallel for' with compute units: each compute unit runs its iterations on one thread; a CPU compute unit can open a 'parallel for' with omp_get_cu_num_cpus() threads in the loop body
#pragma omp teams distribute parallel for num_teams(2:CPU:1) dist_schedule(adaptive)
  for (int i = 0; i < n; i++)
    comp(i);
#pragma omp teams loop num_teams(2:CPU:1)
  for (int i = 0; i < n; i++)
    comp(i);
  return sum;
}
// CHECK-LABEL: {{^}}double combined(
// CHECK: {{^}}{ static const __spread_construct_t __spread_c_1 = { "{{.*}}cu_lowering.c", [[#@LINE-18]], __SPREAD_KIND_CU, 0, __SPREAD_SCHED_STATIC_OPT }; const __spread_cud_t __spread_cud_1[] = { { (ncpu), __SPREAD_CU_CPU, (2) }, { (1), __SPREAD_CU_GPU, (1) } }; __spread_cu_region_t *__spread_cu_1 = __spread_cu_begin(&__spread_c_1, (1), (n) + (int64_t)1, __spread_cud_1, 2, 0, (2));{{$}}
// CHECK: {{^}}#pragma omp parallel num_threads(__spread_cu_num_threads(__spread_cu_1)) firstprivate(__spread_cu_1) reduction(+: sum) default(none) shared(x){{$}}
// CHECK: {{^}}  for (int i = __spread_lo_1; i <= (int)(__spread_hi_1 - 1); i++){{$}}
// CHECK-NEXT: {{^}}    sum += x[i]; } __spread_cu_commit(__spread_cu_1, __spread_lo_1, __spread_hi_1); } __spread_cu_leave(__spread_cu_1); } __spread_cu_end(__spread_cu_1); }{{$}}
// CHECK: __SPREAD_KIND_CU, 0, __SPREAD_SCHED_STATIC }; const __spread_cud_t __spread_cud_2[] = { { (1), __SPREAD_CU_CPU, (2) } }; __spread_cu_region_t *__spread_cu_2 = __spread_cu_begin(&__spread_c_2, (0), (n), __spread_cud_2, 1, (4), 0);{{$}}
// CHECK: __SPREAD_KIND_CU, 0, __SPREAD_SCHED_ADAPTIVE };
// CHECK: {{^}}  for (int i = __spread_lo_3; i < (int)(__spread_hi_3); i++){{$}}
// No dist_schedule: 0, the runtime's default (SPREAD_CU_SCHEDULE, else static).
// CHECK: __SPREAD_KIND_CU, 0, 0 };

// A structured block: every CU runs it once (static, as many units as CUs).
void hybrid(void) {
#pragma omp teams num_teams(2:CPU:1, 1:GPU:1)
  {
    if (omp_is_gpu())
      omp_synchronize();
  }
}
// CHECK-LABEL: {{^}}void hybrid(
// CHECK-NEXT: {{^}}{ static const __spread_construct_t __spread_c_5 = { "{{.*}}cu_lowering.c", {{[0-9]+}}, __SPREAD_KIND_CU, 0, __SPREAD_SCHED_STATIC }; const __spread_cud_t __spread_cud_5[] = { { (2), __SPREAD_CU_CPU, (1) }, { (1), __SPREAD_CU_GPU, (1) } }; __spread_cu_region_t *__spread_cu_5 = __spread_cu_begin(&__spread_c_5, 0, (int64_t)__spread_cud_5[0].__spread_count + (int64_t)__spread_cud_5[1].__spread_count, __spread_cud_5, 2, 0, 0);{{$}}
// CHECK-NEXT: {{^}}#line {{[0-9]+}} "{{.*}}cu_lowering.c"
// CHECK-NEXT: {{^}}#pragma omp parallel num_threads(__spread_cu_num_threads(__spread_cu_5)) firstprivate(__spread_cu_5){{$}}
// CHECK-NEXT: {{^}}#line {{[0-9]+}} "{{.*}}cu_lowering.c"
// CHECK-NEXT: {{^}}{ int64_t __spread_lo_5, __spread_hi_5; __spread_cu_enter(__spread_cu_5); if (__spread_cu_next(__spread_cu_5, &__spread_lo_5, &__spread_hi_5)) { {{[{]}}{{$}}
// CHECK-NEXT: {{^}}  {{[{]}}{{$}}
// CHECK: {{^}}  } } __spread_cu_commit(__spread_cu_5, __spread_lo_5, __spread_hi_5); } __spread_cu_leave(__spread_cu_5); } __spread_cu_end(__spread_cu_5); }{{$}}

// Other teams are clang's; OpenMP 5.1's num_teams(lower:upper) becomes num_teams(upper).
void plain(int n, double *x) {
#pragma omp teams num_teams(2 : 4) thread_limit(1)
  comp(omp_get_team_num());
#pragma omp target teams distribute num_teams(1:n) map(tofrom: x[0:n])
  for (int i = 0; i < n; i++)
    x[i] = i;
}
// CHECK-LABEL: {{^}}void plain(
// CHECK-NEXT: {{^}}#pragma omp teams num_teams( 4) thread_limit(1){{$}}
// CHECK: {{^}}#pragma omp target teams distribute num_teams(n) map(tofrom: x[0:n]){{$}}
