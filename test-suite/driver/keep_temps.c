// --spread-keep-temps keeps the lowered files and names their directory; when no input has a
// Spread construct there is nothing to keep, and the driver says so instead of leaving an empty
// directory behind that no message points to.
// REQUIRES: spread
// RUN: %spread-cc --spread-no-pass --spread-keep-temps -c %s -o %t.o 2> %t.err
// RUN: FileCheck %s --check-prefix=KEPT < %t.err
// RUN: bash -c 'find "$(sed -n "s/.*lowered files kept in //p" %t.err)" -name "*.c"' | FileCheck %s --check-prefix=FILES
// RUN: %spread-cc --spread-no-pass --spread-keep-temps -c %S/Inputs/plain_target.c -o %t.plain.o 2>&1 | FileCheck %s --check-prefix=NONE

// KEPT: lowered files kept in
// FILES: keep_temps.c
// NONE: no input needed lowering (no Spread construct): nothing to keep

void scale(double *a, int n) {
#pragma omp target spread teams distribute parallel for devices(0, 1) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++)
    a[i] *= 2;
}
