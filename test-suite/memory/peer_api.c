// spread_update_peer copies mapped data from one device's memory to another's,
// after the work queued on both devices; spread_device_wait waits for one
// device's queue. Each device holds its own copy of a block; a ring of peer
// copies passes the blocks on, checked against the same ring on the host.
// Unmapped data and bad devices are errors that name the cause.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t
// RUN: %t 2>&1 | FileCheck %s --implicit-check-not=FAILED
// RUN: env LIBOMPTARGET_INFO=0x20 %t 2>&1 | FileCheck %s --check-prefix=MOVES

#include <omp.h>
#include <spread.h>
#include <stdio.h>

#define N 4096
#define D 4

static double blk[D][N];

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0); // messages (stderr) and results in program order
  double ref[D][N];
  for (int d = 0; d < D; d++)
    for (int i = 0; i < N; i++)
      blk[d][i] = ref[d][i] = d * N + i;
  for (int d = 0; d < D; d++) {
    double *b = blk[d];
#pragma omp target enter data map(to : b[0 : N]) device(d)
  }
  printf("mapped\n");
  // MOVES: mapped
  for (int round = 0; round < 3; round++) {
    // Every device scales its block (queued, nowait); the copies wait for that work.
#pragma omp parallel for num_threads(D)
    for (int d = 0; d < D; d++) {
      double *b = blk[d];
#pragma omp target teams distribute parallel for device(d) nowait
      for (int i = 0; i < N; i++)
        b[i] = b[i] * 0.5 + d;
#pragma omp taskwait
    }
    for (int d = 0; d < D; d++)
      for (int i = 0; i < N; i++)
        ref[d][i] = ref[d][i] * 0.5 + d;
    // Device d receives the first half of device (d+1)'s block into its own second half.
    for (int d = 0; d < D; d++) {
      int e = (d + 1) % D;
      if (spread_update_peer(&blk[d][N / 2], d, &blk[e][0], e, N / 2 * sizeof(double)))
        printf("update peer: FAILED\n");
    }
    for (int d = 0; d < D; d++)
      spread_device_wait(d);
    double next[D][N / 2];
    for (int d = 0; d < D; d++)
      for (int i = 0; i < N / 2; i++)
        next[d][i] = ref[(d + 1) % D][i];
    for (int d = 0; d < D; d++)
      for (int i = 0; i < N / 2; i++)
        ref[d][N / 2 + i] = next[d][i];
  }
  // MOVES-NOT: Copying data
  // MOVES: done
  printf("done\n");
  int ok = 1;
  for (int d = 0; d < D; d++) {
    double *b = blk[d];
#pragma omp target exit data map(from : b[0 : N]) device(d)
    for (int i = 0; i < N; i++)
      ok &= b[i] == ref[d][i];
  }
  printf("ring of peer copies: %s\n", ok ? "OK" : "FAILED");
  // CHECK: ring of peer copies: OK

  // The host is a valid side: the initial device's data is the host's own.
  double h[8] = {0};
  double *b0 = blk[0];
#pragma omp target enter data map(to : b0[0 : N]) device(0)
  ok = spread_update_peer(h, omp_get_initial_device(), b0, 0, sizeof h) == 0 && h[7] == blk[0][7];
  printf("to the host: %s\n", ok ? "OK" : "FAILED");
  // CHECK: to the host: OK

  double loose[8];
  printf("unmapped: %d\n", spread_update_peer(loose, 1, b0, 0, sizeof loose));
  // CHECK: spread: spread_update_peer: the destination data at host address 0x{{[0-9a-f]+}} (64 bytes) is not mapped on device 1
  // CHECK-NEXT: unmapped: 1
  printf("partly mapped: %d\n", spread_update_peer(b0 + N - 4, 0, b0, 0, 8 * sizeof(double)));
  // CHECK: spread: spread_update_peer: the destination data at host address 0x{{[0-9a-f]+}} (64 bytes) is not mapped on device 0
  printf("bad device: %d %d\n", spread_update_peer(b0, 7, b0, 0, 8), spread_device_wait(7));
  // CHECK: spread: spread_update_peer: {{.*}}7
  // CHECK: spread: spread_device_wait: {{.*}}7
  // CHECK: bad device: 1 1
#pragma omp target exit data map(release : b0[0 : N]) device(0)
  return 0;
}
