// Compute-unit regions (seed 004): what the driver rejects, at the user's line and column.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace %s
// CHECK-NOT: panicked

void comp(int);

void f(int n) {
// CHECK: {{^.*}}diag_cu.c:[[@LINE+3]]:29: error: 'num_teams' needs at least one compute-unit descriptor 'count:family:size' (e.g. '4:CPU:4'){{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp teams num_teams(){{$}}
// CHECK-NEXT: {{^}}      |                             ^{{$}}
#pragma omp teams num_teams()
  comp(0);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:31: error: unknown compute-unit family 'XPU'; expected CPU or GPU{{$}}
#pragma omp teams num_teams(4:XPU:4)
  comp(0);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:40: error: FPGA compute units are not supported{{$}}
#pragma omp teams num_teams(2:CPU:1, 1:FPGA:1)
  comp(0);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:38: error: expected a compute-unit descriptor 'count:family:size' (e.g. '4:CPU:4' or '2::GPU::1') in 'num_teams'{{$}}
#pragma omp teams num_teams(4:CPU:4, 8)
  comp(0);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:63: error: dist_schedule kind 'guided' is not supported on a 'teams' with compute units; use 'static', 'dynamic', 'static_opt' or 'adaptive'{{$}}
#pragma omp teams distribute num_teams(1:CPU:1) dist_schedule(guided)
  for (int i = 0; i < n; i++) comp(i);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+2]]:48: error: dist_schedule kind 'static_opt' takes no chunk size{{$}}
#pragma omp teams num_teams(1:CPU:1)
#pragma omp distribute dist_schedule(static_opt, 2)
  for (int i = 0; i < n; i++) comp(i);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:38: error: 'dist_schedule' needs 'distribute': write 'teams distribute' or a '#pragma omp distribute' line before the loop{{$}}
#pragma omp teams num_teams(1:CPU:1) dist_schedule(static)
  comp(0);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:49: error: clause 'lastprivate' is not supported on 'teams distribute' with compute units{{$}}
#pragma omp teams distribute num_teams(1:CPU:1) lastprivate(n)
  for (int i = 0; i < n; i++) comp(i);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:19: error: 'teams distribute simd' with compute units is not supported; use 'teams', 'teams distribute' or 'teams loop'{{$}}
#pragma omp teams distribute simd num_teams(1:CPU:1)
  for (int i = 0; i < n; i++) comp(i);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+2]]:3: error: 'teams distribute' must be followed by a for loop{{$}}
#pragma omp teams distribute num_teams(1:CPU:1)
  while (n--) comp(n);
// CHECK: {{^.*}}diag_cu.c:[[@LINE+2]]:40: error: 'break' statement cannot be used in the loop of 'teams distribute' {{.*}}
#pragma omp teams distribute num_teams(1:CPU:1)
  for (int i = 0; i < n; i++) { if (i) break; }
#pragma omp teams num_teams(2:CPU:1)
  {
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:1: error: a 'teams' with compute units cannot be nested inside another compute-unit region{{$}}
#pragma omp teams num_teams(1:GPU:1)
    comp(1);
  }
#pragma omp target
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:1: error: a 'teams' with compute units runs on the host; it cannot be nested in a 'target' construct{{$}}
#pragma omp teams num_teams(1:CPU:1)
  comp(2);
#pragma omp target spread parallel for
  for (int i = 0; i < n; i++) {
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:1: error: 'teams' cannot be nested inside the loop of a 'target spread' construct{{$}}
#pragma omp teams num_teams(1:CPU:1)
    comp(i);
  }
}
// CHECK: {{^.*}}diag_cu.c:[[@LINE+1]]:1: error: a 'teams' with compute units must be inside a function{{$}}
#pragma omp teams num_teams(1:CPU:1)
int x;
// CHECK: 15 errors generated.
