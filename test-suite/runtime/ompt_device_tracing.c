// OMPT device tracing (OpenMP 5.2; stock libomptarget 19 offers none: its device lookup finds
// nothing): a tool enables every target record on every device, starts the traces with small
// buffers (so that full buffers are handed back during the run), flushes once midway, and gets
// the rest at exit. It finds a record for every region begin and end, data operation and kernel
// that its callbacks saw, on the same device; each operation's end time is not before its start;
// each device's records come in time order (the program runs one construct at a time); and
// ompt_translate_time puts every record between two omp_get_wtime() readings around the work.
//
// RUN: %clang-offload %s -o %t
// RUN: %libpath-run %t | FileCheck %s --implicit-check-not=FAIL
// RUN: %preload-run %t | FileCheck %s --implicit-check-not=FAIL
// On stock the lookup finds no tracing entry point.
// RUN: %stock-run %t | FileCheck %s --check-prefix=STOCK
// STOCK: no device tracing
// STOCK: results: 0 wrong
//
// CHECK: buffers completed before the end: {{[1-9][0-9]*}}
// CHECK: results: 0 wrong
// CHECK: device 0: target=6 data_op=10 kernel=1, callbacks: target=6 data_op=10 kernel=1
// CHECK: device 1: target=6 data_op=4 kernel=1, callbacks: target=6 data_op=4 kernel=1
// CHECK: device 2: target=8 data_op=4 kernel=1, callbacks: target=8 data_op=4 kernel=1
// CHECK: records checked

#include <omp-tools.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define DEVICES 4
#define N 1000

static ompt_set_trace_ompt_t set_trace;
static ompt_start_trace_t start_trace;
static ompt_flush_trace_t flush_trace;
static ompt_advance_buffer_cursor_t advance;
static ompt_get_record_ompt_t get_record;
static ompt_get_record_type_t get_type;
static ompt_translate_time_t translate;
static ompt_get_device_time_t device_time;
static ompt_device_t *devices[DEVICES];
static int traced;

// Per device: records and callbacks of target regions (begin + end), data ops, kernels.
static int records[DEVICES][3], callbacks[DEVICES][3];
static ompt_device_time_t last_time[DEVICES];
static ompt_device_time_t kernel_ns[DEVICES];
static double wtime_lo, wtime_hi = 1e300;
static int completed, in_run = 1;

static void on_request(int device, ompt_buffer_t **buffer, size_t *bytes) {
  *bytes = 6 * sizeof(ompt_record_ompt_t); // small: fills during the run
  *buffer = malloc(*bytes);
}

static void on_complete(int device, ompt_buffer_t *buffer, size_t bytes,
                        ompt_buffer_cursor_t begin, int owned) {
  if (in_run)
    completed++;
  if (device < 0 || device >= DEVICES) {
    printf("FAIL: buffer of device %d\n", device);
    return;
  }
  ompt_buffer_cursor_t cur = begin;
  size_t n = 0;
  while (bytes > 0) {
    n++;
    if (get_type(buffer, cur) != ompt_record_ompt)
      printf("FAIL: record type %d\n", (int)get_type(buffer, cur));
    ompt_record_ompt_t *r = get_record(buffer, cur);
    ompt_device_time_t end = r->time;
    switch (r->type) {
    case ompt_callback_target:
      records[device][0]++;
      if (r->record.target.device_num != device)
        printf("FAIL: target record of device %d in device %d's buffer\n",
               r->record.target.device_num, device);
      break;
    case ompt_callback_target_data_op:
      records[device][1]++;
      end = r->record.target_data_op.end_time;
      if (r->record.target_data_op.codeptr_ra == NULL)
        printf("FAIL: data op record without codeptr_ra\n");
      break;
    case ompt_callback_target_submit:
      records[device][2]++;
      end = r->record.target_kernel.end_time;
      if (end >= r->time)
        kernel_ns[device] += end - r->time;
      break;
    default:
      printf("FAIL: record of event %d\n", (int)r->type);
    }
    if (end < r->time)
      printf("FAIL: end %llu before start %llu\n", (unsigned long long)end,
             (unsigned long long)r->time);
    if (r->time < last_time[device])
      printf("FAIL: device %d: record at %llu after one at %llu\n", device,
             (unsigned long long)r->time, (unsigned long long)last_time[device]);
    last_time[device] = r->time;
    double t = translate(devices[device], r->time);
    if (t < wtime_lo - 1e-3 || t > wtime_hi + 1e-3)
      printf("FAIL: record at %.6f s, outside [%.6f, %.6f]\n", t, wtime_lo, wtime_hi);
    if (!advance(devices[device], buffer, bytes, cur, &cur))
      break;
  }
  if (n * sizeof(ompt_record_ompt_t) != bytes)
    printf("FAIL: %zu records in %zu bytes\n", n, bytes);
  if (owned)
    free(buffer);
}

