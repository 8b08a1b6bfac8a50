/* Automatic spreading (SPREAD_AUTO) of unmodified loops over GPUs and host devices: a saxpy
 * that records which image ran each iteration, a stencil with halos, a Jacobi sweep over
 * data kept by target data, and the forms of issue 44: Jacobi over the interior of a grid with
 * collapse(2) and a max reduction (a divisor in the descriptor), a heat step whose halo reads
 * are guarded, row sums in an inner loop, a block stencil written `teams distribute` + a nested
 * `parallel for`, and a grid kernel (a CUDA-style port: teams indexed
 * by omp_get_team_num(), a team-local tile and a barrier; windows of its league spread, host
 * devices with exact leagues: the program sets SPREAD_TEAMS=exact too). Both images of the fat binary carry the pass plugin's descriptors
 * (the runtime refuses kernels whose images disagree); on Spread the iterations must run on both
 * kinds of device, and every result equals the serial loop. The program sets SPREAD_AUTO=1 and
 * SPREAD_AUTO_MIN=1024 (and SPREAD_TEAMS=exact) for itself (re-executing) when they are not set.
 *
 * Build: spread-cc -O2 --offload-arch=sm_90 auto_spread.c -o auto_spread
 * Run:   ./auto_spread
 * Exit status 0 only when every result equals the serial reference computed here; one PASS or
 * FAIL line per check on stdout. (Passed on an NVIDIA H200, 2026-11-28: docs/gpu.md.)
 */
// REQUIRES: cuda
// RUN: %spread-cc -O2 --offload-arch=%cuda-arch %s -o %t
// RUN: %t | FileCheck %s --implicit-check-not=FAIL
// CHECK: {{^}}PASS: auto_spread

#define _GNU_SOURCE
#include "gpu_test.h"
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#define N 200003

static float x[N], y[N], want[N];
static int kind[N];
static double a[N], b[N], ra[N], rb[N];

static void saxpy(int n) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])          \
    map(from : kind[0:n])
  for (int i = 0; i < n; i++) {
    y[i] = 2.0f * x[i] + y[i];
    kind[i] = ON_GPU;
  }
}

static void stencil(int n) {
#pragma omp target teams distribute parallel for map(to : x[0:n]) map(tofrom : y[0:n])
  for (int i = 1; i < n - 1; i++)
    y[i] = x[i - 1] + 2 * x[i] + x[i + 1];
}

static void sweep(int n, const double *p, double *q) {
#pragma omp target teams distribute parallel for map(to : p[0:n]) map(tofrom : q[0:n])
  for (int i = 1; i < n - 1; i++)
    q[i] = 0.25 * p[i - 1] + 0.5 * p[i] + 0.25 * p[i + 1];
}

#define GN 258
#define GM 130
static double ga[GN * GM], gb[GN * GM], rga[GN * GM], rgb[GN * GM];

static double interior(const double *u, double *f) {
  double err = 0;
#pragma omp target teams distribute parallel for collapse(2) reduction(max : err)
  for (int i = 1; i < GN - 1; i++)
    for (int j = 1; j < GM - 1; j++) {
      f[i * GM + j] = 0.25 * (u[(i - 1) * GM + j] + u[(i + 1) * GM + j] + u[i * GM + j - 1] +
                              u[i * GM + j + 1]);
      double d = f[i * GM + j] - u[i * GM + j];
      err = d > err ? d : (-d > err ? -d : err);
    }
  return err;
}

static void heat(int n, int m, const double *u, double *v) {
#pragma omp target teams distribute parallel for collapse(2) map(to : u[0:n * m])                 \
    map(from : v[0:n * m])
  for (int i = 0; i < n; i++)
    for (int j = 0; j < m; j++)
      v[i * m + j] = u[i * m + j] + (i > 0 ? u[(i - 1) * m + j] : 0) +
                     (i < n - 1 ? u[(i + 1) * m + j] : 0) + (j > 0 ? u[i * m + j - 1] : 0);
}

static void rowsum(int n, int m, const double *u, double *s) {
#pragma omp target teams distribute parallel for map(to : u[0:n * m]) map(from : s[0:n])
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int j = 0; j < m; j++)
      t += u[i * m + j];
    s[i] = t;
  }
}

#define NBS 256

