/* Somier mini-app driver: command line, initial state, serial reference, verification, timing.
 *
 * usage: somier [--n N] [--steps S] [--planes P] [--devices LIST|all] [--variant V] [--quiet]
 *   --n N          points per dimension (default 64: 262144 points, 6 MiB per field)
 *   --steps S      time steps (default 10)
 *   --planes P     planes of the grid one device holds per buffer, i.e. its memory (default 4);
 *                  baseline buffers hold P planes, `one` buffers P x devices planes (chunks of P),
 *                  `two`/`double` half buffers P/2 x devices planes (chunks of P/2)
 *   --devices L    comma-separated device numbers in distribution order (default: all, 0..N-1)
 *   --variant V    baseline | one | two | double | serial | all (default all)
 *
 * Every version starts from the same state, and its final positions, velocities and centers are
 * compared with the serial run: prints `verified: OK` or `verified: FAILED` per version and
 * exits 1 if any failed.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "somier.h"

#define TOLERANCE 1e-9

typedef int (*variant_fn)(somier_t *, const somier_cfg_t *);

static const struct {
  const char *name;
  variant_fn fn;
  const char *what;
} variants[] = {
    {"serial", somier_serial, "host reference"},
    {"baseline", somier_baseline, "target, 1 device (Listing 9)"},
#ifndef SOMIER_NO_SPREAD
    {"one", somier_one, "target spread, one buffer (Listing 10)"},
    {"two", somier_two, "target spread, two buffers, taskloop (Listing 11)"},
    {"double", somier_double, "target spread, double buffering (Listing 12)"},
#endif
};
#define NVARIANTS ((int)(sizeof variants / sizeof variants[0]))

static void usage(FILE *f) {
  fprintf(f, "usage: somier [--n N] [--steps S] [--planes P] [--devices LIST|all]\n"
             "              [--variant baseline|one|two|double|serial|all] [--quiet]\n");
}

static void die_usage(const char *msg, const char *arg) {
  fprintf(stderr, "somier: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  exit(2);
}

static long parse_long(const char *s, const char *opt, long min) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < min) {
    fprintf(stderr, "somier: %s needs an integer >= %ld, not '%s'\n", opt, min, s);
    exit(2);
  }
  return v;
}

static void *xalloc(size_t bytes) {
  void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
  if (!p) {
    fprintf(stderr, "somier: out of memory (%zu bytes)\n", bytes);
    exit(2);
  }
  return p;
}

static void state_alloc(somier_t *s, int64_t n) {
  s->n = n;
  s->P = n * n * 3;
  size_t bytes = (size_t)(n * s->P) * sizeof(double);
  s->X = xalloc(bytes);
  s->Xn = xalloc(bytes);
  s->V = xalloc(bytes);
  s->F = xalloc(bytes);
  s->A = xalloc(bytes);
  s->C = xalloc((size_t)n * 3 * sizeof(double));
}

static void state_free(somier_t *s) {
  free(s->X);
  free(s->Xn);
  free(s->V);
  free(s->F);
  free(s->A);
  free(s->C);
}

/* A regular grid with spacing L0, interior points displaced by a smooth, asymmetric pattern. */
static void state_init(somier_t *s) {
  const int64_t n = s->n, P = s->P, row = n * 3;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      for (int64_t k = 0; k < n; k++) {
        int64_t p = i * P + j * row + k * 3;
        double dx = 0, dy = 0, dz = 0;
        if (i > 0 && i < n - 1 && !somier_fixed(n, j, k)) {
          double a = (double)i / (double)(n - 1), b = (double)j / (double)(n - 1),
                 c = (double)k / (double)(n - 1);
          dx = 0.15 * sin(3.1 * a + 1.0) * sin(6.2 * b) * sin(3.1 * c);
          dy = 0.10 * sin(9.4 * a) * sin(3.1 * b + 0.5);
          dz = 0.20 * sin(3.1 * a) * sin(3.1 * b) * sin(6.2 * c + 0.3);
        }
        s->X[p] = s->Xn[p] = (double)k * SOMIER_L0 + dx;
        s->X[p + 1] = s->Xn[p + 1] = (double)j * SOMIER_L0 + dy;
        s->X[p + 2] = s->Xn[p + 2] = (double)i * SOMIER_L0 + dz;
      }
  memset(s->V, 0, (size_t)(n * P) * sizeof(double));
  memset(s->F, 0, (size_t)(n * P) * sizeof(double));
  memset(s->A, 0, (size_t)(n * P) * sizeof(double));
  for (int64_t i = 0; i < n; i++)
    somier_center_plane(s->X, s->C, n, i);
  somier_centers(s);
}