static void on_device_initialize(int device, const char *type, ompt_device_t *dev,
                                 ompt_function_lookup_t lookup, const char *doc) {
  if (device >= DEVICES)
    return;
  devices[device] = dev;
  set_trace = (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
  start_trace = (ompt_start_trace_t)lookup("ompt_start_trace");
  flush_trace = (ompt_flush_trace_t)lookup("ompt_flush_trace");
  advance = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
  get_record = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
  get_type = (ompt_get_record_type_t)lookup("ompt_get_record_type");
  translate = (ompt_translate_time_t)lookup("ompt_translate_time");
  device_time = (ompt_get_device_time_t)lookup("ompt_get_device_time");
  if (!set_trace || !start_trace || !flush_trace || !advance || !get_record || !get_type ||
      !translate || !device_time)
    return;
  if (set_trace(dev, 1, ompt_callback_target) != ompt_set_always ||
      set_trace(dev, 1, ompt_callback_target_data_op) != ompt_set_always ||
      set_trace(dev, 1, ompt_callback_target_submit) != ompt_set_always)
    printf("FAIL: set_trace_ompt\n");
  if (set_trace(dev, 1, ompt_callback_parallel_begin) != ompt_set_never)
    printf("FAIL: set_trace_ompt of a host event\n");
  if (!start_trace(dev, on_request, on_complete))
    printf("FAIL: start_trace\n");
  traced++;
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device,
                      ompt_data_t *task, ompt_id_t target_id, const void *code) {
  if (device < DEVICES)
    callbacks[device][0]++;
}

static int data_op_device(int op, int src, int dst) {
  return op == ompt_target_data_transfer_from_device || op == ompt_target_data_delete ? src
                                                                                      : dst;
}

static void on_data_op(ompt_id_t target_id, ompt_id_t host_op, ompt_target_data_op_t op,
                       void *src, int src_dev, void *dst, int dst_dev, size_t bytes,
                       const void *code) {
  int d = data_op_device(op, src_dev, dst_dev);
  if (d >= 0 && d < DEVICES)
    callbacks[d][1]++;
}

static int submit_device = -1;
static void on_submit(ompt_id_t target_id, ompt_id_t host_op, unsigned int teams) {
  if (submit_device >= 0)
    callbacks[submit_device][2]++;
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
  set(ompt_callback_target, (ompt_callback_t)on_target);
  set(ompt_callback_target_data_op, (ompt_callback_t)on_data_op);
  set(ompt_callback_target_submit, (ompt_callback_t)on_submit);
  return 1;
}

static void tool_finalize(ompt_data_t *data) {
  if (!traced)
    return;
  for (int d = 0; d < 3; d++)
    printf("device %d: target=%d data_op=%d kernel=%d, callbacks: target=%d data_op=%d "
           "kernel=%d\n",
           d, records[d][0], records[d][1], records[d][2], callbacks[d][0], callbacks[d][1],
           callbacks[d][2]);
  for (int d = 0; d < 3; d++)
    printf("device %d: kernel time %llu us\n", d, (unsigned long long)(kernel_ns[d] / 1000));
  printf("records checked\n");
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t r = {tool_initialize, tool_finalize, {0}};
  return &r;
}

int main(void) {
  static double a[N], b[N];
  for (int i = 0; i < N; i++)
    a[i] = i;
  int wrong = 0;
  wtime_lo = omp_get_wtime();
  submit_device = 0;
#pragma omp target teams distribute parallel for map(to : a) map(from : b) device(0)
  for (int i = 0; i < N; i++)
    b[i] = 2 * a[i];
  submit_device = 1;
#pragma omp target data map(tofrom : b) device(1)
  {
#pragma omp target device(1)
    b[0] += 1;
  }
  if (traced)
    flush_trace(devices[1]);
  submit_device = 2;
#pragma omp target enter data map(to : a) device(2)
#pragma omp target device(2)
  {
#ifdef SPIN_US
    // A kernel that runs long enough to tell its run from its launch.
    double t0 = omp_get_wtime();
    while (omp_get_wtime() - t0 < SPIN_US * 1e-6)
      ;
#endif
    a[1] += 1;
  }
#pragma omp target update from(a) device(2)
#pragma omp target exit data map(release : a) device(2)
  submit_device = 0;
  // Device 0 again, through a pointer.
  double *p = b;
#pragma omp target enter data map(to : p[0 : N]) device(0)
#pragma omp target exit data map(from : p[0 : N]) device(0)
  wtime_hi = omp_get_wtime();
  in_run = 0;
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2 * i + (i == 0) || a[i] != i + (i == 1);
  if (!traced)
    printf("no device tracing\n");
  else
    printf("buffers completed before the end: %d\n", completed);
  printf("results: %d wrong\n", wrong);
  fflush(stdout);
  return wrong != 0;
}
