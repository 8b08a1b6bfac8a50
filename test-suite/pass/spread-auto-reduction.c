// spread-auto on kernels with scalar reductions (docs/pass.md, "Reductions"): each reduction
// variable gets one descriptor record of mode 5 (reduce), c0 = the operator and c1 = the type as
// spread.h codes them, width = its size; the combination clang writes into it at the end of the
// teams and parallel regions is no longer a refusal. x86_64 and nvptx64 device IR at -O0 and -O2
// (the descriptors are the same bytes), with -g, and the window clamps as for any kernel.
//
// RUN: %clang-plain -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O2.ll
// RUN: %clang-plain -O0 -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O2.ll
//
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O0.ll -o %t.x86-O0.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefixes=IR,CLAMP %s < %t.x86-O0.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O2.ll -o %t.x86-O2.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefixes=IR,CLAMP %s < %t.x86-O2.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O0.ll -o %t.nv-O0.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefixes=IR,CLAMP %s < %t.nv-O0.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O2.ll -o %t.nv-O2.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefixes=IR,CLAMP %s < %t.nv-O2.out.ll
//
// With -g (the pass follows clang's _debug__ bodies): the same remarks.
// RUN: %clang-plain -g -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-g.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-g.ll -o %t.x86-g.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.x86-g.out.ll
// RUN: %clang-plain -g -O2 -Xclang -disable-llvm-passes -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-g.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-g.ll -o %t.nv-g.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.nv-g.out.ll
//
// The output is valid PTX, and the descriptor survives the optimisation pipeline.
// RUN: llc -mcpu=sm_90 %t.nv-O0.out.ll -o - | FileCheck --check-prefix=PTX %s
// RUN: %opt -passes='default<O2>' %t.nv-O2.out.ll 2>/dev/null | llc -mcpu=sm_90 -o - | FileCheck --check-prefix=PTX %s

