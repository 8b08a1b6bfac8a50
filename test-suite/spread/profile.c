// SPREAD_SCHED_PROFILE: rates an adaptive schedule learns are written at exit (record:FILE) and
// read at start (load:FILE), so that a run with a profile deals proportional blocks from the
// construct's first execution instead of measuring under dynamic first; a malformed profile is a
// warning naming the line. Results equal the serial loop either way.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: rm -f %t.prof
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_INFO=chunks SPREAD_SCHED_PROFILE=record:%t.prof %t 2>&1 | FileCheck %s --check-prefix=FIRST
// RUN: FileCheck %s --check-prefix=FILE < %t.prof
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_INFO=chunks SPREAD_SCHED_PROFILE=load:%t.prof %t 2>&1 | FileCheck %s --check-prefix=LOADED
// RUN: printf 'profile.c:1\thost\tfast\n' > %t.bad
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_SCHED_PROFILE=load:%t.bad %t 2>&1 | FileCheck %s --check-prefix=BAD

#include <omp.h>
#include <stdio.h>

#define N 4096
static double a[N], b[N];

int main(void) {
  for (int i = 0; i < N; i++)
    a[i] = i % 13;
  int bad = 0;
  for (int step = 0; step < 2; step++) {
#pragma omp target spread teams distribute parallel for devices(0, 1) spread_schedule(adaptive) map(to: a[omp_spread_start:omp_spread_size]) map(from: b[omp_spread_start:omp_spread_size])
    for (int i = 0; i < N; i++)
      b[i] = 3 * a[i] - 1;
    for (int i = 0; i < N; i++)
      bad += b[i] != 3 * a[i] - 1;
    fprintf(stderr, "step %d done\n", step);
  }
  printf("%s\n", bad ? "FAIL" : "PASS");
  fprintf(stderr, "%s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}

// Without a profile the first execution measures (dynamic), the second deals blocks.
// FIRST: chunk [0,{{[0-9]+}}) -> device {{[01]}} (dynamic)
// FIRST: step 0 done
// FIRST-NOT: (dynamic)
// FIRST: chunk [{{[0-9]+}},{{[0-9]+}}) -> device {{[01]}} (adaptive)
// FIRST: step 1 done
// FIRST: PASS

// FILE: # spread schedule profile
// FILE-DAG: profile.c:{{[0-9]+}}{{	}}device 0{{	}}{{[0-9.e+]+}}
// FILE-DAG: profile.c:{{[0-9]+}}{{	}}device 1{{	}}{{[0-9.e+]+}}

// With the profile, blocks from the first execution.
// LOADED-NOT: (dynamic)
// LOADED: chunk [0,{{[0-9]+}}) -> device 0 (adaptive)
// LOADED: step 0 done
// LOADED: PASS

// BAD: spread: warning: SPREAD_SCHED_PROFILE: {{.*}}.bad: line 1: "fast" is not a positive rate; ignoring it
// BAD: PASS
