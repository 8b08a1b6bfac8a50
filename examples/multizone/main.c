/* multizone: a multi-zone solver in the spirit of NPB-MZ (seed 004, sections 4-5), on compute
 * units (CUs): CPU CUs and GPU CUs computing the zones of one grid at once.
 *
 * A 2-D grid of GX x GY points is split into ZX x ZY rectangular zones (a tensor-product split:
 * the zones of one column have one width, those of one row one height, so neighbours share
 * whole faces). Each zone is its own array with a one-point halo ring, registered with the
 * placement runtime (spread_register_data; the paper's register_zone). Every time step has the
 * paper's two periods (Fig. 11):
 *
 *   communication period (Figs. 14-15)  every zone's four halo faces are filled from its
 *       neighbours' edge points. Where each zone lives is asked with omp_get_data_placement and
 *       the face is gathered where the neighbour lives (a small target kernel on its device, or
 *       a host loop), moved with omp_target_memcpy when the two zones live in different places
 *       (device to device, device to host, host to device), and scattered where the zone lives.
 *       Zones on one device are copied by one kernel there; zones both on the host by a loop.
 *   computation period (Figs. 11-13)
 *       #pragma omp teams distribute num_teams(N:CPU:M, D:GPU:G) dist_schedule(KIND)
 *       for (zone ...) { spread_migrate_data(zone); SWEEPS red-black SOR sweeps; }
 *     A CPU CU sweeps with `#pragma omp parallel num_threads(omp_get_cu_num_cpus())`; a GPU CU
 *     offloads each half sweep to device(omp_get_gpu()) on the migrated (present) zone: the
 *     paper's Fig. 12 divergence on omp_is_cpu()/omp_is_gpu(). The commit of each task runs
 *     omp_synchronize() for a GPU CU (the lowering does it). The kernels are `target parallel
 *     for` by default: on host devices a `target teams` run by a CU thread costs a thread
 *     hand-off per kernel (Spread's way around a libomp 19 abort, see README). -DMZ_TEAMS
 *     compiles the paper's `target teams distribute parallel for`, -DMZ_NOWAIT adds
 *     `nowait depend(inout: zone)` so that the commit's omp_synchronize does the waiting.
 *
 * Layouts (--layout): sp  uniform small zones (8x8 at class S; SP-MZ)
 *                     lu  16 uniform large zones (4x4; LU-MZ)
 *                     bt  8x8 zones whose areas differ about 20x (geometric widths; BT-MZ)
 * Schedules (--sched): static, dynamic, static_opt, adaptive (each compiled as its own
 *   dist_schedule clause: the clause is fixed at compile time, and SPREAD_SCHEDULE is read once).
 * Configurations: --cpus N:M --gpus D:G; every schedule runs the hybrid configuration and the
 *   devices-only baseline D:GPU:G (num_teams(0:CPU:M) is not allowed) in the same process.
 *
 * Verification: the same steps run serially on the host with plain loops (same arithmetic, same
 * order per point) and every zone is compared point by point after each run: bit-identical
 * results print `verified: OK (bitwise)`; a mismatch prints `verified: FAILED` and the program
 * exits with status 1.
 *
 * usage: multizone [--layout sp|lu|bt|all] [--class T|S|W|A] [--sched LIST|all]
 *                  [--cpus N:M] [--gpus D:G] [--steps S] [--sweeps K] [--no-baseline]
 *                  [--quiet]
 */
#include <omp.h>
#include <spread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR(x) #x
#define PRAGMA(x) _Pragma(STR(x))
#define MAX_CUS 256
#define MAX_PLACES 65
#define OMEGA 1.2

/* ---- the arithmetic, shared by the serial run, CPU CUs and GPU CUs -------------------------- */

#pragma omp declare target
/* One red-black SOR half sweep over interior row j of a zone (W = nx + 2 points per row):
 * points with (i + j) % 2 == color. The source term depends on the global point (gx0 + i,
 * gy0 + j) through integer arithmetic only, so every path computes the same bits. */
static inline void relax_row(double *u, int W, int j, int nx, int color, int gx0, int gy0) {
  double *r = u + (long)j * W;
  for (int i = 1 + ((color + j + 1) & 1); i <= nx; i += 2) {
    double f = 1e-3 * (double)(((gx0 + i) * 7 + (gy0 + j) * 13) % 17 - 8);
    double nb = r[i - 1] + r[i + 1] + r[i - W] + r[i + W];
    r[i] = (1.0 - OMEGA) * r[i] + OMEGA * 0.25 * (nb + f);
  }
}
#pragma omp end declare target

