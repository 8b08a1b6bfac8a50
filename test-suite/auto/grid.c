// Grid kernels under SPREAD_AUTO (issue 44 item 2): CUDA-style ports whose teams index the data by
// `omp_get_team_num()` (`target teams num_teams(G)` + `parallel`, team-local arrays, barriers; the
// threads stride over a team's tile, since a host device's teams get as many threads as it can
// give, not `thread_limit`). The pass marks them as grid kernels: a block is a window of the
// league, whose teams see their global team numbers and the whole league's `omp_get_num_teams()`,
// and each block writes into a copy of its own whose changed bytes are merged on the host. Host
// devices spread them only where their leagues are exact (`SPREAD_TEAMS=exact`): libomp forms at
// most as many teams as cores, so a window would not run the teams it names. Shapes: blocks of
// threads with a team-local tile and a barrier; a 2-D tiling whose team number is split by a
// divisor the launch gives (HeCBench reaction's form); a teams region without a parallel region; a
// team number asked in a helper function; a kernel that writes part of its array (the rest keeps
// the host's values); grid-stride loops that are right for any league; a league of one team (left
// on its device). Refused: a grid kernel whose teams update mapped data atomically (a merge would
// keep one block's updates). Every result is the serial loop's, on 1 to 8 devices, both load paths,
// -O0, and on stock (grid-stride kernels only, since stock's leagues are not exact).
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass -Rpass=spread-auto -Rpass-missed=spread-auto %s -o %t 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_TEAMS=exact SPREAD_INFO=auto %libpath-run %t 1000 exact 2>%t.info | FileCheck --check-prefixes=CHECK,EXACT %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_TEAMS=exact SPREAD_HOST_DEVICES=3 SPREAD_SCHEDULE=dynamic,3 %preload-run %t 777 exact | FileCheck --check-prefixes=CHECK,EXACT %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_TEAMS=exact SPREAD_HOST_DEVICES=8 %libpath-run %t 97 exact | FileCheck --check-prefixes=CHECK,EXACT %s --implicit-check-not=FAIL
// RUN: env SPREAD_TEAMS=exact %libpath-run %t 1000 exact | FileCheck --check-prefixes=CHECK,EXACT %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 1000 2>%t.info2 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=LIBOMP %s < %t.info2
// RUN: %stock-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_TEAMS=exact SPREAD_INFO=auto %libpath-run %t.O0 501 exact 2>%t.info0 | FileCheck --check-prefixes=CHECK,EXACT %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info0
//
// EXACT: blocks: ok
// EXACT: tiles: ok
// EXACT: teams_only: ok
// EXACT: helper: ok
// EXACT: partial: ok
// CHECK: strided: ok
// CHECK: one_team: ok
// CHECK: atomic: ok
//
// REMARK-DAG: kernel {{.*}}_blocks_l{{[0-9]+}} can be spread over devices by its teams (a grid kernel): arg{{[0-9]}}:whole arg{{[0-9]}}:merge
// REMARK-DAG: kernel {{.*}}_tiles_l{{[0-9]+}} can be spread over devices by its teams
// REMARK-DAG: kernel {{.*}}_teams_only_l{{[0-9]+}} can be spread over devices by its teams
// REMARK-DAG: kernel {{.*}}_helper_l{{[0-9]+}} can be spread over devices by its teams
// REMARK-DAG: kernel {{.*}}_partial_l{{[0-9]+}} can be spread over devices by its teams
// REMARK-DAG: kernel {{.*}}_strided_l{{[0-9]+}} can be spread over devices by its teams
// REMARK-DAG: kernel {{.*}}_one_team_l{{[0-9]+}} can be spread over devices by its teams (a grid kernel): {{.*}}:merge
// REMARK-DAG: kernel {{.*}}_atomic_l{{[0-9]+}} runs on one device: an atomic update of mapped data {{.*}} (a grid kernel: its teams divide the work by their numbers)
//
// INFO-DAG: kernel {{.*}}_blocks_l{{[0-9]+}} spread over devices [0, 1, 2, 3]: {{[0-9]+}} teams
// INFO-DAG: kernel {{.*}}_tiles_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_teams_only_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_helper_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_partial_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_strided_l{{[0-9]+}} spread over devices
// INFO-DAG: kernel {{.*}}_one_team_l{{[0-9]+}} runs on device 0: a grid kernel's league of 1 team: nothing to cut
// LIBOMP: kernel {{.*}}_strided_l{{[0-9]+}} runs on device 0: a grid kernel (its teams divide the work by their numbers), and host device 0 forms at most as many teams as it has cores (SPREAD_TEAMS=exact forms every team, and lets it spread)

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../Inputs/check_floats.h"

