/* A plain OpenMP target region: nothing for spread-cc to lower. */
void scale(double *a, int n) {
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
  for (int i = 0; i < n; i++)
    a[i] *= 2;
}
