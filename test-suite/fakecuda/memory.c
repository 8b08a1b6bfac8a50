// Memory on fake GPUs: omp_target_alloc and omp_target_memcpy host -> GPU 0 -> GPU 1 (peer
// copy) -> host, is_device_ptr; llvm_omp_target_alloc_shared (managed) and _host (mapped
// page-locked); a memory space of 2 GPUs and the host, managed (the default) and coherent, used
// by both GPUs and the host without copies; out-of-memory on a GPU is a clear error.
//
// REQUIRES: spread, nvptx-toolchain, fakecuda
// RUN: %spread-cc -O1 --offload-arch=sm_90 %s -o %t
// RUN: %extract-x86 %t --image=file=%t.so,triple=x86_64-unknown-linux-gnu
// RUN: rm -f %t.log
// RUN: %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_LOG=%t.log FAKECUDA_MEMORY_MB=64 SPREAD_DEVICES=cuda %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --implicit-check-not=fakecuda:
// RUN: FileCheck --check-prefix=LOG %s < %t.log
// (A failed mandatory offload aborts, as with stock libomptarget: `not --crash`.)
// RUN: not --crash %fakecuda-run FAKECUDA_HOST_IMAGE=%t.so FAKECUDA_MEMORY_MB=64 SPREAD_DEVICES=cuda %t oom 2>&1 | FileCheck --check-prefix=OOM %s
//
// CHECK: target_alloc and peer memcpy: OK
// CHECK: alloc_shared: OK
// CHECK: alloc_host: OK
// CHECK: memory accounting: OK
// CHECK: devices_and_host managed: OK
// CHECK: devices_and_host coherent: OK
// CHECK: devices_and_host pinned granted: OK
// CHECK: too big for omp_target_alloc: OK
// LOG: peer 0 -> 1 4000
// OOM: mapping 100 MiB
// OOM: CUDA_ERROR_OUT_OF_MEMORY
// OOM-NOT: Segmentation

#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1000

void *llvm_omp_target_alloc_shared(size_t, int);
void *llvm_omp_target_alloc_host(size_t, int);

static int check(const char *what, int ok) {
  printf("%s: %s\n", what, ok ? "OK" : "FAIL");
  return !ok;
}

/* Both GPUs and the host use x directly: device 0 the first half, device 1 the second. */
static int use_space(omp_allocator_handle_t al) {
  double *x = omp_alloc(N * sizeof(double), al);
  if (!x)
    return 0;
  for (int i = 0; i < N; i++)
    x[i] = i;
  for (int d = 0; d < 2; d++) {
    int lo = d * N / 2, hi = (d + 1) * N / 2;
#pragma omp target teams distribute parallel for device(d) is_device_ptr(x)
    for (int i = lo; i < hi; i++)
      x[i] = 2 * x[i] + d;
  }
  int ok = 1;
  for (int i = 0; i < N; i++)
    ok &= x[i] == 2.0 * i + (i >= N / 2);
  omp_free(x, al);
  return ok;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IONBF, 0);
  int fails = 0, host = omp_get_initial_device();
  if (omp_get_num_devices() < 2) {
    printf("FAIL: %d devices\n", omp_get_num_devices());
    return 1;
  }
  if (argc > 1 && !strcmp(argv[1], "oom")) {
    size_t n = (size_t)100 << 20;
    char *big = malloc(n);
    memset(big, 1, n);
    fprintf(stderr, "mapping 100 MiB\n");
#pragma omp target map(to : big[0 : n])
    big[0] = 2;
    printf("FAIL: mapped 100 MiB on a 64 MiB GPU\n");
    return 0;
  }

  int h[N], back[N];
  for (int i = 0; i < N; i++)
    h[i] = 3 * i;
  int *d0 = omp_target_alloc(sizeof h, 0), *d1 = omp_target_alloc(sizeof h, 1);
  int ok = d0 && d1;
  ok &= !omp_target_memcpy(d0, h, sizeof h, 0, 0, 0, host);
  ok &= !omp_target_memcpy(d1, d0, sizeof h, 0, 0, 1, 0);
