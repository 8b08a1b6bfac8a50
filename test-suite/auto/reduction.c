// Automatic spreading (SPREAD_AUTO) of unmodified target loops with scalar reductions: the pass
// describes each reduction variable (descriptor mode 5: the kernel argument, the operator and
// the type), and the runtime gives each block a copy of the variable of its own, started at the
// operator's identity, into which the kernel reduces as written; the copies are combined into the
// program's variable on the host. Every result is compared with the serial loop's, over 2, 4 and
// 8 host devices, for n = 1, 7 (fewer iterations than some device counts) and 100003 (prime), at
// -O2 and -O0; the same binary gives the same results on stock libomptarget and on Spread with
// SPREAD_AUTO off. SPREAD_INFO=auto shows that each kernel was spread. Reductions start from
// values that are not the identity, so that the variable's own value must be combined exactly
// once; the values of + and * are exactly representable, so any order gives the serial result.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass -Rpass=spread-auto %s -o %t 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto SPREAD_HOST_DEVICES=2 %libpath-run %t 100003 2>%t.info2 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO -DDEVS="[0, 1]" %s < %t.info2
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto SPREAD_HOST_DEVICES=4 %libpath-run %t 100003 2>%t.info4 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO -DDEVS="[0, 1, 2, 3]" %s < %t.info4
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto SPREAD_HOST_DEVICES=8 %preload-run %t 100003 2>%t.info8 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO -DDEVS="[0, 1, 2, 3, 4, 5, 6, 7]" %s < %t.info8
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=2 %libpath-run %t 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=4 %libpath-run %t 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %libpath-run %t 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=2 %libpath-run %t 1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=4 %libpath-run %t 1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %preload-run %t 1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 SPREAD_SCHEDULE=dynamic,1000 %libpath-run %t 100003 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=0 SPREAD_AUTO_MIN=1 %libpath-run %t 100003 | FileCheck %s --implicit-check-not=FAIL
// RUN: %libpath-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 100003 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t.O0 100003 2>%t.info0 | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO -DDEVS="[0, 1, 2, 3]" %s < %t.info0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %libpath-run %t.O0 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t.O0 1001 | FileCheck %s --implicit-check-not=FAIL

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static int fails;

static void check_int(const char *what, long long got, long long want) {
  if (got != want) {
    printf("FAIL: %s is %lld, expected %lld\n", what, got, want);
    fails++;
    return;
  }
  printf("%s: ok\n", what);
}

static void check_fp(const char *what, double got, double want) {
  if (got != want) {
    printf("FAIL: %s is %.17g, expected %.17g\n", what, got, want);
    fails++;
    return;
  }
  printf("%s: ok\n", what);
}

