// Host-device kernels are called through a few fixed arities (8, 32 and 128 integer
// parameters, dyn_ptr included; sys/call.rs): a kernel of each size computes a weighted sum of
// its scalar parameters, checked against the same sum on the host, so that a parameter dropped,
// shifted or read from the wrong register shows as a wrong value.
//
// RUN: %clang-offload -O2 %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: arity 8 ok
// CHECK: arity 32 ok
// CHECK: arity 128 ok
#include <stdio.h>

static int check(const char *what, long got, long want) {
  if (got != want) {
    printf("FAIL %s: %ld, expected %ld\n", what, got, want);
    return 1;
  }
  return 0;
}

int main(void) {
  int bad = 0;
  for (int round = 0; round < 3; round++) {
    long base = 1000 * round + 7;
    long r = 0;
    long b0 = base, b1 = base + 1, b2 = base + 2;
    // dyn_ptr, r, 3 scalars: 5 parameters.
#pragma omp target map(tofrom: r) firstprivate(b0, b1, b2)
    r = b0 * 1 + b1 * 2 + b2 * 3;
    bad |= check("arity 8", r, b0 * 1 + b1 * 2 + b2 * 3);
    long c[20];
    for (int i = 0; i < 20; i++)
      c[i] = base * (i + 3) - i;
    long c0 = c[0], c1 = c[1], c2 = c[2], c3 = c[3], c4 = c[4], c5 = c[5], c6 = c[6], c7 = c[7],
         c8 = c[8], c9 = c[9], c10 = c[10], c11 = c[11], c12 = c[12], c13 = c[13], c14 = c[14],
         c15 = c[15], c16 = c[16], c17 = c[17], c18 = c[18], c19 = c[19];
    long want = 0;
    for (int i = 0; i < 20; i++)
      want += c[i] * (i + 1);
    // dyn_ptr, r, 20 scalars: 22 parameters.
#pragma omp target map(tofrom: r) firstprivate(c0, c1, c2, c3, c4, c5, c6, c7, c8, c9, c10, c11, \
                                               c12, c13, c14, c15, c16, c17, c18, c19)
    r = c0 * 1 + c1 * 2 + c2 * 3 + c3 * 4 + c4 * 5 + c5 * 6 + c6 * 7 + c7 * 8 + c8 * 9 +
        c9 * 10 + c10 * 11 + c11 * 12 + c12 * 13 + c13 * 14 + c14 * 15 + c15 * 16 + c16 * 17 +
        c17 * 18 + c18 * 19 + c19 * 20;
    bad |= check("arity 32", r, want);
  long a0 = base + 0 * (round + 1);
  long a1 = base + 1 * (round + 1);
  long a2 = base + 2 * (round + 1);
  long a3 = base + 3 * (round + 1);
  long a4 = base + 4 * (round + 1);
  long a5 = base + 5 * (round + 1);
  long a6 = base + 6 * (round + 1);
  long a7 = base + 7 * (round + 1);
  long a8 = base + 8 * (round + 1);
  long a9 = base + 9 * (round + 1);
  long a10 = base + 10 * (round + 1);
  long a11 = base + 11 * (round + 1);
  long a12 = base + 12 * (round + 1);
  long a13 = base + 13 * (round + 1);
  long a14 = base + 14 * (round + 1);
  long a15 = base + 15 * (round + 1);
  long a16 = base + 16 * (round + 1);
  long a17 = base + 17 * (round + 1);
  long a18 = base + 18 * (round + 1);
  long a19 = base + 19 * (round + 1);
  long a20 = base + 20 * (round + 1);
  long a21 = base + 21 * (round + 1);
  long a22 = base + 22 * (round + 1);
  long a23 = base + 23 * (round + 1);
  long a24 = base + 24 * (round + 1);
  long a25 = base + 25 * (round + 1);
  long a26 = base + 26 * (round + 1);
  long a27 = base + 27 * (round + 1);
  long a28 = base + 28 * (round + 1);
  long a29 = base + 29 * (round + 1);
  long a30 = base + 30 * (round + 1);
  long a31 = base + 31 * (round + 1);
  long a32 = base + 32 * (round + 1);
  long a33 = base + 33 * (round + 1);
  long a34 = base + 34 * (round + 1);
  long a35 = base + 35 * (round + 1);
  long a36 = base + 36 * (round + 1);
  long a37 = base + 37 * (round + 1);
  long a38 = base + 38 * (round + 1);
  long a39 = base + 39 * (round + 1);
    // dyn_ptr, r, 40 scalars: 42 parameters.
#pragma omp target map(tofrom: r) firstprivate(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24, a25, a26, a27, a28, a29, a30, a31, a32, a33, a34, a35, a36, a37, a38, a39)
    r = a0 * 1 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5 + a5 * 6 + a6 * 7 + a7 * 8 + a8 * 9 + a9 * 10 + a10 * 11 + a11 * 12 + a12 * 13 + a13 * 14 + a14 * 15 + a15 * 16 + a16 * 17 + a17 * 18 + a18 * 19 + a19 * 20 + a20 * 21 + a21 * 22 + a22 * 23 + a23 * 24 + a24 * 25 + a25 * 26 + a26 * 27 + a27 * 28 + a28 * 29 + a29 * 30 + a30 * 31 + a31 * 32 + a32 * 33 + a33 * 34 + a34 * 35 + a35 * 36 + a36 * 37 + a37 * 38 + a38 * 39 + a39 * 40;
    bad |= check("arity 128", r, a0 * 1 + a1 * 2 + a2 * 3 + a3 * 4 + a4 * 5 + a5 * 6 + a6 * 7 + a7 * 8 + a8 * 9 + a9 * 10 + a10 * 11 + a11 * 12 + a12 * 13 + a13 * 14 + a14 * 15 + a15 * 16 + a16 * 17 + a17 * 18 + a18 * 19 + a19 * 20 + a20 * 21 + a21 * 22 + a22 * 23 + a23 * 24 + a24 * 25 + a25 * 26 + a26 * 27 + a27 * 28 + a28 * 29 + a29 * 30 + a30 * 31 + a31 * 32 + a32 * 33 + a33 * 34 + a34 * 35 + a35 * 36 + a36 * 37 + a37 * 38 + a38 * 39 + a39 * 40);
  }
  if (!bad)
    printf("arity 8 ok\narity 32 ok\narity 128 ok\n");
  return bad;
}
