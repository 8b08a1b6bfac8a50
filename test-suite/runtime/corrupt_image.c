// A program that registers a corrupt offload image next to its real one: Spread
// reports the bad image (naming the cause) and keeps running the good one; it
// never crashes on it.
//
// REQUIRES: spread
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct entry { void *addr; char *name; size_t size; int32_t flags, data; };
struct image { void *start, *end; struct entry *eb, *ee; };
struct desc { int32_t n; struct image *images; struct entry *eb, *ee; };
void __tgt_register_lib(struct desc *);
void __tgt_unregister_lib(struct desc *);

int main(void) {
  // An OffloadBinary header whose image runs past the end of the blob, then
  // plain garbage.
  static unsigned char truncated[64] = {0x10, 0xff, 0x10, 0xad, 1, 0, 0, 0, 200};
  static char garbage[] = "this is not an offload image";
  struct image imgs[2] = {{truncated, truncated + sizeof truncated, 0, 0},
                          {garbage, garbage + sizeof garbage, 0, 0}};
  struct desc d = {2, imgs, 0, 0};
  __tgt_register_lib(&d);
  // CHECK: spread: warning: offload image {{[0-9]+}} of the program is unusable: image is truncated
  // CHECK: spread: warning: offload image {{[0-9]+}} of the program is unusable: image is neither an ELF object nor an LLVM OffloadBinary

  int n = 1000, sum = 0, expect = 0;
  for (int i = 0; i < n; i++)
    expect += 3 * i;
#pragma omp target map(tofrom : sum) device(1)
  for (int i = 0; i < n; i++)
    sum += 3 * i;
  printf("%s sum=%d expect=%d\n", sum == expect ? "PASS" : "FAIL", sum, expect);
  // CHECK: PASS sum=1498500 expect=1498500
  __tgt_unregister_lib(&d);
  return 0;
}
