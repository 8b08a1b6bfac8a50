// Allocator traits of seed 001 and OpenMP, and the queries that say what an
// allocation and an allocator actually got: on host devices memory is coherent
// host memory (managed requests get coherent memory), pinned memory is
// page-locked, a preferred location in the space is the host's memory, and a
// single device's space is that device's memory.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_PLACES=cores %t | FileCheck %s --implicit-check-not=FAILED

#include <omp.h>
#include <spread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *key_name(int k) {
  switch (k) {
  case omp_atk_memory_access: return "memory_access";
  case omp_atk_pinned: return "pinned";
  case omp_atk_preferred_location: return "preferred_location";
  case omp_atk_preferred_place: return "preferred_place";
  case omp_atk_alignment: return "alignment";
  case spread_atk_memory_kind: return "memory_kind";
  }
  return "?";
}

static const char *value_name(int k, omp_uintptr_t v) {
  static char buf[32];
  if (k == omp_atk_memory_access)
    return v == omp_atv_managed ? "managed" : v == omp_atv_coherent ? "coherent" : "?";
  if (k == omp_atk_pinned)
    return v == omp_atv_true ? "true" : "false";
  if (k == spread_atk_memory_kind)
    return v == spread_atv_host_memory          ? "host"
           : v == spread_atv_pinned_host_memory ? "pinned_host"
           : v == spread_atv_device_memory      ? "device"
                                                : "?";
  if (v == (omp_uintptr_t)omp_atv_default)
    return "default";
  snprintf(buf, sizeof buf, "%lu", (unsigned long)v);
  return buf;
}

static void show(const char *what, int n, const omp_alloctrait_t *t) {
  printf("%s:", what);
  for (int i = 0; i < n; i++)
    printf(" %s=%s", key_name(t[i].key), value_name(t[i].key, t[i].value));
  printf("\n");
}

static void *alloc_and_show(const char *what, omp_memspace_handle_t ms, int ntraits,
                            omp_alloctrait_t *traits, size_t bytes) {
  omp_allocator_handle_t a = omp_init_allocator(ms, ntraits, traits);
  if (a == omp_null_allocator) {
    printf("%s: FAILED (no allocator)\n", what);
    return NULL;
  }
  omp_alloctrait_t g[8];
  int n = spread_get_allocator_traits(a, g, 8);
  char label[64];
  snprintf(label, sizeof label, "%s allocator", what);
  show(label, n, g);
  char *p = omp_alloc(bytes, a);
  memset(p, 1, bytes);
  n = spread_get_alloc_traits(p + bytes / 2, g, 8); // any address inside the allocation
  show(what, n, g);
  return p;
}

int main(void) {
  int host = omp_get_initial_device();
  int devs[2] = {0, 1};
  omp_memspace_handle_t ms = omp_get_devices_and_host_memspace(2, devs, omp_default_mem_space);
  printf("host is device %d\n", host);
  // CHECK: host is device [[HOST:[0-9]+]]

  omp_alloctrait_t managed[] = {{omp_atk_memory_access, omp_atv_managed}};
  alloc_and_show("managed", ms, 1, managed, 4096);
  // CHECK: managed allocator: memory_access=coherent pinned=false preferred_location=[[HOST]] alignment=64 memory_kind=host
  // CHECK: managed: memory_access=coherent pinned=false preferred_location=[[HOST]] alignment=64 memory_kind=host

  omp_alloctrait_t coherent[] = {{omp_atk_memory_access, omp_atv_coherent},
                                 {omp_atk_alignment, 4096}};
  void *c = alloc_and_show("coherent", ms, 2, coherent, 100);
  printf("coherent aligned: %s\n", ((uintptr_t)c % 4096) == 0 ? "OK" : "FAILED");
  // CHECK: coherent: memory_access=coherent pinned=false preferred_location=[[HOST]] alignment=4096 memory_kind=host
  // CHECK: coherent aligned: OK

  omp_alloctrait_t pinned[] = {{omp_atk_pinned, omp_atv_true},
                               {omp_atk_preferred_location, 1},
                               {omp_atk_preferred_place, 0}};
  alloc_and_show("pinned", ms, 3, pinned, 1 << 16);
  // CHECK: pinned: memory_access=coherent pinned=true preferred_location=[[HOST]] preferred_place=0 alignment=64 memory_kind=pinned_host

  alloc_and_show("device 1", omp_get_device_memspace(1, omp_default_mem_space), 0, NULL, 64);
  // CHECK: device 1: memory_access=coherent pinned=true preferred_location=1 alignment=64 memory_kind=device

  // pool_size with the null fallback: the second allocation does not fit.
  omp_alloctrait_t pool[] = {{omp_atk_pool_size, 1024}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t small = omp_init_allocator(ms, 2, pool);
  void *p1 = omp_alloc(800, small), *p2 = omp_alloc(800, small);
  printf("pool null_fb: %s\n", p1 && !p2 ? "OK" : "FAILED");
  // CHECK: pool null_fb: OK
  omp_free(p1, small);
  p2 = omp_alloc(800, small);
  printf("pool reuse after free: %s\n", p2 ? "OK" : "FAILED");
  // CHECK: pool reuse after free: OK

  // allocator_fb: the overflow comes from the fallback allocator, and stays in the space.
  omp_alloctrait_t chain[] = {{omp_atk_pool_size, 1024},
                              {omp_atk_fallback, omp_atv_allocator_fb},
                              {omp_atk_fb_data, (omp_uintptr_t)small}};
  omp_allocator_handle_t front = omp_init_allocator(ms, 3, chain);
  void *q1 = omp_alloc(1000, front), *q2 = omp_alloc(100, front);
  omp_alloctrait_t g[8];
  printf("allocator_fb: %s\n",
         q1 && q2 && spread_get_alloc_traits(q2, g, 8) > 0 ? "OK" : "FAILED");
  // CHECK: allocator_fb: OK
  // default_mem_fb (the default): the overflow is plain memory of the same space.
  omp_alloctrait_t dflt[] = {{omp_atk_pool_size, 16}};
  omp_allocator_handle_t tiny = omp_init_allocator(ms, 1, dflt);
  void *t = omp_alloc(64, tiny);
  printf("default_mem_fb: %s\n", t && spread_get_alloc_traits(t, g, 8) > 0 ? "OK" : "FAILED");
  // CHECK: default_mem_fb: OK

  // omp_calloc zeroes, omp_realloc keeps the contents and the space.
  omp_allocator_handle_t a = omp_init_allocator(ms, 0, NULL);
  int *z = omp_calloc(100, sizeof(int), a);
  int zero = 1;
  for (int i = 0; i < 100; i++)
    zero &= z[i] == 0;
  for (int i = 0; i < 100; i++)
    z[i] = i;
  z = omp_realloc(z, 1000 * sizeof(int), a, a);
  int kept = z != NULL;
  for (int i = 0; kept && i < 100; i++)
    kept &= z[i] == i;
  printf("calloc/realloc: %s\n", zero && kept && spread_get_alloc_traits(z, g, 8) > 0 ? "OK" : "FAILED");
  // CHECK: calloc/realloc: OK
  omp_free(z, a);

  // Not Spread memory: the queries say so.
  int local;
  printf("foreign: %d %d\n", spread_get_alloc_traits(&local, g, 8),
         spread_get_allocator_traits(omp_default_mem_alloc, g, 8));
  // CHECK: foreign: -1 -1
  return 0;
}