// A 1-D block stencil written `teams distribute` + a nested `parallel for` per block, the last
// block partly past n (issue 44's shape: the distribute loop is cut).
static void blocks_nested(int n) {
  int nb = (n + NBS - 1) / NBS;
#pragma omp target teams distribute map(to : x[0:n]) map(tofrom : y[0:n]) map(from : kind[0:n])
  for (int b = 0; b < nb; b++) {
#pragma omp parallel for
    for (int t = 0; t < NBS; t++) {
      int i = b * NBS + t;
      if (i < n) {
        y[i] = x[i] + (i > 0 ? x[i - 1] : 0.0f) + y[i];
        kind[i] = ON_GPU;
      }
    }
  }
}

#define GBS 128

static void grid_blocks(int n) {
  int nb = (n + GBS - 1) / GBS;
#pragma omp target teams num_teams(nb) thread_limit(GBS) map(to : x[0:n]) map(tofrom : y[0:n])  \
    map(from : kind[0:n])
  {
    float tile[GBS];
#pragma omp parallel
    {
      int b = omp_get_team_num();
      // Threads stride over the tile: a host device's teams get the threads it can give.
      for (int t = omp_get_thread_num(); t < GBS; t += omp_get_num_threads())
        tile[t] = b * GBS + t < n ? x[b * GBS + t] : 0.0f;
#pragma omp barrier
      for (int t = omp_get_thread_num(); t < GBS; t += omp_get_num_threads()) {
        int i = b * GBS + t;
        if (i < n) {
          y[i] = tile[GBS - 1 - t] + y[i];
          kind[i] = ON_GPU;
        }
      }
    }
  }
}

// y against want, and which kind of device wrote each element (kind): one PASS or FAIL line;
// on Spread both kinds must have taken part. Returns 1 on failure.
static int check_kinds(const char *what, int spread_rt) {
  int wrong = 0, on_gpu = 0, on_host = 0;
  for (int i = 0; i < N; i++) {
    wrong += y[i] != want[i];
    on_gpu += kind[i] == gpu_kind && gpu_kind == 1;
    on_host += kind[i] == 0;
  }
  int mixed = !spread_rt || (on_gpu > 0 && on_host > 0) || gpu_kind == 0;
  printf("%s %s: %d wrong values, %d elements on GPUs, %d on host devices\n",
         wrong || !mixed ? "FAIL" : "PASS", what, wrong, on_gpu, on_host);
  return wrong || !mixed;
}

