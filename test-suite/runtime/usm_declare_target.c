// `requires unified_shared_memory` with declare target variables: clang then makes every one a
// `link` variable, which the device image reaches through its reference pointer, and the runtime
// must give that pointer the host variable's address when it loads the image (libomptarget
// does). Spread left it null and the first kernel segfaulted, where stock libomptarget runs.
// Each device adds to the host's array in turn; the result is checked against the serial sum.
//
// RUN: %clang-offload -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 %libpath-run %t | FileCheck %s
// RUN: env SPREAD_HOST_DEVICES=2 %preload-run %t | FileCheck %s
// RUN: %clang-offload -O1 -DLINK %s -o %t.link
// RUN: env SPREAD_HOST_DEVICES=2 %libpath-run %t.link | FileCheck %s
// RUN: env SPREAD_HOST_DEVICES=2 %preload-run %t.link | FileCheck %s
// CHECK: usm declare target: OK

#include <omp.h>
#include <stdio.h>

#pragma omp requires unified_shared_memory

#define N 64
double g[N];
#ifdef LINK
#pragma omp declare target link(g)
#else
#pragma omp declare target to(g)
#endif

int main(void) {
  int nd = omp_get_num_devices();
  for (int d = 0; d < nd; d++) {
#pragma omp target device(d) map(tofrom : g)
    for (int i = 0; i < N; i++)
      g[i] += i + d;
  }
  // The host's copy is the one the kernels used: visible without any copy back.
  for (int d = 0; d < nd; d++) {
#pragma omp target device(d)
    for (int i = 0; i < N; i++)
      g[i] += 1;
  }
  int ok = nd > 0;
  for (int i = 0; i < N; i++) {
    double want = 0;
    for (int d = 0; d < nd; d++)
      want += i + d + 1;
    if (g[i] != want) {
      if (ok)
        printf("g[%d] = %g, serial %g\n", i, g[i], want);
      ok = 0;
    }
  }
  printf("usm declare target: %s (%d devices)\n", ok ? "OK" : "FAIL", nd);
  return !ok;
}
