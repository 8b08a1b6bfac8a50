// An OpenMP offload program that also calls MPI itself.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int x = 0;
#pragma omp target map(tofrom : x)
  x = 42;
  printf("offloaded: %d\n", x);
  MPI_Finalize();
  return 0;
}
