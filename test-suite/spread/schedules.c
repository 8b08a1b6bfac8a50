// spread_schedule(static | dynamic | adaptive [, chunk]) on target spread, end to end: each
// schedule gives the serial result, and with SPREAD_INFO=chunks every iteration is in exactly one
// chunk (Inputs/check_chunks.py over the chunk lines). A construct without the clause follows
// SPREAD_SCHEDULE.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_INFO=chunks %t > %t.out 2> %t.err
// RUN: FileCheck %s --implicit-check-not=FAIL < %t.out
// RUN: python3 %S/Inputs/check_chunks.py %t.out %t.err | FileCheck %s --check-prefix=CHUNKS --implicit-check-not=FAIL
// RUN: env SPREAD_INFO=chunks SPREAD_SCHEDULE=dynamic %t > %t.dyn.out 2> %t.dyn.err
// RUN: python3 %S/Inputs/check_chunks.py %t.dyn.out %t.dyn.err | FileCheck %s --check-prefix=CHUNKS --implicit-check-not=FAIL
// RUN: env SPREAD_INFO=chunks SPREAD_SCHEDULE=adaptive %t > %t.ad.out 2> %t.ad.err
// RUN: python3 %S/Inputs/check_chunks.py %t.ad.out %t.ad.err | FileCheck %s --check-prefix=CHUNKS --implicit-check-not=FAIL
// RUN: %spread-cc -O1 --spread-no-pass %s -o %t.nopass
// RUN: %t.nopass | FileCheck %s --implicit-check-not=FAIL
// CHECK: all schedules ok
// CHUNKS-COUNT-8: iterations in {{[0-9]+}} chunks ok

#include <omp.h>
#include <stdio.h>

#define N 1003
#define LO 3

static double a[N], b[N];
static int failures;

static void reset(void) {
  for (int i = 0; i < N; i++)
    b[i] = -1;
}

// every iteration [LO, N) ran exactly once: b[i] = 2 a[i] + 1, and b[0..LO) untouched
static void check(const char *what, int line) {
  int bad = 0;
  for (int i = 0; i < N; i++) {
    double want = i < LO ? -1 : 2 * a[i] + 1;
    if (b[i] != want && bad++ < 3)
      printf("FAIL %s: b[%d] = %g, serial %g\n", what, i, b[i], want);
  }
  failures += bad != 0;
  printf("range %d %d %d\n", line, LO, N);
}

#define BODY b[i] = 2 * a[i] + 1

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i % 17;
  int line;

  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for devices(0, 1, 2) spread_schedule(static) map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
  check("static", line);

  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for devices(2, 0, 1) spread_schedule(static, 10) map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
  check("static, 10", line);

  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for devices(0, 1, 2, 3) spread_schedule(dynamic) map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
  check("dynamic", line);

  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for devices(3, 1) spread_schedule(dynamic, 7) map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
  check("dynamic, 7", line);

  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for devices(0, 1, 2, 3) spread_schedule(adaptive) map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
  check("adaptive", line);

  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for devices(1, 0, omp_get_initial_device()) spread_schedule(adaptive, 16) map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
  check("adaptive, 16 with the host", line);

  // nowait: the chunks of a dynamic schedule complete by the taskwait
  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for spread_schedule(dynamic, 64) nowait map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
#pragma omp taskwait
  check("dynamic, 64 nowait", line);

  // no clause: SPREAD_SCHEDULE (else static)
  reset();
  line = __LINE__ + 1;
#pragma omp target spread teams distribute parallel for map(to: a[omp_spread_start:omp_spread_size]) map(tofrom: b[omp_spread_start:omp_spread_size])
  for (int i = LO; i < N; i++) BODY;
  check("default", line);

  if (failures == 0)
    printf("all schedules ok\n");
  return failures != 0;
}
