// spread-auto on kernels it must leave alone: each gets a -Rpass-missed=spread-auto remark that
// says why, and no window, clamp or descriptor (the module is unchanged), for x86_64 and
// nvptx64 device IR at -O0 and -O2 (docs/pass.md, "Automatic spreading (spread-auto)").
//
// RUN: %clang-plain -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu --offload-device-only -emit-llvm -S %s -o %t.x86-O2.ll
// RUN: %clang-plain -O0 -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O0.ll
// RUN: %clang-plain -O2 -Xclang -disable-llvm-passes -fopenmp --offload-arch=sm_90 -nogpulib --offload-device-only -emit-llvm -S %s -o %t.nv-O2.ll
//
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O0.ll -o %t.x86-O0.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: %opt -S %t.x86-O0.ll -o %t.x86-O0.same.ll
// RUN: diff %t.x86-O0.same.ll %t.x86-O0.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.x86-O2.ll -o %t.x86-O2.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: %opt -S %t.x86-O2.ll -o %t.x86-O2.same.ll
// RUN: diff %t.x86-O2.same.ll %t.x86-O2.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O0.ll -o %t.nv-O0.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: %opt -S %t.nv-O0.ll -o %t.nv-O0.same.ll
// RUN: diff %t.nv-O0.same.ll %t.nv-O0.out.ll
// RUN: %opt -load-pass-plugin=%spread-pass -passes=spread-auto -pass-remarks=spread-auto -pass-remarks-missed=spread-auto \
// RUN:   -S %t.nv-O2.ll -o %t.nv-O2.out.ll 2>&1 | FileCheck --check-prefix=REMARK --implicit-check-not=remark %s
// RUN: %opt -S %t.nv-O2.ll -o %t.nv-O2.same.ll
// RUN: diff %t.nv-O2.same.ll %t.nv-O2.out.ll

#include <omp.h>
#include <stdio.h>

extern void opaque(float *p);
#pragma omp declare target
int counter;
// The pass analyses the program's functions inlined into the loop (spread-auto-calls.c); what
// they do is checked as the loop's own code.
__attribute__((noinline)) float helper(float v) { return v * 0.5f + omp_get_thread_num(); }
#pragma omp end declare target

// Reductions are spread (spread-auto-reduction.c), except these.
// An array section: the runtime combines scalar variables only.
void arrayred(int n, const int *x, int *h) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_arrayred_l[[@LINE+1]] runs on one device: an array reduction (a reduction over an array section; only scalar variables are spread) [arrayred, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(+ : h[0:4]) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    h[i & 3] += x[i];
}

