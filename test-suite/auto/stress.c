// Concurrent automatic spreading: plain pthreads and OpenMP threads at once, each
// launching the same spreadable kernels many times on arrays of its own (fresh
// maps, and resident data under target data), so that blocks of different
// threads meet on every device and contend for the kernels' windows. Every
// thread checks its results against the serial loop.
//
// REQUIRES: spread
// RUN: %clang-offload -O2 -fpass-plugin=%spread-pass %s -lpthread -o %t
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=64 %libpath-run %t 4 40 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_AUTO=1 SPREAD_AUTO_MIN=64 SPREAD_HOST_DEVICES=3 SPREAD_SCHEDULE=dynamic,256 %preload-run %t 3 30 | FileCheck %s --implicit-check-not=FAIL
// RUN: %stock-run %t 2 10 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 4099

static int rounds;

static void axpy(int n, double a, const double *x, double *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

static void smooth(int n, const double *a, double *b) {
#pragma omp target teams distribute parallel for map(to : a[0:n]) map(tofrom : b[0:n])
  for (int i = 1; i < n - 1; i++)
    b[i] = (a[i - 1] + 2 * a[i] + a[i + 1]) * 0.25;
}

// One worker's share: returns the number of wrong elements.
static int work(int id) {
  double *x = malloc(sizeof(double) * N), *y = malloc(sizeof(double) * N);
  double *a = malloc(sizeof(double) * N), *b = malloc(sizeof(double) * N);
  double *ry = malloc(sizeof(double) * N), *ra = malloc(sizeof(double) * N);
  double *rb = malloc(sizeof(double) * N);
  for (int i = 0; i < N; i++) {
    x[i] = (i + id) % 11;
    y[i] = ry[i] = (i * id) % 5;
    a[i] = b[i] = ra[i] = rb[i] = (i + 3 * id) % 9;
  }
  for (int r = 0; r < rounds; r++) {
    axpy(N, 0.5, x, y);
    for (int i = 0; i < N; i++)
      ry[i] = 0.5 * x[i] + ry[i];
  }
#pragma omp target data map(tofrom : a[0:N], b[0:N])
  for (int r = 0; r < rounds; r++) {
    smooth(N, a, b);
    smooth(N, b, a);
  }
  for (int r = 0; r < rounds; r++) {
    for (int i = 1; i < N - 1; i++)
      rb[i] = (ra[i - 1] + 2 * ra[i] + ra[i + 1]) * 0.25;
    for (int i = 1; i < N - 1; i++)
      ra[i] = (rb[i - 1] + 2 * rb[i] + rb[i + 1]) * 0.25;
  }
  int bad = 0;
  for (int i = 0; i < N; i++)
    bad += (y[i] != ry[i]) + (a[i] != ra[i]) + (b[i] != rb[i]);
  free(x), free(y), free(a), free(b), free(ry), free(ra), free(rb);
  return bad;
}

static void *pthread_worker(void *arg) {
  int id = (int)(long)arg;
  long bad = work(100 + id);
  return (void *)bad;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 4;
  rounds = argc > 2 ? atoi(argv[2]) : 20;
  pthread_t tid[16];
  for (int t = 0; t < threads; t++)
    pthread_create(&tid[t], NULL, pthread_worker, (void *)(long)t);
  int bad_omp = 0;
#pragma omp parallel num_threads(threads) reduction(+ : bad_omp)
  bad_omp += work(omp_get_thread_num());
  long bad_p = 0;
  for (int t = 0; t < threads; t++) {
    void *r;
    pthread_join(tid[t], &r);
    bad_p += (long)r;
  }
  if (bad_omp || bad_p)
    printf("FAIL: %d wrong elements in OpenMP threads, %ld in pthreads\n", bad_omp, bad_p);
  printf("%d pthreads and %d OpenMP threads: %s\n", threads, threads,
         bad_omp || bad_p ? "FAIL" : "ok");
  return bad_omp || bad_p;
}

// CHECK: pthreads and {{[0-9]+}} OpenMP threads: ok
