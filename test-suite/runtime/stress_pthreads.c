// Many plain pthreads offloading at once (each is an OpenMP initial thread, outside any parallel
// region: Spread owns their `nowait` constructs). 8 threads (16 with an argument) each run
// iterations of: synchronous target regions with maps; a chain of `target nowait` regions over
// several devices ordered by `depend`, a host task that depends on the chain's end, and a
// `taskwait`; unstructured enter/update/exit data with `nowait` and `depend`. Every thread also
// holds a shared read-only table mapped on every device. The results must equal a serial run,
// and nothing may stay mapped. With libomp's hidden helpers on, libomp 19 aborts such programs
// (`kmp_tasking.cpp(4368)`, `kmp_runtime.cpp(4548)`) in most runs, with stock libomptarget too.
//
// RUN: %clang-offload -O2 %s -o %t -lpthread
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %libpath-run %t 16 150 | FileCheck %s --implicit-check-not=FAIL

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 512
#define MAXT 16

static double table[N];
static double work[MAXT][N], expect[MAXT][N];
static long host_seen[MAXT], host_expect[MAXT];
static int nd, iters = 300;

static void step(double *a, const double *t, int r, int kind) {
  for (int i = 0; i < N; i++)
    a[i] = kind == 0 ? a[i] + t[i] * 0.5 + r : a[i] * 0.75 + t[(i + r) % N];
}

static void *worker(void *arg) {
  int t = (int)(long)arg;
  double *a = work[t];
  long *seen = &host_seen[t];
  for (int d = 0; d < nd; d++) {
#pragma omp target enter data map(to : table[0 : N]) device(d)
  }
  for (int r = 0; r < iters; r++) {
    int d = (t + r) % nd, e = (t + r + 1) % nd;
    switch (r % 3) {
    case 0: // synchronous regions
#pragma omp target device(d) map(tofrom : a[0 : N]) map(present, to : table[0 : N])
      for (int i = 0; i < N; i++)
        a[i] = a[i] + table[i] * 0.5 + r;
#pragma omp target device(e) map(tofrom : a[0 : N])
      for (int i = 0; i < N; i++)
        a[i] = a[i] * 0.75 + table[(i + r) % N];
      break;
    case 1: // a nowait chain over two devices, then a host task that reads its result
#pragma omp target device(d) map(tofrom : a[0 : N]) nowait depend(inout : a[0])
      for (int i = 0; i < N; i++)
        a[i] = a[i] + table[i] * 0.5 + r;
#pragma omp target device(e) map(tofrom : a[0 : N]) nowait depend(inout : a[0])
      for (int i = 0; i < N; i++)
        a[i] = a[i] * 0.75 + table[(i + r) % N];
#pragma omp task depend(in : a[0]) shared(a, seen)
      *seen += (long)a[r % N];
#pragma omp taskwait
      break;
    default: { // unstructured data, nowait and depend
#pragma omp target enter data map(to : a[0 : N]) device(d) nowait depend(inout : a[0])
#pragma omp target device(d) nowait depend(inout : a[0]) map(present, alloc : a[0 : N])
      for (int i = 0; i < N; i++)
        a[i] = a[i] + table[i] * 0.5 + r;
#pragma omp target device(d) nowait depend(inout : a[0])
      for (int i = 0; i < N; i++)
        a[i] = a[i] * 0.75 + table[(i + r) % N];
#pragma omp target exit data map(from : a[0 : N]) device(d) nowait depend(inout : a[0])
#pragma omp taskwait
      break;
    }
    }
  }
  for (int d = 0; d < nd; d++) {
#pragma omp target exit data map(release : table[0 : N]) device(d)
  }
  return NULL;
}

int main(int argc, char **argv) {
  int nthreads = argc > 1 ? atoi(argv[1]) : 8;
  if (argc > 2)
    iters = atoi(argv[2]);
  nd = omp_get_num_devices();
  if (nthreads < 1 || nthreads > MAXT || nd < 1 || iters < 1) {
    printf("FAIL: bad set-up (%d threads, %d devices)\n", nthreads, nd);
    return 1;
  }
  for (int i = 0; i < N; i++)
    table[i] = (i % 17) * 0.25;
  for (int t = 0; t < nthreads; t++) {
    for (int i = 0; i < N; i++)
      work[t][i] = expect[t][i] = t + i * 0.001;
    for (int r = 0; r < iters; r++) {
      step(expect[t], table, r, 0);
      step(expect[t], table, r, 1);
      if (r % 3 == 1)
        host_expect[t] += (long)expect[t][r % N];
    }
  }
  pthread_t th[MAXT];
  for (int t = 0; t < nthreads; t++)
    if (pthread_create(&th[t], NULL, worker, (void *)(long)t) != 0) {
      printf("FAIL: pthread_create\n");
      return 1;
    }
  for (int t = 0; t < nthreads; t++)
    pthread_join(th[t], NULL);

  int bad = 0;
  for (int t = 0; t < nthreads; t++) {
    for (int i = 0; i < N; i++)
      if (work[t][i] != expect[t][i] && bad++ < 5)
        printf("FAIL: thread %d element %d: %g, expected %g\n", t, i, work[t][i],
               expect[t][i]);
    if (host_seen[t] != host_expect[t] && bad++ < 5)
      printf("FAIL: thread %d: host tasks read %ld, expected %ld\n", t, host_seen[t],
             host_expect[t]);
  }
  for (int d = 0; d < nd; d++) {
    if (omp_target_is_present(table, d) && bad++ < 5)
      printf("FAIL: the shared table is still mapped on device %d\n", d);
    for (int t = 0; t < nthreads; t++)
      if (omp_target_is_present(work[t], d) && bad++ < 5)
        printf("FAIL: thread %d's array is still mapped on device %d\n", t, d);
  }
  printf("%d pthreads x %d iterations on %d devices: %s\n", nthreads, iters, nd,
         bad ? "FAIL" : "match serial, nothing mapped");
  return bad != 0;
}

// CHECK: pthreads x {{[0-9]+}} iterations on {{[0-9]+}} devices: match serial, nothing mapped
