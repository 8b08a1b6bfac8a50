// LIBOMPTARGET_PROFILE=<file> writes libomptarget's time trace, with stock's event names and as
// many of each as stock for plain constructs (a target region per construct, a data copy per data
// construct, a kernel per region), on both load paths, and one event per copy each way (3 to the
// device, 4 back: stock's host plugin counts its copies otherwise); the Total events count every
// event, short ones too; LIBOMPTARGET_PROFILE_GRANULARITY drops short events from
// the timeline but not from the totals. The results are the serial loop's.
//
// RUN: %clang-offload %s -o %t
// RUN: env LIBOMPTARGET_PROFILE=%t.stock.json LIBOMPTARGET_PROFILE_GRANULARITY=0 %stock-run %t | FileCheck %s --check-prefix=OK
// RUN: env LIBOMPTARGET_PROFILE=%t.lib.json LIBOMPTARGET_PROFILE_GRANULARITY=0 %libpath-run %t | FileCheck %s --check-prefix=OK
// RUN: env LIBOMPTARGET_PROFILE=%t.pre.json LIBOMPTARGET_PROFILE_GRANULARITY=0 %preload-run %t | FileCheck %s --check-prefix=OK
// RUN: python3 %S/Inputs/time_trace.py %t.stock.json "Runtime: target exe" "Runtime: Data Copy" "Kernel Target" > %t.stock.txt
// RUN: python3 %S/Inputs/time_trace.py %t.lib.json "Runtime: target exe" "Runtime: Data Copy" "Kernel Target" > %t.lib.txt
// RUN: python3 %S/Inputs/time_trace.py %t.pre.json "Runtime: target exe" "Runtime: Data Copy" "Kernel Target" > %t.pre.txt
// RUN: diff %t.stock.txt %t.lib.txt
// RUN: diff %t.stock.txt %t.pre.txt
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.lib.txt
// RUN: python3 %S/Inputs/time_trace.py %t.lib.json HostToDev DevToHost | FileCheck %s --check-prefix=COPIES
//
// Default granularity (500 us): the short constructs leave the timeline, not the totals.
// RUN: env LIBOMPTARGET_PROFILE=%t.coarse.json %libpath-run %t | FileCheck %s --check-prefix=OK
// RUN: python3 %S/Inputs/time_trace.py %t.coarse.json "Runtime: Data Copy" | FileCheck %s --check-prefix=COARSE
//
// CHECK: Runtime: target exe: kept=3 total=3
// CHECK: Runtime: Data Copy: kept=5 total=5
// CHECK: Kernel Target: kept=3 total=3
// COPIES: HostToDev: kept=3 total=3
// COPIES: DevToHost: kept=4 total=4
// COARSE: Runtime: Data Copy: kept=0 total=5
// OK: results: 0 wrong

#include <stdio.h>

#define N 4096

int main(void) {
  static double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  int wrong = 0;
#pragma omp target teams distribute parallel for map(to : a) map(from : b)
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
#pragma omp target data map(tofrom : b)
  {
#pragma omp target
    b[0] += 1;
#pragma omp target update from(b)
  }
#pragma omp target enter data map(to : a)
#pragma omp target
  a[1] += 1;
#pragma omp target exit data map(from : a)
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2 * i + (i == 0) || a[i] != i + (i == 1);
  printf("results: %d wrong\n", wrong);
  return wrong != 0;
}
