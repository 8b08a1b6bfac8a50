// Kernels for spread-auto-window.c. Their arguments, in clang-19's capture order (the order of
// the launch's TARGET_PARAM entries), are listed for the harness, which checks that each
// descriptor names only the buffers it passes.

// stencil: n, y, x
void stencil(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 1; i < n - 1; i++)
    y[i] = x[i - 1] + x[i] + x[i + 1];
}

// reverse: n, y, x
void reverse(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    y[n - 1 - i] = x[i];
}

// window: lo, hi, y, x (an unsigned IV, stride 3, simd)
void window(int lo, int hi, const float *x, float *y) {
#pragma omp target teams distribute parallel for simd map(to : x[lo:hi - lo]) map(tofrom : y[lo:hi - lo])
  for (int i = lo; i < hi; i += 3)
    y[i] = 2.0f * x[i];
}

// collapse2: n, m, a (a 64-bit IV; dist_schedule: the teams loop does not test the last slot)
void collapse2(int n, int m, double *a) {
#pragma omp target teams distribute parallel for collapse(2) dist_schedule(static, 7) map(tofrom : a[0:n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] += i + 0.5 * j;
}

// nested: n, y, x (target + teams distribute parallel for, a long IV)
void nested(long n, const float *x, float *y) {
#pragma omp target map(to : x[0:n]) map(tofrom : y[0:n])
#pragma omp teams distribute parallel for num_teams(2)
  for (long i = 0; i < n; i++)
    y[i] = x[i] + 1;
}

// gather: n, y, x, idx (x is read whole)
void gather(int n, const int *idx, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : idx[0:n], x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[idx[i]] + 1;
}

// constant: y (a constant trip count: no slot for the last iteration to clamp)
void constant(float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0:1000])
  for (int i = 0; i < 1000; i++)
    y[i] = y[i] * 2 + i;
}
