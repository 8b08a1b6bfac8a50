// gpu-check's step "ompt": what an OMPT tool sees of device work on the default device (the GPU
// in mode gpu), under stock libomptarget 19 and under Spread. The tool is
// test-suite/Inputs/ompt_target_tool.h (non-EMI callbacks), which prints every target, data-op
// and submit event and checks pairing, regions and codeptr_ra ("FAIL:" lines); gpucheck.py
// compares the two runtimes' event lines after naming the default device "dev" and the host
// "host" (the runtimes number devices differently). Where the device offers OMPT device tracing
// (Spread; stock's lookup finds none), the tool also traces the default device and this program
// checks the records: one per region begin and end, data operation and kernel the callbacks saw,
// each ending after it starts, in time order, inside omp_get_wtime() readings around the work,
// and each kernel's record spanning at least the time the kernel spun on the device (read from
// the device's own clock), which enqueue-time stamps would not.
//
// Build (scripts/gpu-pack.sh): clang-19 -O2 <fat-binary flags> -I test-suite/Inputs
//   -DTOOL_DEVICE_HOOK=trace_device -DTOOL_FINALIZE_HOOK=trace_summary scripts/gpu/ompt-events.c
// Prints "check OK" when the results are the serial loop's and no check failed.
#include <omp-tools.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

static void trace_device(int device, ompt_device_t *dev, ompt_function_lookup_t lookup);
static void trace_summary(void);
#include "ompt_target_tool.h"

#define N (1 << 16)
#define SPIN_NS 2000000ull // each kernel spins 2 ms on the device

static int trace_dev = -1;
static ompt_device_t *traced;
static ompt_advance_buffer_cursor_t advance;
static ompt_get_record_ompt_t get_record;
static ompt_translate_time_t translate;
static int records[3], callbacks_seen[3], failures;
static ompt_device_time_t last_time, shortest_kernel = ~0ull;
static double wtime_lo, wtime_hi = 1e300;

#define TRACE_FAIL(...)                                                                        \
  do {                                                                                         \
    failures++;                                                                                \
    printf("FAIL: trace: " __VA_ARGS__);                                                       \
    printf("\n");                                                                              \
  } while (0)

static void on_request(int device, ompt_buffer_t **buffer, size_t *bytes) {
  *bytes = 64 * sizeof(ompt_record_ompt_t);
  *buffer = malloc(*bytes);
}

static void on_complete(int device, ompt_buffer_t *buffer, size_t bytes,
                        ompt_buffer_cursor_t begin, int owned) {
  ompt_buffer_cursor_t cur = begin;
  while (bytes > 0) {
    ompt_record_ompt_t *r = get_record(buffer, cur);
    ompt_device_time_t end = r->time;
    switch (r->type) {
    case ompt_callback_target:
      records[0]++;
      break;
    case ompt_callback_target_data_op:
      records[1]++;
      end = r->record.target_data_op.end_time;
      break;
    case ompt_callback_target_submit:
      records[2]++;
      end = r->record.target_kernel.end_time;
      if (end - r->time < shortest_kernel)
        shortest_kernel = end - r->time;
      break;
    default:
      TRACE_FAIL("record of event %d", (int)r->type);
    }
    if (end < r->time)
      TRACE_FAIL("end before start");
    if (r->time < last_time)
      TRACE_FAIL("a record before the one preceding it");
    last_time = r->time;
    double t = translate(traced, r->time);
    if (t < wtime_lo - 1e-3 || t > wtime_hi + 1e-3)
      TRACE_FAIL("record at %.6f s, outside [%.6f, %.6f]", t, wtime_lo, wtime_hi);
    if (!advance(traced, buffer, bytes, cur, &cur))
      break;
  }
  if (owned)
    free(buffer);
}

