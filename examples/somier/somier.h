/* somier.h -- the Somier mini-app (seed 000, section V): a 3-D grid of points joined by springs.
 *
 * Layout: every field is an array of n planes; plane i holds n*n points, 3 doubles each
 * (x, y, z), so plane i of field F is F[i*P : P] with P = n*n*3 doubles. Buffers and chunks are
 * ranges of planes along this outermost dimension; the forces stencil reads the planes i-1 and
 * i+1 (the halo: from X itself, or from a separate halo buffer, see somier_forces_plane_nb),
 * every other kernel only its own plane.
 *
 * One time step (semi-implicit Euler), for the interior planes 1 .. n-2 (planes 0 and n-1 and the
 * points on the faces j,k in {0, n-1} are fixed):
 *   forces      F  = sum over the 6 neighbours q of K (|Xq-Xp| - L0) (Xq-Xp)/|Xq-Xp|   (reads X)
 *   accelerations A = F / M
 *   velocities  V += A dt
 *   positions   Xn = X + V dt          (new array: X stays read-only during a step, so buffers
 *                                        and chunks may run in any order or at once)
 *   centers     C[i] = sum of Xn over plane i (a manual reduction: per-plane partial sums,
 *               added up on the host; the paper's compiler had no reduction clause either)
 * then X and Xn swap. The kernel bodies below are shared by every version, host and device.
 */
#ifndef SOMIER_H
#define SOMIER_H

#include <math.h>
#include <stdint.h>

#define SOMIER_MAX_DEVICES 8 /* entries of the devices(...) clauses in spread.c */

#define SOMIER_K 1.0   /* spring constant */
#define SOMIER_M 1.0   /* point mass */
#define SOMIER_L0 1.0  /* rest length = grid spacing */
#define SOMIER_DT 0.1  /* time step (stable: max angular frequency is 2 sqrt(K/M) per axis) */

typedef struct {
  int64_t n;      /* points per dimension */
  int64_t P;      /* doubles per plane: n*n*3 */
  double *X;      /* positions (read during a step) */
  double *Xn;     /* new positions (written during a step); swapped with X after each step */
  double *V;      /* velocities */
  double *F;      /* forces */
  double *A;      /* accelerations */
  double *C;      /* per-plane partial sums of the positions: n*3 */
  double center[3];
} somier_t;

typedef struct {
  int steps;
  int planes;                    /* planes one device holds per buffer (its "memory") */
  int ndev;                      /* devices in the list */
  int dv[SOMIER_MAX_DEVICES];    /* device list; entries past ndev repeat dv[0] */
} somier_cfg_t;

/* Versions. Each runs cfg->steps steps on s and leaves the final positions in s->X. They return
 * 0, or nonzero (after printing why) when the configuration does not suit them. */
int somier_serial(somier_t *s, const somier_cfg_t *cfg);
int somier_baseline(somier_t *s, const somier_cfg_t *cfg);
int somier_one(somier_t *s, const somier_cfg_t *cfg);
int somier_two(somier_t *s, const somier_cfg_t *cfg);
int somier_double(somier_t *s, const somier_cfg_t *cfg);

/* Adds up the per-plane sums into s->center (the average position). */
static inline void somier_centers(somier_t *s) {
  double c[3] = {0, 0, 0};
  for (int64_t i = 0; i < s->n; i++)
    for (int d = 0; d < 3; d++)
      c[d] += s->C[i * 3 + d];
  double npts = (double)s->n * (double)s->n * (double)s->n;
  for (int d = 0; d < 3; d++)
    s->center[d] = c[d] / npts;
}

static inline void somier_swap(somier_t *s) {
  double *t = s->X;
  s->X = s->Xn;
  s->Xn = t;
}

/* ---- kernel bodies: one plane each (device and host) ------------------------------------ */
#pragma omp declare target

static inline int somier_fixed(int64_t n, int64_t j, int64_t k) {
  return j == 0 || k == 0 || j == n - 1 || k == n - 1;
}

/* Adds the spring force between point p (at xp) and its neighbour q (at xq) to f. */
static inline void somier_spring(const double *xp, const double *xq, double f[3]) {
  double d0 = xq[0] - xp[0], d1 = xq[1] - xp[1], d2 = xq[2] - xp[2];
  double len = sqrt(d0 * d0 + d1 * d1 + d2 * d2);
  double s = SOMIER_K * (len - SOMIER_L0) / len;
  f[0] += s * d0;
  f[1] += s * d1;
  f[2] += s * d2;
}

/* Forces on plane i, with its lower and upper neighbour planes given explicitly: lo and hi point
 * to the first double of those planes (P doubles each), X and F are whole fields indexed by plane
 * (only X's plane i is read, only F's plane i is written). The neighbours may live elsewhere than
 * X (the halo buffer of spread.c's `two` and `double`); the arithmetic is the same either way. */
static inline void somier_forces_plane_nb(const double *lo, const double *X, const double *hi,
                                          double *F, int64_t n, int64_t i) {
  const int64_t P = n * n * 3, row = n * 3;
  const double *x = X + i * P;
  double *fp = F + i * P;
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = 0; k < n; k++) {
      int64_t p = j * row + k * 3;
      double f[3] = {0, 0, 0};
      if (!somier_fixed(n, j, k)) {
        somier_spring(x + p, lo + p, f);
        somier_spring(x + p, hi + p, f);
        somier_spring(x + p, x + p - row, f);
        somier_spring(x + p, x + p + row, f);
        somier_spring(x + p, x + p - 3, f);
        somier_spring(x + p, x + p + 3, f);
      }
      fp[p] = f[0];
      fp[p + 1] = f[1];
      fp[p + 2] = f[2];
    }
}

/* Forces on plane i with X's own neighbour planes i-1 and i+1 (the halo in X). */
static inline void somier_forces_plane(const double *X, double *F, int64_t n, int64_t i) {
  const int64_t P = n * n * 3;
  somier_forces_plane_nb(X + (i - 1) * P, X, X + (i + 1) * P, F, n, i);
}

static inline void somier_accel_plane(const double *F, double *A, int64_t n, int64_t i) {
  const int64_t P = n * n * 3;
  for (int64_t p = i * P; p < (i + 1) * P; p++)
    A[p] = F[p] / SOMIER_M;
}

static inline void somier_velocity_plane(const double *A, double *V, int64_t n, int64_t i) {
  const int64_t P = n * n * 3;
  for (int64_t p = i * P; p < (i + 1) * P; p++)
    V[p] += A[p] * SOMIER_DT;
}

static inline void somier_position_plane(const double *X, const double *V, double *Xn, int64_t n,
                                         int64_t i) {
  const int64_t P = n * n * 3;
  for (int64_t p = i * P; p < (i + 1) * P; p++)
    Xn[p] = X[p] + V[p] * SOMIER_DT;
}

static inline void somier_center_plane(const double *Xn, double *C, int64_t n, int64_t i) {
  const int64_t P = n * n * 3;
  double c0 = 0, c1 = 0, c2 = 0;
  for (int64_t p = i * P; p < (i + 1) * P; p += 3) {
    c0 += Xn[p];
    c1 += Xn[p + 1];
    c2 += Xn[p + 2];
  }
  C[i * 3] = c0;
  C[i * 3 + 1] = c1;
  C[i * 3 + 2] = c2;
}

#pragma omp end declare target

#endif /* SOMIER_H */
