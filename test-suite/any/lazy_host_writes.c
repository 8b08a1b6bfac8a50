// Lazy coherence: after an instance without nowait the host may write the instance's inputs
// (OpenMP's copy semantics allow it), and the next instance on the same device must see the new
// values. The directory kept the device's copy of the input valid and the next instance read
// the value from before the host's write (found by scripts/any-fuzz.py: a host write after
// instances without nowait, 74 of 96 elements wrong).
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: env SPREAD_COHERENCE=lazy SPREAD_HOST_DEVICES=1 %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_COHERENCE=lazy SPREAD_HOST_DEVICES=3 %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: from main: ok
// CHECK: in single: ok

#include <stdio.h>

#define NB 4
#define BS 64
#define N (NB * BS)
static unsigned in[N], out[N];

static int round_trip(const char *what) {
  int bad = 0;
  for (int r = 0; r < 3; r++) {
    for (int i = 0; i < N; i++) in[i] = 1000u * r + i;  // the host writes the inputs
    for (int k = 0; k < NB; k++) {
      const int lo = k * BS;
      #pragma omp target device(any) map(to: in[lo:BS]) map(from: out[lo:BS]) \
          if_device(cpu) teams distribute parallel for
        for (int i = lo; i < lo + BS; i++) out[i] = 2u * in[i] + 1u;
    }
    for (int i = 0; i < N; i++) bad += out[i] != 2u * (1000u * r + i) + 1u;
  }
  printf("%s: %s (%d wrong)\n", what, bad ? "FAIL" : "ok", bad);
  return bad != 0;
}

int main(void) {
  int bad = round_trip("from main");
  #pragma omp parallel num_threads(2)
  #pragma omp single
  bad |= round_trip("in single");
  return bad;
}
