/* A fake CUDA driver (libcuda.so) for testing Spread's CUDA backend without a GPU.
 *
 * It implements exactly the driver calls runtime/src/sys/cuda.rs makes (plus cuGetErrorName)
 * for FAKECUDA_DEVICES (default 2) fake "H100"s, and checks how they are used: see README.md in
 * this directory. Kernels cannot run from a cubin on the CPU, so cuModuleLoadDataEx checks the
 * cubin (an EM_CUDA ELF) and loads, per module, a private copy of the x86_64 image of the same
 * program (FAKECUDA_HOST_IMAGE); kernels run from that copy on the stream's worker thread, while
 * kernel environments, the device environment and parameter sizes come from the cubin.
 *
 * Environment:
 *   FAKECUDA_DEVICES      number of GPUs (default 2, at most 8)
 *   FAKECUDA_MEMORY_MB    memory per GPU in MiB (default 1024)
 *   FAKECUDA_HOST_IMAGE   the x86_64 image of the program (clang-offload-packager-19)
 *   FAKECUDA_LOG          file to append `launch ...`, `devenv ...`, `streamquery ...` and
 *                         `register ...`/`unregister ...` lines, `maxbusy dev D N` at exit, to
 *   FAKECUDA_DELAY_US     sleep before each queued operation (makes missing synchronization
 *                         show up as wrong results; default 200)
 *   FAKECUDA_ILLEGAL_ADDRESS=K  the K-th kernel launch (counted from 1 over all GPUs, in the
 *                         order of the cuLaunchKernel calls) faults as a kernel that accessed an
 *                         illegal address does on a GPU: it does not run, and its GPU's context
 *                         fails every later stream, event, copy and launch call with
 *                         CUDA_ERROR_ILLEGAL_ADDRESS (700), as CUDA's sticky errors do
 *
 * Build: cc -shared -fPIC -O1 -pthread fakecuda.c -o libcuda.so -ldl
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef uint64_t CUdeviceptr;

enum {
  OK = 0, E_INVALID_VALUE = 1, E_OUT_OF_MEMORY = 2, E_NOT_INITIALIZED = 3, E_NO_DEVICE = 100,
  E_INVALID_DEVICE = 101, E_INVALID_IMAGE = 200, E_INVALID_CONTEXT = 201, E_INVALID_HANDLE = 400,
  E_NOT_FOUND = 500, E_NOT_READY = 600, E_PEER_ALREADY = 704, E_PEER_NOT_ENABLED = 705,
  E_HOST_ALREADY_REGISTERED = 712, E_HOST_NOT_REGISTERED = 713, E_LAUNCH_FAILED = 719,
  E_ILLEGAL_ADDRESS = 700, E_UNKNOWN = 999
};

#define MAXDEV 8
#define MAXPARAMS 32
#define EM_CUDA_ 190

/* --- state ------------------------------------------------------------------------------ */

struct ctx {
  int dev;
  int retained;
  unsigned flags;
  int peer[MAXDEV]; /* peer access enabled from this context to device i */
  size_t used;      /* bytes of device and managed memory */
  size_t limit_stack, limit_heap;
  int sticky;       /* a kernel faulted (FAKECUDA_ILLEGAL_ADDRESS): every later call fails */
};

enum kind { K_DEVICE, K_MANAGED, K_HOST, K_GLOBAL, K_REGISTERED };

