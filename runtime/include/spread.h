/* spread.h -- Spread's public C API and the ABI its compiler lowering uses.
 *
 * Include after <omp.h>. spread-cc includes it in every translation unit it lowers.
 * The __spread_* functions are called by code the driver and the pass generate
 * (docs/spread-abi.md); programs do not call them directly.
 */
#ifndef SPREAD_H
#define SPREAD_H

/* omp.h names its parameters and fields with plain identifiers: keep a program's macros of
 * those names (-Dvalue=1, -Dsize=2, -Ddevice=3) out of it when spread.h includes it first (the lowered file of
 * every spread-cc compilation does). */
#if defined(__clang__) || defined(__GNUC__)
#pragma push_macro("_lk")
#undef _lk
#pragma push_macro("a")
#undef a
#pragma push_macro("align")
#undef align
#pragma push_macro("allocator")
#undef allocator
#pragma push_macro("event")
#undef event
#pragma push_macro("free_allocator")
#undef free_allocator
#pragma push_macro("key")
#undef key
#pragma push_macro("limit")
#undef limit
#pragma push_macro("m")
#undef m
#pragma push_macro("nmemb")
#undef nmemb
#pragma push_macro("ntraits")
#undef ntraits
#pragma push_macro("num_teams")
#undef num_teams
#pragma push_macro("ptr")
#undef ptr
#pragma push_macro("size")
#undef size
#pragma push_macro("traits")
#undef traits
#pragma push_macro("value")
#undef value
#pragma push_macro("verbose")
#undef verbose
#pragma push_macro("device")
#undef device
#pragma push_macro("kind")
#undef kind
#pragma push_macro("host")
#undef host
#pragma push_macro("nohost")
#undef nohost
#pragma push_macro("match")
#undef match
#endif
#include <omp.h>
#if defined(__clang__) || defined(__GNUC__)
#pragma pop_macro("_lk")
#pragma pop_macro("a")
#pragma pop_macro("align")
#pragma pop_macro("allocator")
#pragma pop_macro("event")
#pragma pop_macro("free_allocator")
#pragma pop_macro("key")
#pragma pop_macro("limit")
#pragma pop_macro("m")
#pragma pop_macro("nmemb")
#pragma pop_macro("ntraits")
#pragma pop_macro("num_teams")
#pragma pop_macro("ptr")
#pragma pop_macro("size")
#pragma pop_macro("traits")
#pragma pop_macro("value")
#pragma pop_macro("verbose")
#pragma pop_macro("device")
#pragma pop_macro("kind")
#pragma pop_macro("host")
#pragma pop_macro("nohost")
#pragma pop_macro("match")
#endif
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* --- target spread: compiler <-> runtime ABI (docs/spread-abi.md) ------------------------ */

/* Prototypes name no parameters (docs/spread-abi.md has their names) and every other name here
 * is reserved (__spread_*, omp_*, spread_*), so that a program's macros (-Dn=100, #define c 1)
 * cannot change this header's meaning. */

typedef struct __spread_region __spread_region_t;

