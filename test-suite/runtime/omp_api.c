// The OpenMP device memory API: omp_target_alloc/free/memcpy/memcpy_rect/
// memset/is_present/associate_ptr/disassociate_ptr, omp_get_mapped_ptr,
// llvm_omp_target_alloc_host/shared/device and omp_target_memcpy_async.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <stdio.h>
#include <string.h>

// LLVM extensions that omp.h does not declare.
void *llvm_omp_target_alloc_host(size_t, int);
void *llvm_omp_target_alloc_shared(size_t, int);
void *llvm_omp_target_alloc_device(size_t, int);
void llvm_omp_target_free_host(void *, int);
void llvm_omp_target_free_shared(void *, int);
void llvm_omp_target_free_device(void *, int);

#define N 128
#define R 6
#define C 8

static int failures;

static void report(int ok, const char *fmt, long v1, long v2) {
  failures += !ok;
  printf("%s ", ok ? "PASS" : "FAIL");
  printf(fmt, v1, v2);
  printf("\n");
}

int main(void) {
  const int host = omp_get_initial_device();
  const int nd = omp_get_num_devices();
  report(nd == 4 && host == nd, "devices=%ld initial=%ld", nd, host);
  // CHECK: PASS devices=4 initial=4

  int h[N], back[N];
  for (int i = 0; i < N; i++)
    h[i] = 3 * i + 1;

  // alloc, memcpy host->device, kernel on device memory, device->device, ->host.
  int *d1 = omp_target_alloc(N * sizeof(int), 1);
  int *d2 = omp_target_alloc(N * sizeof(int), 2);
  report(d1 && d2 && d1 != (int *)h, "alloc nonnull=%ld distinct=%ld", d1 && d2, d1 != d2);
  // CHECK: PASS alloc nonnull=1 distinct=1
  int rc = omp_target_memcpy(d1, h, N * sizeof(int), 0, 0, 1, host);
#pragma omp target is_device_ptr(d1) device(1)
  for (int i = 0; i < N; i++)
    d1[i] *= 2;
  int rc2 = omp_target_memcpy(d2, d1, N * sizeof(int), 0, 0, 2, 1);
#pragma omp target is_device_ptr(d2) device(2)
  for (int i = 0; i < N; i++)
    d2[i] += 1;
  memset(back, 0, sizeof back);
  int rc3 = omp_target_memcpy(back, d2, N * sizeof(int), 0, 0, host, 2);
  int bad = rc || rc2 || rc3;
  long sum = 0;
  for (int i = 0; i < N; i++) {
    bad += back[i] != 2 * h[i] + 1;
    sum += back[i];
  }
  report(!bad, "memcpy host->1->2->host mismatches=%ld sum=%ld", bad, sum);
  // CHECK: PASS memcpy host->1->2->host mismatches=0 sum=49152

  // memcpy with offsets: 10 elements from h[20..] to d1[5..], back to back[50..].
  memset(back, 0, sizeof back);
  rc = omp_target_memcpy(d1, h, 10 * sizeof(int), 5 * sizeof(int), 20 * sizeof(int), 1,
                         host);
  rc2 = omp_target_memcpy(back, d1, 10 * sizeof(int), 50 * sizeof(int), 5 * sizeof(int),
                          host, 1);
  bad = rc || rc2;
  for (int i = 0; i < N; i++)
    bad += back[i] != (i >= 50 && i < 60 ? h[i - 30] : 0);
  report(!bad, "memcpy offsets mismatches=%ld back[50]=%ld", bad, back[50]);
  // CHECK: PASS memcpy offsets mismatches=0 back[50]=61

  // memset.
  void *ms = omp_target_memset(d1, 0x5A, 16 * sizeof(int), 1);
  memset(back, 0, sizeof back);
  omp_target_memcpy(back, d1, N * sizeof(int), 0, 0, host, 1);
  int pattern;
  memset(&pattern, 0x5A, sizeof pattern);
  bad = ms != d1;
  for (int i = 0; i < 16; i++)
    bad += back[i] != pattern;
  bad += back[16] != 2 * h[16];
  report(!bad, "memset mismatches=%ld back[16]=%ld", bad, back[16]);
  // CHECK: PASS memset mismatches=0 back[16]=98

  // memcpy_rect: a 3x4 block at (2,3) of a host RxC matrix to (1,1) of a
  // device RxC matrix, and the device matrix back.
  int m[R][C], mb[R][C];
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      m[i][j] = 100 * i + j;
  int *dm = omp_target_alloc(sizeof m, 3);
  omp_target_memset(dm, 0, sizeof m, 3);
  size_t vol[2] = {3, 4}, dims[2] = {R, C};
  size_t doff[2] = {1, 1}, soff[2] = {2, 3}, zero[2] = {0, 0};
  rc = omp_target_memcpy_rect(dm, m, sizeof(int), 2, vol, doff, soff, dims, dims, 3, host);
  size_t all[2] = {R, C};
  rc2 = omp_target_memcpy_rect(mb, dm, sizeof(int), 2, all, zero, zero, dims, dims, host, 3);
  bad = rc || rc2;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      int in = i >= 1 && i < 4 && j >= 1 && j < 5;
      bad += mb[i][j] != (in ? m[i + 1][j + 2] : 0);
    }
  report(!bad, "memcpy_rect mismatches=%ld mb[1][1]=%ld", bad, mb[1][1]);
  // CHECK: PASS memcpy_rect mismatches=0 mb[1][1]=203
  omp_target_free(dm, 3);

  // associate_ptr: the host array is then present on device 1 at d1, with no
  // copies on map.
  int a[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  int before = omp_target_is_present(a, 1);
  omp_target_memcpy(d1, a, N * sizeof(int), 0, 0, 1, host);
  rc = omp_target_associate_ptr(a, d1, N * sizeof(int), 0, 1);
  int after = omp_target_is_present(a, 1);
  report(!rc && before == 0 && after == 1, "associate present before=%ld after=%ld", before,
         after);
  // CHECK: PASS associate present before=0 after=1
  void *mp = omp_get_mapped_ptr(a, 1);
  void *mp2 = omp_get_mapped_ptr(&a[10], 1);
  report(mp == d1 && mp2 == d1 + 10, "get_mapped_ptr base=%ld offset=%ld", mp == d1,
         mp2 == d1 + 10);
  // CHECK: PASS get_mapped_ptr base=1 offset=1
  report(omp_get_mapped_ptr(a, 2) == NULL && omp_get_mapped_ptr(a, host) == a,
         "get_mapped_ptr other=%ld host=%ld", omp_get_mapped_ptr(a, 2) == NULL,
         omp_get_mapped_ptr(a, host) == a);
  // CHECK: PASS get_mapped_ptr other=1 host=1
#pragma omp target map(tofrom : a[0:N]) device(1)
  for (int i = 0; i < N; i++)
    a[i] += 1000;
  omp_target_memcpy(back, d1, N * sizeof(int), 0, 0, host, 1);
  bad = 0;
  for (int i = 0; i < N; i++)
    bad += a[i] != i || back[i] != i + 1000;
  report(!bad, "associated map: host untouched, device memory updated, mismatches=%ld "
               "back[1]=%ld", bad, back[1]);
  // CHECK: PASS associated map: host untouched, device memory updated, mismatches=0 back[1]=1001
  rc = omp_target_disassociate_ptr(a, 1);
  report(!rc && !omp_target_is_present(a, 1), "disassociate rc=%ld present=%ld", rc,
         omp_target_is_present(a, 1));
  // CHECK: PASS disassociate rc=0 present=0

  // is_present for an unmapped address and for the host device.
  report(omp_target_is_present(h, host) == 1 && omp_target_is_present(h, 2) == 0,
         "is_present host=%ld unmapped=%ld", omp_target_is_present(h, host),
         omp_target_is_present(h, 2));
  // CHECK: PASS is_present host=1 unmapped=0

  // LLVM's host / shared / device allocators.
  for (int d = 0; d < 2; d++) {
    int *ph = llvm_omp_target_alloc_host(N * sizeof(int), d);
    int *ps = llvm_omp_target_alloc_shared(N * sizeof(int), d);
    int *pd = llvm_omp_target_alloc_device(N * sizeof(int), d);
    for (int i = 0; i < N; i++)
      ph[i] = ps[i] = i;
    omp_target_memcpy(pd, h, N * sizeof(int), 0, 0, d, host);
#pragma omp target is_device_ptr(ph, ps, pd) device(d)
    for (int i = 0; i < N; i++) {
      ph[i] += 10;
      ps[i] += pd[i];
      pd[i] = -pd[i];
    }
    omp_target_memcpy(back, pd, N * sizeof(int), 0, 0, host, d);
    bad = 0;
    for (int i = 0; i < N; i++)
      bad += ph[i] != i + 10 || ps[i] != i + h[i] || back[i] != -h[i];
    report(!bad, "llvm_omp_target_alloc_host/shared/device device %ld mismatches=%ld", d,
           bad);
    llvm_omp_target_free_host(ph, d);
    llvm_omp_target_free_shared(ps, d);
    llvm_omp_target_free_device(pd, d);
  }
  // CHECK: PASS llvm_omp_target_alloc_host/shared/device device 0 mismatches=0
  // CHECK: PASS llvm_omp_target_alloc_host/shared/device device 1 mismatches=0

  // omp_target_memcpy_async + taskwait: host -> device 3 -> device 0 -> host.
  int *d3 = omp_target_alloc(N * sizeof(int), 3);
  int *d0 = omp_target_alloc(N * sizeof(int), 0);
  memset(back, 0, sizeof back);
  rc = omp_target_memcpy_async(d3, h, N * sizeof(int), 0, 0, 3, host, 0, NULL);
#pragma omp taskwait
  rc2 = omp_target_memcpy_async(d0, d3, N * sizeof(int), 0, 0, 0, 3, 0, NULL);
#pragma omp taskwait
  rc3 = omp_target_memcpy_async(back, d0, N * sizeof(int), 0, 0, host, 0, 0, NULL);
#pragma omp taskwait
  bad = rc || rc2 || rc3;
  for (int i = 0; i < N; i++)
    bad += back[i] != h[i];
  report(!bad, "memcpy_async mismatches=%ld back[127]=%ld", bad, back[N - 1]);
  // CHECK: PASS memcpy_async mismatches=0 back[127]=382

  omp_target_free(d0, 0);
  omp_target_free(d1, 1);
  omp_target_free(d2, 2);
  omp_target_free(d3, 3);
  omp_target_free(NULL, 1); // a no-op
  printf("failures=%d\n", failures);
  // CHECK: failures=0
  return failures != 0;
}
