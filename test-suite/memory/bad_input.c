// Bad input to the memory routines gets a clear answer and loses nothing: an
// invalid device in the list, an empty list, unknown trait keys and values, seed
// 001's traits on a predefined space, a preferred location outside the space, a
// place that does not exist, a space that cannot be made (NULL, and why under
// SPREAD_INFO=memory), freeing memory through another allocator (not freed, data
// intact), a double free, and a destroyed allocator.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t 2>&1 | FileCheck %s --implicit-check-not=FAILED --implicit-check-not="no such memory space"
// RUN: env SPREAD_INFO=memory %t 2>&1 | FileCheck %s --check-prefix=INFO

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define EXPECT(what, cond)                                                                     \
  do {                                                                                         \
    fflush(stderr);                                                                            \
    printf("%s: %s\n", what, (cond) ? "OK" : "FAILED");                                        \
    fflush(stdout);                                                                            \
  } while (0)

int main(void) {
  int devs[2] = {0, 1}, bad[2] = {0, 9};
  omp_memspace_handle_t ms = omp_get_devices_and_host_memspace(2, devs, omp_default_mem_space);

  EXPECT("invalid device", omp_get_devices_memspace(2, bad, omp_default_mem_space) == omp_null_mem_space);
  // CHECK: spread: omp_get_devices_memspace: device 9 does not exist (devices are 0 to 3, and 4 for the host)
  // CHECK-NEXT: invalid device: OK
  EXPECT("invalid device (allocator)", omp_get_device_allocator(-3, omp_default_mem_space) == omp_null_allocator);
  // CHECK: spread: omp_get_device_allocator: device -3 does not exist
  // CHECK-NEXT: invalid device (allocator): OK
  EXPECT("paper routine", omp_get_target_memspace(2, bad, omp_default_mem_space) == NULL);
  // CHECK: spread: omp_get_target_memspace: device 9 does not exist
  EXPECT("empty list", omp_get_devices_memspace(0, devs, omp_default_mem_space) == omp_null_mem_space);
  // CHECK: spread: omp_get_devices_memspace: needs a non-empty device list (ndevs = 0)
  // CHECK-NEXT: empty list: OK

  omp_alloctrait_t value[] = {{omp_atk_memory_access, 42}};
  EXPECT("unknown value", omp_init_allocator(ms, 1, value) == omp_null_allocator);
  // CHECK: spread: omp_init_allocator: trait omp_atk_memory_access has unknown value 0x2a (expected omp_atv_managed, omp_atv_coherent)
  omp_alloctrait_t key[] = {{(omp_alloctrait_key_t)777, 1}};
  EXPECT("unknown key", omp_init_allocator(ms, 1, key) == omp_null_allocator);
  // CHECK: spread: omp_init_allocator: unknown allocator trait key 0x309
  omp_alloctrait_t fb[] = {{omp_atk_fallback, omp_atv_allocator_fb}};
  EXPECT("allocator_fb without fb_data", omp_init_allocator(ms, 1, fb) == omp_null_allocator);
  // CHECK: omp_atv_allocator_fb needs an allocator in omp_atk_fb_data
  omp_alloctrait_t managed[] = {{omp_atk_memory_access, omp_atv_managed}};
  EXPECT("seed 001 trait on a predefined space",
         omp_init_allocator(omp_default_mem_space, 1, managed) == omp_null_allocator);
  // CHECK: spread: omp_init_allocator: omp_atk_memory_access, omp_atk_preferred_location and omp_atk_preferred_place need a memory space from omp_get_devices_memspace & co., not the predefined space 0x0
  omp_alloctrait_t where[] = {{omp_atk_preferred_location, 3}};
  EXPECT("preferred location outside the space", omp_init_allocator(ms, 1, where) == omp_null_allocator);
  // CHECK: spread: omp_init_allocator: omp_atk_preferred_location is device 3, which is not in the memory space (devices 0,1 + host)
  omp_alloctrait_t place[] = {{omp_atk_preferred_place, 100000}};
  EXPECT("no such place", omp_init_allocator(ms, 1, place) == omp_null_allocator);
  // CHECK: spread: omp_init_allocator: omp_atk_preferred_place is place 100000, but there are {{[0-9]+}} places (OMP_PLACES)
  EXPECT("null space", omp_init_allocator(omp_null_mem_space, 0, NULL) == omp_null_allocator);
  // CHECK: the memory space is omp_null_mem_space

  // Valid requests no backend can serve: NULL, and why only under SPREAD_INFO=memory.
  EXPECT("low-latency space", omp_get_devices_and_host_memspace(2, devs, omp_low_lat_mem_space) == omp_null_mem_space);
  // CHECK: low-latency space: OK
  // INFO: spread: memory: omp_get_devices_and_host_memspace: no such memory space: omp_low_lat_mem_space is memory of one team
  EXPECT("device memory for two devices", omp_get_devices_memspace(2, devs, llvm_omp_target_device_mem_space) == omp_null_mem_space);
  // CHECK: device memory for two devices: OK
  // INFO: no such memory space: llvm_omp_target_device_mem_space is one device's own memory, but devices 0,1 must reach it

  // Freeing through the wrong allocator: reported, not freed, contents intact.
  omp_allocator_handle_t a = omp_init_allocator(ms, 0, NULL);
  omp_allocator_handle_t b = omp_init_allocator(omp_get_device_and_host_memspace(2, omp_default_mem_space), 0, NULL);
  double *x = omp_alloc(64 * sizeof(double), a);
  for (int i = 0; i < 64; i++)
    x[i] = i;
  omp_free(x, b);
  // CHECK: spread: omp_free: 0x{{[0-9a-f]+}} was allocated by allocator 0x{{[0-9a-f]+}}, not by allocator 0x{{[0-9a-f]+}}; it was not freed
  omp_free(x, omp_default_mem_alloc);
  // CHECK: spread: omp_free: 0x{{[0-9a-f]+}} was allocated by allocator 0x{{[0-9a-f]+}}, not by allocator 0x1; it was not freed
  int intact = 1;
  for (int i = 0; i < 64; i++)
    intact &= x[i] == i;
  EXPECT("wrong allocator frees nothing", intact);
  // CHECK: wrong allocator frees nothing: OK
  double local;
  omp_free(&local, a);
  // CHECK: spread: omp_free: 0x{{[0-9a-f]+}} is not live memory of a Spread allocator
  omp_free(x, omp_null_allocator); // right: the allocation's own allocator
  omp_free(x, a);
  // CHECK: spread: omp_free: 0x{{[0-9a-f]+}} is not live memory of a Spread allocator

  omp_destroy_allocator(b);
  EXPECT("destroyed allocator", omp_alloc(8, b) == NULL);
  // CHECK: spread: omp_alloc: allocator 0x{{[0-9a-f]+}} was destroyed
  // CHECK-NEXT: destroyed allocator: OK
  return 0;
}
