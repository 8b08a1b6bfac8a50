// A kernel that crashes on the last device (a worker rank's, in cluster mode).
#include <omp.h>
#include <stdio.h>

int main(void) {
  int d = omp_get_num_devices() - 1;
  printf("crashing device %d\n", d);
  fflush(stdout);
#pragma omp target device(d)
  {
    volatile int *volatile p = 0;
    *p = 1;
  }
  printf("not reached\n");
  return 0;
}