/* ---- zones -------------------------------------------------------------------------------- */

enum { WEST, EAST, SOUTH, NORTH };

typedef struct {
  int nx, ny;   /* interior points */
  int gx0, gy0; /* global index of interior point (1,1) minus one */
  int nb[4];    /* neighbour zone per side, -1 on the grid's boundary */
  long W;       /* nx + 2 */
  size_t n;     /* (nx + 2) * (ny + 2) doubles */
  double *u;
} zone_t;

typedef struct {
  const char *layout;
  int gx, gy, zx, zy, nzones;
  zone_t *z;   /* the zones the CUs compute (registered) */
  zone_t *ref; /* the serial reference (plain host arrays) */
  int steps, sweeps;
  int ncpu, mcpu, ngpu, ggpu;
  int host, ndev;
  /* communication buffers, one per place: host = index ndev */
  double *fbuf[MAX_PLACES];
  size_t fbuf_len;
  /* statistics of the current run */
  double face_bytes;                /* faces moved between places */
  double mig_bytes[MAX_CUS];        /* zones migrated into each CU's space */
} mz_t;

static int quiet;

/* Widths of n zones along an axis of g points: equal, or growing geometrically by `ratio`
 * from the first to the last (rounded, every zone at least 2 points, summing to g). */
static void split_axis(int g, int n, double ratio, int *w) {
  double q = 1.0, sum = 0, x = 1.0;
  if (n > 1 && ratio > 1.0) { /* q = ratio^(1/(n-1)), by bisection (no libm) */
    double lo = 1.0, hi = ratio;
    for (int it = 0; it < 60; it++) {
      double mid = 0.5 * (lo + hi), p = 1.0;
      for (int e = 0; e < n - 1; e++)
        p *= mid;
      if (p < ratio)
        lo = mid;
      else
        hi = mid;
    }
    q = lo;
  }
  double v[64];
  for (int i = 0; i < n; i++, x *= q) {
    v[i] = x;
    sum += x;
  }
  int used = 0;
  for (int i = 0; i < n; i++) {
    w[i] = (int)(g * v[i] / sum + 0.5);
    if (w[i] < 2)
      w[i] = 2;
    used += w[i];
  }
  w[n - 1] += g - used; /* the rounding goes to the largest */
}

static void init_zone(zone_t *z) {
  for (int j = 0; j <= z->ny + 1; j++)
    for (int i = 0; i <= z->nx + 1; i++) {
      int gi = z->gx0 + i, gj = z->gy0 + j;
      double v = 0.5 * (double)((gi * 3 + gj * 5) % 7) / 7.0;
      /* fixed boundary of the whole grid: 1 on the west and north sides, 0 elsewhere */
      if (i == 0 && z->nb[WEST] < 0)
        v = 1.0;
      else if (j == z->ny + 1 && z->nb[NORTH] < 0)
        v = 1.0;
      else if ((i == z->nx + 1 && z->nb[EAST] < 0) || (j == 0 && z->nb[SOUTH] < 0))
        v = 0.0;
      z->u[(long)j * z->W + i] = v;
    }
}

static zone_t *make_zones(const mz_t *m, const int *wx, const int *wy, int registered) {
  zone_t *zs = calloc(m->nzones, sizeof(zone_t));
  int gy0 = 0;
  for (int b = 0; b < m->zy; b++) {
    int gx0 = 0;
    for (int a = 0; a < m->zx; a++) {
      zone_t *z = &zs[b * m->zx + a];
      z->nx = wx[a];
      z->ny = wy[b];
      z->gx0 = gx0;
      z->gy0 = gy0;
      z->nb[WEST] = a > 0 ? b * m->zx + a - 1 : -1;
      z->nb[EAST] = a < m->zx - 1 ? b * m->zx + a + 1 : -1;
      z->nb[SOUTH] = b > 0 ? (b - 1) * m->zx + a : -1;
      z->nb[NORTH] = b < m->zy - 1 ? (b + 1) * m->zx + a : -1;
      z->W = z->nx + 2;
      z->n = (size_t)(z->nx + 2) * (z->ny + 2);
      z->u = malloc(z->n * sizeof(double));
      init_zone(z);
      if (registered && spread_register_data(z->u, z->n * sizeof(double))) {
        fprintf(stderr, "multizone: spread_register_data failed\n");
        exit(2);
      }
      gx0 += wx[a];
    }
    gy0 += wy[b];
  }
  return zs;
}