#define BS 16

// out[i] = in[i] + in[i+1] within each team's tile of BS (the last element of a tile reads
// its own), through a team-local array and a barrier; + the league's size, to see it is the
// whole league's on every device.
static void blocks(int n, const float *in, float *out) {
  int nb = (n + BS - 1) / BS;
#pragma omp target teams num_teams(nb) thread_limit(BS) map(to : in[0:n]) map(from : out[0:n])
  {
    float tile[BS];
#pragma omp parallel num_threads(BS)
    {
      int b = omp_get_team_num();
      for (int t = omp_get_thread_num(); t < BS; t += omp_get_num_threads())
        tile[t] = b * BS + t < n ? in[b * BS + t] : 0;
#pragma omp barrier
      for (int t = omp_get_thread_num(); t < BS; t += omp_get_num_threads()) {
        int i = b * BS + t;
        if (i < n)
          out[i] = tile[t] + (t + 1 < BS && i + 1 < n ? tile[t + 1] : tile[t]) + omp_get_num_teams();
      }
    }
  }
}

// A 2-D field of rows x cols cut in tiles of 4 x BS: the team number splits into a tile row and
// column by the number of tile columns (a value of the launch).
static void tiles(int rows, int cols, const float *f, float *g) {
  int tc = (cols + BS - 1) / BS, tr = (rows + 3) / 4;
#pragma omp target teams num_teams(tr * tc) thread_limit(4 * BS) map(to : f[0:rows * cols]) map(tofrom : g[0:rows * cols])
  {
#pragma omp parallel num_threads(4 * BS)
    {
      int bx = omp_get_team_num() % tc, by = omp_get_team_num() / tc;
      for (int t = omp_get_thread_num(); t < 4 * BS; t += omp_get_num_threads()) {
        int x = bx * BS + t % BS, y = by * 4 + t / BS;
        if (x < cols && y < rows)
          g[y * cols + x] = 2 * f[y * cols + x] - g[y * cols + x];
      }
    }
  }
}

// No parallel region: the initial thread of each team is its worker.
static void teams_only(int n, const float *in, float *out) {
#pragma omp target teams num_teams(n) map(to : in[0:n]) map(from : out[0:n])
  {
    int b = omp_get_team_num();
    out[b] = in[n - 1 - b] * 3;
  }
}

// The team's first element, asked in a helper the kernel calls (HeCBench pns's form): the kernel
// gets a copy of its own of the helper, whose team number the window offsets.
static int first_of_team(void) { return omp_get_team_num() * BS; }

static void helper(int n, const float *in, float *out) {
  int nb = (n + BS - 1) / BS;
#pragma omp target teams num_teams(nb) thread_limit(BS) map(to : in[0:n]) map(from : out[0:n])
  {
#pragma omp parallel num_threads(BS)
    for (int t = omp_get_thread_num(); t < BS; t += omp_get_num_threads())
      if (first_of_team() + t < n)
        out[first_of_team() + t] = in[first_of_team() + t] * in[first_of_team() + t];
  }
}

