// The plugin in clang: `-fpass-plugin` runs the pass on the host module of an offload
// compile (at the start of the host backend pipeline, at -O0 and -O2), the remark is
// shown with -Rpass=spread, and `spread` leaves the device compile alone. (The device job
// runs spread-auto, whose remark -Rpass=spread also matches; it comes before the lines
// REMARK checks; spread-auto-clang.c tests it.) The code is written the
// way the driver lowers a `target spread` loop (docs/spread-abi.md §2), with the runtime
// prototypes declared here.
//
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -Rpass=spread -c %s -o %t.o 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %clang-plain -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -Rpass=spread -c %s -o %t.o 2>&1 | FileCheck --check-prefix=REMARK %s
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang-plain -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -S -emit-llvm %s -o - | FileCheck %s
// Without the plugin nothing changes.
// RUN: %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -S -emit-llvm %s -o - \
// RUN:   | FileCheck --check-prefix=PLAIN %s

// REMARK:     remark: {{.*}}spread region at clang-plugin.c:47 rewritten into per-device chunked launches (1 launch, 0 data transfers) [-Rpass=spread]
// REMARK:     remark: {{.*}}spread region at clang-plugin.c:61 rewritten into per-device chunked launches (0 launches, 1 data transfer) [-Rpass=spread]
// REMARK-NOT: remark:

// CHECK-LABEL: define {{.*}}void @axpy(
// CHECK:       [[R:%[0-9]+]] = {{(tail )?}}call ptr @__spread_region_begin(
// CHECK:       call i32 @__spread_chunk_next(ptr {{(noundef )?}}[[R]])
// CHECK:       call i32 @__spread_target_kernel(ptr {{(noundef )?}}[[R]],
// CHECK:       call void @__spread_region_end(ptr {{(noundef )?}}[[R]])
// CHECK:       [[S:%[0-9]+]] = {{(tail )?}}call ptr @__spread_region_begin(
// CHECK:       call i32 @__spread_chunk_next(ptr {{(noundef )?}}[[S]])
// CHECK:       call void @__spread_target_data_update_mapper(ptr {{(noundef )?}}[[S]],
// CHECK:       call void @__spread_region_end(ptr {{(noundef )?}}[[S]])

// PLAIN-NOT: __spread_chunk_next

#include <stdint.h>

typedef struct __spread_region __spread_region_t;
typedef struct { const char *file; int32_t line; int32_t kind; int32_t flags; int32_t reserved; } __spread_construct_t;
__spread_region_t *__spread_region_begin(const __spread_construct_t *c, int64_t lb, int64_t ub,
                                         const int32_t *devices, int32_t ndevices, int64_t chunk);
int64_t __spread_chunk_start(__spread_region_t *r);
int64_t __spread_chunk_size(__spread_region_t *r);
int32_t __spread_chunk_device(__spread_region_t *r);
void __spread_region_end(__spread_region_t *r);

void axpy(int n, double a, const double *x, double *y) {
  // #pragma omp target spread teams distribute parallel for spread_schedule(static, 64) \
  //         map(to: x[omp_spread_start:omp_spread_size]) map(tofrom: y[omp_spread_start:omp_spread_size])
  {
    static const __spread_construct_t __spread_c_0 = { "clang-plugin.c", 47, 1, 0, 0 };
    __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (0), (n), 0, 0, (64));
    {
      const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0);
      const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;
      #pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) \
              map(to: x[omp_spread_start:omp_spread_size]) map(tofrom: y[omp_spread_start:omp_spread_size])
      for (int64_t i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) y[i] += a * x[i];
    }
    __spread_region_end(__spread_r_0);
  }
  // #pragma omp target update spread range(0:n) from(y[omp_spread_start:omp_spread_size])
  {
    static const __spread_construct_t __spread_c_1 = { "clang-plugin.c", 61, 5, 0, 0 };
    __spread_region_t *__spread_r_1 = __spread_region_begin(&__spread_c_1, (0), (0) + (n), 0, 0, (0));
    {
      const int64_t omp_spread_start = __spread_chunk_start(__spread_r_1);
      const int64_t omp_spread_size = __spread_chunk_size(__spread_r_1); (void)omp_spread_start; (void)omp_spread_size;
      #pragma omp target update device(__spread_chunk_device(__spread_r_1)) from(y[omp_spread_start:omp_spread_size])
    }
    __spread_region_end(__spread_r_1);
  }
}
