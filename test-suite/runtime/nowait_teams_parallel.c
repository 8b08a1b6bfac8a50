// The form distilled from HeCBench's all-pairs-distance and thomas, which hung (futex waits)
// on Spread with libomp's hidden helper threads carrying `nowait` and abort in libomp on stock:
// inside a target data region, a `target teams distribute parallel for nowait` followed by a
// synchronous `target teams num_teams(..) thread_limit(..)` with a nested `parallel` (barriers,
// atomics), many times, then `taskwait`; also from the threads of a parallel region. Default
// settings, both load paths; every result is checked against the serial loop.
//
// The kernels' teams, more than the cores, make libomp warn "Cannot form a team" once per
// process on stock (helpers off, where it runs); Spread must not add warnings of its own.
//
// RUN: %clang-offload -O2 %s -o %t
// RUN: %libpath-run %t 3000 2>%t.lib.err | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t 3000 2>%t.pre.err | FileCheck %s --implicit-check-not=FAIL
// RUN: env LIBOMP_USE_HIDDEN_HELPER_TASK=0 %stock-run %t 20 2>%t.stock.err | FileCheck %s --implicit-check-not=FAIL
// RUN: grep -c "Cannot form a team" %t.stock.err > %t.stock.count || true
// RUN: grep -c "Cannot form a team" %t.lib.err > %t.lib.count || true
// RUN: grep -c "Cannot form a team" %t.pre.err > %t.pre.count || true
// RUN: diff %t.stock.count %t.lib.count
// RUN: diff %t.stock.count %t.pre.count

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define TEAMS 64
#define THREADS 8

static int fails;

// One round: `a` refilled by a nowait kernel (the same values every round), `counts` accumulated by a synchronous teams
// kernel with a parallel region per team (atomics) and one with a team-local reduction
// through barriers, as all-pairs-distance does.
static void rounds(int iters, int *a, int *counts, int *sums, const int *x) {
#pragma omp target data map(tofrom : a[0:N], counts[0:TEAMS], sums[0:TEAMS]) map(to : x[0:N])
  {
    for (int it = 0; it < iters; it++) {
#pragma omp target teams distribute parallel for nowait
      for (int i = 0; i < N; i++)
        a[i] = 2 * x[i]; // the same every round: the nowait kernels are unordered

#pragma omp target teams num_teams(TEAMS) thread_limit(THREADS)
      {
#pragma omp parallel
        {
          int team = omp_get_team_num(), nteams = omp_get_num_teams();
          int t = omp_get_thread_num(), nt = omp_get_num_threads();
          // Teams libomp could not form are done by the ones it formed.
          for (int g = team; g < TEAMS; g += nteams)
            for (int i = t; i < N / TEAMS; i += nt) {
#pragma omp atomic update
              counts[g] += x[g * (N / TEAMS) + i] & 1;
            }
        }
      }

#pragma omp target teams num_teams(TEAMS) thread_limit(THREADS)
      {
        int part[THREADS];
#pragma omp parallel
        {
          int team = omp_get_team_num(), nteams = omp_get_num_teams();
          int t = omp_get_thread_num(), nt = omp_get_num_threads();
          for (int g = team; g < TEAMS; g += nteams) {
            part[t] = 0;
            for (int i = t; i < N / TEAMS; i += nt)
              part[t] += x[g * (N / TEAMS) + i];
#pragma omp barrier
            if (t == 0) {
              int s = 0;
              for (int k = 0; k < nt; k++)
                s += part[k];
              sums[g] += s;
            }
#pragma omp barrier
          }
        }
      }
    }
#pragma omp taskwait
  }
}

static void check(const char *what, int iters, const int *a, const int *counts, const int *sums,
                  const int *x) {
  for (int i = 0; i < N; i++)
    if (a[i] != 2 * x[i]) {
      printf("FAIL: %s: a[%d] = %d, expected %d\n", what, i, a[i], 2 * x[i]);
      fails++;
      return;
    }
  for (int g = 0; g < TEAMS; g++) {
    int odd = 0, s = 0;
    for (int i = 0; i < N / TEAMS; i++) {
      odd += x[g * (N / TEAMS) + i] & 1;
      s += x[g * (N / TEAMS) + i];
    }
    if (counts[g] != odd * iters || sums[g] != s * iters) {
      printf("FAIL: %s: team %d: counts %d (expected %d), sums %d (expected %d)\n", what, g,
             counts[g], odd * iters, sums[g], s * iters);
      fails++;
      return;
    }
  }
  printf("%s: ok\n", what);
}

int main(int argc, char **argv) {
  int iters = argc > 1 ? atoi(argv[1]) : 3000;
  static int x[N];
  for (int i = 0; i < N; i++)
    x[i] = (i * 7919) % 1009;

  {
    static int a[N], counts[TEAMS], sums[TEAMS];
    rounds(iters, a, counts, sums, x);
    check("initial thread", iters, a, counts, sums, x);
  }

  // The same from two threads of a parallel region, each with its own arrays.
  int per = iters / 10 > 0 ? iters / 10 : 1;
  int bad = 0;
#pragma omp parallel num_threads(2) reduction(+ : bad)
  {
    int *a = calloc(N, sizeof(int)), *counts = calloc(TEAMS, sizeof(int));
    int *sums = calloc(TEAMS, sizeof(int));
    rounds(per, a, counts, sums, x);
#pragma omp critical
    {
      int before = fails;
      check("parallel region thread", per, a, counts, sums, x);
      bad += fails != before;
    }
    free(a), free(counts), free(sums);
  }
  printf("%s\n", fails ? "FAIL" : "nowait teams parallel ok");
  return fails != 0;
}

// CHECK: initial thread: ok
// CHECK: parallel region thread: ok
// CHECK: parallel region thread: ok
// CHECK: nowait teams parallel ok
