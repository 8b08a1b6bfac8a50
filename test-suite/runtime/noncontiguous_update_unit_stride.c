// Non-contiguous `target update` of 2-D array sections with a unit-stride
// innermost dimension (a[0:R][1:2], a[1:3][2:3]): only the elements of the
// section move, in either direction.
//
// Stock libomptarget 19 moves only the first element of each row here: it
// merges the innermost dimensions of the descriptor clang emits
// ({off,count,stride} = {0,7,20},{1,2,4},{0,1,4}) but keeps the unmerged
// element size as the size of each copy.
// XFAIL: runtime-stock
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define R 7
#define C 5
#define DEV 1

static int a[R][C];
static int seen[R][C];

static void fetch_device_copy(void) {
#pragma omp target map(from : seen) device(DEV)
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      seen[i][j] = a[i][j];
}

int main(void) {
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      a[i][j] = i * C + j;
#pragma omp target enter data map(to : a) device(DEV)

  // Host -> device: columns 1 and 2 of every row.
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      a[i][j] = 1000 + i * C + j;
#pragma omp target update to(a[0:R][1:2]) device(DEV)
  fetch_device_copy();
  int bad = 0, moved = 0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      int in = j >= 1 && j < 3;
      moved += in;
      bad += seen[i][j] != (in ? 1000 : 0) + i * C + j;
    }
  printf("%s update to a[0:R][1:2]: mismatches=%d moved=%d seen[0][0]=%d seen[0][1]=%d "
         "seen[6][2]=%d seen[6][3]=%d\n",
         bad ? "FAIL" : "PASS", bad, moved, seen[0][0], seen[0][1], seen[6][2], seen[6][3]);
  // CHECK: PASS update to a[0:R][1:2]: mismatches=0 moved=14 seen[0][0]=0 seen[0][1]=1001 seen[6][2]=1032 seen[6][3]=33

  // Device -> host: rows 1..3, columns 2..4.
#pragma omp target device(DEV)
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      a[i][j] = -(i * C + j);
#pragma omp target update from(a[1:3][2:3]) device(DEV)
  bad = 0;
  moved = 0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      int in = i >= 1 && i <= 3 && j >= 2;
      moved += in;
      bad += a[i][j] != (in ? -(i * C + j) : 1000 + i * C + j);
    }
  printf("%s update from a[1:3][2:3]: mismatches=%d moved=%d a[1][1]=%d a[1][2]=%d "
         "a[2][2]=%d a[3][4]=%d\n",
         bad ? "FAIL" : "PASS", bad, moved, a[1][1], a[1][2], a[2][2], a[3][4]);
  // CHECK: PASS update from a[1:3][2:3]: mismatches=0 moved=9 a[1][1]=1006 a[1][2]=-7 a[2][2]=-12 a[3][4]=-19

#pragma omp target exit data map(delete : a) device(DEV)
  return 0;
}
