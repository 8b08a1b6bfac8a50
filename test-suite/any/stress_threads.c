// Many threads creating `target device(any) nowait` instances at once, with host and device
// versions: plain pthreads (each runs its tasks at once, outside any parallel region, so device
// arms run as owned `target nowait` constructs and host arms on the host share) and the threads
// of an OpenMP parallel region (a task team: instances run on the team's threads). Every thread
// updates its own slice ROUNDS times (instances of one round write disjoint blocks; a taskwait
// ends each round), and every slice is compared with the serial result.
//
// REQUIRES: spread
// RUN: %spread-cc -O1 %s -o %t -lpthread
// RUN: env SPREAD_HOST_DEVICES=2 %t pthreads 8 20 | FileCheck %s --check-prefix=PT --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 SPREAD_COHERENCE=lazy %t pthreads 4 20 | FileCheck %s --check-prefix=PT --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 OMP_NUM_THREADS=8 %t openmp 8 20 | FileCheck %s --check-prefix=OMP --implicit-check-not=FAIL
// PT: pthreads: OK
// OMP: openmp: OK

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCKS 4
#define BS 1024
#define SLICE (BLOCKS * BS)
#define MAXT 16

static double data[MAXT * SLICE];
static int rounds = 20;

// One thread's rounds over its slice: each block becomes 2x + 1 per round.
static void work(int t) {
  double *a = data + (long)t * SLICE;
  for (int r = 0; r < rounds; r++) {
    for (int b = 0; b < BLOCKS; b++) {
#pragma omp target device(any) map(tofrom : a[b * BS : BS]) nowait
#pragma omp if_device(host) parallel for
#pragma omp if_device(cpu) teams distribute parallel for
      for (int i = b * BS; i < (b + 1) * BS; i++)
        a[i] = 2 * a[i] + 1;
    }
#pragma omp taskwait
  }
}

static void *thread_main(void *arg) {
  work((int)(long)arg);
  return NULL;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "pthreads";
  int nt = argc > 2 ? atoi(argv[2]) : 8;
  rounds = argc > 3 ? atoi(argv[3]) : 20;
  if (nt < 1 || nt > MAXT)
    return 2;
  for (long i = 0; i < (long)nt * SLICE; i++)
    data[i] = (double)(i % 97);
  if (strcmp(mode, "pthreads") == 0) {
    pthread_t th[MAXT];
    for (long t = 0; t < nt; t++)
      pthread_create(&th[t], NULL, thread_main, (void *)t);
    for (int t = 0; t < nt; t++)
      pthread_join(th[t], NULL);
  } else {
#pragma omp parallel num_threads(nt)
    work(omp_get_thread_num());
  }
  long bad = 0;
  for (long i = 0; i < (long)nt * SLICE; i++) {
    double want = (double)(i % 97);
    for (int r = 0; r < rounds; r++)
      want = 2 * want + 1;
    bad += data[i] != want;
  }
  printf("%s: %s (%ld wrong of %ld)\n", mode, bad ? "FAIL" : "OK", bad, (long)nt * SLICE);
  return bad != 0;
}
