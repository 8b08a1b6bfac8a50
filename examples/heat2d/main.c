/* 2-D heat equation over several devices (seed 003, section 4.3 and Algorithm 10).
 *
 * An explicit 5-point Jacobi stencil on an (nj+2) x (ni+2) grid whose outer rows and columns
 * are a fixed boundary:
 *
 *   out[j][i] = in[j][i] + tfac * ((in[j][i-1] - 2 in[j][i] + in[j][i+1])
 *                                + (in[j-1][i] - 2 in[j][i] + in[j+1][i]))
 *
 * The nj interior rows are split into one block of consecutive rows per device (the first
 * nj % D devices get one row more). Device d holds its rows plus one halo row above and below:
 * `target enter data map(to: temp1[(s-1)*LDA:(rows+2)*LDA], temp2[...]) device(d)`, sections of
 * the host arrays that overlap the neighbours' (allowed: each device has its own table). Every
 * step runs one `target ... nowait device(d)` kernel per device, waits for every device with
 * `#pragma omp wait device(d)`, exchanges the halo rows of the new values, and swaps the in
 * and out pointers. Two halo exchanges (--version):
 *
 *   host  staged through the host (the paper's hybrid model, Algorithm 5): `target update from`
 *         of every device's first and last rows into the host array, then `target update to`
 *         of every device's halo rows from it
 *   peer  device to device (Algorithm 10): `#pragma omp target update peer to(row)
 *         to_device(d) from(row) from_device(d-1 or d+1)`
 *
 * At the end `target exit data map(from:)` brings back every device's interior rows. Both
 * versions are compared with a serial host run, element by element: the arithmetic is the
 * same, so on host devices they are bit-identical; a GPU's image fuses multiplies and adds
 * (ptxas contracts them by default), which moves the last bit (2.2e-16 on an H200 after 50
 * steps). `verified: OK` when the largest difference is at most VERIFY_TOL, else
 * `verified: FAILED` and exit status 1; a wrong halo row is off by 1e-3 or more.
 *
 * usage: heat2d [--ni N] [--nj N] [--steps S] [--devices LIST|all] [--runs R]
 *               [--version host|peer|all] [--tfac F] [--quiet]
 *   --ni N        interior columns (default 1024)
 *   --nj N        interior rows, split over the devices (default 1024)
 *   --steps S     time steps (default 100)
 *   --devices L   comma-separated distinct device numbers, top block first (default all)
 *   --runs R      run every version R times, report the fastest run (default 3); every run
 *                 is verified
 *   --tfac F      alpha*dt/h^2, stable below 0.25 (default 0.2)
 */
#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64
/* Largest difference from the serial run a version may have (values lie in [0, 1]). */
#define VERIFY_TOL 1e-12

/* One grid point of the stencil; the serial run and the kernels share it, so the results are
 * bit-identical on host devices and within VERIFY_TOL on a GPU. */
#pragma omp declare target
static inline double heat_point(const double *in, long c, long lda, double tfac) {
  double d2tdx2 = in[c - 1] - 2.0 * in[c] + in[c + 1];
  double d2tdy2 = in[c - lda] - 2.0 * in[c] + in[c + lda];
  return in[c] + tfac * (d2tdx2 + d2tdy2);
}
#pragma omp end declare target

typedef struct {
  int ni, nj, steps;
  long lda;      /* ni + 2 */
  double tfac;
  int ndev;
  int dv[MAX_DEVICES];    /* device of block k */
  int start[MAX_DEVICES]; /* first interior row of block k (rows are 1..nj) */
  int rows[MAX_DEVICES];  /* rows of block k */
} heat_cfg_t;

typedef struct {
  double exchange_s; /* time spent in halo exchanges */
} heat_stats_t;

static void usage(FILE *f) {
  fprintf(f, "usage: heat2d [--ni N] [--nj N] [--steps S] [--devices LIST|all] [--runs R]\n"
             "              [--version host|peer|all] [--tfac F] [--quiet]\n");
}

static void die_usage(const char *msg, const char *arg) {
  fprintf(stderr, "heat2d: %s%s%s\n", msg, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  exit(2);
}

static long parse_long(const char *s, const char *opt, long min, long max) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || errno || v < min || v > max) {
    fprintf(stderr, "heat2d: %s needs an integer in [%ld, %ld], not '%s'\n", opt, min, max, s);
    exit(2);
  }
  return v;
}

