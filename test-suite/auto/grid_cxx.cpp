// A grid kernel in C++ (issue 44 item 2): clang calls the team and thread queries with `invoke`
// and ends their landing pads in std::terminate; the pass turns the invokes it rewrites into calls
// and lets the terminate path be. HeCBench's CUDA ports (reaction, atomicPerf, zmddft, ...) are
// C++. The result is the serial loop's with the league spread over 1, 3 and 4 host devices
// (SPREAD_TEAMS=exact) and on one device.
//
// REQUIRES: spread
// RUN: %clangxx-offload -O2 -fpass-plugin=%spread-pass -Rpass=spread-auto -Rpass-missed=spread-auto %s -o %t 2>%t.remarks
// RUN: FileCheck --check-prefix=REMARK %s < %t.remarks
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_TEAMS=exact SPREAD_INFO=auto %libpath-run %t 999 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_TEAMS=exact SPREAD_HOST_DEVICES=3 %preload-run %t 257 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_TEAMS=exact %libpath-run %t 999 | FileCheck %s --implicit-check-not=FAIL
//
// CHECK: scale: ok
// REMARK: kernel {{.*}}scale{{.*}} can be spread over devices by its teams (a grid kernel)
// INFO: kernel {{.*}}scale{{.*}} spread over devices [0, 1, 2, 3]: {{[0-9]+}} teams

#include <cstdio>
#include <cstdlib>
#include <omp.h>
#include <vector>

template <int BS> void scale(int n, const float *x, float *y, float a) {
  int nb = (n + BS - 1) / BS;
#pragma omp target teams num_teams(nb) thread_limit(BS) map(to : x[0:n]) map(tofrom : y[0:n])
  {
    float tile[BS];
#pragma omp parallel num_threads(BS)
    {
      int b = omp_get_team_num();
      for (int t = omp_get_thread_num(); t < BS; t += omp_get_num_threads())
        tile[t] = b * BS + t < n ? x[b * BS + t] : 0.0f;
#pragma omp barrier
      for (int t = omp_get_thread_num(); t < BS; t += omp_get_num_threads())
        if (b * BS + t < n)
          y[b * BS + t] += a * tile[BS - 1 - t];
    }
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? std::atoi(argv[1]) : 999;
  constexpr int BS = 32;
  std::vector<float> x(n), y(n), want(n);
  for (int i = 0; i < n; i++) {
    x[i] = float(i % 17);
    y[i] = want[i] = float(i % 5);
  }
  scale<BS>(n, x.data(), y.data(), 2.0f);
  for (int i = 0; i < n; i++) {
    int b = i / BS, t = i % BS, j = b * BS + BS - 1 - t;
    want[i] += 2.0f * (j < n ? x[j] : 0.0f);
  }
  for (int i = 0; i < n; i++)
    if (y[i] != want[i]) {
      std::printf("FAIL: scale: element %d is %g, expected %g\n", i, y[i], want[i]);
      return 1;
    }
  std::printf("scale: ok\n");
  return 0;
}
