// Clang's own diagnostics on a lowered file point at the user's lines.
// RUN: %spread-cc --spread-no-pass -Wall -c %s -o %t.o 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: not %spread-cc --spread-no-pass -DBAD -c %s -o %t.o 2>&1 | FileCheck --check-prefix=ERR %s

#ifdef BAD
#define EXTRA_MAP map(to: undeclared_array[0:n])
#else
#define EXTRA_MAP
#endif

void f(int n, int *a) {
#pragma omp target spread devices(0) \
        map(tofrom: a[omp_spread_start:omp_spread_size]) EXTRA_MAP
  for (int i = 0; i < n; i++) {
    int unused;
    a[i] = i;
  }
  int unused_after;
}
// WARN-DAG: {{.*}}line_mapping.c:15:9: warning: unused variable 'unused'
// WARN-DAG: {{^}}   15 |     int unused;
// WARN-DAG: {{.*}}line_mapping.c:18:7: warning: unused variable 'unused_after'
// WARN-DAG: {{^}}   18 |   int unused_after;
// ERR: {{.*}}line_mapping.c:12:{{[0-9]+}}: error: use of undeclared identifier 'undeclared_array'
