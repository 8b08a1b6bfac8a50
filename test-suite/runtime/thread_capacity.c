// libomp's thread table must have room for the teams a program asks for while
// Spread is loaded: a `target parallel num_threads(256)` region, and host-only
// teams of 32 and 64 threads creating tasks (final, if, locks), as in SOLLVE's
// 4.5 task tests. libomp 19 asserts `kmp_runtime.cpp(4544)`
// (new_gtid < __kmp_threads_capacity) when hidden helper tasks are turned off
// (LIBOMP_USE_HIDDEN_HELPER_TASK=0) but thread ids are still reserved for the
// helpers (thread_capacity_helpers_off.c runs this program that way on Spread).
// Each count is checked against what the team reports.
//
// RUN: %clang-offload -O1 %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

// Every thread of a `num_threads(n)` team runs one task (deferred, final or
// undeferred) that records it ran; returns the number of tasks that ran.
static int team_tasks(int n, int kind) {
  int ran[64] = {0};
  int team = 0;
  omp_lock_t lock;
  omp_init_lock(&lock);
#pragma omp parallel num_threads(n)
  {
    int id = omp_get_thread_num();
#pragma omp single
    team = omp_get_num_threads();
    if (kind == 0) {
#pragma omp task final(1)
      ran[id] = omp_in_final();
    } else if (kind == 1) {
#pragma omp task if (0)
      ran[id] = 1;
    } else {
#pragma omp task
      {
        omp_set_lock(&lock);
        ran[id] = 1;
        omp_unset_lock(&lock);
      }
    }
  }
  omp_destroy_lock(&lock);
  int sum = 0;
  for (int i = 0; i < 64; i++)
    sum += ran[i];
  if (sum != team)
    printf("FAIL: %d of %d tasks ran (kind %d)\n", sum, team, kind);
  return sum;
}

int main(void) {
  int count = 0, team = 0;
#pragma omp target parallel num_threads(256) map(tofrom : count, team)
  {
#pragma omp atomic
    count++;
#pragma omp single
    team = omp_get_num_threads();
  }
  if (count != team || team < 1)
    printf("FAIL: target parallel: %d threads counted, team of %d\n", count, team);
  printf("target parallel num_threads(256): %s\n", count == team ? "ok" : "FAIL");

  for (int kind = 0; kind < 3; kind++)
    for (int n = 4; n <= 64; n *= 2)
      team_tasks(n, kind);
  printf("host tasks from teams of 4..64 threads: done\n");
  return 0;
}

// CHECK: target parallel num_threads(256): ok
// CHECK: host tasks from teams of 4..64 threads: done
