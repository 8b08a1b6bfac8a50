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

  // omp_target_memcpy and _rect between two devices' own memory: device to device.
  int m[6][5], r[6][5];
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 5; j++)
      m[i][j] = 10 * i + j, r[i][j] = -1;
  int *d1 = omp_target_alloc(sizeof m, 1), *d2 = omp_target_alloc(sizeof m, 2);
  int hst = omp_get_initial_device();
  size_t vol[2] = {3, 2}, src_off[2] = {1, 2}, dst_off[2] = {2, 0}, dims[2] = {6, 5};
  size_t zero[2] = {0, 0}, all[2] = {6, 5};
  ok = omp_target_memcpy(d1, m, sizeof m, 0, 0, 1, hst) == 0 &&
       omp_target_memcpy(d2, r, sizeof r, 0, 0, 2, hst) == 0 &&
       omp_target_memcpy_rect(d2, d1, sizeof(int), 2, vol, dst_off, src_off, dims, dims, 2, 1) == 0 &&
       omp_target_memcpy_rect(r, d2, sizeof(int), 2, all, zero, zero, dims, dims, hst, 2) == 0;
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 5; j++) {
      int in = i >= 2 && i < 5 && j < 2;
      ok &= r[i][j] == (in ? m[i - 1][j + 2] : -1);
    }
  printf("memcpy_rect device to device: %s\n", ok ? "OK" : "FAILED");
  // CHECK: memcpy_rect device to device: OK
  omp_target_free(d1, 1);
  omp_target_free(d2, 2);
  return 0;
}