int main(int argc, char **argv) {
  (void)argc;
  if (!getenv("SPREAD_AUTO")) {
    setenv("SPREAD_AUTO", "1", 1);
    if (!getenv("SPREAD_AUTO_MIN"))
      setenv("SPREAD_AUTO_MIN", "1024", 1);
    if (!getenv("SPREAD_TEAMS"))
      setenv("SPREAD_TEAMS", "exact", 1);
    execv("/proc/self/exe", argv);
    printf("FAIL: cannot re-execute with SPREAD_AUTO=1\n");
    return 1;
  }
  if (!gpu_setup(1))
    return 1;
  int spread_rt = dlsym(RTLD_DEFAULT, "__spread_region_begin") != NULL;
  int bad = 0;

  for (int i = 0; i < N; i++)
    x[i] = (float)(i % 97), y[i] = want[i] = (float)(i % 13), kind[i] = -1;
  saxpy(N);
  int wrong = 0, on_gpu = 0, on_host = 0;
  for (int i = 0; i < N; i++) {
    want[i] = 2.0f * x[i] + want[i];
    wrong += y[i] != want[i];
    on_gpu += kind[i] == gpu_kind && gpu_kind == 1;
    on_host += kind[i] == 0;
  }
  int mixed = !spread_rt || (on_gpu > 0 && on_host > 0) || gpu_kind == 0;
  printf("%s saxpy: %d wrong values, %d iterations on GPUs, %d on host devices\n",
         wrong || !mixed ? "FAIL" : "PASS", wrong, on_gpu, on_host);
  bad += wrong || !mixed;

  for (int i = 0; i < N; i++)
    y[i] = want[i] = (float)(i % 13);
  stencil(N);
  wrong = 0;
  for (int i = 1; i < N - 1; i++)
    want[i] = x[i - 1] + 2 * x[i] + x[i + 1];
  for (int i = 0; i < N; i++)
    wrong += y[i] != want[i];
  printf("%s stencil: %d wrong values\n", wrong ? "FAIL" : "PASS", wrong);
  bad += wrong != 0;

  for (int i = 0; i < N; i++)
    a[i] = b[i] = ra[i] = rb[i] = (double)((i * 37) % 101);
#pragma omp target data map(tofrom : a[0:N], b[0:N])
  for (int s = 0; s < 10; s++) {
    sweep(N, a, b);
    sweep(N, b, a);
  }
  for (int s = 0; s < 10; s++) {
    for (int i = 1; i < N - 1; i++)
      rb[i] = 0.25 * ra[i - 1] + 0.5 * ra[i] + 0.25 * ra[i + 1];
    for (int i = 1; i < N - 1; i++)
      ra[i] = 0.25 * rb[i - 1] + 0.5 * rb[i] + 0.25 * rb[i + 1];
  }
  wrong = 0;
  for (int i = 0; i < N; i++)
    wrong += a[i] != ra[i] || b[i] != rb[i];
  printf("%s resident sweep: %d wrong values\n", wrong ? "FAIL" : "PASS", wrong);
  bad += wrong != 0;

  // Jacobi over the interior, collapse(2), max reduction, data resident (values exact in double).
  for (int k = 0; k < GN * GM; k++)
    ga[k] = rga[k] = (double)((k * 7) % 64), gb[k] = rgb[k] = 0;
  double err[4], rerr[4];
#pragma omp target data map(tofrom : ga[0:GN * GM], gb[0:GN * GM])
  for (int s = 0; s < 4; s++) {
    err[s] = interior(s % 2 ? gb : ga, s % 2 ? ga : gb);
  }
  for (int s = 0; s < 4; s++) {
    double *u = s % 2 ? rgb : rga, *f = s % 2 ? rga : rgb;
    rerr[s] = 0;
    for (int i = 1; i < GN - 1; i++)
      for (int j = 1; j < GM - 1; j++) {
        f[i * GM + j] = 0.25 * (u[(i - 1) * GM + j] + u[(i + 1) * GM + j] + u[i * GM + j - 1] +
                                u[i * GM + j + 1]);
        double d = f[i * GM + j] - u[i * GM + j];
        rerr[s] = d > rerr[s] ? d : (-d > rerr[s] ? -d : rerr[s]);
      }
  }
  wrong = 0;
  for (int s = 0; s < 4; s++)
    wrong += err[s] != rerr[s];
  for (int k = 0; k < GN * GM; k++)
    wrong += ga[k] != rga[k] || gb[k] != rgb[k];
  printf("%s collapsed interior: %d wrong values\n", wrong ? "FAIL" : "PASS", wrong);
  bad += wrong != 0;

  // Guarded halo reads over collapse(2), and row sums in an inner loop.
  heat(GN, GM, rga, ga);
  rowsum(GN, GM, rga, gb);
  wrong = 0;
  for (int i = 0; i < GN; i++) {
    double t = 0;
    for (int j = 0; j < GM; j++) {
      double v = rga[i * GM + j] + (i > 0 ? rga[(i - 1) * GM + j] : 0) +
                 (i < GN - 1 ? rga[(i + 1) * GM + j] : 0) + (j > 0 ? rga[i * GM + j - 1] : 0);
      wrong += ga[i * GM + j] != v;
      t += rga[i * GM + j];
    }
    wrong += gb[i] != t;
  }
  printf("%s guarded heat and row sums: %d wrong values\n", wrong ? "FAIL" : "PASS", wrong);
  bad += wrong != 0;

  // The nested block stencil: its distribute loop cut over the GPUs and the host devices.
  for (int i = 0; i < N; i++)
    y[i] = want[i] = (float)(i % 11), kind[i] = -1;
  blocks_nested(N);
  for (int i = 0; i < N; i++)
    want[i] += x[i] + (i > 0 ? x[i - 1] : 0.0f);
  bad += check_kinds("nested block stencil", spread_rt);

  // A grid kernel: windows of the league on the GPUs and the host devices.
  for (int i = 0; i < N; i++)
    y[i] = want[i] = (float)(i % 13), kind[i] = -1;
  grid_blocks(N);
  for (int i = 0; i < N; i++) {
    int b = i / GBS, j = b * GBS + GBS - 1 - i % GBS;
    want[i] += j < N ? x[j] : 0.0f;
  }
  bad += check_kinds("grid kernel", spread_rt);

  printf("%s: auto_spread on %d GPU(s)\n", bad ? "FAIL" : "PASS", gpu_count);
  return bad != 0;
}
