/* devprobe: which kind of device each OpenMP device number is, seen from inside a target region.
 * Built as a fat binary (nvptx64 + x86_64 images) by scripts/gpu-pack.sh; gpu-check.sh runs it
 * on each runtime to find that runtime's first GPU (stock LLVM 19 and Spread number devices
 * differently) and to prove that a "GPU" run really executes on the GPU.
 * Output: "devices N", then "device D nvptx|host|fallback" per device ("fallback": the region
 * ran on the initial device because the device could not run it). */
#include <omp.h>
#include <stdio.h>

int main(void) {
  int n = omp_get_num_devices();
  printf("devices %d\n", n);
  for (int d = 0; d < n; ++d) {
    int kind = -1;
#pragma omp target device(d) map(from : kind)
    {
#if defined(__NVPTX__)
      kind = 1;
#else
      kind = omp_is_initial_device() ? 2 : 0;
#endif
    }
    printf("device %d %s\n", d, kind == 1 ? "nvptx" : kind == 0 ? "host" : kind == 2 ? "fallback" : "unknown");
  }
  return 0;
}
