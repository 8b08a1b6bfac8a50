// omp_target_alloc on two remote devices, omp_target_memcpy host -> device 1 -> device 2 -> host
// (the device-to-device copy goes worker to worker), a kernel on device 1 in between.
#include <omp.h>
#include <stdio.h>
#include <string.h>
#define N 100000
int main(void) {
  static double a[N], b[N];
  for (int i = 0; i < N; i++) a[i] = i * 0.5;
  int h = omp_get_initial_device();
  double *d1 = omp_target_alloc(N * sizeof(double), 1);
  double *d2 = omp_target_alloc(N * sizeof(double), 2);
  if (!d1 || !d2) { printf("alloc failed\n"); return 1; }
  omp_target_memcpy(d1, a, N * sizeof(double), 0, 0, 1, h);
#pragma omp target teams distribute parallel for device(1) is_device_ptr(d1)
  for (int i = 0; i < N; i++) d1[i] *= 2;
  omp_target_memcpy(d2, d1, N * sizeof(double), 0, 0, 2, 1);
  omp_target_memcpy(b, d2, N * sizeof(double), 0, 0, h, 2);
  int bad = 0;
  for (int i = 0; i < N; i++) bad += b[i] != i * 1.0;
  omp_target_free(d1, 1); omp_target_free(d2, 2);
  printf("%s: %d bad, %d devices\n", bad ? "FAILED" : "verified", bad, omp_get_num_devices());
  return bad != 0;
}
