// The window and the descriptor spread-auto adds, checked by running the kernels: the x86_64
// device image of Inputs/spread-auto-kernels.c (built with the plugin at -O0, -O2 and -g) is
// linked into a shared object the way clang-linker-wrapper does, and this harness calls its
// kernel entry points directly (as the host plugin of libomptarget does) with windows written
// into __spread_win_<kernel>:
//   - the default window {0, INT64_MAX} runs every iteration (the reference);
//   - a window [lo, hi) writes only bytes inside the write hulls that the descriptor gives for
//     [lo, hi), and those bytes are the reference's;
//   - windows that split [0, tripcount) give the reference together;
//   - arguments the descriptor reads whole are never written.
// No runtime is involved: this checks the pass's half of the contract on its own.
//
// RUN: %clang-plain -O0 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -c %S/Inputs/spread-auto-kernels.c -o %t-O0.o
// RUN: clang-offload-packager %t-O0.o --image=file=%t-O0.dev.o,triple=x86_64-unknown-linux-gnu,kind=openmp
// RUN: %clang-plain -shared %t-O0.dev.o -o %t-O0.dev.so
// RUN: llvm-readelf --dyn-syms %t-O0.dev.so | FileCheck --check-prefix=DYN %s
// RUN: %clang-plain -O2 -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -c %S/Inputs/spread-auto-kernels.c -o %t-O2.o
// RUN: clang-offload-packager %t-O2.o --image=file=%t-O2.dev.o,triple=x86_64-unknown-linux-gnu,kind=openmp
// RUN: %clang-plain -shared %t-O2.dev.o -o %t-O2.dev.so
// RUN: llvm-readelf --dyn-syms %t-O2.dev.so | FileCheck --check-prefix=DYN %s
// RUN: %clang-plain -g -fopenmp -fopenmp-targets=x86_64-unknown-linux-gnu -fpass-plugin=%spread-pass \
// RUN:   -c %S/Inputs/spread-auto-kernels.c -o %t-g.o
// RUN: clang-offload-packager %t-g.o --image=file=%t-g.dev.o,triple=x86_64-unknown-linux-gnu,kind=openmp
// RUN: %clang-plain -shared %t-g.dev.o -o %t-g.dev.so
//
// RUN: %clang-plain -O1 -fopenmp %s -o %t.harness -ldl
// RUN: %stock-run %t.harness %t-O0.dev.so | FileCheck %s
// RUN: %stock-run %t.harness %t-O2.dev.so | FileCheck %s
// RUN: %stock-run %t.harness %t-g.dev.so | FileCheck %s

// DYN-DAG: OBJECT GLOBAL PROTECTED {{.*}} __spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_stencil_l{{[0-9]+}}
// DYN-DAG: 208 OBJECT GLOBAL PROTECTED {{.*}} __spread_kinfo___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_stencil_l{{[0-9]+}}
// DYN-DAG: OBJECT GLOBAL PROTECTED {{.*}} __spread_win___omp_offloading_{{[0-9a-f]+_[0-9a-f]+}}_constant_l{{[0-9]+}}

// CHECK: stencil: 4 records, 998 iterations: ok
// CHECK: reverse: 2 records, 1000 iterations: ok
// CHECK: window: 2 records, 295 iterations: ok
// CHECK: collapse2: 1 records, 1073 iterations: ok
// CHECK: nested: 2 records, 1000 iterations: ok
// CHECK: gather: 3 records, 1000 iterations: ok
// CHECK: constant: 1 records, 1000 iterations: ok
// CHECK: 7 kernels ok

#include <dlfcn.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// A kernel entry: dyn_ptr, then one 64-bit slot per argument (pointers, and scalars by value
// in the low bits), as the x86_64 host plugin calls it.
typedef void (*kernel_fn)(void *, uint64_t, uint64_t, uint64_t, uint64_t);

// A descriptor record (docs/pass.md).
typedef struct {
  uint32_t param, mode;
  int64_t c0, c1, width;
  int32_t sym_param;
  uint32_t sym_bits;
  int64_t sym_coeff;
} record;

static void *image;
static char kernel_names[16][256];
static int nkernels, fails;

