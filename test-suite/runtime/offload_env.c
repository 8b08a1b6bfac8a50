// OMP_TARGET_OFFLOAD: with `disabled` every target region runs on the host
// (omp_is_initial_device() is true inside it, and a map(to:) array written by
// the region is the host array itself); with `mandatory` the regions run on
// the devices.  The results are the same either way.
//
// RUN: %clang-offload %s -o %t
// RUN: env OMP_TARGET_OFFLOAD=disabled %libpath-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,DISABLED
// RUN: env OMP_TARGET_OFFLOAD=disabled %preload-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,DISABLED
// RUN: env OMP_TARGET_OFFLOAD=mandatory %libpath-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,MANDATORY
// RUN: env OMP_TARGET_OFFLOAD=mandatory %preload-run %t | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,MANDATORY

#include <omp.h>
#include <stdio.h>

#define N 512

int main(void) {
  static int in[N], out[N];
  for (int i = 0; i < N; i++)
    in[i] = i;

  int initial[2] = {-1, -1};
  for (int d = 0; d < 2; d++) {
    int lo = d * N / 2, len = N / 2;
#pragma omp target device(d) map(to : in[lo:len]) map(from : out[lo:len])             \
    map(tofrom : initial[d:1])
    {
      initial[d] = omp_is_initial_device();
      for (int i = lo; i < lo + len; i++) {
        out[i] = in[i] * in[i] + 1;
        in[i] = -1; // visible on the host only when the region ran there
      }
    }
  }

  int bad = 0, clobbered = 0;
  long sum = 0;
  for (int i = 0; i < N; i++) {
    bad += out[i] != i * i + 1;
    clobbered += in[i] == -1;
    sum += out[i];
  }
  printf("%s results: mismatches=%d sum=%ld\n", bad ? "FAIL" : "PASS", bad, sum);
  // CHECK: PASS results: mismatches=0 sum=44608768
  printf("initial device in region: %d %d\n", initial[0], initial[1]);
  // DISABLED: initial device in region: 1 1
  // MANDATORY: initial device in region: 0 0
  printf("map(to:) array written on the host: %d of %d\n", clobbered, N);
  // DISABLED: map(to:) array written on the host: 512 of 512
  // MANDATORY: map(to:) array written on the host: 0 of 512
  return bad != 0;
}
