// The `allocate` directive and clause, and a Spread allocator as the default
// allocator, allocate from Spread's spaces although clang lowers them to libomp's
// entry points (__kmpc_alloc, __kmpc_free, omp_alloc with omp_null_allocator):
// Spread interposes them. Other allocators keep libomp's behaviour.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAILED

#include <omp.h>
#include <spread.h>
#include <stdio.h>

static omp_allocator_handle_t shared;

static int spread_mem(const void *p) {
  omp_alloctrait_t t[8];
  return spread_get_alloc_traits(p, t, 8) > 0;
}

static int directive(void) {
  double v[256];
#pragma omp allocate(v) allocator(shared)
  for (int i = 0; i < 256; i++)
    v[i] = i;
  int ok = spread_mem(v);
  // Device 1 of the space uses the variable as it is: its writes reach the host without from.
#pragma omp target teams distribute parallel for device(1) map(to : v)
  for (int i = 0; i < 256; i++)
    v[i] *= 2;
  for (int i = 0; i < 256; i++)
    ok &= v[i] == 2 * i;
  return ok;
}

int main(void) {
  int devs[2] = {0, 1};
  shared = omp_init_allocator(omp_get_devices_and_host_memspace(2, devs, omp_default_mem_space), 0, NULL);

  printf("allocate directive: %s\n", directive() ? "OK" : "FAILED");
  // CHECK: allocate directive: OK

  int sum = 0, in_space = 1;
  int buf[64];
#pragma omp parallel num_threads(2) private(buf) allocate(shared : buf) reduction(+ : sum) reduction(&& : in_space)
  {
    in_space = spread_mem(buf);
    for (int i = 0; i < 64; i++)
      buf[i] = i;
    for (int i = 0; i < 64; i++)
      sum += buf[i];
  }
  printf("allocate clause: %s\n", in_space && sum == 2 * 2016 ? "OK" : "FAILED");
  // CHECK: allocate clause: OK

  omp_allocator_handle_t before = omp_get_default_allocator();
  omp_set_default_allocator(shared);
  double *d = omp_alloc(100 * sizeof(double), omp_null_allocator);
  int ok = omp_get_default_allocator() == shared && spread_mem(d);
  omp_free(d, omp_null_allocator);
  omp_set_default_allocator(before);
  double *e = omp_alloc(100 * sizeof(double), omp_null_allocator);
  ok &= omp_get_default_allocator() == before && e && !spread_mem(e);
  omp_free(e, omp_null_allocator);
  printf("default allocator: %s\n", ok ? "OK" : "FAILED");
  // CHECK: default allocator: OK

  // libomp's own allocators and traits, through the interposed entry points.
  omp_alloctrait_t t[] = {{omp_atk_alignment, 256}, {omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t lib = omp_init_allocator(omp_default_mem_space, 3, t);
  char *p = omp_alloc(1000, lib), *q = omp_alloc(4000, lib);
  ok = p && ((omp_uintptr_t)p % 256) == 0 && !q && !spread_mem(p);
  p = omp_realloc(p, 2000, lib, lib);
  ok &= p != NULL;
  omp_free(p, lib);
  omp_destroy_allocator(lib);
  void *hb = omp_aligned_calloc(64, 10, 10, omp_high_bw_mem_alloc);
  omp_free(hb, omp_high_bw_mem_alloc);
  printf("libomp allocators: %s\n", ok ? "OK" : "FAILED");
  // CHECK: libomp allocators: OK
  return 0;
}
