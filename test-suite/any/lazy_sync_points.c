// Lazy coherence keeps its sync points: device(any) outputs made by nowait instances created in
// parallel + single are home after the region ends (no taskwait), and after the single's own
// implicit barrier inside the region; a program that exits with instances in flight (from main,
// or exit() from another thread) exits cleanly with its output intact, under lazy and copy
// coherence. (Before: blocks still zero after the region in about half the runs, always with
// SPREAD_NOWAIT=libomp, since the barrier's end was taken for a kernel's after a host arm's
// parallel region ran on the thread; and exit died in __tgt_unregister_lib on a destroyed
// thread-local, losing the program's buffered output.)
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy %t region > %t.out && FileCheck %s --check-prefix=REGION --implicit-check-not=FAIL < %t.out
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy SPREAD_NOWAIT=libomp %t region > %t.out && FileCheck %s --check-prefix=REGION --implicit-check-not=FAIL < %t.out
// RUN: env SPREAD_HOST_DEVICES=2 %t region > %t.out && FileCheck %s --check-prefix=REGION --implicit-check-not=FAIL < %t.out
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy %t single > %t.out && FileCheck %s --check-prefix=SINGLE --implicit-check-not=FAIL < %t.out
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy SPREAD_NOWAIT=libomp %t single > %t.out && FileCheck %s --check-prefix=SINGLE --implicit-check-not=FAIL < %t.out
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy %t exit > %t.out 2> %t.err && FileCheck %s --check-prefix=EXIT < %t.out && FileCheck %s --check-prefix=CLEAN --allow-empty < %t.err
// RUN: env SPREAD_HOST_DEVICES=2 %t exit > %t.out 2> %t.err && FileCheck %s --check-prefix=EXIT < %t.out && FileCheck %s --check-prefix=CLEAN --allow-empty < %t.err
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy %t thread-exit > %t.out 2> %t.err && FileCheck %s --check-prefix=EXIT < %t.out && FileCheck %s --check-prefix=CLEAN --allow-empty < %t.err
// RUN: env SPREAD_HOST_DEVICES=2 %t thread-exit > %t.out 2> %t.err && FileCheck %s --check-prefix=EXIT < %t.out && FileCheck %s --check-prefix=CLEAN --allow-empty < %t.err
// REGION: after the region: 0 wrong of 16384 (10 rounds)
// SINGLE: after the single: 0 wrong of 16384 (10 rounds)
// EXIT: exiting with instances in flight
// CLEAN-NOT: error
// CLEAN-NOT: panicked

#include <omp.h>
#include <pthread.h>
#include <spread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16384
#define BS 1024
static float a[N], b[N];

// Creates one nowait instance per block: b = 2a + r.
static void launch(int r) {
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) map(to : a[k : BS]) map(from : b[k : BS]) nowait
#pragma omp if_device(cpu) teams distribute parallel for
#pragma omp if_device(host) parallel for
    for (int i = k; i < k + BS; i++)
      b[i] = 2 * a[i] + r;
  }
}

static int wrong(int r) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += b[i] != 2 * a[i] + r;
  return bad;
}

static void *exit_from_thread(void *arg) {
  (void)arg;
  launch(1);
  printf("exiting with instances in flight\n");
  fflush(stdout);
  exit(0);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "region";
  for (int i = 0; i < N; i++)
    a[i] = (float)(i % 97);
  if (!strcmp(mode, "region") || !strcmp(mode, "single")) {
    int single = !strcmp(mode, "single");
    int bad = 0;
    for (int r = 1; r <= 10; r++) {
      memset(b, 0, sizeof b);
      int inside = 0;
#pragma omp parallel num_threads(2) reduction(+ : inside)
      {
#pragma omp single
        launch(r);
        // The single's implicit barrier: every instance has run, its outputs are home.
        if (single && omp_get_thread_num() == 0)
          inside = wrong(r);
      }
      bad += single ? inside : wrong(r);
    }
    printf("after the %s: %d wrong of %d (10 rounds)\n", single ? "single" : "region", bad, N);
    if (bad)
      printf("FAIL: outputs not home\n");
    return bad != 0;
  }
  if (!strcmp(mode, "exit")) {
    launch(1);
    printf("exiting with instances in flight\n");
    return 0; // stdout is flushed by exit: lost if the runtime dies in its exit handler
  }
  pthread_t t;
  pthread_create(&t, NULL, exit_from_thread, NULL);
  pthread_join(t, NULL);
  printf("FAIL: the thread did not exit\n");
  return 1;
}
