/*
 * multidevice: a 1-D explicit heat-equation (Jacobi) stencil split across
 * every OpenMP offload device.
 *
 *   u_new[i] = u[i] + r * (u[i-1] - 2 u[i] + u[i+1]),  i = 1..N
 *   u[0] = u[N+1] = 0 (fixed Dirichlet boundary)
 *
 * Device d owns a contiguous slice [lo, hi) of the interior.  It maps
 * u[lo-1 : len+2] and v[lo-1 : len+2] (its slice plus one halo cell on each
 * side) with `target enter data`, then for every time step:
 *
 *   1. runs `target teams distribute parallel for` over its slice (u -> v),
 *   2. `target update from` its two edge cells into the host copy,
 *   3. `target update to` its two halo cells from the host copy
 *      (which the neighbouring devices have just written),
 *   4. swaps u and v (host pointers; both are mapped on every device).
 *
 * At the end each device computes the partial sum of its slice with a
 * `target teams ... reduction(+)` and the slices come back with
 * `target exit data map(from:)`.  The result is checked against a serial
 * host computation.
 *
 * Usage: multidevice [N] [steps] [--concurrent]
 *   N      interior points        (default 2000000)
 *   steps  time steps             (default 200)
 *   --concurrent  drive each device from its own host thread (an
 *                 `omp parallel` region, barriers around the halo exchange)
 *                 instead of one thread visiting the devices in turn
 *
 * Works for any number of devices >= 1; with 0 devices it says so and runs
 * the same code on the initial (host) device.
 */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define R 0.25 /* diffusion number, stable for r <= 0.5 */

typedef struct {
  int dev;   /* OpenMP device number */
  long lo;   /* first interior index owned */
  long hi;   /* one past the last interior index owned */
} slice_t;

static void init(double *u, long n) {
  u[0] = 0.0;
  u[n + 1] = 0.0;
  for (long i = 1; i <= n; ++i) {
    double x = (double)i / (double)(n + 1);
    u[i] = sin(M_PI * x) + 0.5 * sin(7.0 * M_PI * x) +
           ((i % 1000) == 0 ? 1.0 : 0.0); /* some spikes */
  }
}

static void serial_reference(double *u, double *v, long n, int steps) {
  for (int s = 0; s < steps; ++s) {
    for (long i = 1; i <= n; ++i)
      v[i] = u[i] + R * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
    v[0] = u[0];
    v[n + 1] = u[n + 1];
    double *t = u; u = v; v = t;
  }
  /* the result is in the buffer that was passed as u if steps is even */
  if (steps % 2)
    memcpy(v, u, sizeof(double) * (size_t)(n + 2));
}

