// OMPT under load: 4 plain pthreads (each an OpenMP initial thread) and the 2-thread parallel
// regions they fork offload at once, with `nowait` chains over every device ordered by
// `depend` (Spread owns them), synchronous constructs and unstructured data, while a tool
// carried by the program registers the target callbacks, traces every device (small buffers,
// so that full buffers are handed back on many threads at once) and keeps a tagged word of its
// own with every region and task (test-suite/Inputs/ompt_words_tool.h; Spread's tool keeps its
// own beside it). At the end each device's trace records equal its callbacks, kind by kind;
// every record lies between omp_get_wtime() readings around the run and ends after it starts;
// no word of the tool's was touched; and the results equal the serial loops'. (Stock
// libomptarget 19 does not get through this program: libomp asserts at kmp_csupport.cpp(539),
// with its hidden helpers on or off; runtime/stress_pthreads.c has the same story.)
//
// RUN: %clang-offload -O2 -I %S/../Inputs %s -o %t -lpthread
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: env SPREAD_HOST_DEVICES=2 %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
//
// CHECK: results: 0 wrong
// CHECK-DAG: tool: {{[1-9][0-9]*}} parallel regions, {{[1-9][0-9]*}} implicit tasks, {{[1-9][0-9]*}} explicit tasks, {{[1-9][0-9]*}} target regions, 0 bad words
// CHECK-DAG: traced: {{[1-9][0-9]*}} records on {{[1-9]}} devices, each kind's equal to its callbacks

#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ompt_words_tool.h"

#define MAXD 8
#define THREADS 4
#define ITERS 40
#define N 256

static ompt_set_trace_ompt_t set_trace;
static ompt_start_trace_t start_trace;
static ompt_advance_buffer_cursor_t advance;
static ompt_get_record_ompt_t get_record;
static ompt_translate_time_t translate;
static ompt_device_t *devices[MAXD];
static int traced_devices;
// Per device: trace records and callbacks of target regions (begin + end), data ops, kernels.
static long records[MAXD][3], callbacks[MAXD][3];
static double wtime_lo, wtime_hi = 1e300;

static void count(long *c) { __atomic_fetch_add(c, 1, __ATOMIC_RELAXED); }

static void on_request(int device, ompt_buffer_t **buffer, size_t *bytes) {
  *bytes = 4 * sizeof(ompt_record_ompt_t);
  *buffer = malloc(*bytes);
}

static void on_complete(int device, ompt_buffer_t *buffer, size_t bytes,
                        ompt_buffer_cursor_t begin, int owned) {
  if (device < 0 || device >= MAXD) {
    printf("FAIL: buffer of device %d\n", device);
    return;
  }
  ompt_buffer_cursor_t cur = begin;
  while (bytes > 0) {
    ompt_record_ompt_t *r = get_record(buffer, cur);
    ompt_device_time_t end = r->time;
    switch (r->type) {
    case ompt_callback_target:
      count(&records[device][0]);
      if (r->record.target.device_num != device)
        printf("FAIL: target record of device %d in device %d's buffer\n",
               r->record.target.device_num, device);
      break;
    case ompt_callback_target_data_op:
      count(&records[device][1]);
      end = r->record.target_data_op.end_time;
      break;
    case ompt_callback_target_submit:
      count(&records[device][2]);
      end = r->record.target_kernel.end_time;
      break;
    default:
      printf("FAIL: record of event %d\n", (int)r->type);
    }
    if (end < r->time)
      printf("FAIL: end %llu before start %llu\n", (unsigned long long)end,
             (unsigned long long)r->time);
    double t = translate(devices[device], r->time);
    if (t < wtime_lo - 1e-3 || t > wtime_hi + 1e-3)
      printf("FAIL: record at %.6f s, outside [%.6f, %.6f]\n", t, wtime_lo, wtime_hi);
    if (!advance(devices[device], buffer, bytes, cur, &cur))
      break;
  }
  if (owned)
    free(buffer);
}

