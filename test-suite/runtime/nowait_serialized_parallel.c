// The end of a parallel region of one thread completes its `target nowait`
// constructs (OpenMP's implicit barrier completes the region's tasks; libomp
// runs no barrier in a serialized region): `num_threads(1)`, `if(0)`, a nested
// region without active levels, and OMP_NUM_THREADS=1. Each region sleeps on its
// device before it writes, so a construct finished later leaves the old value
// behind; with the data on the stack, a late copy back wrote into a dead frame.
// Found by scripts/spread-fuzz.py (F2).
//
// RUN: %clang-offload -O1 %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env OMP_NUM_THREADS=1 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: num_threads(1): PASS
// CHECK: num_threads(1), single nowait: PASS
// CHECK: if(0): PASS
// CHECK: nested, inactive: PASS
// CHECK: stack data: PASS

#include <omp.h>
#include <stdio.h>
#include <unistd.h>

#define N 64
static double A[N];

static void reset(void) {
  for (int i = 0; i < N; i++)
    A[i] = i;
}

static int check(const char *what, const double *a) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += a[i] != i + 1000;
  printf("%s: %s\n", what, bad ? "FAIL" : "PASS");
  return bad;
}

static void slow_add(double *a, int dev) {
#pragma omp target teams distribute parallel for device(dev) nowait map(tofrom : a[0 : N])
  for (int i = 0; i < N; i++) {
    if (i == 0)
      usleep(20000);
    a[i] += 1000;
  }
}

static void on_stack(int dev) {
  double a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
#pragma omp parallel num_threads(1)
  slow_add(a, dev);
  check("stack data", a);
}

int main(void) {
  reset();
#pragma omp parallel num_threads(1)
  slow_add(A, 0);
  check("num_threads(1)", A);

  reset();
#pragma omp parallel num_threads(1)
#pragma omp single nowait
  slow_add(A, 1);
  check("num_threads(1), single nowait", A);

  reset();
  int zero = 0;
#pragma omp parallel if (zero)
  slow_add(A, 2);
  check("if(0)", A);

  reset();
  omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
  {
#pragma omp single
    {
#pragma omp parallel num_threads(2)
      slow_add(A, 3);
      check("nested, inactive", A);
    }
  }
  on_stack(0);
  return 0;
}
