// Data placement (seed 004 §3.3, docs/compute-units.md): a registered range
// follows its migrations host -> device 0 -> device 1 -> host; on each device a
// target region mapping the data finds it present (no copy in or out) and sees
// the previous owner's values; a second migration to the same place moves
// nothing; spread_migrate_data inside a CU region moves a zone to that CU's
// space; unregistering brings data home. Bad requests print why and return 1.
//
// REQUIRES: spread
// RUN: %clang-offload -I %S/../../runtime/include -L %runtime-libdir %s -o %t
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 SPREAD_INFO=placement %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define N 256
#define NZ 3

static double a[N];
static double zone[NZ][N];

// Checks on `dev` that a[i] == old * i, then writes a[i] = new * i there.
static int on_device(int dev, int old, int new) {
  int bad = 0;
#pragma omp target device(dev) map(tofrom : a[0 : N]) map(tofrom : bad)
  for (int i = 0; i < N; i++) {
    bad += a[i] != old * i;
    a[i] = new * i;
  }
  return bad;
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  setvbuf(stderr, NULL, _IONBF, 0);
  int host = omp_get_initial_device();
  for (int i = 0; i < N; i++)
    a[i] = i;
  if (spread_register_data(a, sizeof a))
    printf("FAIL: register\n");
  int p = omp_get_data_placement(&a[N - 1]);
  printf("registered: placement=%d host=%d device=%d\n", p, omp_is_host(p), omp_is_device(p));
  // CHECK: registered: placement=2 host=1 device=0

  spread_migrate_data_to(a, 0);
  // CHECK: spread: placement: [0x{{[0-9a-f]+}}, +2048) host -> device 0
  for (int i = 0; i < N; i++)
    a[i] = -1; // the host copy is stale now: the device must not see this
  p = omp_get_data_placement(a);
  printf("device 0: placement=%d host=%d device=%d bad=%d\n", p, omp_is_host(p), omp_is_device(p),
         on_device(0, 1, 2));
  // CHECK-NEXT: device 0: placement=0 host=0 device=1 bad=0
  printf("host copy after the region: %g\n", a[7]);
  // CHECK-NEXT: host copy after the region: -1

  spread_migrate_data_to(&a[5], 1); // any address inside the range
  // CHECK-NEXT: spread: placement: [0x{{[0-9a-f]+}}, +2048) device 0 -> device 1
  printf("device 1: placement=%d bad=%d\n", omp_get_data_placement(a), on_device(1, 2, 3));
  // CHECK-NEXT: device 1: placement=1 bad=0
  printf("device 0 still maps it: %d\n", omp_target_is_present(a, 0));
  // CHECK-NEXT: device 0 still maps it: 0
  spread_migrate_data_to(a, 1); // already there: no line, no copy
  spread_migrate_data_to(a, host);
  // CHECK-NEXT: spread: placement: [0x{{[0-9a-f]+}}, +2048) device 1 -> host
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += a[i] != 3 * i;
  printf("home: placement=%d bad=%d present on 1: %d\n", omp_get_data_placement(a), bad,
         omp_target_is_present(a, 1));
  // CHECK-NEXT: home: placement=2 bad=0 present on 1: 0

  // Zones migrated by the CU that computes them (static: zone t to CU t).
  for (int z = 0; z < NZ; z++) {
    for (int i = 0; i < N; i++)
      zone[z][i] = z;
    spread_register_data(zone[z], sizeof zone[z]);
  }
  int placed[NZ], gpu[NZ];
  {
    static const __spread_construct_t c = {"placement.c", 80, __SPREAD_KIND_CU, 0, __SPREAD_SCHED_STATIC};
    const __spread_cud_t cuds[] = {{1, __SPREAD_CU_CPU, 1}, {2, __SPREAD_CU_GPU, 1}};
    __spread_cu_region_t *cu = __spread_cu_begin(&c, 0, NZ, cuds, 2, 1, 0);
#pragma omp parallel num_threads(__spread_cu_num_threads(cu))
    {
      int64_t lo, hi;
      __spread_cu_enter(cu);
      while (__spread_cu_next(cu, &lo, &hi)) {
        for (int64_t z = lo; z < hi; z++) {
          spread_migrate_data(zone[z]);
          placed[z] = omp_get_data_placement(zone[z]);
          gpu[z] = omp_is_gpu() ? (int)omp_get_gpu() : host;
          if (omp_is_gpu()) {
            double *zz = zone[z];
            int dev = omp_get_gpu();
#pragma omp target device(dev) map(tofrom : zz[0 : N])
            for (int i = 0; i < N; i++)
              zz[i] += 10;
          } else {
            for (int i = 0; i < N; i++)
              zone[z][i] += 10;
          }
        }
        __spread_cu_commit(cu, lo, hi);
      }
      __spread_cu_leave(cu);
    }
    __spread_cu_end(cu);
  }
  // CHECK-DAG: spread: placement: [0x{{[0-9a-f]+}}, +2048) host -> device 0
  // CHECK-DAG: spread: placement: [0x{{[0-9a-f]+}}, +2048) host -> device 1
  for (int z = 0; z < NZ; z++)
    printf("zone %d: placement=%d cu space=%d host copy=%g\n", z, placed[z], gpu[z], zone[z][0]);
  // CHECK: zone 0: placement=2 cu space=2 host copy=10
  // CHECK-NEXT: zone 1: placement=0 cu space=0 host copy=1
  // CHECK-NEXT: zone 2: placement=1 cu space=1 host copy=2
  for (int z = 0; z < NZ; z++)
    if (spread_unregister_data(zone[z]))
      printf("FAIL: unregister zone %d\n", z);
  // CHECK-DAG: spread: placement: [0x{{[0-9a-f]+}}, +2048) device 0 -> host
  // CHECK-DAG: spread: placement: [0x{{[0-9a-f]+}}, +2048) device 1 -> host
  bad = 0;
  for (int z = 0; z < NZ; z++)
    for (int i = 0; i < N; i++)
      bad += zone[z][i] != z + 10;
  printf("zones home: bad=%d placement=%d\n", bad, omp_get_data_placement(zone[1]));
  // CHECK: zones home: bad=0 placement=2

  // Errors.
  printf("unregistered: %d\n", spread_migrate_data_to(zone[0], 0));
  // CHECK-NEXT: spread: spread_migrate_data_to: 0x{{[0-9a-f]+}} is not in a registered range (spread_register_data)
  // CHECK-NEXT: unregistered: 1
  printf("bad device: %d\n", spread_migrate_data_to(a, 5));
  // CHECK-NEXT: spread: spread_migrate_data_to: device 5 does not exist (the runtime has 2 devices; the host is 2)
  // CHECK-NEXT: bad device: 1
  printf("overlap: %d\n", spread_register_data(&a[10], 8));
  // CHECK-NEXT: spread: spread_register_data: [0x{{[0-9a-f]+}}, +8) overlaps the registered range [0x{{[0-9a-f]+}}, +2048)
  // CHECK-NEXT: overlap: 1
  printf("inside: %d\n", spread_unregister_data(&a[1]));
  // CHECK-NEXT: spread: spread_unregister_data: 0x{{[0-9a-f]+}} is inside the registered range [0x{{[0-9a-f]+}}, +2048), not its start
  // CHECK-NEXT: inside: 1
  printf("unregister: %d\n", spread_unregister_data(a));
  // CHECK-NEXT: unregister: 0
  return 0;
}
