// User-defined mappers (`declare mapper`): the default mapper of a type is used
// for a plain map of that type, also for each element of an array of it; a
// named mapper maps only what it names.
//
// RUN: %clangxx-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdint.h>
#include <stdio.h>

#define N 40

struct Vec {
  int len;
  double *data;
  double scale;
};

#pragma omp declare mapper(Vec v) map(v, v.data[0 : v.len])

struct Buf {
  int len;
  double *data;
};

#pragma omp declare mapper(half : Buf b) map(b, b.data[0 : b.len / 2])

static int check(const Vec &v, const double *ref, const char *what) {
  int bad = v.len != N;
  double sum = 0;
  for (int i = 0; i < N; i++) {
    bad += v.data[i] != ref[i];
    sum += v.data[i];
  }
  printf("%s %s: mismatches=%d sum=%.1f len=%d\n", bad ? "FAIL" : "PASS", what, bad, sum,
         v.len);
  return bad;
}

int main() {
  double buf[3][N], ref[3][N];
  Vec v[3];
  for (int k = 0; k < 3; k++) {
    v[k].len = N;
    v[k].data = buf[k];
    v[k].scale = k + 2;
    for (int i = 0; i < N; i++)
      buf[k][i] = i + 0.5;
  }

  // Default mapper on a single object.
  for (int i = 0; i < N; i++)
    ref[0][i] = buf[0][i] * 2 + i;
  // The kernel also reports whether it saw the data at a device address of its
  // own, i.e. whether the mapper's v.data[0:v.len] was mapped and attached.
  int relocated = -1;
  uintptr_t host_addr = (uintptr_t)buf[0];
#pragma omp target map(tofrom : v[0]) map(from : relocated) device(1)
  {
    relocated = (uintptr_t)v[0].data != host_addr;
    for (int i = 0; i < v[0].len; i++)
      v[0].data[i] = v[0].data[i] * v[0].scale + i;
  }
  printf("%s default mapper relocated=%d\n", relocated == 1 ? "PASS" : "FAIL", relocated);
  // CHECK: PASS default mapper relocated=1
  check(v[0], ref[0], "default mapper");
  // CHECK: PASS default mapper: mismatches=0 sum=2380.0 len=40

  // The default mapper with enter/exit data: the data really lives on the
  // device until the exit copies it back.  (The kernel uses present/alloc:
  // clang 19 + stock libomptarget copy a present struct host-to-device again
  // for map(tofrom) through a mapper, which overwrites the attached pointer.)
  double ebuf[N];
  for (int i = 0; i < N; i++)
    ebuf[i] = i + 0.5;
  Vec e = {N, ebuf, 4.0};
#pragma omp target enter data map(to : e) device(1)
  int whole = omp_target_is_present(&ebuf[0], 1) && omp_target_is_present(&ebuf[N - 1], 1);
#pragma omp target device(1) map(present, alloc : e)
  for (int i = 0; i < e.len; i++)
    e.data[i] *= e.scale;
  printf("%s default mapper enter data: data_present=%d host_data[1]=%.1f\n",
         whole && ebuf[1] == 1.5 ? "PASS" : "FAIL", whole, ebuf[1]);
  // CHECK: PASS default mapper enter data: data_present=1 host_data[1]=1.5
#pragma omp target exit data map(from : e) device(1)
  double eref[N];
  for (int i = 0; i < N; i++)
    eref[i] = (i + 0.5) * 4;
  check(e, eref, "default mapper exit data");
  // CHECK: PASS default mapper exit data: mismatches=0 sum=3200.0 len=40

  // Default mapper applied to every element of an array section.
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < N; i++)
      ref[k][i] = buf[k][i] + k * 10;
  uintptr_t ha[3] = {(uintptr_t)buf[0], (uintptr_t)buf[1], (uintptr_t)buf[2]};
  int rel[3] = {-1, -1, -1};
#pragma omp target map(tofrom : v[0:3]) map(to : ha) map(from : rel) device(2)
  for (int k = 0; k < 3; k++) {
    rel[k] = (uintptr_t)v[k].data != ha[k];
    for (int i = 0; i < v[k].len; i++)
      v[k].data[i] += k * 10;
  }
  printf("%s array elements relocated=%d%d%d\n",
         rel[0] == 1 && rel[1] == 1 && rel[2] == 1 ? "PASS" : "FAIL", rel[0], rel[1],
         rel[2]);
  // CHECK: PASS array elements relocated=111
  check(v[0], ref[0], "array element 0");
  check(v[1], ref[1], "array element 1");
  check(v[2], ref[2], "array element 2");
  // CHECK: PASS array element 0: mismatches=0 sum=2380.0 len=40
  // CHECK: PASS array element 1: mismatches=0 sum=1200.0 len=40
  // CHECK: PASS array element 2: mismatches=0 sum=1600.0 len=40

  // Named mapper: only the first half of the data goes to the device.
  Buf h = {v[1].len, v[1].data};
#pragma omp target enter data map(mapper(half), to : h) device(3)
  int first = omp_target_is_present(&h.data[0], 3);
  int last_in = omp_target_is_present(&h.data[N / 2 - 1], 3);
  int second = omp_target_is_present(&h.data[N / 2], 3);
  printf("%s named mapper presence: first=%d last_in=%d second=%d\n",
         first == 1 && last_in == 1 && second == 0 ? "PASS" : "FAIL", first, last_in,
         second);
  // CHECK: PASS named mapper presence: first=1 last_in=1 second=0
  for (int i = 0; i < N; i++)
    ref[1][i] = i < N / 2 ? -buf[1][i] : buf[1][i];
#pragma omp target device(3) map(present, alloc : h)
  for (int i = 0; i < h.len / 2; i++)
    h.data[i] = -h.data[i];
#pragma omp target exit data map(mapper(half), from : h) device(3)
  check(v[1], ref[1], "named mapper");
  // CHECK: PASS named mapper: mismatches=0 sum=400.0 len=40
  return 0;
}
