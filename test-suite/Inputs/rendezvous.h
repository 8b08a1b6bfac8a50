/* A rendezvous of concurrently running target regions, for tests that check overlap: each
 * region announces itself on `counter` and waits (at most 5 s) until `want` regions have; it
 * returns 1 when all were seen at once, 0 when they ran one after the other. Included by tests
 * on every device kind (the functions are declare target). */
#ifndef SPREAD_TEST_RENDEZVOUS_H
#define SPREAD_TEST_RENDEZVOUS_H

#include <time.h>
#include <unistd.h>

#pragma omp declare target
static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

// Announces one region and waits for `want` of them; 1 when all were seen.
static int meet(int *counter, int want) {
  __atomic_add_fetch(counter, 1, __ATOMIC_ACQ_REL);
  double t0 = now();
  while (__atomic_load_n(counter, __ATOMIC_ACQUIRE) < want && now() - t0 < 5.0)
    usleep(100);
  return __atomic_load_n(counter, __ATOMIC_ACQUIRE) >= want;
}
#pragma omp end declare target

#endif