struct alloc {
  uintptr_t base;
  size_t size;
  int dev; /* -1 for K_HOST and K_REGISTERED */
  enum kind kind;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* allocations, contexts, log */
static int initialized, ndev = 2, delay_us = 200, illegal_at, launches;
static size_t total_mem = (size_t)1 << 30;
static struct ctx ctxs[MAXDEV];
static struct alloc *allocs;
static size_t nallocs, cap_allocs;
static FILE *logf;
static __thread struct ctx *current;

static void die_msg(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "fakecuda: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

static void logline(const char *fmt, ...) {
  if (!logf)
    return;
  va_list ap;
  va_start(ap, fmt);
  pthread_mutex_lock(&lock);
  vfprintf(logf, fmt, ap);
  fputc('\n', logf);
  fflush(logf);
  pthread_mutex_unlock(&lock);
  va_end(ap);
}

static void add_alloc(uintptr_t base, size_t size, int dev, enum kind k) {
  pthread_mutex_lock(&lock);
  if (nallocs == cap_allocs) {
    cap_allocs = cap_allocs ? cap_allocs * 2 : 64;
    allocs = realloc(allocs, cap_allocs * sizeof *allocs);
  }
  allocs[nallocs++] = (struct alloc){base, size, dev, k};
  pthread_mutex_unlock(&lock);
}

/* The allocation containing [p, p+len), copied out; 0 when none. Caller holds no lock. */
static int find_alloc(uintptr_t p, size_t len, struct alloc *out) {
  int found = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nallocs; i++) {
    struct alloc *a = &allocs[i];
    if (p >= a->base && p - a->base < (a->size ? a->size : 1) && len <= a->size - (p - a->base)) {
      *out = *a;
      found = 1;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return found;
}

/* Removes the allocation starting exactly at p of one of the kinds in mask; returns it. */
static int take_alloc(uintptr_t p, unsigned mask, struct alloc *out) {
  int found = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nallocs; i++) {
    if (allocs[i].base == p && (mask & (1u << allocs[i].kind))) {
      *out = allocs[i];
      allocs[i] = allocs[--nallocs];
      found = 1;
      break;
    }
  }
  pthread_mutex_unlock(&lock);
  return found;
}

/* Whether [p, p+len) is memory a GPU can address: device, managed, mapped host memory or a
 * module global. `dev` >= 0 requires device memory / globals to belong to that device. */
static int gpu_range(uintptr_t p, size_t len, int dev) {
  struct alloc a;
  if (!find_alloc(p, len, &a))
    return 0;
  if (a.kind == K_REGISTERED)
    return 0;
  if (dev >= 0 && (a.kind == K_DEVICE || a.kind == K_GLOBAL) && a.dev != dev)
    return 0;
  return 1;
}

/* Whether [p, p+len) overlaps device memory or a module global (not readable by the host). */
static int touches_device(uintptr_t p, size_t len) {
  int hit = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nallocs && !hit; i++) {
    struct alloc *a = &allocs[i];
    if ((a->kind == K_DEVICE || a->kind == K_GLOBAL) && p < a->base + a->size &&
        a->base < p + len)
      hit = 1;
  }
  pthread_mutex_unlock(&lock);
  return hit;
}

#define NEED_INIT()                                                                            \
  do {                                                                                         \
    if (!initialized)                                                                          \
      return E_NOT_INITIALIZED;                                                                \
  } while (0)
#define NEED_CTX()                                                                             \
  do {                                                                                         \
    NEED_INIT();                                                                               \
    if (!current)                                                                              \
      return E_INVALID_CONTEXT;                                                                \
  } while (0)
/* The context is usable: a faulted one fails the call with its sticky error. */
#define NEED_HEALTHY()                                                                         \
  do {                                                                                         \
    NEED_CTX();                                                                                \
    int sticky_ = __atomic_load_n(&current->sticky, __ATOMIC_SEQ_CST);                         \
    if (sticky_)                                                                               \
      return sticky_;                                                                          \
  } while (0)

static struct ctx *as_ctx(void *c) {
  for (int i = 0; i < ndev; i++)
    if (c == &ctxs[i])
      return &ctxs[i];
  return NULL;
}

/* --- initialization, devices, contexts -------------------------------------------------- */

CUresult cuInit(unsigned flags) {
  if (flags != 0)
    return E_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  if (!initialized) {
    const char *s = getenv("FAKECUDA_DEVICES");
    if (s && *s)
      ndev = atoi(s);
    if (ndev < 0)
      ndev = 0;
    if (ndev > MAXDEV)
      ndev = MAXDEV;
    if ((s = getenv("FAKECUDA_MEMORY_MB")) && *s)
      total_mem = (size_t)atol(s) << 20;
    if ((s = getenv("FAKECUDA_DELAY_US")) && *s)
      delay_us = atoi(s);
    if ((s = getenv("FAKECUDA_ILLEGAL_ADDRESS")) && *s)
      illegal_at = atoi(s);
    if ((s = getenv("FAKECUDA_LOG")) && *s)
      logf = fopen(s, "a");
    for (int i = 0; i < MAXDEV; i++)
      ctxs[i].dev = i;
    initialized = 1;
  }
  pthread_mutex_unlock(&lock);
  return OK;
}

CUresult cuDriverGetVersion(int *v) {
  if (!v)
    return E_INVALID_VALUE;
  *v = 12080;
  return OK;
}

CUresult cuDeviceGetCount(int *n) {
  NEED_INIT();
  if (!n)
    return E_INVALID_VALUE;
  *n = ndev;
  return OK;
}

CUresult cuDeviceGet(CUdevice *d, int ordinal) {
  NEED_INIT();
  if (!d)
    return E_INVALID_VALUE;
  if (ordinal < 0 || ordinal >= ndev)
    return E_INVALID_DEVICE;
  *d = ordinal;
  return OK;
}

#define CHECK_DEV(d)                                                                           \
  do {                                                                                         \
    NEED_INIT();                                                                               \
    if ((d) < 0 || (d) >= ndev)                                                                \
      return E_INVALID_DEVICE;                                                                 \
  } while (0)

CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d) {
  CHECK_DEV(d);
  if (!v)
    return E_INVALID_VALUE;
  switch (attr) {
  case 1: /* MAX_THREADS_PER_BLOCK */
  case 2: /* MAX_BLOCK_DIM_X */
    *v = 1024; break;
  case 5: /* MAX_GRID_DIM_X */
    *v = 2147483647; break;
  case 10: /* WARP_SIZE */
    *v = 32; break;
  case 13: /* CLOCK_RATE (kHz) */
    *v = 1980000; break;
  case 16: /* MULTIPROCESSOR_COUNT */
    *v = 132; break;
  case 31: /* CONCURRENT_KERNELS */
  case 32: /* ECC_ENABLED */
  case 41: /* UNIFIED_ADDRESSING */
  case 83: /* MANAGED_MEMORY */
    *v = 1; break;
  case 33: /* PCI_BUS_ID */
    *v = 0x18 + d; break;
  case 37: /* GLOBAL_MEMORY_BUS_WIDTH */
    *v = 5120; break;
  case 38: /* L2_CACHE_SIZE */
    *v = 50 << 20; break;
  case 39: /* MAX_THREADS_PER_MULTIPROCESSOR */
    *v = 2048; break;
  case 75: /* COMPUTE_CAPABILITY_MAJOR */
    *v = 9; break;
  case 76: /* COMPUTE_CAPABILITY_MINOR */
    *v = 0; break;
  default:
    return E_INVALID_VALUE;
  }
  return OK;
}

CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  CHECK_DEV(d);
  if (!name || len <= 0)
    return E_INVALID_VALUE;
  snprintf(name, (size_t)len, "Fake H100");
  return OK;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
  CHECK_DEV(d);
  if (!bytes)
    return E_INVALID_VALUE;
  *bytes = total_mem;
  return OK;
}

CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned *flags, int *active) {
  CHECK_DEV(d);
  if (!flags || !active)
    return E_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  *flags = ctxs[d].flags;
  *active = ctxs[d].retained > 0;
  pthread_mutex_unlock(&lock);
  return OK;
}

CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice d, unsigned flags) {
  CHECK_DEV(d);
  if (flags & ~0x1fu)
    return E_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  ctxs[d].flags = flags;
  pthread_mutex_unlock(&lock);
  return OK;
}

CUresult cuDevicePrimaryCtxRetain(void **c, CUdevice d) {
  CHECK_DEV(d);
  if (!c)
    return E_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  ctxs[d].retained++;
  pthread_mutex_unlock(&lock);
  *c = &ctxs[d];
  return OK;
}

CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
  CHECK_DEV(d);
  CUresult r = OK;
  pthread_mutex_lock(&lock);
  if (ctxs[d].retained <= 0)
    r = E_INVALID_CONTEXT;
  else
    ctxs[d].retained--;
  pthread_mutex_unlock(&lock);
  return r;
}

CUresult cuCtxSetCurrent(void *c) {
  NEED_INIT();
  if (!c) {
    current = NULL;
    return OK;
  }
  struct ctx *x = as_ctx(c);
  if (!x || x->retained <= 0)
    return E_INVALID_CONTEXT;
  current = x;
  return OK;
}

CUresult cuCtxSetLimit(int limit, size_t value) {
  NEED_CTX();
  if (limit == 0)
    current->limit_stack = value;
  else if (limit == 2)
    current->limit_heap = value;
  else
    return E_INVALID_VALUE;
  return OK;
}