/* one time step on one device: v = stencil(u) over [lo, hi) */
static void step_slice(const slice_t *sl, double *u, double *v) {
  long lo = sl->lo, hi = sl->hi, len = hi - lo;
#pragma omp target teams distribute parallel for device(sl->dev) \
    map(alloc : u[lo - 1 : len + 2], v[lo - 1 : len + 2])
  for (long i = lo; i < hi; ++i)
    v[i] = u[i] + R * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

/* copy the slice's first and last cell back to the host copy */
static void edges_to_host(const slice_t *sl, double *v) {
  long lo = sl->lo, hi = sl->hi;
#pragma omp target update device(sl->dev) from(v[lo : 1])
#pragma omp target update device(sl->dev) from(v[hi - 1 : 1])
}

/* refresh the slice's halo cells from the host copy (the neighbours' edges,
   or the fixed boundary) */
static void halos_to_device(const slice_t *sl, double *v) {
  long lo = sl->lo, hi = sl->hi;
#pragma omp target update device(sl->dev) to(v[lo - 1 : 1])
#pragma omp target update device(sl->dev) to(v[hi : 1])
}

int main(int argc, char **argv) {
  long n = 2000000;
  int steps = 200;
  int concurrent = 0;
  int pos = 0;
  for (int a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--concurrent") == 0) {
      concurrent = 1;
    } else if (strcmp(argv[a], "-h") == 0 || strcmp(argv[a], "--help") == 0) {
      printf("usage: %s [N] [steps] [--concurrent]\n", argv[0]);
      return 0;
    } else if (pos == 0) {
      n = atol(argv[a]); ++pos;
    } else if (pos == 1) {
      steps = atoi(argv[a]); ++pos;
    } else {
      fprintf(stderr, "unexpected argument: %s\n", argv[a]);
      return 2;
    }
  }
  if (n < 1 || steps < 0) {
    fprintf(stderr, "need N >= 1 and steps >= 0\n");
    return 2;
  }

  int ndev = omp_get_num_devices();
  int host_dev = omp_get_initial_device();
  int nslices;
  printf("multidevice: 1-D heat stencil, N = %ld points, %d steps%s\n", n,
         steps, concurrent ? ", one host thread per device" : "");
  if (ndev <= 0) {
    printf("no offload devices available (omp_get_num_devices() = %d): "
           "falling back to the host (initial device %d)\n",
           ndev, host_dev);
    nslices = 1;
  } else {
    printf("offload devices available: %d (initial device = %d)\n", ndev,
           host_dev);
    nslices = ndev < n ? ndev : (int)n; /* never hand out empty slices */
  }

  slice_t *sl = malloc(sizeof(slice_t) * (size_t)nslices);
  for (int d = 0; d < nslices; ++d) {
    long q = n / nslices, rem = n % nslices;
    sl[d].dev = ndev <= 0 ? host_dev : d;
    sl[d].lo = 1 + d * q + (d < rem ? d : rem);
    sl[d].hi = sl[d].lo + q + (d < rem ? 1 : 0);
    if (ndev <= 0)
      printf("  host (initial device %d)", sl[d].dev);
    else
      printf("  device %d", sl[d].dev);
    long len = sl[d].hi - sl[d].lo;
    printf(": points [%ld, %ld)  (%ld points, %.1f MiB mapped)\n", sl[d].lo,
           sl[d].hi, len,
           2.0 * (double)(len + 2) * sizeof(double) / (1024.0 * 1024.0));
  }
  if (ndev == nslices + 1)
    printf("  (device %d unused: fewer points than devices)\n", nslices);
  else if (ndev > nslices)
    printf("  (devices %d..%d unused: fewer points than devices)\n", nslices,
           ndev - 1);

  size_t bytes = sizeof(double) * (size_t)(n + 2);
  double *u = malloc(bytes), *v = malloc(bytes);
  double *ref = malloc(bytes), *tmp = malloc(bytes);
  if (!u || !v || !ref || !tmp) {
    fprintf(stderr, "out of memory\n");
    return 2;
  }
  init(u, n);
  memcpy(v, u, bytes); /* v's boundary cells must be 0 as well */
  double *u0 = u, *v0 = v;

  double t0 = omp_get_wtime();

  /* ---- map every slice (+ halos) onto its device ---- */
  for (int d = 0; d < nslices; ++d) {
    long lo = sl[d].lo, len = sl[d].hi - sl[d].lo;
#pragma omp target enter data device(sl[d].dev) \
    map(to : u[lo - 1 : len + 2], v[lo - 1 : len + 2])
  }

  /* ---- time stepping ---- */
  if (!concurrent) {
    /* one host thread drives all devices in turn */
    for (int s = 0; s < steps; ++s) {
      for (int d = 0; d < nslices; ++d)
        step_slice(&sl[d], u, v);
      /* halo exchange: edges to the host, then halos back to each device */
      for (int d = 0; d < nslices; ++d)
        edges_to_host(&sl[d], v);
      for (int d = 0; d < nslices; ++d)
        halos_to_device(&sl[d], v);
      double *t = u; u = v; v = t;
    }
  } else {
    /* one host thread per device; barriers order the halo exchange */
#pragma omp parallel num_threads(nslices) firstprivate(u, v)
    {
      int d = omp_get_thread_num();
      if (omp_get_num_threads() != nslices) {
#pragma omp single
        fprintf(stderr, "could not get %d host threads\n", nslices);
        abort();
      }
      for (int s = 0; s < steps; ++s) {
        step_slice(&sl[d], u, v);
        edges_to_host(&sl[d], v);
#pragma omp barrier
        halos_to_device(&sl[d], v);
        double *t = u; u = v; v = t;
      }
    }
    if (steps % 2) {
      double *t = u; u = v; v = t;
    }
  }

  /* ---- partial results: per-device reduction of the slice sum ---- */
  double dev_sum = 0.0;
  for (int d = 0; d < nslices; ++d) {
    long lo = sl[d].lo, hi = sl[d].hi, len = hi - lo;
    double part = 0.0;
#pragma omp target teams distribute parallel for device(sl[d].dev) \
    map(alloc : u[lo - 1 : len + 2]) map(tofrom : part) reduction(+ : part)
    for (long i = lo; i < hi; ++i)
      part += u[i];
    dev_sum += part;
  }

  /* ---- bring the slices back and unmap ---- */
  for (int d = 0; d < nslices; ++d) {
    long lo = sl[d].lo, hi = sl[d].hi, len = hi - lo;
#pragma omp target update device(sl[d].dev) from(u[lo : len])
#pragma omp target exit data device(sl[d].dev) \
    map(release : u[lo - 1 : len + 2], v[lo - 1 : len + 2])
  }
  double t_dev = omp_get_wtime() - t0;

  /* ---- serial reference ---- */
  t0 = omp_get_wtime();
  init(ref, n);
  memcpy(tmp, ref, bytes);
  serial_reference(ref, tmp, n, steps);
  double t_ref = omp_get_wtime() - t0;

  double maxerr = 0.0, ref_sum = 0.0;
  for (long i = 0; i <= n + 1; ++i) {
    double e = fabs(u[i] - ref[i]);
    if (!(e <= maxerr)) /* also catches NaN */
      maxerr = e;
  }
  for (long i = 1; i <= n; ++i)
    ref_sum += ref[i];
  double sum_err = fabs(dev_sum - ref_sum) / (fabs(ref_sum) > 1 ? fabs(ref_sum) : 1);

  if (ndev <= 0)
    printf("host fallback: %.3f s; serial host reference: %.3f s\n", t_dev,
           t_ref);
  else
    printf("offloaded: %.3f s on %d device(s); serial host reference: %.3f s\n",
           t_dev, nslices, t_ref);
  printf("sum: devices %.12e, reference %.12e (rel. diff %.2e)\n", dev_sum,
         ref_sum, sum_err);
  printf("max abs error vs serial reference: %.3e\n", maxerr);

  int ok = maxerr <= 1e-12 && sum_err <= 1e-9;
  printf("verified: %s\n", ok ? "OK" : "FAILED");

  free(sl);
  free(u0); free(v0); free(ref); free(tmp);
  return ok ? 0 : 1;
}
