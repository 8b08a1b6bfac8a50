// A `target spread` added inside a one-device `target data` (the natural first
// edit of an iterative solver): the pointers the kernel uses are mapped on
// device 0 only. A chunk on another device would get the host address and
// compute on the host's copy (silently wrong on host devices, a fault on a GPU):
// it is an error naming the construct, the chunk, the variable (with -g; the
// argument otherwise), its device and the mapping that holds it. Sections that
// the chunks map themselves while device 0 holds the data are legal but
// incoherent once device 0's copy changes: a warning, once. A plain `target`
// region on a device without the data keeps OpenMP's meaning with a warning.
//
// REQUIRES: spread
// RUN: %spread-cc -g -O1 %s -o %t
// RUN: not --crash %t pointers 2>&1 | FileCheck %s --check-prefix=PTR
// RUN: not --crash %preload-run %t pointers 2>&1 | FileCheck %s --check-prefix=PTR
// RUN: %t sections 2>&1 | FileCheck %s --check-prefix=SEC
// RUN: %t plain 2>&1 | FileCheck %s --check-prefix=PLAIN
// The chunks of a `target spread nowait` are target tasks; they are told apart
// by the region's token in their depend items and checked the same way:
// RUN: not --crash %t nowait-pointers 2>&1 | FileCheck %s --check-prefix=NWPTR
// RUN: %t nowait-sections 2>&1 | FileCheck %s --check-prefix=NWSEC
// spread-cc records line tables (and so the names) unless the command chooses:
// RUN: %spread-cc -O1 %s -o %t.default
// RUN: not --crash %t.default pointers 2>&1 | FileCheck %s --check-prefix=PTR
// RUN: %spread-cc -g0 -O1 %s -o %t.nog
// RUN: not --crash %t.nog pointers 2>&1 | FileCheck %s --check-prefix=NOG
//
// PTR: omptarget message: 'g' is not mapped on device 1, but device 0 maps it as 'g[0:{{.*}}]' (declared at {{.*}}chunk_data_elsewhere.c:{{[0-9]+}}:{{[0-9]+}}): the chunk would get its host address. Map the data on every device of the construct: `target data spread`
// PTR: omptarget error: in target spread {{.*}}chunk_data_elsewhere.c:[[#SPREAD:]] chunk [16,32) on device 1
// PTR: chunk_data_elsewhere.c:[[#SPREAD]]: omptarget fatal error 1
// PTR-NOT: PASS
//
// SEC-COUNT-1: spread: warning: target spread {{.*}}chunk_data_elsewhere.c:{{[0-9]+}} chunk [16,32) on device 1: 'f[{{.*}}]' is mapped on device 0 as 'f[0:{{.*}}]' (declared at {{.*}}) and copied anew from the host to device 1: the two devices hold separate copies
// SEC-NOT: warning
// SEC: sections: PASS
//
// PLAIN: spread: warning: target region at {{.*}}chunk_data_elsewhere.c:{{[0-9]+}}:{{[0-9]+}} on device 2: 'f' is not mapped on device 2 but device 0 maps it
// PLAIN-NOT: warning
// PLAIN: plain: PASS
//
// NWPTR: omptarget message: 'g' is not mapped on device {{[123]}}, but device 0 maps it
// NWPTR: omptarget error: in a nowait chunk of target spread {{.*}}chunk_data_elsewhere.c:[[#NWSPREAD:]] on device {{[123]}}
// NWPTR-NOT: PASS
//
// NWSEC-COUNT-1: spread: warning: a nowait chunk of target spread {{.*}}chunk_data_elsewhere.c:{{[0-9]+}} on device {{[123]}}: 'f[{{.*}}]' is mapped on device 0
// NWSEC-NOT: warning
// NWSEC: nowait-sections: PASS
//
// NOG: omptarget message: argument {{[0-9]}} (compile with -g for variable names) is not mapped on device 1, but device 0 maps it as {{[0-9]+}} bytes at host 0x{{[0-9a-f]+}}:
// NOG: omptarget error: in target spread {{.*}}chunk_data_elsewhere.c:{{[0-9]+}} chunk [16,32) on device 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 64

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "pointers";
  double *f = malloc(sizeof(double) * N * N), *g = malloc(sizeof(double) * N * N);
  for (int i = 0; i < N * N; i++) {
    f[i] = i % 7;
    g[i] = 0;
  }
  if (!strcmp(mode, "pointers")) {
#pragma omp target data map(to : f[0 : N * N]) map(tofrom : g[0 : N * N])
    {
#pragma omp target spread teams distribute parallel for collapse(2) devices(0, 1, 2, 3)
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          g[i * N + j] = 2 * f[i * N + j];
    }
    printf("pointers: unexpected PASS\n");
    return 0;
  }
  if (!strcmp(mode, "nowait-pointers")) {
#pragma omp target data map(to : f[0 : N * N]) map(tofrom : g[0 : N * N])
#pragma omp parallel
#pragma omp single
    {
#pragma omp target spread teams distribute parallel for devices(0, 1, 2, 3) nowait
      for (int i = 0; i < N; i++)
        g[i] = 2 * f[i];
#pragma omp taskwait
    }
    printf("nowait-pointers: unexpected PASS\n");
    return 0;
  }
  if (!strcmp(mode, "nowait-sections")) {
#pragma omp target data map(to : f[0 : N * N])
#pragma omp parallel
#pragma omp single
    for (int step = 0; step < 3; step++) {
#pragma omp target spread teams distribute parallel for devices(0, 1, 2, 3)    \
    nowait map(to : f[omp_spread_start * N : omp_spread_size * N])             \
    map(from : g[omp_spread_start * N : omp_spread_size * N])
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          g[i * N + j] = 2 * f[i * N + j] + step;
#pragma omp taskwait
    }
    int bad = 0;
    for (int i = 0; i < N * N; i++)
      bad += g[i] != 2 * f[i] + 2;
    printf("nowait-sections: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
  }
  if (!strcmp(mode, "sections")) {
#pragma omp target data map(to : f[0 : N * N])
    for (int step = 0; step < 3; step++) {
#pragma omp target spread teams distribute parallel for devices(0, 1, 2, 3)    \
    map(to : f[omp_spread_start * N : omp_spread_size * N])                    \
    map(from : g[omp_spread_start * N : omp_spread_size * N])
      for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
          g[i * N + j] = 2 * f[i * N + j] + step;
    }
    int bad = 0;
    for (int i = 0; i < N * N; i++)
      bad += g[i] != 2 * f[i] + 2;
    printf("sections: %s\n", bad ? "FAIL" : "PASS");
    return bad != 0;
  }
  // plain: a one-device region on a device without the data; host devices
  // reach the host's copy, so the result is OpenMP's.
#pragma omp target data map(to : f[0 : N * N]) device(0)
  for (int step = 0; step < 2; step++) {
#pragma omp target teams distribute parallel for device(2) map(tofrom : g[0 : N * N])
    for (int i = 0; i < N * N; i++)
      g[i] = f[i] + 1;
  }
  int bad = 0;
  for (int i = 0; i < N * N; i++)
    bad += g[i] != f[i] + 1;
  printf("plain: %s\n", bad ? "FAIL" : "PASS");
  return bad != 0;
}
