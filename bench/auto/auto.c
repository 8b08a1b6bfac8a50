// Automatic spreading benchmark (bench/auto/run.sh): three cases of unmodified OpenMP target
// code, each checked against the serial loop.
//   fresh     a compute-heavy loop whose arrays are mapped by the construct itself
//   resident  a Jacobi sweep over arrays kept on the device by `target data`
//   launch    a tiny kernel launched many times (the cost of the plugin's window when
//             SPREAD_AUTO is off, and of the spreading decision when it is on)
// Prints "CASE seconds" lines and "check OK".
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static double now(void) { return omp_get_wtime(); }

static void heavy(int n, const double *x, double *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++) {
    double v = y[i];
    for (int k = 0; k < 200; k++)
      v = v * 0.999 + x[i] * 1e-3;
    y[i] = v;
  }
}

static void sweep(int n, const double *a, double *b) {
#pragma omp target teams distribute parallel for map(to : a[0:n]) map(tofrom : b[0:n])
  for (int i = 1; i < n - 1; i++)
    b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1];
}

static void tiny(int n, double *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += 1.0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2000000;
  int steps = argc > 2 ? atoi(argv[2]) : 40;
  int launches = argc > 3 ? atoi(argv[3]) : 20000;
  double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
  double *a = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
  int ok = 1;
  for (int i = 0; i < n; i++) {
    x[i] = (i % 100) * 0.01;
    y[i] = a[i] = b[i] = (i % 7) * 1.0;
  }
  heavy(16, x, y); // registers and loads the image
  for (int i = 0; i < 16; i++)
    y[i] = (i % 7) * 1.0;

  double t = now();
  heavy(n, x, y);
  heavy(n, x, y);
  printf("fresh %.4f\n", now() - t);
  for (int i = 0; i < n; i += n / 97 + 1) {
    double v = (i % 7) * 1.0;
    for (int r = 0; r < 2; r++)
      for (int k = 0; k < 200; k++)
        v = v * 0.999 + x[i] * 1e-3;
    ok &= fabs(v - y[i]) <= 1e-12 * fabs(v);
  }

  t = now();
#pragma omp target data map(tofrom : a[0:n], b[0:n])
  for (int s = 0; s < steps; s++) {
    sweep(n, a, b);
    sweep(n, b, a);
  }
  printf("resident %.4f\n", now() - t);
  double *ra = malloc(sizeof(double) * n), *rb = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    ra[i] = rb[i] = (i % 7) * 1.0;
  for (int s = 0; s < steps; s++) {
    for (int i = 1; i < n - 1; i++)
      rb[i] = 0.25 * ra[i - 1] + 0.5 * ra[i] + 0.25 * ra[i + 1];
    for (int i = 1; i < n - 1; i++)
      ra[i] = 0.25 * rb[i - 1] + 0.5 * rb[i] + 0.25 * rb[i + 1];
  }
  for (int i = 0; i < n; i++)
    ok &= a[i] == ra[i] && b[i] == rb[i];

  double small[64] = {0};
  for (int r = 0; r < 1000; r++)
    tiny(64, small);
  t = now();
  for (int r = 0; r < launches; r++)
    tiny(64, small);
  printf("launch_us %.3f\n", (now() - t) / launches * 1e6);
  for (int i = 0; i < 64; i++)
    ok &= small[i] == 1000.0 + launches;
  printf("%s\n", ok ? "check OK" : "check FAILED");
  return !ok;
}
