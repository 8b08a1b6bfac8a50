// Spread constructs from many threads at once: 8 OpenMP threads, then 8 plain pthreads (16 of
// each with an argument), each running iterations of a static `target spread` loop, a dynamic one,
// `target enter data spread`, a `target spread ... nowait depend` pipeline with `taskwait`, and
// `target exit data spread`, over every device, on arrays of its own; the host reads what the last
// `nowait` construct copied back right after the `taskwait`. Results equal a serial run and
// nothing stays mapped. With libomp's hidden helpers on, such programs crashed
// (`kmp_csupport.cpp(539)`) or hung in every run.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t -lpthread
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %t 16 40 | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_NOWAIT=libomp %t | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N 2048
#define C 256
#define MAXT 16

static double A[MAXT][N], B[MAXT][N], RA[MAXT][N], RB[MAXT][N];
static double Csum[MAXT], RCsum[MAXT];
static double Cbuf[MAXT][N];
static int iters = 60;

static void work(int t) {
  double *a = A[t], *b = B[t], *c = Cbuf[t];
  for (int r = 0; r < iters; r++) {
#pragma omp target spread teams distribute parallel for spread_schedule(static, C) \
    map(tofrom : a[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      a[i] += r;
#pragma omp target spread teams distribute parallel for spread_schedule(dynamic, C) \
    map(tofrom : a[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      a[i] *= 0.5;
#pragma omp target enter data spread range(0 : N) chunk_size(C)                   \
    map(to : a[omp_spread_start : omp_spread_size])                              \
    map(alloc : b[omp_spread_start : omp_spread_size])
#pragma omp target spread teams distribute parallel for spread_schedule(static, C) nowait \
    map(present, alloc : a[omp_spread_start : omp_spread_size],                  \
        b[omp_spread_start : omp_spread_size])                                   \
    depend(out : b[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++)
      b[i] = 2 * a[i] + t;
#pragma omp target spread teams distribute parallel for spread_schedule(static, C) nowait \
    map(present, alloc : b[omp_spread_start : omp_spread_size])                  \
    map(from : c[omp_spread_start : omp_spread_size])                            \
    depend(inout : b[omp_spread_start : omp_spread_size])
    for (int i = 0; i < N; i++) {
      if (i % C == 0)
        usleep(100); // so that a construct reported complete too early shows
      b[i] = b[i] * 3;
      c[i] = b[i] + 1;
    }
#pragma omp taskwait
    // The host reads what the last nowait construct brought back.
    for (int i = 0; i < N; i++)
      Csum[t] += c[i];
#pragma omp target exit data spread range(0 : N) chunk_size(C)                    \
    map(from : b[omp_spread_start : omp_spread_size])                            \
    map(release : a[omp_spread_start : omp_spread_size])
  }
}

static void *pthread_work(void *arg) {
  work((int)(long)arg);
  return NULL;
}

static int check(int nthreads, const char *who) {
  int bad = 0, leaked = 0;
  for (int t = 0; t < nthreads; t++) {
    for (int i = 0; i < N; i++)
      if ((A[t][i] != RA[t][i] || B[t][i] != RB[t][i]) && bad++ < 5)
        printf("FAIL %s: thread %d element %d: %g %g, expected %g %g\n", who, t, i, A[t][i],
               B[t][i], RA[t][i], RB[t][i]);
    if (Csum[t] != RCsum[t] && bad++ < 5)
      printf("FAIL %s: thread %d read %g on the host after taskwait, expected %g\n", who, t,
             Csum[t], RCsum[t]);
  }
  for (int d = 0; d < omp_get_num_devices(); d++)
    for (int t = 0; t < nthreads; t++)
      leaked += omp_target_is_present(A[t], d) + omp_target_is_present(B[t], d);
  if (leaked)
    printf("FAIL %s: %d arrays still mapped\n", who, leaked);
  printf("%s: %d threads x %d iterations: %s\n", who, nthreads, iters,
         bad || leaked ? "FAIL" : "match serial");
  return !bad && !leaked;
}

static void reset(int nthreads) {
  for (int t = 0; t < nthreads; t++) {
    Csum[t] = RCsum[t] = 0;
    for (int i = 0; i < N; i++) {
      A[t][i] = RA[t][i] = t + i * 0.25;
      B[t][i] = RB[t][i] = Cbuf[t][i] = 0;
    }
    for (int r = 0; r < iters; r++)
      for (int i = 0; i < N; i++) {
        RA[t][i] = (RA[t][i] + r) * 0.5;
        RB[t][i] = (2 * RA[t][i] + t) * 3;
        RCsum[t] += RB[t][i] + 1;
      }
  }
}

int main(int argc, char **argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 8;
  if (argc > 2)
    iters = atoi(argv[2]);
  if (nthreads < 1 || nthreads > MAXT || iters < 1 || omp_get_num_devices() < 1) {
    printf("FAIL: bad set-up\n");
    return 1;
  }
  reset(nthreads);
#pragma omp parallel num_threads(nthreads)
  work(omp_get_thread_num());
  int ok = check(nthreads, "OpenMP threads");
  reset(nthreads);
  pthread_t th[MAXT];
  for (int t = 0; t < nthreads; t++)
    pthread_create(&th[t], NULL, pthread_work, (void *)(long)t);
  for (int t = 0; t < nthreads; t++)
    pthread_join(th[t], NULL);
  ok &= check(nthreads, "pthreads");
  return !ok;
}

// CHECK: OpenMP threads: {{[0-9]+}} threads x {{[0-9]+}} iterations: match serial
// CHECK: pthreads: {{[0-9]+}} threads x {{[0-9]+}} iterations: match serial
