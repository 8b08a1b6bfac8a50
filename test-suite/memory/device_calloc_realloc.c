// omp_calloc and omp_realloc on a device's own memory (omp_get_device_allocator): the zeroing
// and the moves go through the device layer, and the contents are checked on the device and,
// copied back with omp_target_memcpy, against a serial reference on the host. Moves: within
// device 1, device 1 to device 2, and device 2 to host memory of libomp's default allocator.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAILED

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

static int check(const char *what, int ok) {
  printf("%s: %s\n", what, ok ? "OK" : "FAILED");
  return !ok;
}

// Whether the n ints at device pointer p on device d equal ref (copied back to the host).
static int equals(const int *p, int d, const int *ref, int n) {
  int *h = malloc(n * sizeof(int));
  int ok = h && omp_target_memcpy(h, p, n * sizeof(int), 0, 0, omp_get_initial_device(), d) == 0;
  for (int i = 0; ok && i < n; i++)
    ok = h[i] == ref[i];
  free(h);
  return ok;
}

int main(void) {
  int fails = 0;
  omp_allocator_handle_t on1 = omp_get_device_allocator(1, omp_default_mem_space);
  omp_allocator_handle_t on2 = omp_get_device_allocator(2, omp_default_mem_space);
  static int ref[2 * N], zeros[2 * N];

  int *p = omp_calloc(N, sizeof(int), on1);
  int zero = 1;
#pragma omp target device(1) is_device_ptr(p) map(tofrom : zero)
  for (int i = 0; i < N; i++)
    zero &= p[i] == 0;
  fails += check("calloc zeroes device memory", p && zero && equals(p, 1, zeros, N));
  // CHECK: calloc zeroes device memory: OK

#pragma omp target teams distribute parallel for device(1) is_device_ptr(p)
  for (int i = 0; i < N; i++)
    p[i] = 3 * i + 1;
  for (int i = 0; i < N; i++)
    ref[i] = 3 * i + 1;

  // Grown on the same device: the first N kept.
  p = omp_realloc(p, 2 * N * sizeof(int), on1, on1);
  fails += check("realloc on device 1 keeps the contents", p && equals(p, 1, ref, N));
  // CHECK: realloc on device 1 keeps the contents: OK

  // Moved to device 2 and shrunk: the first N/2 kept, usable there.
  p = omp_realloc(p, N / 2 * sizeof(int), on2, on1);
  int kept = 1;
#pragma omp target device(2) is_device_ptr(p) map(tofrom : kept)
  for (int i = 0; i < N / 2; i++)
    kept &= p[i] == 3 * i + 1;
  fails += check("realloc from device 1 to device 2", p && kept && equals(p, 2, ref, N / 2));
  // CHECK: realloc from device 1 to device 2: OK

  // Moved to host memory libomp allocates.
  p = omp_realloc(p, N / 2 * sizeof(int), omp_default_mem_alloc, on2);
  int host = p != NULL;
  for (int i = 0; host && i < N / 2; i++)
    host = p[i] == ref[i];
  fails += check("realloc from device 2 to the host", host);
  // CHECK: realloc from device 2 to the host: OK
  omp_free(p, omp_default_mem_alloc);

  // A large calloc on a device: every byte zero, also in memory a freed block occupied.
  int *q = omp_alloc(2 * N * sizeof(int), on1);
#pragma omp target teams distribute parallel for device(1) is_device_ptr(q)
  for (int i = 0; i < 2 * N; i++)
    q[i] = -1;
  omp_free(q, on1);
  q = omp_calloc(2 * N, sizeof(int), on1);
  fails += check("calloc after free", q && equals(q, 1, zeros, 2 * N));
  // CHECK: calloc after free: OK
  omp_free(q, on1);
  return fails;
}
