// `target nowait` issued by the initial thread, outside any parallel region, must
// not run synchronously: each of four regions (one per device) waits until the
// host sets a flag, which the host does only after issuing all four and before
// its taskwait. A region that ran inside its construct would never see the flag
// (it gives up after 5 s and reports it). The kernels read the flag through
// is_device_ptr: host devices run in the program's address space. Each region's
// result is also checked.
//
// RUN: %clang-offload -O1 %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(void) {
  static int flag;
  int *f = &flag;
  int nd = omp_get_num_devices();
  if (nd > 4)
    nd = 4;
  int saw[4] = {0}, val[4] = {0};
  for (int d = 0; d < nd; d++) {
#pragma omp target nowait device(d) is_device_ptr(f) map(from : saw[d : 1], val[d : 1])
    {
      double t0 = now();
      while (!__atomic_load_n(f, __ATOMIC_ACQUIRE) && now() - t0 < 5.0)
        usleep(200);
      saw[d] = __atomic_load_n(f, __ATOMIC_ACQUIRE);
      val[d] = 10 * d + 1;
    }
  }
  __atomic_store_n(f, 1, __ATOMIC_RELEASE);
#pragma omp taskwait
  int ok = nd > 0;
  for (int d = 0; d < nd; d++) {
    if (!saw[d])
      printf("FAIL: device %d's region ran before the host went on (synchronous nowait)\n", d);
    if (val[d] != 10 * d + 1)
      printf("FAIL: device %d's result %d, expected %d\n", d, val[d], 10 * d + 1);
    ok &= saw[d] && val[d] == 10 * d + 1;
  }
  printf("%d nowait regions from the initial thread: %s\n", nd, ok ? "asynchronous" : "FAIL");
  return !ok;
}

// CHECK: 4 nowait regions from the initial thread: asynchronous