/* ---- communication period (Figs. 14-15) ----------------------------------------------------- */

/* The face of `dst` on `side` and the matching edge of its neighbour `src`: offsets and strides
 * in the two arrays, and the number of points. */
typedef struct {
  long doff, dstride, soff, sstride;
  int cnt;
} face_t;

static face_t face_of(const zone_t *dst, int side, const zone_t *src) {
  face_t f;
  switch (side) {
  case WEST: /* dst column 0 <- src column nx */
    f = (face_t){dst->W, dst->W, src->W + src->nx, src->W, dst->ny};
    break;
  case EAST: /* dst column nx+1 <- src column 1 */
    f = (face_t){dst->W + dst->nx + 1, dst->W, src->W + 1, src->W, dst->ny};
    break;
  case SOUTH: /* dst row 0 <- src row ny */
    f = (face_t){1, 1, (long)src->ny * src->W + 1, 1, dst->nx};
    break;
  default: /* NORTH: dst row ny+1 <- src row 1 */
    f = (face_t){(long)(dst->ny + 1) * dst->W + 1, 1, src->W + 1, 1, dst->nx};
    break;
  }
  return f;
}

static int place_index(const mz_t *m, int plct) { return omp_is_host(plct) ? m->ndev : plct; }

/* copy_face of Fig. 15: the neighbour's edge to the zone's halo, wherever both live. */
static void copy_face(mz_t *m, zone_t *dst, int side, zone_t *src) {
  face_t f = face_of(dst, side, src);
  int dp = omp_get_data_placement(dst->u), sp = omp_get_data_placement(src->u);
  double *du = dst->u, *su = src->u;
  size_t dn = dst->n, sn = src->n;
  long doff = f.doff, dstr = f.dstride, soff = f.soff, sstr = f.sstride;
  int cnt = f.cnt;
  if (dp == sp) {
    if (omp_is_host(dp)) { /* host to host: a plain copy ("Nothing" to move) */
      for (int k = 0; k < cnt; k++)
        du[doff + k * dstr] = su[soff + k * sstr];
    } else { /* both zones on one device: one kernel there */
#pragma omp target parallel for device(dp) map(present, alloc : du[0 : dn], su[0 : sn])
      for (int k = 0; k < cnt; k++)
        du[doff + k * dstr] = su[soff + k * sstr];
    }
    return;
  }
  /* gather where the neighbour lives */
  double *sbuf = m->fbuf[place_index(m, sp)];
  if (omp_is_host(sp)) {
    for (int k = 0; k < cnt; k++)
      sbuf[k] = su[soff + k * sstr];
  } else {
#pragma omp target parallel for device(sp) map(present, alloc : su[0 : sn]) is_device_ptr(sbuf)
    for (int k = 0; k < cnt; k++)
      sbuf[k] = su[soff + k * sstr];
  }
  /* move it: device to device, device to host or host to device */
  double *dbuf = m->fbuf[place_index(m, dp)];
  if (omp_target_memcpy(dbuf, sbuf, cnt * sizeof(double), 0, 0, dp, sp)) {
    fprintf(stderr, "multizone: omp_target_memcpy from %d to %d failed\n", sp, dp);
    exit(2);
  }
  m->face_bytes += cnt * sizeof(double);
  /* scatter where the zone lives */
  if (omp_is_host(dp)) {
    for (int k = 0; k < cnt; k++)
      du[doff + k * dstr] = dbuf[k];
  } else {
#pragma omp target parallel for device(dp) map(present, alloc : du[0 : dn]) is_device_ptr(dbuf)
    for (int k = 0; k < cnt; k++)
      du[doff + k * dstr] = dbuf[k];
  }
}

/* (The face kernels are `target parallel for`, not `teams`: see the header.) */

/* exch_qbc: no inter-zone parallelism (section 4.1.2), zone after zone. Each copy reads
 * interior points and writes halo points only, so the order does not change the result. */
static void exchange(mz_t *m) {
  for (int z = 0; z < m->nzones; z++)
    for (int s = 0; s < 4; s++)
      if (m->z[z].nb[s] >= 0)
        copy_face(m, &m->z[z], s, &m->z[m->z[z].nb[s]]);
}

