/* target nowait with depend from several host threads at once: each thread runs a chain of
 * dependent regions (enter data, three kernels, exit data, all nowait) on a GPU (threads share
 * the GPUs round-robin) and waits with taskwait.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 nowait_threads.c -o nowait_threads
 * Run:   ./nowait_threads
 * Exit status 0 only when every device result equals the serial reference computed here; one
 * PASS or FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 *
 * Also checks that Spread ran the nowait regions without a device worker thread: the issuing
 * thread enqueues them on a GPU stream and libomp's task polls them (runtime/src/runtime/
 * launch.rs), so no thread named spread-dev* (a device queue's worker) exists at the end
 * (not checked when host devices stand in for the GPUs).
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: nowait_threads
// CHECK: {{^}}PASS: 0 device worker threads

#include "gpu_test.h"
#include <dirent.h>
#include <string.h>

/* Threads of this process whose name starts with `prefix`. */
static int threads_named(const char *prefix) {
  DIR *d = opendir("/proc/self/task");
  if (!d)
    return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    char path[300], name[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (!f)
      continue;
    if (fgets(name, sizeof name, f) && strncmp(name, prefix, strlen(prefix)) == 0)
      n++;
    fclose(f);
  }
  closedir(d);
  return n;
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
  /* Host devices standing in for GPUs (SPREAD_GPU_TEST_FAKE_GPUS without SPREAD_DEVICES=cuda...,
   * which the fake CUDA driver's tests set) do use their queues' workers. */
  const char *kinds = getenv("SPREAD_DEVICES"), *fake = getenv("SPREAD_GPU_TEST_FAKE_GPUS");
  if (fake && *fake && !(kinds && strncmp(kinds, "cuda", 4) == 0)) {
    printf("note: device worker threads not checked: the devices are host devices\n");
    return bad != 0;
  }
  int workers = threads_named("spread-dev");
  printf("%s: %d device worker threads\n", workers == 0 ? "PASS" : "FAIL", workers);
  return bad != 0 || workers != 0;
}
