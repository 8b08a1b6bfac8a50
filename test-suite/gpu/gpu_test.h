#ifndef SPREAD_GPU_TEST_H
#define SPREAD_GPU_TEST_H

/* Shared by every GPU test (test-suite/gpu): which devices
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

#endif
