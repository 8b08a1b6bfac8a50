// Impossible compute-unit configurations are fatal errors naming the teams
// construct, its location and the cause: more GPU CUs than offload devices (or
// than SPREAD_CU_DEVICES lists), a CU of zero CPUs, no CU at all, an unknown
// family, and a CU region nested in a CU.
//
// REQUIRES: spread
// RUN: %clang-offload -I %S/../../runtime/include -L %runtime-libdir %s -o %t
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 not --crash %libpath-run %t gpus 2>&1 | FileCheck %s --check-prefix=GPUS
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=4 SPREAD_CU_DEVICES=3,1 not --crash %libpath-run %t gpus 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 not --crash %libpath-run %t zero 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 not --crash %libpath-run %t none 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 not --crash %libpath-run %t fpga 2>&1 | FileCheck %s --check-prefix=FPGA
// RUN: env SPREAD_DEVICES=host SPREAD_HOST_DEVICES=2 not --crash %libpath-run %t nested 2>&1 | FileCheck %s --check-prefix=NESTED

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <string.h>

// The lowering of `teams distribute num_teams(cuds...)` over [0, 8), the body empty
// unless `nested` (then the CU that takes a chunk first meets another teams construct, at
// line 99: any CU, since under load one CU may take every chunk of the empty body before the
// other starts).
static void region(int line, const __spread_cud_t *cuds, int n, int nested) {
  const __spread_construct_t c = {"errors.c", line, __SPREAD_KIND_CU, 0, __SPREAD_SCHED_DYNAMIC};
  __spread_cu_region_t *cu = __spread_cu_begin(&c, 0, 8, cuds, n, 0, 0);
#pragma omp parallel num_threads(__spread_cu_num_threads(cu))
  {
    int64_t lo, hi;
    __spread_cu_enter(cu);
    while (__spread_cu_next(cu, &lo, &hi)) {
      if (nested) {
        const __spread_cud_t inner[] = {{1, __SPREAD_CU_CPU, 1}};
        region(99, inner, 1, 0);
      }
      __spread_cu_commit(cu, lo, hi);
    }
    __spread_cu_leave(cu);
  }
  __spread_cu_end(cu);
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "gpus")) {
    const __spread_cud_t cuds[] = {{1, __SPREAD_CU_CPU, 2}, {3, __SPREAD_CU_GPU, 1}};
    region(10, cuds, 2, 0);
    // GPUS: omptarget error: the teams at errors.c:10 needs 3 offload devices for its GPU compute units, but the runtime has 2 (omp_get_num_devices())
    // GPUS: errors.c:10: omptarget fatal error 1:
    // LIST: omptarget error: the teams at errors.c:10 needs 3 offload devices for its GPU compute units, but SPREAD_CU_DEVICES lists 2 (the runtime has 4 offload devices)
  } else if (!strcmp(what, "zero")) {
    const __spread_cud_t cuds[] = {{2, __SPREAD_CU_CPU, 0}};
    region(20, cuds, 1, 0);
    // ZERO: omptarget error: CU descriptor 1 (2:CPU:0) of the teams at errors.c:20 gives each compute unit 0 CPUs: the size must be at least 1
    // ZERO: errors.c:20: omptarget fatal error 1:
  } else if (!strcmp(what, "none")) {
    region(30, NULL, 0, 0);
    // NONE: omptarget error: the teams at errors.c:30 defines no compute units (its num_teams clause has no CU descriptor)
  } else if (!strcmp(what, "fpga")) {
    const __spread_cud_t cuds[] = {{1, 3, 1}};
    region(40, cuds, 1, 0);
    // FPGA: omptarget error: CU descriptor 1 (1:<family 3>:1) of the teams at errors.c:40 has an unknown family (code 3): compute units are CPU or GPU
  } else if (!strcmp(what, "nested")) {
    const __spread_cud_t cuds[] = {{2, __SPREAD_CU_CPU, 1}};
    region(50, cuds, 1, 1);
    // NESTED: omptarget error: the teams at errors.c:99 begins inside a compute unit of the teams at errors.c:50: nested compute-unit regions are not supported
    // NESTED: errors.c:99: omptarget fatal error 1:
  }
  printf("no error\n");
  return 0;
}
