// What automatic spreading refuses runs as the program wrote it, with the
// serial result: the pass refuses kernels it cannot describe (scatter,
// team-number query, unknown call, device addresses used as values; reductions
// are spread: reduction.c, and so are atomic updates: the histogram here, atomic.c) with a
// -Rpass-missed remark; the
// runtime refuses launches whose data cannot be cut (writes from both ends,
// aliasing maps, data already present from a target data that names its
// device (without one, SPREAD_AUTO keeps it resident: resident.c), an explicit device,
// is_device_ptr) and says why under SPREAD_INFO=auto.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass -Rpass-missed=spread-auto %s -o %t 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 1000 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %preload-run %t 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 1000 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "../Inputs/check_floats.h"

#pragma omp declare target
__attribute__((noinline)) float opaque(float v);
#pragma omp end declare target
float opaque(float v) { return v * 0.5f + 1.0f; }

static void histogram(int n, const float *x, int *h) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : h[0:8])
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    h[(int)x[i] % 8]++;
  }
}

static void scatter(int n, const float *x, const int *idx, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n], idx[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[idx[i]] = x[i];
}

static void teamnum(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[i] + (omp_get_team_num() >= 0);
}

// The pass inlines the program's functions into its analysis (opaque is spread: forms.c);
// a printf (never reached) is a call it cannot describe.
static void call(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++) {
    if (x[i] < -1e30f)
      printf("unreachable\n");
    y[i] = opaque(x[i]);
  }
}

static void bothends(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n / 2; i++) {
    y[i] = x[i] + 5;
    y[n - 1 - i] = x[n - 1 - i] + 5;
  }
}

// The written array is also read through another argument (p is y: each iteration reads the
// element it writes): one object on one device, two copies on several. (Read-only aliases,
// and pointers whose accesses do not overlap, are spread: alias.c.)
static void alias(int n, float *y, const float *p) {
#pragma omp target teams distribute parallel for map(tofrom : y[0:n / 4]) map(to : p[0:n / 4])
  for (int i = 0; i < n / 4; i++)
    y[i] = 2 * p[i];
}

static void add(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += x[i];
}

static void on_device1(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for device(1) map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += 2 * x[i];
}

static void devptr(int n, float *d) {
#pragma omp target teams distribute parallel for is_device_ptr(d)
  for (int i = 0; i < n; i++)
    d[i] = (float)i;
}

// HeCBench memtest's "own address" test: each element holds its device address, then a
// second kernel counts the elements that do not. Spread over devices, each block would see
// its own copy's addresses.
static void selfaddr(long n, unsigned long *buf) {
#pragma omp target teams distribute parallel for map(tofrom : buf[0:n])
  for (long i = 0; i < n; i++)
    buf[i] = (unsigned long)(buf + i);
}

static long selfcheck(long n, const unsigned long *buf) {
  long bad = 0;
#pragma omp target teams distribute parallel for map(to : buf[0:n]) reduction(+ : bad)
  for (long i = 0; i < n; i++)
    bad += buf[i] != (unsigned long)(buf + i);
  return bad;
}