CUresult cuMemGetInfo_v2(size_t *free_, size_t *total) {
  NEED_CTX();
  if (!free_ || !total)
    return E_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  *free_ = total_mem - current->used;
  *total = total_mem;
  pthread_mutex_unlock(&lock);
  return OK;
}

CUresult cuDeviceCanAccessPeer(int *v, CUdevice d, CUdevice peer) {
  CHECK_DEV(d);
  CHECK_DEV(peer);
  if (!v)
    return E_INVALID_VALUE;
  *v = d != peer;
  return OK;
}

CUresult cuCtxEnablePeerAccess(void *peer_ctx, unsigned flags) {
  NEED_CTX();
  struct ctx *p = as_ctx(peer_ctx);
  if (!p || flags)
    return E_INVALID_VALUE;
  if (p == current)
    return E_INVALID_DEVICE;
  CUresult r = OK;
  pthread_mutex_lock(&lock);
  if (current->peer[p->dev])
    r = E_PEER_ALREADY;
  current->peer[p->dev] = 1;
  pthread_mutex_unlock(&lock);
  return r;
}

/* --- memory -------------------------------------------------------------------------------- */

/* Device memory is host memory, filled with 0xA5 on allocation and 0xDD before it is freed so
 * that code relying on zeroed or freed device memory computes wrong results. Each allocation is
 * a mapping of its own, outside the host's heap, followed by DEVICE_SLACK writable bytes: on a
 * GPU a kernel that writes past its section (as tests of faulty kernels do) hits device memory,
 * never the program's host data, and so must it here (in the heap it corrupted the runtime's
 * mapping table, depending on the heap's layout). */
#define DEVICE_SLACK ((size_t)1 << 20)

static size_t device_mapping_len(size_t size) {
  return ((size + 4095) & ~(size_t)4095) + DEVICE_SLACK;
}

static CUresult alloc_counted(CUdeviceptr *p, size_t size, enum kind k) {
  NEED_CTX();
  if (!p || size == 0)
    return E_INVALID_VALUE;
  pthread_mutex_lock(&lock);
  int fits = size <= total_mem - current->used;
  if (fits)
    current->used += size;
  pthread_mutex_unlock(&lock);
  if (!fits)
    return E_OUT_OF_MEMORY;
  void *m = mmap(NULL, device_mapping_len(size), PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) {
    pthread_mutex_lock(&lock);
    current->used -= size;
    pthread_mutex_unlock(&lock);
    return E_OUT_OF_MEMORY;
  }
  memset(m, 0xA5, size);
  add_alloc((uintptr_t)m, size, current->dev, k);
  *p = (uintptr_t)m;
  return OK;
}

CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t size) { return alloc_counted(p, size, K_DEVICE); }

CUresult cuMemAllocManaged(CUdeviceptr *p, size_t size, unsigned flags) {
  if (flags != 1 && flags != 2)
    return E_INVALID_VALUE;
  return alloc_counted(p, size, K_MANAGED);
}

CUresult cuMemFree_v2(CUdeviceptr p) {
  NEED_CTX();
  struct alloc a;
  if (!take_alloc(p, (1u << K_DEVICE) | (1u << K_MANAGED), &a)) {
    die_msg("cuMemFree(%#lx): not the start of a device or managed allocation", (long)p);
    return E_INVALID_VALUE;
  }
  pthread_mutex_lock(&lock);
  ctxs[a.dev].used -= a.size;
  pthread_mutex_unlock(&lock);
  memset((void *)a.base, 0xDD, a.size);
  munmap((void *)a.base, device_mapping_len(a.size));
  return OK;
}

CUresult cuMemHostAlloc(void **p, size_t size, unsigned flags) {
  NEED_CTX();
  if (!p || size == 0 || (flags & ~0x7u))
    return E_INVALID_VALUE;
  void *m = malloc(size);
  if (!m)
    return E_OUT_OF_MEMORY;
  add_alloc((uintptr_t)m, size, -1, K_HOST);
  *p = m;
  return OK;
}

CUresult cuMemFreeHost(void *p) {
  NEED_INIT();
  struct alloc a;
  if (!take_alloc((uintptr_t)p, 1u << K_HOST, &a)) {
    die_msg("cuMemFreeHost(%p): not from cuMemHostAlloc", p);
    return E_INVALID_VALUE;
  }
  free(p);
  return OK;
}

CUresult cuMemHostRegister_v2(void *p, size_t len, unsigned flags) {
  NEED_CTX();
  if (!p || len == 0 || (flags & ~0xfu))
    return E_INVALID_VALUE;
  /* Like the driver: no part of the range may be registered or page-locked already. */
  int overlap = 0;
  pthread_mutex_lock(&lock);
  for (size_t i = 0; i < nallocs && !overlap; i++) {
    struct alloc *a = &allocs[i];
    overlap = (a->kind == K_REGISTERED || a->kind == K_HOST) && (uintptr_t)p < a->base + a->size &&
              a->base < (uintptr_t)p + len;
  }
  pthread_mutex_unlock(&lock);
  if (overlap)
    return E_HOST_ALREADY_REGISTERED;
  if (touches_device((uintptr_t)p, len)) {
    die_msg("cuMemHostRegister(%p, %zu): device memory", p, len);
    return E_INVALID_VALUE;
  }
  add_alloc((uintptr_t)p, len, -1, K_REGISTERED);
  logline("register %p %zu", p, len);
  return OK;
}

CUresult cuMemHostUnregister(void *p) {
  NEED_CTX();
  struct alloc a;
  if (!take_alloc((uintptr_t)p, 1u << K_REGISTERED, &a))
    return E_HOST_NOT_REGISTERED;
  logline("unregister %p", p);
  return OK;
}

CUresult cuMemAdvise(CUdeviceptr p, size_t len, int advice, CUdevice d) {
  NEED_CTX();
  struct alloc a;
  if (!find_alloc(p, len, &a) || a.kind != K_MANAGED) {
    die_msg("cuMemAdvise(%#lx, %zu): not managed memory", (long)p, len);
    return E_INVALID_VALUE;
  }
  if (advice < 1 || advice > 6 || (d != -1 && (d < 0 || d >= ndev)))
    return E_INVALID_VALUE;
  return OK;
}

/* --- ELF (cubin) helpers -------------------------------------------------------------------- */

struct cubin {
  const unsigned char *b;
  size_t len;
  const Elf64_Shdr *sh;
  int shnum;
  const Elf64_Sym *sym;
  size_t nsym;
  const char *str;
};

