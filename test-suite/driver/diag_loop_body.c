// The body of a 'target spread' loop must keep the loop canonical, as OpenMP requires of
// every worksharing loop: no 'break' out of the loop (each chunk would stop on its own) and no
// write to the loop variable (each chunk would step differently). 'break' inside a nested loop
// or switch, and 'continue', are fine.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s
// RUN: %spread-cc -DGOOD -c %s -o %t.good.o
// ERR-NOT: panicked

#ifdef GOOD
int g(int n, int *a) {
#pragma omp target spread teams distribute parallel for map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 4; k++)
      if (a[i] == k)
        break;
    switch (a[i]) {
    case 1:
      break;
    default:
      a[i] = i;
    }
    while (a[i] > 100) {
      a[i] /= 2;
      if (a[i] & 1)
        break;
    }
    if (a[i] < 0)
      continue;
    a[i] = a[i] & i;
  }
  return 0;
}
#else
void f(int n, int *a, int *p) {
// ERR: {{^.*}}diag_loop_body.c:[[@LINE+6]]:15: error: 'break' statement cannot be used in the loop of 'target spread parallel for' (every iteration of an OpenMP loop must run; each chunk would stop on its own){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+5]] |     if (a[i]) break;{{$}}
// ERR-NEXT: {{^}}      |               ^{{$}}
#pragma omp target spread parallel for map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) {
    for (int k = 0; k < 2; k++) if (k) break;
    if (a[i]) break;
  }
// ERR: {{^.*}}diag_loop_body.c:[[@LINE+5]]:5: error: 'i' is the loop variable of 'target spread': it cannot be modified in the loop body (OpenMP loops compute it from the iteration number){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+4]] |     i += 2;{{$}}
// ERR-NEXT: {{^}}      |     ^{{$}}
#pragma omp target spread map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) {
    i += 2;
  }
// ERR: {{^.*}}diag_loop_body.c:[[@LINE+3]]:29: error: 'j' is the loop variable of 'target spread': it cannot be modified in the loop body
#pragma omp target spread map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int j = 0; j < n; j++)
    a[j] = 0, a[j + 1] = 1, j++;
  int m;
// ERR: {{^.*}}diag_loop_body.c:[[@LINE+3]]:13: error: 'm' is the loop variable of 'target spread': its address cannot be taken in the loop body
#pragma omp target spread map(tofrom: a[omp_spread_start:omp_spread_size])
  for (m = 0; m < n; m++)
    *p = *(&m);
}
// ERR: 4 errors generated.
#endif
