// Built with debug line tables, every construct's work in SPREAD_TRACE names the construct's
// source line: plain target regions and data constructs, and the chunks of a
// `target spread nowait`, which the pass lowers to target tasks that reach the runtime through
// the plain entry points (without a location they are just "kernel", "H2D ...").
//
// REQUIRES: spread
// RUN: %spread-cc -O1 -gline-tables-only %s -o %t
// RUN: rm -f %t.json
// RUN: env SPREAD_TRACE=%t.json %t | FileCheck %s --check-prefix=OUT --implicit-check-not=FAIL
// RUN: FileCheck %s --input-file=%t.json

#include <stdio.h>

#define N 800

int main(void) {
  static double A[N];
#pragma omp target enter data map(to : A[0 : N]) device(2)
#pragma omp target map(tofrom : A[0 : N]) device(2)
  for (int i = 0; i < N; i++)
    A[i] = i + 0.5;
#pragma omp target exit data map(from : A[0 : N]) device(2)
#pragma omp parallel
#pragma omp single
  {
#pragma omp target spread devices(1, 3) spread_schedule(static, 400) nowait                    \
    map(tofrom : A[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      A[i] += 1.0;
#pragma omp taskwait
  }
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += A[i] != i + 1.5;
  printf("%s %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  // OUT: PASS 0 mismatches
  return 0;
}
// CHECK-DAG: "name":"H2D 6400 B {{.*}}trace_locations.c:18{{[:0-9]*}}","cat":"transfer","ph":"X","pid":1,"tid":2
// CHECK-DAG: "name":"kernel {{.*}}trace_locations.c:19{{[:0-9]*}}","cat":"kernel","ph":"X","pid":1,"tid":2
// CHECK-DAG: "name":"D2H 6400 B {{.*}}trace_locations.c:22{{[:0-9]*}}","cat":"transfer","ph":"X","pid":1,"tid":2
// CHECK-DAG: "name":"kernel {{.*}}trace_locations.c:26{{[:0-9]*}}","cat":"kernel","ph":"X","pid":1,"tid":1
// CHECK-DAG: "name":"kernel {{.*}}trace_locations.c:26{{[:0-9]*}}","cat":"kernel","ph":"X","pid":1,"tid":3