// + on int; the reduction variable s is arg1 (a pointer clang maps tofrom), the one record
// that names it is mode 5 (reduce): c0 = operator, c1 = type, width = its size.
int isum(int n, const int *x) {
  int s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_isum_l[[@LINE+1]] can be spread over devices: arg1:reduce(+, i32) arg2:r[4*i, 4B] [isum, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

// * on int.
int iprod(int n, const int *x) {
  int p = 1;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_iprod_l[[@LINE+1]] can be spread over devices: arg1:reduce(*, i32) arg2:r[4*i, 4B] [iprod, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(* : p) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}

// max on int: clang combines with a compare and branches, which the pass runs on constants.
int imax(int n, const int *x) {
  int m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_imax_l[[@LINE+1]] can be spread over devices: arg1:reduce(max, i32) arg2:r[4*i, 4B] [imax, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(max : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m;
}

// min on int.
int imin(int n, const int *x) {
  int m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_imin_l[[@LINE+1]] can be spread over devices: arg1:reduce(min, i32) arg2:r[4*i, 4B] [imin, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(min : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = x[i] < m ? x[i] : m;
  return m;
}

// The same on float ...
float fsum(int n, const float *x) {
  float s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_fsum_l[[@LINE+1]] can be spread over devices: arg1:reduce(+, float) arg2:r[4*i, 4B] [fsum, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

float fprod(int n, const float *x) {
  float p = 1;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_fprod_l[[@LINE+1]] can be spread over devices: arg1:reduce(*, float) arg2:r[4*i, 4B] [fprod, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(* : p) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}

float fmax_(int n, const float *x) {
  float m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_fmax__l[[@LINE+1]] can be spread over devices: arg1:reduce(max, float) arg2:r[4*i, 4B] [fmax_, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(max : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m;
}

float fmin_(int n, const float *x) {
  float m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_fmin__l[[@LINE+1]] can be spread over devices: arg1:reduce(min, float) arg2:r[4*i, 4B] [fmin_, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(min : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = x[i] < m ? x[i] : m;
  return m;
}

// ... and on double.
double dsum(int n, const double *x) {
  double s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_dsum_l[[@LINE+1]] can be spread over devices: arg1:reduce(+, double) arg2:r[8*i, 8B] [dsum, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

double dprod(int n, const double *x) {
  double p = 1;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_dprod_l[[@LINE+1]] can be spread over devices: arg1:reduce(*, double) arg2:r[8*i, 8B] [dprod, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(* : p) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}

double dmax(int n, const double *x) {
  double m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_dmax_l[[@LINE+1]] can be spread over devices: arg1:reduce(max, double) arg2:r[8*i, 8B] [dmax, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(max : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = x[i] > m ? x[i] : m;
  return m;
}

double dmin(int n, const double *x) {
  double m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_dmin_l[[@LINE+1]] can be spread over devices: arg1:reduce(min, double) arg2:r[8*i, 8B] [dmin, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(min : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = x[i] < m ? x[i] : m;
  return m;
}

// Two reduction variables in one loop that also writes an array: each described.
void two(int n, const double *x, const int *a, double *y, double *sum, int *max) {
  double s = 0;
  int m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_two_l[[@LINE+1]] can be spread over devices: arg1:w[8*i, 8B] arg2:r[8*i, 8B] arg3:reduce(+, double) arg4:reduce(max, i32) arg5:r[4*i, 4B] [two, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(+ : s) reduction(max : m) map(to : x[0:n], a[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++) {
    y[i] = 2 * x[i];
    s += x[i];
    m = a[i] > m ? a[i] : m;
  }
  *sum = s;
  *max = m;
}

// min on unsigned: icmp ult, so the type is u32 (signedness matters for min and max).
unsigned umin(int n, const unsigned *x) {
  unsigned m = ~0u;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_umin_l[[@LINE+1]] can be spread over devices: arg1:reduce(min, u32) arg2:r[4*i, 4B] [umin, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(min : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = x[i] < m ? x[i] : m;
  return m;
}

// - is combined as + (OpenMP does; spread.h's __SPREAD_RED_ADD), here on long.
long lsub(long n, const long *x) {
  long s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_lsub_l[[@LINE+1]] can be spread over devices: arg1:reduce(+, i64) arg2:r[8*i, 8B] [lsub, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(- : s) map(to : x[0:n])
  for (long i = 0; i < n; i++)
    s -= x[i];
  return s;
}

// &, | and ^ on char and short.
int bits(int n, const char *c, const short *h) {
  char a = -1;
  short o = 0, e = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_bits_l[[@LINE+1]] can be spread over devices: arg1:reduce(&, i8) arg2:r[i, 1B] arg3:reduce(|, i16) arg4:r[2*i, 2B] arg5:reduce(^, i16) [bits, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(& : a) reduction(| : o) reduction(^ : e) map(to : c[0:n], h[0:n])
  for (int i = 0; i < n; i++) {
    a &= c[i];
    o |= h[i];
    e ^= h[i];
  }
  return a + o + e;
}

// && on int and || on double (clang combines them with branches and zext/sitofp).
int logic(int n, const int *x, const double *d) {
  int all = 1;
  double any = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_logic_l[[@LINE+1]] can be spread over devices: arg1:reduce(&&, i32) arg2:r[4*i, 4B] arg3:reduce(||, double) arg4:r[8*i, 8B] [logic, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(&& : all) reduction(|| : any) map(to : x[0:n], d[0:n])
  for (int i = 0; i < n; i++) {
    all = all && x[i];
    any = any || d[i];
  }
  return all + (int)any;
}

// ... simd.
float simdsum(int n, const float *x) {
  float s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_simdsum_l[[@LINE+1]] can be spread over devices: arg1:reduce(+, float) arg2:r[4*i, 4B] [simdsum, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for simd reduction(+ : s) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

// teams loop (clang emits it as teams distribute parallel for).
double loopsum(int n, const double *x) {
  double s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_loopsum_l[[@LINE+1]] can be spread over devices: arg1:reduce(+, double) arg2:r[8*i, 8B] [loopsum, line [[@LINE+1]]]
#pragma omp target teams loop reduction(+ : s) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

// target with a tightly nested teams distribute parallel for and s mapped tofrom: s is arg0.
int nestedsum(int n, const int *x) {
  int s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_nestedsum_l[[@LINE+1]] can be spread over devices: arg0:reduce(+, i32) arg2:r[4*i, 4B] [nestedsum, line [[@LINE+1]]]
#pragma omp target map(to : x[0:n]) map(tofrom : s)
#pragma omp teams distribute parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

// The window and the descriptor of each kernel, in kernel order; each descriptor decoded above
// it ({param mode ...}; a reduce record has op and type as spread.h codes them and no symbol).
// isum: {arg1 reduce op=1 (+) type=3 (i32) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID:[0-9a-f]+_[0-9a-f]+]]_isum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_isum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// iprod: {arg1 reduce op=3 (*) type=3 (i32) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_iprod_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_iprod_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\03\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// imax: {arg1 reduce op=4 (max) type=3 (i32) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_imax_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_imax_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\04\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// imin: {arg1 reduce op=5 (min) type=3 (i32) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_imin_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_imin_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\05\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// fsum: {arg1 reduce op=1 (+) type=9 (float) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_fsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_fsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\09\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// fprod: {arg1 reduce op=3 (*) type=9 (float) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_fprod_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_fprod_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\03\00\00\00\00\00\00\00\09\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// fmax_: {arg1 reduce op=4 (max) type=9 (float) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_fmax__l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_fmax__l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\04\00\00\00\00\00\00\00\09\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// fmin_: {arg1 reduce op=5 (min) type=9 (float) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_fmin__l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_fmin__l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\05\00\00\00\00\00\00\00\09\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// dsum: {arg1 reduce op=1 (+) type=10 (double) width=8} {arg2 r c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_dsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_dsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\0A\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// dprod: {arg1 reduce op=3 (*) type=10 (double) width=8} {arg2 r c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_dprod_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_dprod_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\03\00\00\00\00\00\00\00\0A\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// dmax: {arg1 reduce op=4 (max) type=10 (double) width=8} {arg2 r c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_dmax_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_dmax_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\04\00\00\00\00\00\00\00\0A\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// dmin: {arg1 reduce op=5 (min) type=10 (double) width=8} {arg2 r c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_dmin_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_dmin_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\05\00\00\00\00\00\00\00\0A\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// two: {arg1 w c0=0 c1=8 width=8} {arg2 r c0=0 c1=8 width=8} {arg3 reduce op=1 (+) type=10 (double) width=8} {arg4 reduce op=4 (max) type=3 (i32) width=4} {arg5 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_two_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_two_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [256 x i8] c"SPRD\01\00\00\00\05\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\03\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\0A\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\05\00\00\00\04\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// umin: {arg1 reduce op=5 (min) type=7 (u32) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_umin_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_umin_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\05\00\00\00\00\00\00\00\07\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// lsub: {arg1 reduce op=1 (+) type=4 (i64) width=8} {arg2 r c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_lsub_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_lsub_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// bits: {arg1 reduce op=6 (&) type=1 (i8) width=1} {arg2 r c0=0 c1=1 width=1} {arg3 reduce op=7 (|) type=2 (i16) width=2} {arg4 r c0=0 c1=2 width=2} {arg5 reduce op=8 (^) type=2 (i16) width=2}
// IR:      @__spread_win___omp_offloading_[[ID]]_bits_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_bits_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [256 x i8] c"SPRD\01\00\00\00\05\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\06\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\01\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\03\00\00\00\05\00\00\00\07\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\05\00\00\00\05\00\00\00\08\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// logic: {arg1 reduce op=9 (&&) type=3 (i32) width=4} {arg2 r c0=0 c1=4 width=4} {arg3 reduce op=10 (||) type=10 (double) width=8} {arg4 r c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_logic_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_logic_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [208 x i8] c"SPRD\01\00\00\00\04\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\09\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\03\00\00\00\05\00\00\00\0A\00\00\00\00\00\00\00\0A\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// simdsum: {arg1 reduce op=1 (+) type=9 (float) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_simdsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_simdsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\09\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// loopsum: {arg1 reduce op=1 (+) type=10 (double) width=8} {arg2 r c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_loopsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_loopsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\0A\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// nestedsum: {arg0 reduce op=1 (+) type=3 (i32) width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_nestedsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_nestedsum_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\05\00\00\00\01\00\00\00\00\00\00\00\03\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// IR:      @llvm.used = appending {{(addrspace\(1\) )?}}global [20 x ptr] [ptr {{(addrspacecast \(ptr addrspace\(1\) )?}}@__spread_kinfo___omp_offloading_[[ID]]_isum_l

// The clamps of isum, as for any kernel (an int IV: sign extension): before T's distribute init
// (lb, ub and the slot of the last iteration) and at P's entry (prev.lb, prev.ub).
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_isum_l{{[0-9]+}}{{[._]}}omp_outlined(
// CLAMP:      %spread.lo = load i64, ptr{{( addrspace\(1\))?}} @__spread_win___omp_offloading_[[ID]]_isum_l{{[0-9]+}}, align 8
// CLAMP-NEXT: %spread.hi = load i64, ptr{{( addrspace\(1\))?}} getelementptr inbounds ([2 x i64], ptr{{( addrspace\(1\))?}} @__spread_win___omp_offloading_[[ID]]_isum_l{{[0-9]+}}, i32 0, i32 1), align 8
// CLAMP-NEXT: %spread.last = sub i64 %spread.hi, 1
// CLAMP-NEXT: %spread.lb = load i32, ptr [[LB:%[0-9]+]], align 4
// CLAMP-NEXT: [[E:%[0-9]+]] = sext i32 %spread.lb to i64
// CLAMP-NEXT: [[M:%[0-9]+]] = call i64 @llvm.smax.i64(i64 [[E]], i64 %spread.lo)
// CLAMP-NEXT: [[T:%[0-9]+]] = trunc i64 [[M]] to i32
// CLAMP-NEXT: store i32 [[T]], ptr [[LB]], align 4
// CLAMP-NEXT: %spread.ub = load i32, ptr [[UB:%[0-9]+]], align 4
// CLAMP-NEXT: [[E:%[0-9]+]] = sext i32 %spread.ub to i64
// CLAMP-NEXT: [[M:%[0-9]+]] = call i64 @llvm.smin.i64(i64 [[E]], i64 %spread.last)
// CLAMP-NEXT: [[T:%[0-9]+]] = trunc i64 [[M]] to i32
// CLAMP-NEXT: store i32 [[T]], ptr [[UB]], align 4
// CLAMP-NEXT: %spread.lastiter = load i32, ptr [[LAST:%[0-9]+]], align 4
// CLAMP-NEXT: [[E:%[0-9]+]] = sext i32 %spread.lastiter to i64
// CLAMP-NEXT: [[M:%[0-9]+]] = call i64 @llvm.smin.i64(i64 [[E]], i64 %spread.last)
// CLAMP-NEXT: [[T:%[0-9]+]] = trunc i64 [[M]] to i32
// CLAMP-NEXT: store i32 [[T]], ptr [[LAST]], align 4
// CLAMP-NEXT: call void @__kmpc_{{for|distribute}}_static_init_4(ptr @{{[0-9]+}}, i32 %{{[0-9]+}}, i32 {{92|91}}, ptr %{{[0-9]+}}, ptr [[LB]], ptr [[UB]], ptr %{{[0-9]+}}, i32 1, i32 {{%[0-9]+|1}})
// The reduction code itself is left as clang wrote it.
// CLAMP:      call i32 @__kmpc_{{reduce_nowait|nvptx_teams_reduce_nowait_v2}}(
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_isum_l{{[0-9]+}}{{[._]}}omp_outlined{{[._]}}omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, i64 noundef %3,
// CLAMP:      %spread.lo = load i64, ptr{{( addrspace\(1\))?}} @__spread_win___omp_offloading_[[ID]]_isum_l{{[0-9]+}}, align 8
// CLAMP-NEXT: %spread.hi = load i64
// CLAMP-NEXT: %spread.last = sub i64 %spread.hi, 1
// CLAMP-NEXT: [[T:%[0-9]+]] = trunc i64 %2 to i32
// CLAMP-NEXT: [[E:%[0-9]+]] = sext i32 [[T]] to i64
// CLAMP-NEXT: %spread.prev.lb = call i64 @llvm.smax.i64(i64 [[E]], i64 %spread.lo)
// CLAMP-NEXT: [[T:%[0-9]+]] = trunc i64 %3 to i32
// CLAMP-NEXT: [[E:%[0-9]+]] = sext i32 [[T]] to i64
// CLAMP-NEXT: %spread.prev.ub = call i64 @llvm.smin.i64(i64 [[E]], i64 %spread.last)
// CLAMP-NOT:  {{[^.]}}%2{{[,) ]}}
// CLAMP:      store i64 %spread.prev.lb, ptr
// CLAMP-NEXT: store i64 %spread.prev.ub, ptr
// CLAMP-NOT:  {{[^.]}}%3{{[,) ]}}
// CLAMP:      call i32 @__kmpc_{{reduce_nowait|nvptx_parallel_reduce_nowait_v2}}(
// CLAMP:      ret void

// PTX-DAG: .visible .global .align 8 .b8 __spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_isum_l{{[0-9]+}}[16] = {0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 127};
// PTX-DAG: .visible .global .align 8 .b8 __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_isum_l{{[0-9]+}}[112] = {83, 80, 82, 68, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 3, 0,
// PTX-DAG: .visible .global .align 8 .b8 __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_two_l{{[0-9]+}}[256] = {83, 80, 82, 68, 1, 0, 0, 0, 5, 0,
