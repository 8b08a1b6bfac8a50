// No target region at all (so no offload images are registered): only the device memory API on
// a remote device. The worker ranks must still serve rather than run main themselves.
#include <omp.h>
#include <stdio.h>
#define N 4096
int main(void) {
  static double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  int h = omp_get_initial_device(), d = omp_get_num_devices() - 1;
  double *p = omp_target_alloc(sizeof a, d);
  int bad = !p || omp_target_memcpy(p, a, sizeof a, 0, 0, d, h) ||
            omp_target_memcpy(b, p, sizeof a, 0, 0, h, d);
  for (int i = 0; i < N; i++)
    bad += b[i] != a[i];
  omp_target_free(p, d);
  printf("main ran once: %s on device %d of %d\n", bad ? "FAILED" : "verified", d,
         omp_get_num_devices());
  return bad != 0;
}
