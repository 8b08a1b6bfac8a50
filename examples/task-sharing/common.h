/* Shared by the task-sharing applications (seed 002): option parsing, the per-device table from
 * spread_any_stats, bitwise/tolerance comparison and the summary line. Header-only: each app is
 * one translation unit built with `spread-cc -O2 app.c -o app -lm`. */
#ifndef TS_COMMON_H
#define TS_COMMON_H

#include <math.h>
#include <omp.h>
#include <spread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The three configurations of every app, each its own construct in the source. */
enum { TS_DEVICES = 0, TS_HOST = 1, TS_HYBRID = 2, TS_MODES = 3 };
static const char *const ts_mode_name[TS_MODES] = {"devices-only", "host-only", "hybrid"};

typedef struct {
  long n, b, steps; /* problem size, block (tile) size, time steps / iterations */
  int quick;        /* -q: small sizes (tests) */
  int quiet;        /* -Q: no per-device tables */
  int modes;        /* -m: bit m set = run mode m (default all) */
} ts_opts_t;

/* resources() of the versions, set with -r HOST,CPU,NVIDIA (tokens out of 100 per device; 0 =
 * no token limit, only the runtime's slots). Each app sets its defaults and says why. */
enum { TS_R_HOST = 0, TS_R_CPU = 1, TS_R_NVIDIA = 2 };
static int ts_res[3];

/* -u: the initial thread creates the instances, outside any parallel region (the paper's Fig. 2
 * as written in main); default: the single thread of a parallel region creates them and the
 * team's threads run them. */
static int ts_unwrapped;
#define TS_CALL(call)                                                                            \
  do {                                                                                           \
    if (ts_unwrapped) {                                                                          \
      call;                                                                                      \
    } else {                                                                                     \
      _Pragma("omp parallel") _Pragma("omp single") { call; }                                    \
    }                                                                                            \
  } while (0)

static void ts_usage(const char *prog, const char *what) {
  fprintf(stderr,
          "usage: %s [-n N] [-b BS] [-s STEPS] [-r HOST,CPU,NVIDIA] [-m MODES] [-u] [-q] [-Q]\n"
          "  %s\n"
          "  -r resources() of the host, cpu and nvidia versions (default %d,%d,%d)\n"
          "  -m which modes run: letters d (devices-only), h (host-only), y (hybrid); default dhy\n"
          "  -u create the instances outside any parallel region (default: in parallel + single)\n"
          "  -q quick (small) sizes, -Q no per-device tables\n",
          prog, what, ts_res[0], ts_res[1], ts_res[2]);
  exit(2);
}

/* Parses -n, -b, -s, -r, -m, -u, -q, -Q; -q first sets the quick defaults, explicit values win. */
static void ts_parse(int argc, char **argv, ts_opts_t *o, ts_opts_t quick, const char *what) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* lines survive an abort */
  long n = -1, b = -1, s = -1;
  int modes = (1 << TS_MODES) - 1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    long *dst = NULL;
    if (!strcmp(a, "-q")) { o->quick = 1; continue; }
    if (!strcmp(a, "-Q")) { o->quiet = 1; continue; }
    if (!strcmp(a, "-u")) { ts_unwrapped = 1; continue; }
    if (!strcmp(a, "-n")) dst = &n;
    else if (!strcmp(a, "-b")) dst = &b;
    else if (!strcmp(a, "-s")) dst = &s;
    else if (!strcmp(a, "-r") && i + 1 < argc) {
      int h, c, g;
      char tail;
      if (sscanf(argv[++i], "%d,%d,%d%c", &h, &c, &g, &tail) != 3 || h < 0 || h > 100 || c < 0 ||
          c > 100 || g < 0 || g > 100)
        ts_usage(argv[0], what);
      ts_res[TS_R_HOST] = h, ts_res[TS_R_CPU] = c, ts_res[TS_R_NVIDIA] = g;
      continue;
    } else if (!strcmp(a, "-m") && i + 1 < argc) {
      const char *m = argv[++i];
      modes = 0;
      for (; *m; ++m) {
        if (*m == 'd') modes |= 1 << TS_DEVICES;
        else if (*m == 'h') modes |= 1 << TS_HOST;
        else if (*m == 'y') modes |= 1 << TS_HYBRID;
        else ts_usage(argv[0], what);
      }
      if (!modes) ts_usage(argv[0], what);
      continue;
    } else ts_usage(argv[0], what);
    if (i + 1 >= argc) ts_usage(argv[0], what);
    char *end;
    *dst = strtol(argv[++i], &end, 10);
    if (*end || *dst <= 0) ts_usage(argv[0], what);
  }
  if (o->quick) { int q = o->quiet; *o = quick; o->quick = 1; o->quiet = q; }
  if (n > 0) o->n = n;
  if (b > 0) o->b = b;
  if (s > 0) o->steps = s;
  o->modes = modes;
}