static void exchange_serial(mz_t *m) {
  for (int z = 0; z < m->nzones; z++)
    for (int s = 0; s < 4; s++)
      if (m->ref[z].nb[s] >= 0) {
        zone_t *d = &m->ref[z], *src = &m->ref[m->ref[z].nb[s]];
        face_t f = face_of(d, s, src);
        for (int k = 0; k < f.cnt; k++)
          d->u[f.doff + k * f.dstride] = src->u[f.soff + k * f.sstride];
      }
}

/* ---- computation period (Figs. 11-13) ------------------------------------------------------- */

/* One task: zone `zi`, on the invoking CU (Fig. 12's comp_stage with its CPU/GPU divergence). */
static void compute_zone(mz_t *m, int zi) {
  zone_t *z = &m->z[zi];
  int cu = (int)omp_get_cu_num();
  int here = omp_is_gpu() ? (int)omp_get_gpu() : m->host;
  if (omp_get_data_placement(z->u) != here)
    m->mig_bytes[cu] += (double)(z->n * sizeof(double)); /* one CU thread per index */
  spread_migrate_data(z->u); /* migrate_zone: to this CU's space */

  double *u = z->u;
  size_t n = z->n;
  int W = (int)z->W, nx = z->nx, ny = z->ny, gx0 = z->gx0, gy0 = z->gy0, sweeps = m->sweeps;
  if (omp_is_cpu()) {
#pragma omp parallel num_threads(omp_get_cu_num_cpus())
    for (int s = 0; s < sweeps; s++)
      for (int color = 0; color < 2; color++) {
#pragma omp for schedule(static)
        for (int j = 1; j <= ny; j++)
          relax_row(u, W, j, nx, color, gx0, gy0);
      }
  } else if (omp_is_gpu()) {
    int dev = (int)omp_get_gpu();
    for (int s = 0; s < sweeps; s++)
      for (int color = 0; color < 2; color++) {
#if defined(MZ_TEAMS) && defined(MZ_NOWAIT)
#pragma omp target teams distribute parallel for device(dev) map(present, alloc : u[0 : n]) \
    nowait depend(inout : u[0])
#elif defined(MZ_TEAMS)
#pragma omp target teams distribute parallel for device(dev) map(present, alloc : u[0 : n])
#elif defined(MZ_NOWAIT)
#pragma omp target parallel for device(dev) map(present, alloc : u[0 : n]) nowait \
    depend(inout : u[0])
#else
#pragma omp target parallel for device(dev) map(present, alloc : u[0 : n])
#endif
        for (int j = 1; j <= ny; j++)
          relax_row(u, W, j, nx, color, gx0, gy0);
      }
    /* the commit of the task synchronizes (omp_synchronize): it waits for the nowait kernels
     * of -DMZ_NOWAIT (with synchronous kernels, the default, it finds nothing left) */
  }
}

static void compute_serial(mz_t *m) {
  for (int zi = 0; zi < m->nzones; zi++) {
    zone_t *z = &m->ref[zi];
    for (int s = 0; s < m->sweeps; s++)
      for (int color = 0; color < 2; color++)
        for (int j = 1; j <= z->ny; j++)
          relax_row(z->u, (int)z->W, j, z->nx, color, z->gx0, z->gy0);
  }
}

/* One computation period per (configuration, schedule): the clause is part of the construct,
 * and every construct (FILE:LINE) has its own rates for static_opt and adaptive. */
#define PERIOD(NAME, CUDS, KIND)                                                               \
  static void NAME(mz_t *m) {                                                                  \
    int nc = m->ncpu, mc = m->mcpu, ng = m->ngpu, gg = m->ggpu, nz = m->nzones;                 \
    (void)nc, (void)mc, (void)ng, (void)gg;                                                    \
    PRAGMA(omp teams distribute num_teams CUDS dist_schedule(KIND))                            \
    for (int zone = 0; zone < nz; zone++)                                                      \
      compute_zone(m, zone);                                                                   \
  }