static int isum(int n, const int *a) {
  int s = 5;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

static double dsum(int n, const double *x) {
  double s = 0.25;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

// (The float sum that test-suite/auto/refused.c used to expect refused.)
static float fsum(int n, const float *f) {
  float s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : f[0:n])
  for (int i = 0; i < n; i++)
    s += f[i];
  return s;
}

static int iprod(int n, const int *m) {
  int p = 3;
#pragma omp target teams distribute parallel for reduction(* : p) map(to : m[0:n])
  for (int i = 0; i < n; i++)
    p *= m[i];
  return p;
}

static int imax(int n, const int *a) {
  int v = -999;
#pragma omp target teams distribute parallel for reduction(max : v) map(to : a[0:n])
  for (int i = 0; i < n; i++)
    v = a[i] > v ? a[i] : v;
  return v;
}

static int imin(int n, const int *a) {
  int v = 999;
#pragma omp target teams distribute parallel for reduction(min : v) map(to : a[0:n])
  for (int i = 0; i < n; i++)
    v = a[i] < v ? a[i] : v;
  return v;
}

// Unsigned: the negative values of a are the largest.
static unsigned umax(int n, const int *a) {
  unsigned v = 7;
#pragma omp target teams distribute parallel for reduction(max : v) map(to : a[0:n])
  for (int i = 0; i < n; i++)
    v = (unsigned)a[i] > v ? (unsigned)a[i] : v;
  return v;
}

static double dmax(int n, const double *x) {
  double v = -499.75;
#pragma omp target teams distribute parallel for reduction(max : v) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    v = x[i] > v ? x[i] : v;
  return v;
}

static double dmin(int n, const double *x) {
  double v = 499.75;
#pragma omp target teams distribute parallel for reduction(min : v) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    v = x[i] < v ? x[i] : v;
  return v;
}

static int land(int n, const int *a, int bound) {
  int all = 1;
#pragma omp target teams distribute parallel for reduction(&& : all) map(to : a[0:n])
  for (int i = 0; i < n; i++)
    all = all && a[i] > bound;
  return all;
}

static int lor(int n, const int *a, int value) {
  int any = 0;
#pragma omp target teams distribute parallel for reduction(|| : any) map(to : a[0:n])
  for (int i = 0; i < n; i++)
    any = any || a[i] == value;
  return any;
}

// Two variables in one loop: a sum and a maximum.
static void two(int n, const double *x, const int *a, double *sum, int *max) {
  double s = 1.5;
  int m = INT_MIN;
#pragma omp target teams distribute parallel for reduction(+ : s) reduction(max : m) map(to : x[0:n], a[0:n])
  for (int i = 0; i < n; i++) {
    s += x[i];
    m = a[i] > m ? a[i] : m;
  }
  *sum = s;
  *max = m;
}

static void twice(int n, const double *x, double *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = 2 * x[i];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int *a = malloc(sizeof(int) * n), *m = malloc(sizeof(int) * n);
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  float *f = malloc(sizeof(float) * n);
  for (int i = 0; i < n; i++) {
    a[i] = (int)((i * 7919L) % 2001) - 1000; // -1000 .. 1000, a[0] = -1000
    x[i] = a[i] * 0.5;
    f[i] = (float)(i % 97);
    m[i] = i % 9973 == 5 ? 2 : i % 30011 == 3 ? -1 : 1;
  }

  long long wi = 5;
  double wd = 0.25;
  float wf = 0;
  int wp = 3, wmax = -999, wmin = 999, wall = 1, wany = 0, wall2 = 1, wany2 = 0;
  unsigned wu = 7;
  double wdmax = -499.75, wdmin = 499.75;
  for (int i = 0; i < n; i++) {
    wi += a[i];
    wd += x[i];
    wf += f[i];
    wp *= m[i];
    wmax = a[i] > wmax ? a[i] : wmax;
    wmin = a[i] < wmin ? a[i] : wmin;
    wu = (unsigned)a[i] > wu ? (unsigned)a[i] : wu;
    wdmax = x[i] > wdmax ? x[i] : wdmax;
    wdmin = x[i] < wdmin ? x[i] : wdmin;
    wall = wall && a[i] > -1000;
    wany = wany || a[i] == 1000;
    wall2 = wall2 && a[i] > -1001;
    wany2 = wany2 || a[i] == 1001;
  }

  check_int("int +", isum(n, a), wi);
  check_fp("double +", dsum(n, x), wd);
  check_fp("float +", fsum(n, f), wf);
  check_int("int *", iprod(n, m), wp);
  check_int("int max", imax(n, a), wmax);
  check_int("int min", imin(n, a), wmin);
  check_int("unsigned max", umax(n, a), wu);
  check_fp("double max", dmax(n, x), wdmax);
  check_fp("double min", dmin(n, x), wdmin);
  check_int("int && (false)", land(n, a, -1000), wall);
  check_int("int && (true)", land(n, a, -1001), wall2);
  check_int("int || (true if found)", lor(n, a, 1000), wany);
  check_int("int || (false)", lor(n, a, 1001), wany2);

  double s2;
  int m2;
  two(n, x, a, &s2, &m2);
  double ws2 = 1.5;
  int wm2 = INT_MIN;
  for (int i = 0; i < n; i++) {
    ws2 += x[i];
    wm2 = a[i] > wm2 ? a[i] : wm2;
  }
  check_fp("two variables: +", s2, ws2);
  check_int("two variables: max", m2, wm2);

  // A reduction over data resident from a target data region, which another kernel wrote.
  double rs;
#pragma omp target data map(to : x[0:n]) map(alloc : y[0:n])
  {
    twice(n, x, y);
    rs = dsum(n, y);
  }
  check_fp("target data: +", rs, 0.25 + 2 * (wd - 0.25));

  free(a), free(m), free(x), free(y), free(f);
  printf("%s\n", fails ? "FAIL" : "all reductions ok");
  return fails != 0;
}

// CHECK: int +: ok
// CHECK: double +: ok
// CHECK: float +: ok
// CHECK: int *: ok
// CHECK: int max: ok
// CHECK: int min: ok
// CHECK: unsigned max: ok
// CHECK: double max: ok
// CHECK: double min: ok
// CHECK: int && (false): ok
// CHECK: int && (true): ok
// CHECK: int || (true if found): ok
// CHECK: int || (false): ok
// CHECK: two variables: +: ok
// CHECK: two variables: max: ok
// CHECK: target data: +: ok
// CHECK: all reductions ok

// REMARK-DAG: _isum_l{{[0-9]+}} can be spread over devices: arg1:reduce(+, i32) arg2:r[4*i, 4B]
// REMARK-DAG: _dsum_l{{[0-9]+}} can be spread over devices: arg1:reduce(+, double) arg2:r[8*i, 8B]
// REMARK-DAG: _fsum_l{{[0-9]+}} can be spread over devices: arg1:reduce(+, float) arg2:r[4*i, 4B]
// REMARK-DAG: _iprod_l{{[0-9]+}} can be spread over devices: arg1:reduce(*, i32) arg2:r[4*i, 4B]
// REMARK-DAG: _imax_l{{[0-9]+}} can be spread over devices: arg1:reduce(max, i32) arg2:r[4*i, 4B]
// REMARK-DAG: _imin_l{{[0-9]+}} can be spread over devices: arg1:reduce(min, i32) arg2:r[4*i, 4B]
// REMARK-DAG: _umax_l{{[0-9]+}} can be spread over devices: arg1:reduce(max, u32) arg2:r[4*i, 4B]
// REMARK-DAG: _dmax_l{{[0-9]+}} can be spread over devices: arg1:reduce(max, double) arg2:r[8*i, 8B]
// REMARK-DAG: _dmin_l{{[0-9]+}} can be spread over devices: arg1:reduce(min, double) arg2:r[8*i, 8B]
// REMARK-DAG: _land_l{{[0-9]+}} can be spread over devices: arg1:reduce(&&, i32) arg2:r[4*i, 4B]
// REMARK-DAG: _lor_l{{[0-9]+}} can be spread over devices: arg1:reduce(||, i32) arg2:r[4*i, 4B]
// REMARK-DAG: _two_l{{[0-9]+}} can be spread over devices: arg1:reduce(+, double) arg2:r[8*i, 8B] arg3:reduce(max, i32) arg4:r[4*i, 4B]

// Every kernel spread over all the devices, in launch order; a kernel launched twice (land, lor,
// dsum in the target data region) says so once, and its two launches are counted at exit.
// INFO:     kernel {{.*}}_isum_l{{[0-9]+}} spread over devices [[DEVS]]: 100003 iterations
// INFO:     kernel {{.*}}_dsum_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_fsum_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_iprod_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_imax_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_imin_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_umax_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_dmax_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_dmin_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_land_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_lor_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_two_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO:     kernel {{.*}}_twice_l{{[0-9]+}} spread over devices [[DEVS]]:
// INFO-DAG: summary: {{.*}}_land_l{{[0-9]+}}: 2 launches: 2 spread over devices [[DEVS]]{{$}}
// INFO-DAG: summary: {{.*}}_lor_l{{[0-9]+}}: 2 launches: 2 spread over devices [[DEVS]]{{$}}
// INFO-DAG: summary: {{.*}}_dsum_l{{[0-9]+}}: 2 launches: 2 spread over devices [[DEVS]]{{$}}
