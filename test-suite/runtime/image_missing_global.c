// An offload image whose declare-target global is missing: the load fails and
// the construct with it, and the failed load takes back what it did. Before,
// the globals found before the missing one stayed in the mapping table,
// pointing into the unloaded image (the table dump showed them).
//
// The program registers, next to its own image, a shared object built from
// this file with -DDEVICE_LIB that defines `present_global` but not
// `missing_global`.
//
// REQUIRES: spread
// RUN: %clang-plain -shared -fPIC -DDEVICE_LIB %s -o %t.so
// RUN: %clang-offload %s -o %t
// RUN: not --crash env LIBOMPTARGET_INFO=4 %libpath-run %t %t.so 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash env LIBOMPTARGET_INFO=4 %preload-run %t %t.so 2>&1 | FileCheck %s --implicit-check-not=FAIL

#ifdef DEVICE_LIB
int present_global = 42;
#else
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct entry { void *addr; char *name; size_t size; int32_t flags, data; };
struct image { void *start, *end; struct entry *eb, *ee; };
struct desc { int32_t n; struct image *images; struct entry *eb, *ee; };
void __tgt_register_lib(struct desc *);

int host_present, host_missing;

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  FILE *f = argc > 1 ? fopen(argv[1], "rb") : NULL;
  if (!f) {
    printf("FAIL: cannot open the device library\n");
    return 1;
  }
  static char bytes[1 << 20];
  size_t n = fread(bytes, 1, sizeof bytes, f);
  fclose(f);
  static struct entry entries[] = {
      {&host_present, "present_global", sizeof(int), 0, 0},
      {&host_missing, "missing_global", sizeof(int), 0, 0},
  };
  static struct image img;
  img = (struct image){bytes, bytes + n, entries, entries + 2};
  static struct desc d = {1, &img, entries, entries + 2};
  __tgt_register_lib(&d);
  printf("registered\n");
  // CHECK: registered

  int x = 0;
#pragma omp target map(tofrom : x) device(0)
  x = 1;
  printf("FAIL: construct on a device with a broken image returned (x=%d)\n", x);
  return 0;
}
// CHECK-NOT: Creating new map entry
// CHECK: omptarget error: declare target variable 'missing_global' is missing from the image on device 0
// CHECK: omptarget device 0 info: OpenMP Host-Device pointer mappings table empty
// CHECK: omptarget fatal error 1: failure of target construct while offloading is mandatory
#endif
