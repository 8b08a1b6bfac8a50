// device(any) runs each instance where a version exists, and the version of that kind: every
// arm writes its own mark, and the marks must agree with the kind of server the runtime says it
// used. cpu-only and host-only constructs never use the other kind; an nvidia-only construct on a
// machine without GPUs runs on the host (a warning, once) unless host devices serve as nvidia
// (SPREAD_KIND_ALIAS); if(false) runs the host version; a construct without nowait (with and
// without depend) is waited for; the single-set form runs everywhere.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_HOST_DEVICES=2 %t 2> %t.err | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_KIND_ALIAS=nvidia:1 %t 2> %t.alias.err | FileCheck %s --check-prefixes=CHECK,ALIAS --implicit-check-not=FAIL
// RUN: not grep -q "no device has a version" %t.alias.err
// RUN: %spread-cc -O1 --spread-no-pass %s -o %t.nopass
// RUN: env SPREAD_HOST_DEVICES=2 %t.nopass 2>/dev/null | FileCheck %s --implicit-check-not=FAIL
// CHECK: cpu-only: ok, devices 16 host 0
// CHECK: host-only: ok, devices 0 host 16
// CHECK: nvidia-only: ok
// ALIAS-SAME: on device 1 16
// CHECK: if(false): ok, devices 0 host 0
// CHECK: no nowait: ok
// CHECK: single set: ok
// CHECK: all ok
// WARN: warning: device(any) at {{.*}}versions.c:{{[0-9]+}}:{{[0-9]+}}: no device has a version of it
// WARN-NOT: no device has a version

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <string.h>

#define N 2048
#define BS 128
#define T (N / BS)
static double a[N], b[N];
static int mark[T];
enum { HOST = 1, CPU = 2, NV = 3 };

static int fails;

static void reset(void) {
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
  }
  memset(mark, 0, sizeof mark);
  spread_any_stats_reset();
}

static int check_b(void) {
  for (int i = 0; i < N; i++)
    if (b[i] != 3 * a[i])
      return 0;
  return 1;
}

// Instances per kind as the runtime counted them, and the marks as the arms wrote them.
static void report(const char *what, int want_dev_kind) {
  spread_any_stats_t st[8];
  int n = spread_any_stats(st, 8);
  long dev = 0, host = 0, dev1 = 0;
  for (int i = 0; i < n; i++) {
    if (st[i].spread_kind == __SPREAD_ANY_HOST)
      host += st[i].spread_instances;
    else
      dev += st[i].spread_instances;
    if (st[i].spread_device == 1)
      dev1 += st[i].spread_instances;
  }
  int marks[4] = {0};
  for (int t = 0; t < T; t++)
    marks[mark[t] & 3]++;
  int ok = check_b() && marks[0] == 0;
  if (want_dev_kind == HOST)
    ok &= marks[HOST] == T && host == T && dev == 0;
  else if (want_dev_kind == CPU)
    ok &= marks[CPU] == T && dev == T && host == 0;
  else // no GPU: device 1 when it serves as nvidia, else the host's fallback (not counted)
    ok &= marks[NV] == dev1 && marks[NV] + marks[HOST] == T && host == 0;
  if (want_dev_kind == NV)
    printf("%s: %s, on device 1 %ld\n", what, ok ? "ok" : "FAIL", dev1);
  else
    printf("%s: %s, devices %ld host %ld\n", what, ok ? "ok" : "FAIL", dev, host);
  fails += !ok;
}

int main(void) {
  int *mk = mark;
  reset();
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) map(to: a[k:BS]) map(tofrom: b[k:BS]) is_device_ptr(mk) nowait
#pragma omp if_device(cpu) teams distribute parallel for
    for (int i = k; i < k + BS; i++) {
      b[i] = 3 * a[i];
      if (i == k)
        mk[k / BS] = CPU;
    }
  }
#pragma omp taskwait
  report("cpu-only", CPU);

  reset();
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) map(to: a[k:BS]) map(tofrom: b[k:BS]) is_device_ptr(mk) nowait
#pragma omp if_device(host) parallel for
    for (int i = k; i < k + BS; i++) {
      b[i] = 3 * a[i];
      if (i == k)
        mk[k / BS] = HOST;
    }
  }
#pragma omp taskwait
  report("host-only", HOST);

  reset();
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) map(to: a[k:BS]) map(tofrom: b[k:BS]) is_device_ptr(mk) nowait
#pragma omp if_device(NVIDIA, sm_70) teams distribute parallel for
    for (int i = k; i < k + BS; i++) {
      b[i] = 3 * a[i];
      if (i == k)
        mk[k / BS] = omp_is_initial_device() ? HOST : NV;
    }
  }
#pragma omp taskwait
  report("nvidia-only", NV);

  // if(false): the host version, outside the token accounting.
  reset();
  int never = 0;
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) map(to: a[k:BS]) map(tofrom: b[k:BS]) is_device_ptr(mk) if(target: never) nowait
#pragma omp if_device(cpu) teams distribute parallel for
#pragma omp if_device(host) parallel for
    for (int i = k; i < k + BS; i++) {
      b[i] = 3 * a[i];
      if (i == k)
        mk[k / BS] = omp_is_initial_device() ? HOST : CPU;
    }
  }
#pragma omp taskwait
  {
    int ok = check_b();
    for (int t = 0; t < T; t++)
      ok &= mark[t] == HOST;
    spread_any_stats_t st[8];
    int n = spread_any_stats(st, 8);
    long dev = 0, host = 0;
    for (int i = 0; i < n; i++)
      *(st[i].spread_kind == __SPREAD_ANY_HOST ? &host : &dev) += st[i].spread_instances;
    printf("if(false): %s, devices %ld host %ld\n", ok ? "ok" : "FAIL", dev, host);
    fails += !ok;
  }

  // Without nowait: the results are there when the construct ends, with or without depend.
  reset();
  {
    int ok = 1;
    for (int k = 0; k < N; k += BS) {
      if (k % (2 * BS) == 0) {
#pragma omp target device(any) map(to: a[k:BS]) map(tofrom: b[k:BS])
#pragma omp if_device(cpu) teams distribute parallel for
#pragma omp if_device(host) parallel for
        for (int i = k; i < k + BS; i++)
          b[i] = 3 * a[i];
      } else {
#pragma omp target device(any) map(to: a[k:BS]) map(tofrom: b[k:BS]) depend(inout: b[k])
#pragma omp if_device(cpu) teams distribute parallel for
#pragma omp if_device(host) parallel for
        for (int i = k; i < k + BS; i++)
          b[i] = 3 * a[i];
      }
      ok &= b[k + BS - 1] == 3 * a[k + BS - 1];
    }
    ok &= check_b();
    printf("no nowait: %s\n", ok ? "ok" : "FAIL");
    fails += !ok;
  }

  // One directive set for every kind (the host gets its reduction: parallel for).
  reset();
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) teams distribute parallel for map(to: a[k:BS]) map(tofrom: b[k:BS]) nowait
    for (int i = k; i < k + BS; i++)
      b[i] = 3 * a[i];
  }
#pragma omp taskwait
  printf("single set: %s\n", check_b() ? "ok" : "FAIL");
  fails += !check_b();
  printf("%s\n", fails ? "FAIL" : "all ok");
  return fails != 0;
}
