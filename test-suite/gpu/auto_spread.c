/* Automatic spreading (SPREAD_AUTO) of unmodified loops over GPUs and host devices: a saxpy
 * that records which image ran each iteration, a stencil with halos, and a Jacobi sweep over
 * data kept by target data. Both images of the fat binary carry the pass plugin's descriptors
 * (the runtime refuses kernels whose images disagree); on Spread the iterations must run on both
 * kinds of device, and every result equals the serial loop. The program sets SPREAD_AUTO=1 and
 * SPREAD_AUTO_MIN=1024 for itself (re-executing) when they are not set.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 auto_spread.c -o auto_spread
 * Run:   ./auto_spread
 * Exit status 0 only when every result equals the serial reference computed here; one PASS or
 * FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: auto_spread

#define _GNU_SOURCE
#include "gpu_test.h"
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#define N 200003

static float x[N], y[N], want[N];
static int kind[N];
static double a[N], b[N], ra[N], rb[N];

static void saxpy(int n) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])          \
    map(from : kind[0:n])
  for (int i = 0; i < n; i++) {
    y[i] = 2.0f * x[i] + y[i];
    kind[i] = ON_GPU;
  }
}

static void stencil(int n) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 1; i < n - 1; i++)
    y[i] = x[i - 1] + 2 * x[i] + x[i + 1];
}

static void sweep(int n, const double *p, double *q) {
#pragma omp target teams distribute parallel for map(to : p[0:n]) map(tofrom : q[0:n])
  for (int i = 1; i < n - 1; i++)
    q[i] = 0.25 * p[i - 1] + 0.5 * p[i] + 0.25 * p[i + 1];
}

int main(int argc, char **argv) {
  (void)argc;
  if (!getenv("SPREAD_AUTO")) {
    setenv("SPREAD_AUTO", "1", 1);
    if (!getenv("SPREAD_AUTO_MIN"))
      setenv("SPREAD_AUTO_MIN", "1024", 1);
    execv("/proc/self/exe", argv);
    printf("FAIL: cannot re-execute with SPREAD_AUTO=1\n");
    return 1;
  }
  if (!gpu_setup(1))
    return 1;
  int spread_rt = dlsym(RTLD_DEFAULT, "__spread_region_begin") != NULL;
  int bad = 0;

  for (int i = 0; i < N; i++)
    x[i] = (float)(i % 97), y[i] = want[i] = (float)(i % 13), kind[i] = -1;
  saxpy(N);
  int wrong = 0, on_gpu = 0, on_host = 0;
  for (int i = 0; i < N; i++) {
    want[i] = 2.0f * x[i] + want[i];
    wrong += y[i] != want[i];
    on_gpu += kind[i] == gpu_kind && gpu_kind == 1;
    on_host += kind[i] == 0;
  }
  int mixed = !spread_rt || (on_gpu > 0 && on_host > 0) || gpu_kind == 0;
  printf("%s saxpy: %d wrong values, %d iterations on GPUs, %d on host devices\n",
         wrong || !mixed ? "FAIL" : "PASS", wrong, on_gpu, on_host);
  bad += wrong || !mixed;

  for (int i = 0; i < N; i++)
    y[i] = want[i] = (float)(i % 13);
  stencil(N);
  wrong = 0;
  for (int i = 1; i < N - 1; i++)
    want[i] = x[i - 1] + 2 * x[i] + x[i + 1];
  for (int i = 0; i < N; i++)
    wrong += y[i] != want[i];
  printf("%s stencil: %d wrong values\n", wrong ? "FAIL" : "PASS", wrong);
  bad += wrong != 0;

  for (int i = 0; i < N; i++)
    a[i] = b[i] = ra[i] = rb[i] = (double)((i * 37) % 101);
#pragma omp target data map(tofrom : a[0:N], b[0:N])
  for (int s = 0; s < 10; s++) {
    sweep(N, a, b);
    sweep(N, b, a);
  }
  for (int s = 0; s < 10; s++) {
    for (int i = 1; i < N - 1; i++)
      rb[i] = 0.25 * ra[i - 1] + 0.5 * ra[i] + 0.25 * ra[i + 1];
    for (int i = 1; i < N - 1; i++)
      ra[i] = 0.25 * rb[i - 1] + 0.5 * rb[i] + 0.25 * rb[i + 1];
  }
  wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += a[i] != ra[i] || b[i] != rb[i];
  printf("%s resident sweep: %d wrong values\n", wrong ? "FAIL" : "PASS", wrong);
  bad += wrong != 0;

  printf("%s: auto_spread on %d GPU(s)\n", bad ? "FAIL" : "PASS", gpu_count);
  return bad != 0;
}
