/* All-pairs N-Body with `target device(any)` (seed 002, paper Fig. 2), in three configurations
 * run one after the other in one process:
 *   devices-only  if_device(nvidia) + if_device(cpu): the host is not a candidate
 *   host-only     if_device(host) only
 *   hybrid        all three kinds
 * Each time step is one instance per block of BS bodies (velocities of the block mapped tofrom,
 * all positions mapped to), then a taskwait and the position update on the host, so that the
 * steps depend on each other. Every configuration is compared with a serial run of the same
 * steps computed in this process.
 *
 *   nbody [-n bodies] [-b BS] [-s steps] [-q] [-Q]     default -n 4096 -b 256 -s 8; -q: 1024/128/3
 *
 * Build: spread-cc -O2 nbody.c -o nbody -lm
 *
 * Bitwise results: the inner loop is a plain sequential sum (the paper has
 * `#pragma omp simd reduction(+:Fx,Fy,Fz)` on it; a vectorised float reduction sums in another
 * order, so the serial reference would differ in the last bits). Every version and the reference
 * use the same NB_FORCE body, so on host devices (x86_64 code) the results are bitwise equal; a
 * GPU (FMA contraction) is accepted within a relative 1e-4 after few steps. */
#include "common.h"

#define SOFTENING 1e-9f

/* The paper's Fig. 2 loop body: force on body i from all n bodies, then the velocity update. */
#define NB_FORCE(i)                                                      \
  do {                                                                   \
    float Fx = 0.0f, Fy = 0.0f, Fz = 0.0f;                               \
    for (int j = 0; j < n; j++) {                                        \
      float dx = x[j] - x[i];                                            \
      float dy = y[j] - y[i];                                            \
      float dz = z[j] - z[i];                                            \
      float distSqr = dx * dx + dy * dy + dz * dz + SOFTENING;           \
      float invDist = 1.0f / sqrtf(distSqr);                             \
      float invDist3 = invDist * invDist * invDist;                      \
      Fx += dx * invDist3;                                               \
      Fy += dy * invDist3;                                               \
      Fz += dz * invDist3;                                               \
    }                                                                    \
    vx[i] += dt * Fx;                                                    \
    vy[i] += dt * Fy;                                                    \
    vz[i] += dt * Fz;                                                    \
  } while (0)

/* resources() (defaults; -r HOST,CPU,NVIDIA changes them at run time, the clause takes any
 * expression):
 *   nvidia 2   the paper's value: a GPU keeps up to 50 blocks in flight (the runtime's nvidia
 *              slots bound it further); tiny, because a block uses a fraction of a GPU.
 *   cpu    100 a Spread host device runs one block with all its threads: one at a time.
 *   host   40  the paper's value: at most 2 blocks on the host's own cores at once, each with
 *              40% of the host's threads (the runtime turns tokens into num_threads, rounding
 *              up: with one host thread, two blocks of one thread each). */

static void step_devices(float *x, float *y, float *z, float *vx, float *vy, float *vz, int n,
                         int BS, float dt) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  for (int k = 0; k < n; k += BS) {
#pragma omp target device(any) map(tofrom: vx[k:BS], vy[k:BS], vz[k:BS]) map(to: x[0:n], y[0:n], z[0:n]) nowait
#pragma omp if_device(NVIDIA, cc35) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
    for (int i = k; i < k + BS; ++i) NB_FORCE(i);
  }
#pragma omp taskwait
  }
}

static void step_host(float *x, float *y, float *z, float *vx, float *vy, float *vz, int n,
                      int BS, float dt) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  for (int k = 0; k < n; k += BS) {
#pragma omp target device(any) map(tofrom: vx[k:BS], vy[k:BS], vz[k:BS]) map(to: x[0:n], y[0:n], z[0:n]) nowait
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
    for (int i = k; i < k + BS; ++i) NB_FORCE(i);
  }
#pragma omp taskwait
  }
}

static void step_hybrid(float *x, float *y, float *z, float *vx, float *vy, float *vz, int n,
                        int BS, float dt) {
  /* Called in `parallel` + `single`, or by the initial thread with -u (TS_CALL). */
  {
  for (int k = 0; k < n; k += BS) {
#pragma omp target device(any) map(tofrom: vx[k:BS], vy[k:BS], vz[k:BS]) map(to: x[0:n], y[0:n], z[0:n]) nowait
#pragma omp if_device(NVIDIA, cc35) teams distribute parallel for resources(ts_res[TS_R_NVIDIA])
#pragma omp if_device(cpu) parallel for resources(ts_res[TS_R_CPU])
#pragma omp if_device(host) parallel for resources(ts_res[TS_R_HOST])
    for (int i = k; i < k + BS; ++i) NB_FORCE(i);
  }
#pragma omp taskwait
  }
}