/* A fixed boundary (hot top row, cold bottom row, linear sides) and an irregular interior, so
 * that a missing or misplaced halo row changes the result from the first step on. */
static void grid_init(double *t, const heat_cfg_t *c) {
  const long lda = c->lda;
  for (long j = 0; j <= c->nj + 1; j++)
    for (long i = 0; i <= c->ni + 1; i++) {
      double v;
      if (j == 0)
        v = 1.0;
      else if (j == c->nj + 1)
        v = 0.0;
      else if (i == 0 || i == c->ni + 1)
        v = 1.0 - (double)j / (double)(c->nj + 1);
      else
        v = (double)((i * 37 + j * 101 + i * j) % 97) / 97.0;
      t[j * lda + i] = v;
    }
}

/* --- serial reference ------------------------------------------------------------------------ */

static double *heat_serial(double *t1, double *t2, const heat_cfg_t *c) {
  const long lda = c->lda;
  for (int step = 0; step < c->steps; step++) {
    for (long j = 1; j <= c->nj; j++)
      for (long i = 1; i <= c->ni; i++)
        t2[j * lda + i] = heat_point(t1, j * lda + i, lda, c->tfac);
    double *tmp = t1;
    t1 = t2;
    t2 = tmp;
  }
  return t1;
}

/* --- devices --------------------------------------------------------------------------------- */

/* Algorithm 4's step kernel on one device's block: `in` and `out` point at the block's first
 * (halo) row; rows 1..rows are computed. Asynchronous: `wait device(dev)` waits for it. */
static void step_kernel(int dev, int ni, int rows, double tfac, double *in, double *out) {
  const long lda = ni + 2, len = (long)(rows + 2) * lda;
#pragma omp target teams distribute parallel for device(dev) nowait \
    map(present, alloc : in[0 : len], out[0 : len]) firstprivate(ni, rows, lda, tfac)
  for (long j = 1; j <= rows; j++)
    for (long i = 1; i <= ni; i++)
      out[j * lda + i] = heat_point(in, j * lda + i, lda, tfac);
}

static void enter_blocks(double *t1, double *t2, const heat_cfg_t *c) {
  const long lda = c->lda;
  for (int d = 0; d < c->ndev; d++) {
    const long s = c->start[d], r = c->rows[d];
#pragma omp target enter data device(c->dv[d]) \
    map(to : t1[(s - 1) * lda : (r + 2) * lda], t2[(s - 1) * lda : (r + 2) * lda])
  }
}

/* Brings back every device's interior rows of `in` (the latest values) and unmaps both arrays. */
static void exit_blocks(double *in, double *out, const heat_cfg_t *c) {
  const long lda = c->lda;
  for (int d = 0; d < c->ndev; d++) {
    const long s = c->start[d], r = c->rows[d];
#pragma omp target exit data device(c->dv[d]) map(from : in[s * lda : r * lda]) \
    map(release : out[(s - 1) * lda : (r + 2) * lda])
  }
}

static void wait_all(const heat_cfg_t *c) {
  for (int d = 0; d < c->ndev; d++) {
#pragma omp wait device(c->dv[d])
  }
}

/* Halo exchange through the host (Algorithm 5's pattern). */
static void exchange_host(double *out, const heat_cfg_t *c) {
  const long lda = c->lda;
  /* every device's boundary rows to the host */
  for (int d = 0; d < c->ndev; d++) {
    const long s = c->start[d], r = c->rows[d];
    if (d < c->ndev - 1) { /* last row: the next device's upper halo */
#pragma omp target update from(out[(s + r - 1) * lda : lda]) device(c->dv[d])
    }
    if (d > 0) { /* first row: the previous device's lower halo */
#pragma omp target update from(out[s * lda : lda]) device(c->dv[d])
    }
  }
  /* then the halo rows from the host to every device */
  for (int d = 0; d < c->ndev; d++) {
    const long s = c->start[d], r = c->rows[d];
    if (d > 0) { /* upper halo */
#pragma omp target update to(out[(s - 1) * lda : lda]) device(c->dv[d])
    }
    if (d < c->ndev - 1) { /* lower halo */
#pragma omp target update to(out[(s + r) * lda : lda]) device(c->dv[d])
    }
  }
}

