// Spread's OMPT tool leaves the task data libomp hands it as it found it: after a kernel whose
// parallel region ran on a host device, a worker of a later parallel region running an
// undeferred task with depend (task if(0) depend, as clang lowers target depend without
// nowait) died in libomp's check `taskwait_task_data->ptr == NULL` (kmp_taskdeps.cpp), when
// the tool kept a mark in an implicit task's data past its end (found by scripts/any-fuzz.py).
// The device(any) construct, never run, makes the tool start.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s
// RUN: env SPREAD_COHERENCE=lazy %t | FileCheck %s
// CHECK: 2 tasks ran

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define N 1024
static double a[N];
static char tok[8];

int main(int argc, char **argv) {
  (void)argv;
  for (int i = 0; i < N; i++)
    a[i] = i;
  if (argc > 5) {
#pragma omp target device(any) map(tofrom : a[0 : N]) nowait
#pragma omp if_device(cpu) parallel for
    for (int i = 0; i < N; i++)
      a[i] = a[i] + 1;
  }
#pragma omp target map(tofrom : a[0 : N])
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    a[i] = a[i] + 1;
  int t = 0;
#pragma omp parallel num_threads(2)
  {
    int me = omp_get_thread_num();
#pragma omp task if (0) depend(inout : tok[me])
    __atomic_add_fetch(&t, 1, __ATOMIC_SEQ_CST);
  }
  printf("%d tasks ran\n", t);
  return t != 2;
}
