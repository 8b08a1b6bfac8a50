/* spread.h -- Spread's public C API and the ABI its compiler lowering uses.
 *
 * Include after <omp.h>. spread-cc includes it in every translation unit it lowers.
 * The __spread_* functions are called by code the driver and the pass generate
 * (docs/spread-abi.md); programs do not call them directly.
 */
#ifndef SPREAD_H
#define SPREAD_H

#include <omp.h>
#include <stddef.h>
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
  __SPREAD_KIND_UPDATE = 5,
  __SPREAD_KIND_UPDATE_PEER = 6,
  __SPREAD_KIND_WAIT_DEVICE = 7
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

/* `#pragma omp target update peer to(list) to_device(d) from(list) from_device(e)`: one call per
 * pair of list items (the i-th `to` item receives the i-th `from` item). Errors are fatal, as for
 * `target update`. */
void __spread_update_peer(const __spread_construct_t *c, void *dst, size_t dst_bytes,
                          int32_t dst_device, const void *src, size_t src_bytes,
                          int32_t src_device);
/* `#pragma omp wait device(d)`. */
void __spread_device_wait(const __spread_construct_t *c, int32_t device);

/* --- peer copies and device waits (seed 003; docs/memory.md) ------------------------------ */

/* Copies `bytes` of mapped data from device `src_device` (the data mapped there for host address
 * `src`) to device `dst_device` (the data mapped there for host address `dst`), device to device,
 * after the work already queued on both devices. Returns 0, or nonzero after printing why. */
int spread_update_peer(void *dst, int dst_device, const void *src, int src_device, size_t bytes);
/* Waits until the work queued on `device` (and only that device) has finished. Returns 0, or
 * nonzero for an invalid device. */
int spread_device_wait(int device);

/* --- multi-device memory spaces and allocators (seed 001; docs/memory.md) ------------------ */

/* LLVM 19's omp.h uses 0 for omp_default_mem_space, so the OpenMP 6.0 "no memory space" value is
 * a distinct constant here. */
#ifndef omp_null_mem_space
#define omp_null_mem_space ((omp_memspace_handle_t)(UINTPTR_MAX - 1))
#endif

/* Allocator traits of seed 001, spelled as OpenMP spells traits. */
#define omp_atk_memory_access ((omp_alloctrait_key_t)0x5301)
#define omp_atk_preferred_location ((omp_alloctrait_key_t)0x5302) /* a device number */
#define omp_atk_preferred_place ((omp_alloctrait_key_t)0x5303)    /* a place number */
#define omp_atv_managed ((omp_uintptr_t)0x5301)
#define omp_atv_coherent ((omp_uintptr_t)0x5302)

/* What an allocation actually got (reported by the queries below, never requested). */
#define spread_atk_memory_kind ((omp_alloctrait_key_t)0x5310)
#define spread_atv_host_memory ((omp_uintptr_t)0x5311)        /* pageable host memory */
#define spread_atv_pinned_host_memory ((omp_uintptr_t)0x5312) /* page-locked host memory */
#define spread_atv_device_memory ((omp_uintptr_t)0x5313)      /* one device's own memory */
#define spread_atv_managed_memory ((omp_uintptr_t)0x5314)     /* migrating managed memory */

/* Seed 001: a memory space accessible from the `count` devices in `dev_nums` (which may include
 * omp_get_initial_device()), with `existing_memory_space` as the kind of memory to prefer; NULL
 * when no such space can be made (why: under SPREAD_INFO=memory). */
omp_memspace_handle_t *omp_get_target_memspace(int count, int *dev_nums,
                                               omp_memspace_handle_t existing_memory_space);

/* OpenMP 6.0 spellings; omp_null_mem_space / omp_null_allocator when no space can be made. */
omp_memspace_handle_t omp_get_devices_memspace(int ndevs, const int *devs,
                                               omp_memspace_handle_t memspace);
omp_memspace_handle_t omp_get_device_memspace(int dev, omp_memspace_handle_t memspace);
omp_memspace_handle_t omp_get_devices_and_host_memspace(int ndevs, const int *devs,
                                                        omp_memspace_handle_t memspace);
omp_memspace_handle_t omp_get_device_and_host_memspace(int dev, omp_memspace_handle_t memspace);
omp_memspace_handle_t omp_get_devices_all_memspace(omp_memspace_handle_t memspace);
omp_allocator_handle_t omp_get_devices_allocator(int ndevs, const int *devs,
                                                 omp_memspace_handle_t memspace);
omp_allocator_handle_t omp_get_device_allocator(int dev, omp_memspace_handle_t memspace);
omp_allocator_handle_t omp_get_devices_and_host_allocator(int ndevs, const int *devs,
                                                          omp_memspace_handle_t memspace);
omp_allocator_handle_t omp_get_device_and_host_allocator(int dev,
                                                         omp_memspace_handle_t memspace);
omp_allocator_handle_t omp_get_devices_all_allocator(omp_memspace_handle_t memspace);
int omp_get_memspace_num_resources(omp_memspace_handle_t memspace);

/* Asking what you got (seed 001, section 4.3): writes up to `max_traits` traits that the
 * allocation containing `ptr` (or every allocation of `allocator`) actually received, keys
 * omp_atk_memory_access, omp_atk_pinned, omp_atk_preferred_location, omp_atk_preferred_place,
 * omp_atk_alignment and spread_atk_memory_kind. Returns how many traits there are (which may
 * exceed max_traits), or -1 when `ptr` is not memory of a Spread allocator (`allocator` not one
 * of Spread's). */
int spread_get_alloc_traits(const void *ptr, omp_alloctrait_t *traits, int max_traits);
int spread_get_allocator_traits(omp_allocator_handle_t allocator, omp_alloctrait_t *traits,
                                int max_traits);

#ifdef __cplusplus
}
#endif

#endif /* SPREAD_H */
