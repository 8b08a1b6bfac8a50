// OpenMP 5.1's num_teams(lower:upper), which clang 19 rejects ("expected ')'"), on teams
// constructs that have no compute units: spread-cc passes num_teams(upper), a conforming number
// of teams, and the program runs as OpenMP says.
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define LO 1
#define N 64

int main(void) {
  int teams = 0, bad = 0;
  double x[N];
#pragma omp teams num_teams(LO:4) thread_limit(1)
  {
    if (omp_get_team_num() == 0)
      teams = omp_get_num_teams();
  }
#pragma omp target teams distribute num_teams(2 : 3) map(from: x[0:N])
  for (int i = 0; i < N; i++)
    x[i] = 2.0 * i;
  for (int i = 0; i < N; i++)
    bad += x[i] != 2.0 * i;
  // CHECK: host teams ok
  printf("host teams %s (%d)\n", teams >= LO && teams <= 4 ? "ok" : "FAIL", teams);
  // CHECK: target teams ok
  printf("target teams %s\n", bad ? "FAIL" : "ok");
  return bad != 0 || teams < LO || teams > 4;
}
