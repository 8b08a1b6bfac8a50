// spread-auto on the combined kernels it accepts, through opt, on the device IR clang-19
// emits for x86_64 and nvptx64 images at -O0 and at -O2 (-disable-llvm-passes: the IR the pass
// sees at PipelineStart). Every kernel gets its window {0, INT64_MAX}, the clamps in its teams
// (T) and parallel (P) functions, and one descriptor, byte for byte the same for both targets
// and both levels (docs/pass.md, "Automatic spreading (spread-auto)").
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
// With -g, clang wraps K, T and P around _debug__ bodies that hold the code; the pass follows
// them and finds the same descriptors.
// RUN: %clang-plain -g -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-g.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-g.ll -o %t.x86-g.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.x86-g.out.ll
// RUN: %clang-plain -g -O2 -Xclang -disable-llvm-passes -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-g.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-g.ll -o %t.nv-g.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.nv-g.out.ll
//
// amdgcn works the same way (its stack slots are used through address-space casts).
// RUN: %clang-plain -O0 -fopenmp --offload-arch=gfx90a -nogpulib --offload-device-only -emit-llvm -S %s -o %t.amd.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.amd.ll -o %t.amd.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=IR %s < %t.amd.out.ll
//
// Idempotent: a second run (in the same pipeline or on the result) changes nothing, says nothing.
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto,spread-auto -S %t.nv-O0.ll -o %t.twice.ll
// RUN: diff %t.nv-O0.out.ll %t.twice.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto \
// RUN:   -pass-remarks-missed=spread-auto -disable-output %t.x86-O2.out.ll 2>&1 | count 0
// In a default pipeline the plugin runs it at PipelineStart.
// RUN: %opt -load-pass-plugin=%spread-pass -passes='default<O2>' -S %t.x86-O2.ll | FileCheck --check-prefix=PIPE %s
// The nvptx result (and after -O2) is PTX in which the host runtime finds the globals.
// RUN: llc -mcpu=sm_90 %t.nv-O0.out.ll -o - | FileCheck --check-prefix=PTX %s
// RUN: %opt -passes='default<O2>' %t.nv-O2.out.ll | llc -mcpu=sm_90 -o - | FileCheck --check-prefix=PTX %s

