// A program that carries its own OMPT tool (test-suite/Inputs/ompt_target_tool.h) sees the
// same target callbacks under Spread as under stock libomptarget 19, event for event (kinds,
// endpoints, device numbers, operations, bytes, teams), in the non-EMI and the EMI forms, on
// both load paths; the tool's own checks (regions paired, operations inside their region,
// codeptr_ra set and the region's, host-op ids) hold; and the results are the serial loop's.
// The same tool loaded through OMP_TOOL_LIBRARIES sees the same events. As on stock: a tool
// that registers both forms gets the EMI ones only, one without device_initialize gets the rest,
// and one whose initialize returns 0 gets nothing.
//
// RUN: %clang-offload -I %S/../Inputs %s -o %t
// RUN: %stock-run %t > %t.stock
// RUN: %libpath-run %t > %t.lib
// RUN: %preload-run %t > %t.pre
// RUN: diff %t.stock %t.lib
// RUN: diff %t.stock %t.pre
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.lib
//
// RUN: %clang-offload -DEMI -I %S/../Inputs %s -o %t.emi
// RUN: %stock-run %t.emi > %t.emi.stock
// RUN: %libpath-run %t.emi > %t.emi.lib
// RUN: %preload-run %t.emi > %t.emi.pre
// RUN: diff %t.emi.stock %t.emi.lib
// RUN: diff %t.emi.stock %t.emi.pre
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.emi.lib
//
// RUN: %clang-offload -DEMI -DBOTH -I %S/../Inputs %s -o %t.both
// RUN: %stock-run %t.both > %t.both.stock
// RUN: %libpath-run %t.both > %t.both.lib
// RUN: diff %t.both.stock %t.both.lib
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.both.lib
//
// RUN: %clang-offload -DNO_DEVICE_INIT -I %S/../Inputs %s -o %t.noinit
// RUN: %stock-run %t.noinit > %t.noinit.stock
// RUN: %libpath-run %t.noinit > %t.noinit.lib
// RUN: diff %t.noinit.stock %t.noinit.lib
// RUN: FileCheck %s --check-prefix=NOINIT --implicit-check-not=FAIL < %t.noinit.lib
// NOINIT-NOT: device_initialize
// NOINIT: target kind=1 endpoint=1 device=0
// NOINIT: results: 0 wrong
//
// RUN: %clang-offload -DWRONG_RETURN -I %S/../Inputs %s -o %t.off
// RUN: %stock-run %t.off > %t.off.stock
// RUN: %libpath-run %t.off > %t.off.lib
// RUN: diff %t.off.stock %t.off.lib
// RUN: FileCheck %s --check-prefix=OFF < %t.off.lib
// OFF-NOT: target kind
// OFF-NOT: data_op
// OFF: results: 0 wrong
//
// RUN: %clang-plain -fopenmp -shared -fPIC -DTOOL_LIBRARY -include %S/../Inputs/ompt_target_tool.h -x c /dev/null -o %t.tool.so
// RUN: %clang-offload -DNO_TOOL -I %S/../Inputs %s -o %t.notool
// RUN: env OMP_TOOL_LIBRARIES=%t.tool.so %stock-run %t.notool > %t.libs.stock
// RUN: env OMP_TOOL_LIBRARIES=%t.tool.so %libpath-run %t.notool > %t.libs.lib
// RUN: diff %t.libs.stock %t.libs.lib
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.libs.lib

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#ifndef NO_TOOL
#include "ompt_target_tool.h"
#endif

#define N 1000

int main(void) {
  static float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
    c[i] = 1;
  }
  int wrong = 0;

  // CHECK: device_initialize device=0
  // CHECK: -- kernel
  // CHECK: device_load device=0
  // CHECK: target kind=1 endpoint=1 device=0
  // CHECK: data_op alloc src_device=4 dest_device=0 bytes=4000
  // CHECK: data_op to src_device=4 dest_device=0 bytes=4000
  // CHECK: submit teams=0
  // CHECK: data_op from src_device=0 dest_device=4 bytes=4000
  // CHECK: data_op delete src_device=0 dest_device=-1 bytes=0
  // CHECK: target kind=1 endpoint=2 device=0
  printf("-- kernel\n");
#pragma omp target teams distribute parallel for map(to : a) map(from : b)
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2 * a[i];

  // CHECK: -- data
  // CHECK: target kind=2 endpoint=1 device=1
  // CHECK: target kind=1 endpoint=1 device=1
  // CHECK: submit teams=1
  // CHECK: target kind=3 endpoint=2 device=1
  printf("-- data\n");
#pragma omp target data map(tofrom : c) device(1)
  {
#pragma omp target device(1)
    for (int i = 0; i < N; i++)
      c[i] += 1;
  }
  for (int i = 0; i < N; i++)
    wrong += c[i] != 2;

  // CHECK: -- enter update exit
  // CHECK: target kind=4 endpoint=1 device=0
  // CHECK: target kind=3 endpoint=2 device=0
  printf("-- enter update exit\n");
#pragma omp target enter data map(to : a)
#pragma omp target
  for (int i = 0; i < N; i++)
    a[i] += 1;
#pragma omp target update from(a)
#pragma omp target exit data map(delete : a)
  for (int i = 0; i < N; i++)
    wrong += a[i] != i + 1;

  // CHECK: -- nowait
  // CHECK: target kind=1 endpoint=2 device=2
  printf("-- nowait\n");
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp target map(tofrom : b) nowait device(2)
    for (int i = 0; i < N; i++)
      b[i] += 1;
#pragma omp taskwait
  }
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2 * i + 1;

  // CHECK: -- api
  // CHECK: data_op alloc src_device=4 dest_device=3 bytes=4000
  // CHECK: data_op to src_device=4 dest_device=3 bytes=4000
  // CHECK: data_op from src_device=3 dest_device=4 bytes=4000
  // CHECK: data_op associate src_device=4 dest_device=3 bytes=4000
  // CHECK: data_op disassociate
  // CHECK: data_op delete src_device=3 dest_device=-1 bytes=0
  printf("-- api\n");
  int host = omp_get_initial_device();
  float *d = omp_target_alloc(sizeof a, 3);
  omp_target_memcpy(d, a, sizeof a, 0, 0, 3, host);
  omp_target_memcpy(c, d, sizeof a, 0, 0, host, 3);
  omp_target_associate_ptr(b, d, sizeof b, 0, 3);
  omp_target_disassociate_ptr(b, 3);
  omp_target_free(d, 3);
  for (int i = 0; i < N; i++)
    wrong += c[i] != a[i];

  // CHECK: results: 0 wrong
  printf("results: %d wrong\n", wrong);
  fflush(stdout);
  return wrong != 0;
}
// CHECK: device_finalize device=3
// CHECK: counts: device_initialize=4 device_load=3 target_begin=[[N:[0-9]+]] target_end=[[N]]
// CHECK: tool finalized: device_finalize=4
