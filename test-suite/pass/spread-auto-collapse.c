// spread-auto on collapsed loops whose rows do not cover the array, on guarded reads, and on the
// program's own division of the index, through opt on the device IR clang-19 emits for x86_64
// and nvptx64 at -O0 and -O2 (-disable-llvm-passes): the same records for both targets and both
// levels. A collapsed iteration i is q = i / m, r = i % m for the inner loops' count m (the
// kernel's divisor); such records, and records with guards, make the descriptor version 2
// (docs/pass.md). A record linear in i without guards stays version 1.
//
// RUN: %clang-plain -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O2.ll
// RUN: %clang-plain -O0 -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O2.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O0.ll -o %t.x86-O0.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.x86-O0.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O2.ll -o %t.x86-O2.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.x86-O2.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O0.ll -o %t.nv-O0.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.nv-O0.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O2.ll -o %t.nv-O2.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.nv-O2.out.ll

// Jacobi over the interior: offset 8*(m*(q+1) + r + 1) with m the row length, divisor m - 2.
void interior(int n, int m, const double *u, double *f) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_interior_l[[@LINE+1]] can be spread over devices: arg2:w[(8*arg1)*q+8*r+8+8*arg1, 8B] arg3:r[(8*arg1)*q+8*r+8, 8B] arg3:r[(8*arg1)*q+8*r+8+8*arg1, 8B] arg3:r[(8*arg1)*q+8*r+8+16*arg1, 8B] (collapsed: q, r = i / m, i % m with m = -2+arg1) [interior, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for collapse(2) map(to : u[0 : n * m]) map(from : f[0 : n * m])
  for (int i = 1; i < n - 1; i++)
    for (int j = 1; j < m - 1; j++)
      f[i * m + j] = u[(i - 1) * m + j] + u[i * m + j] + u[(i + 1) * m + j];
}

// Whole rows, guarded reads: the offsets are linear in i, the guards need the divisor.
void heat(int n, const double *u, double *v) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_heat_l[[@LINE+1]] can be spread over devices: arg1:w[8*i, 8B] arg2:r[(8*arg0)*q+8*r-8, 8B; if r-1 >= 0] arg2:r[8*i, 8B] arg2:r[(8*arg0)*q+8*r-8*arg0, 8B; if q-1 >= 0] (collapsed: q, r = i / m, i % m with m = arg0) [heat, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for collapse(2) map(to : u[0 : n * n]) map(from : v[0 : n * n])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      v[i * n + j] = u[i * n + j] + (i > 0 ? u[(i - 1) * n + j] : 0) + (j > 0 ? u[i * n + j - 1] : 0);
}

// A 1-D loop, guards on both sides (one through && and a negated condition).
void edges(int n, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_edges_l[[@LINE+1]] can be spread over devices: arg1:r[4*i-4, 4B; if i-1 >= 0; if -i-2+arg0 >= 0] arg1:r[4*i+4, 4B; if -i-2+arg0 >= 0] arg2:w[4*i, 4B] [edges, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0 : n]) map(from : y[0 : n])
  for (int i = 0; i < n; i++) {
    float s = 0;
    if (i > 0 && i < n - 1)
      s = x[i - 1];
    if (!(i >= n - 1))
      s += x[i + 1];
    y[i] = s;
  }
}

// The program's own division: pairs of elements share a source element.
void pairs(int n, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_pairs_l[[@LINE+1]] can be spread over devices: arg1:w[4*i, 4B] arg2:r[4*q, 4B] (collapsed: q, r = i / m, i % m with m = 2) [pairs, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0 : n / 2]) map(from : y[0 : n])
  for (int i = 0; i < n; i++)
    y[i] = x[i / 2];
}

// IR: @__spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_interior_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [1136 x i8] c"SPRD\02\00\00\00\04\00
// IR: @__spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_heat_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [1136 x i8] c"SPRD\02\00\00\00\04\00
