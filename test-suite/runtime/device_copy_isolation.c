// Every device has memory of its own: a kernel that writes a mapped array that
// is already present must not change the host copy until `target update from`
// or `target exit data map(from:)`, and device 1's copy is independent of
// device 2's copy.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 256

static int x[N];

// Number of elements of x that differ from base + i * mul.
static int mismatches(int base, int mul) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += x[i] != base + i * mul;
  return bad;
}

static void report(const char *what, int bad) {
  printf("%s %s mismatches=%d x[0]=%d x[1]=%d x[%d]=%d\n", bad ? "FAIL" : "PASS",
         what, bad, x[0], x[1], N - 1, x[N - 1]);
}

int main(void) {
  for (int i = 0; i < N; i++)
    x[i] = i;

  // Variant 1: enter data, kernel, target update from.
#pragma omp target enter data map(to : x[0:N]) device(1)
  printf("present dev1=%d dev2=%d\n", omp_target_is_present(x, 1),
         omp_target_is_present(x, 2));
  // CHECK: present dev1=1 dev2=0

  // x is present, so tofrom neither copies in nor out (reference count > 1).
#pragma omp target map(tofrom : x[0:N]) device(1)
  for (int i = 0; i < N; i++)
    x[i] = x[i] * 10 + 1;
  report("host unchanged after kernel on dev1", mismatches(0, 1));
  // CHECK: PASS host unchanged after kernel on dev1 mismatches=0 x[0]=0 x[1]=1 x[255]=255

#pragma omp target update from(x[0:N]) device(1)
  report("update from dev1", mismatches(1, 10));
  // CHECK: PASS update from dev1 mismatches=0 x[0]=1 x[1]=11 x[255]=2551

  // Device 2 gets its own copy of different host values.
  for (int i = 0; i < N; i++)
    x[i] = 1000 + i;
#pragma omp target enter data map(to : x[0:N]) device(2)
#pragma omp target map(tofrom : x[0:N]) device(2)
  for (int i = 0; i < N; i++)
    x[i] += 5;
#pragma omp target map(tofrom : x[0:N]) device(1)
  for (int i = 0; i < N; i++)
    x[i] += 1;
  report("host unchanged after kernels on dev1 and dev2", mismatches(1000, 1));
  // CHECK: PASS host unchanged after kernels on dev1 and dev2 mismatches=0 x[0]=1000 x[1]=1001 x[255]=1255

#pragma omp target update from(x[0:N]) device(2)
  report("update from dev2", mismatches(1005, 1));
  // CHECK: PASS update from dev2 mismatches=0 x[0]=1005 x[1]=1006 x[255]=1260

  // Variant 2: target exit data map(from:) brings device 1's values back.
#pragma omp target exit data map(from : x[0:N]) device(1)
  report("exit data from dev1", mismatches(2, 10));
  // CHECK: PASS exit data from dev1 mismatches=0 x[0]=2 x[1]=12 x[255]=2552
  printf("present dev1=%d dev2=%d\n", omp_target_is_present(x, 1),
         omp_target_is_present(x, 2));
  // CHECK: present dev1=0 dev2=1

  // Device 2 still holds its own values.
#pragma omp target exit data map(from : x[0:N]) device(2)
  report("exit data from dev2", mismatches(1005, 1));
  // CHECK: PASS exit data from dev2 mismatches=0 x[0]=1005 x[1]=1006 x[255]=1260
  printf("present dev1=%d dev2=%d\n", omp_target_is_present(x, 1),
         omp_target_is_present(x, 2));
  // CHECK: present dev1=0 dev2=0
  return 0;
}
