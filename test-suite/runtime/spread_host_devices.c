// SPREAD_HOST_DEVICES sets the number of host devices (default 4); kernels
// run on each of them with the results checked.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefix=FOUR
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefix=FOUR
// RUN: env SPREAD_HOST_DEVICES=2 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefix=TWO
// RUN: env SPREAD_HOST_DEVICES=2 %preload-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefix=TWO
// RUN: env SPREAD_HOST_DEVICES=1 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefix=ONE

#include <omp.h>
#include <stdio.h>

#define N 1000

int main(void) {
  int nd = omp_get_num_devices();
  printf("num_devices=%d initial_device=%d\n", nd, omp_get_initial_device());
  // FOUR: num_devices=4 initial_device=4
  // TWO: num_devices=2 initial_device=2
  // ONE: num_devices=1 initial_device=1

  static int x[N];
  for (int d = 0; d < nd; d++) {
    for (int i = 0; i < N; i++)
      x[i] = i;
    int initial = -1;
#pragma omp target device(d) map(tofrom : x, initial)
    {
      initial = omp_is_initial_device();
      for (int i = 0; i < N; i++)
        x[i] = x[i] * (d + 2);
    }
    int bad = 0;
    for (int i = 0; i < N; i++)
      bad += x[i] != i * (d + 2);
    printf("%s device %d: mismatches=%d initial=%d x[999]=%d\n",
           bad || initial ? "FAIL" : "PASS", d, bad, initial, x[N - 1]);
  }
  // FOUR: PASS device 0: mismatches=0 initial=0 x[999]=1998
  // FOUR: PASS device 1: mismatches=0 initial=0 x[999]=2997
  // FOUR: PASS device 2: mismatches=0 initial=0 x[999]=3996
  // FOUR: PASS device 3: mismatches=0 initial=0 x[999]=4995
  // FOUR-NOT: device 4
  // TWO: PASS device 0: mismatches=0 initial=0 x[999]=1998
  // TWO: PASS device 1: mismatches=0 initial=0 x[999]=2997
  // TWO-NOT: device 2
  // ONE: PASS device 0: mismatches=0 initial=0 x[999]=1998
  // ONE-NOT: device 1
  return 0;
}
