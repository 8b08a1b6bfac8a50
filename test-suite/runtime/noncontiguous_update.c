// Non-contiguous `target update` of strided 2-D array sections: only the
// elements of the section move, in either direction.
//
// The sections have a stride in the innermost dimension (stock libomptarget 19
// mishandles a unit-stride one with more than one element, see
// noncontiguous_update_unit_stride.c) and a non-zero lower bound only in
// unit-stride dimensions: for a[lb:len:step] clang 19 emits the descriptor
// {offset = lb, count = len, stride = step * extent} and the lower bound's
// byte offset (lb * extent) cannot be recovered from it when step > 1.
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

  // Host -> device: rows 1..3, columns 0, 2 and 4.
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      a[i][j] = 1000 + i * C + j;
#pragma omp target update to(a[1:3][0:3:2]) device(DEV)
  fetch_device_copy();
  int bad = 0, moved = 0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      int in = i >= 1 && i <= 3 && j % 2 == 0;
      moved += in;
      bad += seen[i][j] != (in ? 1000 : 0) + i * C + j;
    }
  printf("%s update to a[1:3][0:3:2]: mismatches=%d moved=%d seen[0][0]=%d seen[1][0]=%d "
         "seen[1][1]=%d seen[3][4]=%d seen[4][4]=%d\n",
         bad ? "FAIL" : "PASS", bad, moved, seen[0][0], seen[1][0], seen[1][1], seen[3][4],
         seen[4][4]);
  // CHECK: PASS update to a[1:3][0:3:2]: mismatches=0 moved=9 seen[0][0]=0 seen[1][0]=1005 seen[1][1]=6 seen[3][4]=1019 seen[4][4]=24

  // Device -> host: rows 0, 2, 4, 6, columns 0, 2 and 4.
#pragma omp target device(DEV)
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      a[i][j] = -(i * C + j);
#pragma omp target update from(a[0:4:2][0:3:2]) device(DEV)
  bad = 0;
  moved = 0;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      int in = i % 2 == 0 && j % 2 == 0;
      moved += in;
      bad += a[i][j] != (in ? -(i * C + j) : 1000 + i * C + j);
    }
  printf("%s update from a[0:4:2][0:3:2]: mismatches=%d moved=%d a[0][0]=%d a[0][1]=%d "
         "a[1][0]=%d a[6][3]=%d a[6][4]=%d\n",
         bad ? "FAIL" : "PASS", bad, moved, a[0][0], a[0][1], a[1][0], a[6][3], a[6][4]);
  // CHECK: PASS update from a[0:4:2][0:3:2]: mismatches=0 moved=12 a[0][0]=0 a[0][1]=1001 a[1][0]=1005 a[6][3]=1033 a[6][4]=-34

#pragma omp target exit data map(delete : a) device(DEV)
  return 0;
}
