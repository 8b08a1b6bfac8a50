// SPREAD_AUTO spreads loops whose atomic updates are reductions: into one scalar variable
// (`#pragma omp atomic` s += x[i], a conditional count, `atomic compare` max and unsigned min)
// each block updates a copy of its own that starts from the operator's identity, and the
// runtime combines the copies into the variable, as for a reduction clause; into elements of
// an array (a histogram that starts non-zero) each block updates a whole copy of the array,
// combined element by element. It leaves alone, with the reason, an atomic capture (a ticket
// counter: the values handed out would repeat). Inside a `target data` that keeps the data on
// the devices, a histogram and a reduction clause stay on one device, with the reason: their
// partial results would be combined on the host while the array lives on the devices (found
// by the HeCBench corpus: scatterAdd, mr, randomAccess gave wrong results before). Every
// result equals the serial loop's, at -O2 and -O0, on both load paths and with 8 devices; on
// stock too.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass -Rpass=spread-auto -Rpass-missed=spread-auto %s -o %t 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 2>%t.info | FileCheck %s
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 %preload-run %t | FileCheck %s
// RUN: %clang-offload -O0 -fpass-plugin=%spread-pass %s -o %t.O0
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 %libpath-run %t.O0 | FileCheck %s
// RUN: %stock-run %t | FileCheck %s
//
// REMARK-DAG: can be spread over devices: {{.*}}reduce(+, double)
// REMARK-DAG: can be spread over devices: {{.*}}reduce(+, i64)
// REMARK-DAG: can be spread over devices: {{.*}}reduce(max, i32) {{.*}}reduce(min, u32)
// REMARK-DAG: can be spread over devices: arg{{[0-9]}}:reduce-elements(+, i32)
// REMARK-DAG: runs on one device: an atomic capture (the value before the update is used)
// INFO-COUNT-4: spread over devices [0, 1, 2, 3]: 100000 iterations
// INFO-DAG: runs on device {{[0-9]+}}: map entry {{[0-9]+}}{{.*}} is reduced (a reduction clause or atomic updates) but lives on the devices
// CHECK: results: 0 wrong

#include <stdio.h>

#define N 100000

int main(void) {
  static double x[N];
  static int xi[N];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 13) * 0.5; // exact in double whatever the order of the additions
    xi[i] = (i * 7919) % 1000;
  }
  double s = 1.0;
  long cnt = 5;
  int mx = -1;
  unsigned mn = 4000000000u;
  int hist[8] = {3, 1, 4, 1, 5, 9, 2, 6};
#pragma omp target teams distribute parallel for map(to : x[0 : N]) map(tofrom : s)
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    s += x[i];
  }
#pragma omp target teams distribute parallel for map(to : xi[0 : N]) map(tofrom : cnt)
  for (int i = 0; i < N; i++) {
    if (xi[i] > 500) {
#pragma omp atomic
      cnt -= 2;
    }
  }
#pragma omp target teams distribute parallel for map(to : xi[0 : N]) map(tofrom : mx, mn)
  for (int i = 0; i < N; i++) {
#pragma omp atomic compare
    if (xi[i] > mx)
      mx = xi[i];
#pragma omp atomic compare
    if ((unsigned)xi[i] + 7u < mn)
      mn = (unsigned)xi[i] + 7u;
  }
#pragma omp target teams distribute parallel for map(to : xi[0 : N]) map(tofrom : hist[0 : 8])
  for (int i = 0; i < N; i++) {
#pragma omp atomic
    hist[xi[i] & 7] += 1;
  }
  // The same histogram and a sum, on data an enclosing target data keeps on the devices.
  const int start[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  int rhist[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  long rsum = 7;
#pragma omp target data map(tofrom : rhist[0 : 8], rsum) map(to : xi[0 : N])
  {
    for (int rep = 0; rep < 2; rep++) {
#pragma omp target teams distribute parallel for
      for (int i = 0; i < N; i++) {
#pragma omp atomic
        rhist[xi[i] & 7] += 1;
      }
#pragma omp target teams distribute parallel for reduction(+ : rsum)
      for (int i = 0; i < N; i++)
        rsum += xi[i];
    }
  }
  int ticket = 0, slots[64] = {0};
#pragma omp target teams distribute parallel for map(tofrom : ticket, slots[0 : 64])
  for (int i = 0; i < 64; i++) {
    int t;
#pragma omp atomic capture
    t = ticket++;
    slots[t] = 1;
  }
  double ws = 1.0;
  long wc = 5;
  int wmx = -1, wh[8] = {3, 1, 4, 1, 5, 9, 2, 6};
  unsigned wmn = 4000000000u;
  for (int i = 0; i < N; i++) {
    ws += x[i];
    if (xi[i] > 500)
      wc -= 2;
    if (xi[i] > wmx)
      wmx = xi[i];
    if ((unsigned)xi[i] + 7u < wmn)
      wmn = (unsigned)xi[i] + 7u;
    wh[xi[i] & 7]++;
  }
  int wrong = (s != ws) + (cnt != wc) + (mx != wmx) + (mn != wmn) + (ticket != 64);
  long wrsum = 7;
  for (int rep = 0; rep < 2; rep++)
    for (int i = 0; i < N; i++)
      wrsum += xi[i];
  for (int k = 0; k < 8; k++)
    wrong += hist[k] != wh[k] || rhist[k] != 2 * wh[k] - start[k]; // twice the counts
  wrong += rsum != wrsum;
  for (int k = 0; k < 64; k++)
    wrong += slots[k] != 1;
  printf("s=%g/%g cnt=%ld/%ld max=%d/%d min=%u/%u\n", s, ws, cnt, wc, mx, wmx, mn, wmn);
  printf("results: %d wrong\n", wrong);
  return wrong != 0;
}
