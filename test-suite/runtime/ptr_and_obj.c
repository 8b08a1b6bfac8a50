// PTR_AND_OBJ mappings: a struct with a pointer member mapped as
// map(s, s.p[0:N]), and an array of row pointers (pointer to pointer) whose rows
// are mapped separately and attached on the device.  Kernels write through the
// pointers; the host pointers must come back unchanged.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100
#define R 4
#define C 50

typedef struct {
  int n;
  long *p;
  int tag;
} S;

int main(void) {
  // Struct with a pointer member.
  S s;
  s.n = N;
  s.tag = 7;
  s.p = malloc(N * sizeof(long));
  long *orig = s.p;
  long ref[N];
  for (int i = 0; i < N; i++) {
    s.p[i] = i;
    ref[i] = i * 2 + 7;
  }
  // The kernel also reports whether it saw s.p at a device address of its own.
  int relocated = -1;
  uintptr_t host_addr = (uintptr_t)orig;
#pragma omp target map(tofrom : s, s.p[0:N]) map(from : relocated) device(1)
  {
    relocated = (uintptr_t)s.p != host_addr;
    for (int i = 0; i < s.n; i++)
      s.p[i] = s.p[i] * 2 + s.tag;
    s.tag = 9;
  }
  int bad = 0;
  long sum = 0;
  for (int i = 0; i < N; i++) {
    bad += s.p[i] != ref[i];
    sum += s.p[i];
  }
  printf("%s struct member pointer: mismatches=%d sum=%ld tag=%d host_ptr_kept=%d "
         "relocated=%d\n",
         bad || s.tag != 9 || s.p != orig || relocated != 1 ? "FAIL" : "PASS", bad, sum,
         s.tag, s.p == orig, relocated);
  // CHECK: PASS struct member pointer: mismatches=0 sum=10600 tag=9 host_ptr_kept=1 relocated=1

  // The same through enter/exit data and a separate kernel.
#pragma omp target enter data map(to : s, s.p[0:N]) device(2)
#pragma omp target device(2) map(present, alloc : s)
  for (int i = 0; i < s.n; i++)
    s.p[i] -= s.tag;
  printf("host unchanged before exit: p[1]=%ld\n", s.p[1]);
  // CHECK: host unchanged before exit: p[1]=9
#pragma omp target exit data map(from : s, s.p[0:N]) device(2)
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += s.p[i] != ref[i] - 9;
  printf("%s struct via enter/exit data: mismatches=%d p[1]=%ld host_ptr_kept=%d\n",
         bad || s.p != orig ? "FAIL" : "PASS", bad, s.p[1], s.p == orig);
  // CHECK: PASS struct via enter/exit data: mismatches=0 p[1]=0 host_ptr_kept=1

  // Pointer to pointer: an array of row pointers, each row mapped and
  // attached to the device copy of the row array.
  int **rows = malloc(R * sizeof(int *));
  int *orig_rows[R];
  for (int r = 0; r < R; r++) {
    rows[r] = orig_rows[r] = malloc(C * sizeof(int));
    for (int c = 0; c < C; c++)
      rows[r][c] = r * 1000 + c;
  }
#pragma omp target enter data map(to : rows[0:R]) device(3)
  for (int r = 0; r < R; r++) {
#pragma omp target enter data map(to : rows[r][0:C]) device(3)
  }
#pragma omp target device(3)
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++)
      rows[r][c] = rows[r][c] * 3 + r;
  printf("host unchanged before exit: rows[3][49]=%d\n", rows[3][49]);
  // CHECK: host unchanged before exit: rows[3][49]=3049
  for (int r = 0; r < R; r++) {
#pragma omp target exit data map(from : rows[r][0:C]) device(3)
  }
#pragma omp target exit data map(delete : rows[0:R]) device(3)
  bad = 0;
  long rsum = 0;
  int kept = 1;
  for (int r = 0; r < R; r++) {
    kept &= rows[r] == orig_rows[r];
    for (int c = 0; c < C; c++) {
      bad += rows[r][c] != (r * 1000 + c) * 3 + r;
      rsum += rows[r][c];
    }
  }
  printf("%s pointer to pointer: mismatches=%d sum=%ld host_ptrs_kept=%d present=%d\n",
         bad || !kept ? "FAIL" : "PASS", bad, rsum, kept,
         omp_target_is_present(rows, 3));
  // CHECK: PASS pointer to pointer: mismatches=0 sum=915000 host_ptrs_kept=1 present=0

  // Pointer to pointer in one construct: map(pp[0][0:N]).
  long *buf = malloc(N * sizeof(long));
  long **pp = &buf;
  for (int i = 0; i < N; i++)
    buf[i] = i;
  host_addr = (uintptr_t)buf;
#pragma omp target map(tofrom : pp[0][0:N]) map(from : relocated) device(0)
  {
    relocated = (uintptr_t)pp[0] != host_addr;
    for (int i = 0; i < N; i++)
      pp[0][i] += 100;
  }
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += buf[i] != i + 100;
  printf("%s pp[0][0:N]: mismatches=%d buf[0]=%ld buf[99]=%ld relocated=%d\n",
         bad || relocated != 1 ? "FAIL" : "PASS", bad, buf[0], buf[99], relocated);
  // CHECK: PASS pp[0][0:N]: mismatches=0 buf[0]=100 buf[99]=199 relocated=1
  free(buf);
  for (int r = 0; r < R; r++)
    free(rows[r]);
  free(rows);
  free(orig);
  return 0;
}