static void trace_device(int device, ompt_device_t *dev, ompt_function_lookup_t lookup) {
  if (device != omp_get_default_device())
    return;
  ompt_set_trace_ompt_t set = (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
  ompt_start_trace_t start = (ompt_start_trace_t)lookup("ompt_start_trace");
  advance = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
  get_record = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
  translate = (ompt_translate_time_t)lookup("ompt_translate_time");
  if (!set || !start || !advance || !get_record || !translate)
    return; // stock: no device tracing
  traced = dev;
  trace_dev = device;
  set(dev, 1, ompt_callback_target);
  set(dev, 1, ompt_callback_target_data_op);
  set(dev, 1, ompt_callback_target_submit);
  if (!start(dev, on_request, on_complete))
    TRACE_FAIL("ompt_start_trace");
}

// Spins `ns` nanoseconds of the device's own clock.
#pragma omp declare target
static void spin(unsigned long long ns) {
  double t0 = omp_get_wtime();
  while ((omp_get_wtime() - t0) * 1e9 < (double)ns)
    ;
}
#pragma omp end declare target

int main(void) {
  int dev = omp_get_default_device(), host = omp_get_initial_device();
  printf("devices: default %d initial %d\n", dev, host);
  static float a[N], b[N], c[N];
  for (int i = 0; i < N; i++) {
    a[i] = i;
    b[i] = 0;
    c[i] = 1;
  }
  int wrong = 0, kernels = 0;
  wtime_lo = omp_get_wtime();
  printf("-- kernel\n");
#pragma omp target teams distribute parallel for map(to : a) map(from : b)
  for (int i = 0; i < N; i++) {
    if (i == 0)
      spin(SPIN_NS);
    b[i] = 2 * a[i];
  }
  kernels++;
  printf("-- data\n");
#pragma omp target data map(tofrom : c)
  {
#pragma omp target
    {
      spin(SPIN_NS);
      for (int i = 0; i < N; i++)
        c[i] += 1;
    }
    kernels++;
  }
  printf("-- enter update exit\n");
#pragma omp target enter data map(to : a)
#pragma omp target teams distribute parallel for
  for (int i = 0; i < N; i++) {
    if (i == 0)
      spin(SPIN_NS);
    a[i] += 1;
  }
  kernels++;
#pragma omp target update from(a)
#pragma omp target exit data map(delete : a)
  printf("-- nowait\n");
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp target teams distribute parallel for map(tofrom : b) nowait
    for (int i = 0; i < N; i++) {
      if (i == 0)
        spin(SPIN_NS);
      b[i] += 1;
    }
#pragma omp taskwait
  }
  kernels++;
  printf("-- api\n");
  float *d = omp_target_alloc(N * sizeof(float), dev);
  if (!d || omp_target_memcpy(d, c, N * sizeof(float), 0, 0, dev, host) ||
      omp_target_memcpy(c, d, N * sizeof(float), 0, 0, host, dev))
    printf("FAIL: omp_target_alloc/memcpy\n");
  omp_target_free(d, dev);
  wtime_hi = omp_get_wtime();
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2 * i + 1 || c[i] != 2 || a[i] != i + 1;
  printf("results: %d wrong\n", wrong);
  // The callbacks the trace must mirror (regions' begins and ends, data ops, kernels).
  callbacks_seen[0] = tool_counts[2] + tool_counts[3];
  callbacks_seen[1] = tool_counts[4];
  callbacks_seen[2] = tool_counts[5];
  fflush(stdout);
  return wrong != 0;
}

// From the tool's finalize, after the runtime handed back the last trace buffers (at exit).
static void trace_summary(void) {
  if (trace_dev < 0) {
    printf("trace: none\n");
  } else {
    for (int k = 0; k < 3; k++)
      if (records[k] != callbacks_seen[k])
        TRACE_FAIL("kind %d: %d records, %d callbacks", k, records[k], callbacks_seen[k]);
    if (records[2] == 0 || shortest_kernel < SPIN_NS)
      TRACE_FAIL("shortest kernel record %llu ns, the kernels spin %llu ns",
                 (unsigned long long)shortest_kernel, SPIN_NS);
    printf("trace: %d records, shortest kernel %.3f ms%s\n", records[0] + records[1] + records[2],
           shortest_kernel / 1e6, failures ? "" : ", ok");
  }
  fflush(stdout);
}