#pragma omp target teams distribute parallel for device(1) is_device_ptr(d1)
  for (int i = 0; i < N; i++)
    d1[i] += 1;
  ok &= !omp_target_memcpy(back, d1, sizeof h, 0, 0, host, 1);
  for (int i = 0; i < N; i++)
    ok &= back[i] == 3 * i + 1;
  omp_target_free(d0, 0);
  omp_target_free(d1, 1);
  fails += check("target_alloc and peer memcpy", ok);

  int *s = llvm_omp_target_alloc_shared(sizeof h, 0);
  ok = s != NULL;
  for (int i = 0; ok && i < N; i++)
    s[i] = i;
#pragma omp target teams distribute parallel for device(0) is_device_ptr(s)
  for (int i = 0; i < N; i++)
    s[i] *= 5;
  for (int i = 0; ok && i < N; i++)
    ok &= s[i] == 5 * i;
  omp_target_free(s, 0);
  fails += check("alloc_shared", ok);

  int *p = llvm_omp_target_alloc_host(sizeof h, 1);
  ok = p != NULL;
  for (int i = 0; ok && i < N; i++)
    p[i] = i;
#pragma omp target teams distribute parallel for device(1) is_device_ptr(p)
  for (int i = 0; i < N; i++)
    p[i] += 7;
  for (int i = 0; ok && i < N; i++)
    ok &= p[i] == i + 7;
  omp_target_free(p, 1);
  fails += check("alloc_host", ok);

  /* The fake GPU has 64 MiB: a second 40 MiB block fits only after the first is freed. */
  void *m1 = omp_target_alloc(40 << 20, 0), *m2 = omp_target_alloc(40 << 20, 0);
  ok = m1 && !m2;
  omp_target_free(m1, 0);
  m2 = omp_target_alloc(40 << 20, 0);
  ok &= m2 != NULL;
  omp_target_free(m2, 0);
  fails += check("memory accounting", ok);

  int gpus[2] = {0, 1};
  /* Seed 001: one allocation the host and both GPUs use as it is, managed (the default with
   * GPUs) and coherent (mapped page-locked host memory), with the alignment asked for: the
   * driver's blocks need not be aligned as much (the fake's are malloc's, 16 bytes). */
  omp_memspace_handle_t sp = omp_get_devices_and_host_memspace(2, gpus, omp_default_mem_space);
  omp_alloctrait_t managed[] = {{omp_atk_alignment, 4096}};
  fails += check("devices_and_host managed", use_space(omp_init_allocator(sp, 1, managed)));
  omp_alloctrait_t coherent[] = {{omp_atk_memory_access, omp_atv_coherent},
                                 {omp_atk_alignment, 256}};
  fails += check("devices_and_host coherent", use_space(omp_init_allocator(sp, 2, coherent)));
  /* `pinned` without an access model: page-locked memory (coherent), not the managed default,
   * whose pages migrate (an H200 run found it granted managed memory, not pinned). */
  omp_alloctrait_t pinned[] = {{omp_atk_pinned, omp_atv_true}, {omp_atk_fallback, omp_atv_null_fb}};
  omp_allocator_handle_t pal = omp_init_allocator(sp, 2, pinned);
  double *pp = pal == omp_null_allocator ? NULL : omp_alloc(64, pal);
  omp_alloctrait_t got[16];
  int ngot = pp ? spread_get_alloc_traits(pp, got, 16) : 0;
  ok = 0;
  for (int i = 0; i < ngot; i++)
    ok |= got[i].key == omp_atk_pinned && got[i].value == omp_atv_true;
  if (pp)
    omp_free(pp, pal);
  fails += check("devices_and_host pinned granted", ok && use_space(pal));

  void *too_big = omp_target_alloc((size_t)100 << 20, 1);
  fails += check("too big for omp_target_alloc", too_big == NULL);
  fflush(stdout);
  return fails != 0;
}
