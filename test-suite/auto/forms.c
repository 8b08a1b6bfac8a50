// Automatic spreading of unmodified target loops (SPREAD_AUTO): every form the
// pass accepts computes the serial result, spread over 2 to 8 host devices, at
// -O0 and -O2, for odd sizes (n = 1 and 7 have fewer iterations than some
// device counts; 100003 is prime); the same binary gives the same results on
// stock libomptarget and on Spread with SPREAD_AUTO off. SPREAD_INFO=auto shows
// that each kernel was spread, and the blocks' sections.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 100003 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=2 %libpath-run %t 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=1 SPREAD_INFO=auto %libpath-run %t 1000 2>%t.one | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=ONE %s < %t.one
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=3 %preload-run %t 1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %libpath-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=0,2 SPREAD_AUTO_MIN=1 %libpath-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_SCHEDULE=dynamic,100 SPREAD_INFO=auto %libpath-run %t 1000 2>%t.dyn | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=DYN %s < %t.dyn
// RUN: env SPREAD_AUTO=1 SPREAD_INFO=auto %libpath-run %t 1000 2>%t.min | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=MIN %s < %t.min
// RUN: %libpath-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.O0 1001 2>%t.info0 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 %libpath-run %t.O0 1 | FileCheck %s --implicit-check-not=FAIL

#include <stdio.h>
#include <stdlib.h>

#include "../Inputs/check_floats.h"

static void saxpy(int n, float a, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

static void stencil(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 1; i < n - 1; i++)
    y[i] = x[i - 1] + 2 * x[i] + x[i + 1];
}

static void window(int lo, int hi, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[lo:hi - lo]) map(tofrom : y[lo:hi - lo])
  for (int i = lo; i < hi; i++)
    y[i] = 3 * x[i];
}

static void stride2(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i += 2)
    y[i] = x[i] + 1;
}

static void reverse(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    y[n - 1 - i] = x[i];
}

static void gather(int n, const float *x, const int *idx, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n], idx[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[idx[i]];
}

static void collapse2(int r, int c, float *m) {
#pragma omp target teams distribute parallel for collapse(2) map(tofrom : m[0:r * c])
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      m[i * c + j] += (float)(i - j);
}

static void simd(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for simd map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = y[i] - x[i];
}

static void teamsloop(int n, const float *x, float *y) {
#pragma omp target teams loop map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[i];
}

// The program's own functions in the loop: the pass analyses them inlined (the kernel keeps
// its calls).
#pragma omp declare target
__attribute__((noinline)) float blend(float a, float b) { return 0.75f * a + 0.25f * b; }
static inline void store_scaled(float *dst, float v, float s) { *dst = v * s; }
__attribute__((noinline)) void update(const float *x, float *y, int i) {
  store_scaled(&y[i], blend(x[i], y[i]), 2.0f);
}
#pragma omp end declare target

static void calls(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    update(x, y, i);
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

  RESET();
  saxpy(n, 2.0f, x, y);
  for (int i = 0; i < n; i++)
    want[i] = 2.0f * x[i] + want[i];
  check("saxpy", y, want, n);

  RESET();
  stencil(n, x, y);
  for (int i = 1; i < n - 1; i++)
    want[i] = x[i - 1] + 2 * x[i] + x[i + 1];
  check("stencil", y, want, n);

  RESET();
  int lo = n / 3, hi = n - n / 5;
  window(lo, hi, x, y);
  for (int i = lo; i < hi; i++)
    want[i] = 3 * x[i];
  check("window", y, want, n);

  RESET();
  stride2(n, x, y);
  for (int i = 0; i < n; i += 2)
    want[i] = x[i] + 1;
  check("stride2", y, want, n);

  RESET();
  reverse(n, x, y);
  for (int i = 0; i < n; i++)
    want[n - 1 - i] = x[i];
  check("reverse", y, want, n);

  RESET();
  gather(n, x, idx, y);
  for (int i = 0; i < n; i++)
    want[i] = x[idx[i]];
  check("gather", y, want, n);

  RESET();
  int c = 13, r = n / 13;
  collapse2(r, c, y);
  for (int i = 0; i < r; i++)
    for (int j = 0; j < c; j++)
      want[i * c + j] += (float)(i - j);
  check("collapse2", y, want, n);

  RESET();
  simd(n, x, y);
  for (int i = 0; i < n; i++)
    want[i] = want[i] - x[i];
  check("simd", y, want, n);

  RESET();
  teamsloop(n, x, y);
  for (int i = 0; i < n; i++)
    want[i] = x[i] * x[i];
  check("teamsloop", y, want, n);

  RESET();
  calls(n, x, y);
  for (int i = 0; i < n; i++)
    want[i] = blend(x[i], want[i]) * 2.0f;
  check("calls", y, want, n);

  free(x), free(y), free(want), free(idx);
  printf("%s\n", fails ? "FAIL" : "all forms ok");
  return fails != 0;
}

// CHECK: saxpy: ok
// CHECK: stencil: ok
// CHECK: window: ok
// CHECK: stride2: ok
// CHECK: reverse: ok
// CHECK: gather: ok
// CHECK: collapse2: ok
// CHECK: simd: ok
// CHECK: teamsloop: ok
// CHECK: calls: ok
// CHECK: all forms ok

// INFO: kernel {{.*}}_saxpy_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO-NEXT: block [0,{{[0-9]+}}) -> device 0: arg{{[0-9]}} +0:{{[0-9]+}}B({{to|tofrom}}) arg{{[0-9]}} +0:{{[0-9]+}}B({{to|tofrom}})
// INFO: kernel {{.*}}_stencil_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_window_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_stride2_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_reverse_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_gather_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_collapse2_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_simd_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_teamsloop_l{{[0-9]+}} spread over devices
// INFO: kernel {{.*}}_calls_l{{[0-9]+}} spread over devices

// DYN: kernel {{.*}}_saxpy_l{{[0-9]+}} spread over devices
// DYN: block [900,1000) -> device

// By default a block gets at least 8192 iterations (SPREAD_AUTO_MIN).
// MIN: kernel {{.*}}_saxpy_l{{[0-9]+}} runs on device 0: 1000 iterations, fewer than two blocks of SPREAD_AUTO_MIN=8192

// One device: nothing to spread over; the launch runs as written.
// ONE: kernel {{.*}}_saxpy_l{{[0-9]+}} runs on device 0: 1 device(s) can run its blocks
