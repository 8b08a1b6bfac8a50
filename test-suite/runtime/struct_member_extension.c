// Members `i` and `j` of a struct are mapped by an enclosing `target data`;
// an inner `target` that maps member `a` together with `i` and `j` needs one
// device allocation from `a` to `j`, which would extend the existing mapping
// of `i`..`j`: libomptarget refuses it as an explicit extension, and so does
// Spread, with the same lines.
//
// (The variant where the inner `target` maps only `a` but writes `i` and `j`
// through the struct, as LLVM's own test does, is not a conforming program.
// OpenMP's map clause restrictions (4.5 2.15.5.1, kept since): "If a list item
// is an element of a structure, and a different element of the structure has a
// corresponding list item in the device data environment prior to a task
// encountering the construct associated with the map clause, then the list item
// must also have a corresponding list item in the device data environment prior
// to the task encountering the construct": `a` has none. In practice the
// kernel writes `i` and `j` past the 4-byte device copy of `a`, and the outer
// region copies back its own, untouched, copies of `i` and `j`. Stock
// libomptarget passes LLVM's test only by accident: its device allocator hands
// the outer region memory that an earlier construct of the test left holding
// 21 and 31, the very values expected. With the kernel writing 22 and 32
// instead, stock still prints 21 and 31; alone in a program, it prints
// garbage. Spread copies back its own untouched device copies of `i` and `j`
// (zeros here).)
//
// RUN: %clang-offload %s -o %t
// RUN: not --crash %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL
// RUN: not --crash %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL

#include <stdio.h>

struct T {
  int a, b, c, d, i, j;
};

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  // Members mapped by the enclosing region and written in the kernel: fine.
  struct T s = {10, 0, 0, 0, 20, 30};
#pragma omp target data map(from : s.i, s.j)
  {
#pragma omp target map(tofrom : s.i, s.j)
    {
      s.i = 21;
      s.j = 31;
    }
  }
  printf("%s i=%d j=%d\n", s.i == 21 && s.j == 31 ? "PASS" : "FAIL", s.i, s.j);
  // CHECK: PASS i=21 j=31

  struct T t = {10, 0, 0, 0, 20, 30};
#pragma omp target data map(from : t.i, t.j)
  {
#pragma omp target map(from : t.a) map(t.i, t.j)
    {
      t.a = 11;
      t.i = 21;
      t.j = 31;
    }
  }
  printf("FAIL: extension of a struct's mapping returned\n");
  return 0;
}

// CHECK: omptarget message: explicit extension not allowed: host address specified is 0x{{[0-9a-f]+}} (24 bytes), but device allocation maps to host at 0x{{[0-9a-f]+}} (8 bytes)
// CHECK-NEXT: omptarget error: Call to getTargetPointer returned null pointer (device failure or illegal mapping).
// CHECK-NEXT: omptarget error: Call to targetDataBegin failed, abort target.
// CHECK: omptarget fatal error 1: failure of target construct while offloading is mandatory