// The kernels of the image: the names of its __spread_kinfo_* dynamic symbols, without the
// prefix (their file ids are not known in advance).
static void list_kernels(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    printf("FAIL: cannot open %s\n", path);
    exit(1);
  }
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  unsigned char *b = malloc(size);
  fseek(f, 0, SEEK_SET);
  if (fread(b, 1, size, f) != (size_t)size)
    exit(1);
  fclose(f);
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
  for (int s = 0; s < eh->e_shnum; s++) {
    if (sh[s].sh_type != SHT_DYNSYM)
      continue;
    const Elf64_Sym *sym = (const Elf64_Sym *)(b + sh[s].sh_offset);
    const char *str = (const char *)(b + sh[sh[s].sh_link].sh_offset);
    for (size_t k = 0; k < sh[s].sh_size / sizeof(Elf64_Sym); k++) {
      const char *name = str + sym[k].st_name;
      if (strncmp(name, "__spread_kinfo_", 15) == 0 && sym[k].st_shndx != SHN_UNDEF &&
          nkernels < 16)
        snprintf(kernel_names[nkernels++], 256, "%s", name + 15);
    }
  }
  free(b);
}

static void *lookup(const char *prefix, const char *kernel) {
  char name[300];
  snprintf(name, sizeof name, "%s%s", prefix, kernel);
  return dlsym(image, name);
}

// The byte offset of record r at iteration iv, with the launch's arguments.
static int64_t offset(const record *r, int64_t iv, const uint64_t *args) {
  int64_t sym = 0;
  if (r->sym_param >= 0)
    sym = r->sym_bits == 32 ? (int64_t)(int32_t)args[r->sym_param] : (int64_t)args[r->sym_param];
  return r->c0 + r->c1 * iv + r->sym_coeff * sym;
}

