// A corpus of bad arguments to the device API and to constructs. Each one ends with a clear error,
// never a crash or a hang, and leaves nothing half-mapped: after each, the arrays the bad call
// named are present nowhere and valid work on every device still gives the right result.
//
// Without arguments the program runs the errors an API routine returns (-1, NULL, no effect); with
// a case name it runs one of the errors that end the program (libomptarget 19 makes a device
// number out of range fatal in every API routine and construct: "omptarget fatal error D: Device
// number 'D' out of range, only N devices available"). Both runtimes agree on all of it; the
// errors where stock libomptarget crashes or misbehaves are in bad_args_spread.c.
//
// Not covered because neither runtime checks them (reported on Spread's issue, "Reliability"):
// omp_target_memcpy/memcpy_rect with device offsets or volumes beyond the allocation (both
// runtimes copy out of bounds or crash), and -1 (omp_initial_device) as an API routine's device
// (LLVM 19 calls it out of range; OpenMP 5.2 allows it).
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash %libpath-run %t alloc-neg 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t free-huge 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t memcpy-dst-past 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t memcpy-src-neg 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t rect-huge 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t memset-past 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t associate-past 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t disassociate-neg 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t is-present-past 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t is-present-neg 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t enter-data-past 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t exit-data-huge 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t update-neg 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t target-past 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %libpath-run %t target-data-neg 2>&1 | FileCheck %s --check-prefix=FATAL
// RUN: not --crash %preload-run %t target-past 2>&1 | FileCheck %s --check-prefix=FATAL
//
// FATAL: case {{.*}} device [[D:-?[0-9]+]]
// FATAL-NOT: FAIL
// FATAL: omptarget fatal error [[D]]: Device number '[[D]]' out of range, only {{[0-9]+}} devices available
// FATAL-NOT: returned

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16

static int a[N], b[N], c[N];

static int nd, init;

static void check(int ok, const char *what) { printf("%s %s\n", ok ? "PASS" : "FAIL", what); }

// Nothing the bad calls named is mapped anywhere, and every device still computes.
static void still_works(const char *after) {
  int mapped = 0;
  for (int d = 0; d < nd; d++)
    mapped += omp_target_is_present(a, d) + omp_target_is_present(b, d) +
              omp_target_is_present(c, d);
  int wrong = 0;
  for (int d = 0; d < nd; d++) {
    int v[N];
    for (int i = 0; i < N; i++)
      v[i] = i;
#pragma omp target map(tofrom : v) device(d)
    for (int i = 0; i < N; i++)
      v[i] = 2 * v[i] + d;
    for (int i = 0; i < N; i++)
      wrong += v[i] != 2 * i + d;
    wrong += omp_target_is_present(v, d);
  }
  char what[160];
  snprintf(what, sizeof what, "after %s: %d mapped, %d wrong", after, mapped, wrong);
  check(mapped == 0 && wrong == 0, what);
}

static int same(const int *v, int base) {
  for (int i = 0; i < N; i++)
    if (v[i] != base + i)
      return 0;
  return 1;
}