/* Halo exchange device to device (Algorithm 10). */
static void exchange_peer(double *out, const heat_cfg_t *c) {
  const long lda = c->lda;
  for (int d = 0; d < c->ndev; d++) {
    const long s = c->start[d], r = c->rows[d];
    if (d > 0) { /* upper halo = the previous device's last row */
#pragma omp target update peer to(out[(s - 1) * lda : lda]) to_device(c->dv[d]) \
    from(out[(s - 1) * lda : lda]) from_device(c->dv[d - 1])
    }
    if (d < c->ndev - 1) { /* lower halo = the next device's first row */
#pragma omp target update peer to(out[(s + r) * lda : lda]) to_device(c->dv[d]) \
    from(out[(s + r) * lda : lda]) from_device(c->dv[d + 1])
    }
  }
}

/* Runs c->steps steps on the devices; returns the array holding the result. */
static double *heat_devices(double *t1, double *t2, const heat_cfg_t *c, int peer,
                            heat_stats_t *st) {
  const long lda = c->lda;
  st->exchange_s = 0;
  enter_blocks(t1, t2, c);
  for (int step = 0; step < c->steps; step++) {
    for (int d = 0; d < c->ndev; d++) {
      const long off = (c->start[d] - 1) * lda;
      step_kernel(c->dv[d], c->ni, c->rows[d], c->tfac, t1 + off, t2 + off);
    }
    /* wait to finish the kernel computation */
    wait_all(c);
    double t0 = omp_get_wtime();
    if (peer)
      exchange_peer(t2, c);
    else
      exchange_host(t2, c);
    st->exchange_s += omp_get_wtime() - t0;
    /* swap the in and out pointers */
    double *tmp = t1;
    t1 = t2;
    t2 = tmp;
  }
  /* the nowait target tasks have all run (wait device); let libomp retire them */
#pragma omp taskwait
  exit_blocks(t1, t2, c);
  return t1;
}

/* --- driver ---------------------------------------------------------------------------------- */

static void parse_devices(const char *arg, heat_cfg_t *c, int ndevices) {
  c->ndev = 0;
  if (strcmp(arg, "all") == 0) {
    for (int d = 0; d < ndevices && d < MAX_DEVICES; d++)
      c->dv[c->ndev++] = d;
    return;
  }
  char *copy = strdup(arg), *save = NULL;
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    long d = parse_long(tok, "--devices", 0, 1L << 20);
    if (d >= ndevices) {
      fprintf(stderr, "heat2d: device %ld does not exist (%d devices)\n", d, ndevices);
      exit(2);
    }
    for (int e = 0; e < c->ndev; e++)
      if (c->dv[e] == d) /* its blocks would overlap on one device */
        die_usage("a device is listed twice", arg);
    if (c->ndev == MAX_DEVICES)
      die_usage("too many devices", arg);
    c->dv[c->ndev++] = (int)d;
  }
  free(copy);
}

static double max_abs_diff(const double *a, const double *b, long len) {
  double m = 0;
  for (long k = 0; k < len; k++) {
    double d = fabs(a[k] - b[k]);
    if (!(d <= m))
      m = isnan(d) ? INFINITY : d;
  }
  return m;
}

