// A panic inside Spread's runtime never unwinds into the program: the entry
// point reports it as libomptarget reports a fatal error, naming itself and
// the panic's message, and the program aborts. The documented test hook
// SPREAD_TEST_PANIC=<entry point> makes that entry point panic.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --check-prefix=NONE
// RUN: not --crash env SPREAD_TEST_PANIC=__tgt_target_kernel %libpath-run %t 2>&1 | FileCheck %s --check-prefix=KERNEL
// RUN: not --crash env SPREAD_TEST_PANIC=omp_target_alloc %preload-run %t 2>&1 | FileCheck %s --check-prefix=ALLOC
// RUN: not --crash env SPREAD_TEST_PANIC=__tgt_target_data_begin_mapper %preload-run %t 2>&1 | FileCheck %s --check-prefix=DATA
// The OMPT callbacks libomp calls into Spread's tool run under the same guard:
// RUN: not --crash env "SPREAD_TEST_PANIC=ompt parallel_begin" %libpath-run %t 2>&1 | FileCheck %s --check-prefix=OMPT

#include <omp.h>
#include <stdio.h>

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int x = 1;
#pragma omp target map(tofrom : x)
  x += 1;
  printf("kernel done x=%d\n", x);
  void *p = omp_target_alloc(64, 0);
  printf("alloc done\n");
#pragma omp target data map(tofrom : x)
  {
  }
  omp_target_free(p, 0);
  printf("data done\n");
  // A target task makes Spread start its OMPT tool (it owns `nowait` constructs).
#pragma omp target nowait map(tofrom : x)
  x += 1;
#pragma omp taskwait
  int sum = 0;
#pragma omp parallel num_threads(2) reduction(+ : sum)
  sum += 1;
  printf("PASS all done (%d, x=%d)\n", sum > 0, x);
  return 0;
}

// NONE: kernel done x=2
// NONE: PASS all done (1, x=3)

// KERNEL-NOT: kernel done
// KERNEL: omptarget fatal error 1: internal error in __tgt_target_kernel: SPREAD_TEST_PANIC=__tgt_target_kernel (Spread's runtime panicked; please report this)

// ALLOC: kernel done x=2
// ALLOC-NOT: alloc done
// ALLOC: omptarget fatal error 1: internal error in omp_target_alloc: SPREAD_TEST_PANIC=omp_target_alloc

// DATA: alloc done
// DATA-NOT: PASS
// DATA: omptarget fatal error 1: internal error in __tgt_target_data_begin_mapper: SPREAD_TEST_PANIC=__tgt_target_data_begin_mapper

// OMPT-NOT: PASS
// OMPT: omptarget fatal error 1: internal error in ompt parallel_begin: SPREAD_TEST_PANIC=ompt parallel_begin
