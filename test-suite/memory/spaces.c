// Memory spaces over device sets (seed 001, OpenMP 6.0 spellings): the same
// input gives the same space, every routine's allocator works, and memory of a
// space is used in target regions on each listed device without map, and map
// clauses on it move nothing (a device's writes under map(to:) reach the host):
// the devices and the host update one array in turn, checked against serial code.
// A single device's space is that device's own memory: a device outside the
// space gets a copy when the memory is mapped there.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAILED
// RUN: env LIBOMPTARGET_INFO=0x20 %t 2>&1 | FileCheck %s --check-prefix=COPIES

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define N 1000

static int check(const char *what, int ok) {
  printf("%s: %s\n", what, ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}

// Every listed device adds its number + 1 to each element, then the host doubles it.
static int round_trip(const char *what, omp_allocator_handle_t a, const int *devs, int ndevs,
                      int host) {
  double *x = omp_alloc(N * sizeof(double), a);
  if (!x)
    return check(what, 0);
  double ref[N];
  for (int i = 0; i < N; i++)
    x[i] = ref[i] = i;
  for (int k = 0; k < ndevs; k++) {
    int d = devs[k];
    // No map clause: the pointer is used as it is on the device.
#pragma omp target teams distribute parallel for device(d)
    for (int i = 0; i < N; i++)
      x[i] += d + 1;
    for (int i = 0; i < N; i++)
      ref[i] += d + 1;
    // map(to:) only: the host sees the device's writes because mapping moved nothing.
#pragma omp target teams distribute parallel for device(d) map(to : x[0 : N])
    for (int i = 0; i < N; i++)
      x[i] *= 3;
    for (int i = 0; i < N; i++)
      ref[i] *= 3;
  }
  if (host)
    for (int i = 0; i < N; i++) {
      x[i] *= 2;
      ref[i] *= 2;
    }
  int ok = 1;
  for (int i = 0; i < N; i++)
    ok &= x[i] == ref[i];
  omp_free(x, a);
  return check(what, ok);
}

int main(void) {
  int fails = 0;
  int nd = omp_get_num_devices();
  int all[16], host = omp_get_initial_device();
  for (int d = 0; d < nd; d++)
    all[d] = d;
  int pair[2] = {1, 3};

  omp_memspace_handle_t s1 = omp_get_devices_and_host_memspace(2, pair, omp_default_mem_space);
  omp_memspace_handle_t s2 = omp_get_devices_and_host_memspace(2, pair, omp_default_mem_space);
  int swapped[3] = {3, 1, 3};
  omp_memspace_handle_t s3 = omp_get_devices_and_host_memspace(3, swapped, omp_default_mem_space);
  fails += check("same space for the same devices", s1 == s2 && s1 == s3 && s1 != omp_null_mem_space);
  // CHECK: same space for the same devices: OK
  fails += check("other devices, other space",
                 omp_get_devices_memspace(2, pair, omp_default_mem_space) != s1);
  // CHECK: other devices, other space: OK

  fails += round_trip("devices_and_host", omp_init_allocator(s1, 0, NULL), pair, 2, 1);
  // CHECK: devices_and_host: OK
  fails += round_trip("devices_and_host_allocator",
                      omp_get_devices_and_host_allocator(2, pair, omp_default_mem_space), pair, 2, 1);
  // CHECK: devices_and_host_allocator: OK
  fails += round_trip("devices_allocator", omp_get_devices_allocator(2, pair, omp_default_mem_space),
                      pair, 2, 0);
  // CHECK: devices_allocator: OK
  fails += round_trip("device_and_host_allocator",
                      omp_get_device_and_host_allocator(2, omp_default_mem_space), &all[2], 1, 1);
  // CHECK: device_and_host_allocator: OK
  fails += round_trip("devices_all_allocator", omp_get_devices_all_allocator(omp_default_mem_space),
                      all, nd, 1);
  // CHECK: devices_all_allocator: OK

  // The paper's routine: a pointer to a handle; the host may be in the list.
  int with_host[3] = {0, host, 2};
  omp_memspace_handle_t *p = omp_get_target_memspace(3, with_host, omp_default_mem_space);
  int both[2] = {0, 2};
  fails += check("omp_get_target_memspace",
                 p && *p == omp_get_devices_and_host_memspace(2, both, omp_default_mem_space));
  // CHECK: omp_get_target_memspace: OK
  fails += round_trip("target_memspace allocator", omp_init_allocator(*p, 0, NULL), both, 2, 1);
  // CHECK: target_memspace allocator: OK

  fails += check("resources", omp_get_memspace_num_resources(s1) >= 1 &&
                                  omp_get_memspace_num_resources(omp_get_device_memspace(
                                      1, omp_default_mem_space)) == 1);
  // CHECK: resources: OK

  // Device 1's own memory: usable on device 1 as it is; device 0 is not in the space, so
  // mapping the memory there makes a copy (one transfer each way).
  omp_allocator_handle_t own = omp_get_device_allocator(1, omp_default_mem_space);
  double *y = omp_alloc(N * sizeof(double), own);
#pragma omp target teams distribute parallel for device(1)
  for (int i = 0; i < N; i++)
    y[i] = i;
#pragma omp target teams distribute parallel for device(0) map(tofrom : y[0 : N])
  for (int i = 0; i < N; i++)
    y[i] += 1;
  int ok = 1;
#pragma omp target device(1) map(tofrom : ok)
  for (int i = 0; i < N; i++)
    ok &= y[i] == i + 1;
  fails += check("device-exclusive memory, copied to another device", ok);
  // CHECK: device-exclusive memory, copied to another device: OK
  // COPIES: omptarget device 0 info: Copying data from host to device, {{.*}} Size=8000
  // COPIES: omptarget device 0 info: Copying data from device to host, {{.*}} Size=8000
  // COPIES-NOT: Size=8000
  omp_free(y, own);
  return fails;
}
