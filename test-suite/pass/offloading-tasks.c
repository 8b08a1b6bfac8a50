// The pass marks the target tasks whose body reaches the offload runtime (pass/src/tasks.rs):
// a call to the runtime's `__spread_offloading_task` (declared extern_weak, called only when
// defined) comes right before their allocation. The task of an `if` clause's host branch and
// plain tasks are not marked. A program built with the plugin still runs on stock
// libomptarget, which lacks the marker.
//
// RUN: %clang-plain -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang-plain -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang-plain -O1 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -DMAIN %s -o %t
// RUN: %stock-run %t | FileCheck --check-prefix=OUT %s
// RUN: %libpath-run %t | FileCheck --check-prefix=OUT %s

// CHECK-LABEL: define {{.*}}void @f(
// CHECK:      %spread.mark = select
// CHECK-NEXT: call void %spread.mark()
// CHECK-NEXT: call ptr @__kmpc_omp_target_task_alloc({{.*}} @.omp_task_entry.,
// CHECK-NOT:  %spread.mark
// CHECK:      call ptr @__kmpc_omp_target_task_alloc({{.*}} @.omp_task_entry..2,
// CHECK:      %spread.mark2 = select
// CHECK-NEXT: call void %spread.mark2()
// CHECK-NEXT: call ptr @__kmpc_omp_target_task_alloc({{.*}} @.omp_task_entry..7,
// CHECK-NOT:  %spread.mark
// CHECK:      call ptr @__kmpc_omp_task_alloc(
// CHECK:      declare extern_weak void @__spread_offloading_task()

void f(int *x, int c) {
#pragma omp target nowait if (c) depend(in : x[0]) map(tofrom : x[0 : 4])
  x[1] = x[0] + 1;
#pragma omp target enter data nowait map(to : x[0 : 4]) depend(inout : x[0])
#pragma omp task depend(inout : x[0])
  x[2] = 0;
}

#ifdef MAIN
#include <stdio.h>
int main(void) {
  int x[4] = {41, 0, 0, 0};
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    f(x, 1);
#pragma omp taskwait
  }
#pragma omp target exit data map(from : x[0 : 4])
  printf("x[1]=%d\n", x[1]);
  return x[1] != 42;
}
#endif
// OUT: x[1]=42
