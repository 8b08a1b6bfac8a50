// libc's free() or realloc() of memory an OpenMP allocator of Spread's gave: reported with the
// allocation named, and handled as omp_free / omp_realloc would, so that nothing stays
// registered as the space's after the memory went back. Before, free(x) returned x to libc still
// registered: the next malloc of the address was used in place by the devices, and a
// map(to: p[0:n]) region that writes p changed the host's copy (OpenMP: it must not). Checked
// against the host's values, on both load paths, from a program thread and with OpenMP threads
// freeing their own blocks at once.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t 2> %t.err | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck %s --check-prefix=WARN < %t.err
// RUN: %preload-run %t 2> /dev/null | FileCheck %s --implicit-check-not=FAIL
// WARN: spread: warning: free(0x{{[0-9a-f]+}}) of 8192 bytes that omp_alloc gave from allocator 0x{{[0-9a-f]+}} ({{.*}}): memory of an OpenMP allocator goes back with omp_free (or omp_realloc), not libc's free; it was freed as omp_free would
// WARN: spread: warning: realloc(0x{{[0-9a-f]+}}) of 8192 bytes that omp_alloc gave from allocator 0x{{[0-9a-f]+}} ({{.*}}): {{.*}} it was reallocated by omp_realloc on the same allocator
// CHECK: map(to) after free: host copy unchanged (1024 of 1024)
// CHECK: realloc kept 1024 values, device sees them in place: ok
// CHECK: threads: 0 wrong

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(void) {
  omp_allocator_handle_t al = omp_get_devices_all_allocator(omp_default_mem_space);
  int dev = omp_get_num_devices() > 1 ? 1 : 0;

  // The reproduction: free(x), then malloc returns memory at (often) the same address.
  double *x = omp_alloc(N * sizeof(double), al);
  for (int i = 0; i < N; i++)
    x[i] = i;
  free(x);
  double *p = malloc(N * sizeof(double));
  for (int i = 0; i < N; i++)
    p[i] = 1.0;
#pragma omp target map(to : p[0 : N]) device(dev)
  for (int i = 0; i < N; i++)
    p[i] = 2.0; // the device's copy: the host must not see it
  int same = 0;
  for (int i = 0; i < N; i++)
    same += p[i] == 1.0;
  printf("map(to) after free: host copy unchanged (%d of %d)\n", same, N);
  if (same != N)
    printf("FAIL: the device wrote the host's malloc memory\n");
  free(p);

  // realloc of space memory stays space memory with its contents.
  double *y = omp_alloc(N * sizeof(double), al);
  for (int i = 0; i < N; i++)
    y[i] = 3 * i;
  y = realloc(y, 2 * N * sizeof(double));
  int in_place = 0;
#pragma omp target map(to : y[0 : N]) map(from : in_place) device(dev)
  {
    int ok = 1;
    for (int i = 0; i < N; i++)
      ok &= y[i] == 3.0 * i;
    for (int i = 0; i < N; i++)
      y[i] += 1; // in place: the space's memory is the host's
    in_place = ok;
  }
  int kept = 0;
  for (int i = 0; i < N; i++)
    kept += y[i] == 3.0 * i + 1;
  printf("realloc kept %d values, device sees them in place: %s\n", kept,
         in_place && kept == N ? "ok" : "FAIL");
  omp_free(y, al);

  // OpenMP threads free their own blocks at once, while others malloc and free.
  int wrong = 0;
#pragma omp parallel num_threads(4) reduction(+ : wrong)
  for (int r = 0; r < 50; r++) {
    int *b = omp_alloc(64 * sizeof(int), al);
    char *m = malloc(100 + r);
    for (int i = 0; i < 64; i++)
      b[i] = i;
    for (int i = 0; i < 64; i++)
      wrong += b[i] != i;
    if (r % 2)
      free(b);
    else
      omp_free(b, al);
    free(m);
  }
  printf("threads: %d wrong\n", wrong);
  return 0;
}
