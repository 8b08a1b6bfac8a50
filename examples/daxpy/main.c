/* daxpy microbenchmark of seed 001 (section 5, Listing 1.1): the same offloaded kernel
 * `z[i] += a*x[i] + y[i]`, called 1, 10 and 100 times, on memory of four kinds:
 *
 *   map       plain malloc arrays: omp_daxpy's map clauses copy x, y and z to the device and z
 *             back on every call (the paper's "OpenMP offloading" variant)
 *   managed   x, y, z from an allocator with {omp_atk_memory_access: omp_atv_managed} on
 *             omp_get_device_and_host_memspace(D, omp_default_mem_space): the same omp_daxpy
 *             with the same map clauses, which now move nothing
 *   coherent  the same with omp_atv_coherent
 *   pinned    the same space with {omp_atk_pinned: omp_atv_true} (page-locked host memory)
 *
 * usage: daxpy [--n N] [--reps LIST] [--device D] [--runs R] [--stat avg|best]
 *              [--variant map|managed|coherent|pinned|all] [--quiet]
 *   --n N        elements per array (default 4194304 = 1<<22: 32 MiB per array)
 *   --reps LIST  comma-separated repetition counts (default 1,10,100)
 *   --device D   the device that runs the kernel (default: omp_get_default_device())
 *   --runs R     time every (variant, reps) R times (default 3, as the paper)
 *   --stat S     report the average (default, as the paper) or the best of the R runs
 *
 * Every run starts from the same z; after the last run of every (variant, reps) z is compared
 * with a serial host run of the same repetitions: `verified: OK` or `verified: FAILED`. The
 * allocators ask for no fallback (omp_atk_fallback: omp_atv_null_fb), and the traits each
 * allocation was granted (spread_get_alloc_traits) must include what was asked for (managed may
 * be granted as coherent, which seed 001 allows). Exit status 1 if anything failed, 2 for a
 * usage error.
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <spread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#define TOLERANCE 1e-12 /* relative; the values below make every result exact */
#define MAX_REPS_LIST 16

/* Listing 1.1, unchanged; the device is omp_get_default_device(), set from --device. */
void omp_daxpy(int n, double a, double *x, double *y, double *z) {
#pragma omp target map(to : x[0 : n], y[0 : n], n, a) map(tofrom : z[0 : n])
#pragma omp teams distribute parallel for simd
  for (int i = 0; i < n; i++) {
    z[i] += a * x[i] + y[i];
  }
}

enum { V_MAP, V_MANAGED, V_COHERENT, V_PINNED, NVARIANTS };
static const char *variant_names[NVARIANTS] = {"map", "managed", "coherent", "pinned"};

static void usage(FILE *f) {
  fprintf(f, "usage: daxpy [--n N] [--reps LIST] [--device D] [--runs R] [--stat avg|best]\n"
             "             [--variant map|managed|coherent|pinned|all] [--quiet]\n");
}

static void die_usage(const char *msg, const char *arg) {
  fprintf(stderr, "daxpy: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  exit(2);
}

static long parse_long(const char *s, const char *opt, long min, long max) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno || v < min || v > max) {
    fprintf(stderr, "daxpy: %s needs an integer in [%ld, %ld], not '%s'\n", opt, min, max, s);
    exit(2);
  }
  return v;
}

/* --- trait names ---------------------------------------------------------------------------- */

static const char *key_name(omp_alloctrait_key_t k) {
  switch ((long)k) {
  case omp_atk_sync_hint: return "sync_hint";
  case omp_atk_alignment: return "alignment";
  case omp_atk_access: return "access";
  case omp_atk_pool_size: return "pool_size";
  case omp_atk_fallback: return "fallback";
  case omp_atk_fb_data: return "fb_data";
  case omp_atk_pinned: return "pinned";
  case omp_atk_partition: return "partition";
  }
  if (k == omp_atk_memory_access) return "memory_access";
  if (k == omp_atk_preferred_location) return "preferred_location";
  if (k == omp_atk_preferred_place) return "preferred_place";
  if (k == spread_atk_memory_kind) return "memory_kind";
  return NULL;
}

