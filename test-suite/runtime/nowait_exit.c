// A program that exits while its `nowait` constructs still run (no taskwait before the end of
// main, in the initial thread and in pthreads) exits cleanly with its own status: the work in
// flight finishes first (its copies back land), and nothing crashes or hangs on the way out.
// The exit status is 3, to tell it from a crash or an abort.
//
// RUN: %clang-offload -O1 %s -o %t -lpthread
// RUN: sh -c '%libpath-run %t > %t.out; test $? -eq 3'
// RUN: FileCheck %s < %t.out
// RUN: sh -c '%preload-run %t > %t.preload; test $? -eq 3'
// RUN: FileCheck %s < %t.preload

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#pragma omp declare target
static void slow(void) { usleep(50000); }
#pragma omp end declare target

static long out[16];

static void *pthread_issue(void *arg) {
  int k = (int)(long)arg;
#pragma omp target nowait device(k % omp_get_num_devices()) map(tofrom : out[k : 1])
  {
    slow();
    out[k] = k;
  }
  return NULL; // no taskwait: the thread ends with its construct in flight
}

__attribute__((destructor)) static void report(void) {
  long sum = 0;
  for (int k = 0; k < 16; k++)
    sum += out[k];
  // A destructor of the program: it runs after every atexit handler, the runtime's (which
  // finishes the constructs) among them.
  printf("sum at exit %ld\n", sum);
  fflush(stdout);
}

int main(void) {
  int nd = omp_get_num_devices();
  if (nd < 1)
    return 1;
  for (int k = 0; k < 8; k++) {
#pragma omp target nowait device(k % nd) map(tofrom : out[k : 1])
    {
      slow();
      out[k] = k;
    }
  }
  pthread_t th[8];
  for (int k = 0; k < 8; k++)
    pthread_create(&th[k], NULL, pthread_issue, (void *)(long)(k + 8));
  for (int k = 0; k < 8; k++)
    pthread_join(th[k], NULL);
  return 3;
}

// CHECK: sum at exit 120
