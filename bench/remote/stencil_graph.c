/* A Task-Bench-like stencil graph of `target nowait depend` tasks over every device (issue 47,
 * scheme A-task of docs/remote-scaling.md): at each step, one task per device runs a kernel that
 * sleeps TASK_US microseconds on that device, after the previous step's tasks on the same device
 * and on its two neighbours. libomp releases a task when its predecessors are done, so
 * the head learns every completion before the next step's tasks go out: this program measures
 * what that costs, against the ideal of the same steps with no overhead.
 *
 *   stencil_graph [STEPS] [TASK_US]          (defaults 50 and 1000)
 *
 * Prints the devices, the time of one task alone on each device (the slowest, its round trip
 * included), the wall
 * time of the graph, its efficiency (STEPS x slowest task / wall) and the serial check of the
 * tasks' results. Under SPREAD_REMOTE=mpi with SPREAD_INFO=remote, the head also prints the
 * messages it sent to each rank: their sum over STEPS is the head's messages per step.
 *
 *   SPREAD_REMOTE=mpi SPREAD_HOST_DEVICES=1 SPREAD_INFO=remote \
 *     scripts/emulated-cluster.sh run 8 bench/remote/stencil_graph 100 1000
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define MAXD 256

/* One task's work: it sleeps USEC microseconds (the emulated nodes share this machine's cores:
 * a busy kernel on each of 8 ranks would measure the cores, not the graph) and advances its
 * device's value, so that the host can check that every task ran exactly once, in order. */
#pragma omp declare target
static double work(int usec, double x) {
  if (usec > 0)
    usleep((useconds_t)usec);
  return x * 0.5 + 1.0;
}
#pragma omp end declare target

static double task_once(int d, int usec, double *out) {
  double t = omp_get_wtime();
#pragma omp target device(d) map(tofrom : out[d : 1]) firstprivate(usec)
  out[d] = work(usec, out[d]);
  return omp_get_wtime() - t;
}

int main(int argc, char **argv) {
  int steps = argc > 1 ? atoi(argv[1]) : 50;
  double task_us = argc > 2 ? atof(argv[2]) : 1000;
  int nd = omp_get_num_devices();
  if (nd < 1 || nd > MAXD || steps < 1 || task_us <= 0) {
    fprintf(stderr, "stencil_graph: need 1..%d devices (found %d), STEPS >= 1, TASK_US > 0\n",
            MAXD, nd);
    return 2;
  }
  static double out[MAXD], want[MAXD];
  static char tok[2][MAXD + 2]; /* dependence tokens, one per device and step parity */

  /* One task alone on each device (its round trip included): the slowest is the step's ideal. */
  int usec = (int)task_us;
  double task_s = 0;
  for (int d = 0; d < nd; d++) {
    double best = 1e30;
    for (int r = 0; r < 4; r++) {
      double t = task_once(d, usec, out);
      best = r > 0 && t < best ? t : best; /* the first loads the image */
    }
    task_s = best > task_s ? best : task_s;
  }
  for (int d = 0; d < nd; d++)
    out[d] = want[d] = d;

  double t0 = omp_get_wtime();
#pragma omp parallel num_threads(1)
#pragma omp single
  for (int s = 0; s < steps; s++) {
    char *prev = tok[(s + 1) & 1], *cur = tok[s & 1];
    for (int d = 0; d < nd; d++) {
#pragma omp target device(d) nowait map(tofrom : out[d : 1]) firstprivate(usec)              \
    depend(in : prev[d], prev[d + 1], prev[d + 2]) depend(out : cur[d + 1])
      out[d] = work(usec, out[d]);
    }
  }
  double wall = omp_get_wtime() - t0;

  for (int s = 0; s < steps; s++)
    for (int d = 0; d < nd; d++)
      want[d] = work(0, want[d]);
  int wrong = 0;
  for (int d = 0; d < nd; d++)
    wrong += out[d] != want[d];
  printf("stencil_graph: devices=%d steps=%d tasks=%d task_us=%d alone_us=%.1f\n", nd, steps,
         nd * steps, usec, task_s * 1e6);
  printf("stencil_graph: wall=%.4f s per_step=%.1f us efficiency=%.3f\n", wall,
         wall / steps * 1e6, steps * task_s / wall);
  printf("stencil_graph: %s (%d of %d devices' results differ from the serial loop)\n",
         wrong ? "WRONG" : "verified", wrong, nd);
  return wrong != 0;
}