static int cubin_open(struct cubin *c, const void *image) {
  const Elf64_Ehdr *e = image;
  if (!image || memcmp(e->e_ident, ELFMAG, SELFMAG) || e->e_ident[EI_CLASS] != ELFCLASS64 ||
      e->e_machine != EM_CUDA_)
    return 0;
  c->b = image;
  c->sh = (const Elf64_Shdr *)(c->b + e->e_shoff);
  c->shnum = e->e_shnum;
  c->sym = NULL;
  size_t end = e->e_shoff + (size_t)e->e_shnum * sizeof(Elf64_Shdr);
  for (int i = 0; i < c->shnum; i++) {
    size_t se = c->sh[i].sh_offset + (c->sh[i].sh_type == SHT_NOBITS ? 0 : c->sh[i].sh_size);
    if (se > end)
      end = se;
    if (c->sh[i].sh_type == SHT_SYMTAB) {
      c->sym = (const Elf64_Sym *)(c->b + c->sh[i].sh_offset);
      c->nsym = c->sh[i].sh_size / sizeof(Elf64_Sym);
      c->str = (const char *)(c->b + c->sh[c->sh[i].sh_link].sh_offset);
    }
  }
  c->len = end;
  return c->sym != NULL;
}

static const Elf64_Sym *cubin_sym(const struct cubin *c, const char *name, int type) {
  for (size_t i = 1; i < c->nsym; i++) {
    const Elf64_Sym *s = &c->sym[i];
    if (ELF64_ST_TYPE(s->st_info) == type && s->st_shndx != SHN_UNDEF &&
        s->st_shndx < c->shnum && !strcmp(c->str + s->st_name, name))
      return s;
  }
  return NULL;
}

static const char *section_name(const struct cubin *c, int i) {
  const Elf64_Ehdr *e = (const Elf64_Ehdr *)c->b;
  return (const char *)(c->b + c->sh[e->e_shstrndx].sh_offset + c->sh[i].sh_name);
}

/* Attribute `attr` of `.nv.info.<kernel>`: a pointer to its value and its size, or NULL. */
static const unsigned char *nv_info(const struct cubin *c, const char *kernel, int attr,
                                    unsigned *size) {
  char want[512];
  snprintf(want, sizeof want, ".nv.info.%s", kernel);
  for (int i = 0; i < c->shnum; i++) {
    if (strcmp(section_name(c, i), want))
      continue;
    const unsigned char *d = c->b + c->sh[i].sh_offset;
    size_t n = c->sh[i].sh_size, o = 0;
    while (o + 4 <= n) {
      unsigned fmt = d[o], a = d[o + 1], v = d[o + 2] | (unsigned)d[o + 3] << 8;
      if (fmt == 4) { /* EIFMT_SVAL: u16 size, then the bytes */
        if (a == (unsigned)attr) {
          *size = v;
          return d + o + 4;
        }
        o += 4 + v;
      } else {
        if (a == (unsigned)attr) {
          *size = 2;
          return d + o + 2;
        }
        o += 4;
      }
    }
  }
  return NULL;
}

/* --- modules ---------------------------------------------------------------------------------- */

struct module {
  struct ctx *ctx;
  unsigned char *cubin_copy;
  struct cubin cubin;
  void *host; /* dlopen handle of this module's copy of the x86_64 image */
  pthread_mutex_t mu;
  struct { char *name; uintptr_t p; size_t size; int owned; } globals[256]; /* looked up */
  int nglobals;
  uintptr_t devenv; /* __omp_rtl_device_environment, when served from the cubin */
  int devenv_logged;
};

struct function {
  struct module *m;
  char name[256];
  void *entry;
  int nparams;
  int max_threads;
  uint32_t reduction_bytes; /* from the kernel environment in the cubin */
};

static void *load_host_copy(void) {
  const char *path = getenv("FAKECUDA_HOST_IMAGE");
  if (!path || !*path) {
    die_msg("FAKECUDA_HOST_IMAGE is not set: no x86_64 image to run kernels from");
    return NULL;
  }
  FILE *f = fopen(path, "rb");
  if (!f) {
    die_msg("cannot open %s", path);
    return NULL;
  }
  int fd = memfd_create("fakecuda-image", MFD_CLOEXEC);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0)
    if (write(fd, buf, n) != (ssize_t)n) {
      n = 0;
      break;
    }
  fclose(f);
  char fdpath[64];
  snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fd);
  void *h = dlopen(fdpath, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    die_msg("dlopen of the x86_64 image failed: %s", dlerror());
  close(fd);
  return h;
}

CUresult cuModuleLoadDataEx(void **mod, const void *image, unsigned nopt, void *opts,
                            void **vals) {
  NEED_CTX();
  (void)opts;
  (void)vals;
  if (!mod || nopt)
    return E_INVALID_VALUE;
  struct cubin c;
  if (!cubin_open(&c, image)) {
    die_msg("cuModuleLoadDataEx: not a cubin (an EM_CUDA ELF with a symbol table)");
    return E_INVALID_IMAGE;
  }
  struct module *m = calloc(1, sizeof *m);
  m->ctx = current;
  m->cubin_copy = malloc(c.len);
  memcpy(m->cubin_copy, image, c.len);
  cubin_open(&m->cubin, m->cubin_copy);
  pthread_mutex_init(&m->mu, NULL);
  m->host = load_host_copy();
  if (!m->host) {
    free(m->cubin_copy);
    free(m);
    return E_INVALID_IMAGE;
  }
  *mod = m;
  return OK;
}

CUresult cuModuleUnload(void *mod) {
  NEED_INIT();
  struct module *m = mod;
  if (!m)
    return E_INVALID_HANDLE;
  for (int i = 0; i < m->nglobals; i++) {
    struct alloc a;
    take_alloc(m->globals[i].p, 1u << K_GLOBAL, &a);
    if (m->globals[i].owned) /* cubin-backed */
      free((void *)m->globals[i].p);
    free(m->globals[i].name);
  }
  dlclose(m->host);
  free(m->cubin_copy);
  /* The struct stays: functions of the module may still be named by queued work. */
  return OK;
}

