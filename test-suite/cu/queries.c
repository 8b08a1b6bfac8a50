// The CU queries of seed 004's Table 2 (docs/compute-units.md), in the code the
// driver's lowering of
//   #pragma omp teams distribute num_teams(2:CPU:3, 2:GPU:1) thread_limit(2)
// produces (hand-written here, digest §6.2): inside each CU thread and inside
// the nested parallel regions of CPU CUs they answer for that CU; outside any
// CU region the whole host is one CPU CU. GPU CUs are host devices here; GPU
// CU j owns device j of SPREAD_CU_DEVICES (default 0,1,...).
//
// REQUIRES: spread
// RUN: %clang-offload -I %S/../../runtime/include -L %runtime-libdir %s -o %t
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=3 SPREAD_CU_DEVICES=2,0 %libpath-run %t 2>&1 | FileCheck %s --check-prefix=LIST --implicit-check-not=FAIL

#include <limits.h>
#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define NCU 4

typedef struct {
  unsigned num_cus, num_cpus, num_gpus, cu_num, cu_num_cpus, cpu, gpu;
  int is_cpu, is_gpu;
} view_t;

static view_t here(void) {
  view_t v = {omp_get_num_cus(), omp_get_num_cpus(), omp_get_num_gpus(), omp_get_cu_num(),
              omp_get_cu_num_cpus(), omp_get_cpu(), omp_get_gpu(), omp_is_cpu(), omp_is_gpu()};
  return v;
}

static int same(view_t a, view_t b) {
  return a.num_cus == b.num_cus && a.num_cpus == b.num_cpus && a.num_gpus == b.num_gpus &&
         a.cu_num == b.cu_num && a.cu_num_cpus == b.cu_num_cpus && a.cpu == b.cpu &&
         a.gpu == b.gpu && a.is_cpu == b.is_cpu && a.is_gpu == b.is_gpu;
}

static void print(const char *what, view_t v) {
  printf("%s: cus=%u cpus=%u gpus=%u cu=%u cu_cpus=%u cpu=%d gpu=%d is_cpu=%d is_gpu=%d\n", what,
         v.num_cus, v.num_cpus, v.num_gpus, v.cu_num, v.cu_num_cpus,
         v.cpu == UINT_MAX ? -1 : (int)v.cpu, v.gpu == UINT_MAX ? -1 : (int)v.gpu, v.is_cpu,
         v.is_gpu);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  print("outside", here());
  // CHECK: outside: cus=1 cpus=1 gpus=0 cu=0 cu_cpus=2 cpu=0 gpu=-1 is_cpu=1 is_gpu=0
  view_t cu_view[NCU], nested[NCU][8];
  int nested_threads[NCU] = {0}, nested_bad = 0, ran[NCU] = {0};
  int where[NCU];
  {
    static const __spread_construct_t c = {"queries.c", 50, __SPREAD_KIND_CU, 0, __SPREAD_SCHED_STATIC};
    const __spread_cud_t cuds[] = {{2, __SPREAD_CU_CPU, 3}, {2, __SPREAD_CU_GPU, 1}};
    __spread_cu_region_t *cu = __spread_cu_begin(&c, 0, NCU, cuds, 2, 0, 2);
#pragma omp parallel num_threads(__spread_cu_num_threads(cu))
    {
      int64_t lo, hi;
      __spread_cu_enter(cu);
      while (__spread_cu_next(cu, &lo, &hi)) {
        for (int64_t t = lo; t < hi; t++) {
          unsigned me = omp_get_cu_num();
          cu_view[me] = here();
          ran[me]++;
          if (omp_is_cpu()) {
#pragma omp parallel num_threads(omp_get_cu_num_cpus())
            {
              nested[me][omp_get_thread_num()] = here();
#pragma omp atomic
              nested_threads[me]++;
              if (omp_get_level() != 2 || omp_get_ancestor_thread_num(1) != (int)me)
                nested_bad++;
            }
          } else {
            int dev = omp_get_gpu(), w = -1;
            // (A host device's kernel is no initial device, but omp_get_device_num() there
            // answers libomp's host number: the device is checked as in spread/abi_chunk_loop.c.)
#pragma omp target device(dev) map(from : w)
            w = omp_is_initial_device() ? -2 : dev;
            where[me] = w;
          }
        }
        __spread_cu_commit(cu, lo, hi);
      }
      __spread_cu_leave(cu);
    }
    __spread_cu_end(cu);
  }
  for (int i = 0; i < NCU; i++) {
    char name[32];
    snprintf(name, sizeof name, "cu %d", i);
    print(name, cu_view[i]);
    if (ran[i] != 1)
      printf("FAIL: cu %d ran %d tasks\n", i, ran[i]);
    if (cu_view[i].is_cpu) {
      printf("cu %d: %d nested threads\n", i, nested_threads[i]);
      for (int t = 0; t < nested_threads[i]; t++)
        if (!same(nested[i][t], cu_view[i]))
          printf("FAIL: nested thread %d of cu %d sees another CU\n", t, i);
    } else {
      printf("cu %d: target region ran on device %d\n", i, where[i]);
    }
  }
  if (nested_bad)
    printf("FAIL: %d nested threads at the wrong level\n", nested_bad);
  // thread_limit(2) caps the 3 CPUs of each CPU CU.
  // CHECK-NEXT: cu 0: cus=4 cpus=2 gpus=2 cu=0 cu_cpus=2 cpu=0 gpu=-1 is_cpu=1 is_gpu=0
  // CHECK-NEXT: cu 0: 2 nested threads
  // CHECK-NEXT: cu 1: cus=4 cpus=2 gpus=2 cu=1 cu_cpus=2 cpu=1 gpu=-1 is_cpu=1 is_gpu=0
  // CHECK-NEXT: cu 1: 2 nested threads
  // CHECK-NEXT: cu 2: cus=4 cpus=2 gpus=2 cu=2 cu_cpus=1 cpu=-1 gpu=0 is_cpu=0 is_gpu=1
  // CHECK-NEXT: cu 2: target region ran on device 0
  // CHECK-NEXT: cu 3: cus=4 cpus=2 gpus=2 cu=3 cu_cpus=1 cpu=-1 gpu=1 is_cpu=0 is_gpu=1
  // CHECK-NEXT: cu 3: target region ran on device 1
  // LIST: cu 2: target region ran on device 2
  // LIST: cu 3: target region ran on device 0

  // After the region, and in a plain parallel region: the host CU again.
  print("after", here());
  // CHECK-NEXT: after: cus=1 cpus=1 gpus=0 cu=0 cu_cpus=2 cpu=0 gpu=-1 is_cpu=1 is_gpu=0
  int other = 0;
#pragma omp parallel num_threads(2) reduction(+ : other)
  other += omp_get_num_cus() != 1 || omp_get_cu_num() != 0 || !omp_is_cpu();
  printf("plain parallel: %d threads saw a CU\n", other);
  // CHECK-NEXT: plain parallel: 0 threads saw a CU
  omp_synchronize(); // outside a CU: a taskwait
  printf("done\n");
  // CHECK-NEXT: done
  return 0;
}