/* --- per-device table ------------------------------------------------------------------ */

#define TS_MAX_ROWS 64

typedef struct {
  spread_any_stats_t row[TS_MAX_ROWS];
  int nrows;
  double seconds;
} ts_result_t;

static const char *ts_kind(int k) {
  return k == __SPREAD_ANY_HOST ? "host" : k == __SPREAD_ANY_CPU ? "cpu" : k == __SPREAD_ANY_NVIDIA ? "nvidia" : "?";
}

static void ts_collect(ts_result_t *r, double seconds) {
  r->nrows = spread_any_stats(r->row, TS_MAX_ROWS);
  r->seconds = seconds;
}

/* Instances run by the host (kind host) and by the devices (cpu, nvidia). */
static void ts_instances(const ts_result_t *r, long *host, long *devices) {
  *host = *devices = 0;
  for (int i = 0; i < r->nrows; ++i) {
    if (r->row[i].spread_kind == __SPREAD_ANY_HOST) *host += r->row[i].spread_instances;
    else *devices += r->row[i].spread_instances;
  }
}

static long long ts_bytes(const ts_result_t *r) {
  long long s = 0;
  for (int i = 0; i < r->nrows; ++i) s += r->row[i].spread_bytes_in + r->row[i].spread_bytes_out;
  return s;
}

/* Prints the table of one mode and its instance line, e.g.
 *   nbody devices-only: instances host 0 devices 64 */
static void ts_print(const char *app, int mode, const ts_result_t *r, int quiet) {
  long host, dev;
  ts_instances(r, &host, &dev);
  if (!quiet) {
    printf("  %-6s %-6s %9s %6s %9s %9s %7s %7s %7s\n", "device", "kind", "instances", "stolen",
           "MiB in", "MiB out", "tokens", "running", "busy s");
    for (int i = 0; i < r->nrows; ++i) {
      const spread_any_stats_t *s = &r->row[i];
      char dev_name[16];
      if (s->spread_device == omp_get_initial_device()) snprintf(dev_name, sizeof dev_name, "host");
      else snprintf(dev_name, sizeof dev_name, "%d", s->spread_device);
      printf("  %-6s %-6s %9lld %6lld %9.2f %9.2f %7d %7d %7.3f\n", dev_name, ts_kind(s->spread_kind),
             (long long)s->spread_instances, (long long)s->spread_stolen,
             s->spread_bytes_in / 1048576.0, s->spread_bytes_out / 1048576.0, s->spread_max_tokens,
             s->spread_max_running, s->spread_busy_seconds);
    }
  }
  printf("%s %s: instances host %ld devices %ld bytes %lld\n", app, ts_mode_name[mode], host, dev,
         ts_bytes(r));
}

static void ts_print_resources(const char *app) {
  printf("%s: resources host %d cpu %d nvidia %d\n", app, ts_res[TS_R_HOST], ts_res[TS_R_CPU],
         ts_res[TS_R_NVIDIA]);
}

/* The summary: rates are work / seconds. "Best single kind" is the better of devices-only and
 * host-only; the sum is what a perfect hybrid would reach (paper §4: "the ideal performance
 * which could be obtained by just adding the performance of the CPU to the GPU"). */