static void on_device_initialize(int device, const char *type, ompt_device_t *dev,
                                 ompt_function_lookup_t lookup, const char *doc) {
  if (device < 0 || device >= MAXD)
    return;
  devices[device] = dev;
  set_trace = (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
  start_trace = (ompt_start_trace_t)lookup("ompt_start_trace");
  advance = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
  get_record = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
  translate = (ompt_translate_time_t)lookup("ompt_translate_time");
  if (!set_trace || !start_trace || !advance || !get_record || !translate)
    return;
  if (set_trace(dev, 1, ompt_callback_target) != ompt_set_always ||
      set_trace(dev, 1, ompt_callback_target_data_op) != ompt_set_always ||
      set_trace(dev, 1, ompt_callback_target_submit) != ompt_set_always ||
      !start_trace(dev, on_request, on_complete))
    printf("FAIL: tracing device %d\n", device);
  __atomic_fetch_add(&traced_devices, 1, __ATOMIC_RELAXED);
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device,
                      ompt_data_t *task, ompt_id_t target_id, const void *code) {
  if (endpoint == ompt_scope_begin)
    count(&n_target);
  check_task("target task", task, 0);
  if (device >= 0 && device < MAXD)
    count(&callbacks[device][0]);
}

static void on_data_op(ompt_id_t target_id, ompt_id_t host_op, ompt_target_data_op_t op,
                       void *src, int src_dev, void *dst, int dst_dev, size_t bytes,
                       const void *code) {
  int d = op == ompt_target_data_transfer_from_device || op == ompt_target_data_delete
              ? src_dev
              : dst_dev;
  if (d >= 0 && d < MAXD)
    count(&callbacks[d][1]);
}

// The device of the kernel a thread submits (set by the program before each construct).
static __thread int submit_device = -1;
static void on_submit(ompt_id_t target_id, ompt_id_t host_op, unsigned int teams) {
  if (submit_device >= 0 && submit_device < MAXD)
    count(&callbacks[submit_device][2]);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial, ompt_data_t *data) {
  words_register(lookup);
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
  set(ompt_callback_target, (ompt_callback_t)on_target);
  set(ompt_callback_target_data_op, (ompt_callback_t)on_data_op);
  set(ompt_callback_target_submit, (ompt_callback_t)on_submit);
  return 1;
}

static void tool_finalize(ompt_data_t *data) {
  printf("tool: %ld parallel regions, %ld implicit tasks, %ld explicit tasks, %ld target "
         "regions, %ld bad words\n",
         n_parallel, n_implicit, n_explicit, n_target, n_bad);
  if (!traced_devices) {
    printf("no device tracing\n");
    return;
  }
  long total = 0;
  int unequal = 0;
  for (int d = 0; d < MAXD; d++)
    for (int k = 0; k < 3; k++) {
      total += records[d][k];
      if (records[d][k] != callbacks[d][k]) {
        printf("FAIL: device %d, kind %d: %ld records, %ld callbacks\n", d, k, records[d][k],
               callbacks[d][k]);
        unequal = 1;
      }
    }
  if (!unequal)
    printf("traced: %ld records on %d devices, each kind's equal to its callbacks\n", total,
           traced_devices);
  fflush(stdout);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t r = {tool_initialize, tool_finalize, {0}};
  return &r;
}

static int nd;
static double data[THREADS][N], expect[THREADS][N];
static double side[THREADS][2][N], side_expect[THREADS][2][N];

static void *worker(void *arg) {
  int t = (int)(long)arg;
  double *a = data[t];
  for (int it = 0; it < ITERS; it++) {
    // A `nowait` chain over every device, then a taskwait.
    for (int d = 0; d < nd; d++) {
      submit_device = d;
#pragma omp target teams distribute parallel for map(tofrom : a[0 : N]) device(d) nowait depend(inout : a[0])
      for (int i = 0; i < N; i++)
        a[i] = a[i] * 0.5 + d + it;
    }
#pragma omp taskwait
    // A synchronous construct, and unstructured data around it.
    int d = (t + it) % nd;
    submit_device = d;
#pragma omp target enter data map(to : a[0 : N]) device(d)
#pragma omp target teams distribute parallel for device(d)
    for (int i = 0; i < N; i++)
      a[i] += 1;
#pragma omp target exit data map(from : a[0 : N]) device(d)
    // A parallel region whose threads offload too.
#pragma omp parallel for num_threads(2)
    for (int k = 0; k < 2; k++) {
      double *s = side[t][k];
      submit_device = (t + k) % nd;
#pragma omp target teams distribute parallel for map(tofrom : s[0 : N]) device((t + k) % nd)
      for (int i = 0; i < N; i++)
        s[i] += i + k;
    }
  }
  return NULL;
}

int main(void) {
  nd = omp_get_num_devices();
  if (nd > MAXD)
    nd = MAXD;
  if (nd < 1) {
    printf("FAIL: no devices\n");
    return 1;
  }
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < N; i++) {
      data[t][i] = expect[t][i] = t + i;
      for (int k = 0; k < 2; k++)
        side[t][k][i] = side_expect[t][k][i] = 0;
    }
  for (int t = 0; t < THREADS; t++)
    for (int it = 0; it < ITERS; it++) {
      for (int d = 0; d < nd; d++)
        for (int i = 0; i < N; i++)
          expect[t][i] = expect[t][i] * 0.5 + d + it;
      for (int i = 0; i < N; i++)
        expect[t][i] += 1;
      for (int k = 0; k < 2; k++)
        for (int i = 0; i < N; i++)
          side_expect[t][k][i] += i + k;
    }
  wtime_lo = omp_get_wtime();
  pthread_t th[THREADS];
  for (int t = 0; t < THREADS; t++)
    pthread_create(&th[t], NULL, worker, (void *)(long)t);
  for (int t = 0; t < THREADS; t++)
    pthread_join(th[t], NULL);
  wtime_hi = omp_get_wtime();
  int wrong = 0;
  for (int t = 0; t < THREADS; t++)
    for (int i = 0; i < N; i++) {
      wrong += data[t][i] != expect[t][i];
      for (int k = 0; k < 2; k++)
        wrong += side[t][k][i] != side_expect[t][k][i];
    }
  printf("results: %d wrong\n", wrong);
  fflush(stdout);
  return wrong != 0;
}
