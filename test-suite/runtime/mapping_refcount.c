// Reference counting of mapped data: nested `target data`, `enter data` /
// `exit data` with `always`, `delete`, `release` and `present`.  A copy only
// happens on the first map (to) and the last unmap (from) unless `always` is
// given; `delete` removes an entry whatever its count.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 64
#define DEV 2

static int x[N], y[N], z[N];

// Elements of v that differ from base + i.
static int off(const int *v, int base) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += v[i] != base + i;
  return bad;
}

static void expect(const char *what, const int *v, int base, int present) {
  int bad = off(v, base), p = omp_target_is_present(v, DEV);
  printf("%s %s: v[0]=%d v[%d]=%d mismatches=%d present=%d\n",
         bad || p != present ? "FAIL" : "PASS", what, v[0], N - 1, v[N - 1], bad,
         p);
}

static void add_on_device(int *v, int k) {
#pragma omp target map(tofrom : v[0:N]) device(DEV)
  for (int i = 0; i < N; i++)
    v[i] += k;
}

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = y[i] = z[i] = i;

  // Nested target data: only the outermost construct copies.
#pragma omp target data map(tofrom : x[0:N]) device(DEV)
  {
#pragma omp target data map(tofrom : x[0:N]) device(DEV)
    {
      add_on_device(x, 1);
      expect("nested inner", x, 0, 1);
    }
    expect("nested after inner end", x, 0, 1);
    add_on_device(x, 1);
  }
  expect("nested after outer end", x, 2, 0);
  // CHECK: PASS nested inner: v[0]=0 v[63]=63 mismatches=0 present=1
  // CHECK: PASS nested after inner end: v[0]=0 v[63]=63 mismatches=0 present=1
  // CHECK: PASS nested after outer end: v[0]=2 v[63]=65 mismatches=0 present=0

  // enter twice, exit(from) twice: only the last exit copies back.
#pragma omp target enter data map(to : y[0:N]) device(DEV)
#pragma omp target enter data map(to : y[0:N]) device(DEV)
  add_on_device(y, 10);
#pragma omp target exit data map(from : y[0:N]) device(DEV)
  expect("exit from, count 2->1", y, 0, 1);
#pragma omp target exit data map(from : y[0:N]) device(DEV)
  expect("exit from, count 1->0", y, 10, 0);
  // CHECK: PASS exit from, count 2->1: v[0]=0 v[63]=63 mismatches=0 present=1
  // CHECK: PASS exit from, count 1->0: v[0]=10 v[63]=73 mismatches=0 present=0

  // always: copies even though the data is already present.
#pragma omp target enter data map(to : z[0:N]) device(DEV)
  for (int i = 0; i < N; i++)
    z[i] = 100 + i; // device still has i
#pragma omp target enter data map(to : z[0:N]) device(DEV)
  add_on_device(z, 1);
#pragma omp target update from(z[0:N]) device(DEV)
  expect("enter to without always", z, 1, 1);
  // CHECK: PASS enter to without always: v[0]=1 v[63]=64 mismatches=0 present=1
  for (int i = 0; i < N; i++)
    z[i] = 100 + i;
#pragma omp target enter data map(always, to : z[0:N]) device(DEV)
  add_on_device(z, 1);
  expect("enter always to (host untouched)", z, 100, 1);
  // CHECK: PASS enter always to (host untouched): v[0]=100 v[63]=163 mismatches=0 present=1
  // Count is 3 now; always from copies without unmapping.
#pragma omp target exit data map(always, from : z[0:N]) device(DEV)
  expect("exit always from, count 3->2", z, 101, 1);
  // CHECK: PASS exit always from, count 3->2: v[0]=101 v[63]=164 mismatches=0 present=1

  // target map(always, tofrom) on present data copies both ways.
  for (int i = 0; i < N; i++)
    z[i] = 200 + i;
#pragma omp target map(always, tofrom : z[0:N]) device(DEV)
  for (int i = 0; i < N; i++)
    z[i] += 2;
  expect("target always tofrom", z, 202, 1);
  // CHECK: PASS target always tofrom: v[0]=202 v[63]=265 mismatches=0 present=1

  // release: drops one reference, no copy.
  add_on_device(z, 1); // device: 203 + i
#pragma omp target exit data map(release : z[0:N]) device(DEV)
  expect("release, count 2->1", z, 202, 1);
  // CHECK: PASS release, count 2->1: v[0]=202 v[63]=265 mismatches=0 present=1

  // present: fine while mapped, and keeps the count.
  int seen = -1;
#pragma omp target map(present, tofrom : z[0:N]) map(from : seen) device(DEV)
  seen = z[N - 1];
  printf("%s present on mapped data: seen=%d\n", seen == 203 + N - 1 ? "PASS" : "FAIL",
         seen);
  // CHECK: PASS present on mapped data: seen=266
#pragma omp target data map(present, to : z[0:N]) device(DEV)
  add_on_device(z, 1);
  expect("target data present", z, 202, 1);
  // CHECK: PASS target data present: v[0]=202 v[63]=265 mismatches=0 present=1
#pragma omp target update from(present : z[0:N]) device(DEV)
  expect("update present from", z, 204, 1);
  // CHECK: PASS update present from: v[0]=204 v[63]=267 mismatches=0 present=1

  // delete: removes the entry whatever the count, without copying.
#pragma omp target enter data map(to : z[0:N]) device(DEV)
#pragma omp target enter data map(to : z[0:N]) device(DEV)
  add_on_device(z, 1);
#pragma omp target exit data map(delete : z[0:N]) device(DEV)
  expect("delete with count 3", z, 204, 0);
  // CHECK: PASS delete with count 3: v[0]=204 v[63]=267 mismatches=0 present=0

  // After delete a new mapping starts from the host values again.
#pragma omp target map(tofrom : z[0:N]) device(DEV)
  for (int i = 0; i < N; i++)
    z[i] += 3;
  expect("remap after delete", z, 207, 0);
  // CHECK: PASS remap after delete: v[0]=207 v[63]=270 mismatches=0 present=0
  return 0;
}
