// spread-auto on loops nested in the parallel loop and on `teams distribute` kernels whose body
// runs `parallel for` loops, through opt on the device IR clang-19 emits for x86_64 at -O0 and
// -O2 (-disable-llvm-passes): the same records at both levels. An access in an inner loop is
// described by its addresses at the inner loop's first and last iterations; a condition on an
// inner loop's variable that the access's offset moves with bounds the offset ("if offset ...").
// On nvptx64 the nested parallel region of a generic-mode teams region is followed through its
// wrapper, its globalized captures and its loop over chunks: the same records as on x86_64.
//
// RUN: %clang-plain -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O2.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O2.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O0.ll -o /dev/null 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O2.ll -o /dev/null 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O2.ll -o /dev/null 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s

// Row sums: the row is read between its first and last element; the row length is an argument.
void rowsum(int n, int m, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_rowsum_l[[@LINE+1]] can be spread over devices: arg2:r[(4*arg1)*i, 4B] arg2:r[(4*arg1)*i-4+4*arg1, 4B] arg3:w[4*i, 4B] [rowsum, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0 : n * m]) map(from : y[0 : n])
  for (int i = 0; i < n; i++) {
    float s = 0;
    for (int j = 0; j < m; j++)
      s += x[i * m + j];
    y[i] = s;
  }
}

// A grid of blocks of 128 threads, the last block partly past n.
void grid(int n, float alpha, const float *x, float *y) {
  int nb = (n + 127) / 128;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_grid_l[[@LINE+1]] can be spread over devices: arg2:rw[512*i, 4B; if -offset-4+4*arg1 >= 0] arg2:rw[512*i+508, 4B; if -offset-4+4*arg1 >= 0] arg4:r[512*i, 4B; if -offset-4+4*arg1 >= 0] arg4:r[512*i+508, 4B; if -offset-4+4*arg1 >= 0] [grid, line [[@LINE+1]]]
#pragma omp target teams distribute map(to : x[0 : n]) map(tofrom : y[0 : n])
  for (int b = 0; b < nb; b++) {
#pragma omp parallel for
    for (int t = 0; t < 128; t++)
      if (b * 128 + t < n)
        y[b * 128 + t] = alpha * x[b * 128 + t] + y[b * 128 + t];
  }
}
