// Launch geometry on fake GPUs: the CUDA backend applies LLVM 19's grid rules (grid.rs) with
// the kernel environments it reads from the cubin and the kernel's maxntid, and passes the
// launch environment (dyn_ptr, with a zeroed team reduction buffer where the kernel has one).
// The fake driver logs each launch's blocks and threads and rejects a wrong dyn_ptr.
//
// REQUIRES: spread, nvptx-toolchain, fakecuda
// RUN: %spread-cc -O1 --offload-arch=sm_90 %s -o %t
// RUN: %extract-x86 %t --image=file=%t.so,triple=x86_64-unknown-linux-gnu
// RUN: rm -f %t.log
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_LOG=%t.log SPREAD_DEVICES=cuda:1 %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=fakecuda:
// RUN: FileCheck --check-prefix=LOG %s < %t.log
// With OMP_NUM_TEAMS / OMP_TEAMS_THREAD_LIMIT the defaults change.
// RUN: rm -f %t.env.log
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_LOG=%t.env.log SPREAD_DEVICES=cuda:1 OMP_NUM_TEAMS=5 OMP_TEAMS_THREAD_LIMIT=32 %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=fakecuda:
// RUN: FileCheck --check-prefix=ENV %s < %t.env.log
// LIBOMPTARGET_INFO's launch line reports the grid the backend launches (same as the log's).
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so SPREAD_DEVICES=cuda:1 LIBOMPTARGET_INFO=0x10 %t 2>&1 | FileCheck --check-prefix=INFO %s

#include <omp.h>
#include <stdio.h>

#define BIG (1 << 20)
static int a[BIG];

int main(void) {
  int fails = 0;
  // Plain target: one team. LOG: launch {{.*}}main_l[[#]] dev 0 blocks 1 threads
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 41 + 1;
  fails += x != 42;
  // SPMD, long loop: one thread per iteration, at most 3200 blocks of 128.
#pragma omp target teams distribute parallel for map(from : a)
  for (int i = 0; i < BIG; i++)
    a[i] = i;
  for (int i = 0; i < BIG; i++)
    fails += a[i] != i;
  // SPMD, short loop (1000): fewer threads, more blocks (32 x 32).
#pragma omp target teams distribute parallel for map(tofrom : a[0 : 1000])
  for (int i = 0; i < 1000; i++)
    a[i] += 1;
  for (int i = 0; i < 1000; i++)
    fails += a[i] != i + 1;
  // Clauses: num_teams(7) thread_limit(64).
#pragma omp target teams distribute parallel for num_teams(7) thread_limit(64) map(tofrom : a[0 : 1000])
  for (int i = 0; i < 1000; i++)
    a[i] -= 1;
  for (int i = 0; i < 1000; i++)
    fails += a[i] != i;
  // A generic region (turned generic-SPMD by the compiler, MaxThreads 64 in its environment).
  int teams = 0;
#pragma omp target teams num_teams(3) thread_limit(64) map(tofrom : teams)
  {
    if (omp_get_team_num() == 0)
      teams = omp_get_num_teams();
  }
  fails += teams < 1;
  // A cross-team reduction: the kernel environment asks for a reduction buffer.
  long sum = 0, ref = 0;
  for (int i = 0; i < BIG; i++)
    ref += a[i];
#pragma omp target teams distribute parallel for reduction(+ : sum) map(to : a)
  for (int i = 0; i < BIG; i++)
    sum += a[i];
  fails += sum != ref;
  printf("%s: grid (%ld)\n", fails ? "FAIL" : "PASS", sum);
  return fails != 0;
}
// CHECK: PASS: grid (549755289600)
// LOG: devenv dev 0 num_devices 1 device_num 0
// INFO: "PluginInterface" device 0 info: Launching kernel {{.*}}main_l[[#]] with 3200 blocks and 128 threads in {{SPMD|Generic-SPMD|Generic}} mode
// INFO: "PluginInterface" device 0 info: Launching kernel {{.*}}main_l[[#]] with 32 blocks and 32 threads in SPMD mode
// LOG: launch {{.*}}main_l[[#]] dev 0 blocks 3200 threads 128
// LOG: launch {{.*}}main_l[[#]] dev 0 blocks 32 threads 32
// LOG: launch {{.*}}main_l[[#]] dev 0 blocks 7 threads 64
// LOG: launch {{.*}}main_l[[#]] dev 0 blocks 3 threads 64
// LOG: launch {{.*}}main_l[[#]] dev 0 blocks 3200 threads 128
// ENV: launch {{.*}}main_l[[#]] dev 0 blocks 1 threads
// ENV: launch {{.*}}main_l[[#]] dev 0 blocks 5 threads 32
// ENV: launch {{.*}}main_l[[#]] dev 0 blocks 5 threads 32
// ENV: launch {{.*}}main_l[[#]] dev 0 blocks 5 threads 32
// ENV: launch {{.*}}main_l[[#]] dev 0 blocks 3 threads 32
// ENV: launch {{.*}}main_l[[#]] dev 0 blocks 5 threads 32
