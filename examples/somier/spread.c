/* Somier with the target spread directives (seed 000, section V): one buffer (Listing 10), two
 * buffers with taskloop (Listing 11) and double buffering with a recursive task (Listing 12).
 * Build with spread-cc.
 *
 * A buffer is a range of planes [bs, bs+bl). Every construct over it uses the same static
 * round-robin distribution: chunks of `chunk` planes dealt to the device list in order, with
 * range(bs:bl) chunk_size(chunk) on the data constructs and spread_schedule(static, chunk) on the
 * kernels, so each chunk's kernels find their data on their device. In `one` (the paper's form) a
 * chunk [s, s+len) maps
 *   X   (positions)            [s-1, s+len+1)   to        (one halo plane on each side)
 *   V   (velocities)           [s, s+len)       to / from
 *   F, A, Xn (forces, accelerations, new positions), C (per-plane centers)
 *                              [s, s+len)       alloc / from
 * expressed with omp_spread_start and omp_spread_size. Kernels are nowait; their depend clauses
 * chain the five kernels of one chunk (forces -> accelerations -> velocities -> positions ->
 * centers) on the address of the chunk's first element, so chunks never wait for each other.
 *
 * Halo buffer (`two` and `double` when their chunks can meet on one device). These versions keep
 * two half buffers in flight. With two devices or more, chunks of two planes or more and spread
 * constructs (halo_in_x), neighbouring chunks are always on different devices, and they map X
 * with its halo as the paper's listings 11 and 12 do. Otherwise adjacent chunks of both may be on
 * one device (one device in the list, one-plane chunks, or built with --spread-no-pass, where
 * every construct is one chunk on its first device); their X halos [s-1, s+len+1) overlap, and
 * OpenMP forbids mapping a section that extends an already mapped one (libomptarget's "explicit
 * extension not allowed"). So they then map X without halo, [s, s+len), and read the neighbour
 * planes from a separate halo array H:
 * the chunks form a fixed grid over the planes, chunk k = [s_k, e_k) with s_k = 1 + k*chunk and
 * e_k = min(s_k + chunk, n-1), and H holds two planes per grid chunk, H plane 2k = X plane s_k-1
 * and H plane 2k+1 = X plane e_k, copied from X on the host by each half buffer just before it
 * maps them (X is read-only during a step). Half buffers start on the grid, and a chunk
 * [s, s+len) of the spread constructs maps the halo planes of the grid chunks it covers,
 *   H   planes [2g, 2g + 2G), g = (s-1)/chunk, G = (len+chunk-1)/chunk   to
 * (its own two halo planes with the pass; every halo of the half buffer without it), so the
 * sections of different chunks and half buffers never overlap. The forces kernel takes plane i's
 * lower neighbour from H plane 2k when i is the first plane of its grid chunk k, its upper one from
 * H plane 2k+1 when i is the last, and X's own planes otherwise: the same values and arithmetic as
 * the serial run, so the results are bit-identical.
 *
 * The devices clauses list SOMIER_MAX_DEVICES entries (the run's device list padded with its first
 * device). Chunk sizes are chosen so that a construct has at most as many chunks as the run has
 * devices, hence chunk k goes to the k-th device of the list and the padding is never used.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "somier.h"

typedef struct {
  const double *X;
  double *H; /* halo planes of the chunk grid (`two`, `double`); NULL: X carries the halo */
  double *Xn, *V, *F, *A, *C;
  int64_t n, P;
  int64_t chunk; /* planes per chunk */
  int64_t end;   /* one past the last plane to update: n-1 */
  const int *dv; /* SOMIER_MAX_DEVICES entries */
} buffer_ctx_t;

static buffer_ctx_t context(somier_t *s, const somier_cfg_t *cfg, int64_t chunk, double *H) {
  buffer_ctx_t c = {s->X, H, s->Xn, s->V, s->F, s->A, s->C, s->n, s->P, chunk, s->n - 1, cfg->dv};
  return c;
}