PERIOD(hybrid_static, (nc:CPU:mc, ng:GPU:gg), static)
PERIOD(hybrid_dynamic, (nc:CPU:mc, ng:GPU:gg), dynamic)
PERIOD(hybrid_static_opt, (nc:CPU:mc, ng:GPU:gg), static_opt)
PERIOD(hybrid_adaptive, (nc:CPU:mc, ng:GPU:gg), adaptive)
PERIOD(devices_static, (ng:GPU:gg), static)
PERIOD(devices_dynamic, (ng:GPU:gg), dynamic)
PERIOD(devices_static_opt, (ng:GPU:gg), static_opt)
PERIOD(devices_adaptive, (ng:GPU:gg), adaptive)
PERIOD(cpus_static, (nc:CPU:mc), static)
PERIOD(cpus_dynamic, (nc:CPU:mc), dynamic)
PERIOD(cpus_static_opt, (nc:CPU:mc), static_opt)
PERIOD(cpus_adaptive, (nc:CPU:mc), adaptive)

enum { CFG_HYBRID, CFG_DEVICES, CFG_CPUS };
static const char *const sched_names[] = {"static", "dynamic", "static_opt", "adaptive"};
#define NSCHED 4
static void (*const periods[3][NSCHED])(mz_t *) = {
    {hybrid_static, hybrid_dynamic, hybrid_static_opt, hybrid_adaptive},
    {devices_static, devices_dynamic, devices_static_opt, devices_adaptive},
    {cpus_static, cpus_dynamic, cpus_static_opt, cpus_adaptive},
};

/* ---- one run: a schedule on a configuration ------------------------------------------------ */

typedef struct {
  int ok, bitwise;
  double maxdiff;
  double step_s, comp_s, exch_s, mig_bytes, face_bytes; /* per step */
  int ncus;
  spread_cu_stats_t cu[MAX_CUS]; /* summed over the timed steps */
  double cu_mig[MAX_CUS];
} result_t;

static void reset_zones(mz_t *m) {
  for (int z = 0; z < m->nzones; z++) {
    spread_migrate_data_to(m->z[z].u, m->host); /* home, then the initial values */
    init_zone(&m->z[z]);
  }
}

static void add_stats(result_t *r) {
  spread_cu_stats_t s[MAX_CUS];
  int n = spread_cu_last_stats(s, MAX_CUS);
  if (n > MAX_CUS)
    n = MAX_CUS;
  r->ncus = n;
  for (int i = 0; i < n; i++) {
    r->cu[i].spread_cu = s[i].spread_cu;
    r->cu[i].spread_is_gpu = s[i].spread_is_gpu;
    r->cu[i].spread_device = s[i].spread_device;
    r->cu[i].spread_cpus = s[i].spread_cpus;
    r->cu[i].spread_units += s[i].spread_units;
    r->cu[i].spread_iterations += s[i].spread_iterations;
    r->cu[i].spread_busy_seconds += s[i].spread_busy_seconds;
  }
}

static result_t run(mz_t *m, int cfg, int sched) {
  void (*period)(mz_t *) = periods[cfg][sched];
  result_t r;
  memset(&r, 0, sizeof r);
  /* warm-up step (device images, the first static_opt/adaptive execution measures under
   * dynamic), not timed; then the zones start over from the host */
  reset_zones(m);
  exchange(m);
  period(m);
  reset_zones(m);
  m->face_bytes = 0;
  memset(m->mig_bytes, 0, sizeof m->mig_bytes);

  double comp = 0, exch = 0;
  for (int step = 0; step < m->steps; step++) {
    double t0 = omp_get_wtime();
    exchange(m);
    double t1 = omp_get_wtime();
    period(m);
    double t2 = omp_get_wtime();
    exch += t1 - t0;
    comp += t2 - t1;
    add_stats(&r);
  }
  r.exch_s = exch / m->steps;
  r.comp_s = comp / m->steps;
  r.step_s = r.exch_s + r.comp_s;
  r.face_bytes = m->face_bytes / m->steps;
  double mig = 0;
  for (int i = 0; i < r.ncus; i++) {
    r.cu_mig[i] = m->mig_bytes[i] / m->steps;
    mig += r.cu_mig[i];
  }
  r.mig_bytes = mig;

  /* verification: every zone home, point by point against the serial run */
  r.ok = r.bitwise = 1;
  for (int zi = 0; zi < m->nzones; zi++) {
    spread_migrate_data_to(m->z[zi].u, m->host);
    for (size_t k = 0; k < m->z[zi].n; k++) {
      double a = m->z[zi].u[k], b = m->ref[zi].u[k];
      if (a != b) {
        double d = a > b ? a - b : b - a;
        double s = (b > 0 ? b : -b) + 1e-300;
        r.bitwise = 0;
        if (d / s > r.maxdiff)
          r.maxdiff = d / s;
        if (!(d <= 1e-12 * s)) /* also catches NaN */
          r.ok = 0;
      }
    }
  }
  return r;
}

