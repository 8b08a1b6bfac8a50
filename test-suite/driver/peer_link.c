// A program using 'target update peer' and 'wait device' links against Spread's runtime, which
// exports the entry points they are lowered to (C, and C++ with spread-c++). It is not run here:
// the runtime's tests check what the copies and waits do.
// REQUIRES: spread
// RUN: %spread-cc %s -o %t
// RUN: llvm-nm -D %t | FileCheck %s
// RUN: %spread-cxx -x c++ %s -o %t-cxx
// RUN: llvm-nm -D %t-cxx | FileCheck %s
// CHECK-DAG: U __spread_device_wait
// CHECK-DAG: U __spread_update_peer

#include <omp.h>

#define N 1024

int main(void) {
  static double a[N];
  int ndev = omp_get_num_devices();
  if (ndev < 2)
    return 0;
#pragma omp target enter data map(to: a) device(0)
#pragma omp target enter data map(alloc: a) device(1)
#pragma omp target update peer to(a[0:N]) to_device(1) from(a[0:N]) from_device(0)
#pragma omp wait device(1)
#pragma omp target exit data map(from: a) device(1)
#pragma omp target exit data map(delete: a) device(0)
  return 0;
}
