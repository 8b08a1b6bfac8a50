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
  int32_t __spread_schedule; /* __SPREAD_SCHED_*: the spread_schedule / dist_schedule kind */
} __spread_construct_t;

enum {
  __SPREAD_KIND_TARGET = 1,
  __SPREAD_KIND_DATA = 2,
  __SPREAD_KIND_ENTER_DATA = 3,
  __SPREAD_KIND_EXIT_DATA = 4,
  __SPREAD_KIND_UPDATE = 5,
  __SPREAD_KIND_UPDATE_PEER = 6,
  __SPREAD_KIND_WAIT_DEVICE = 7,
  __SPREAD_KIND_CU = 8
};
enum { __SPREAD_FLAG_NOWAIT = 1 };
/* Schedules (docs/schedules.md). DEFAULT: SPREAD_SCHEDULE, else static. */
enum {
  __SPREAD_SCHED_DEFAULT = 0,
  __SPREAD_SCHED_STATIC = 1,
  __SPREAD_SCHED_DYNAMIC = 2,
  __SPREAD_SCHED_ADAPTIVE = 3,
  __SPREAD_SCHED_STATIC_OPT = 4
};

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
/* The region's token for the current chunk's device: a `nowait` chunk's task depends on it. */
char *__spread_chunk_order(__spread_region_t *);
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

/* --- reductions on target spread (docs/spread-abi.md §4) -------------------------------- */

enum {
  __SPREAD_RED_ADD = 1, __SPREAD_RED_SUB = 2, __SPREAD_RED_MUL = 3, __SPREAD_RED_MAX = 4,
  __SPREAD_RED_MIN = 5, __SPREAD_RED_BAND = 6, __SPREAD_RED_BOR = 7, __SPREAD_RED_BXOR = 8,
  __SPREAD_RED_LAND = 9, __SPREAD_RED_LOR = 10
};
enum {
  __SPREAD_TYPE_UNSUPPORTED = 0,
  __SPREAD_TYPE_I8 = 1, __SPREAD_TYPE_I16 = 2, __SPREAD_TYPE_I32 = 3, __SPREAD_TYPE_I64 = 4,
  __SPREAD_TYPE_U8 = 5, __SPREAD_TYPE_U16 = 6, __SPREAD_TYPE_U32 = 7, __SPREAD_TYPE_U64 = 8,
  __SPREAD_TYPE_F32 = 9, __SPREAD_TYPE_F64 = 10
};
typedef struct __spread_reductions __spread_reductions_t;
/* (r, op, type, &original, sizeof original): registers reduction variable number k (k = calls so
 * far), right after __spread_region_begin. An unsupported type or op is fatal, naming the construct. */
void __spread_reduction(__spread_region_t *, int32_t, int32_t, void *, size_t);
/* (r, k): the current chunk's partial of variable k, initialised to the op's identity. Chunks on
 * one device share one partial and accumulate into it in order. */
void *__spread_reduction_slot(__spread_region_t *, int32_t);
/* (r): the region's reductions, taken out of it (call before __spread_region_end). */
__spread_reductions_t *__spread_region_reductions(__spread_region_t *);
/* Combines every partial into its original variable (in device-list order) and frees them; after
 * __spread_region_end, or for nowait in a task that depends on all the chunks' tasks. */
void __spread_reductions_finish(__spread_reductions_t *);