int somier_serial(somier_t *s, const somier_cfg_t *cfg) {
  const int64_t n = s->n;
  for (int step = 0; step < cfg->steps; step++) {
    for (int64_t i = 1; i < n - 1; i++)
      somier_forces_plane(s->X, s->F, n, i);
    for (int64_t i = 1; i < n - 1; i++)
      somier_accel_plane(s->F, s->A, n, i);
    for (int64_t i = 1; i < n - 1; i++)
      somier_velocity_plane(s->A, s->V, n, i);
    for (int64_t i = 1; i < n - 1; i++)
      somier_position_plane(s->X, s->V, s->Xn, n, i);
    for (int64_t i = 1; i < n - 1; i++)
      somier_center_plane(s->Xn, s->C, n, i);
    somier_centers(s);
    somier_swap(s);
  }
  return 0;
}

static double max_abs_diff(const double *a, const double *b, int64_t len) {
  double m = 0;
  for (int64_t i = 0; i < len; i++) {
    double d = fabs(a[i] - b[i]);
    if (!(d <= m)) /* also catches NaN */
      m = isnan(d) ? INFINITY : d;
  }
  return m;
}

static int parse_devices(const char *arg, somier_cfg_t *cfg, int ndevices) {
  cfg->ndev = 0;
  if (strcmp(arg, "all") == 0) {
    for (int d = 0; d < ndevices && d < SOMIER_MAX_DEVICES; d++)
      cfg->dv[cfg->ndev++] = d;
    if (ndevices > SOMIER_MAX_DEVICES)
      fprintf(stderr, "somier: using the first %d of %d devices\n", SOMIER_MAX_DEVICES,
              ndevices);
  } else {
    char *copy = strdup(arg), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
      long d = parse_long(tok, "--devices", 0);
      if (d >= ndevices) {
        fprintf(stderr, "somier: device %ld does not exist (%d devices)\n", d, ndevices);
        exit(2);
      }
      for (int e = 0; e < cfg->ndev; e++)
        if (cfg->dv[e] == d)
          die_usage("a device is listed twice", arg);
      if (cfg->ndev == SOMIER_MAX_DEVICES)
        die_usage("too many devices (at most " "8" ")", arg);
      cfg->dv[cfg->ndev++] = (int)d;
    }
    free(copy);
  }
  if (cfg->ndev == 0)
    return -1;
  for (int e = cfg->ndev; e < SOMIER_MAX_DEVICES; e++)
    cfg->dv[e] = cfg->dv[0];
  return 0;
}

