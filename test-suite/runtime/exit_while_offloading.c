// exit() while other threads offload: the program exits with its status, every
// time. The test runs the scenario in 30 child processes (re-executing itself):
// in each, four pthreads and three threads of an OpenMP team loop over target
// regions and data constructs on all devices while the main thread calls
// exit(0) after a short delay. Stock libomptarget fails about one run in five
// ("Host ptr ... does not have a matching target pointer", SIGSEGV); Spread
// used to as well ("no offload entry is registered", SIGSEGV in unloaded
// device code). Now the device code of an unregistered program stays loaded
// and threads that offload after the exit began wait for the process to end.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t -lpthread
// RUN: %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1024
#define RUNS 30

extern char **environ;

static void offload_forever(int id) {
  int a[N];
  for (;;) {
    for (int i = 0; i < N; i++)
      a[i] = i;
#pragma omp target map(tofrom : a[0:N]) device(id % omp_get_num_devices())
    for (int i = 0; i < N; i++)
      a[i] += 1;
#pragma omp target enter data map(to : a[0:N]) device(id % omp_get_num_devices())
#pragma omp target exit data map(from : a[0:N]) device(id % omp_get_num_devices())
    if (a[N - 1] != N) {
      printf("FAIL: thread %d computed a[N-1]=%d\n", id, a[N - 1]);
      abort();
    }
  }
}

static void *worker(void *arg) {
  offload_forever((int)(long)arg);
  return NULL;
}

static int child(int team) {
  if (!team) {
    pthread_t th[4];
    for (int t = 0; t < 4; t++)
      pthread_create(&th[t], NULL, worker, (void *)(long)t);
    usleep(30000);
    exit(0);
  }
#pragma omp parallel num_threads(4)
  {
    if (omp_get_thread_num() == 0) {
      usleep(30000);
      exit(0);
    }
    offload_forever(omp_get_thread_num());
  }
  return 1;
}

int main(int argc, char **argv) {
  if (argc > 1)
    return child(strcmp(argv[1], "team") == 0);
  int failed = 0;
  for (int r = 0; r < RUNS; r++) {
    char *args[] = {argv[0], r % 2 ? "team" : "threads", NULL};
    pid_t pid;
    if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) != 0) {
      printf("FAIL: cannot spawn\n");
      return 1;
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      printf("FAIL: run %d (%s) ended with %s %d\n", r, args[1],
             WIFEXITED(st) ? "status" : "signal",
             WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
      failed++;
    }
  }
  printf("%s %d of %d runs exited cleanly\n", failed ? "FAIL" : "PASS", RUNS - failed, RUNS);
  return failed != 0;
}
// CHECK: PASS 30 of 30 runs exited cleanly
