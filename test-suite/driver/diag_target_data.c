// A 'target spread' inside a 'target data' without 'spread' (which maps on one device) that
// uses data that region maps gets a warning: on the construct's other devices the data is not
// present. The file still compiles. 'target data spread' around it, or data the construct does
// not use, gives none; -Wno-spread-target-data silences it.
// RUN: %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --implicit-check-not=warning: %s
// RUN: %spread-cc -Wno-spread-target-data -c %s -o %t.o 2>&1 | FileCheck --allow-empty --check-prefix=QUIET %s
// RUN: %spread-cc -Wno-spread-target-data -Wspread-target-data -c %s -o %t.o 2>&1 | FileCheck --check-prefix=AGAIN %s
// QUIET-NOT: warning:
// AGAIN: warning: 'f' and 'f_old' are mapped by the 'target data' at

#define N 64

double jacobi(double *f, double *f_old, int iters) {
  double error = 1.0;
  int it = 0;
#pragma omp target data map(to: f[0:N*N], f_old[0:N*N])
  while (it++ < iters && error > 1e-6) {
    error = 0.0;
// CHECK: {{^.*}}diag_target_data.c:[[@LINE+3]]:1: warning: 'f' and 'f_old' are mapped by the 'target data' at {{.*}}diag_target_data.c:[[@LINE-3]] on one device only, so the chunks of this 'target spread teams distribute parallel for' on its other devices would get host addresses; map them on every device of the construct with 'target data spread' and a 'range' that matches the chunks, or map each chunk's section in the construct's own map clauses (see docs/porting.md) [-Wspread-target-data]{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread teams distribute parallel for collapse(2) reduction(+:error) devices(0,1,2,3){{$}}
// CHECK-NEXT: {{^}}      | ^{{$}}
#pragma omp target spread teams distribute parallel for collapse(2) reduction(+:error) devices(0,1,2,3)
    for (int i = 1; i < N - 1; i++)
      for (int j = 1; j < N - 1; j++) {
        f[i * N + j] = 0.25 * (f_old[(i - 1) * N + j] + f_old[(i + 1) * N + j]);
        error += f[i * N + j] - f_old[i * N + j];
      }
  }
  return error;
}

// A 'device' clause names one device: the same.
void one_device(int n, double *a, double *b, int d) {
#pragma omp target data device(d) map(tofrom: a[0:n]) map(to: b[0:n])
  {
// CHECK: {{^.*}}diag_target_data.c:[[@LINE+3]]:1: warning: 'a' is mapped by the 'target data' at {{.*}}diag_target_data.c:[[@LINE-2]] on one device only, so the chunks of this 'target spread parallel for' on its other devices would get host addresses; map it on every device of the construct with 'target data spread' and a 'range' that matches the chunks, or map each chunk's section in the construct's own map clauses (see docs/porting.md) [-Wspread-target-data]{{$}}
// CHECK-NEXT: {{^ *}}[[@LINE+2]] | #pragma omp target spread parallel for devices(0, 1) map(tofrom: a[omp_spread_start:omp_spread_size]){{$}}
// CHECK-NEXT: {{^}}      | ^{{$}}
#pragma omp target spread parallel for devices(0, 1) map(tofrom: a[omp_spread_start:omp_spread_size])
    for (int i = 0; i < n; i++) a[i] += 1;
  }
}

// No warning: the data is mapped on every device by 'target data spread', or the construct
// does not use what the one-device region maps.
void spread_data(int n, double *a, double *b) {
#pragma omp target data spread devices(0, 1) range(0:n) map(tofrom: a[omp_spread_start:omp_spread_size])
  {
#pragma omp target spread parallel for devices(0, 1)
    for (int i = 0; i < n; i++) a[i] += 1;
  }
#pragma omp target data map(to: b[0:n])
  {
#pragma omp target data spread devices(0, 1) range(0:n) map(to: b[omp_spread_start:omp_spread_size])
    {
#pragma omp target spread parallel for devices(0, 1) map(tofrom: a[omp_spread_start:omp_spread_size])
      for (int i = 0; i < n; i++) a[i] += b[i];
    }
  }
#pragma omp target data map(to: b[0:n])
  {
#pragma omp target spread parallel for devices(0, 1) map(tofrom: a[omp_spread_start:omp_spread_size])
    for (int i = 0; i < n; i++) a[i] += 1;
  }
}