/* Writes the value of trait `k` as a name (or a number) into buf. */
static const char *value_name(omp_alloctrait_key_t k, omp_uintptr_t v, char *buf, size_t len) {
  const char *s = NULL;
  if (v == omp_atv_default)
    s = "default";
  else if (k == omp_atk_pinned)
    s = v == omp_atv_true ? "true" : v == omp_atv_false ? "false" : NULL;
  else if (k == omp_atk_fallback)
    s = v == omp_atv_default_mem_fb ? "default_mem_fb"
        : v == omp_atv_null_fb      ? "null_fb"
        : v == omp_atv_abort_fb     ? "abort_fb"
        : v == omp_atv_allocator_fb ? "allocator_fb"
                                    : NULL;
  else if (k == omp_atk_memory_access)
    s = v == omp_atv_managed ? "managed" : v == omp_atv_coherent ? "coherent" : NULL;
  else if (k == spread_atk_memory_kind)
    s = v == spread_atv_host_memory          ? "host_memory"
        : v == spread_atv_pinned_host_memory ? "pinned_host_memory"
        : v == spread_atv_device_memory      ? "device_memory"
        : v == spread_atv_managed_memory     ? "managed_memory"
                                             : NULL;
  if (s)
    snprintf(buf, len, "%s", s);
  else if (k == omp_atk_preferred_location && v == (omp_uintptr_t)omp_get_initial_device())
    snprintf(buf, len, "%lu (host)", (unsigned long)v);
  else if (k == omp_atk_preferred_location || k == omp_atk_preferred_place ||
           k == omp_atk_alignment || k == omp_atk_pool_size)
    snprintf(buf, len, "%lu", (unsigned long)v);
  else
    snprintf(buf, len, "%#lx", (unsigned long)v);
  return buf;
}

static void print_traits(const char *variant, const char *label, const omp_alloctrait_t *t,
                         int n) {
  printf("%-9s %-10s ", variant, label);
  for (int i = 0; i < n; i++) {
    char buf[48];
    const char *k = key_name(t[i].key);
    if (k)
      printf("%s%s=%s", i ? " " : "", k, value_name(t[i].key, t[i].value, buf, sizeof buf));
    else
      printf("%s%#lx=%#lx", i ? " " : "", (unsigned long)t[i].key, (unsigned long)t[i].value);
  }
  printf("%s\n", n ? "" : "(none)");
}

static int find_trait(const omp_alloctrait_t *t, int n, omp_alloctrait_key_t k,
                      omp_uintptr_t *v) {
  for (int i = 0; i < n; i++)
    if (t[i].key == k) {
      *v = t[i].value;
      return 1;
    }
  return 0;
}

/* --- one variant's memory ------------------------------------------------------------------- */

typedef struct {
  double *x, *y, *z;
  omp_allocator_handle_t allocator; /* omp_null_allocator: malloc (the map variant) */
} arrays_t;

/* Allocates x, y, z for variant v on device dev; prints what was asked and granted. Returns 0,
 * or -1 after printing why (nothing falls back silently). */
