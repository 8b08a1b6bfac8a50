// Linking puts Spread's runtime (libomptarget.so.19.1) before libomp (libomp.so.5, which clang
// appends for -fopenmp) in the program's DT_NEEDED list, so that the allocator entry points the
// runtime interposes (omp_alloc, omp_init_allocator, __kmpc_alloc, ...) win symbol lookup
// (docs/driver.md, "Linking"). C, C++, a separate link step, and a user's -Wl,--as-needed.
// REQUIRES: spread
// RUN: %spread-cc --spread-no-pass %s -o %t
// RUN: llvm-readelf -d %t | FileCheck %s
// RUN: %spread-cxx --spread-no-pass -x c++ %s -o %t-cxx
// RUN: llvm-readelf -d %t-cxx | FileCheck %s
// RUN: %spread-cc -c %s -o %t.o
// RUN: %spread-cc %t.o -o %t-linked
// RUN: llvm-readelf -d %t-linked | FileCheck %s
// RUN: %spread-cxx %t.o -o %t-linked-cxx
// RUN: llvm-readelf -d %t-linked-cxx | FileCheck %s
// RUN: %spread-cc --spread-no-pass -Wl,--as-needed %s -o %t-as-needed
// RUN: llvm-readelf -d %t-as-needed | FileCheck %s
// The command: the runtime, then libomp, right after the user's arguments and before clang's
// own libraries; both kept under --as-needed (this program's references to libomp all bind to
// the runtime, which passes libomp's allocators on to libomp).
// RUN: %spread-cc --spread-no-pass --spread-verbose %s -o %t 2>&1 | FileCheck --check-prefix=CMD %s

#include <omp.h>

int main(void) {
  int *p = (int *)omp_alloc(64 * sizeof(int), omp_default_mem_alloc);
  int x = 0;
#pragma omp target map(tofrom: x)
  x = 1;
  omp_free(p, omp_default_mem_alloc);
  return x - 1;
}
// CHECK-NOT: (NEEDED) Shared library: [libomp.so.5]
// CHECK: (NEEDED) Shared library: [libomptarget.so.19.1]
// CHECK: (NEEDED) Shared library: [libomp.so.5]
// CHECK: (RUNPATH) Library runpath: [{{.*}}target/spread/lib]

// CMD: {{^.*}}clang{{[^ ]*}} -idirafter {{[^ ]*}}runtime/include -L{{[^ ]*}}target/spread/lib -Wl,-rpath,{{[^ ]*}}target/spread/lib {{.*}}link_order.c -o {{[^ ]*}} -Wl,--push-state,--no-as-needed -lomptarget -lomp -Wl,--pop-state -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -gline-tables-only{{$}}
