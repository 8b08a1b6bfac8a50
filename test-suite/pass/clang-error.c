// In clang, a region that can be left without passing __spread_region_end (here a
// `return` inside it) fails the compile with an error naming the construct.
//
// RUN: not %clang-plain -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -c %s -o %t.o 2>&1 | FileCheck --check-prefix=ERR %s
// RUN: not %clang-plain -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -c %s -o %t.o 2>&1 | FileCheck --check-prefix=ERR %s

// ERR: error: spread: cannot rewrite target spread region at clang-error.c:23: a path from the region's begin leaves the function without reaching __spread_region_end

#include <stdint.h>

typedef struct __spread_region __spread_region_t;
typedef struct { const char *file; int32_t line; int32_t kind; int32_t flags; int32_t reserved; } __spread_construct_t;
__spread_region_t *__spread_region_begin(const __spread_construct_t *c, int64_t lb, int64_t ub,
                                         const int32_t *devices, int32_t ndevices, int64_t chunk);
int64_t __spread_chunk_start(__spread_region_t *r);
int64_t __spread_chunk_size(__spread_region_t *r);
int32_t __spread_chunk_device(__spread_region_t *r);
void __spread_region_end(__spread_region_t *r);

void scale(int n, double *x) {
  // #pragma omp target spread teams distribute parallel for map(tofrom: x[omp_spread_start:omp_spread_size])
  {
    static const __spread_construct_t __spread_c_0 = { "clang-error.c", 23, 1, 0, 0 };
    __spread_region_t *__spread_r_0 = __spread_region_begin(&__spread_c_0, (0), (n), 0, 0, (0));
    {
      const int64_t omp_spread_start = __spread_chunk_start(__spread_r_0);
      const int64_t omp_spread_size = __spread_chunk_size(__spread_r_0); (void)omp_spread_start; (void)omp_spread_size;
      if (omp_spread_size == 0)
        return; // leaves the region without __spread_region_end
      #pragma omp target teams distribute parallel for device(__spread_chunk_device(__spread_r_0)) \
              map(tofrom: x[omp_spread_start:omp_spread_size])
      for (int64_t i = omp_spread_start; i < omp_spread_start + omp_spread_size; i++) x[i] *= 2.0;
    }
    __spread_region_end(__spread_r_0);
  }
}