CUresult cuModuleGetFunction(void **f, void *mod, const char *name) {
  NEED_CTX();
  struct module *m = mod;
  if (!f || !m || !name)
    return E_INVALID_VALUE;
  if (m->ctx != current)
    return E_INVALID_CONTEXT;
  if (!cubin_sym(&m->cubin, name, STT_FUNC))
    return E_NOT_FOUND;
  void *entry = dlsym(m->host, name);
  if (!entry) {
    die_msg("kernel %s is in the cubin but not in the x86_64 image (%s)", name,
            getenv("FAKECUDA_HOST_IMAGE"));
    return E_NOT_FOUND;
  }
  struct function *fn = calloc(1, sizeof *fn);
  fn->m = m;
  snprintf(fn->name, sizeof fn->name, "%s", name);
  fn->entry = entry;
  unsigned sz;
  const unsigned char *v = nv_info(&m->cubin, name, 0x19 /* CBANK_PARAM_SIZE */, &sz);
  fn->nparams = v ? (v[0] | v[1] << 8) / 8 : -1;
  v = nv_info(&m->cubin, name, 0x05 /* MAX_THREADS */, &sz);
  fn->max_threads = 1024;
  if (v && sz == 12) {
    uint32_t x, y, z;
    memcpy(&x, v, 4);
    memcpy(&y, v + 4, 4);
    memcpy(&z, v + 8, 4);
    fn->max_threads = (int)(x * y * z);
  }
  char env[300];
  snprintf(env, sizeof env, "%s_kernel_environment", name);
  const Elf64_Sym *s = cubin_sym(&m->cubin, env, STT_OBJECT);
  if (s && s->st_size >= 28 && m->cubin.sh[s->st_shndx].sh_type == SHT_PROGBITS) {
    const unsigned char *cfg = m->cubin.b + m->cubin.sh[s->st_shndx].sh_offset +
                               (s->st_value - m->cubin.sh[s->st_shndx].sh_addr);
    int32_t size, length;
    memcpy(&size, cfg + 20, 4);
    memcpy(&length, cfg + 24, 4);
    if (size > 0 && length > 0)
      fn->reduction_bytes = (uint32_t)size * (uint32_t)length;
  }
  *f = fn;
  return OK;
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *p, size_t *size, void *mod, const char *name) {
  NEED_CTX();
  struct module *m = mod;
  if (!m || !name)
    return E_INVALID_VALUE;
  if (m->ctx != current)
    return E_INVALID_CONTEXT;
  const Elf64_Sym *s = cubin_sym(&m->cubin, name, STT_OBJECT);
  if (!s)
    return E_NOT_FOUND;
  pthread_mutex_lock(&m->mu);
  uintptr_t addr = 0;
  size_t sz = 0;
  for (int i = 0; i < m->nglobals; i++) {
    if ((m->globals[i].name && !strcmp(m->globals[i].name, name))) {
      addr = m->globals[i].p;
      sz = m->globals[i].size;
    }
  }
  if (!addr) {
    /* The program's own globals live in the x86_64 image, which the kernels use; what only
     * the nvptx device runtime has (kernel and device environments) comes from the cubin. */
    void *h = dlsym(m->host, name);
    const ElfW(Sym) *hs = NULL;
    Dl_info info;
    if (h && dladdr1(h, &info, (void **)&hs, RTLD_DL_SYMENT) && hs) {
      addr = (uintptr_t)h;
      sz = hs->st_size;
    } else {
      sz = s->st_size;
      unsigned char *mem = calloc(1, sz ? sz : 1);
      const Elf64_Shdr *sec = &m->cubin.sh[s->st_shndx];
      if (sec->sh_type == SHT_PROGBITS)
        memcpy(mem, m->cubin.b + sec->sh_offset + (s->st_value - sec->sh_addr), sz);
      addr = (uintptr_t)mem;
      if (!strcmp(name, "__omp_rtl_device_environment"))
        m->devenv = addr;
    }
    if (sz != s->st_size)
      die_msg("global %s: %zu bytes in the x86_64 image, %zu in the cubin", name, sz,
              (size_t)s->st_size);
    if (m->nglobals < 256) {
      m->globals[m->nglobals].name = strdup(name);
      m->globals[m->nglobals].p = addr;
      m->globals[m->nglobals].size = sz;
      m->globals[m->nglobals].owned = !h;
      m->nglobals++;
      add_alloc(addr, sz, current->dev, K_GLOBAL);
    }
  }
  pthread_mutex_unlock(&m->mu);
  if (p)
    *p = addr;
  if (size)
    *size = sz;
  return OK;
}

CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
  NEED_CTX();
  struct function *fn = f;
  if (!v || !fn)
    return E_INVALID_VALUE;
  *v = attr == 0 ? fn->max_threads : 0;
  return OK;
}

/* --- streams and events ------------------------------------------------------------------------ */

enum opkind { OP_COPY, OP_FILL, OP_LAUNCH, OP_WAIT };

struct stream;
struct op {
  enum opkind kind;
  struct op *next;
  uintptr_t dst, src;
  size_t len;
  unsigned char byte;
  struct function *fn;
  uint64_t params[MAXPARAMS];
  int nparams;
  struct stream *other; /* OP_WAIT */
  uint64_t seq;         /* OP_WAIT: wait until other->done >= seq */
  int fault;            /* OP_LAUNCH: the launch FAKECUDA_ILLEGAL_ADDRESS names */
};

struct stream {
  struct ctx *ctx;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  struct op *head, *tail;
  uint64_t enqueued, done;
  int error, stop;
  /* done_at[k]: when `done` reached k (ms, CLOCK_MONOTONIC), for cuEventElapsedTime. */
  double *done_at;
  size_t done_cap;
};

/* Streams of each GPU with work enqueued and not done, and the most at once (logged at exit as
 * `maxbusy dev D N`): whether the runtime overlaps work on several streams of one GPU. */
static int busy_streams[MAXDEV], max_busy_streams[MAXDEV];

