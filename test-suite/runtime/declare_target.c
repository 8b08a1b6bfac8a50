// `declare target` globals: every device has its own instance, initialised
// from the static initialiser and moved with `target update to/from`; a
// `declare target link` global is only on a device while it is mapped.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>

#define N 64

#pragma omp declare target
int g[N];
int init[4] = {3, 1, 4, 1};
#pragma omp end declare target

long lk[N];
#pragma omp declare target link(lk)

static int gmis(int base, int mul) {
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += g[i] != base + mul * i;
  return bad;
}

static void report(const char *what, int bad) {
  printf("%s %s: mismatches=%d g[0]=%d g[%d]=%d\n", bad ? "FAIL" : "PASS", what, bad,
         g[0], N - 1, g[N - 1]);
}

int main(void) {
  // The device instance starts from the static initialiser.
  int seen[4] = {0, 0, 0, 0};
  init[0] = 30; // host only
#pragma omp target map(from : seen) device(1)
  for (int i = 0; i < 4; i++)
    seen[i] = init[i];
  printf("%s initialiser on device: %d %d %d %d\n",
         seen[0] == 3 && seen[1] == 1 && seen[2] == 4 && seen[3] == 1 ? "PASS" : "FAIL",
         seen[0], seen[1], seen[2], seen[3]);
  // CHECK: PASS initialiser on device: 3 1 4 1

  for (int i = 0; i < N; i++)
    g[i] = i;
  for (int d = 0; d < 2; d++) {
#pragma omp target update to(g) device(d)
#pragma omp target device(d) firstprivate(d)
    for (int i = 0; i < N; i++)
      g[i] += (d + 1) * 100;
  }
  report("host unchanged", gmis(0, 1));
  // CHECK: PASS host unchanged: mismatches=0 g[0]=0 g[63]=63
#pragma omp target update from(g) device(0)
  report("update from device 0", gmis(100, 1));
  // CHECK: PASS update from device 0: mismatches=0 g[0]=100 g[63]=163
#pragma omp target update from(g) device(1)
  report("update from device 1", gmis(200, 1));
  // CHECK: PASS update from device 1: mismatches=0 g[0]=200 g[63]=263

  // A section of the global.
  for (int i = 0; i < N; i++)
    g[i] = 5 * i;
#pragma omp target update to(g[8:8]) device(1)
#pragma omp target update from(g[0:N]) device(1)
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += g[i] != (i >= 8 && i < 16 ? 5 * i : 200 + i);
  printf("%s section update: mismatches=%d g[7]=%d g[8]=%d g[15]=%d g[16]=%d\n",
         bad ? "FAIL" : "PASS", bad, g[7], g[8], g[15], g[16]);
  // CHECK: PASS section update: mismatches=0 g[7]=207 g[8]=40 g[15]=75 g[16]=216

  // declare target link: mapped explicitly on a construct ...
  for (int i = 0; i < N; i++)
    lk[i] = i;
#pragma omp target map(tofrom : lk) device(2)
  for (int i = 0; i < N; i++)
    lk[i] *= 3;
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += lk[i] != 3 * i;
  printf("%s link map tofrom: mismatches=%d lk[1]=%ld lk[63]=%ld\n",
         bad ? "FAIL" : "PASS", bad, lk[1], lk[N - 1]);
  // CHECK: PASS link map tofrom: mismatches=0 lk[1]=3 lk[63]=189

  // ... and with enter data, so a kernel without a map clause finds it.
#pragma omp target enter data map(to : lk) device(3)
#pragma omp target device(3)
  for (int i = 0; i < N; i++)
    lk[i] += 1;
  printf("host unchanged: lk[1]=%ld\n", lk[1]);
  // CHECK: host unchanged: lk[1]=3
#pragma omp target exit data map(from : lk) device(3)
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += lk[i] != 3 * i + 1;
  printf("%s link enter/exit data: mismatches=%d lk[1]=%ld lk[63]=%ld present=%d\n",
         bad ? "FAIL" : "PASS", bad, lk[1], lk[N - 1], omp_target_is_present(lk, 3));
  // CHECK: PASS link enter/exit data: mismatches=0 lk[1]=4 lk[63]=190 present=0
  return 0;
}
