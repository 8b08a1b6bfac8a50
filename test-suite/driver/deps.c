// -MD dependency files name the user's source, not the lowered temporary file.
// RUN: rm -f %t.d
// RUN: %spread-cc --spread-no-pass -c %s -o %t.o -MD -MF %t.d
// RUN: FileCheck --input-file=%t.d %s

#include <stddef.h>

void f(size_t n, float *x) {
#pragma omp target spread devices(0) map(tofrom: x[omp_spread_start:omp_spread_size])
  for (size_t i = 0; i < n; i++) x[i] = 0;
}
// CHECK: {{^.*}}.o: \
// CHECK-NEXT: {{^}}  {{.*}}deps.c \
// CHECK-NOT: spread-cc-
