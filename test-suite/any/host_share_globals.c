// Host instances created outside a parallel region run on the host share (docs/task-sharing.md)
// only when the program has no `declare target` variables: the host share runs the x86_64
// image's code, which names such a variable in the image's own copy, while a host version must
// update the host's. With one, host instances run on the creating thread (as before the host
// share), and the values written by the host version are the host's. (On the host share the
// four values below stayed 0; with a `declare target link` variable, built with -DLINK, the
// program crashed: the image's pointer to it was never set.)
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_PROFILE=summary %t 2>%t.err | FileCheck %s --implicit-check-not=FAIL
// RUN: not grep -q "spread:  *share" %t.err
// RUN: %spread-cc -O1 -DLINK %s -o %t.link
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_PROFILE=summary %t.link 2>%t.link.err | FileCheck %s --implicit-check-not=FAIL
// RUN: not grep -q "spread:  *share" %t.link.err
// CHECK: host versions: OK

#include <stdio.h>

#define K 4
double g[K];
#ifdef LINK
#pragma omp declare target link(g)
#else
#pragma omp declare target(g)
#endif

int main(void) {
  for (int k = 0; k < K; k++) {
#pragma omp target device(any) map(tofrom : g[k : 1]) nowait
#pragma omp if_device(host) parallel for
    for (int i = k; i < k + 1; i++)
      g[i] = 10 * i + 1;
  }
#pragma omp taskwait
  int ok = 1;
  for (int k = 0; k < K; k++)
    ok &= g[k] == 10 * k + 1;
  printf("host versions: %s (%g %g %g %g)\n", ok ? "OK" : "FAIL", g[0], g[1], g[2], g[3]);
  return !ok;
}
