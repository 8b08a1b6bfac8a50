// Device copies on host devices are aligned as malloc's (16 bytes) whatever their size, as
// compiled kernels assume: clang copies a firstprivate int[10] (40 bytes) with aligned SSE moves
// (movaps), which fault on an 8-aligned copy; mapped sections of odd sizes, and sections of
// 16-byte types, keep their alignment too. Every size from 1 to 100 bytes is checked, on every
// host device, against the host's values (SOLLVE's test_target_teams_distribute_firstprivate.c
// died of SIGSEGV with 8-aligned guarded blocks).
//
// RUN: %clang-offload -O2 %s -o %t
// RUN: env SPREAD_DEVICES=host %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_DEVICES=host %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#define N 1024

int main(void) {
  int d[N], num_teams[N];
  int privatized_array[10];
  int errors = 0;
  for (int x = 0; x < N; x++)
    d[x] = 0;
  for (int z = 0; z < 10; z++)
    privatized_array[z] = z;
  int devices = omp_get_num_devices();
  for (int dev = 0; dev < devices; dev++) {
    // The shape clang copies with movaps: a firstprivate array in a teams construct.
#pragma omp target teams distribute firstprivate(privatized_array) map(from : d[0 : N]) \
    map(from : num_teams[0 : N]) num_teams(8) device(dev)
    for (int x = 0; x < N; x++) {
      num_teams[x] = omp_get_num_teams();
      d[x] = 0;
      for (int z = 0; z < 10; z++)
        d[x] += privatized_array[z] * x;
      privatized_array[x % 10] += 0; // stays the team's own copy
    }
    for (int x = 0; x < N; x++)
      if (d[x] != 45 * x) {
        printf("FAIL: device %d d[%d] = %d, expected %d\n", dev, x, d[x], 45 * x);
        errors++;
        break;
      }

    // Every section size from 1 to 100 bytes: the device copy's address is 16-aligned when
    // the host's is, and a 16-byte type (long double) is reached with its own alignment.
    _Alignas(16) unsigned char bytes[112];
    for (int n = 1; n <= 100; n++) {
      for (int k = 0; k < n; k++)
        bytes[k] = (unsigned char)(k * 7 + n);
      uintptr_t where = 1;
      unsigned sum = 0;
#pragma omp target map(to : bytes[0 : n]) map(from : where, sum) device(dev)
      {
        unsigned s = 0;
        where = (uintptr_t)bytes % 16;
        for (int k = 0; k < n; k++)
          s += bytes[k];
        sum = s;
      }
      unsigned ref = 0;
      for (int k = 0; k < n; k++)
        ref += (unsigned char)(k * 7 + n);
      if (where != 0 || sum != ref) {
        printf("FAIL: device %d, %d bytes: copy at %lu mod 16, sum %u (expected %u)\n", dev,
               n, (unsigned long)where, sum, ref);
        errors++;
        break;
      }
    }
    long double ld[3] = {1.5L, 2.5L, 3.5L};
    long double lsum = 0;
#pragma omp target map(to : ld[0 : 3]) map(from : lsum) device(dev)
    lsum = ld[0] + ld[1] + ld[2];
    if (lsum != 7.5L) {
      printf("FAIL: device %d long double sum %Lf\n", dev, lsum);
      errors++;
    }
  }
  printf("devices %d errors %d\n", devices, errors);
  // CHECK: devices {{[1-9][0-9]*}} errors 0
  return errors != 0;
}
