// spread-auto analyses the program's own functions called in the loop as if inlined (on its
// clone; the kernel keeps its calls): their accesses join the kernel's descriptor and their
// hazards refuse it, through any depth of helpers; declarations stay unknown calls, and a
// recursion stops at the inlining budget. x86_64 and nvptx64 device IR, -O0 and -O2.
//
// RUN: %clang-plain -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O2.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O2.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O0.ll -o %t.x86-O0.out.ll 2>&1 | FileCheck --implicit-check-not=remark %s
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O2.ll -o %t.x86-O2.out.ll 2>&1 | FileCheck --implicit-check-not=remark %s
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O2.ll -o %t.nv-O2.out.ll 2>&1 | FileCheck --implicit-check-not=remark %s
// The kernels keep their calls.
// RUN: FileCheck --check-prefix=IR %s < %t.x86-O2.out.ll

#include <omp.h>

#pragma omp declare target
int hits;
extern float external(float v);
__attribute__((noinline)) float scale(float v) { return 2.0f * v; }
static inline float twice_scaled(float v) { return scale(scale(v)); }
__attribute__((noinline)) void put(float *dst, float v) { *dst = v; }
__attribute__((noinline)) void count(void) { hits++; }
__attribute__((noinline)) float query(float v) { return v + omp_get_team_num(); }
__attribute__((noinline)) float fact(float v) { return v <= 1 ? 1 : v * fact(v - 1); }
#pragma omp end declare target

// CHECK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_nested_l[[@LINE+2]] can be spread over devices: arg1:w[4*i, 4B] arg2:r[4*i, 4B] [nested, line [[@LINE+2]]]
void nested(int n, const float *x, float *y) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    put(&y[i], twice_scaled(x[i]));
}

// CHECK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_global_l[[@LINE+2]] runs on one device: a non-constant global variable ('hits') [global, line [[@LINE+2]]]
void global(int n, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++) {
    y[i] = scale(y[i]);
    count();
  }
}

// CHECK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_teamq_l[[@LINE+2]] runs on one device: a team-number query (omp_get_team_num) [teamq, line [[@LINE+2]]]
void teamq(int n, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = query(y[i]);
}

// CHECK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_declared_l[[@LINE+2]] runs on one device: a call to 'external' with unknown memory effects [declared, line [[@LINE+2]]]
void declared(int n, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = external(y[i]);
}

// CHECK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_recursive_l[[@LINE+2]] runs on one device: a call to 'fact' with unknown memory effects [recursive, line [[@LINE+2]]]
void recursive(int n, float *y) {
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = fact(y[i]);
}

// IR: define {{.*}}void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_nested_l{{[0-9]+}}.omp_outlined.omp_outlined(
// IR: call void @put(
