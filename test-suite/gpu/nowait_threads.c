/* target nowait with depend from several host threads at once: each thread runs a chain of
 * dependent regions (enter data, three kernels, exit data, all nowait) on a GPU (threads share
 * the GPUs round-robin) and waits with taskwait.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 nowait_threads.c -o nowait_threads
 * Run:   ./nowait_threads
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Unvalidated: written before any GPU run.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: nowait_threads

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


#define T 8
#define N 200000

int main(void) {
  if (!gpu_setup(1))
    return 1;
  static double x[T][N];
  int bad = 0;
#pragma omp parallel num_threads(T) reduction(+ : bad)
  {
    int t = omp_get_thread_num(), g = t % gpu_count;
    double *v = x[t];
    for (int i = 0; i < N; i++)
      v[i] = i + t;
#pragma omp target enter data device(g) map(to : v[0:N]) nowait depend(out : v[0])
#pragma omp target teams distribute parallel for device(g) nowait depend(inout : v[0])
    for (int i = 0; i < N; i++)
      v[i] *= 2;
#pragma omp target teams distribute parallel for device(g) nowait depend(inout : v[0])
    for (int i = 0; i < N; i++)
      v[i] += 1;
#pragma omp target teams distribute parallel for device(g) nowait depend(inout : v[0])
    for (int i = 0; i < N; i++)
      v[i] *= 3;
#pragma omp target exit data device(g) map(from : v[0:N]) nowait depend(inout : v[0])
#pragma omp taskwait
    int wrong = 0;
    for (int i = 0; i < N; i++)
      wrong += v[i] != 3.0 * (2.0 * (i + t) + 1);
    if (wrong)
      printf("FAIL thread %d on device %d: %d wrong values\n", t, g, wrong);
    bad += wrong != 0;
  }
  printf("%s: nowait_threads, %d threads on %d GPU(s)\n", bad ? "FAIL" : "PASS", T, gpu_count);
  return bad != 0;
}