static void note_busy(struct stream *s, int delta) {
  int d = s->ctx->dev;
  int now = __atomic_add_fetch(&busy_streams[d], delta, __ATOMIC_SEQ_CST);
  int max = __atomic_load_n(&max_busy_streams[d], __ATOMIC_SEQ_CST);
  while (now > max && !__atomic_compare_exchange_n(&max_busy_streams[d], &max, now, 0,
                                                   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
    ;
}

__attribute__((destructor)) static void log_busy(void) {
  for (int d = 0; d < ndev && d < MAXDEV; d++)
    if (max_busy_streams[d])
      logline("maxbusy dev %d %d", d, max_busy_streams[d]);
}

struct event {
  struct ctx *ctx;
  struct stream *s;
  uint64_t seq;
  pthread_mutex_t mu;
  unsigned flags;
  double at;   /* when recorded, if the stream had nothing pending then (ms) */
  int stamped;
};

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

typedef void (*k32)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                    uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                    uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                    uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

/* Checks the launch environment (`dyn_ptr`) the backend passed; 0 when it is wrong. */
static int check_dyn_ptr(struct op *o) {
  struct function *fn = o->fn;
  uint64_t dyn = o->params[0];
  if (!fn->reduction_bytes) {
    if (dyn != UINT64_MAX) {
      die_msg("launch %s: dyn_ptr %#lx, expected ~0 (no reduction buffer)", fn->name, (long)dyn);
      return 0;
    }
    return 1;
  }
  struct alloc a;
  if (!find_alloc(dyn, 16, &a) || a.kind != K_DEVICE || a.dev != fn->m->ctx->dev) {
    die_msg("launch %s: dyn_ptr %#lx is not 16 bytes of this GPU's memory", fn->name, (long)dyn);
    return 0;
  }
  uint64_t buf;
  memcpy(&buf, (void *)(dyn + 8), 8);
  if (!find_alloc(buf, fn->reduction_bytes, &a) || a.kind != K_DEVICE) {
    die_msg("launch %s: reduction buffer %#lx is not %u bytes of device memory", fn->name,
            (long)buf, fn->reduction_bytes);
    return 0;
  }
  for (uint32_t i = 0; i < fn->reduction_bytes; i++)
    if (((unsigned char *)buf)[i]) {
      die_msg("launch %s: reduction buffer not zeroed", fn->name);
      return 0;
    }
  return 1;
}

static void check_devenv(struct function *fn) {
  struct module *m = fn->m;
  pthread_mutex_lock(&m->mu);
  if (m->devenv && !m->devenv_logged) {
    uint32_t v[4];
    uint64_t table[2];
    memcpy(v, (void *)m->devenv, sizeof v);
    memcpy(table, (char *)m->devenv + 24, sizeof table);
    logline("devenv dev %d num_devices %u device_num %u indirect %llu", m->ctx->dev, v[1], v[2],
            (unsigned long long)table[1]);
    /* The indirect-call table: (host, device) function address pairs in device memory of this
     * GPU, sorted by host address, no device address 0. */
    uint64_t n = table[1];
    if (n && !gpu_range((uintptr_t)table[0], n * 16, m->ctx->dev)) {
      die_msg("devenv: the indirect-call table is not device memory of GPU %d", m->ctx->dev);
      n = 0;
    }
    const uint64_t *pairs = (const uint64_t *)(uintptr_t)table[0];
    for (uint64_t i = 0; i < n; i++) {
      if (!pairs[2 * i + 1])
        die_msg("devenv: indirect-call table entry %llu has no device function",
                (unsigned long long)i);
      if (i && pairs[2 * i] <= pairs[2 * i - 2])
        die_msg("devenv: indirect-call table not sorted by host address at entry %llu",
                (unsigned long long)i);
    }
    m->devenv_logged = 1;
  }
  pthread_mutex_unlock(&m->mu);
}

static int run_op(struct stream *s, struct op *o) {
  if (delay_us)
    usleep((useconds_t)delay_us);
  switch (o->kind) {
  case OP_COPY:
    memmove((void *)o->dst, (void *)o->src, o->len);
    return 1;
  case OP_FILL:
    memset((void *)o->dst, o->byte, o->len);
    return 1;
  case OP_WAIT:
    pthread_mutex_lock(&o->other->mu);
    while (o->other->done < o->seq)
      pthread_cond_wait(&o->other->cv, &o->other->mu);
    pthread_mutex_unlock(&o->other->mu);
    return 1;
  case OP_LAUNCH: {
    if (o->fault) {
      logline("illegal address dev %d launch %s", s->ctx->dev, o->fn->name);
      __atomic_store_n(&s->ctx->sticky, E_ILLEGAL_ADDRESS, __ATOMIC_SEQ_CST);
      return 0;
    }
    if (!check_dyn_ptr(o))
      return 0;
    check_devenv(o->fn);
    uint64_t *a = o->params;
    ((k32)o->fn->entry)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                        a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21],
                        a[22], a[23], a[24], a[25], a[26], a[27], a[28], a[29], a[30], a[31]);
    return 1;
  }
  }
  (void)s;
  return 0;
}

static void *worker(void *arg) {
  struct stream *s = arg;
  current = s->ctx;
  pthread_mutex_lock(&s->mu);
  for (;;) {
    while (!s->head && !s->stop)
      pthread_cond_wait(&s->cv, &s->mu);
    if (!s->head)
      break;
    struct op *o = s->head;
    pthread_mutex_unlock(&s->mu);
    /* After an error the stream only drains; so do all streams of a faulted context. */
    int ok = s->error || __atomic_load_n(&s->ctx->sticky, __ATOMIC_SEQ_CST) ? 1 : run_op(s, o);
    pthread_mutex_lock(&s->mu);
    if (!ok)
      s->error = o->fault ? E_ILLEGAL_ADDRESS : E_LAUNCH_FAILED;
    s->head = o->next;
    if (!s->head)
      s->tail = NULL;
    if (++s->done == s->enqueued)
      note_busy(s, -1);
    if (s->done >= s->done_cap) {
      size_t cap = s->done_cap ? 2 * s->done_cap : 1024;
      while (cap <= s->done)
        cap *= 2;
      s->done_at = realloc(s->done_at, cap * sizeof *s->done_at);
      s->done_cap = cap;
    }
    s->done_at[s->done] = now_ms();
    pthread_cond_broadcast(&s->cv);
    free(o);
  }
  pthread_mutex_unlock(&s->mu);
  return NULL;
}

CUresult cuStreamCreate(void **out, unsigned flags) {
  NEED_CTX();
  if (!out || flags > 1)
    return E_INVALID_VALUE;
  struct stream *s = calloc(1, sizeof *s);
  s->ctx = current;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  if (pthread_create(&s->thread, NULL, worker, s)) {
    free(s);
    return E_OUT_OF_MEMORY;
  }
  *out = s;
  return OK;
}

static CUresult stream_of_current(struct stream *s) {
  if (!s) {
    die_msg("the default stream (0) was used; the backend must use streams of its own");
    return E_INVALID_HANDLE;
  }
  if (s->ctx != current) {
    die_msg("a stream of GPU %d used while GPU %d's context is current", s->ctx->dev,
            current->dev);
    return E_INVALID_CONTEXT;
  }
  return OK;
}

