// spread-auto through clang: -fpass-plugin loads the plugin into every job of an offload
// compile and it runs in the device job (the module with "openmp-device"), at -O0 and -O2, with
// or without -g; -Rpass=spread-auto and -Rpass-missed=spread-auto show its remarks at the
// directive (clang tracks locations for remarks even without -g). The object's device image
// defines the window and the descriptor.
//
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -Rpass=spread-auto -Rpass-missed=spread-auto -c %s -o %t.o 2>&1 | FileCheck --implicit-check-not=remark %s
// RUN: %clang-plain -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -Rpass=spread-auto -Rpass-missed=spread-auto -c %s -o %t-O2.o 2>&1 | FileCheck --implicit-check-not=remark %s
// RUN: %clang-plain -g -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -Rpass=spread-auto -Rpass-missed=spread-auto -c %s -o %t-g.o 2>&1 | FileCheck --implicit-check-not=remark %s
// RUN: clang-offload-packager %t-O2.o --image=file=%t.dev.o,triple=x86_64-unknown-linux-gnu,kind=openmp
// RUN: llvm-nm %t.dev.o | FileCheck --check-prefix=SYMS %s
//
// nvptx64 (device only: no CUDA needed for PTX): the same remarks, and PTX in which the runtime
// finds the globals (cuModuleGetGlobal needs .visible).
// RUN: %clang-plain -fopenmp --offload-arch=sm_90 --offload-device-only -nogpulib -fpass-plugin=%spread-pass \
// RUN:   -Rpass=spread-auto -Rpass-missed=spread-auto -S %s -o %t.ptx 2>&1 | FileCheck --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=PTX %s < %t.ptx
// RUN: %clang-plain -O2 -fopenmp --offload-arch=sm_90 --offload-device-only -nogpulib -fpass-plugin=%spread-pass \
// RUN:   -Rpass=spread-auto -Rpass-missed=spread-auto -S %s -o %t-O2.ptx 2>&1 | FileCheck --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=PTX %s < %t-O2.ptx
// With the device runtime linked in as builtin bitcode (what clang does for a fat binary when
// LIBRARY_PATH finds libomptarget-nvptx-sm_90.bc), its entry points are definitions at
// PipelineStart: still the same remarks (found on an H200: the GPU was left out of every spread).
// RUN: %clang-plain -O2 -fopenmp --offload-arch=sm_90 --offload-device-only -nogpulib \
// RUN:   -Xclang -mlink-builtin-bitcode -Xclang %llvm-lib/libomptarget-nvptx-sm_90.bc -fpass-plugin=%spread-pass -Rpass=spread-auto -Rpass-missed=spread-auto -S %s -o %t-rtl.ptx 2>&1 \
// RUN:   | FileCheck --implicit-check-not=remark %s
// RUN: FileCheck --check-prefix=PTX %s < %t-rtl.ptx
//
// Without the plugin, nothing of it.
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -S -emit-llvm %s -o - \
// RUN:   | FileCheck --check-prefix=PLAIN %s

void saxpy(int n, float a, const float *x, float *y) {
// CHECK: spread-auto-clang.c:[[@LINE+1]]:1: remark: kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l[[@LINE+1]] can be spread over devices: arg1:rw[4*i, 4B] arg3:r[4*i, 4B] [saxpy, line [[@LINE+1]]] [-Rpass=spread-auto]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + y[i];
}

float sum(int n, const float *x) {
  float s = 0;
  // CHECK: spread-auto-clang.c:[[@LINE+1]]:3: remark: kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_sum_l[[@LINE+1]] can be spread over devices: arg1:reduce(+, float) arg2:r[4*i, 4B] [sum, line [[@LINE+1]]] [-Rpass=spread-auto]
  #pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

void hist(int n, const int *x, int *h) {
  // CHECK: spread-auto-clang.c:[[@LINE+1]]:3: remark: kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_hist_l[[@LINE+1]] runs on one device: an array reduction (a reduction over an array section; only scalar variables are spread) [hist, line [[@LINE+1]]] [-Rpass-missed=spread-auto]
  #pragma omp target teams distribute parallel for reduction(+ : h[0:4]) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    h[i & 3] += x[i];
}

// SYMS-DAG: R __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}
// SYMS-DAG: D __spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}
// SYMS-DAG: R __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_sum_l{{[0-9]+}}
// SYMS-DAG: D __spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_sum_l{{[0-9]+}}
// SYMS-NOT: __spread_{{.*}}_hist_l

// PTX: .visible .global .align 8 .b8 __spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}[16] = {0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 255, 255, 255, 255, 255, 127};
// PTX: .visible .global .align 8 .b8 __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_saxpy_l{{[0-9]+}}[112] = {83, 80, 82, 68, 1, 0, 0, 0, 2,
// PTX: .visible .global .align 8 .b8 __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_sum_l{{[0-9]+}}[112] = {83, 80, 82, 68, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 5, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0,
// PTX-NOT: __spread_{{.*}}_hist_l

// PLAIN-NOT: __spread_
