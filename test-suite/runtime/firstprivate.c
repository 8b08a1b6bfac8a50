// firstprivate scalars (int, double, char), a firstprivate array, implicitly
// firstprivate scalars of other widths and literal arguments: the kernel sees
// the values at entry, its changes stay private.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define K 8

int main(void) {
  int i0 = 5;
  double d0 = 2.5;
  char c0 = 'a';
  int arr[K];
  for (int k = 0; k < K; k++)
    arr[k] = k * k;
  long out[K + 3];
  long ref[K + 3];
  for (int k = 0; k < K; k++)
    ref[k] = arr[k] * i0 + (long)(d0 * 4) + c0;
  ref[K] = i0 * 1000;
  ref[K + 1] = (long)(d0 * 1000);
  ref[K + 2] = c0;

  for (int d = 0; d < 2; d++) {
    int on_host = -1;
#pragma omp target firstprivate(i0, d0, c0, arr) map(from : out, on_host) device(d)
    {
      on_host = omp_is_initial_device();
      for (int k = 0; k < K; k++) {
        out[k] = arr[k] * i0 + (long)(d0 * 4) + c0;
        arr[k] = -1;
      }
      i0 *= 1000;
      d0 *= 1000;
      out[K] = i0;
      out[K + 1] = (long)d0;
      out[K + 2] = c0;
      c0 = 'z';
    }
    int bad = 0;
    for (int k = 0; k < K + 3; k++)
      bad += out[k] != ref[k];
    int host_ok = i0 == 5 && d0 == 2.5 && c0 == 'a' && arr[K - 1] == (K - 1) * (K - 1);
    printf("%s firstprivate device %d: mismatches=%d out[0]=%ld out[7]=%ld i0=%ld d0=%ld "
           "c0=%ld host_unchanged=%d on_host=%d\n",
           bad || !host_ok || on_host ? "FAIL" : "PASS", d, bad, out[0], out[K - 1], out[K],
           out[K + 1], out[K + 2], host_ok, on_host);
  }
  // CHECK: PASS firstprivate device 0: mismatches=0 out[0]=107 out[7]=352 i0=5000 d0=2500 c0=97 host_unchanged=1 on_host=0
  // CHECK: PASS firstprivate device 1: mismatches=0 out[0]=107 out[7]=352 i0=5000 d0=2500 c0=97 host_unchanged=1 on_host=0

  // Implicitly firstprivate scalars of every width, and literal values.
  short s = -3;
  unsigned char uc = 200;
  long big = 1L << 40;
  float f = 1.5f;
  unsigned long long ull = 0xFEDCBA9876543210ULL;
  long long res[7] = {0, 0, 0, 0, 0, 0, -1};
#pragma omp target map(from : res) device(3)
  {
    res[6] = omp_is_initial_device();
    res[0] = s * 7;
    res[1] = uc + 1;
    res[2] = big + 1;
    res[3] = (long long)(f * 4);
    res[4] = (long long)(ull >> 4);
    res[5] = 42 + 'A';
  }
  int bad = res[0] != -21 || res[1] != 201 || res[2] != (1LL << 40) + 1 || res[3] != 6 ||
            res[4] != (long long)(0xFEDCBA9876543210ULL >> 4) || res[5] != 107 || res[6] != 0;
  printf("%s implicit scalars: %lld %lld %lld %lld %llx %lld on_host=%lld\n",
         bad ? "FAIL" : "PASS", res[0], res[1], res[2], res[3], (unsigned long long)res[4],
         res[5], res[6]);
  // CHECK: PASS implicit scalars: -21 201 1099511627777 6 fedcba987654321 107 on_host=0
  return 0;
}