static CUresult enqueue(struct stream *s, struct op *o) {
  pthread_mutex_lock(&s->mu);
  if (s->stop) {
    pthread_mutex_unlock(&s->mu);
    free(o);
    return E_INVALID_HANDLE;
  }
  if (s->tail)
    s->tail->next = o;
  else
    s->head = o;
  s->tail = o;
  if (s->enqueued++ == s->done)
    note_busy(s, 1);
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  return OK;
}

/* cuStreamSynchronize (block) and cuStreamQuery: the stream's error once its work is done. */
static CUresult stream_done(void *sv, int block) {
  NEED_CTX();
  struct stream *s = sv;
  CUresult r = stream_of_current(s);
  if (r)
    return r;
  pthread_mutex_lock(&s->mu);
  while (block && s->done < s->enqueued)
    pthread_cond_wait(&s->cv, &s->mu);
  r = s->done < s->enqueued ? E_NOT_READY : s->error;
  pthread_mutex_unlock(&s->mu);
  int sticky = __atomic_load_n(&s->ctx->sticky, __ATOMIC_SEQ_CST);
  return sticky ? sticky : r;
}

CUresult cuStreamSynchronize(void *sv) { return stream_done(sv, 1); }

CUresult cuStreamQuery(void *sv) {
  CUresult r = stream_done(sv, 0);
  if (r == OK || r == E_NOT_READY)
    logline("streamquery dev %d %s", ((struct stream *)sv)->ctx->dev,
            r == E_NOT_READY ? "busy" : "done");
  return r;
}

CUresult cuStreamDestroy_v2(void *sv) {
  NEED_CTX();
  struct stream *s = sv;
  CUresult r = stream_of_current(s);
  if (r)
    return r;
  pthread_mutex_lock(&s->mu);
  s->stop = 1; /* queued work still completes, as with CUDA */
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
  pthread_join(s->thread, NULL);
  /* The struct stays: events recorded on the stream may still be waited for. */
  return OK;
}

CUresult cuEventCreate(void **out, unsigned flags) {
  NEED_CTX();
  if (!out || flags > 0xf)
    return E_INVALID_VALUE;
  struct event *e = calloc(1, sizeof *e);
  e->ctx = current;
  e->flags = flags;
  pthread_mutex_init(&e->mu, NULL);
  *out = e;
  return OK;
}

CUresult cuEventRecord(void *ev, void *sv) {
  NEED_HEALTHY();
  struct event *e = ev;
  struct stream *s = sv;
  if (!e)
    return E_INVALID_HANDLE;
  CUresult r = stream_of_current(s);
  if (r)
    return r;
  if (e->ctx != s->ctx) {
    die_msg("cuEventRecord: event of GPU %d on a stream of GPU %d", e->ctx->dev, s->ctx->dev);
    return E_INVALID_HANDLE;
  }
  pthread_mutex_lock(&s->mu);
  uint64_t seq = s->enqueued;
  int idle = s->done >= seq;
  pthread_mutex_unlock(&s->mu);
  pthread_mutex_lock(&e->mu);
  e->s = s;
  e->seq = seq;
  e->stamped = idle;
  e->at = idle ? now_ms() : 0;
  pthread_mutex_unlock(&e->mu);
  return OK;
}

/* When `e` completed (ms), or 0 with E_NOT_READY. */
static CUresult event_time(struct event *e, double *t) {
  pthread_mutex_lock(&e->mu);
  struct stream *s = e->s;
  uint64_t seq = e->seq;
  int stamped = e->stamped;
  double at = e->at;
  pthread_mutex_unlock(&e->mu);
  if (!s)
    return E_INVALID_HANDLE; /* never recorded */
  if (stamped) {
    *t = at;
    return OK;
  }
  pthread_mutex_lock(&s->mu);
  CUresult r = s->done >= seq ? OK : E_NOT_READY;
  if (!r)
    *t = s->done_at[seq];
  pthread_mutex_unlock(&s->mu);
  return r;
}

/* Events of one context, both completed, both created with timing (CU_EVENT_DISABLE_TIMING = 2
 * makes it CUDA_ERROR_INVALID_HANDLE, as on a GPU). */
CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
  NEED_INIT();
  struct event *a = start, *b = end;
  if (!ms || !a || !b)
    return E_INVALID_VALUE;
  if ((a->flags | b->flags) & 2)
    return E_INVALID_HANDLE;
  if (a->ctx != b->ctx)
    die_msg("cuEventElapsedTime: events of GPUs %d and %d", a->ctx->dev, b->ctx->dev);
  double ta, tb;
  CUresult r = event_time(a, &ta);
  if (!r)
    r = event_time(b, &tb);
  if (r)
    return r;
  *ms = (float)(tb - ta);
  return OK;
}

static void event_point(struct event *e, struct stream **s, uint64_t *seq) {
  pthread_mutex_lock(&e->mu);
  *s = e->s;
  *seq = e->seq;
  pthread_mutex_unlock(&e->mu);
}

CUresult cuEventQuery(void *ev) {
  NEED_INIT();
  struct event *e = ev;
  if (!e)
    return E_INVALID_HANDLE;
  struct stream *s;
  uint64_t seq;
  event_point(e, &s, &seq);
  if (!s)
    return OK;
  pthread_mutex_lock(&s->mu);
  int done = s->done >= seq;
  pthread_mutex_unlock(&s->mu);
  int sticky = __atomic_load_n(&e->ctx->sticky, __ATOMIC_SEQ_CST);
  return sticky ? sticky : done ? OK : E_NOT_READY;
}

CUresult cuEventSynchronize(void *ev) {
  NEED_INIT();
  struct event *e = ev;
  if (!e)
    return E_INVALID_HANDLE;
  struct stream *s;
  uint64_t seq;
  event_point(e, &s, &seq);
  if (!s)
    return OK;
  pthread_mutex_lock(&s->mu);
  while (s->done < seq)
    pthread_cond_wait(&s->cv, &s->mu);
  CUresult r = s->error;
  pthread_mutex_unlock(&s->mu);
  int sticky = __atomic_load_n(&e->ctx->sticky, __ATOMIC_SEQ_CST);
  return sticky ? sticky : r;
}

