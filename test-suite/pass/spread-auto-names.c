// spread-auto's refusals name what the user wrote: with debug info (-g) the variable the kernel
// accesses ('out' (arg1)), and the line of the access wherever clang keeps line tables (it does
// for -Rpass remarks even without -g); without -g the parameter's number (arg1) (issue 44,
// "messages a user can act on").
//
// RUN: %clang-plain -O2 -g -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass -Rpass-missed=spread-auto -c %s -o %t.g.o 2>&1 | FileCheck %s --check-prefix=G
// RUN: %clang-plain -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass -Rpass-missed=spread-auto -c %s -o %t.o 2>&1 | FileCheck %s --check-prefix=NOG

void scatter(int n, const int *idx, float *out) {
#pragma omp target teams distribute parallel for map(to : idx[0 : n]) map(tofrom : out[0 : n])
  for (int i = 0; i < n; i++)
    out[idx[i]] = i; // G: runs on one device: a non-affine write to 'out' (arg1) (line [[@LINE]])
  // NOG: runs on one device: a non-affine write to arg1 (line [[@LINE-1]])
}

void rows(int n, int m, float *grid) {
#pragma omp target teams distribute parallel for map(tofrom : grid[0 : n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; grid[i * m + j] >= 0; j++)
      grid[i * m + j] = i + j; // G: a write to 'grid' (arg1) in a loop nested in the parallel loop whose range the pass cannot bound (line [[@LINE]])
  // NOG: a write to arg1 in a loop nested in the parallel loop whose range the pass cannot bound (line [[@LINE-1]])
}

void permute(int n, const int *p, float *x) {
#pragma omp target teams distribute parallel for map(to : p[0 : n]) map(tofrom : x[0 : n])
  for (int i = 0; i < n; i++)
    x[i] = x[p[i]] + 1; // G: a non-affine read of 'x' (arg1), which is also written
  // NOG: a non-affine read of arg1, which is also written
}