// The plain form: y read and written at the same place (rw), x read.
void saxpy(int n, float a, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l[[@LINE+1]] can be spread over devices: arg1:rw[4*i, 4B] arg3:r[4*i, 4B] [saxpy, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

// A halo: three reads of x per iteration, the write one element in (the loop starts at 1).
void stencil(int n, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_stencil_l[[@LINE+1]] can be spread over devices: arg1:w[4*i+4, 4B] arg2:r[4*i, 4B] arg2:r[4*i+4, 4B] arg2:r[4*i+8, 4B] [stencil, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 1; i < n - 1; i++)
    y[i] = x[i - 1] + x[i] + x[i + 1];
}

// A symbolic lower bound: the offset depends on the by-value int lo (arg1, 32 bits).
void window(int lo, int hi, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_window_l[[@LINE+1]] can be spread over devices: arg2:w[4*i+4*arg1, 4B] arg3:r[4*i+4*arg1, 4B] [window, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[lo:hi - lo]) map(tofrom : y[lo:hi - lo])
  for (int i = lo; i < hi; i++)
    y[i] = 2.0f * x[i];
}

// Stride 2 over doubles: 16 bytes per normalized iteration.
void stride2(int n, const double *x, double *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_stride2_l[[@LINE+1]] can be spread over devices: arg1:w[16*i, 8B] arg2:r[16*i, 8B] [stride2, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i += 2)
    y[i] = x[i] + 1.0;
}

// A negative stride and a symbolic term: y[n - 1 - i] is byte -4*i - 4 + 4*n.
void reverse(int n, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_reverse_l[[@LINE+1]] can be spread over devices: arg1:w[-4*i-4+4*arg0, 4B] arg2:r[4*i, 4B] [reverse, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    y[n - 1 - i] = x[i];
}

// x[idx[i]] cannot be followed: x is read-only, so the runtime maps all of it (whole).
void gather(int n, const int *idx, const double *x, double *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_gather_l[[@LINE+1]] can be spread over devices: arg1:w[8*i, 8B] arg2:whole arg3:r[4*i, 4B] [gather, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : idx[0:n], x[0:n]) map(from : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[idx[i]];
}

// collapse(2): SCEV folds (iv / m) * m + iv % m back to iv; the IV is 64-bit.
void collapse2(int n, int m, double *a) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_collapse2_l[[@LINE+1]] can be spread over devices: arg2:rw[8*i, 8B] [collapse2, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for collapse(2) map(tofrom : a[0:n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      a[i * m + j] += 1.0;
}

// ... simd: the same loop with vectorization metadata.
void simd(int n, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_simd_l[[@LINE+1]] can be spread over devices: arg1:w[4*i, 4B] arg2:r[4*i, 4B] [simd, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for simd map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = 3.0f * x[i];
}

// teams loop: clang emits it as teams distribute parallel for.
void teamsloop(int n, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_teamsloop_l[[@LINE+1]] can be spread over devices: arg1:w[4*i, 4B] arg2:r[4*i, 4B] [teamsloop, line [[@LINE+1]]]
#pragma omp target teams loop map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = x[i] - 1.0f;
}

// target with a tightly nested teams distribute parallel for: the pointers reach P
// through K's stack (captures by reference); a long IV and short elements.
void nested(long n, const short *x, short *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_nested_l[[@LINE+1]] can be spread over devices: arg1:w[2*i, 2B] arg2:r[2*i, 2B] [nested, line [[@LINE+1]]]
#pragma omp target map(to : x[0:n]) map(tofrom : y[0:n])
#pragma omp teams distribute parallel for
  for (long i = 0; i < n; i++)
    y[i] = x[i] + 1;
}

// The window and the descriptor of each kernel, in kernel order; each descriptor decoded above
// it ({param mode c0 c1 width [sym=param/bits*coeff]}).
// saxpy: {arg1 rw c0=0 c1=4 width=4} {arg3 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID:[0-9a-f]+_[0-9a-f]+]]_saxpy_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_saxpy_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\03\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\03\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// stencil: {arg1 w c0=4 c1=4 width=4} {arg2 r c0=0 c1=4 width=4} {arg2 r c0=4 c1=4 width=4} {arg2 r c0=8 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_stencil_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_stencil_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [208 x i8] c"SPRD\01\00\00\00\04\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\08\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// window: {arg2 w c0=0 c1=4 width=4 sym=arg1/32b*4} {arg3 r c0=0 c1=4 width=4 sym=arg1/32b*4}
// IR:      @__spread_win___omp_offloading_[[ID]]_window_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_window_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\02\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\01\00\00\00 \00\00\00\04\00\00\00\00\00\00\00\03\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\01\00\00\00 \00\00\00\04\00\00\00\00\00\00\00", align 8
// stride2: {arg1 w c0=0 c1=16 width=8} {arg2 r c0=0 c1=16 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_stride2_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_stride2_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\10\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\10\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// reverse: {arg1 w c0=-4 c1=-4 width=4 sym=arg0/32b*4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_reverse_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_reverse_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\FC\FF\FF\FF\FF\FF\FF\FF\FC\FF\FF\FF\FF\FF\FF\FF\04\00\00\00\00\00\00\00\00\00\00\00 \00\00\00\04\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// gather: {arg1 w c0=0 c1=8 width=8} {arg2 whole c0=0 c1=0 width=8} {arg3 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_gather_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_gather_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [160 x i8] c"SPRD\01\00\00\00\03\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\04\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\03\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// collapse2: {arg2 rw c0=0 c1=8 width=8}
// IR:      @__spread_win___omp_offloading_[[ID]]_collapse2_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_collapse2_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [64 x i8] c"SPRD\01\00\00\00\01\00\00\00\00\00\00\00\02\00\00\00\03\00\00\00\00\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\08\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// simd: {arg1 w c0=0 c1=4 width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_simd_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_simd_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// teamsloop: {arg1 w c0=0 c1=4 width=4} {arg2 r c0=0 c1=4 width=4}
// IR:      @__spread_win___omp_offloading_[[ID]]_teamsloop_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_teamsloop_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\04\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// nested: {arg1 w c0=0 c1=2 width=2} {arg2 r c0=0 c1=2 width=2}
// IR:      @__spread_win___omp_offloading_[[ID]]_nested_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} global [2 x i64] [i64 0, i64 9223372036854775807], align 8
// IR-NEXT: @__spread_kinfo___omp_offloading_[[ID]]_nested_l{{[0-9]+}} = protected{{( addrspace\(1\))?}} constant [112 x i8] c"SPRD\01\00\00\00\02\00\00\00\00\00\00\00\01\00\00\00\02\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\01\00\00\00\00\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\02\00\00\00\00\00\00\00\FF\FF\FF\FF\00\00\00\00\00\00\00\00\00\00\00\00", align 8
// IR:      @llvm.used = appending {{(addrspace\(1\) )?}}global [10 x ptr] [ptr {{(addrspacecast \(ptr addrspace\(1\) )?}}@__spread_kinfo___omp_offloading_[[ID]]_saxpy_l

// The clamps of saxpy (an int IV: __kmpc_*_static_init_4, sign extension), before T's
// distribute init (lb, ub and the slot of the last iteration, which the GPU's chunked
// distribute loop tests) and at P's entry (prev.lb, prev.ub).
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}{{[._]}}omp_outlined(
// CLAMP:      %spread.lo = load i64, ptr{{( addrspace\(1\))?}} @__spread_win___omp_offloading_[[ID]]_saxpy_l{{[0-9]+}}, align 8
// CLAMP-NEXT: %spread.hi = load i64, ptr{{( addrspace\(1\))?}} getelementptr inbounds ([2 x i64], ptr{{( addrspace\(1\))?}} @__spread_win___omp_offloading_[[ID]]_saxpy_l{{[0-9]+}}, i32 0, i32 1), align 8
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
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}{{[._]}}omp_outlined{{[._]}}omp_outlined(ptr noalias noundef %0, ptr noalias noundef %1, i64 noundef %2, i64 noundef %3,
// CLAMP:      %spread.lo = load i64, ptr{{( addrspace\(1\))?}} @__spread_win___omp_offloading_[[ID]]_saxpy_l{{[0-9]+}}, align 8
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
// CLAMP:      ret void

// window's IV is unsigned (clang picks _4u for i from lo to hi): zero extension.
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_window_l{{[0-9]+}}{{[._]}}omp_outlined(
// CLAMP:      %spread.lb = load i32, ptr [[LB:%[0-9]+]], align 4
// CLAMP-NEXT: [[E:%[0-9]+]] = zext i32 %spread.lb to i64
// CLAMP-NEXT: call i64 @llvm.smax.i64(i64 [[E]], i64 %spread.lo)
// CLAMP:      call void @__kmpc_{{for|distribute}}_static_init_4u(
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_window_l{{[0-9]+}}{{[._]}}omp_outlined{{[._]}}omp_outlined(
// CLAMP:      [[T:%[0-9]+]] = trunc i64 %2 to i32
// CLAMP-NEXT: [[E:%[0-9]+]] = zext i32 [[T]] to i64
// CLAMP-NEXT: %spread.prev.lb = call i64 @llvm.smax.i64(i64 [[E]], i64 %spread.lo)

// collapse2's IV is 64-bit (the product of two int trip counts): no extension.
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_collapse2_l{{[0-9]+}}{{[._]}}omp_outlined(
// CLAMP:      %spread.lb = load i64, ptr [[LB:%[0-9]+]], align 8
// CLAMP-NEXT: [[M:%[0-9]+]] = call i64 @llvm.smax.i64(i64 %spread.lb, i64 %spread.lo)
// CLAMP-NEXT: store i64 [[M]], ptr [[LB]], align 8
// CLAMP:      call void @__kmpc_{{for|distribute}}_static_init_8(
// CLAMP-LABEL: define internal void @__omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_collapse2_l{{[0-9]+}}{{[._]}}omp_outlined{{[._]}}omp_outlined(
// CLAMP:      %spread.prev.lb = call i64 @llvm.smax.i64(i64 %2, i64 %spread.lo)
// CLAMP-NEXT: %spread.prev.ub = call i64 @llvm.smin.i64(i64 %3, i64 %spread.last)

// PIPE: @__spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}} = protected {{(local_unnamed_addr )?}}global [2 x i64] [i64 0, i64 9223372036854775807]
// PIPE: @__spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}} = protected {{(local_unnamed_addr )?}}constant [112 x i8]

// PTX-DAG: .visible .global .align 8 .b8 __spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}[16] = {0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 127};
// PTX-DAG: .visible .global .align 8 .b8 __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}[112] = {83, 80, 82, 68, 1, 0, 0, 0, 2, 0,
// PTX-DAG: ld.global.u64 {{.*}}[__spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}+8];
