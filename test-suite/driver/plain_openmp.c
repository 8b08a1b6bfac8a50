// A file without spread directives is compiled as written, with Spread's flags added.
// RUN: %spread-cc -c %s -o %t.o
// RUN: llvm-objdump -h %t.o | FileCheck --check-prefix=OBJ %s
// RUN: %spread-cc --spread-no-pass -O2 -c %s -o %t-nopass.o
// RUN: %spread-cc --spread-print-lowered %s | FileCheck --check-prefix=SAME %s
// RUN: %spread-cc --spread-verbose -c %s -o %t.o 2>&1 | FileCheck --check-prefix=CMD %s
// RUN: %spread-cc --spread-verbose --spread-no-pass -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -c %s -o %t.o 2>&1 | FileCheck --check-prefix=USER %s

#include <omp.h>

int square(int x) {
  int y = 0;
#pragma omp target map(tofrom: y)
  y = x * x;
  return y;
}

// the offload image is embedded in the host object
// OBJ: .llvm.offloading

// SAME-NOT: spread.h
// SAME: {{^}}#include <omp.h>
// SAME: {{^}}#pragma omp target map(tofrom: y)

// the preprocessing run, then clang on the file itself
// CMD: {{^.*}}clang{{[^ ]*}} -E -fopenmp {{.*}}plain_openmp.c
// CMD-NEXT: {{^.*}}clang{{[^ ]*}} -idirafter {{[^ ]*}}runtime/include -c {{[^ ]*}}plain_openmp.c -o {{[^ ]*}} -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin={{.*}}libspread_pass.so -gline-tables-only{{$}}
// the user's -fopenmp and targets are kept and not repeated
// USER: {{^.*}}clang{{[^ ]*}} -idirafter {{[^ ]*}}runtime/include -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -c {{[^ ]*}}plain_openmp.c -o {{[^ ]*}} -gline-tables-only{{$}}
