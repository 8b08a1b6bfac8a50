// examples/ompt-tool (devprof, an OMPT tool loaded through OMP_TOOL_LIBRARIES) on a spread
// program: its per-device kernels and bytes, from callbacks and from device trace records, equal
// what the program's chunks map (2 chunks of 1000 doubles per device, each copied in and out),
// its totals equal the sums, and the program's
// result is the serial loop's. The same tool on a plain program gives the same totals on stock
// libomptarget and on Spread.
//
// REQUIRES: spread
// RUN: %clang-plain -fopenmp -shared -fPIC -O2 %S/../../examples/ompt-tool/devprof.c -o %t.so
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_TOOL_LIBRARIES=%t.so DEVPROF_OUT=%t.txt %t | FileCheck %s --check-prefix=OK
// RUN: FileCheck %s < %t.txt
// CHECK: devprof: device regions kernels busy_ms bytes_to bytes_from allocs
// CHECK-NEXT: devprof: 0 2 2 {{[0-9.]+}} 16000 16000 4
// CHECK-NEXT: devprof: 1 2 2 {{[0-9.]+}} 16000 16000 4
// CHECK-NEXT: devprof: total kernels=4 bytes_to=32000 bytes_from=32000
// The same from the device trace records.
// CHECK-NEXT: devprof: trace: device 0 kernels=2 kernel_ms={{[0-9.]+}} bytes_to=16000 bytes_from=16000
// CHECK-NEXT: devprof: trace: device 1 kernels=2 kernel_ms={{[0-9.]+}} bytes_to=16000 bytes_from=16000
// OK: results: 0 wrong
//
// RUN: %clang-offload -DPLAIN %s -o %t.plain
// RUN: env OMP_TOOL_LIBRARIES=%t.so DEVPROF_OUT=%t.stock.txt %stock-run %t.plain | FileCheck %s --check-prefix=OK
// RUN: env OMP_TOOL_LIBRARIES=%t.so DEVPROF_OUT=%t.lib.txt %libpath-run %t.plain | FileCheck %s --check-prefix=OK
// RUN: grep total %t.stock.txt > %t.stock.total
// RUN: grep total %t.lib.txt > %t.lib.total
// RUN: diff %t.stock.total %t.lib.total
// RUN: FileCheck %s --check-prefix=PLAIN < %t.lib.total
// PLAIN: devprof: total kernels=2 bytes_to=32000 bytes_from=32000

#include <stdio.h>

#define N 4000

int main(void) {
  static double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  int wrong = 0;
#ifdef PLAIN
  // The same work as two plain regions, one per device.
  for (int d = 0; d < 2; d++) {
    int lo = d * N / 2;
#pragma omp target teams distribute parallel for device(d) map(to : a[lo : N / 2]) \
    map(from : b[lo : N / 2])
    for (int i = lo; i < lo + N / 2; i++)
      b[i] = 2 * a[i];
  }
#else
#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(static, 1000) \
    map(to: a[omp_spread_start:omp_spread_size]) map(from: b[omp_spread_start:omp_spread_size])
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
#endif
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2.0 * i;
  printf("results: %d wrong\n", wrong);
  return wrong != 0;
}