static void check_count(const char *what, long got, long want) {
  if (got != want) {
    printf("FAIL: %s: %ld, expected %ld\n", what, got, want);
    fails++;
    return;
  }
  printf("%s: ok\n", what);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  float *x = malloc(sizeof(float) * n), *y = malloc(sizeof(float) * n);
  float *want = malloc(sizeof(float) * n);
  int *idx = malloc(sizeof(int) * n);
  for (int i = 0; i < n; i++) {
    x[i] = (float)(i % 97);
    idx[i] = (int)((i * 7919L) % n);
  }
#define RESET()                                                                                    \
  for (int i = 0; i < n; i++)                                                                      \
  y[i] = want[i] = (float)(i % 13)

  int h[8] = {0}, wh[8] = {0};
  histogram(n, x, h);
  for (int i = 0; i < n; i++)
    wh[(int)x[i] % 8]++;
  float hf[8], whf[8];
  for (int k = 0; k < 8; k++)
    hf[k] = (float)h[k], whf[k] = (float)wh[k];
  check("atomic", hf, whf, 8);

  RESET();
  scatter(n, x, idx, y);
  for (int i = 0; i < n; i++)
    want[idx[i]] = x[i];
  check("scatter", y, want, n);

  RESET();
  teamnum(n, x, y);
  for (int i = 0; i < n; i++)
    want[i] = x[i] + 1;
  check("teamnum", y, want, n);

  RESET();
  call(n, x, y);
  for (int i = 0; i < n; i++)
    want[i] = opaque(x[i]);
  check("call", y, want, n);

  RESET();
  bothends(n, x, y);
  for (int i = 0; i < n / 2; i++) {
    want[i] = x[i] + 5;
    want[n - 1 - i] = x[n - 1 - i] + 5;
  }
  check("bothends", y, want, n);

  RESET();
  alias(n, y, y);
  for (int i = 0; i < n / 4; i++)
    want[i] = 2 * want[i];
  check("alias", y, want, n);

  RESET();
#pragma omp target data map(tofrom : y[0:n]) device(omp_get_default_device())
  {
    add(n, x, y);
    add(n, x, y);
  }
  for (int i = 0; i < n; i++)
    want[i] += 2 * x[i];
  check("present", y, want, n);

  RESET();
  if (omp_get_num_devices() > 1) {
    on_device1(n, x, y);
    for (int i = 0; i < n; i++)
      want[i] += 2 * x[i];
  }
  check("device", y, want, n);

  float *d = omp_target_alloc(sizeof(float) * n, omp_get_default_device());
  devptr(n, d);
  omp_target_memcpy(y, d, sizeof(float) * n, 0, 0, omp_get_initial_device(),
                    omp_get_default_device());
  omp_target_free(d, omp_get_default_device());
  for (int i = 0; i < n; i++)
    want[i] = (float)i;
  check("is_device_ptr", y, want, n);

  // One copy's addresses are consecutive; the device's own check finds them all, also
  // when the buffer stays resident across the two kernels.
  unsigned long *buf = malloc(sizeof(unsigned long) * n);
  selfaddr(n, buf);
  long gaps = 0;
  for (long i = 1; i < n; i++)
    gaps += buf[i] - buf[i - 1] != sizeof(unsigned long);
  check_count("own addresses consecutive", gaps, 0);
#pragma omp target data map(alloc : buf[0:n])
  {
    selfaddr(n, buf);
    check_count("own addresses checked on the device", selfcheck(n, buf), 0);
  }
  free(buf);

  printf("%s\n", fails ? "FAIL" : "all refusals ok");
  return fails != 0;
}

// CHECK: atomic: ok
// CHECK: scatter: ok
// CHECK: teamnum: ok
// CHECK: call: ok
// CHECK: bothends: ok
// CHECK: alias: ok
// CHECK: present: ok
// CHECK: device: ok
// CHECK: is_device_ptr: ok
// CHECK: own addresses consecutive: ok
// CHECK: own addresses checked on the device: ok
// CHECK: all refusals ok

// REMARK-DAG: _scatter_l{{[0-9]+}} runs on one device: {{.*}}non-affine write
// REMARK-DAG: _teamnum_l{{[0-9]+}} runs on one device: {{.*}}omp_get_team_num
// REMARK-DAG: _call_l{{[0-9]+}} runs on one device: a call to '{{.*}}printf{{.*}}' with unknown memory effects
// REMARK-DAG: _selfaddr_l{{[0-9]+}} runs on one device: the address of arg{{[0-9]+}} used as a value
// REMARK-DAG: _selfcheck_l{{[0-9]+}} runs on one device: the address of arg{{[0-9]+}} used as a value

// INFO: kernel {{.*}}_bothends_l{{[0-9]+}} runs on device {{[0-9]+}}: argument {{[0-9]+}} ('y[0:n]' (declared at {{.*}})): the bytes one iteration writes back may overlap
// INFO: kernel {{.*}}_alias_l{{[0-9]+}} runs on device {{[0-9]+}}: map entries {{[0-9]+}} and {{[0-9]+}} overlap in host memory, and entry {{[0-9]+}} is written
// INFO: kernel {{.*}}_add_l{{[0-9]+}} runs on device {{[0-9]+}}: map entry {{[0-9]+}} is already present on device
// INFO: kernel {{.*}}_on_device1_l{{[0-9]+}} runs on device 1: the construct names device(1)
// INFO: kernel {{.*}}_devptr_l{{[0-9]+}} runs on device {{[0-9]+}}: argument {{[0-9]+}}{{( \(.*\))?}} is a device pointer (is_device_ptr)