int main(int argc, char **argv) {
  long ni = 1024, nj = 1024, steps = 100, runs = 3;
  double tfac = 0.2;
  const char *devices = "all", *version = "all";
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
    if (strcmp(o, "--ni") == 0)
      ni = parse_long(v, o, 1, 1L << 20);
    else if (strcmp(o, "--nj") == 0)
      nj = parse_long(v, o, 1, 1L << 20);
    else if (strcmp(o, "--steps") == 0)
      steps = parse_long(v, o, 0, 1L << 30);
    else if (strcmp(o, "--runs") == 0)
      runs = parse_long(v, o, 1, 1000);
    else if (strcmp(o, "--devices") == 0)
      devices = v;
    else if (strcmp(o, "--version") == 0)
      version = v;
    else if (strcmp(o, "--tfac") == 0) {
      char *end;
      tfac = strtod(v, &end);
      if (*v == '\0' || *end != '\0' || !(tfac > 0 && tfac < 0.25))
        die_usage("--tfac needs a number in (0, 0.25)", v);
    } else
      die_usage("unknown option", o);
  }
  int run_host = 1, run_peer = 1;
  if (strcmp(version, "host") == 0)
    run_peer = 0;
  else if (strcmp(version, "peer") == 0)
    run_host = 0;
  else if (strcmp(version, "all") != 0)
    die_usage("unknown version", version);

  heat_cfg_t c = {.ni = (int)ni, .nj = (int)nj, .steps = (int)steps, .lda = ni + 2, .tfac = tfac};
  int ndevices = omp_get_num_devices();
  if (ndevices <= 0) {
    fprintf(stderr, "heat2d: no offload devices (omp_get_num_devices() = %d)\n", ndevices);
    return 2;
  }
  parse_devices(devices, &c, ndevices);
  if (c.ndev == 0)
    die_usage("no devices listed", devices);
  if (nj < c.ndev) {
    fprintf(stderr, "heat2d: %ld rows cannot be split over %d devices\n", nj, c.ndev);
    return 2;
  }
  for (int d = 0, s = 1; d < c.ndev; d++) {
    c.start[d] = s;
    c.rows[d] = (int)(nj / c.ndev) + (d < nj % c.ndev);
    s += c.rows[d];
  }
  /* Load the program image on every device before timing anything. */
  for (int d = 0; d < c.ndev; d++) {
    int where = -1;
#pragma omp target device(c.dv[d]) map(from : where)
    where = omp_is_initial_device();
    if (where != 0)
      fprintf(stderr, "heat2d: warning: device %d ran the warm-up region on the host\n", c.dv[d]);
  }

  const long len = (nj + 2) * c.lda;
  if (!quiet) {
    printf("heat2d: %ld x %ld interior points (%.1f MiB per array), %ld steps, tfac %g, "
           "devices [",
           nj, ni, (double)len * sizeof(double) / 1048576.0, steps, tfac);
    for (int d = 0; d < c.ndev; d++)
      printf("%s%d", d ? "," : "", c.dv[d]);
    printf("], rows per device [");
    for (int d = 0; d < c.ndev; d++)
      printf("%s%d", d ? "," : "", c.rows[d]);
    printf("]\n");
  }

  double *r1 = malloc(len * sizeof(double)), *r2 = malloc(len * sizeof(double));
  double *t1 = malloc(len * sizeof(double)), *t2 = malloc(len * sizeof(double));
  if (!r1 || !r2 || !t1 || !t2) {
    fprintf(stderr, "heat2d: out of memory\n");
    return 2;
  }
  grid_init(r1, &c);
  grid_init(r2, &c);
  double t0 = omp_get_wtime();
  const double *ref = heat_serial(r1, r2, &c);
  double t_serial = omp_get_wtime() - t0; /* one run: the reference */

  printf("%-7s %7s %10s %9s %10s %9s %10s  %s\n", "version", "devices", "time_s", "ms/step",
         "halo_s", "peer/host", "max_err", "result");
  printf("%-7s %7s %10.4f %9.3f %10s %9s %10.2e  verified: OK (reference)\n", "serial", "host",
         t_serial, steps ? 1e3 * t_serial / (double)steps : 0.0, "-", "-", 0.0);
  int failed = 0;
  double t_host = 0;
  for (int peer = 0; peer <= 1; peer++) {
    if (!(peer ? run_peer : run_host))
      continue;
    /* The best of `runs` runs; every run is verified. */
    double t = INFINITY, err = 0;
    heat_stats_t st = {0};
    for (long run = 0; run < runs; run++) {
      grid_init(t1, &c);
      grid_init(t2, &c);
      heat_stats_t st1;
      t0 = omp_get_wtime();
      const double *res = heat_devices(t1, t2, &c, peer, &st1);
      double t1_s = omp_get_wtime() - t0;
      double e = max_abs_diff(res, ref, len);
      err = e > err || isnan(e) ? e : err;
      if (t1_s < t) {
        t = t1_s;
        st = st1;
      }
    }
    int ok = err <= VERIFY_TOL;
    failed |= !ok;
    char ratio[16] = "-";
    if (!peer)
      t_host = t;
    else if (t_host > 0)
      snprintf(ratio, sizeof ratio, "%.3f", t / t_host);
    printf("%-7s %7d %10.4f %9.3f %10.4f %9s %10.2e  verified: %s\n", peer ? "peer" : "host",
           c.ndev, t, steps ? 1e3 * t / (double)steps : 0.0, st.exchange_s, ratio, err,
           ok ? "OK" : "FAILED");
  }
  if (!quiet) {
    double sum = 0;
    for (long k = 0; k < len; k++)
      sum += ref[k];
    printf("mean temperature after %ld steps: %.15f\n", steps, sum / (double)len);
  }
  free(r1);
  free(r2);
  free(t1);
  free(t2);
  return failed ? 1 : 0;
}
