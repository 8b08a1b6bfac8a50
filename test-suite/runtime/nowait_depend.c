// `target nowait` regions chained with `depend` across all 4 devices: each
// chunk of an array goes through three stages on three different devices, in
// order, and a running total is accumulated through an inout dependence; a
// taskwait then waits for all of it.  The stages do not commute, so a
// dependence that is not honoured changes the result.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 4096
#define NC 8

static long a[N], ref[N];
static int on_host[NC][4]; // omp_is_initial_device() in each stage

int main(void) {
  int nd = omp_get_num_devices();
  printf("devices=%d\n", nd);
  // CHECK: devices=4
  if (nd < 1)
    return 1;

  long total = 0, rtotal = 0;
  for (int c = 0; c < NC; c++)
    for (int st = 0; st < 4; st++)
      on_host[c][st] = -1;
  for (int i = 0; i < N; i++) {
    a[i] = i % 97;
    ref[i] = ((a[i] + 3) * 2 - 1) * 5;
    rtotal += ref[i];
  }

  for (int c = 0; c < NC; c++) {
    int lo = c * (N / NC), len = N / NC;
    long *chunk = &a[lo];
    int d0 = c % nd, d1 = (c + 1) % nd, d2 = (c + 2) % nd, d3 = (c + 3) % nd;
#pragma omp target map(tofrom : chunk[0:len]) map(from : on_host[c][0:1]) device(d0) nowait \
    depend(out : chunk[0])
    {
      on_host[c][0] = omp_is_initial_device();
      for (int i = 0; i < len; i++)
        chunk[i] += 3;
    }
#pragma omp target map(tofrom : chunk[0:len]) map(from : on_host[c][1:1]) device(d1) nowait \
    depend(inout : chunk[0])
    {
      on_host[c][1] = omp_is_initial_device();
      for (int i = 0; i < len; i++)
        chunk[i] *= 2;
    }
#pragma omp target map(tofrom : chunk[0:len]) map(from : on_host[c][2:1]) device(d2) nowait \
    depend(inout : chunk[0])
    {
      on_host[c][2] = omp_is_initial_device();
      for (int i = 0; i < len; i++)
        chunk[i] = (chunk[i] - 1) * 5;
    }
#pragma omp target map(to : chunk[0:len]) map(tofrom : total)                             \
    map(from : on_host[c][3:1]) device(d3) nowait depend(in : chunk[0]) depend(inout : total)
    {
      on_host[c][3] = omp_is_initial_device();
      for (int i = 0; i < len; i++)
        total += chunk[i];
    }
  }
#pragma omp taskwait

  int bad = 0;
  long sum = 0;
  for (int i = 0; i < N; i++) {
    bad += a[i] != ref[i];
    sum += a[i];
  }
  printf("%s chained stages: mismatches=%d sum=%ld reference=%ld\n", bad ? "FAIL" : "PASS",
         bad, sum, rtotal);
  // CHECK: PASS chained stages: mismatches=0 sum=2060230 reference=2060230
  int host_runs = 0;
  for (int c = 0; c < NC; c++)
    for (int st = 0; st < 4; st++)
      host_runs += on_host[c][st] != 0;
  printf("%s stages run on a device: %d of %d ran on the host\n", host_runs ? "FAIL" : "PASS",
         host_runs, NC * 4);
  // CHECK: PASS stages run on a device: 0 of 32 ran on the host
  printf("%s total through inout dependence: total=%ld reference=%ld\n",
         total == rtotal ? "PASS" : "FAIL", total, rtotal);
  // CHECK: PASS total through inout dependence: total=2060230 reference=2060230
  return bad != 0 || host_runs != 0 || total != rtotal;
}
