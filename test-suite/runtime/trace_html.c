// SPREAD_TRACE=FILE.html stays usable for long runs: 100,000 target constructs (300,000
// operations: a copy in, a kernel, a copy out each) give a page under 4 MiB with every device's
// row and totals counting every operation, all the operations of three windows of the run as
// boxes and the busy fractions of every device elsewhere. A short run's page keeps every
// operation. The Chrome trace (any other file name) keeps every event of a long run.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: rm -f %t.long.html %t.short.html %t.json
// RUN: env SPREAD_TRACE=%t.long.html %libpath-run %t 100000 | FileCheck %s --check-prefix=LONGOUT
// RUN: python3 %S/Inputs/trace_html.py %t.long.html | FileCheck %s --check-prefix=LONG
// RUN: env SPREAD_TRACE=%t.short.html %libpath-run %t 10 | FileCheck %s --check-prefix=SHORTOUT
// RUN: python3 %S/Inputs/trace_html.py %t.short.html | FileCheck %s --check-prefix=SHORT
// RUN: env SPREAD_TRACE=%t.json %libpath-run %t 20000 | FileCheck %s --check-prefix=JSONOUT
// RUN: python3 -c "import json,sys; ev=json.load(open(sys.argv[1]))['traceEvents']; print('events', sum(e['ph']=='X' for e in ev))" %t.json | FileCheck %s --check-prefix=JSON

// LONGOUT: a[0] 100000
// LONG: size under 4 MiB
// LONG: rows device 0, device 1, device 2, device 3
// LONG: totals device 0: 75000 operations, 25000 kernels
// LONG: totals device 1: 75000 operations, 25000 kernels
// LONG: totals device 2: 75000 operations, 25000 kernels
// LONG: totals device 3: 75000 operations, 25000 kernels
// LONG: kept 150{{[0-9][0-9]}} of 300000, 3 windows, busy fractions yes
// SHORTOUT: a[0] 10
// SHORT: rows device 0, device 1, device 2, device 3
// SHORT: kept 30 of 30, 1 windows, busy fractions no
// JSONOUT: a[0] 20000
// JSON: events 60000

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 10;
  int nd = omp_get_num_devices();
  static double a[64];
  for (int s = 0; s < steps; s++) {
    int d = s % nd;
#pragma omp target teams distribute parallel for map(tofrom : a[0:64]) device(d)
    for (int i = 0; i < 64; i++)
      a[i] += 1.0;
  }
  printf("a[0] %g\n", a[0]);
  return 0;
}
