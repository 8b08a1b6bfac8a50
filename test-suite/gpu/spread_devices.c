/* target spread over every device (no devices clause: all GPUs, then the host devices), and over
 * GPUs and host devices mixed in one devices() list. Each iteration records which image ran it
 * (ON_GPU): every chunk must run on the device the schedule gives it (round-robin over the list,
 * chunks of C iterations), and the results equal the serial stencil.
 * Run with SPREAD_DEVICES=cuda,host:2 (GPUs first, then two host devices).
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 spread_devices.c -o spread_devices
 * Run:   SPREAD_DEVICES=cuda,host:2 ./spread_devices
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Unvalidated: written before any GPU run.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: env SPREAD_DEVICES=cuda,host:2 %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: spread_devices

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


#define N 100000
#define C 5000

static double A[N], B[N];
static int kind[N];

static int check(const char *what, const int *list, int len) {
  int wrong = 0, wrong_kind = 0;
  for (int i = 1; i < N - 1; i++) {
    wrong += B[i] != A[i - 1] + A[i] + A[i + 1];
    int dev = list[((i - 1) / C) % len];
    wrong_kind += kind[i] != expected_kind(dev);
  }
  printf("%s %s: %d wrong values, %d iterations on the wrong kind of device\n",
         wrong || wrong_kind ? "FAIL" : "PASS", what, wrong, wrong_kind);
  return wrong || wrong_kind;
}

static void reset(void) {
  for (int i = 0; i < N; i++)
    A[i] = i % 17, B[i] = -1, kind[i] = -1;
}

int main(void) {
  if (!gpu_setup(1))
    return 1;
  int nd = omp_get_num_devices(), bad = 0;
  int all[64];
  for (int d = 0; d < nd && d < 64; d++)
    all[d] = d;

  reset();
#pragma omp target spread teams distribute parallel for spread_schedule(static, C)            \
    map(to : A[omp_spread_start - 1 : omp_spread_size + 2])                                    \
    map(from : B[omp_spread_start : omp_spread_size], kind[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++) {
    B[i] = A[i - 1] + A[i] + A[i + 1];
    kind[i] = ON_GPU;
  }
  bad += check("all devices", all, nd);

  if (nd - gpu_count < 2) {
    printf("FAIL: need 2 host devices after the GPUs (SPREAD_DEVICES=cuda,host:2), have %d\n",
           nd - gpu_count);
    return 1;
  }
  /* the last GPU, the first host device, the first GPU, the second host device */
  int g0 = 0, g1 = gpu_count - 1, h0 = gpu_count, h1 = gpu_count + 1;
  const int mixed[4] = {g1, h0, g0, h1};
  reset();
#pragma omp target spread teams distribute parallel for devices(g1, h0, g0, h1)             \
    spread_schedule(static, C) map(to : A[omp_spread_start - 1 : omp_spread_size + 2])         \
    map(from : B[omp_spread_start : omp_spread_size], kind[omp_spread_start : omp_spread_size])
  for (int i = 1; i < N - 1; i++) {
    B[i] = A[i - 1] + A[i] + A[i + 1];
    kind[i] = ON_GPU;
  }
  bad += check("GPUs and host devices", mixed, 4);
  printf("%s: spread_devices over %d GPU(s) and %d host devices\n", bad ? "FAIL" : "PASS",
         gpu_count, nd - gpu_count);
  return bad != 0;
}