static void step_serial(float *x, float *y, float *z, float *vx, float *vy, float *vz, int n,
                        float dt) {
  for (int i = 0; i < n; ++i) NB_FORCE(i);
}

/* After the taskwait: every velocity of the step is home; move the bodies. */
static void positions(float *x, float *y, float *z, const float *vx, const float *vy,
                      const float *vz, int n, float dt) {
  for (int i = 0; i < n; ++i) {
    x[i] += vx[i] * dt;
    y[i] += vy[i] * dt;
    z[i] += vz[i] * dt;
  }
}

static void init(float *p, int n) {
  /* deterministic pseudo-random bodies in [-1, 1]^3, at rest */
  uint32_t s = 12345u;
  for (int i = 0; i < 6 * n; ++i) {
    s = s * 1664525u + 1013904223u;
    p[i] = i < 3 * n ? (float)((s >> 8) * (2.0 / 16777216.0) - 1.0) : 0.0f;
  }
}

typedef void (*step_fn)(float *, float *, float *, float *, float *, float *, int, int, float);

int main(int argc, char **argv) {
  ts_opts_t o = {4096, 256, 8, 0, 0, 0};
  ts_opts_t quick = {1024, 128, 3, 1, 0, 0};
  ts_res[TS_R_HOST] = 40, ts_res[TS_R_CPU] = 100, ts_res[TS_R_NVIDIA] = 2;
  ts_parse(argc, argv, &o, quick, "N-Body: -n bodies, -b block of bodies per instance, -s steps");
  const int n = (int)o.n, BS = (int)o.b, steps = (int)o.steps;
  if (n % BS) {
    fprintf(stderr, "nbody: -n %d is not a multiple of -b %d\n", n, BS);
    return 2;
  }
  const float dt = 0.001f;
  const long blocks = n / BS;
  float *ref = malloc(sizeof(float) * 6 * n), *p = malloc(sizeof(float) * 6 * n);
  if (!ref || !p) return 2;

  double t0 = omp_get_wtime();
  init(ref, n);
  for (int s = 0; s < steps; ++s) {
    step_serial(ref, ref + n, ref + 2 * n, ref + 3 * n, ref + 4 * n, ref + 5 * n, n, dt);
    positions(ref, ref + n, ref + 2 * n, ref + 3 * n, ref + 4 * n, ref + 5 * n, n, dt);
  }
  double tserial = omp_get_wtime() - t0;
  printf("nbody: %d bodies, blocks of %d (%ld instances per step), %d steps; serial %.3f s\n", n,
         BS, blocks, steps, tserial);
  ts_print_resources("nbody");

  static const step_fn fns[TS_MODES] = {step_devices, step_host, step_hybrid};
  ts_result_t r[TS_MODES];
  int failed = 0;
  for (int m = 0; m < TS_MODES; ++m) {
    if (!(o.modes & (1 << m))) continue;
    float *x = p, *y = p + n, *z = p + 2 * n, *vx = p + 3 * n, *vy = p + 4 * n, *vz = p + 5 * n;
    /* warm-up step (device images, the model's first measurement of each device), untimed */
    init(p, n);
    TS_CALL(fns[m](x, y, z, vx, vy, vz, n, BS, dt));
    init(p, n);
    spread_any_stats_reset();
    t0 = omp_get_wtime();
    for (int s = 0; s < steps; ++s) {
      TS_CALL(fns[m](x, y, z, vx, vy, vz, n, BS, dt));
      positions(x, y, z, vx, vy, vz, n, dt);
    }
    double t = omp_get_wtime() - t0;
    ts_collect(&r[m], t);
    printf("%s (%.3f s):\n", ts_mode_name[m], t);
    ts_print("nbody", m, &r[m], o.quiet);
    failed |= ts_check_placement("nbody", m, &r[m], blocks * steps);
    failed |= ts_check_float("nbody", m, p, ref, 6L * n, 1e-4);
  }
  /* 20 flops per interaction (the usual N-Body count) */
  ts_summary("nbody", r, 20.0 * n * (double)n * steps * 1e-9, "GFLOP/s", o.modes);
  printf("nbody: %s\n", failed ? "verification FAILED" : "all modes verified: OK");
  free(ref);
  free(p);
  return failed;
}