// A user-defined reduction: its combiner and initializer are the program's.
#pragma omp declare reduction(maxabs : int : omp_out = omp_out > (omp_in < 0 ? -omp_in : omp_in) ? omp_out : (omp_in < 0 ? -omp_in : omp_in)) initializer(omp_priv = 0)
int udr(int n, const int *x) {
  int m = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_udr_l[[@LINE+1]] runs on one device: a user-defined reduction (declare reduction) [udr, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(maxabs : m) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    m = m > x[i] ? m : x[i];
  return m;
}

// _Bool: clang's combination converts the i8 to i1 and back, which no operator of the
// runtime's matches on every i8 value.
_Bool allpos(int n, const int *x) {
  _Bool b = 1;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_allpos_l[[@LINE+1]] runs on one device: a reduction whose operator the pass cannot name (over i8) [allpos, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(&& : b) map(to : x[0:n])
  for (int i = 0; i < n; i++)
    b = b && x[i] > 0;
  return b;
}

// target + nested teams reduction(+ : s) without a map of s: s is firstprivate to the target
// region, and the teams region combines into the kernel's copy of it.
int unmapped(int n, const int *x) {
  int s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_unmapped_l[[@LINE+1]] runs on one device: a reduction into a variable the target region does not map (its firstprivate copy) [unmapped, line [[@LINE+1]]]
#pragma omp target map(to : x[0:n])
#pragma omp teams distribute parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

// A reduction is no longer a refusal, but what else the kernel does still is.
float redatomic(int n, const float *x, int *h, int *slot) {
  float s = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_redatomic_l[[@LINE+1]] runs on one device: an atomic capture (the value before the update is used) [redatomic, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for reduction(+ : s) map(to : x[0:n]) map(tofrom : h[0:8], slot[0:n])
  for (int i = 0; i < n; i++) {
    s += x[i];
    int t;
#pragma omp atomic capture
    t = h[i & 7]++;
    slot[i] = t;
  }
  return s;
}

// An atomic capture: the values handed out would repeat on each device (atomic updates of
// scalars and of array elements are reductions: test-suite/auto/atomic.c).
void atomic(int n, const int *x, int *h, int *out) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_atomic_l[[@LINE+1]] runs on one device: an atomic capture (the value before the update is used) [atomic, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : h[0:16], out[0:n])
  for (int i = 0; i < n; i++) {
    int t;
#pragma omp atomic capture
    t = h[x[i] & 15]++;
    out[i] = t;
  }
}

// A critical section (on the GPU also the warp-mask calls that implement it).
void critical(int n, const float *x, float *m) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_critical_l[[@LINE+1]] runs on one device: a critical section (calls __kmpc_critical) [critical, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : m[0:1])
  for (int i = 0; i < n; i++) {
#pragma omp critical
    if (x[i] > m[0])
      m[0] = x[i];
  }
}

// A scatter: which elements a block writes is unknown.
void scatter(int n, const int *idx, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_scatter_l[[@LINE+1]] runs on one device: a non-affine write to arg1 [scatter, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : idx[0:n], x[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[idx[i]] = x[i];
}

// Team numbers repeat on every device.
void teamnum(int n, int *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_teamnum_l[[@LINE+1]] runs on one device: a team-number query (omp_get_team_num) [teamnum, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = omp_get_team_num();
}

// So do thread numbers.
void threadnum(int n, int *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_threadnum_l[[@LINE+1]] runs on one device: a thread-number query (omp_get_thread_num) [threadnum, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = omp_get_thread_num();
}

// A call to a function that is only declared.
void unknown(int n, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_unknown_l[[@LINE+1]] runs on one device: a call to 'opaque' with unknown memory effects [unknown, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    opaque(&y[i]);
}

// A declare target function that queries the thread number.
void notinlined(int n, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_notinlined_l[[@LINE+1]] runs on one device: a thread-number query (omp_get_thread_num) [notinlined, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = helper(y[i]);
}

// printf (__llvm_omp_vprintf on the GPU).
void print(int n, const float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_print_l[[@LINE+1]] runs on one device: a call to '{{printf|__llvm_omp_vprintf}}' with unknown memory effects [print, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : y[0:n])
  for (int i = 0; i < n; i++)
    printf("%f\n", y[i]);
}

// A declare target variable: one copy per device.
void global(int n, int *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_global_l[[@LINE+1]] runs on one device: a non-constant global variable ('counter') [global, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = counter + i;
}

// schedule(dynamic): not a static loop the clamps bound.
void dynamic(int n, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_dynamic_l[[@LINE+1]] runs on one device: a dynamic schedule (calls __kmpc_dispatch_init_4) [dynamic, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for schedule(dynamic) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += 1;
}

// target parallel for: no teams, no tripcount from the host.
void parallelfor(int n, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_parallelfor_l[[@LINE+1]] runs on one device: no combined teams distribute parallel for loop (a parallel region without teams) [parallelfor, line [[@LINE+1]]]
#pragma omp target parallel for map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += 1;
}

// teams distribute without parallel for.
void distribute(int n, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_distribute_l[[@LINE+1]] runs on one device: no combined teams distribute parallel for loop (a teams region without a parallel loop) [distribute, line [[@LINE+1]]]
#pragma omp target teams distribute map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] += 1;
}

struct vec { float *p; };
// A pointer read from a struct in device memory: its section cannot be derived.
void member(int n, struct vec *v) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_member_l[[@LINE+1]] runs on one device: a pointer loaded from memory (a struct member or a pointer array) [member, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : v[0:1]) map(tofrom : v->p[0:n])
  for (int i = 0; i < n; i++)
    v->p[i] += 1;
}

// A write at an iteration-independent address: every device would write it.
void lastone(int n, const float *x, float *last) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_lastone_l[[@LINE+1]] runs on one device: a write to arg1 at an address that does not depend on the iteration [lastone, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : last[0:1])
  for (int i = 0; i < n; i++)
    if (i == n - 1)
      last[0] = x[i];
}

// A gather from an array the loop also writes.
void permute(int n, const int *idx, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_permute_l[[@LINE+1]] runs on one device: a non-affine read of arg1, which is also written [permute, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : idx[0:n]) map(tofrom : y[0:n])
  for (int i = 0; i < n; i++)
    y[i] = y[idx[i]] + 1;
}

// y[i + a + b]: the descriptor has room for one scalar argument.
void twosyms(int n, int a, int b, const float *x, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_twosyms_l[[@LINE+1]] runs on one device: more than one symbolic term in a write to arg1 [twosyms, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n + a + b])
  for (int i = 0; i < n; i++)
    y[i + a + b] = x[i];
}

// A sequential inner loop that writes, whose iteration count is data (a counted inner loop is
// spread: spread-auto-inner.c).
void rows(int n, int m, float *y) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_rows_l[[@LINE+1]] runs on one device: a write to arg1 in a loop nested in the parallel loop whose range the pass cannot bound [rows, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(tofrom : y[0:n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; y[i * m + j] != 0; j++)
      y[i * m + j] = 0;
}

// Addresses of mapped data as values: every device has its own copy at its own address
// (HeCBench memtest's "own address" test writes and then checks these).
void selfaddr(unsigned long n, unsigned long *buf) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_selfaddr_l[[@LINE+1]] runs on one device: the address of arg1 used as a value (each device holds its own copy at its own address) [selfaddr, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(tofrom : buf[0:n])
  for (unsigned long i = 0; i < n; i++)
    buf[i] = (unsigned long)(buf + i);
}

int selfcheck(unsigned long n, const unsigned long *buf) {
  int bad = 0;
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_selfcheck_l[[@LINE+1]] runs on one device: the address of arg{{[0-9]}} used as a value (each device holds its own copy at its own address) [selfcheck, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : buf[0:n]) reduction(+ : bad)
  for (unsigned long i = 0; i < n; i++)
    bad += buf[i] != (unsigned long)(buf + i);
  return bad;
}

void ptrstore(int n, float *x, float **p) {
// REMARK: remark: {{.*}}kernel __omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_ptrstore_l[[@LINE+1]] runs on one device: the address of arg{{[0-9]}} stored to memory (each device holds its own copy at its own address) [ptrstore, line [[@LINE+1]]]
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(from : p[0:n])
  for (int i = 0; i < n; i++)
    p[i] = &x[i];
}
