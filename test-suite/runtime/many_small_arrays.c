// A program that keeps 100,000 small arrays mapped on one host device at once still runs: host
// devices keep each block between guard regions, two of the process's mappings apiece, and
// Linux allows vm.max_map_count (65530) in all, so blocks beyond an eighth of that come from
// the heap, unguarded, as before guards (runtime/src/device/host/guarded.rs). Also: a
// kernel's firstprivate array and omp_target_alloc blocks on many devices, freed and made
// again, keep their contents right.
//
// RUN: %clang-offload -O1 %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_GUARD=0 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define ARRAYS 100000
#define LEN 4

int main(void) {
  double **a = malloc(sizeof(double *) * ARRAYS);
  for (int k = 0; k < ARRAYS; k++) {
    a[k] = malloc(sizeof(double) * LEN);
    for (int i = 0; i < LEN; i++)
      a[k][i] = k + i;
    double *p = a[k];
#pragma omp target enter data map(to : p[0 : LEN]) device(0)
  }
  // The mappings the process holds now: well below vm.max_map_count.
  int maps = 0;
  FILE *f = fopen("/proc/self/maps", "r");
  for (int c; f && (c = fgetc(f)) != EOF;)
    maps += c == '\n';
  if (f)
    fclose(f);
  printf("%s: %d mappings\n", maps < 32768 ? "PASS" : "FAIL", maps);
  // CHECK: PASS: {{[0-9]+}} mappings
  int bad = 0;
  for (int k = 0; k < ARRAYS; k += 997) {
    double *p = a[k];
#pragma omp target map(tofrom : p[0 : LEN]) device(0)
    for (int i = 0; i < LEN; i++)
      p[i] *= 2;
#pragma omp target update from(p[0 : LEN]) device(0)
    for (int i = 0; i < LEN; i++)
      bad += p[i] != 2.0 * (k + i);
  }
  for (int k = 0; k < ARRAYS; k++) {
    double *p = a[k];
#pragma omp target exit data map(from : p[0 : LEN]) device(0)
    for (int i = 0; i < LEN; i++)
      bad += p[i] != (k % 997 ? 1.0 : 2.0) * (k + i);
    free(p);
  }
  free(a);
  printf("%s: %d arrays mapped at once, %d wrong\n", bad ? "FAIL" : "PASS", ARRAYS, bad);
  // CHECK: PASS: 100000 arrays mapped at once, 0 wrong

  double w[100];
  for (int i = 0; i < 100; i++)
    w[i] = i;
  double sum = 0;
  for (int rep = 0; rep < 1000; rep++) {
    double s = 0;
#pragma omp target firstprivate(w) map(tofrom : s) device(rep % omp_get_num_devices())
    {
      for (int i = 0; i < 100; i++)
        s += w[i];
      w[0] = -1; // the device's copy only
    }
    sum += s;
  }
  printf("%s: firstprivate sum %g\n", sum == 1000 * 4950.0 ? "PASS" : "FAIL", sum);
  // CHECK: PASS: firstprivate sum 4.95e+06

  int wrong = 0;
  for (int rep = 0; rep < 200; rep++) {
    int d = rep % omp_get_num_devices();
    size_t n = 1 + (size_t)rep * 37;
    char *p = omp_target_alloc(n, d);
    if (!p) {
      wrong++;
      continue;
    }
#pragma omp target is_device_ptr(p) device(d)
    for (size_t i = 0; i < n; i++)
      p[i] = (char)(i + rep);
    char last = 0;
#pragma omp target is_device_ptr(p) map(from : last) device(d)
    last = p[n - 1];
    wrong += last != (char)(n - 1 + rep);
    omp_target_free(p, d);
  }
  printf("%s: omp_target_alloc, %d wrong\n", wrong ? "FAIL" : "PASS", wrong);
  // CHECK: PASS: omp_target_alloc, 0 wrong
  return bad || sum != 1000 * 4950.0 || wrong;
}