// Only even elements are written: the odd ones keep the host's values after the merge.
static void partial(int n, float *a) {
  int nb = (n + BS - 1) / BS;
#pragma omp target teams num_teams(nb) thread_limit(BS) map(tofrom : a[0:n])
  {
#pragma omp parallel num_threads(BS)
    {
      for (int t = omp_get_thread_num(); t < BS; t += omp_get_num_threads()) {
        int i = omp_get_team_num() * BS + t;
        if (i < n && i % 2 == 0)
          a[i] = a[i] * 5 + 1;
      }
    }
  }
}

// A grid-stride loop: right for any league, so stock computes it too.
static void strided(int n, const float *x, float *y) {
#pragma omp target teams num_teams(8) map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = omp_get_team_num(); i < n; i += omp_get_num_teams())
    y[i] = y[i] + 0.5f * x[i];
}

// One team whose threads divide the work by their numbers (HeCBench nlll's form): a grid of
// one block, accepted, and left on its device.
static void one_team(int n, const float *x, float *y) {
#pragma omp target teams num_teams(1) thread_limit(64) map(to : x[0:n]) map(from : y[0:n])
  {
#pragma omp parallel
    for (int i = omp_get_thread_num(); i < n; i += omp_get_num_threads())
      y[i] = x[i] - 1;
  }
}

// Teams add into one counter: refused (each block would update a copy of its own).
static void atomic(int n, const float *x, int *count) {
#pragma omp target teams num_teams(4) map(to : x[0:n]) map(tofrom : count[0:1])
  for (int i = omp_get_team_num(); i < n; i += omp_get_num_teams())
    if (x[i] > 0.5f) {
#pragma omp atomic
      count[0] += 1;
    }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int exact = argc > 2 && strcmp(argv[2], "exact") == 0;
  float *in = malloc(sizeof(float) * n), *out = malloc(sizeof(float) * n);
  float *want = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++)
    in[i] = (float)((i * 37) % 101) / 101.0f;

  if (exact) {
    int nb = (n + BS - 1) / BS;
    blocks(n, in, out);
    for (int i = 0; i < n; i++) {
      int t = i % BS;
      want[i] = in[i] + (t + 1 < BS && i + 1 < n ? in[i + 1] : in[i]) + nb;
    }
    check("blocks", out, want, n);

    int rows = n / 20 + 1, cols = 20 + n % 7;
    float *f = malloc(sizeof(float) * rows * cols), *g = malloc(sizeof(float) * rows * cols);
    float *gw = malloc(sizeof(float) * rows * cols);
    for (int i = 0; i < rows * cols; i++) {
      f[i] = (float)(i % 13);
      g[i] = gw[i] = (float)(i % 5);
    }
    tiles(rows, cols, f, g);
    for (int i = 0; i < rows * cols; i++)
      gw[i] = 2 * f[i] - gw[i];
    check("tiles", g, gw, rows * cols);
    free(f), free(g), free(gw);

    teams_only(n, in, out);
    for (int i = 0; i < n; i++)
      want[i] = in[n - 1 - i] * 3;
    check("teams_only", out, want, n);

    helper(n, in, out);
    for (int i = 0; i < n; i++)
      want[i] = in[i] * in[i];
    check("helper", out, want, n);

    for (int i = 0; i < n; i++)
      out[i] = want[i] = (float)i;
    partial(n, out);
    for (int i = 0; i < n; i += 2)
      want[i] = want[i] * 5 + 1;
    check("partial", out, want, n);
  }

  for (int i = 0; i < n; i++)
    out[i] = want[i] = (float)(i % 3);
  strided(n, in, out);
  for (int i = 0; i < n; i++)
    want[i] = want[i] + 0.5f * in[i];
  check("strided", out, want, n);

  one_team(n, in, out);
  for (int i = 0; i < n; i++)
    want[i] = in[i] - 1;
  check("one_team", out, want, n);

  int count = 0, expect = 0;
  atomic(n, in, &count);
  for (int i = 0; i < n; i++)
    expect += in[i] > 0.5f;
  if (count != expect) {
    printf("FAIL: atomic: %d, expected %d\n", count, expect);
    fails++;
  } else {
    printf("atomic: ok\n");
  }
  free(in), free(out), free(want);
  return fails != 0;
}
