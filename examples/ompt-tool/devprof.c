// devprof: a small OMPT tool that tells where a program's device work went, per device.
//
// Build it as a tool library and load it into any OpenMP offload program, on stock libomptarget
// or on Spread:
//
//     clang-19 -fopenmp -shared -fPIC -O2 devprof.c -o libdevprof.so
//     OMP_TOOL_LIBRARIES=$PWD/libdevprof.so ./program
//
// At exit it prints, per device: target regions (each chunk of a Spread `target spread` is one),
// kernels, busy time (the time at least one region was open on the device), bytes copied to and
// from the device, and device allocations. DEVPROF_OUT=file writes the table there instead of
// stderr.
//
// It uses LLVM 19's EMI target callbacks (OpenMP 5.1): `target_emi` begins and ends regions,
// `target_data_op_emi` reports copies and allocations, `target_submit_emi` kernels. A region's
// target data holds its device number, so a kernel submission (which carries no device) is
// counted on its region's device.
//
// Where the runtime offers OMPT device tracing (OpenMP 5.2; Spread does, stock LLVM 19 does not),
// it also traces every device's kernels and copies and prints, per device, the kernels' time on
// the device and the bytes copied each way, from the trace records' device timestamps.
#include <inttypes.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_DEVICES 64

struct device_stats {
  uint64_t regions, kernels, allocs, bytes_to, bytes_from;
  // From trace records.
  int traced;
  uint64_t t_kernels, t_kernel_ns, t_bytes_to, t_bytes_from;
  int open;            // regions open now
  uint64_t since_ns;   // when the first of them opened
  uint64_t busy_ns;    // time with at least one region open
  int seen;
};

static struct device_stats stats[MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct device_stats *device(int d) {
  return d >= 0 && d < MAX_DEVICES ? &stats[d] : NULL;
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                      ompt_data_t *task, ompt_data_t *target_task, ompt_data_t *target_data,
                      const void *codeptr) {
  struct device_stats *s = device(device_num);
  if (!s)
    return;
  pthread_mutex_lock(&lock);
  s->seen = 1;
  if (endpoint == ompt_scope_begin) {
    // Remembered for the kernels submitted in this region.
    target_data->value = (uint64_t)device_num + 1;
    if (kind == ompt_target || kind == ompt_target_nowait)
      s->regions++;
    if (s->open++ == 0)
      s->since_ns = now_ns();
  } else if (s->open > 0 && --s->open == 0) {
    s->busy_ns += now_ns() - s->since_ns;
  }
  pthread_mutex_unlock(&lock);
}

static void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task,
                       ompt_data_t *target_data, ompt_id_t *host_op, ompt_target_data_op_t op,
                       void *src, int src_device, void *dst, int dst_device, size_t bytes,
                       const void *codeptr) {
  if (endpoint != ompt_scope_begin)
    return;
  pthread_mutex_lock(&lock);
  struct device_stats *to = device(dst_device), *from = device(src_device);
  switch (op) {
  case ompt_target_data_transfer_to_device:
  case ompt_target_data_transfer_to_device_async:
    if (to)
      to->bytes_to += bytes;
    break;
  case ompt_target_data_transfer_from_device:
  case ompt_target_data_transfer_from_device_async:
    if (from)
      from->bytes_from += bytes;
    break;
  case ompt_target_data_alloc:
  case ompt_target_data_alloc_async:
    if (to)
      to->allocs++;
    break;
  default:
    break;
  }
  pthread_mutex_unlock(&lock);
}

static void on_submit(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                      ompt_id_t *host_op, unsigned int teams) {
  if (endpoint != ompt_scope_begin || !target_data || target_data->value == 0)
    return;
  pthread_mutex_lock(&lock);
  struct device_stats *s = device((int)target_data->value - 1);
  if (s)
    s->kernels++;
  pthread_mutex_unlock(&lock);
}

// --- device tracing -------------------------------------------------------------------------

static ompt_advance_buffer_cursor_t advance;
static ompt_get_record_ompt_t get_record;
static ompt_device_t *devices[MAX_DEVICES];

static void on_buffer_request(int device_num, ompt_buffer_t **buffer, size_t *bytes) {
  *bytes = 1024 * sizeof(ompt_record_ompt_t);
  *buffer = malloc(*bytes);
  if (!*buffer)
    *bytes = 0;
}