/* ---- halo buffer (`two`, `double`) ---------------------------------------------------------- */

/* Grid chunks over the interior planes 1 .. n-2. */
static int64_t grid_chunks(int64_t n, int64_t chunk) { return (n - 2 + chunk - 1) / chunk; }

/* Whether the spread constructs deal chunk k to the k-th device of the list: a probe maps two
 * one-element chunks and asks where the second went. Not so when built with --spread-no-pass
 * (every construct is one chunk on its first device). */
static int chunks_follow_list(const int *dv) {
  static int probe[2];
#pragma omp target enter data spread range(0 : 2) chunk_size(1)                                \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7])                             \
    map(alloc : probe[omp_spread_start : omp_spread_size])
  const int dealt = omp_target_is_present(&probe[1], dv[1]) && !omp_target_is_present(probe, dv[1]);
#pragma omp target exit data spread range(0 : 2) chunk_size(1)                                 \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7])                             \
    map(release : probe[omp_spread_start : omp_spread_size])
  return dealt;
}

/* Whether two half buffers in flight can map X with its halo, as the paper's listings 11 and 12
 * do. The sections [s-1, s+len+1) of grid chunks g and g+d overlap when (d-1)·chunk < 2, so they
 * must be on different devices. Grid chunk g goes to the list's (g mod ndev)-th device, and the
 * list has no repeats (main.c checks), so this holds with 2 devices or more and chunks of 2
 * planes or more, when the constructs are spread at all. Otherwise the halo buffer keeps the
 * sections disjoint. */
static int halo_in_x(const somier_cfg_t *cfg, int64_t chunk) {
  return cfg->ndev >= 2 && chunk >= 2 && chunks_follow_list(cfg->dv);
}

static double *halo_alloc(const somier_t *s, int64_t chunk) {
  size_t bytes = (size_t)(grid_chunks(s->n, chunk) * 2 * s->P) * sizeof(double);
  double *H = malloc(bytes);
  if (!H)
    fprintf(stderr, "somier: out of memory (halo buffer, %zu bytes)\n", bytes);
  return H;
}

/* H plane 2k = X plane s_k - 1, H plane 2k+1 = X plane e_k, for the grid chunks of the half
 * buffer [bs, bs+bl) (it starts on the grid). Each half buffer fills its own halo planes just
 * before it maps them, so the copies overlap the other half buffer's device work instead of
 * holding up every device at the start of a step; X is read-only during a step. */
static void halo_fill(const buffer_ctx_t *c, int64_t bs, int64_t bl) {
  const int64_t n = c->n, P = c->P, chunk = c->chunk;
  const int64_t first = (bs - 1) / chunk, last = (bs - 1 + bl + chunk - 1) / chunk;
  double *H = c->H;
  for (int64_t k = first; k < last && k < grid_chunks(n, chunk); k++) {
    const int64_t sk = 1 + k * chunk, ek = sk + chunk < n - 1 ? sk + chunk : n - 1;
    memcpy(H + 2 * k * P, c->X + (sk - 1) * P, (size_t)P * sizeof(double));
    memcpy(H + (2 * k + 1) * P, c->X + ek * P, (size_t)P * sizeof(double));
  }
}

#pragma omp declare target
/* Forces on plane i, neighbours from the halo buffer at the edges of i's grid chunk. */
static inline void forces_plane_halo(const double *X, const double *H, double *F, int64_t n,
                                     int64_t chunk, int64_t i) {
  const int64_t P = n * n * 3, k = (i - 1) / chunk, sk = 1 + k * chunk;
  const int64_t ek = sk + chunk < n - 1 ? sk + chunk : n - 1;
  const double *lo = i == sk ? H + 2 * k * P : X + (i - 1) * P;
  const double *hi = i == ek - 1 ? H + (2 * k + 1) * P : X + (i + 1) * P;
  somier_forces_plane_nb(lo, X, hi, F, n, i);
}
#pragma omp end declare target