static void ts_summary(const char *app, const ts_result_t r[TS_MODES], double work, const char *unit,
                       int modes) {
  double rate[TS_MODES];
  if (modes != (1 << TS_MODES) - 1) return; /* the ratios need all three */
  for (int m = 0; m < TS_MODES; ++m) rate[m] = work / (r[m].seconds > 0 ? r[m].seconds : 1e-9);
  for (int m = 0; m < TS_MODES; ++m)
    printf("%s %-12s %9.4f s %10.3f %s\n", app, ts_mode_name[m], r[m].seconds, rate[m], unit);
  double best = rate[TS_DEVICES] > rate[TS_HOST] ? rate[TS_DEVICES] : rate[TS_HOST];
  printf("hybrid vs best single kind: %.2fx; hybrid vs sum of the kinds' rates: %.0f%%\n",
         rate[TS_HYBRID] / best, 100.0 * rate[TS_HYBRID] / (rate[TS_DEVICES] + rate[TS_HOST]));
}

/* --- verification ---------------------------------------------------------------------- */

/* Compares got with want (n values): prints "<app> <mode>: verified: OK (bitwise)", or
 * "OK (max relative difference X)" when not bitwise but within tol, else "verified: FAILED" and
 * returns 1. Versions compiled for another instruction set (an NVIDIA GPU contracts a*b+c to an
 * FMA) round differently; on host devices every version is x86_64 code from the same loop body,
 * so the results are bitwise equal. */
#define TS_DEFINE_CHECK(NAME, T)                                                                  \
  static int NAME(const char *app, int mode, const T *got, const T *want, long n, double tol) {   \
    long diff = 0, worst = -1;                                                                    \
    double maxrel = 0;                                                                            \
    for (long i = 0; i < n; ++i) {                                                                \
      if (memcmp(&got[i], &want[i], sizeof(T)) == 0) continue;                                    \
      ++diff;                                                                                     \
      double d = fabs((double)got[i] - (double)want[i]);                                          \
      double m = fabs((double)want[i]);                                                           \
      double rel = m > 0 ? d / m : d;                                                             \
      if (!(rel <= maxrel)) { maxrel = rel; worst = i; } /* NaN counts as worst */                \
    }                                                                                             \
    if (diff == 0) {                                                                              \
      printf("%s %s: verified: OK (bitwise)\n", app, ts_mode_name[mode]);                         \
      return 0;                                                                                   \
    }                                                                                             \
    if (maxrel <= tol) {                                                                          \
      printf("%s %s: verified: OK (max relative difference %.3g, %ld values differ)\n", app,      \
             ts_mode_name[mode], maxrel, diff);                                                   \
      return 0;                                                                                   \
    }                                                                                             \
    printf("%s %s: verified: FAILED (%ld of %ld values differ; worst [%ld] %.17g vs %.17g)\n",    \
           app, ts_mode_name[mode], diff, n, worst, worst >= 0 ? (double)got[worst] : 0.0,        \
           worst >= 0 ? (double)want[worst] : 0.0);                                               \
    return 1;                                                                                     \
  }
TS_DEFINE_CHECK(ts_check_float, float)
TS_DEFINE_CHECK(ts_check_double, double)

/* The devices-only construct lists no host version, the host-only one only the host: a mode
 * whose instances ran on the wrong kind is an error (the runtime ignored the entries). */
static int ts_check_placement(const char *app, int mode, const ts_result_t *r, long expected) {
  long host, dev;
  ts_instances(r, &host, &dev);
  int bad = host + dev != expected || (mode == TS_DEVICES && host != 0) ||
            (mode == TS_HOST && dev != 0);
  if (bad)
    printf("%s %s: placement: FAILED (host %ld devices %ld, expected %ld instances%s)\n", app,
           ts_mode_name[mode], host, dev, expected,
           mode == TS_DEVICES ? " all on devices" : mode == TS_HOST ? " all on the host" : "");
  return bad;
}

#endif
