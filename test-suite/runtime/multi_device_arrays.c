// Map a different slice of two arrays to every device in turn, compute
// a[i] = f(b[i]) there and compare with the same computation done serially on
// the host. Also checks that each slice is mapped only on its own device.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 4000

#pragma omp declare target
static long f(long x) { return 3 * x * x - 7 * x + 11; }
#pragma omp end declare target

static long a[N], b[N], ref[N];

int main(void) {
  int nd = omp_get_num_devices();
  printf("devices=%d\n", nd);
  // CHECK: devices=4
  if (nd < 1)
    return 1;

  for (int i = 0; i < N; i++) {
    b[i] = i - N / 2;
    a[i] = -1;
    ref[i] = f(b[i]);
  }

  for (int d = 0; d < nd; d++) {
    int lo = d * N / nd, len = (d + 1) * N / nd - lo;
    int here = -1, elsewhere = -1;
#pragma omp target data device(d) map(to : b[lo:len]) map(from : a[lo:len])
    {
      here = omp_target_is_present(&b[lo], d);
      elsewhere = nd > 1 ? omp_target_is_present(&b[lo], (d + 1) % nd) : 0;
#pragma omp target teams distribute parallel for device(d)                    \
    map(to : b[lo:len]) map(tofrom : a[lo:len])
      for (int i = lo; i < lo + len; i++)
        a[i] = f(b[i]);
    }
    long sum = 0;
    int bad = 0;
    for (int i = lo; i < lo + len; i++) {
      sum += a[i];
      bad += a[i] != ref[i];
    }
    printf("%s device %d slice [%d,%d) present_here=%d present_elsewhere=%d "
           "mismatches=%d sum=%ld\n",
           bad || here != 1 || elsewhere != 0 ? "FAIL" : "PASS", d, lo,
           lo + len, here, elsewhere, bad, sum);
  }
  // CHECK: PASS device 0 slice [0,1000) present_here=1 present_elsewhere=0 mismatches=0 sum=7015015000
  // CHECK: PASS device 1 slice [1000,2000) present_here=1 present_elsewhere=0 mismatches=0 sum=1005015000
  // CHECK: PASS device 2 slice [2000,3000) present_here=1 present_elsewhere=0 mismatches=0 sum=995015000
  // CHECK: PASS device 3 slice [3000,4000) present_here=1 present_elsewhere=0 mismatches=0 sum=6985015000

  long total = 0, rtotal = 0;
  int bad = 0;
  for (int i = 0; i < N; i++) {
    total += a[i];
    rtotal += ref[i];
    bad += a[i] != ref[i];
  }
  printf("%s all mismatches=%d total=%ld reference=%ld\n", bad ? "FAIL" : "PASS",
         bad, total, rtotal);
  // CHECK: PASS all mismatches=0 total=16000060000 reference=16000060000
  return bad != 0;
}