/* ---- setup and report -------------------------------------------------------------------- */

static void usage(void) {
  fprintf(stderr,
          "usage: multizone [--layout sp|lu|bt|all] [--class T|S|W|A] [--sched LIST|all]\n"
          "                 [--cpus N:M] [--gpus D:G] [--steps S] [--sweeps K] [--no-baseline]\n"
          "                 [--quiet]\n");
  exit(2);
}

static int parse_pair(const char *s, int *a, int *b) {
  char *e;
  long x = strtol(s, &e, 10);
  if (e == s || x < 0)
    return 0;
  *a = (int)x;
  *b = 1;
  if (*e == ':') {
    const char *t = e + 1;
    long y = strtol(t, &e, 10);
    if (e == t || y < 1)
      return 0;
    *b = (int)y;
  }
  return *e == '\0';
}

static const char *cfg_label(const mz_t *m, int cfg, char *buf, size_t len) {
  if (cfg == CFG_HYBRID)
    snprintf(buf, len, "%d:CPU:%d,%d:GPU:%d", m->ncpu, m->mcpu, m->ngpu, m->ggpu);
  else if (cfg == CFG_DEVICES)
    snprintf(buf, len, "%d:GPU:%d", m->ngpu, m->ggpu);
  else
    snprintf(buf, len, "%d:CPU:%d", m->ncpu, m->mcpu);
  return buf;
}

static void print_run(const mz_t *m, const char *sched, int cfg, const result_t *r) {
  char lb[64];
  if (!quiet) {
    printf("  %-10s %-18s cu  kind        tasks  busy ms/step  migrated KiB/step\n", sched,
           cfg_label(m, cfg, lb, sizeof lb));
    for (int i = 0; i < r->ncus; i++) {
      const spread_cu_stats_t *c = &r->cu[i];
      char kind[32];
      if (c->spread_is_gpu)
        snprintf(kind, sizeof kind, "gpu dev %d", c->spread_device);
      else
        snprintf(kind, sizeof kind, "cpu x%d", c->spread_cpus);
      printf("  %-10s %-18s %2d  %-10s %6lld  %12.2f  %17.1f\n", "", "", c->spread_cu, kind,
             (long long)c->spread_iterations, 1e3 * c->spread_busy_seconds / m->steps, r->cu_mig[i] / 1024);
    }
  }
  printf("%s %-10s %-18s step %8.2f ms (comp %8.2f, exch %7.2f)  moved %8.1f KiB/step "
         "(migrations %8.1f, faces %7.1f)  verified: %s",
         m->layout, sched, cfg_label(m, cfg, lb, sizeof lb), 1e3 * r->step_s, 1e3 * r->comp_s,
         1e3 * r->exch_s, (r->mig_bytes + r->face_bytes) / 1024, r->mig_bytes / 1024,
         r->face_bytes / 1024, r->ok ? "OK" : "FAILED");
  if (r->bitwise)
    printf(" (bitwise)\n");
  else
    printf(" (max relative difference %.3g)\n", r->maxdiff);
}

