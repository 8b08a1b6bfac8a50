// reduction(op: s) on target spread, end to end: + - * max min on int and double, with and
// without nowait, over 1, 2 and 4 devices, the host (omp_get_initial_device()) among them; every
// result equals a serial reference (each case prints it and the program exits nonzero on a
// mismatch). Also without the pass (one chunk on the first device).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_INFO=chunks %t 2>&1 | FileCheck %s --check-prefix=CHUNKS
// RUN: %spread-cc -O1 --spread-no-pass %s -o %t.nopass
// RUN: %t.nopass | FileCheck %s --implicit-check-not=FAIL
// CHECK: all 60 reductions ok
// CHECK-NOT: FAIL
// CHUNKS: chunk [{{[0-9]+}},{{[0-9]+}}) -> device {{[0-9]+}}

#include <omp.h>
#include <stdio.h>

#define N 1000
#define STR(x) #x
#define PRAGMA(x) _Pragma(STR(x))

static int iv[N], im[N];
static double dv[N], dm[N];
static int failures;

// One reduction: a function NAME that reduces V[0..N) with OP into s (initial value INIT) on the
// devices DEVS, NOWAIT or not. UPDATE is the body (it uses s and i).
#define CASE(NAME, T, OP, INIT, V, UPDATE, DEVS, NOWAIT)                                        \
  static T NAME(void) {                                                                        \
    T s = INIT;                                                                                \
    PRAGMA(omp target spread teams distribute parallel for devices DEVS                       \
           spread_schedule(static, 37) reduction(OP: s) map(to: V[omp_spread_start:omp_spread_size]) NOWAIT) \
    for (int i = 0; i < N; i++)                                                                \
      UPDATE;                                                                                  \
    PRAGMA(omp taskwait)                                                                       \
    return s;                                                                                  \
  }

#define HOST omp_get_initial_device()
#define D1 (HOST)
#define D2 (0, HOST)
#define D4 (2, HOST, 0, 1)

// every operator and type on every device list, with and without nowait
#define OPS(SUFFIX, DEVS, NOWAIT)                                                              \
  CASE(iadd##SUFFIX, int, +, 5, iv, s += iv[i], DEVS, NOWAIT)                                  \
  CASE(isub##SUFFIX, int, -, 5, iv, s -= iv[i], DEVS, NOWAIT)                                  \
  CASE(imul##SUFFIX, int, *, 3, im, s *= im[i], DEVS, NOWAIT)                                  \
  CASE(imax##SUFFIX, int, max, -1000, iv, s = iv[i] > s ? iv[i] : s, DEVS, NOWAIT)             \
  CASE(imin##SUFFIX, int, min, 1000, iv, s = iv[i] < s ? iv[i] : s, DEVS, NOWAIT)              \
  CASE(dadd##SUFFIX, double, +, 0.5, dv, s += dv[i], DEVS, NOWAIT)                             \
  CASE(dsub##SUFFIX, double, -, 0.5, dv, s -= dv[i], DEVS, NOWAIT)                             \
  CASE(dmul##SUFFIX, double, *, 1.5, dm, s *= dm[i], DEVS, NOWAIT)                             \
  CASE(dmax##SUFFIX, double, max, -1e9, dv, s = dv[i] > s ? dv[i] : s, DEVS, NOWAIT)           \
  CASE(dmin##SUFFIX, double, min, 1e9, dv, s = dv[i] < s ? dv[i] : s, DEVS, NOWAIT)

OPS(_1, D1, )
OPS(_2, D2, )
OPS(_4, D4, )
OPS(_1nw, D1, nowait)
OPS(_2nw, D2, nowait)
OPS(_4nw, D4, nowait)

static void check_i(const char *what, int got, int want) {
  if (got != want) {
    printf("FAIL %s: %d, serial %d\n", what, got, want);
    failures++;
  }
}
static void check_d(const char *what, double got, double want) {
  // the values are small integers and powers of two: every order of combination is exact
  if (got != want) {
    printf("FAIL %s: %.17g, serial %.17g\n", what, got, want);
    failures++;
  }
}

#define RUN(SUFFIX)                                                                            \
  check_i("iadd" #SUFFIX, iadd##SUFFIX(), ref_iadd);                                           \
  check_i("isub" #SUFFIX, isub##SUFFIX(), ref_isub);                                           \
  check_i("imul" #SUFFIX, imul##SUFFIX(), ref_imul);                                           \
  check_i("imax" #SUFFIX, imax##SUFFIX(), ref_imax);                                           \
  check_i("imin" #SUFFIX, imin##SUFFIX(), ref_imin);                                           \
  check_d("dadd" #SUFFIX, dadd##SUFFIX(), ref_dadd);                                           \
  check_d("dsub" #SUFFIX, dsub##SUFFIX(), ref_dsub);                                           \
  check_d("dmul" #SUFFIX, dmul##SUFFIX(), ref_dmul);                                           \
  check_d("dmax" #SUFFIX, dmax##SUFFIX(), ref_dmax);                                           \
  check_d("dmin" #SUFFIX, dmin##SUFFIX(), ref_dmin);

int main(void) {
  for (int i = 0; i < N; i++) {
    iv[i] = (i * 37) % 101 - 50;
    dv[i] = iv[i] * 0.25;
    // products stay exact: a few 2s and -1s among 1s
    im[i] = i % 97 == 0 ? 2 : (i % 89 == 0 ? -1 : 1);
    dm[i] = i % 97 == 0 ? 0.5 : (i % 89 == 0 ? -2.0 : 1.0);
  }
  int ref_iadd = 5, ref_isub = 5, ref_imul = 3, ref_imax = -1000, ref_imin = 1000;
  double ref_dadd = 0.5, ref_dsub = 0.5, ref_dmul = 1.5, ref_dmax = -1e9, ref_dmin = 1e9;
  for (int i = 0; i < N; i++) {
    ref_iadd += iv[i];
    ref_isub -= iv[i];
    ref_imul *= im[i];
    ref_imax = iv[i] > ref_imax ? iv[i] : ref_imax;
    ref_imin = iv[i] < ref_imin ? iv[i] : ref_imin;
    ref_dadd += dv[i];
    ref_dsub -= dv[i];
    ref_dmul *= dm[i];
    ref_dmax = dv[i] > ref_dmax ? dv[i] : ref_dmax;
    ref_dmin = dv[i] < ref_dmin ? dv[i] : ref_dmin;
  }
  RUN(_1)
  RUN(_2)
  RUN(_4)
  RUN(_1nw)
  RUN(_2nw)
  RUN(_4nw)
  if (failures == 0)
    printf("all 60 reductions ok\n");
  return failures != 0;
}