// Runs kernel `which` (a substring of its name): args are its argument slots, with buffer
// arguments given by index and size; trip is its iteration count.
static void check(const char *which, int nargs, const uint64_t *scalars, int nbuf,
                  const int *bufarg, const size_t *bufsize, int64_t trip) {
  const char *k = NULL;
  for (int i = 0; i < nkernels; i++)
    if (strstr(kernel_names[i], which))
      k = kernel_names[i];
  if (!k) {
    printf("FAIL: %s: no descriptor in the image\n", which);
    fails++;
    return;
  }
  kernel_fn fn = (kernel_fn)lookup("", k);
  int64_t *win = lookup("__spread_win_", k);
  const unsigned char *info = lookup("__spread_kinfo_", k);
  if (!fn || !win || !info || memcmp(info, "SPRD", 4) != 0) {
    printf("FAIL: %s: missing symbols or bad descriptor\n", which);
    fails++;
    return;
  }
  uint32_t version, n;
  memcpy(&version, info + 4, 4);
  memcpy(&n, info + 8, 4);
  const record *rec = (const record *)(info + 16);
  if (version != 1 || win[0] != 0 || win[1] != INT64_MAX) {
    printf("FAIL: %s: version %u, default window [%ld, %ld)\n", which, version, (long)win[0],
           (long)win[1]);
    fails++;
  }
  // Every record must name a buffer this harness passes, and its symbol a scalar.
  for (uint32_t q = 0; q < n; q++) {
    int ok = 0;
    for (int j = 0; j < nbuf; j++)
      ok |= rec[q].param == (uint32_t)bufarg[j];
    for (int j = 0; j < nbuf; j++)
      ok &= rec[q].sym_param != bufarg[j];
    if (!ok || rec[q].sym_param >= nargs) {
      printf("FAIL: %s: record %u names argument %u (sym %d): not this harness's layout\n",
             which, q, rec[q].param, rec[q].sym_param);
      fails++;
      return;
    }
  }
  unsigned char *init[4], *ref[4], *buf[4];
  for (int j = 0; j < nbuf; j++) {
    init[j] = malloc(bufsize[j]);
    ref[j] = malloc(bufsize[j]);
    buf[j] = malloc(bufsize[j]);
    for (size_t i = 0; i < bufsize[j]; i++)
      init[j][i] = (unsigned char)(i * 37 + j * 11 + 1);
  }
  // Index arrays (gather) must hold indices: a buffer of ints below n where the kernel wants it.
  if (strcmp(which, "gather") == 0)
    for (int i = 0; i < 1000; i++)
      ((int *)init[2])[i] = (i * 7) % 1000;
  uint64_t a[4] = {0};
#define RUN(bufs)                                                                              \
  do {                                                                                         \
    memcpy(a, scalars, sizeof a);                                                              \
    for (int j = 0; j < nbuf; j++)                                                             \
      a[bufarg[j]] = (uint64_t)(uintptr_t)(bufs)[j];                                           \
    fn(NULL, a[0], a[1], a[2], a[3]);                                                          \
  } while (0)
#define RESET(bufs)                                                                            \
  for (int j = 0; j < nbuf; j++)                                                               \
    memcpy((bufs)[j], init[j], bufsize[j])

  RESET(ref);
  RUN(ref);
  const int64_t cuts[] = {0, 1, trip / 3, trip / 2, trip - 1, trip};
  for (int c = 0; c < 6; c++)
    for (int d = c + 1; d < 6; d++) {
      int64_t lo = cuts[c], hi = cuts[d];
      if (lo >= hi)
        continue;
      RESET(buf);
      win[0] = lo;
      win[1] = hi;
      RUN(buf);
      for (int j = 0; j < nbuf; j++)
        for (size_t i = 0; i < bufsize[j]; i++) {
          int written = 0, whole = 0;
          for (uint32_t q = 0; q < n; q++) {
            if (rec[q].param != (uint32_t)bufarg[j])
              continue;
            whole |= rec[q].mode == 4;
            if (!(rec[q].mode & 2))
              continue;
            int64_t o1 = offset(&rec[q], lo, scalars), o2 = offset(&rec[q], hi - 1, scalars);
            int64_t first = o1 < o2 ? o1 : o2, end = (o1 < o2 ? o2 : o1) + rec[q].width;
            written |= (int64_t)i >= first && (int64_t)i < end;
          }
          if (buf[j][i] != (written ? ref[j][i] : init[j][i])) {
            printf("FAIL: %s: window [%ld, %ld): argument %d byte %zu is %s\n", which, (long)lo,
                   (long)hi, bufarg[j], i,
                   whole ? "written (read whole)"
                         : written ? "not the reference's" : "written outside the hull");
            fails++;
            goto next;
          }
        }
    next:;
    }
  // Two windows that split the iterations make the reference.
  RESET(buf);
  win[0] = 0;
  win[1] = trip / 3;
  RUN(buf);
  win[0] = trip / 3;
  win[1] = trip;
  RUN(buf);
  win[0] = 0;
  win[1] = INT64_MAX;
  for (int j = 0; j < nbuf; j++)
    if (memcmp(buf[j], ref[j], bufsize[j]) != 0) {
      printf("FAIL: %s: two windows do not make the whole run (argument %d)\n", which,
             bufarg[j]);
      fails++;
    }
  printf("%s: %u records, %ld iterations: %s\n", which, n, (long)trip, fails ? "FAILED" : "ok");
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  list_kernels(argv[1]);
  image = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!image) {
    printf("FAIL: %s\n", dlerror());
    return 1;
  }
  const int n = 1000;
  {
    uint64_t s[4] = {n};
    int b[] = {1, 2};
    size_t z[] = {4 * n, 4 * n};
    check("stencil", 3, s, 2, b, z, n - 2);
  }
  {
    uint64_t s[4] = {n};
    int b[] = {1, 2};
    size_t z[] = {4 * n, 4 * n};
    check("reverse", 3, s, 2, b, z, n);
  }
  {
    uint64_t s[4] = {17, 900};
    int b[] = {2, 3};
    size_t z[] = {4 * 900, 4 * 900};
    check("window", 4, s, 2, b, z, (900 - 17 + 2) / 3);
  }
  {
    uint64_t s[4] = {37, 29};
    int b[] = {2};
    size_t z[] = {8 * 37 * 29};
    check("collapse2", 3, s, 1, b, z, 37 * 29);
  }
  {
    uint64_t s[4] = {n};
    int b[] = {1, 2};
    size_t z[] = {4 * n, 4 * n};
    check("nested", 3, s, 2, b, z, n);
  }
  {
    uint64_t s[4] = {n};
    int b[] = {1, 2, 3};
    size_t z[] = {4 * n, 4 * n, 4 * n};
    check("gather", 4, s, 3, b, z, n);
  }
  {
    uint64_t s[4] = {0};
    int b[] = {0};
    size_t z[] = {4 * 1000};
    check("constant", 1, s, 1, b, z, 1000);
  }
  if (!fails)
    printf("%d kernels ok\n", nkernels);
  return fails != 0;
}