#ifdef __cplusplus
} /* extern "C" */
template <typename __spread_T> struct __spread_type_code { enum { value = __SPREAD_TYPE_UNSUPPORTED }; };
template <> struct __spread_type_code<signed char> { enum { value = __SPREAD_TYPE_I8 }; };
template <> struct __spread_type_code<char> { enum { value = (char)-1 < 0 ? __SPREAD_TYPE_I8 : __SPREAD_TYPE_U8 }; };
template <> struct __spread_type_code<short> { enum { value = __SPREAD_TYPE_I16 }; };
template <> struct __spread_type_code<int> { enum { value = __SPREAD_TYPE_I32 }; };
template <> struct __spread_type_code<long> { enum { value = sizeof(long) == 8 ? __SPREAD_TYPE_I64 : __SPREAD_TYPE_I32 }; };
template <> struct __spread_type_code<long long> { enum { value = __SPREAD_TYPE_I64 }; };
template <> struct __spread_type_code<unsigned char> { enum { value = __SPREAD_TYPE_U8 }; };
template <> struct __spread_type_code<unsigned short> { enum { value = __SPREAD_TYPE_U16 }; };
template <> struct __spread_type_code<unsigned int> { enum { value = __SPREAD_TYPE_U32 }; };
template <> struct __spread_type_code<unsigned long> { enum { value = sizeof(long) == 8 ? __SPREAD_TYPE_U64 : __SPREAD_TYPE_U32 }; };
template <> struct __spread_type_code<unsigned long long> { enum { value = __SPREAD_TYPE_U64 }; };
template <> struct __spread_type_code<float> { enum { value = __SPREAD_TYPE_F32 }; };
template <> struct __spread_type_code<double> { enum { value = __SPREAD_TYPE_F64 }; };
#define __SPREAD_TYPE_OF(x) ((int32_t)__spread_type_code<__typeof__(x)>::value)
extern "C" {
#else
#define __SPREAD_TYPE_OF(x)                                                                        \
  ((int32_t)_Generic((x), signed char: __SPREAD_TYPE_I8, char: ((char)-1 < 0 ? __SPREAD_TYPE_I8 : __SPREAD_TYPE_U8), \
                     short: __SPREAD_TYPE_I16, int: __SPREAD_TYPE_I32,                             \
                     long: (sizeof(long) == 8 ? __SPREAD_TYPE_I64 : __SPREAD_TYPE_I32),            \
                     long long: __SPREAD_TYPE_I64, unsigned char: __SPREAD_TYPE_U8,                \
                     unsigned short: __SPREAD_TYPE_U16, unsigned int: __SPREAD_TYPE_U32,           \
                     unsigned long: (sizeof(long) == 8 ? __SPREAD_TYPE_U64 : __SPREAD_TYPE_U32),   \
                     unsigned long long: __SPREAD_TYPE_U64, float: __SPREAD_TYPE_F32,              \
                     double: __SPREAD_TYPE_F64, default: __SPREAD_TYPE_UNSUPPORTED))
#endif

/* --- compute units (seed 004; docs/compute-units.md) ------------------------------------- */

typedef struct __spread_cu_region __spread_cu_region_t;
/* One CU descriptor of num_teams(count:family:size). */
typedef struct {
  int32_t __spread_count;  /* how many CUs */
  int32_t __spread_family; /* __SPREAD_CU_CPU or __SPREAD_CU_GPU */
  int32_t __spread_size;   /* CPUs (or devices) per CU */
} __spread_cud_t;
enum { __SPREAD_CU_CPU = 1, __SPREAD_CU_GPU = 2 };
/* (c, lb, ub, descriptors, ndescriptors, chunk, thread_limit (0: none)): c->kind is
 * __SPREAD_KIND_CU, c->schedule the dist_schedule kind. Impossible configurations are fatal,
 * naming the construct. */
__spread_cu_region_t *__spread_cu_begin(const __spread_construct_t *, int64_t, int64_t,
                                        const __spread_cud_t *, int32_t, int64_t, int32_t);
/* Threads of the parallel region that runs the CUs: one per CU. */
int32_t __spread_cu_num_threads(__spread_cu_region_t *);
/* Called by every thread of that region first: it becomes CU omp_get_thread_num(). */
void __spread_cu_enter(__spread_cu_region_t *);
/* (cu, &lo, &hi): the invoking CU's next unit [lo, hi); 0 when it gets no more. */
int32_t __spread_cu_next(__spread_cu_region_t *, int64_t *, int64_t *);
/* (cu, lo, hi): the unit is done (a GPU CU synchronizes its devices first). */
void __spread_cu_commit(__spread_cu_region_t *, int64_t, int64_t);
/* Called by every thread last. */
void __spread_cu_leave(__spread_cu_region_t *);
/* After the parallel region: feeds the schedule's model and frees the region. */
void __spread_cu_end(__spread_cu_region_t *);

/* What one CU of the last compute-unit region that ended did (spread_cu_last_stats). */
typedef struct {
  int32_t spread_cu;          /* CU number */
  int32_t spread_is_gpu;      /* 1: a GPU CU */
  int32_t spread_device;      /* a GPU CU's first device, else -1 */
  int32_t spread_cpus;        /* a CPU CU's CPUs, else 1 */
  int64_t spread_units;       /* units (__spread_cu_next results) it completed */
  int64_t spread_iterations;  /* loop iterations in them */
  double spread_busy_seconds; /* summed time from each unit's __spread_cu_next to its commit */
} spread_cu_stats_t;
/* (The fields carry the reserved prefix so that a program's macros cannot rename them.) */
/* (out, n): fills out[0 .. min(n, CUs)) for the last compute-unit region that ended and returns
 * its number of CUs (0 before any ended). */
int spread_cu_last_stats(spread_cu_stats_t *, int);

/* CU queries (seed 004, Table 2). Outside a CU region the whole host is one CPU CU. The paper's
 * omp_get_num_threads() (CPUs of the invoking CPU CU) is omp_get_cu_num_cpus() here, so that
 * omp_get_num_threads keeps its OpenMP meaning. */
unsigned int omp_get_num_cus(void);
unsigned int omp_get_num_gpus(void);
unsigned int omp_get_num_cpus(void);
unsigned int omp_get_cu_num_cpus(void);
int omp_is_gpu(void);
int omp_is_cpu(void);
unsigned int omp_get_gpu(void);
unsigned int omp_get_cpu(void);
unsigned int omp_get_cu_num(void);
void omp_synchronize(void);

/* Data placement (seed 004 §3.3): a registered range has one placement, a device number or the
 * host (omp_get_initial_device()). */
int omp_get_data_placement(const void *);
int omp_is_device(int);
int omp_is_host(int);
/* (ptr, bytes): starts tracking; placement = the host. 0 on success, nonzero after printing why. */
int spread_register_data(void *, size_t);
/* Migrates the range home and stops tracking it. */
int spread_unregister_data(void *);
/* Moves the range to the invoking CU's space (a GPU CU's device, else the host). */
int spread_migrate_data(void *);
/* Moves the range to device `dev` (or the host: omp_get_initial_device()). */
int spread_migrate_data_to(void *, int);

/* `#pragma omp target update peer to(list) to_device(d) from(list) from_device(e)`: one call per
 * pair of list items (the i-th `to` item receives the i-th `from` item). Errors are fatal, as for
 * `target update`. */
void __spread_update_peer(const __spread_construct_t *, void *, size_t,
                          int32_t, const void *, size_t,
                          int32_t);
/* `#pragma omp wait device(d)`. */
void __spread_device_wait(const __spread_construct_t *, int32_t);

/* --- task sharing: target device(any) (seed 002; docs/task-sharing.md) ------------------- */

/* Kinds of device a version of an instance runs on: the host's own cores (no copies), Spread's
 * host devices (x86_64 images with memory of their own) and NVIDIA GPUs. */
enum { __SPREAD_ANY_HOST = 1, __SPREAD_ANY_CPU = 2, __SPREAD_ANY_NVIDIA = 3 };
/* Version flags: FALLBACK = not a candidate; it runs only under if(false) or when no device is a
 * candidate. COST_AUTO = resources(auto). */
enum { __SPREAD_ANY_FALLBACK = 1, __SPREAD_ANY_COST_AUTO = 2 };
/* One version of a device(any) site: which kind runs which arm of the lowered switch. */
typedef struct {
  int32_t __spread_kind;    /* __SPREAD_ANY_HOST / CPU / NVIDIA */
  int32_t __spread_subarch; /* NVIDIA: compute capability XY (sm_90, cc90 -> 90); 0: any */
  int32_t __spread_arm;     /* the switch arm that runs this version */
  int32_t __spread_flags;   /* __SPREAD_ANY_FALLBACK | __SPREAD_ANY_COST_AUTO */
} __spread_any_version_t;
/* One `target device(any)` construct of the source. */
typedef struct {
  const char *__spread_file; /* source file */
  int32_t __spread_line;     /* line of its pragma */
  int32_t __spread_column;   /* column of its 'device(any)' clause */
  int32_t __spread_nversions;
  const __spread_any_version_t *__spread_versions;
} __spread_any_site_t;
/* One mapped range of an instance (map items with a known extent): locality and lazy coherence. */
typedef struct {
  const void *__spread_ptr; /* first byte */
  int64_t __spread_bytes;
  int32_t __spread_type; /* __SPREAD_ANY_MAP_TO | __SPREAD_ANY_MAP_FROM (0: alloc) */
} __spread_any_map_t;
enum { __SPREAD_ANY_MAP_TO = 1, __SPREAD_ANY_MAP_FROM = 2 };
/* Flags of one instance. */
enum { __SPREAD_ANY_NOWAIT = 1, __SPREAD_ANY_IF_FALSE = 2 };
/* Where one instance runs: `target device(__spread_device)` in switch arm `__spread_arm`. */
typedef struct {
  int32_t __spread_device;  /* a device number, or omp_get_initial_device() for the host */
  int32_t __spread_arm;     /* the arm to run */
  int32_t __spread_threads; /* host versions: num_threads of their parallel construct */
  int32_t __spread_reserved; /* the runtime's (a setting release restores) */
  void *__spread_ticket;    /* the runtime's record of the instance */
} __spread_any_pick_t;
/* (site, costs[nversions] (resources values; 0 = none), maps, nmaps, __SPREAD_ANY_* flags):
 * chooses the device of one instance, waiting (without holding a core) until a candidate has
 * the tokens and a free slot, and takes them. */
__spread_any_pick_t __spread_any_acquire(const __spread_any_site_t *, const int64_t *,
                                         const __spread_any_map_t *, int32_t, int32_t);
/* The instance has ended: returns its tokens and slot, feeds the model. */
void __spread_any_release(__spread_any_pick_t *);
/* Right before a `nowait` instance's task with `depend` clauses is created: the task is an
 * instance's, so run at once (outside a parallel region) it does not wait for the instances it
 * depends on; its instance may follow them on their device instead. */
void __spread_any_instance_next(void);
/* First call of a `nowait` instance's task: warns once when instances created outside a
 * parallel region cannot overlap (Spread's OMPT tool does not run). */
void __spread_any_deferred(void);
/* Whether a `nowait` instance's arm runs as a `target nowait` (outside a task team, Spread's
 * tool running; a host pick is moved to the host share, an asynchronous host device with the
 * host's memory, by rewriting __spread_device); its release then waits for that construct. */
int __spread_any_async(__spread_any_pick_t *);

/* What one device did for device(any) instances since the program started (or the last
 * spread_any_stats_reset): instances, busy time and bytes moved. */
typedef struct {
  int32_t spread_device;     /* device number; omp_get_initial_device() for the host */
  int32_t spread_kind;       /* __SPREAD_ANY_HOST / CPU / NVIDIA (as it served, aliases applied) */
  int64_t spread_instances;  /* instances it ran */
  int64_t spread_stolen;     /* of them, taken from another device's queue */
  int64_t spread_bytes_in;   /* bytes copied to it for instances (host to device, peer) */
  int64_t spread_bytes_out;  /* bytes copied back from it (device to host) */
  int32_t spread_max_tokens; /* most tokens in use at once */
  int32_t spread_max_running; /* most instances running at once */
  double spread_busy_seconds; /* summed time from acquire to release of its instances */
} spread_any_stats_t;
/* (out, n): fills out[0 .. min(n, devices + 1)) (devices, then the host) and returns that count. */
int spread_any_stats(spread_any_stats_t *, int);
/* Zeroes the counters of spread_any_stats. */
void spread_any_stats_reset(void);
/* Makes every device(any) output visible on the host now (lazy coherence; a no-op in the default
 * copy mode). taskwait, taskgroup, barriers and program exit do it too. */
void spread_any_flush(void);

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
