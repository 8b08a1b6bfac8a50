// `nowait` constructs overlap wherever they are issued: from the initial thread, from every
// thread of a team, from a single construct, and from plain pthreads. Each region announces
// itself on a shared counter and waits (at most 5 s) until all regions of its round have
// started; regions that ran one after another would never see the others and report it. The
// counter is host memory the kernels reach through is_device_ptr (host devices run in the
// program's address space). No timing is measured. On a machine with fewer cores than regions
// the host devices' shared executors overlap them only by adding executors for blocked ones.
//
// RUN: %clang-offload -O1 %s -o %t -lpthread
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// The profile says how many executors the host devices' shared pool ran at once and how many it
// added while others blocked (here the regions sleep while they wait for each other).
// RUN: env SPREAD_PROFILE=summary %libpath-run %t 2>&1 | FileCheck --check-prefix=PROFILE %s

#include <omp.h>
#include <pthread.h>
#include <stdio.h>

#define K 4

#include "../Inputs/rendezvous.h"

static int nd;
static int counters[8];
static int met[8][K];

static void issue(int round, int k) {
  int *c = &counters[round];
#pragma omp target nowait device(k % nd) is_device_ptr(c) map(from : met[round][k : 1])
  met[round][k] = meet(c, K);
}

static void *pthread_round(void *arg) {
  issue(3, (int)(long)arg);
#pragma omp taskwait
  return NULL;
}

static int check(int round, const char *what) {
  int ok = 1;
  for (int k = 0; k < K; k++)
    ok &= met[round][k] == 1;
  printf("%s: %s\n", what, ok ? "overlap" : "FAIL: ran one after another");
  return ok;
}

int main(void) {
  nd = omp_get_num_devices();
  if (nd < 1) {
    printf("FAIL: no devices\n");
    return 1;
  }
  int ok = 1;
  // The initial thread, outside any parallel region.
  for (int k = 0; k < K; k++)
    issue(0, k);
#pragma omp taskwait
  ok &= check(0, "initial thread");
  // Every thread of a team, one region each.
#pragma omp parallel num_threads(K)
  {
    issue(1, omp_get_thread_num());
#pragma omp taskwait
  }
  ok &= check(1, "team threads");
  // One thread of a team issues them all (the others wait at the single's barrier).
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int k = 0; k < K; k++)
      issue(2, k);
#pragma omp taskwait
  }
  ok &= check(2, "single");
  // Plain pthreads.
  pthread_t th[K];
  for (int k = 0; k < K; k++)
    pthread_create(&th[k], NULL, pthread_round, (void *)(long)k);
  for (int k = 0; k < K; k++)
    pthread_join(th[k], NULL);
  ok &= check(3, "pthreads");
  return !ok;
}

// CHECK: initial thread: overlap
// CHECK: team threads: overlap
// CHECK: single: overlap
// CHECK: pthreads: overlap

// PROFILE: spread: host executors: {{[0-9]+}} run at once (most at once: {{[0-9]+}}), {{[0-9]+}} threads started, {{[0-9]+}} added while others blocked