static void on_buffer_complete(int device_num, ompt_buffer_t *buffer, size_t bytes,
                               ompt_buffer_cursor_t cursor, int owned) {
  struct device_stats *s = device(device_num);
  pthread_mutex_lock(&lock);
  while (s && bytes > 0) {
    ompt_record_ompt_t *r = get_record(buffer, cursor);
    if (r->type == ompt_callback_target_submit || r->type == ompt_callback_target_submit_emi) {
      s->t_kernels++;
      s->t_kernel_ns += r->record.target_kernel.end_time - r->time;
    } else if (r->type == ompt_callback_target_data_op ||
               r->type == ompt_callback_target_data_op_emi) {
      ompt_record_target_data_op_t *d = &r->record.target_data_op;
      if (d->optype == ompt_target_data_transfer_to_device)
        s->t_bytes_to += d->bytes;
      else if (d->optype == ompt_target_data_transfer_from_device)
        s->t_bytes_from += d->bytes;
    }
    if (!advance(devices[device_num], buffer, bytes, cursor, &cursor))
      break;
  }
  pthread_mutex_unlock(&lock);
  if (owned)
    free(buffer);
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *dev,
                                 ompt_function_lookup_t lookup, const char *doc) {
  struct device_stats *s = device(device_num);
  if (!s || !lookup)
    return;
  ompt_set_trace_ompt_t set_trace = (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
  ompt_start_trace_t start = (ompt_start_trace_t)lookup("ompt_start_trace");
  advance = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
  get_record = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
  if (!set_trace || !start || !advance || !get_record)
    return; // no device tracing here (stock LLVM 19)
  set_trace(dev, 1, ompt_callback_target_data_op);
  set_trace(dev, 1, ompt_callback_target_submit);
  devices[device_num] = dev;
  s->traced = start(dev, on_buffer_request, on_buffer_complete);
}

// --- the tool --------------------------------------------------------------------------------

static int tool_initialize(ompt_function_lookup_t lookup, int initial, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set)
    return 0;
  // (`initial` is not used: stock libomp passes 0 there before the offload runtime has
  // counted its devices. A copy's direction is in its operation type.)
  set(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
  int ok = set(ompt_callback_target_emi, (ompt_callback_t)on_target) != ompt_set_never &&
           set(ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op) != ompt_set_never &&
           set(ompt_callback_target_submit_emi, (ompt_callback_t)on_submit) != ompt_set_never;
  if (!ok)
    fprintf(stderr, "devprof: this OpenMP runtime does not report device work (no OMPT target "
                    "callbacks)\n");
  return ok;
}

static void tool_finalize(ompt_data_t *data) {
  const char *path = getenv("DEVPROF_OUT");
  FILE *out = path && *path ? fopen(path, "w") : stderr;
  if (!out) {
    fprintf(stderr, "devprof: cannot write %s\n", path);
    out = stderr;
  }
  uint64_t kernels = 0, to = 0, from = 0;
  fprintf(out, "devprof: %6s %8s %8s %10s %14s %14s %7s\n", "device", "regions", "kernels",
          "busy_ms", "bytes_to", "bytes_from", "allocs");
  for (int d = 0; d < MAX_DEVICES; d++) {
    struct device_stats *s = &stats[d];
    if (!s->seen)
      continue;
    fprintf(out, "devprof: %6d %8" PRIu64 " %8" PRIu64 " %10.3f %14" PRIu64 " %14" PRIu64
                 " %7" PRIu64 "\n",
            d, s->regions, s->kernels, s->busy_ns / 1e6, s->bytes_to, s->bytes_from, s->allocs);
    kernels += s->kernels;
    to += s->bytes_to;
    from += s->bytes_from;
  }
  fprintf(out, "devprof: total kernels=%" PRIu64 " bytes_to=%" PRIu64 " bytes_from=%" PRIu64 "\n",
          kernels, to, from);
  for (int d = 0; d < MAX_DEVICES; d++) {
    struct device_stats *s = &stats[d];
    if (s->traced && s->seen)
      fprintf(out,
              "devprof: trace: device %d kernels=%" PRIu64 " kernel_ms=%.3f bytes_to=%" PRIu64
              " bytes_from=%" PRIu64 "\n",
              d, s->t_kernels, s->t_kernel_ns / 1e6, s->t_bytes_to, s->t_bytes_from);
  }
  if (out != stderr)
    fclose(out);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  return &result;
}
