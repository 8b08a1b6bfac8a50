// SPREAD_TEAMS=exact: `num_teams(N)` forms exactly N teams on a host device, however few cores
// it has (OpenMP 5.1: the lower bound is the upper bound when only one is given). libomp alone
// forms at most one team per core and warns; Spread then runs the N logical teams on the teams
// it forms, in turn (docs/runtime.md, "Devices"). Checked against serial references: every team
// number once, omp_get_num_teams() everywhere (nested parallel threads included), distribute's
// division (blocks, dist_schedule chunks round-robin), teams reductions (with more than four
// teams formed too, where libomp would reduce with a barrier among them), lastprivate,
// 32/64-bit, unsigned and downward loops, and leagues launched at once from OpenMP threads and
// pthreads on different host devices. libomp's "Cannot form a team" warning must not appear.
//
// RUN: %clang-offload -O2 %s -o %t -lpthread
// RUN: env SPREAD_TEAMS=exact %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=Warning
// RUN: env SPREAD_TEAMS=exact %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=Warning
// RUN: env SPREAD_TEAMS=exact KMP_TEAMS_THREAD_LIMIT=1 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=Warning
// RUN: env SPREAD_TEAMS=exact KMP_TEAMS_THREAD_LIMIT=8 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=Warning
// Without the setting, libomp's leagues (one team per core at most), as on stock:
// RUN: not %libpath-run %t 2>&1 | FileCheck %s --check-prefix=LIBOMP
// CHECK: teams ok
// CHECK: distribute ok
// CHECK: nested ok
// CHECK: reduction ok
// CHECK: loops ok
// CHECK: concurrent ok
// LIBOMP: FAIL league of num_teams: 0, expected 50000
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void fail(const char *what, long got, long want) {
  printf("FAIL %s: %ld, expected %ld\n", what, got, want);
  failures++;
}

// Every team number in [0, n) once, and omp_get_num_teams() == n in every team.
static int league(int n, int dev) {
  int *seen = calloc(n, sizeof(int));
  int wrong = 0, bad = 0;
#pragma omp target teams num_teams(n) device(dev) map(tofrom : seen[0:n], wrong, bad)
  {
    int t = omp_get_team_num();
    if (t < 0 || t >= n) {
#pragma omp atomic
      bad++;
    } else {
#pragma omp atomic
      seen[t]++;
    }
    if (omp_get_num_teams() != n) {
#pragma omp atomic
      wrong++;
    }
  }
  int ok = wrong == 0 && bad == 0;
  for (int i = 0; i < n; i++)
    ok &= seen[i] == 1;
  free(seen);
  return ok;
}

static void teams(void) {
  int sizes[] = {1, 3, 16, 1000, 50000};
  for (unsigned i = 0; i < sizeof sizes / sizeof *sizes; i++)
    if (!league(sizes[i], 0))
      fail("league of num_teams", 0, sizes[i]);
  puts("teams ok");
}

static void distribute(void) {
  enum { N = 10007, T = 97 };
  static int owner[N], count[N];
  // Without dist_schedule: one block per team, in team order, sizes differing by at most one.
  memset(count, 0, sizeof count);
#pragma omp target teams distribute num_teams(T) map(from : owner) map(tofrom : count)
  for (int i = 0; i < N; i++) {
    owner[i] = omp_get_team_num();
    count[i]++;
  }
  int per_team[T] = {0};
  for (int i = 0; i < N; i++) {
    if (count[i] != 1)
      fail("distribute: iteration run times", count[i], 1);
    if (i > 0 && owner[i] < owner[i - 1])
      fail("distribute: blocks out of team order at", i, owner[i - 1]);
    if (owner[i] >= 0 && owner[i] < T)
      per_team[owner[i]]++;
  }
  for (int t = 0; t < T; t++)
    if (per_team[t] != N / T && per_team[t] != N / T + 1)
      fail("distribute: block size of team", per_team[t], N / T);
  // dist_schedule(static, 5): chunk c goes to team c % T.
  memset(count, 0, sizeof count);
#pragma omp target teams distribute num_teams(T) dist_schedule(static, 5) map(from : owner)   \
    map(tofrom : count)
  for (int i = 0; i < N; i++) {
    owner[i] = omp_get_team_num();
    count[i]++;
  }
  for (int i = 0; i < N; i++) {
    if (count[i] != 1 || owner[i] != (i / 5) % T) {
      fail("dist_schedule(static, 5): owner of", i, (i / 5) % T);
      break;
    }
  }
  // lastprivate: the value of the sequentially last iteration.
  int last = -1;
#pragma omp target teams distribute parallel for num_teams(T) lastprivate(last) map(tofrom : last)
  for (int i = 0; i < N; i++)
    last = i;
  if (last != N - 1)
    fail("lastprivate", last, N - 1);
  puts("distribute ok");
}