static int arrays_alloc(arrays_t *m, int v, int dev, size_t n, int quiet) {
  size_t bytes = n * sizeof(double);
  memset(m, 0, sizeof *m);
  m->allocator = omp_null_allocator;
  if (v == V_MAP) {
    m->x = malloc(bytes);
    m->y = malloc(bytes);
    m->z = malloc(bytes);
    if (!m->x || !m->y || !m->z) {
      printf("%s: malloc of %zu bytes failed\n", variant_names[v], bytes);
      return -1;
    }
    if (!quiet)
      printf("%-9s %-10s plain malloc (the map clauses copy x, y, z on every call)\n",
             variant_names[v], "memory:");
    return 0;
  }

  omp_memspace_handle_t space = omp_get_device_and_host_memspace(dev, omp_default_mem_space);
  if (space == omp_null_mem_space) {
    printf("%s: omp_get_device_and_host_memspace(%d, omp_default_mem_space) made no space "
           "(SPREAD_INFO=memory says why)\n",
           variant_names[v], dev);
    return -1;
  }
  omp_alloctrait_t req[4];
  int nreq = 0;
  if (v == V_MANAGED)
    req[nreq++] = (omp_alloctrait_t){omp_atk_memory_access, omp_atv_managed};
  else if (v == V_COHERENT)
    req[nreq++] = (omp_alloctrait_t){omp_atk_memory_access, omp_atv_coherent};
  else
    req[nreq++] = (omp_alloctrait_t){omp_atk_pinned, omp_atv_true};
  req[nreq++] = (omp_alloctrait_t){omp_atk_alignment, 64};
  req[nreq++] = (omp_alloctrait_t){omp_atk_fallback, omp_atv_null_fb};
  m->allocator = omp_init_allocator(space, nreq, req);
  if (m->allocator == omp_null_allocator) {
    printf("%s: omp_init_allocator on the space of device %d and the host refused the traits "
           "(SPREAD_INFO=memory says why)\n",
           variant_names[v], dev);
    return -1;
  }
  m->x = omp_alloc(bytes, m->allocator);
  m->y = omp_alloc(bytes, m->allocator);
  m->z = omp_alloc(bytes, m->allocator);
  if (!m->x || !m->y || !m->z) {
    printf("%s: omp_alloc of %zu bytes failed (no fallback was allowed)", variant_names[v],
           bytes);
    struct rlimit rl;
    if (v == V_PINNED && getrlimit(RLIMIT_MEMLOCK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
      printf(": page-locked memory is limited to %lu KiB (ulimit -l); try a smaller --n",
             (unsigned long)(rl.rlim_cur / 1024));
    printf("\n");
    return -1;
  }

  omp_alloctrait_t got[16];
  int ngot = spread_get_alloc_traits(m->x, got, 16);
  if (ngot < 0) {
    printf("%s: spread_get_alloc_traits: x is not memory of a Spread allocator\n",
           variant_names[v]);
    return -1;
  }
  if (ngot > 16)
    ngot = 16;
  if (!quiet)
    print_traits(variant_names[v], "requested:", req, nreq);
  print_traits(variant_names[v], "granted:", got, ngot);

  /* What was asked for must have been granted (managed may come as coherent). */
  omp_uintptr_t val;
  int ok = 1;
  if (v == V_MANAGED)
    ok = find_trait(got, ngot, omp_atk_memory_access, &val) &&
         (val == omp_atv_managed || val == omp_atv_coherent);
  else if (v == V_COHERENT)
    ok = find_trait(got, ngot, omp_atk_memory_access, &val) && val == omp_atv_coherent;
  else
    ok = find_trait(got, ngot, omp_atk_pinned, &val) && val == omp_atv_true;
  if (!ok) {
    printf("%s: FAILED: the allocation was not granted the requested %s\n", variant_names[v],
           key_name(req[0].key));
    return -1;
  }
  /* y and z must have been granted the same as x. */
  omp_alloctrait_t other[16];
  for (int a = 0; a < 2; a++) {
    int no = spread_get_alloc_traits(a ? m->z : m->y, other, 16);
    int same = no == ngot;
    for (int i = 0; same && i < ngot; i++)
      same = other[i].key == got[i].key && other[i].value == got[i].value;
    if (!same) {
      printf("%s: FAILED: %s was granted other traits than x\n", variant_names[v],
             a ? "z" : "y");
      return -1;
    }
  }
  return 0;
}

static void arrays_free(arrays_t *m) {
  if (m->allocator == omp_null_allocator) {
    free(m->x);
    free(m->y);
    free(m->z);
  } else {
    omp_free(m->x, m->allocator);
    omp_free(m->y, m->allocator);
    omp_free(m->z, m->allocator);
    omp_destroy_allocator(m->allocator);
  }
}

/* --- data and reference --------------------------------------------------------------------- */

/* Multiples of 1/4 below 2^10: every sum of up to a few million repetitions is exact, so the
 * device results must equal the serial ones bit for bit (the tolerance is only a safety net). */
static void init_xy(double *x, double *y, size_t n) {
  for (size_t i = 0; i < n; i++) {
    x[i] = (double)(i % 16) * 0.25;
    y[i] = (double)(i % 8) * 0.5 - 1.0;
  }
}

static void init_z(double *z, size_t n) {
  for (size_t i = 0; i < n; i++)
    z[i] = (double)(i % 5);
}

static double max_rel_err(const double *got, const double *ref, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) {
    double d = fabs(got[i] - ref[i]) / fmax(1.0, fabs(ref[i]));
    if (!(d <= m)) /* also catches NaN */
      m = isnan(d) ? INFINITY : d;
  }
  return m;
}

int main(int argc, char **argv) {
  long n = 1L << 22, runs = 3, device = -1;
  long reps[MAX_REPS_LIST];
  int nreps = 0;
  const char *reps_arg = "1,10,100", *variant = "all", *stat = "avg";
  int quiet = 0;
  for (int a = 1; a < argc; a++) {
    const char *o = argv[a];
    if (strcmp(o, "-h") == 0 || strcmp(o, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(o, "--quiet") == 0) {
      quiet = 1;
      continue;
    }
    if (a + 1 >= argc)
      die_usage("missing value or unknown option", o);
    const char *v = argv[++a];
    if (strcmp(o, "--n") == 0)
      n = parse_long(v, o, 1, 1L << 28);
    else if (strcmp(o, "--reps") == 0)
      reps_arg = v;
    else if (strcmp(o, "--device") == 0)
      device = parse_long(v, o, 0, 1L << 20);
    else if (strcmp(o, "--runs") == 0)
      runs = parse_long(v, o, 1, 1000);
    else if (strcmp(o, "--stat") == 0)
      stat = v;
    else if (strcmp(o, "--variant") == 0)
      variant = v;
    else
      die_usage("unknown option", o);
  }
  {
    char *copy = strdup(reps_arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      if (nreps == MAX_REPS_LIST)
        die_usage("too many repetition counts (at most 16)", reps_arg);
      reps[nreps++] = parse_long(tok, "--reps", 1, 1000000);
    }
    free(copy);
    if (nreps == 0)
      die_usage("--reps needs at least one count", reps_arg);
  }
  int best = 0;
  if (strcmp(stat, "best") == 0)
    best = 1;
  else if (strcmp(stat, "avg") != 0)
    die_usage("--stat is avg or best", stat);
  int selected = -1; /* -1: all */
  if (strcmp(variant, "all") != 0) {
    for (int v = 0; v < NVARIANTS; v++)
      if (strcmp(variant, variant_names[v]) == 0)
        selected = v;
    if (selected < 0)
      die_usage("unknown variant", variant);
  }

  int ndevices = omp_get_num_devices();
  if (ndevices <= 0) {
    fprintf(stderr, "daxpy: no offload devices (omp_get_num_devices() = %d)\n", ndevices);
    return 2;
  }
  if (device < 0)
    device = omp_get_default_device();
  if (device >= ndevices) {
    fprintf(stderr, "daxpy: device %ld does not exist (%d devices)\n", device, ndevices);
    return 2;
  }
  omp_set_default_device((int)device); /* omp_daxpy runs there */
  {
    /* Load the program image on the device before timing anything. */
    int where = -1;
#pragma omp target map(from : where)
    where = omp_is_initial_device();
    if (where != 0)
      fprintf(stderr, "daxpy: warning: device %ld ran the warm-up region on the host\n", device);
  }

  const size_t N = (size_t)n;
  const double a = 2.0;
  if (!quiet) {
    printf("daxpy: n=%ld (%.1f MiB per array), device %ld of %d, reps [", n,
           (double)N * sizeof(double) / 1048576.0, device, ndevices);
    for (int r = 0; r < nreps; r++)
      printf("%s%ld", r ? "," : "", reps[r]);
    printf("], %s of %ld run%s\n", best ? "best" : "average", runs, runs == 1 ? "" : "s");
  }

  /* Serial references, one per repetition count (also timed: the host without offloading). */
  double *x0 = malloc(N * sizeof(double)), *y0 = malloc(N * sizeof(double));
  double *ref[MAX_REPS_LIST];
  double t_serial[MAX_REPS_LIST];
  if (!x0 || !y0) {
    fprintf(stderr, "daxpy: out of memory\n");
    return 2;
  }
  init_xy(x0, y0, N);
  for (int r = 0; r < nreps; r++) {
    ref[r] = malloc(N * sizeof(double));
    if (!ref[r]) {
      fprintf(stderr, "daxpy: out of memory\n");
      return 2;
    }
    init_z(ref[r], N);
    double t0 = omp_get_wtime();
    for (long k = 0; k < reps[r]; k++)
      for (size_t i = 0; i < N; i++)
        ref[r][i] += a * x0[i] + y0[i];
    t_serial[r] = omp_get_wtime() - t0;
  }

  double t[NVARIANTS][MAX_REPS_LIST];
  double err[NVARIANTS][MAX_REPS_LIST];
  int ran[NVARIANTS] = {0}, vok[NVARIANTS] = {0};
  int failed = 0;
  for (int v = 0; v < NVARIANTS; v++) {
    if (selected >= 0 && v != selected)
      continue;
    arrays_t m;
    if (arrays_alloc(&m, v, (int)device, N, quiet) != 0) {
      printf("%-9s verified: FAILED (no memory of this kind)\n", variant_names[v]);
      failed = 1;
      arrays_free(&m);
      continue;
    }
    init_xy(m.x, m.y, N);
    ran[v] = 1;
    vok[v] = 1;
    for (int r = 0; r < nreps; r++) {
      double sum = 0, min = INFINITY;
      for (long run = 0; run < runs; run++) {
        init_z(m.z, N);
        double t0 = omp_get_wtime();
        for (long k = 0; k < reps[r]; k++)
          omp_daxpy((int)n, a, m.x, m.y, m.z);
        double dt = omp_get_wtime() - t0;
        sum += dt;
        min = dt < min ? dt : min;
      }
      t[v][r] = best ? min : sum / (double)runs;
      err[v][r] = max_rel_err(m.z, ref[r], N);
      if (!(err[v][r] <= TOLERANCE))
        vok[v] = 0;
    }
    failed |= !vok[v];
    arrays_free(&m);
  }

  /* One row per (variant, reps), verified; then the matrix of times and the ratios to map. */
  printf("%-9s %6s %11s %9s %11s  %s\n", "variant", "reps", "time_s", "vs_map", "max_rel_err",
         "result");
  for (int r = 0; r < nreps; r++)
    printf("%-9s %6ld %11.6f %9s %11.2e  verified: OK (reference)\n", "serial", reps[r],
           t_serial[r], "-", 0.0);
  for (int v = 0; v < NVARIANTS; v++) {
    if (!ran[v])
      continue;
    for (int r = 0; r < nreps; r++) {
      char ratio[16] = "-";
      if (ran[V_MAP] && t[V_MAP][r] > 0)
        snprintf(ratio, sizeof ratio, "%.3f", t[v][r] / t[V_MAP][r]);
      printf("%-9s %6ld %11.6f %9s %11.2e  verified: %s\n", variant_names[v], reps[r], t[v][r],
             ratio, err[v][r], err[v][r] <= TOLERANCE ? "OK" : "FAILED");
    }
  }
  if (!quiet) {
    char title[48];
    snprintf(title, sizeof title, "seconds (%s of %ld)", best ? "best" : "average", runs);
    printf("\n%-22s", title);
    for (int r = 0; r < nreps; r++) {
      char label[32];
      snprintf(label, sizeof label, "reps=%ld", reps[r]);
      printf(" %16s", label);
    }
    printf("\n%-22s", "serial (host)");
    for (int r = 0; r < nreps; r++)
      printf(" %16.6f", t_serial[r]);
    printf("\n");
    for (int v = 0; v < NVARIANTS; v++) {
      if (!ran[v])
        continue;
      printf("%-22s", variant_names[v]);
      for (int r = 0; r < nreps; r++)
        printf(" %16.6f", t[v][r]);
      printf("\n");
    }
    if (ran[V_MAP])
      for (int v = 0; v < NVARIANTS; v++) {
        if (!ran[v] || v == V_MAP)
          continue;
        char label[32];
        snprintf(label, sizeof label, "%s/map", variant_names[v]);
        printf("%-22s", label);
        for (int r = 0; r < nreps; r++)
          printf(" %16.3f", t[v][r] / t[V_MAP][r]);
        printf("\n");
      }
  }
  for (int r = 0; r < nreps; r++)
    free(ref[r]);
  free(x0);
  free(y0);
  return failed ? 1 : 0;
}