/* map data from host to devices asynchronously; returns when the transfers are done */
static void enter_buffer(const buffer_ctx_t *c, int64_t bs, int64_t bl) {
  const double *X = c->X, *H = c->H;
  double *Xn = c->Xn, *V = c->V, *F = c->F, *A = c->A, *C = c->C;
  const int64_t P = c->P, chunk = c->chunk;
  const int *dv = c->dv;
  if (H)
    halo_fill(c, bs, bl);
#pragma omp taskgroup
  {
    if (H) {
#pragma omp target enter data spread range(bs : bl) chunk_size(chunk)                         \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[omp_spread_start * P : omp_spread_size * P],                                     \
            H[((omp_spread_start - 1) / chunk) * 2 * P :                                        \
              ((omp_spread_size + chunk - 1) / chunk) * 2 * P],                                 \
            V[omp_spread_start * P : omp_spread_size * P])                                      \
    map(alloc : F[omp_spread_start * P : omp_spread_size * P],                                  \
            A[omp_spread_start * P : omp_spread_size * P],                                      \
            Xn[omp_spread_start * P : omp_spread_size * P],                                     \
            C[omp_spread_start * 3 : omp_spread_size * 3])
    } else {
#pragma omp target enter data spread range(bs : bl) chunk_size(chunk)                         \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[(omp_spread_start - 1) * P : (omp_spread_size + 2) * P],                         \
            V[omp_spread_start * P : omp_spread_size * P])                                      \
    map(alloc : F[omp_spread_start * P : omp_spread_size * P],                                  \
            A[omp_spread_start * P : omp_spread_size * P],                                      \
            Xn[omp_spread_start * P : omp_spread_size * P],                                     \
            C[omp_spread_start * 3 : omp_spread_size * 3])
    }
  }
}

/* perform computation in devices asynchronously: the caller waits (taskwait or taskgroup) */
static void submit_kernels(const buffer_ctx_t *c, int64_t bs, int64_t bl) {
  const double *X = c->X, *H = c->H;
  double *Xn = c->Xn, *V = c->V, *F = c->F, *A = c->A, *C = c->C;
  const int64_t n = c->n, P = c->P, chunk = c->chunk;
  const int *dv = c->dv;

  // forces kernel
  if (H) {
    /* X without halo; the chunk's edge neighbours come from its grid chunks' halo planes */
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[omp_spread_start * P : omp_spread_size * P],                                     \
            H[((omp_spread_start - 1) / chunk) * 2 * P :                                        \
              ((omp_spread_size + chunk - 1) / chunk) * 2 * P])                                 \
    map(from : F[omp_spread_start * P : omp_spread_size * P])                                   \
    depend(out : F[omp_spread_start * P])
    for (int64_t i = bs; i < bs + bl; i++)
      forces_plane_halo(X, H, F, n, chunk, i);
  } else {
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[(omp_spread_start - 1) * P : (omp_spread_size + 2) * P])                         \
    map(from : F[omp_spread_start * P : omp_spread_size * P])                                   \
    depend(out : F[omp_spread_start * P])
    for (int64_t i = bs; i < bs + bl; i++)
      somier_forces_plane(X, F, n, i);
  }

  // accelerations kernel
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : F[omp_spread_start * P : omp_spread_size * P])                                     \
    map(from : A[omp_spread_start * P : omp_spread_size * P])                                   \
    depend(in : F[omp_spread_start * P]) depend(out : A[omp_spread_start * P])
  for (int64_t i = bs; i < bs + bl; i++)
    somier_accel_plane(F, A, n, i);

  // velocities kernel
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : A[omp_spread_start * P : omp_spread_size * P])                                     \
    map(tofrom : V[omp_spread_start * P : omp_spread_size * P])                                 \
    depend(in : A[omp_spread_start * P]) depend(out : V[omp_spread_start * P])
  for (int64_t i = bs; i < bs + bl; i++)
    somier_velocity_plane(A, V, n, i);

  // positions kernel (reads X's own planes only: the halo form maps X without halo)
  if (H) {
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[omp_spread_start * P : omp_spread_size * P],                                     \
            V[omp_spread_start * P : omp_spread_size * P])                                      \
    map(from : Xn[omp_spread_start * P : omp_spread_size * P])                                  \
    depend(in : V[omp_spread_start * P]) depend(out : Xn[omp_spread_start * P])
    for (int64_t i = bs; i < bs + bl; i++)
      somier_position_plane(X, V, Xn, n, i);
  } else {
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[(omp_spread_start - 1) * P : (omp_spread_size + 2) * P],                         \
            V[omp_spread_start * P : omp_spread_size * P])                                      \
    map(from : Xn[omp_spread_start * P : omp_spread_size * P])                                  \
    depend(in : V[omp_spread_start * P]) depend(out : Xn[omp_spread_start * P])
    for (int64_t i = bs; i < bs + bl; i++)
      somier_position_plane(X, V, Xn, n, i);
  }

  // centers kernel (manual reduction: one partial sum per plane, added up on the host)
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : Xn[omp_spread_start * P : omp_spread_size * P])                                    \
    map(from : C[omp_spread_start * 3 : omp_spread_size * 3])                                   \
    depend(in : Xn[omp_spread_start * P]) depend(out : C[omp_spread_start * 3])
  for (int64_t i = bs; i < bs + bl; i++)
    somier_center_plane(Xn, C, n, i);
}