static void nested(void) {
  enum { N = 4096, T = 64 };
  static int owner[N], count[N], teams_seen[N];
  memset(count, 0, sizeof count);
  // Worker threads of a team's parallel region see their team's logical number.
#pragma omp target teams distribute parallel for num_teams(T) dist_schedule(static, 8)         \
    map(from : owner, teams_seen) map(tofrom : count)
  for (int i = 0; i < N; i++) {
    owner[i] = omp_get_team_num();
    teams_seen[i] = omp_get_num_teams();
#pragma omp atomic
    count[i]++;
  }
  for (int i = 0; i < N; i++) {
    if (count[i] != 1 || owner[i] != (i / 8) % T || teams_seen[i] != T) {
      fail("distribute parallel for: owner of", i, (i / 8) % T);
      break;
    }
  }
  // A parallel region inside a team, its threads indexing by team.
  static int cell[T];
  memset(cell, 0, sizeof cell);
#pragma omp target teams num_teams(T) thread_limit(4) map(tofrom : cell)
  {
#pragma omp parallel
    {
      if (omp_get_thread_num() == 0)
        cell[omp_get_team_num()] += 1 + (omp_get_num_teams() == T);
    }
  }
  for (int t = 0; t < T; t++)
    if (cell[t] != 2)
      fail("parallel inside team", cell[t], 2);
  // schedule(dynamic) inside each team's block.
  memset(count, 0, sizeof count);
#pragma omp target teams distribute parallel for num_teams(T) schedule(dynamic, 3)             \
    map(tofrom : count)
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    count[i]++;
  }
  for (int i = 0; i < N; i++)
    if (count[i] != 1) {
      fail("schedule(dynamic): iteration run times", count[i], 1);
      break;
    }
  puts("nested ok");
}

static void reduction(void) {
  enum { T = 1001 }; // not a multiple of the teams formed at once
  long s = 0;
#pragma omp target teams num_teams(T) reduction(+ : s) map(tofrom : s)
  s += omp_get_team_num();
  if (s != (long)T * (T - 1) / 2)
    fail("teams reduction of team numbers", s, (long)T * (T - 1) / 2);
  long sum = 0;
  const long n = 200003;
#pragma omp target teams distribute parallel for num_teams(T) reduction(+ : sum)                \
    map(tofrom : sum)
  for (long i = 0; i < n; i++)
    sum += i;
  if (sum != n * (n - 1) / 2)
    fail("distribute reduction", sum, n * (n - 1) / 2);
  puts("reduction ok");
}

static void loops(void) {
  enum { N = 3001, T = 50 };
  static int count[N];
  memset(count, 0, sizeof count);
  // 64-bit induction variable, step 3.
#pragma omp target teams distribute num_teams(T) map(tofrom : count)
  for (long i = 0; i < N; i += 3)
    count[i]++;
  // Unsigned, downward.
#pragma omp target teams distribute num_teams(T) dist_schedule(static, 7) map(tofrom : count)
  for (unsigned i = N - 1; i > 0; i -= 3)
    count[i]++;
  // collapse(2): the combined space divided over the league.
#pragma omp target teams distribute parallel for collapse(2) num_teams(T) map(tofrom : count)
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < N / 3; b++)
      count[a * (N / 3) + b] += 2;
  for (int i = 0; i < N; i++) {
    int want = (i % 3 == 0) + (i > 0 && (N - 1 - i) % 3 == 0) + (i < 3 * (N / 3) ? 2 : 0);
    if (count[i] != want) {
      fail("loop types: iteration", i, want);
      break;
    }
  }
  puts("loops ok");
}

static void *from_pthread(void *arg) {
  long id = (long)arg;
  int ndev = omp_get_num_devices();
  for (int r = 0; r < 20; r++)
    if (!league(37 + (int)id * 11 + r, (int)(id + r) % ndev))
      return (void *)1;
  return NULL;
}

static void concurrent(void) {
  int ndev = omp_get_num_devices();
  int bad = 0;
#pragma omp parallel num_threads(4) reduction(+ : bad)
  for (int r = 0; r < 10; r++)
    bad += !league(29 + omp_get_thread_num() + r, (omp_get_thread_num() + r) % ndev);
  if (bad)
    fail("leagues from OpenMP threads", bad, 0);
  pthread_t th[4];
  for (long i = 0; i < 4; i++)
    pthread_create(&th[i], NULL, from_pthread, (void *)i);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(th[i], &r);
    if (r)
      fail("leagues from pthread", i, 0);
  }
  puts("concurrent ok");
}

int main(void) {
  if (omp_get_num_devices() < 1) {
    puts("FAIL no devices");
    return 1;
  }
  teams();
  distribute();
  nested();
  reduction();
  loops();
  concurrent();
  return failures != 0;
}
