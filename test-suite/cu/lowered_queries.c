// The compute-unit queries (seed 004, Table 2; docs/spread-abi.md §5), end to end: inside each
// CU of `teams num_teams(2:CPU:2, 1:GPU:1)`, in a nested parallel region of a CPU CU (its
// threads keep the CU's identity), and the defaults outside any CU region (digest §2: the whole
// host is one CPU CU). Every CU runs the structured block exactly once. The program prints
// each mismatch and exits nonzero.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env OMP_NUM_THREADS=2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: outside ok
// CHECK: cus ok
// CHECK: nested ok
// CHECK: outside again ok

#include <limits.h>
#include <omp.h>
#include <stdio.h>

static int failures;

#define EXPECT(what, got, want)                                                                \
  do {                                                                                         \
    long long g_ = (long long)(got), w_ = (long long)(want);                                   \
    if (g_ != w_) {                                                                            \
      _Pragma("omp critical(report)")                                                          \
      {                                                                                        \
        printf("FAIL %s: %lld, expected %lld\n", what, g_, w_);                                \
        failures++;                                                                            \
      }                                                                                        \
    }                                                                                          \
  } while (0)

static void outside(const char *when) {
  EXPECT("num_cus", omp_get_num_cus(), 1);
  EXPECT("num_cpus", omp_get_num_cpus(), 1);
  EXPECT("num_gpus", omp_get_num_gpus(), 0);
  EXPECT("is_cpu", omp_is_cpu(), 1);
  EXPECT("is_gpu", omp_is_gpu(), 0);
  EXPECT("cu_num", omp_get_cu_num(), 0);
  EXPECT("cpu", omp_get_cpu(), 0);
  EXPECT("gpu", omp_get_gpu(), UINT_MAX);
  if (omp_get_cu_num_cpus() < 1)
    EXPECT("cu_num_cpus >= 1", omp_get_cu_num_cpus(), 1);
  omp_synchronize(); // a no-op outside a GPU CU
  printf("%s ok\n", when);
}

int main(void) {
  int failures_before;
  outside("outside");

  int runs[3] = {0, 0, 0};
  int nested_bad = 0;
  failures_before = failures;
#pragma omp teams num_teams(2:CPU:2, 1:GPU:1)
  {
    unsigned cu = omp_get_cu_num();
    EXPECT("cu_num = thread", cu, omp_get_thread_num());
    EXPECT("num_cus", omp_get_num_cus(), 3);
    EXPECT("num_cpus", omp_get_num_cpus(), 2);
    EXPECT("num_gpus", omp_get_num_gpus(), 1);
    if (cu < 3) {
#pragma omp atomic
      runs[cu]++;
    }
    if (cu < 2) {
      // CPU CUs come first: 0 and 1, of 2 CPUs each
      EXPECT("is_cpu", omp_is_cpu(), 1);
      EXPECT("is_gpu", omp_is_gpu(), 0);
      EXPECT("cpu", omp_get_cpu(), cu);
      EXPECT("gpu", omp_get_gpu(), UINT_MAX);
      EXPECT("cu_num_cpus", omp_get_cu_num_cpus(), 2);
      // the CU's CPUs: a nested parallel region whose threads keep the CU's identity
#pragma omp parallel num_threads(omp_get_cu_num_cpus()) reduction(+: nested_bad)
      {
        nested_bad += omp_get_cu_num() != cu;
        nested_bad += !omp_is_cpu() || omp_is_gpu();
        nested_bad += omp_get_num_cus() != 3;
        nested_bad += omp_get_cpu() != cu;
      }
    } else {
      // the GPU CU: the first device of the default list
      EXPECT("is_gpu", omp_is_gpu(), 1);
      EXPECT("is_cpu", omp_is_cpu(), 0);
      EXPECT("gpu", omp_get_gpu(), 0);
      EXPECT("cpu", omp_get_cpu(), UINT_MAX);
      int on_device = -1;
#pragma omp target device(omp_get_gpu()) map(from: on_device)
      on_device = omp_is_initial_device();
      omp_synchronize();
      EXPECT("the GPU CU's target ran on its device", on_device, 0);
    }
  }
  for (int c = 0; c < 3; c++)
    EXPECT("each CU ran the block once", runs[c], 1);
  if (failures == failures_before)
    printf("cus ok\n");
  EXPECT("nested threads keep their CU", nested_bad, 0);
  if (nested_bad == 0)
    printf("nested ok\n");
  outside("outside again");
  return failures != 0;
}
