/* spread.h -- Spread's public C API and the ABI its compiler lowering uses.
 *
 * Include after <omp.h>. spread-cc includes it in every translation unit it lowers.
 * The __spread_* functions are called by code the driver and the pass generate
 * (docs/spread-abi.md); programs do not call them directly.
 */
#ifndef SPREAD_H
#define SPREAD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- target spread: compiler <-> runtime ABI (docs/spread-abi.md) ------------------------ */

typedef struct __spread_region __spread_region_t;

typedef struct {
  const char *file; /* source file of the construct */
  int32_t line;     /* line of its pragma */
  int32_t kind;     /* __SPREAD_KIND_* */
  int32_t flags;    /* __SPREAD_FLAG_* */
  int32_t reserved;
} __spread_construct_t;

enum {
  __SPREAD_KIND_TARGET = 1,
  __SPREAD_KIND_DATA = 2,
  __SPREAD_KIND_ENTER_DATA = 3,
  __SPREAD_KIND_EXIT_DATA = 4,
  __SPREAD_KIND_UPDATE = 5
};
enum { __SPREAD_FLAG_NOWAIT = 1 };

__spread_region_t *__spread_region_begin(const __spread_construct_t *c, int64_t lb, int64_t ub,
                                         const int32_t *devices, int32_t ndevices,
                                         int64_t chunk);
int32_t __spread_chunk_next(__spread_region_t *r);
int64_t __spread_chunk_start(__spread_region_t *r);
int64_t __spread_chunk_size(__spread_region_t *r);
int32_t __spread_chunk_device(__spread_region_t *r);
void __spread_region_end(__spread_region_t *r);

/* Substituted by the pass for libomptarget's launch and data calls inside a region. The
 * ident_t and KernelArgsTy arguments are libomptarget's (opaque here). */
int __spread_target_kernel(__spread_region_t *r, void *loc, int64_t device, int32_t num_teams,
                           int32_t thread_limit, void *host_ptr, void *kernel_args);
void __spread_target_data_begin_mapper(__spread_region_t *r, void *loc, int64_t device,
                                       int32_t n, void **bases, void **begins, int64_t *sizes,
                                       int64_t *types, void **names, void **mappers);
void __spread_target_data_end_mapper(__spread_region_t *r, void *loc, int64_t device, int32_t n,
                                     void **bases, void **begins, int64_t *sizes,
                                     int64_t *types, void **names, void **mappers);
void __spread_target_data_update_mapper(__spread_region_t *r, void *loc, int64_t device,
                                        int32_t n, void **bases, void **begins,
                                        int64_t *sizes, int64_t *types, void **names,
                                        void **mappers);

#ifdef __cplusplus
}
#endif

#endif /* SPREAD_H */
