// -E prints the lowered program preprocessed; -S and -fsyntax-only work; --spread-targets
// selects the offload targets; Spread's options are not passed to clang.
// RUN: %spread-cc -E %s | FileCheck --check-prefix=PP %s
// RUN: %spread-cc --spread-no-pass -S %s -o %t.s
// RUN: FileCheck --check-prefix=ASM --input-file=%t.s %s
// RUN: %spread-cc -fsyntax-only %s
// RUN: %spread-cc --spread-targets=nvptx64-nvidia-cuda -Xopenmp-target -march=sm_90 -nocudalib --spread-verbose -### -c %s 2>&1 | FileCheck --check-prefix=TGT %s
// RUN: not %spread-cc --spread-targets=nvptx64-nvidia-cuda -fopenmp-targets=x86_64-unknown-linux-gnu -c %s 2>&1 | FileCheck --check-prefix=CONFLICT %s
// RUN: not %spread-cc --spread-bogus -c %s 2>&1 | FileCheck --check-prefix=BOGUS %s
// RUN: %spread-cc --help | FileCheck --check-prefix=HELP %s
// RUN: %spread-cc -E %s -o %t.i
// RUN: %spread-cc --spread-verbose -c %t.i -o %t.o 2>&1 | FileCheck --check-prefix=PREPROCESSED %s

void f(int n, int *a) {
#pragma omp target spread devices(1, 0) map(tofrom: a[omp_spread_start:omp_spread_size])
  for (int i = 0; i < n; i++) a[i] += 1;
}
// PP: __spread_region_t *__spread_region_begin(
// PP: {{^}}void f(int n, int *a) {
// PP-NEXT: {{^}}{ static const __spread_construct_t __spread_c_0 = {
// PP: {{^}}#pragma omp target device(__spread_chunk_device(__spread_r_0)) map(tofrom: a[omp_spread_start:omp_spread_size])
// ASM: __spread_region_begin
// ASM: __spread_region_end
// TGT: -fopenmp-targets=nvptx64-nvidia-cuda
// TGT-NOT: --spread
// CONFLICT: spread-cc: error: use either --spread-targets or -fopenmp-targets, not both
// BOGUS: spread-cc: error: unknown Spread option '--spread-bogus' (see --help)
// HELP: --spread-print-lowered
// HELP: --spread-no-pass
// HELP: --spread-targets=<list>
// a preprocessed file is already lowered: compiled with the pass, not preprocessed again
// PREPROCESSED-NOT: -E
// PREPROCESSED: -fpass-plugin={{.*}}libspread_pass.so
