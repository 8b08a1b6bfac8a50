// The structured block of 'target data spread' must be left at its end, as for 'target data':
// a 'return', a 'goto' to a label outside the block, or a 'break'/'continue' that leaves it would
// skip the exit half (the unmapping) and leak the devices' mappings. A 'goto' to a label inside
// the block and 'break' inside a nested loop are fine.
// RUN: not %spread-cc -c %s -o %t.o 2>&1 | FileCheck --strict-whitespace --check-prefix=ERR %s
// RUN: %spread-cc -DGOOD -c %s -o %t.good.o
// ERR-NOT: panicked

#ifdef GOOD
int g(int n, int *a) {
#pragma omp target data spread range(0:n) map(tofrom: a[omp_spread_start:omp_spread_size])
  {
    if (n > 10)
      goto skip;
    for (int i = 0; i < n; i++) {
      if (a[i])
        break;
      continue;
    }
    switch (n) {
    case 1:
      break;
    }
  skip:
    a[0] = 1;
  }
  return 0;
}
#else
int f(int n, int *a) {
// ERR: {{^.*}}diag_data_block.c:[[@LINE+4]]:15: error: 'return' cannot be used in the structured block of 'target data spread' (it would leave the block without unmapping its data){{$}}
// ERR-NEXT: {{^ *}}[[@LINE+3]] |   { if (n) {  return 1; }{{$}}
// ERR-NEXT: {{^}}      |               ^{{$}}
#pragma omp target data spread range(0:n) map(tofrom: a[omp_spread_start:omp_spread_size])
  { if (n) {  return 1; }
  }
// ERR: {{^.*}}diag_data_block.c:[[@LINE+3]]:5: error: 'goto' cannot jump out of the structured block of 'target data spread' (it would leave the block without unmapping its data){{$}}
#pragma omp target data spread range(0:n) map(tofrom: a[omp_spread_start:omp_spread_size])
  {
    goto out;
  }
  for (;;) {
// ERR: {{^.*}}diag_data_block.c:[[@LINE+2]]:14: error: 'break' cannot leave the structured block of 'target data spread'
#pragma omp target data spread range(0:n) map(tofrom: a[omp_spread_start:omp_spread_size])
    if (n) { break; }
  }
out:
  return 0;
}
// ERR: 3 errors generated.
#endif
