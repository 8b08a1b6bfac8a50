// SPREAD_INFO=auto in an iterative program: each kernel's decision is said once, the first time
// the kernel takes it (with that launch's blocks), not once per launch; a decision that
// changes (spread, then kept on one device for ping-pong traffic) is said again when it
// changes; reasons that differ only in their numbers (a launch too small to spread, of a
// size that changes from step to step) are one decision. At exit one line per kernel counts
// the launches that took each decision. Results are checked against the serial loops.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=100 SPREAD_INFO=auto %libpath-run %t 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck %s --check-prefix=INFO --input-file=%t.info
// Once each: the kernels' first decisions, the ping-pong change, the blocks of two first
// spread launches of four blocks.
// RUN: grep -c "_l[0-9]* spread over devices" %t.info | FileCheck %s --check-prefix=TWO
// RUN: grep -c "(no descriptor) over resident data" %t.info | FileCheck %s --check-prefix=ONE
// RUN: grep -c "runs on device 0: [0-9]* iterations, fewer than two blocks" %t.info | FileCheck %s --check-prefix=ONE
// RUN: grep -c "runs on device 0: its last 3 spread launches" %t.info | FileCheck %s --check-prefix=ONE
// RUN: grep -c "spread: auto: block" %t.info | FileCheck %s --check-prefix=EIGHT
// RUN: grep -c "spread: auto: summary" %t.info | FileCheck %s --check-prefix=FOUR

// CHECK: scale: ok
// CHECK: small: ok
// CHECK: alternating: ok

// INFO: kernel {{.*}}_scale_l{{[0-9]+}} spread over devices [0, 1, 2, 3]: 1000 iterations
// INFO: kernel {{.*}}_small_l{{[0-9]+}} runs on device 0: {{[0-9]+}} iterations, fewer than two blocks of SPREAD_AUTO_MIN=100
// INFO: kernel {{.*}}_apply_l{{[0-9]+}} runs on device 0 (no descriptor) over resident data
// INFO: kernel {{.*}}_twice_l{{[0-9]+}} spread over devices [0, 1, 2, 3]: 1000 iterations
// INFO: kernel {{.*}}_twice_l{{[0-9]+}}: its last 3 spread launches brought most of their resident data from other devices
// INFO: kernel {{.*}}_twice_l{{[0-9]+}} runs on device 0: its last 3 spread launches {{.*}} (first at launch 4)
// INFO-DAG: spread: auto: summary: {{.*}}kernel {{.*}}_scale_l{{[0-9]+}}: 300 launches: 300 spread over devices [0, 1, 2, 3]{{$}}
// INFO-DAG: spread: auto: summary: {{.*}}kernel {{.*}}_small_l{{[0-9]+}}: 300 launches: 300 on device 0 ({{[0-9]+}} iterations, fewer than two blocks of SPREAD_AUTO_MIN=100){{$}}
// INFO-DAG: spread: auto: summary: {{.*}}kernel {{.*}}_apply_l{{[0-9]+}}: 40 launches: 40 on device 0 (no descriptor, over resident data){{$}}
// INFO-DAG: spread: auto: summary: {{.*}}kernel {{.*}}_twice_l{{[0-9]+}}: 40 launches: 3 spread over devices [0, 1, 2, 3]; 37 on device 0 (its last 3 spread launches brought most of their resident data from other devices ({{[0-9]+}} bytes): it stays on one device){{$}}
// ONE: {{^}}1{{$}}
// TWO: {{^}}2{{$}}
// FOUR: {{^}}4{{$}}
// EIGHT: {{^}}8{{$}}

#include <stdio.h>

#define N 1000
#define STEPS 300
#define ALTERNATIONS 40

static int fails;

static void check(const char *what, const double *got, const double *want, int n) {
  for (int i = 0; i < n; i++)
    if (got[i] != want[i]) {
      printf("FAIL: %s: element %d is %g, expected %g\n", what, i, got[i], want[i]);
      fails++;
      return;
    }
  printf("%s: ok\n", what);
}

static void scale(int n, double *a) {
#pragma omp target teams distribute parallel for map(tofrom : a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = a[i] * 0.5 + 1.0;
}

// Fewer iterations than two blocks of SPREAD_AUTO_MIN, a different number at each step.
static void small(int n, double *a) {
#pragma omp target teams distribute parallel for map(tofrom : a[0:n])
  for (int i = 0; i < n; i++)
    a[i] += 1.0;
}

#pragma omp declare target
__attribute__((noinline)) double halve(double v);
#pragma omp end declare target
double halve(double v) { return v * 0.5; }

// The pass cannot describe it (a printf, never reached): no descriptor.
static void apply(int n, double *a) {
#pragma omp target teams distribute parallel for map(tofrom : a[0:n])
  for (int i = 0; i < n; i++) {
    if (a[i] < -1e300)
      printf("unreachable\n");
    a[i] = halve(a[i]);
  }
}

static void twice(int n, double *a) {
#pragma omp target teams distribute parallel for map(tofrom : a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = 2 * a[i];
}

int main(void) {
  static double a[N], ra[N];
  for (int i = 0; i < N; i++)
    a[i] = ra[i] = i % 13;
  for (int s = 0; s < STEPS; s++) {
    scale(N, a);
    for (int i = 0; i < N; i++)
      ra[i] = ra[i] * 0.5 + 1.0;
  }
  check("scale", a, ra, N);

  for (int s = 0; s < STEPS; s++) {
    int n = 1 + s % 150;
    small(n, a);
    for (int i = 0; i < n; i++)
      ra[i] += 1.0;
  }
  check("small", a, ra, N);

  // A spread kernel alternating with one that runs on one device over the same resident data:
  // after three spread launches that bring most of their data from another device it stays on
  // one device.
  for (int i = 0; i < N; i++)
    a[i] = ra[i] = i % 7;
#pragma omp target data map(tofrom : a[0:N])
  for (int s = 0; s < ALTERNATIONS; s++) {
    apply(N, a);
    twice(N, a);
    for (int i = 0; i < N; i++)
      ra[i] = halve(ra[i]) * 2;
  }
  check("alternating", a, ra, N);
  return fails != 0;
}