// The errors that end the program, one per run: a device number out of range.
static int fatal_case(const char *name) {
  int past = nd + 1, neg = -5, huge = 1 << 30; // nd itself is the initial device
  void *d0 = omp_target_alloc(64, 0);
  int h[N] = {0};
  size_t vol[2] = {2, 2}, off[2] = {0, 0}, dims[2] = {4, 4};
  int dev;
#define CASE(n, d)                                                                                 \
  (strcmp(name, n) == 0 && (dev = (d), printf("case %s device %d\n", n, dev), 1))
  if (CASE("alloc-neg", neg))
    printf("returned %p\n", omp_target_alloc(64, dev));
  else if (CASE("free-huge", huge)) {
    omp_target_free(d0, dev);
    printf("returned\n");
  } else if (CASE("memcpy-dst-past", past))
    printf("returned %d\n", omp_target_memcpy(d0, h, 8, 0, 0, dev, init));
  else if (CASE("memcpy-src-neg", neg))
    printf("returned %d\n", omp_target_memcpy(h, d0, 8, 0, 0, init, dev));
  else if (CASE("rect-huge", huge))
    printf("returned %d\n",
           omp_target_memcpy_rect(d0, h, 4, 2, vol, off, off, dims, dims, dev, init));
  else if (CASE("memset-past", past))
    printf("returned %p\n", omp_target_memset(d0, 0, 8, dev));
  else if (CASE("associate-past", past))
    printf("returned %d\n", omp_target_associate_ptr(a, d0, 64, 0, dev));
  else if (CASE("disassociate-neg", neg))
    printf("returned %d\n", omp_target_disassociate_ptr(a, dev));
  else if (CASE("is-present-past", past))
    printf("returned %d\n", omp_target_is_present(a, dev));
  else if (CASE("is-present-neg", neg))
    printf("returned %d\n", omp_target_is_present(a, dev));
  else if (CASE("enter-data-past", past)) {
#pragma omp target enter data map(to : a) device(dev)
    printf("returned\n");
  } else if (CASE("exit-data-huge", huge)) {
#pragma omp target exit data map(from : a) device(dev)
    printf("returned\n");
  } else if (CASE("update-neg", neg)) {
#pragma omp target update to(a) device(dev)
    printf("returned\n");
  } else if (CASE("target-past", past)) {
#pragma omp target map(tofrom : a) device(dev)
    a[0]++;
    printf("returned\n");
  } else if (CASE("target-data-neg", neg)) {
#pragma omp target data map(tofrom : a) device(dev)
    printf("FAIL: entered the data region\n");
    printf("returned\n");
  } else {
    printf("FAIL: unknown case %s\n", name);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  nd = omp_get_num_devices();
  init = omp_get_initial_device();
  for (int i = 0; i < N; i++)
    a[i] = i, b[i] = 100 + i, c[i] = 200 + i;
  if (argc > 1)
    return fatal_case(argv[1]);
  check(nd > 1 && init == nd, "devices");
  // CHECK: PASS devices

  // --- omp_target_alloc of absurd sizes: NULL, and memory is still there afterwards.
  check(omp_target_alloc(SIZE_MAX, 0) == NULL, "alloc SIZE_MAX");
  // CHECK: PASS alloc SIZE_MAX
  check(omp_target_alloc((size_t)1 << 50, 1) == NULL, "alloc 1 PiB (exhausted memory)");
  // CHECK: PASS alloc 1 PiB
  check(omp_target_alloc(SIZE_MAX - 4095, nd - 1) == NULL, "alloc SIZE_MAX-4095");
  // CHECK: PASS alloc SIZE_MAX-4095
  void *d0 = omp_target_alloc(64, 0), *d1 = omp_target_alloc(64, 1);
  check(d0 && d1, "alloc 64 bytes after failed allocations");
  // CHECK: PASS alloc 64 bytes after failed allocations
  still_works("bad allocations");
  // CHECK: PASS after bad allocations: 0 mapped, 0 wrong

  // --- omp_target_free(NULL) does nothing, whatever the device number.
  int bad_devs[] = {nd + 1, -5, 1 << 30, nd, 0};
  for (int k = 0; k < 5; k++)
    omp_target_free(NULL, bad_devs[k]);
  check(1, "omp_target_free(NULL) on any device number");
  // CHECK: PASS omp_target_free(NULL) on any device number

  // --- omp_target_memcpy with NULL pointers: -1 (0 when there is nothing to copy).
  check(omp_target_memcpy(NULL, a, 8, 0, 0, 0, init) == -1, "memcpy to NULL");
  check(omp_target_memcpy(d0, NULL, 8, 0, 0, 0, init) == -1, "memcpy from NULL");
  check(omp_target_memcpy(NULL, NULL, 8, 0, 0, 1, 0) == -1, "memcpy NULL to NULL");
  check(omp_target_memcpy(NULL, NULL, 0, 0, 0, 0, init) == 0, "memcpy of 0 bytes");
  // CHECK: PASS memcpy to NULL
  // CHECK: PASS memcpy from NULL
  // CHECK: PASS memcpy NULL to NULL
  // CHECK: PASS memcpy of 0 bytes
  // A valid copy round trip still works.
  int back[N] = {0};
  check(omp_target_memcpy(d0, a, 64, 0, 0, 0, init) == 0 &&
            omp_target_memcpy(d1, d0, 64, 0, 0, 1, 0) == 0 &&
            omp_target_memcpy(back, d1, 64, 0, 0, init, 1) == 0 && same(back, 0),
        "memcpy round trip host -> 0 -> 1 -> host");
  // CHECK: PASS memcpy round trip

  // --- omp_target_memcpy_rect: NULL/NULL asks for the number of dimensions supported; bad
  // dimension counts and NULL arrays are -1.
  size_t vol[2] = {2, 2}, off[2] = {0, 0}, dims[2] = {4, 4};
  check(omp_target_memcpy_rect(NULL, NULL, 0, 0, NULL, NULL, NULL, NULL, NULL, 0, init) > 0,
        "memcpy_rect query");
  // CHECK: PASS memcpy_rect query
  check(omp_target_memcpy_rect(d0, a, 4, 0, vol, off, off, dims, dims, 0, init) == -1,
        "memcpy_rect with 0 dimensions");
  check(omp_target_memcpy_rect(d0, a, 4, -1, vol, off, off, dims, dims, 0, init) == -1,
        "memcpy_rect with -1 dimensions");
  check(omp_target_memcpy_rect(d0, a, 4, 2, NULL, off, off, dims, dims, 0, init) == -1,
        "memcpy_rect without volume");
  check(omp_target_memcpy_rect(d0, a, 4, 2, vol, off, off, NULL, dims, 0, init) == -1,
        "memcpy_rect without dst dimensions");
  check(omp_target_memcpy_rect(d0, NULL, 4, 2, vol, off, off, dims, dims, 0, init) == -1,
        "memcpy_rect from NULL");
  // CHECK: PASS memcpy_rect with 0 dimensions
  // CHECK: PASS memcpy_rect with -1 dimensions
  // CHECK: PASS memcpy_rect without volume
  // CHECK: PASS memcpy_rect without dst dimensions
  // CHECK: PASS memcpy_rect from NULL
  for (int i = 0; i < N; i++)
    back[i] = -1;
  check(omp_target_memcpy_rect(back, d0, 4, 2, vol, off, off, dims, dims, init, 0) == 0 &&
            back[0] == 0 && back[1] == 1 && back[4] == 4 && back[5] == 5 && back[2] == -1,
        "memcpy_rect 2x2 of a 4x4 block");
  // CHECK: PASS memcpy_rect 2x2
  still_works("bad copies");
  // CHECK: PASS after bad copies: 0 mapped, 0 wrong

  // --- omp_target_associate_ptr / disassociate misuse.
  check(omp_target_associate_ptr(NULL, d0, 64, 0, 0) != 0, "associate NULL host pointer");
  check(omp_target_associate_ptr(a, NULL, 64, 0, 0) != 0, "associate NULL device pointer");
  check(omp_target_associate_ptr(a, d0, 64, 0, init) != 0, "associate on the initial device");
  check(omp_target_disassociate_ptr(a, 0) != 0, "disassociate what is not associated");
  check(omp_target_disassociate_ptr(a, init) != 0, "disassociate on the initial device");
  // CHECK: PASS associate NULL host pointer
  // CHECK: PASS associate NULL device pointer
  // CHECK: PASS associate on the initial device
  // CHECK: PASS disassociate what is not associated
  // CHECK: PASS disassociate on the initial device
  check(omp_target_associate_ptr(a, d0, 64, 0, 0) == 0 && omp_target_is_present(a, 0),
        "associate");
  check(omp_target_associate_ptr(a, d0, 64, 0, 0) == 0, "associate the same pair again");
  check(omp_target_associate_ptr(a, (char *)d0 + 8, 64, 0, 0) != 0,
        "associate another device address to the same host address");
  check(omp_target_associate_ptr(a, d1, 64, 0, 0) != 0,
        "associate with a device pointer of another device");
  // CHECK: PASS associate
  // CHECK: PASS associate the same pair again
  // CHECK: PASS associate another device address
  // CHECK: PASS associate with a device pointer of another device
  check(omp_target_disassociate_ptr(a, 1) != 0, "disassociate on another device");
  // CHECK: PASS disassociate on another device
  check(omp_target_disassociate_ptr(a, 0) == 0 && !omp_target_is_present(a, 0), "disassociate");
  check(omp_target_disassociate_ptr(a, 0) != 0, "disassociate twice");
  // CHECK: PASS disassociate
  // CHECK: PASS disassociate twice
#pragma omp target enter data map(to : b) device(2)
  check(omp_target_disassociate_ptr(b, 2) != 0 && omp_target_is_present(b, 2),
        "disassociate data mapped by a construct");
  // CHECK: PASS disassociate data mapped by a construct
#pragma omp target exit data map(release : b) device(2)
  still_works("associate misuse");
  // CHECK: PASS after associate misuse: 0 mapped, 0 wrong

  // --- omp_target_is_present / omp_get_mapped_ptr on odd arguments.
  check(omp_target_is_present(NULL, 0) == 0, "is_present(NULL)");
  check(omp_target_is_present(a, init) != 0, "is_present on the initial device");
  check(omp_get_mapped_ptr(a, nd + 1) == NULL && omp_get_mapped_ptr(a, 1 << 30) == NULL,
        "omp_get_mapped_ptr beyond the last device is NULL");
  check(omp_get_mapped_ptr(a, init) == a, "omp_get_mapped_ptr on the initial device");
  check(omp_get_mapped_ptr(a, 0) == NULL, "omp_get_mapped_ptr of unmapped data");
  // CHECK: PASS is_present(NULL)
  // CHECK: PASS is_present on the initial device
  // CHECK: PASS omp_get_mapped_ptr beyond
  // CHECK: PASS omp_get_mapped_ptr on the initial device
  // CHECK: PASS omp_get_mapped_ptr of unmapped data

  // --- constructs on data that is not mapped: no effect, host data untouched.
#pragma omp target exit data map(from : a) device(0)
  check(same(a, 0) && !omp_target_is_present(a, 0), "exit data from unmapped data");
#pragma omp target exit data map(delete : a[2:4]) device(1)
  check(same(a, 0) && !omp_target_is_present(a, 1), "exit data delete of unmapped data");
#pragma omp target update from(a) device(2)
  check(same(a, 0) && !omp_target_is_present(a, 2), "update from unmapped data");
#pragma omp target update to(a[1:3]) device(3)
  check(same(a, 0) && !omp_target_is_present(a, 3), "update to unmapped data");
  // CHECK: PASS exit data from unmapped data
  // CHECK: PASS exit data delete of unmapped data
  // CHECK: PASS update from unmapped data
  // CHECK: PASS update to unmapped data
  // A section that extends beyond what is mapped is not present: nothing happens to the mapping.
#pragma omp target enter data map(to : c[0:4]) device(1)
#pragma omp target exit data map(delete : c[0:8]) device(1)
  check(omp_target_is_present(c, 1) && same(c, 200), "exit data of a larger section");
#pragma omp target exit data map(release : c[0:4]) device(1)
  check(!omp_target_is_present(c, 1), "exit data of the mapped section");
  // CHECK: PASS exit data of a larger section
  // CHECK: PASS exit data of the mapped section
  // device(-1) (omp_initial_device) runs on the host.
  int host = -1;
#pragma omp target map(tofrom : b) device(host)
  for (int i = 0; i < N; i++)
    b[i] += 1;
  check(same(b, 101) && !omp_target_is_present(b, 0), "target device(omp_initial_device)");
  // CHECK: PASS target device(omp_initial_device)
  still_works("constructs on unmapped data");
  // CHECK: PASS after constructs on unmapped data: 0 mapped, 0 wrong

  omp_target_free(d0, 0);
  omp_target_free(d1, 1);
  printf("done\n");
  // CHECK: done
  return 0;
}