typedef struct {
  const char *__spread_file; /* source file of the construct */
  int32_t __spread_line;     /* line of its pragma */
  int32_t __spread_kind;     /* __SPREAD_KIND_* */
  int32_t __spread_flags;    /* __SPREAD_FLAG_* */
  int32_t __spread_reserved;
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

/* Reports a value the lowering found bad and ends the program (fatal, with the construct's
 * location): what 0 = a device of the devices clause that does not fit an int, 1 = a negative
 * range length. */
void __spread_bad_value(const __spread_construct_t *, int32_t, int64_t);

/* The lowering's range checks: a device number of the devices clause, a range length. */
static inline int32_t __spread_device_arg(const __spread_construct_t *__spread_c, long long __spread_v) {
  if (__spread_v < INT32_MIN || __spread_v > INT32_MAX)
    __spread_bad_value(__spread_c, 0, (int64_t)__spread_v);
  return (int32_t)__spread_v;
}
static inline int64_t __spread_length_arg(const __spread_construct_t *__spread_c, int64_t __spread_v) {
  if (__spread_v < 0)
    __spread_bad_value(__spread_c, 1, __spread_v);
  return __spread_v;
}

/* (c, lb, ub, devices, ndevices, chunk) */
__spread_region_t *__spread_region_begin(const __spread_construct_t *, int64_t, int64_t,
                                         const int32_t *, int32_t, int64_t);
int32_t __spread_chunk_next(__spread_region_t *);
int64_t __spread_chunk_start(__spread_region_t *);
int64_t __spread_chunk_size(__spread_region_t *);
int32_t __spread_chunk_device(__spread_region_t *);
void __spread_region_end(__spread_region_t *);

/* Substituted by the pass for libomptarget's launch and data calls inside a region. The
 * ident_t and KernelArgsTy arguments are libomptarget's (opaque here). */
int __spread_target_kernel(__spread_region_t *, void *, int64_t, int32_t,
                           int32_t, void *, void *);
void __spread_target_data_begin_mapper(__spread_region_t *, void *, int64_t,
                                       int32_t, void **, void **, int64_t *,
                                       int64_t *, void **, void **);
void __spread_target_data_end_mapper(__spread_region_t *, void *, int64_t, int32_t,
                                     void **, void **, int64_t *,
                                     int64_t *, void **, void **);
void __spread_target_data_update_mapper(__spread_region_t *, void *, int64_t,
                                        int32_t, void **, void **,
                                        int64_t *, int64_t *, void **,
                                        void **);

/* `#pragma omp target update peer to(list) to_device(d) from(list) from_device(e)`: one call per
 * pair of list items (the i-th `to` item receives the i-th `from` item). Errors are fatal, as for
 * `target update`. */
void __spread_update_peer(const __spread_construct_t *, void *, size_t,
                          int32_t, const void *, size_t,
                          int32_t);
/* `#pragma omp wait device(d)`. */
void __spread_device_wait(const __spread_construct_t *, int32_t);

/* --- peer copies and device waits (seed 003; docs/memory.md) ------------------------------ */

/* Copies `bytes` of mapped data from device `src_device` (the data mapped there for host address
 * `src`) to device `dst_device` (the data mapped there for host address `dst`), device to device,
 * after the work already queued on both devices. Returns 0, or nonzero after printing why. */
int spread_update_peer(void *, int, const void *, int, size_t);
/* Waits until the work queued on `device` (and only that device) has finished. Returns 0, or
 * nonzero for an invalid device. */
int spread_device_wait(int);

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
omp_memspace_handle_t *omp_get_target_memspace(int, int *,
                                               omp_memspace_handle_t);

/* OpenMP 6.0 spellings; omp_null_mem_space / omp_null_allocator when no space can be made. */
omp_memspace_handle_t omp_get_devices_memspace(int, const int *,
                                               omp_memspace_handle_t);
omp_memspace_handle_t omp_get_device_memspace(int, omp_memspace_handle_t);
omp_memspace_handle_t omp_get_devices_and_host_memspace(int, const int *,
                                                        omp_memspace_handle_t);
omp_memspace_handle_t omp_get_device_and_host_memspace(int, omp_memspace_handle_t);
omp_memspace_handle_t omp_get_devices_all_memspace(omp_memspace_handle_t);
omp_allocator_handle_t omp_get_devices_allocator(int, const int *,
                                                 omp_memspace_handle_t);
omp_allocator_handle_t omp_get_device_allocator(int, omp_memspace_handle_t);
omp_allocator_handle_t omp_get_devices_and_host_allocator(int, const int *,
                                                          omp_memspace_handle_t);
omp_allocator_handle_t omp_get_device_and_host_allocator(int,
                                                         omp_memspace_handle_t);
omp_allocator_handle_t omp_get_devices_all_allocator(omp_memspace_handle_t);
int omp_get_memspace_num_resources(omp_memspace_handle_t);

/* Asking what you got (seed 001, section 4.3): writes up to `max_traits` traits that the
 * allocation containing `ptr` (or every allocation of `allocator`) actually received, keys
 * omp_atk_memory_access, omp_atk_pinned, omp_atk_preferred_location, omp_atk_preferred_place,
 * omp_atk_alignment and spread_atk_memory_kind. Returns how many traits there are (which may
 * exceed max_traits), or -1 when `ptr` is not memory of a Spread allocator (`allocator` not one
 * of Spread's). */
int spread_get_alloc_traits(const void *, omp_alloctrait_t *, int);
int spread_get_allocator_traits(omp_allocator_handle_t, omp_alloctrait_t *,
                                int);

#ifdef __cplusplus
}
#endif

#endif /* SPREAD_H */