/* map data from devices to host asynchronously; returns when the transfers are done */
static void exit_buffer(const buffer_ctx_t *c, int64_t bs, int64_t bl) {
  const double *X = c->X, *H = c->H;
  double *Xn = c->Xn, *V = c->V, *F = c->F, *A = c->A, *C = c->C;
  const int64_t P = c->P, chunk = c->chunk;
  const int *dv = c->dv;
#pragma omp taskgroup
  {
    if (H) {
#pragma omp target exit data spread range(bs : bl) chunk_size(chunk)                          \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(from : F[omp_spread_start * P : omp_spread_size * P],                                   \
            A[omp_spread_start * P : omp_spread_size * P],                                      \
            V[omp_spread_start * P : omp_spread_size * P],                                      \
            Xn[omp_spread_start * P : omp_spread_size * P],                                     \
            C[omp_spread_start * 3 : omp_spread_size * 3])                                      \
    map(release : X[omp_spread_start * P : omp_spread_size * P],                                \
            H[((omp_spread_start - 1) / chunk) * 2 * P :                                        \
              ((omp_spread_size + chunk - 1) / chunk) * 2 * P])
    } else {
#pragma omp target exit data spread range(bs : bl) chunk_size(chunk)                          \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(from : F[omp_spread_start * P : omp_spread_size * P],                                   \
            A[omp_spread_start * P : omp_spread_size * P],                                      \
            V[omp_spread_start * P : omp_spread_size * P],                                      \
            Xn[omp_spread_start * P : omp_spread_size * P],                                     \
            C[omp_spread_start * 3 : omp_spread_size * 3])                                      \
    map(release : X[(omp_spread_start - 1) * P : (omp_spread_size + 2) * P])
    }
  }
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Implementation 1: one buffer at a time; a buffer is what all devices hold together, each
 * device gets one chunk of `planes` planes. */
