/* Somier with the target spread directives (seed 000, section V): one buffer (Listing 10), two
 * buffers with taskloop (Listing 11) and double buffering with a recursive task (Listing 12).
 * Build with spread-cc.
 *
 * A buffer is a range of planes [bs, bs+bl). Every construct over it uses the same static
 * round-robin distribution: chunks of `chunk` planes dealt to the device list in order, with
 * range(bs:bl) chunk_size(chunk) on the data constructs and spread_schedule(static, chunk) on the
 * kernels, so each chunk's kernels find their data on their device. A chunk [s, s+len) maps
 *   X   (positions)            [s-1, s+len+1)   to        (one halo plane on each side)
 *   V   (velocities)           [s, s+len)       to / from
 *   F, A, Xn (forces, accelerations, new positions), C (per-plane centers)
 *                              [s, s+len)       alloc / from
 * expressed with omp_spread_start and omp_spread_size. Kernels are nowait; their depend clauses
 * chain the five kernels of one chunk (forces -> accelerations -> velocities -> positions ->
 * centers) on the address of the chunk's first element, so chunks never wait for each other.
 *
 * The devices clauses list SOMIER_MAX_DEVICES entries (the run's device list padded with its first
 * device). Chunk sizes are chosen so that a construct has at most as many chunks as the run has
 * devices, hence chunk k goes to the k-th device of the list and the padding is never used.
 */
#include <omp.h>
#include <stdio.h>

#include "somier.h"

typedef struct {
  const double *X;
  double *Xn, *V, *F, *A, *C;
  int64_t n, P;
  int64_t chunk; /* planes per chunk */
  int64_t end;   /* one past the last plane to update: n-1 */
  const int *dv; /* SOMIER_MAX_DEVICES entries */
} buffer_ctx_t;

static buffer_ctx_t context(somier_t *s, const somier_cfg_t *cfg, int64_t chunk) {
  buffer_ctx_t c = {s->X, s->Xn, s->V, s->F, s->A, s->C, s->n, s->P, chunk, s->n - 1, cfg->dv};
  return c;
}

/* map data from host to devices asynchronously; returns when the transfers are done */
static void enter_buffer(const buffer_ctx_t *c, int64_t bs, int64_t bl) {
  const double *X = c->X;
  double *Xn = c->Xn, *V = c->V, *F = c->F, *A = c->A, *C = c->C;
  const int64_t P = c->P, chunk = c->chunk;
  const int *dv = c->dv;
#pragma omp taskgroup
  {
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

/* perform computation in devices asynchronously: the caller waits (taskwait or taskgroup) */
static void submit_kernels(const buffer_ctx_t *c, int64_t bs, int64_t bl) {
  const double *X = c->X;
  double *Xn = c->Xn, *V = c->V, *F = c->F, *A = c->A, *C = c->C;
  const int64_t n = c->n, P = c->P, chunk = c->chunk;
  const int *dv = c->dv;

  // forces kernel
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[(omp_spread_start - 1) * P : (omp_spread_size + 2) * P])                         \
    map(from : F[omp_spread_start * P : omp_spread_size * P])                                   \
    depend(out : F[omp_spread_start * P])
  for (int64_t i = bs; i < bs + bl; i++)
    somier_forces_plane(X, F, n, i);

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

  // positions kernel
#pragma omp target spread teams distribute parallel for spread_schedule(static, chunk)        \
    devices(dv[0], dv[1], dv[2], dv[3], dv[4], dv[5], dv[6], dv[7]) nowait                      \
    map(to : X[(omp_spread_start - 1) * P : (omp_spread_size + 2) * P],                         \
            V[omp_spread_start * P : omp_spread_size * P])                                      \
    map(from : Xn[omp_spread_start * P : omp_spread_size * P])                                  \
    depend(in : V[omp_spread_start * P]) depend(out : Xn[omp_spread_start * P])
  for (int64_t i = bs; i < bs + bl; i++)
    somier_position_plane(X, V, Xn, n, i);

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
  const double *X = c->X;
  double *Xn = c->Xn, *V = c->V, *F = c->F, *A = c->A, *C = c->C;
  const int64_t P = c->P, chunk = c->chunk;
  const int *dv = c->dv;
#pragma omp taskgroup
  {
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

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* Implementation 1: one buffer at a time; a buffer is what all devices hold together, each
 * device gets one chunk of `planes` planes. */
int somier_one(somier_t *s, const somier_cfg_t *cfg) {
  const int64_t chunk = cfg->planes, buffer_size = chunk * cfg->ndev;
#pragma omp parallel
#pragma omp single
  for (int step = 0; step < cfg->steps; step++) {
    const buffer_ctx_t c = context(s, cfg, chunk);
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

/* Two half buffers in flight can put adjacent chunks' halos on one device: with the chunk grid
 * aligned, chunks k and k+D (D devices) of consecutive half buffers land on the same device, and
 * their halo sections [.., (k+1)c+1) and [(k+D)c-1, ..) are disjoint iff (D-1)c >= 2. */
static int check_halves(const somier_cfg_t *cfg, const char *name, int64_t chunk) {
  if (cfg->ndev < 2 || chunk < 1 || (int64_t)(cfg->ndev - 1) * chunk < 2) {
    fprintf(stderr,
            "somier: %s: needs two or more devices and (devices-1) x (planes/2) >= 2, so that the "
            "halos of two half buffers never overlap on one device (have %d devices, %d planes)\n",
            name, cfg->ndev, cfg->planes);
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
#pragma omp parallel
#pragma omp single
  for (int step = 0; step < cfg->steps; step++) {
    const buffer_ctx_t c = context(s, cfg, chunk);
    const int nhalves = (int)((c.end - 1 + half_size - 1) / half_size);
    /* process 2 half buffers at a time */
#pragma omp taskloop num_tasks(2)
    for (int h = 0; h < nhalves; h++)
      half_buffer(&c, 1 + h * half_size, half_size);
    somier_centers(s);
    somier_swap(s);
  }
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
#pragma omp parallel
#pragma omp single
  for (int step = 0; step < cfg->steps; step++) {
    const buffer_ctx_t c = context(s, cfg, chunk);
#pragma omp taskgroup
    foobar(&c, 1, half_size);
    somier_centers(s);
    somier_swap(s);
  }
  return 0;
}
