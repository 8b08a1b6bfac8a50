// Spread's constructs as an OMPT tool sees them (test-suite/Inputs/ompt_target_tool.h, carried
// by the program; non-EMI and EMI forms): each chunk of a `target spread` is a `target` region
// on its device, each device's part of `target enter/exit data spread` and `target update
// spread` a data construct there; every region's begin has an end, every copy and kernel lies
// inside its region with the construct's codeptr_ra, and the bytes add up to the maps. The
// results are the serial loop's.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -I %S/../Inputs %s -o %t
// RUN: %t > %t.out
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.out
// RUN: grep -c "target kind=1 endpoint=1 device=0" %t.out | FileCheck %s --check-prefix=TWO
// RUN: grep -c "target kind=1 endpoint=1 device=1" %t.out | FileCheck %s --check-prefix=TWO
// RUN: %spread-cc -O1 -DEMI -I %S/../Inputs %s -o %t.emi
// RUN: %t.emi > %t.emi.out
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.emi.out
// RUN: grep -c "target kind=1 endpoint=2 device=1" %t.emi.out | FileCheck %s --check-prefix=TWO
// TWO: 2
//
// The same constructs in LIBOMPTARGET_PROFILE's time trace: the spread construct, its 4 chunks'
// target regions and kernels, each device's part of the data constructs.
// RUN: env LIBOMPTARGET_PROFILE=%t.json LIBOMPTARGET_PROFILE_GRANULARITY=0 %t > /dev/null
// RUN: python3 %S/../runtime/Inputs/time_trace.py %t.json "Spread: target spread" "Runtime: target exe" "Kernel Target" "Spread: target enter data spread" "Runtime: Data Copy" | FileCheck %s --check-prefix=PROF --implicit-check-not=FAIL
// PROF: Spread: target spread: kept=1 total=1
// PROF: Runtime: target exe: kept=4 total=4
// PROF: Kernel Target: kept=4 total=4
// PROF: Spread: target enter data spread: kept=1 total=1
// PROF: Runtime: Data Copy: kept=6 total=6

#include <omp.h>
#include <stdio.h>
#include "ompt_target_tool.h"

#define N 4000

int main(void) {
  static double a[N], b[N];
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
  }
  int wrong = 0;

  // 4 chunks, 2 per device: 8000 bytes in and out each.
  // CHECK: -- spread
  printf("-- spread\n");
#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(static, 1000) \
    map(to: a[omp_spread_start:omp_spread_size]) map(from: b[omp_spread_start:omp_spread_size])
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2 * i;

  // Halves on devices 2 and 3: 16000 bytes in each, back by update spread, then released.
  // CHECK: -- data spread
  // CHECK-DAG: target kind=2 endpoint=1 device=2
  // CHECK-DAG: target kind=2 endpoint=1 device=3
  // CHECK-DAG: target kind=4 endpoint=1 device=2
  // CHECK-DAG: target kind=4 endpoint=1 device=3
  // CHECK-DAG: target kind=3 endpoint=2 device=2
  // CHECK-DAG: target kind=3 endpoint=2 device=3
  printf("-- data spread\n");
#pragma omp target enter data spread devices(2, 3) range(0:N) chunk_size(N / 2) \
    map(to: a[omp_spread_start:omp_spread_size])
#pragma omp target update spread devices(2, 3) range(0:N) chunk_size(N / 2) \
    from(a[omp_spread_start:omp_spread_size])
#pragma omp target exit data spread devices(2, 3) range(0:N) chunk_size(N / 2) \
    map(release: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < N; i++)
    wrong += a[i] != i;

  // CHECK: results: 0 wrong
  printf("results: %d wrong\n", wrong);
  fflush(stdout);
  return wrong != 0;
}
// 32000 + 32000 in; 32000 + 32000 out.
// CHECK: counts: device_initialize=4 device_load=4 target_begin=[[N:[0-9]+]] target_end=[[N]] data_op={{[0-9]+}} submit=4
// CHECK: bytes: to=64000 from=64000
// CHECK: tool finalized: device_finalize=4