int somier_one(somier_t *s, const somier_cfg_t *cfg) {
  const int64_t chunk = cfg->planes, buffer_size = chunk * cfg->ndev;
#pragma omp parallel
#pragma omp single
  for (int step = 0; step < cfg->steps; step++) {
    const buffer_ctx_t c = context(s, cfg, chunk, NULL);
    /* process 1 buffer at a time */
    for (int64_t buffer_start = 1; buffer_start < c.end; buffer_start += buffer_size) {
      const int64_t bl = min64(buffer_size, c.end - buffer_start);
      enter_buffer(&c, buffer_start, bl);
      submit_kernels(&c, buffer_start, bl);
#pragma omp taskwait
      exit_buffer(&c, buffer_start, bl);
    }
    somier_centers(s);
    somier_swap(s);
  }
  return 0;
}

/* Two half buffers need chunks of planes/2 >= 1 planes. They may be in flight on one device at
 * once (one device, or no pass); the halo buffer keeps their mapped sections disjoint. */
static int check_halves(const somier_cfg_t *cfg, const char *name, int64_t chunk) {
  if (chunk < 1) {
    fprintf(stderr,
            "somier: %s: needs --planes 2 or more (half buffers hold planes/2 planes per device; "
            "have %d)\n",
            name, cfg->planes);
    return 1;
  }
  return 0;
}

static void half_buffer(const buffer_ctx_t *c, int64_t half_start, int64_t half_size) {
  const int64_t hl = min64(half_size, c->end - half_start);
  enter_buffer(c, half_start, hl);
  submit_kernels(c, half_start, hl);
#pragma omp taskwait
  exit_buffer(c, half_start, hl);
}

/* Implementation 2: half buffers, two at a time (taskloop num_tasks(2)). */
int somier_two(somier_t *s, const somier_cfg_t *cfg) {
  const int64_t chunk = cfg->planes / 2, half_size = chunk * cfg->ndev;
  if (check_halves(cfg, "two", chunk))
    return 1;
  const int in_x = halo_in_x(cfg, chunk);
  double *H = in_x ? NULL : halo_alloc(s, chunk);
  if (!in_x && !H)
    return 1;
#pragma omp parallel
#pragma omp single
  for (int step = 0; step < cfg->steps; step++) {
    const buffer_ctx_t c = context(s, cfg, chunk, H);
    const int nhalves = (int)((c.end - 1 + half_size - 1) / half_size);
    /* process 2 half buffers at a time */
#pragma omp taskloop num_tasks(2)
    for (int h = 0; h < nhalves; h++)
      half_buffer(&c, 1 + h * half_size, half_size);
    somier_centers(s);
    somier_swap(s);
  }
  free(H);
  return 0;
}

/* Implementation 3: double buffering. Maps its half buffer, starts the next half buffer in a task
 * (whose transfers then overlap this one's kernels), runs its kernels and maps the results back. */
static void foobar(const buffer_ctx_t *c, int64_t half_start, int64_t half_size) {
  const int64_t hl = min64(half_size, c->end - half_start);
  enter_buffer(c, half_start, hl);

  /* the routine calls itself inside an asynchronous task */
  if (half_start + half_size < c->end) {
#pragma omp task
    foobar(c, half_start + half_size, half_size);
  }

  /* perform computation in devices asynchronously; wait for the kernels only (a taskwait
   * would also wait for the task above) */
#pragma omp taskgroup
  submit_kernels(c, half_start, hl);

  exit_buffer(c, half_start, hl);
}

int somier_double(somier_t *s, const somier_cfg_t *cfg) {
  const int64_t chunk = cfg->planes / 2, half_size = chunk * cfg->ndev;
  if (check_halves(cfg, "double", chunk))
    return 1;
  const int in_x = halo_in_x(cfg, chunk);
  double *H = in_x ? NULL : halo_alloc(s, chunk);
  if (!in_x && !H)
    return 1;
#pragma omp parallel
#pragma omp single
  for (int step = 0; step < cfg->steps; step++) {
    const buffer_ctx_t c = context(s, cfg, chunk, H);
#pragma omp taskgroup
    foobar(&c, 1, half_size);
    somier_centers(s);
    somier_swap(s);
  }
  free(H);
  return 0;
}
