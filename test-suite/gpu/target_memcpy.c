/* omp_target_alloc on every device and omp_target_memcpy between devices: a buffer travels
 * host -> GPU 0 -> GPU 1 -> ... -> each host device -> host, and a kernel on every device adds
 * its number + 1 to it (is_device_ptr). Run with SPREAD_DEVICES=cuda,host:1 to include a host
 * device in the chain (copies GPU <-> host device).
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 target_memcpy.c -o target_memcpy
 * Run:   SPREAD_DEVICES=cuda,host:1 ./target_memcpy
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Unvalidated: written before any GPU run.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: env SPREAD_DEVICES=cuda,host:1 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: target_memcpy

/* The same in every GPU test (test-suite/gpu), so that each file stands alone: which devices
 * are GPUs, and what a region on them reports. Spread numbers GPUs first, then host devices (runtime/src/device/registry.rs;
 * SPREAD_DEVICES=cuda,host:2 picks the kinds and their order).
 *
 * ON_GPU is 1 in code compiled for an nvptx64 image and 0 elsewhere (host, x86_64 host
 * devices), so a target region that stores ON_GPU tells which image the device ran.
 *
 * SPREAD_GPU_TEST_FAKE_GPUS=N makes the first N devices stand in for GPUs, expecting them to run
 * the x86_64 image: it checks the programs themselves on a machine without a GPU
 * (test-suite/nvptx/gpu_programs.test). */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __NVPTX__
#define ON_GPU 1
#else
#define ON_GPU 0
#endif

static int gpu_count;   /* devices 0 .. gpu_count-1 are GPUs */
static int gpu_kind = 1; /* what ON_GPU reads on a GPU: 1 (0 with SPREAD_GPU_TEST_FAKE_GPUS) */

/* ON_GPU as device d sees it. */
static int device_kind(int d) {
  int k = -1;
#pragma omp target device(d) map(from : k)
  k = ON_GPU;
  return k;
}

/* The kind device d must report. */
static int expected_kind(int d) { return d < gpu_count ? gpu_kind : 0; }

/* Finds the GPUs and checks that each device runs the image of its kind; prints why and
 * returns 0 when there are fewer than `need` GPUs or a device runs the wrong image. */
static int gpu_setup(int need) {
  int nd = omp_get_num_devices();
  const char *fake = getenv("SPREAD_GPU_TEST_FAKE_GPUS");
  if (fake && *fake) {
    gpu_kind = 0;
    gpu_count = atoi(fake) < nd ? atoi(fake) : nd;
  } else {
    gpu_count = 0;
    while (gpu_count < nd && device_kind(gpu_count) == 1)
      gpu_count++;
  }
  printf("devices: %d, GPUs: %d\n", nd, gpu_count);
  if (gpu_count < need) {
    printf("FAIL: %d GPU(s) found, the test needs %d\n", gpu_count, need);
    return 0;
  }
  for (int d = 0; d < nd; d++) {
    int k = device_kind(d);
    if (k != expected_kind(d)) {
      printf("FAIL: device %d ran %s image, expected %s\n", d, k == 1 ? "an nvptx64" : "an x86_64",
             expected_kind(d) ? "nvptx64" : "x86_64");
      return 0;
    }
  }
  return 1;
}


#define N (1 << 18)

int main(void) {
  if (!gpu_setup(1))
    return 1;
  int nd = omp_get_num_devices(), host = omp_get_initial_device(), wrong = 0;
  long *h = malloc(N * sizeof *h);
  long **buf = calloc(nd, sizeof *buf);
  for (int i = 0; i < N; i++)
    h[i] = i;
  for (int d = 0; d < nd; d++) {
    buf[d] = omp_target_alloc(N * sizeof(long), d);
    if (!buf[d]) {
      printf("FAIL: omp_target_alloc on device %d\n", d);
      return 1;
    }
  }
  long expect_add = 0;
  for (int d = 0; d < nd; d++) {
    void *src = d == 0 ? (void *)h : (void *)buf[d - 1];
    int src_dev = d == 0 ? host : d - 1;
    if (omp_target_memcpy(buf[d], src, N * sizeof(long), 0, 0, d, src_dev)) {
      printf("FAIL: omp_target_memcpy device %d -> device %d\n", src_dev, d);
      return 1;
    }
    long *p = buf[d];
    long add = d + 1;
#pragma omp target teams distribute parallel for device(d) is_device_ptr(p)
    for (int i = 0; i < N; i++)
      p[i] += add;
    expect_add += add;
  }
  for (int i = 0; i < N; i++)
    h[i] = -1;
  if (omp_target_memcpy(h, buf[nd - 1], N * sizeof(long), 0, 0, host, nd - 1)) {
    printf("FAIL: omp_target_memcpy device %d -> host\n", nd - 1);
    return 1;
  }
  for (int i = 0; i < N; i++)
    wrong += h[i] != i + expect_add;
  for (int d = 0; d < nd; d++)
    omp_target_free(buf[d], d);
  printf("%s: target_memcpy through %d devices (%d GPUs): %d wrong values\n",
         wrong ? "FAIL" : "PASS", nd, gpu_count, wrong);
  free(h), free(buf);
  return wrong != 0;
}