static int run_layout(const char *layout, char cls, int sched_mask, int cpus_n, int cpus_m,
                      int gpus_d, int gpus_g, int steps_opt, int sweeps_opt, int baseline) {
  mz_t m;
  memset(&m, 0, sizeof m);
  m.layout = layout;
  m.host = omp_get_initial_device();
  m.ndev = omp_get_num_devices();
  if (m.ndev > MAX_PLACES - 1)
    m.ndev = MAX_PLACES - 1;
  m.ncpu = cpus_n;
  m.mcpu = cpus_m;
  m.ngpu = gpus_d;
  m.ggpu = gpus_g;
  /* class: grid side and time steps (Table 1 in miniature); zones: 8x8 (sp, bt), 4x4 (lu);
   * class A adds 16x16 zones for sp and bt as NPB's class C does */
  int g, steps;
  switch (cls) {
  case 'T': g = 48; steps = 3; break;
  case 'W': g = 2048; steps = 10; break;
  case 'A': g = 4096; steps = 10; break;
  default: g = 1024; steps = 10; break;
  }
  int zn = strcmp(layout, "lu") == 0 ? 4 : (cls == 'A' ? 16 : 8);
  if (cls == 'T')
    zn = strcmp(layout, "lu") == 0 ? 4 : 6;
  m.gx = m.gy = g;
  m.zx = m.zy = zn;
  m.nzones = zn * zn;
  m.steps = steps_opt > 0 ? steps_opt : steps;
  m.sweeps = sweeps_opt > 0 ? sweeps_opt : 4;
  int wx[64], wy[64];
  /* bt: widths grow by sqrt(20) along each axis: areas from smallest to largest ~20x */
  double ratio = strcmp(layout, "bt") == 0 ? 4.4721359549995796 : 1.0;
  split_axis(m.gx, m.zx, ratio, wx);
  split_axis(m.gy, m.zy, ratio, wy);
  m.z = make_zones(&m, wx, wy, 1);
  m.ref = make_zones(&m, wx, wy, 0);
  size_t maxface = 0, minpts = (size_t)-1, maxpts = 0;
  for (int z = 0; z < m.nzones; z++) {
    size_t pts = (size_t)m.z[z].nx * m.z[z].ny;
    if (pts < minpts) minpts = pts;
    if (pts > maxpts) maxpts = pts;
    if ((size_t)m.z[z].nx > maxface) maxface = m.z[z].nx;
    if ((size_t)m.z[z].ny > maxface) maxface = m.z[z].ny;
  }
  m.fbuf_len = maxface;
  for (int d = 0; d < m.ndev; d++) {
    m.fbuf[d] = omp_target_alloc(maxface * sizeof(double), d);
    if (!m.fbuf[d]) {
      fprintf(stderr, "multizone: omp_target_alloc on device %d failed\n", d);
      return 2;
    }
  }
  m.fbuf[m.ndev] = malloc(maxface * sizeof(double));

  printf("layout %s: class %c, grid %dx%d, %d zones (%dx%d), zone points %zu..%zu (%.1fx), "
         "%d steps of %d red-black sweeps; %d devices\n",
         layout, cls, m.gx, m.gy, m.nzones, m.zx, m.zy, minpts, maxpts,
         (double)maxpts / (double)minpts, m.steps, m.sweeps, m.ndev);

  /* the serial reference: the same steps with plain loops on the host */
  double t0 = omp_get_wtime();
  for (int s = 0; s < m.steps; s++) {
    exchange_serial(&m);
    compute_serial(&m);
  }
  double serial_step = (omp_get_wtime() - t0) / m.steps;
  printf("%s serial     %-18s step %8.2f ms\n", layout, "host, 1 thread", 1e3 * serial_step);

  int main_cfg = m.ngpu > 0 ? (m.ncpu > 0 ? CFG_HYBRID : CFG_DEVICES) : CFG_CPUS;
  int do_base = baseline && main_cfg == CFG_HYBRID;
  result_t res[NSCHED][2];
  int failures = 0;
  for (int s = 0; s < NSCHED; s++) {
    if (!(sched_mask & (1 << s)))
      continue;
    res[s][0] = run(&m, main_cfg, s);
    print_run(&m, sched_names[s], main_cfg, &res[s][0]);
    failures += !res[s][0].ok;
    if (do_base) {
      res[s][1] = run(&m, CFG_DEVICES, s);
      print_run(&m, sched_names[s], CFG_DEVICES, &res[s][1]);
      failures += !res[s][1].ok;
    }
  }

  /* summary table */
  char lb[64];
  printf("\nsummary %s (class %c, %d zones, %d steps): per step, tasks per CU summed over the "
         "steps\n",
         layout, cls, m.nzones, m.steps);
  printf("%-4s %-10s %-18s %9s %9s %9s %10s %10s  %-22s %s\n", "lay", "schedule", "CUs", "step ms",
         "comp ms", "exch ms", "migr KiB", "face KiB", "tasks per CU", "busy ms/step per CU");
  for (int s = 0; s < NSCHED; s++) {
    if (!(sched_mask & (1 << s)))
      continue;
    for (int b = 0; b <= do_base; b++) {
      const result_t *r = &res[s][b];
      char tasks[128] = "", busy[160] = "";
      for (int i = 0; i < r->ncus; i++) {
        char t[32];
        snprintf(t, sizeof t, "%s%lld", i ? "/" : "", (long long)r->cu[i].spread_iterations);
        strncat(tasks, t, sizeof tasks - strlen(tasks) - 1);
        snprintf(t, sizeof t, "%s%.1f", i ? "/" : "", 1e3 * r->cu[i].spread_busy_seconds / m.steps);
        strncat(busy, t, sizeof busy - strlen(busy) - 1);
      }
      printf("%-4s %-10s %-18s %9.2f %9.2f %9.2f %10.1f %10.1f  %-22s %s\n", layout,
             sched_names[s], cfg_label(&m, b ? CFG_DEVICES : main_cfg, lb, sizeof lb),
             1e3 * r->step_s, 1e3 * r->comp_s, 1e3 * r->exch_s, r->mig_bytes / 1024,
             r->face_bytes / 1024, tasks, busy);
    }
  }
  if (do_base) {
    char lh[64];
    printf("hybrid vs devices-only (%s step time / %s step time, same schedule, this run):\n",
           cfg_label(&m, CFG_DEVICES, lb, sizeof lb), cfg_label(&m, CFG_HYBRID, lh, sizeof lh));
    for (int s = 0; s < NSCHED; s++)
      if (sched_mask & (1 << s))
        printf("  %-4s %-10s %5.2fx  (comp period %5.2fx)\n", layout, sched_names[s],
               res[s][1].step_s / res[s][0].step_s, res[s][1].comp_s / res[s][0].comp_s);
  }
  printf("%s: %s\n\n", layout, failures ? "verification FAILED" : "all runs verified: OK");

  for (int z = 0; z < m.nzones; z++) {
    spread_unregister_data(m.z[z].u);
    free(m.z[z].u);
    free(m.ref[z].u);
  }
  for (int d = 0; d < m.ndev; d++)
    omp_target_free(m.fbuf[d], d);
  free(m.fbuf[m.ndev]);
  free(m.z);
  free(m.ref);
  return failures != 0;
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *layout = "all";
  char cls = 'S';
  int sched_mask = (1 << NSCHED) - 1;
  int ndev = omp_get_num_devices();
  int cn = 1, cm = 1, gd = ndev < 2 ? ndev : 2, gg = 1;
  int steps = 0, sweeps = 0, baseline = 1;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--layout") && v) {
      layout = v;
      i++;
    } else if (!strcmp(a, "--class") && v) {
      cls = v[0];
      if (strlen(v) != 1 || !strchr("TSWA", cls))
        usage();
      i++;
    } else if (!strcmp(a, "--sched") && v) {
      if (strcmp(v, "all")) {
        sched_mask = 0;
        char *list = strdup(v);
        for (char *t = strtok(list, ","); t; t = strtok(NULL, ",")) {
          int k = 0;
          while (k < NSCHED && strcmp(t, sched_names[k]))
            k++;
          if (k == NSCHED)
            usage();
          sched_mask |= 1 << k;
        }
        free(list);
      }
      i++;
    } else if (!strcmp(a, "--cpus") && v) {
      if (!parse_pair(v, &cn, &cm))
        usage();
      i++;
    } else if (!strcmp(a, "--gpus") && v) {
      if (!parse_pair(v, &gd, &gg))
        usage();
      i++;
    } else if (!strcmp(a, "--steps") && v) {
      steps = atoi(v);
      i++;
    } else if (!strcmp(a, "--sweeps") && v) {
      sweeps = atoi(v);
      i++;
    } else if (!strcmp(a, "--no-baseline")) {
      baseline = 0;
    } else if (!strcmp(a, "--quiet")) {
      quiet = 1;
    } else {
      usage();
    }
  }
  if (cn + gd < 1 || cn + gd > MAX_CUS) {
    fprintf(stderr, "multizone: need between 1 and %d CUs\n", MAX_CUS);
    return 2;
  }
  if (gd * gg > ndev) {
    fprintf(stderr, "multizone: --gpus %d:%d needs %d devices, the runtime has %d\n", gd, gg,
            gd * gg, ndev);
    return 2;
  }
  const char *all[] = {"sp", "lu", "bt"};
  int failures = 0, ran = 0;
  for (int k = 0; k < 3; k++)
    if (!strcmp(layout, "all") || !strcmp(layout, all[k])) {
      failures += run_layout(all[k], cls, sched_mask, cn, cm, gd, gg, steps, sweeps, baseline);
      ran++;
    }
  if (!ran)
    usage();
  printf("multizone: %s\n", failures ? "verified: FAILED" : "verified: OK");
  return failures != 0;
}
