#pragma omp wait device(0)
int x;
