// device(any) token limits, counted at run time: each instance adds its cost to a counter for
// its kind while it runs (the host's own counter and, with one host device, the device's), and
// the most ever in use must stay within the pool of 100; SPREAD_TOKEN_POOL=global bounds the sum
// over all kinds. Results against a serial run.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=8 SPREAD_HOST_DEVICES=1 %t | FileCheck %s --check-prefixes=CHECK,SERVER --implicit-check-not=FAIL
// RUN: env OMP_NUM_THREADS=8 SPREAD_HOST_DEVICES=1 SPREAD_TOKEN_POOL=global %t | FileCheck %s --check-prefixes=CHECK,GLOBAL --implicit-check-not=FAIL
// CHECK: results ok
// SERVER: host max 80 <= 100
// SERVER: device max {{(30|60|90)}} <= 100
// GLOBAL: all max {{[0-9]+}} within one pool

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <unistd.h>

#define N 4096
#define BS 128
static double a[N], b[N];
static int live[3], most[3];

static void count(int *l, int *m, int cost, int *all_l, int *all_m) {
  int now = __atomic_add_fetch(l, cost, __ATOMIC_SEQ_CST);
  int prev = __atomic_load_n(m, __ATOMIC_SEQ_CST);
  while (now > prev && !__atomic_compare_exchange_n(m, &prev, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
  now = __atomic_add_fetch(all_l, cost, __ATOMIC_SEQ_CST);
  prev = __atomic_load_n(all_m, __ATOMIC_SEQ_CST);
  while (now > prev && !__atomic_compare_exchange_n(all_m, &prev, now, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
  }
}

int main(void) {
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.5;
    b[i] = 1;
  }
  // Host devices share the process's memory, so the device version can count through a host
  // pointer (is_device_ptr); this would not hold on a GPU.
  int *lv = live, *mo = most;
  // Instances share the host and the devices when a team's threads run them.
#pragma omp parallel
#pragma omp single
  for (int k = 0; k < N; k += BS) {
#pragma omp target device(any) map(to: a[k:BS]) map(tofrom: b[k:BS]) is_device_ptr(lv, mo) nowait
#pragma omp if_device(cpu) resources(30)
#pragma omp if_device(host) resources(40)
    {
      int host = omp_is_initial_device();
      count(&lv[host], &mo[host], host ? 40 : 30, &lv[2], &mo[2]);
      usleep(2000);
      for (int i = k; i < k + BS; i++)
        b[i] += 2 * a[i];
      __atomic_sub_fetch(&lv[host], host ? 40 : 30, __ATOMIC_SEQ_CST);
      __atomic_sub_fetch(&lv[2], host ? 40 : 30, __ATOMIC_SEQ_CST);
    }
  }
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += b[i] != 1 + 2 * (i * 0.5);
  printf("results %s\n", bad ? "FAIL" : "ok");
  printf("host max %d %s 100\n", most[1], most[1] <= 100 ? "<=" : "FAIL >");
  printf("device max %d %s 100\n", most[0], most[0] <= 100 ? "<=" : "FAIL >");
  printf("all max %d%s\n", most[2], most[2] <= 100 ? " within one pool" : "");
  spread_any_stats_t st[4];
  int n = spread_any_stats(st, 4);
  for (int i = 0; i < n; i++)
    if (st[i].spread_max_tokens > 100)
      printf("FAIL: runtime counted %d tokens on server %d\n", st[i].spread_max_tokens, i);
  return bad != 0;
}
