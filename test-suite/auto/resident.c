// Automatic spreading of kernels over data kept resident by target data and
// target enter data (SPREAD_AUTO's distributed residency): a Jacobi sweep
// inside a target data region, a target update from in the middle, a kernel
// on an explicit device, one the pass cannot spread (an unknown call) and a
// spread reduction between spread ones, and the same sweep under enter/exit data. Every result is
// checked against the serial loop; SPREAD_INFO=auto shows the kernels spread
// and the bytes moved, which stay below copying the arrays to every device.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_INFO=auto %libpath-run %t 10007 2>%t.info | FileCheck %s --implicit-check-not=FAIL
// RUN: FileCheck --check-prefix=INFO %s < %t.info
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=3 %preload-run %t 7 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_SCHEDULE=adaptive %libpath-run %t 10007 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=1 SPREAD_HOST_DEVICES=8 SPREAD_SCHEDULE=dynamic,64 %libpath-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: %libpath-run %t 1000 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 1000 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

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

static void sweep(int n, const double *a, double *b) {
#pragma omp target teams distribute parallel for map(to : a[0:n]) map(tofrom : b[0:n])
  for (int i = 1; i < n - 1; i++)
    b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
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

// No map clause: clang passes the captured pointers as zero-length maps, which
// find the arrays the enclosing target data keeps resident.
static void sweep_implicit(int n, const double *a, double *b) {
#pragma omp target teams distribute parallel for
  for (int i = 1; i < n - 1; i++)
    b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
}

static double total(int n, const double *a) {
  double s = 0;
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : a[0:n])
  for (int i = 0; i < n; i++)
    s += a[i];
  return s;
}

static void scale_on(int dev, int n, double *a) {
#pragma omp target teams distribute parallel for device(dev) map(tofrom : a[0:n])
  for (int i = 0; i < n; i++)
    a[i] *= 2;
}

static void twice(int n, double *a) {
#pragma omp target teams distribute parallel for map(tofrom : a[0:n])
  for (int i = 0; i < n; i++)
    a[i] = 2 * a[i];
}

static void triple(int n, const double *a, double *c) {
#pragma omp target teams distribute parallel for map(to : a[0:n]) map(from : c[0:n])
  for (int i = 0; i < n; i++)
    c[i] = 3 * a[i];
}

static void serial_sweep(int n, const double *a, double *b) {
  for (int i = 1; i < n - 1; i++)
    b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, steps = 6;
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  double *ra = malloc(sizeof(double) * n), *rb = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    a[i] = ra[i] = b[i] = rb[i] = (double)((i * 37) % 101);

  double mid[1] = {0}, want_mid[1] = {0};
#pragma omp target data map(tofrom : a[0:n], b[0:n])
  {
    for (int s = 0; s < steps; s++) {
      sweep(n, a, b);
      sweep_implicit(n, b, a);
      if (s == steps / 2) {
#pragma omp target update from(a[0:n])
        mid[0] = a[n / 2];
      }
    }
    // One device, then spread again over what it wrote.
    scale_on(omp_get_default_device(), n, a);
    apply(n, a);
    sweep(n, a, b);
    mid[0] += total(n, b);
  }
  for (int s = 0; s < steps; s++) {
    serial_sweep(n, ra, rb);
    serial_sweep(n, rb, ra);
    if (s == steps / 2)
      want_mid[0] = ra[n / 2];
  }
  for (int i = 0; i < n; i++)
    ra[i] = ra[i] * 2 * 0.5;
  serial_sweep(n, ra, rb);
  double t = 0;
  for (int i = 0; i < n; i++)
    t += rb[i];
  want_mid[0] += t;
  check("target data a", a, ra, n);
  check("target data b", b, rb, n);
  check("update from and reduction", mid, want_mid, 1);

  for (int i = 0; i < n; i++)
    a[i] = ra[i] = b[i] = rb[i] = (double)((i * 13) % 17);
#pragma omp target enter data map(to : a[0:n], b[0:n])
  for (int s = 0; s < steps; s++) {
    sweep(n, a, b);
    sweep(n, b, a);
    serial_sweep(n, ra, rb);
    serial_sweep(n, rb, ra);
  }
#pragma omp target exit data map(from : a[0:n]) map(release : b[0:n])
  check("enter/exit data", a, ra, n);

  // A spread kernel alternating with one that runs on one device over the same data: each
  // spread launch would bring 3/4 of it back from that device, and the next one-device launch
  // gathers it again. After three such launches the kernel stays on one device
  // (SPREAD_INFO=auto says so).
  for (int i = 0; i < n; i++)
    a[i] = ra[i] = (double)(i % 7);
#pragma omp target data map(tofrom : a[0:n])
  for (int s = 0; s < 6; s++) {
    apply(n, a);
    twice(n, a);
    for (int i = 0; i < n; i++)
      ra[i] = halve(ra[i]) * 2;
  }
  check("alternating spread and one-device kernels", a, ra, n);

  // map(from:) and map(alloc:) data start undefined, as device memory does: the kernels write
  // it before anything reads it, so none of it travels to a device (SPREAD_INFO=auto: the
  // object of c moves nothing to devices).
  double *c = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    c[i] = -1, rb[i] = 3 * a[i];
#pragma omp target data map(to : a[0:n]) map(from : c[0:n])
  triple(n, a, c);
  check("map(from:) written by a spread kernel", c, rb, n);
  for (int i = 0; i < n; i++)
    c[i] = -1;
#pragma omp target enter data map(alloc : c[0:n]) map(to : a[0:n])
  triple(n, a, c);
  for (int i = 0; i < n; i++)
    c[i] = 0; // the host's copy is not the device's
#pragma omp target update from(c[0:n])
  check("map(alloc:), spread kernels, update from", c, rb, n);
#pragma omp target exit data map(delete : c[0:n]) map(release : a[0:n])
  free(c);

  free(a), free(b), free(ra), free(rb);
  printf("%s\n", fails ? "FAIL" : "resident data ok");
  return fails != 0;
}

// CHECK: target data a: ok
// CHECK: target data b: ok
// CHECK: update from and reduction: ok
// CHECK: enter/exit data: ok
// CHECK: alternating spread and one-device kernels: ok
// CHECK: map(from:) written by a spread kernel: ok
// CHECK: map(alloc:), spread kernels, update from: ok
// CHECK: resident data ok

// INFO: kernel {{.*}}_sweep_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO: kernel {{.*}}_sweep_implicit_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO: kernel {{.*}}_scale_on_l{{[0-9]+}} runs on device 0: the construct names device(0)
// INFO: kernel {{.*}}_apply_l{{[0-9]+}} runs on device 0 (no descriptor) over resident data
// INFO: kernel {{.*}}_total_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO: resident 80056 bytes at {{.*}} released: moved {{[0-9]+}} to devices
// INFO: kernel {{.*}}_twice_l{{[0-9]+}} spread over devices [0, 1, 2, 3]
// INFO: kernel {{.*}}_twice_l{{[0-9]+}}: its last 3 spread launches brought most of their resident data from other devices
// INFO: kernel {{.*}}_twice_l{{[0-9]+}} runs on device 0: its last 3 spread launches
// The map(from:) and map(alloc:) objects: written by the kernels before anything reads them.
// INFO: released: moved 0 to devices, 0 between devices, 80056 to the host
// INFO: released: moved 0 to devices, 0 between devices, 80056 to the host