int main(int argc, char **argv) {
  long n = 64, steps = 10, planes = 4;
  const char *devices = "all", *variant = "all";
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
      n = parse_long(v, o, 4);
    else if (strcmp(o, "--steps") == 0)
      steps = parse_long(v, o, 0);
    else if (strcmp(o, "--planes") == 0)
      planes = parse_long(v, o, 1);
    else if (strcmp(o, "--devices") == 0)
      devices = v;
    else if (strcmp(o, "--variant") == 0)
      variant = v;
    else
      die_usage("unknown option", o);
  }

  int selected = -1; /* -1: all */
  if (strcmp(variant, "all") != 0) {
    for (int k = 0; k < NVARIANTS; k++)
      if (strcmp(variant, variants[k].name) == 0)
        selected = k;
    if (selected < 0) {
      if (!strcmp(variant, "one") || !strcmp(variant, "two") || !strcmp(variant, "double"))
        die_usage("this build has no target spread versions (built without spread-cc)", variant);
      die_usage("unknown variant", variant);
    }
  }

  somier_cfg_t cfg = {.steps = (int)steps, .planes = (int)planes};
  int ndevices = omp_get_num_devices();
  if (parse_devices(devices, &cfg, ndevices) != 0) {
    fprintf(stderr, "somier: no offload devices (omp_get_num_devices() = %d)\n", ndevices);
    return 2;
  }
  /* Load the program image on every device before timing anything. */
  for (int e = 0; e < cfg.ndev; e++) {
    int where = -1;
#pragma omp target device(cfg.dv[e]) map(from : where)
    where = omp_is_initial_device();
    if (where != 0 && !quiet)
      fprintf(stderr, "somier: warning: device %d ran the warm-up region on the host\n",
              cfg.dv[e]);
  }

  if (!quiet) {
    printf("somier: n=%ld (%ld points, %.1f MiB per field), %ld steps, %ld planes per device "
           "buffer, devices [",
           n, n * n * n, (double)(n * n * n * 3 * 8) / 1048576.0, steps, planes);
    for (int e = 0; e < cfg.ndev; e++)
      printf("%s%d", e ? "," : "", cfg.dv[e]);
    printf("]\n");
  }

  /* The reference. */
  somier_t ref, s;
  state_alloc(&ref, n);
  state_init(&ref);
  double t0 = omp_get_wtime();
  somier_serial(&ref, &cfg);
  double t_serial = omp_get_wtime() - t0;
  const int64_t len = n * ref.P;

  state_alloc(&s, n);
  printf("%-9s %8s %10s %10s %12s %10s  %s\n", "variant", "devices", "time_s", "ms/step",
         "vs_baseline", "max_err", "result");
  int failed = 0;
  double t_baseline = 0;
  for (int k = 0; k < NVARIANTS; k++) {
    if (selected >= 0 && k != selected)
      continue;
    double t;
    double err = 0;
    if (k == 0) {
      t = t_serial;
    } else {
      state_init(&s);
      t0 = omp_get_wtime();
      int rc = variants[k].fn(&s, &cfg);
      t = omp_get_wtime() - t0;
      if (rc != 0) {
        printf("%-9s %8s %10s %10s %12s %10s  skipped\n", variants[k].name, "-", "-", "-", "-",
               "-");
        if (selected >= 0)
          return 2;
        continue;
      }
      err = max_abs_diff(s.X, ref.X, len);
      double ev = max_abs_diff(s.V, ref.V, len);
      double ec = max_abs_diff(s.center, ref.center, 3);
      err = ev > err ? ev : err;
      err = ec > err ? ec : err;
    }
    if (k == 1)
      t_baseline = t;
    int ok = err <= TOLERANCE;
    failed |= !ok;
    char ndev[16], ratio[16];
    snprintf(ndev, sizeof ndev, "%d", k == 0 ? 0 : k == 1 ? 1 : cfg.ndev);
    if (t_baseline > 0 && k >= 1)
      snprintf(ratio, sizeof ratio, "%.2f", t / t_baseline);
    else
      snprintf(ratio, sizeof ratio, "-");
    printf("%-9s %8s %10.4f %10.3f %12s %10.2e  verified: %s%s\n", variants[k].name,
           k == 0 ? "host" : ndev, t, steps ? 1e3 * t / (double)steps : 0.0, ratio, err,
           ok ? "OK" : "FAILED", k == 0 ? " (reference)" : "");
  }
  if (!quiet)
    printf("center after %ld steps: (%.12f, %.12f, %.12f)\n", steps, ref.center[0],
           ref.center[1], ref.center[2]);
  state_free(&s);
  state_free(&ref);
  return failed ? 1 : 0;
}
