#pragma omp target spread
