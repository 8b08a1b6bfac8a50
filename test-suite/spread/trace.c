// SPREAD_TRACE writes a Chrome trace: a track per device used, and an event per
// transfer and kernel labelled with the construct and chunk.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: rm -f %t.json
// RUN: env SPREAD_TRACE=%t.json %t | FileCheck %s --check-prefix=OUT --implicit-check-not=FAIL
// RUN: FileCheck %s --input-file=%t.json
// RUN: python3 -c "import json,sys; d=json.load(open(sys.argv[1])); ev=d['traceEvents']; print('events', sum(e['ph']=='X' for e in ev))" %t.json | FileCheck %s --check-prefix=JSON

#include <stdio.h>

#define N 800

int main(void) {
  static double A[N];
#pragma omp target spread devices(1, 3) spread_schedule(static, 400)          \
    map(tofrom : A[omp_spread_start : omp_spread_size])
  for (int i = 0; i < N; i++)
    A[i] = i + 0.5;
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += A[i] != i + 0.5;
  printf("%s %d mismatches\n", bad ? "FAIL" : "PASS", bad);
  // OUT: PASS 0 mismatches
  return 0;
}
// CHECK-DAG: "name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"device 1"}
// CHECK-DAG: "name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":"device 3"}
// CHECK-DAG: "name":"H2D 3200 B target spread {{.*}}trace.c:17 chunk [0,400)","cat":"transfer","ph":"X","pid":1,"tid":1
// CHECK-DAG: "name":"kernel target spread {{.*}}trace.c:17 chunk [0,400)","cat":"kernel","ph":"X","pid":1,"tid":1
// CHECK-DAG: "name":"D2H 3200 B target spread {{.*}}trace.c:17 chunk [0,400)","cat":"transfer","ph":"X","pid":1,"tid":1
// CHECK-DAG: "name":"kernel target spread {{.*}}trace.c:17 chunk [400,800)","cat":"kernel","ph":"X","pid":1,"tid":3
// JSON: events 6