CUresult cuEventDestroy_v2(void *ev) {
  NEED_INIT();
  if (!ev)
    return E_INVALID_HANDLE;
  /* Freed lazily: never, the tests are short (a queued wait may still name it). */
  return OK;
}

CUresult cuStreamWaitEvent(void *sv, void *ev, unsigned flags) {
  NEED_HEALTHY();
  struct stream *s = sv;
  struct event *e = ev;
  if (!e || flags)
    return E_INVALID_VALUE;
  CUresult r = stream_of_current(s);
  if (r)
    return r;
  struct op *o = calloc(1, sizeof *o);
  o->kind = OP_WAIT;
  event_point(e, &o->other, &o->seq);
  if (!o->other) {
    free(o);
    return OK;
  }
  return enqueue(s, o);
}

/* --- copies ------------------------------------------------------------------------------------ */

static CUresult copy(const char *call, void *sv, uintptr_t dst, uintptr_t src, size_t len,
                     int dst_gpu, int src_gpu, int dst_dev, int src_dev) {
  NEED_HEALTHY();
  struct stream *s = sv;
  CUresult r = stream_of_current(s);
  if (r)
    return r;
  if (len == 0)
    return OK;
  if (dst_gpu ? !gpu_range(dst, len, dst_dev) : touches_device(dst, len)) {
    die_msg("%s: destination %#lx (%zu bytes) is not %s", call, (long)dst, len,
            dst_gpu ? "memory of the GPU" : "host memory");
    return E_INVALID_VALUE;
  }
  if (src_gpu ? !gpu_range(src, len, src_dev) : touches_device(src, len)) {
    die_msg("%s: source %#lx (%zu bytes) is not %s", call, (long)src, len,
            src_gpu ? "memory of the GPU" : "host memory");
    return E_INVALID_VALUE;
  }
  struct op *o = calloc(1, sizeof *o);
  o->kind = OP_COPY;
  o->dst = dst;
  o->src = src;
  o->len = len;
  return enqueue(s, o);
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t len, void *s) {
  return copy("cuMemcpyHtoDAsync", s, dst, (uintptr_t)src, len, 1, 0, -1, -1);
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t len, void *s) {
  return copy("cuMemcpyDtoHAsync", s, (uintptr_t)dst, src, len, 0, 1, -1, -1);
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t len, void *s) {
  return copy("cuMemcpyDtoDAsync", s, dst, src, len, 1, 1, -1, -1);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dst_ctx, CUdeviceptr src, void *src_ctx,
                           size_t len, void *s) {
  NEED_CTX();
  struct ctx *d = as_ctx(dst_ctx), *c = as_ctx(src_ctx);
  if (!d || !c)
    return E_INVALID_CONTEXT;
  logline("peer %d -> %d %zu", c->dev, d->dev, len);
  return copy("cuMemcpyPeerAsync", s, dst, src, len, 1, 1, d->dev, c->dev);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char byte, size_t len, void *sv) {
  NEED_HEALTHY();
  struct stream *s = sv;
  CUresult r = stream_of_current(s);
  if (r)
    return r;
  if (len == 0)
    return OK;
  if (!gpu_range(dst, len, -1)) {
    die_msg("cuMemsetD8Async: %#lx (%zu bytes) is not GPU memory", (long)dst, len);
    return E_INVALID_VALUE;
  }
  struct op *o = calloc(1, sizeof *o);
  o->kind = OP_FILL;
  o->dst = dst;
  o->byte = byte;
  o->len = len;
  return enqueue(s, o);
}

/* --- launches ---------------------------------------------------------------------------------- */

CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned shared, void *sv, void **params, void **extra) {
  NEED_HEALTHY();
  struct function *fn = f;
  struct stream *s = sv;
  if (!fn)
    return E_INVALID_HANDLE;
  if (fn->m->ctx != current) {
    die_msg("launch %s: kernel of GPU %d with GPU %d's context current", fn->name,
            fn->m->ctx->dev, current->dev);
    return E_INVALID_CONTEXT;
  }
  CUresult r = stream_of_current(s);
  if (r)
    return r;
  if (extra || gx == 0 || gx > 2147483647u || gy != 1 || gz != 1 || by != 1 || bz != 1 ||
      bx == 0 || bx > (unsigned)fn->max_threads || shared > 48 * 1024) {
    die_msg("launch %s: invalid grid %u x %u x %u, block %u x %u x %u (kernel max %d), %u bytes "
            "shared",
            fn->name, gx, gy, gz, bx, by, bz, fn->max_threads, shared);
    return E_INVALID_VALUE;
  }
  int n = fn->nparams;
  if (n < 1 || n > MAXPARAMS || !params) {
    die_msg("launch %s: %d parameters (the fake takes 1 to %d)", fn->name, n, MAXPARAMS);
    return E_INVALID_VALUE;
  }
  struct op *o = calloc(1, sizeof *o);
  o->kind = OP_LAUNCH;
  o->fn = fn;
  o->nparams = n;
  o->fault = illegal_at && __atomic_add_fetch(&launches, 1, __ATOMIC_SEQ_CST) == illegal_at;
  for (int i = 0; i < n; i++) /* the driver copies the values during the call */
    memcpy(&o->params[i], params[i], 8);
  logline("launch %s dev %d blocks %u threads %u shared %u", fn->name, current->dev, gx, bx,
          shared);
  return enqueue(s, o);
}

/* --- errors ------------------------------------------------------------------------------------ */

CUresult cuGetErrorName(CUresult r, const char **name) {
  if (!name)
    return E_INVALID_VALUE;
  switch (r) {
#define E(c, s)                                                                                \
  case c:                                                                                      \
    *name = s;                                                                                 \
    return OK;
    E(OK, "CUDA_SUCCESS")
    E(E_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE")
    E(E_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY")
    E(E_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED")
    E(E_NO_DEVICE, "CUDA_ERROR_NO_DEVICE")
    E(E_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE")
    E(E_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE")
    E(E_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT")
    E(E_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE")
    E(E_NOT_FOUND, "CUDA_ERROR_NOT_FOUND")
    E(E_NOT_READY, "CUDA_ERROR_NOT_READY")
    E(E_PEER_ALREADY, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED")
    E(E_PEER_NOT_ENABLED, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED")
    E(E_HOST_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED")
    E(E_HOST_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED")
    E(E_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED")
    E(E_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS")
    E(E_UNKNOWN, "CUDA_ERROR_UNKNOWN")
#undef E
  }
  *name = NULL;
  return E_INVALID_VALUE;
}
