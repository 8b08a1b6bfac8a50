// An OMPT tool for tests: registers LLVM 19's target callbacks (the EMI forms with -DEMI),
// prints each event without the values that differ between runtimes (ids, addresses), and
// checks what a tool relies on, printing a FAIL line where it does not hold:
//
// - every region's begin has an end, on the same device, with the same codeptr_ra;
// - a data operation or kernel submission names a region that is open (non-EMI: its target
//   id; EMI: its target data), or none when none is open; its codeptr_ra is the region's;
// - EMI: the host-op id the tool set at an operation's begin comes back at its end; non-EMI:
//   host-op ids are unique;
// - every codeptr_ra is set;
// - bytes copied to and from devices add up (`ompt_tool_bytes`).
//
// -DBOTH registers the non-EMI callbacks as well as the EMI ones (only the EMI ones are called),
// -DNO_DEVICE_INIT registers no device_initialize callback (the others still are called),
// -DWRONG_RETURN makes the tool's initialize return 0 (the tool is off: nothing is called),
// -DTOOL_DEVICE_HOOK=f has device_initialize also call f(device, ompt_device_t *, lookup), and
// -DTOOL_FINALIZE_HOOK=g the tool's finalize call g() first.
//
// With -DTOOL_LIBRARY the header is a tool library for OMP_TOOL_LIBRARIES; otherwise the program
// carries the tool. At the tool's finalization it prints the counts per kind.
#include <inttypes.h>
#include <omp-tools.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TOOL_MAX_OPEN 256

static ompt_set_callback_t tool_set;
static int tool_counts[8];  // initialize, load, target begin, target end, data ops, submits, finalize
static uint64_t tool_bytes_to, tool_bytes_from;

struct tool_open {
  int device;
  uint64_t id;       // non-EMI target id
  ompt_data_t *data; // EMI target data
  const void *code;
};
static struct tool_open tool_open_regions[TOOL_MAX_OPEN];
static int tool_nopen;
static uint64_t tool_last_host_op;
static uint64_t tool_next_value = 1;

#define TOOL_FAIL(...)                                                         \
  do {                                                                         \
    printf("FAIL: " __VA_ARGS__);                                              \
    printf("\n");                                                              \
  } while (0)

static const char *tool_op_name(int op) {
  switch (op) {
  case ompt_target_data_alloc: return "alloc";
  case ompt_target_data_transfer_to_device: return "to";
  case ompt_target_data_transfer_from_device: return "from";
  case ompt_target_data_delete: return "delete";
  case ompt_target_data_associate: return "associate";
  case ompt_target_data_disassociate: return "disassociate";
  }
  return "unknown";
}

// The open region an operation names (-1: none), checked against its codeptr_ra.
static int tool_find(uint64_t id, ompt_data_t *data, const void *code, const char *what) {
  for (int i = tool_nopen - 1; i >= 0; i--) {
#ifdef EMI
    int same = tool_open_regions[i].data == data;
#else
    int same = tool_open_regions[i].id == id;
#endif
    if (same) {
      if (code && tool_open_regions[i].code != code)
        TOOL_FAIL("%s: codeptr_ra differs from its region's", what);
      return i;
    }
  }
#ifdef EMI
  if (tool_nopen > 0 && data && data->value != 0)
    TOOL_FAIL("%s: names no open region", what);
#else
  if (id != 0)
    TOOL_FAIL("%s: target id %" PRIu64 " names no open region", what, id);
#endif
  return -1;
}

static void tool_region(int kind, int endpoint, int device, uint64_t id, ompt_data_t *data,
                        const void *code) {
  if (!code)
    TOOL_FAIL("target: no codeptr_ra");
  if (endpoint == ompt_scope_begin) {
    tool_counts[2]++;
    if (tool_nopen == TOOL_MAX_OPEN) {
      TOOL_FAIL("too many open regions");
      return;
    }
    tool_open_regions[tool_nopen++] = (struct tool_open){device, id, data, code};
  } else {
    tool_counts[3]++;
    int i = tool_find(id, data, code, "target end");
    if (i < 0) {
      TOOL_FAIL("target end without its begin");
    } else {
      if (tool_open_regions[i].device != device)
        TOOL_FAIL("target end on device %d, begun on %d", device, tool_open_regions[i].device);
      tool_open_regions[i] = tool_open_regions[--tool_nopen];
    }
  }
  printf("target kind=%d endpoint=%d device=%d\n", kind, endpoint, device);
}

static void tool_data_op(int optype, int src_dev, int dst_dev, size_t bytes, uint64_t id,
                         ompt_data_t *data, const void *code) {
  if (!code)
    TOOL_FAIL("data op: no codeptr_ra");
  tool_find(id, data, code, "data op");
  tool_counts[4]++;
  if (optype == ompt_target_data_transfer_to_device)
    tool_bytes_to += bytes;
  if (optype == ompt_target_data_transfer_from_device)
    tool_bytes_from += bytes;
  printf("data_op %s src_device=%d dest_device=%d bytes=%zu\n", tool_op_name(optype), src_dev,
         dst_dev, bytes);
}

#ifdef EMI
static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device,
                      ompt_data_t *task, ompt_data_t *target_task, ompt_data_t *target_data,
                      const void *code) {
  if (endpoint == ompt_scope_begin)
    target_data->value = tool_next_value++;
  tool_region(kind, endpoint, device, 0, target_data, code);
}

static void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task,
                       ompt_data_t *target_data, ompt_id_t *host_op, ompt_target_data_op_t optype,
                       void *src, int src_dev, void *dst, int dst_dev, size_t bytes,
                       const void *code) {
  if (endpoint == ompt_scope_begin) {
    *host_op = 1000 + tool_next_value++;
    tool_last_host_op = *host_op;
    tool_data_op(optype, src_dev, dst_dev, bytes, 0, target_data, code);
  } else if (*host_op != tool_last_host_op) {
    TOOL_FAIL("data op end: host-op id %" PRIu64 ", set %" PRIu64, *host_op, tool_last_host_op);
  }
}

static void on_submit(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                      ompt_id_t *host_op, unsigned int teams) {
  if (endpoint == ompt_scope_begin) {
    *host_op = 1000 + tool_next_value++;
    tool_last_host_op = *host_op;
    tool_counts[5]++;
    printf("submit teams=%u\n", teams);
  } else if (*host_op != tool_last_host_op) {
    TOOL_FAIL("submit end: host-op id %" PRIu64 ", set %" PRIu64, *host_op, tool_last_host_op);
  }
}

#ifdef BOTH
static void on_non_emi(void) { TOOL_FAIL("a non-EMI callback was called with EMI registered"); }
#endif

static void tool_register(void) {
#ifdef BOTH
  tool_set(ompt_callback_target, (ompt_callback_t)on_non_emi);
  tool_set(ompt_callback_target_data_op, (ompt_callback_t)on_non_emi);
  tool_set(ompt_callback_target_submit, (ompt_callback_t)on_non_emi);
#endif
  tool_set(ompt_callback_target_emi, (ompt_callback_t)on_target);
  tool_set(ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op);
  tool_set(ompt_callback_target_submit_emi, (ompt_callback_t)on_submit);
}
#else
static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device,
                      ompt_data_t *task, ompt_id_t target_id, const void *code) {
  if (target_id == 0 && kind != ompt_target_enter_data)
    TOOL_FAIL("target: no target id");
  tool_region(kind, endpoint, device, target_id, NULL, code);
}

static void on_data_op(ompt_id_t target_id, ompt_id_t host_op, ompt_target_data_op_t optype,
                       void *src, int src_dev, void *dst, int dst_dev, size_t bytes,
                       const void *code) {
  if (host_op <= tool_last_host_op)
    TOOL_FAIL("data op: host-op id %" PRIu64 " not new", host_op);
  tool_last_host_op = host_op;
  tool_data_op(optype, src_dev, dst_dev, bytes, target_id, NULL, code);
}

static void on_submit(ompt_id_t target_id, ompt_id_t host_op, unsigned int teams) {
  if (host_op <= tool_last_host_op)
    TOOL_FAIL("submit: host-op id %" PRIu64 " not new", host_op);
  tool_last_host_op = host_op;
  tool_find(target_id, NULL, NULL, "submit");
  tool_counts[5]++;
  printf("submit teams=%u\n", teams);
}

static void tool_register(void) {
  tool_set(ompt_callback_target, (ompt_callback_t)on_target);
  tool_set(ompt_callback_target_data_op, (ompt_callback_t)on_data_op);
  tool_set(ompt_callback_target_submit, (ompt_callback_t)on_submit);
}
#endif

static void on_device_initialize(int device, const char *type, ompt_device_t *dev,
                                 ompt_function_lookup_t lookup, const char *doc) {
  tool_counts[0]++;
  if (!lookup)
    TOOL_FAIL("device_initialize: no lookup function");
  printf("device_initialize device=%d type=%s\n", device, type ? type : "(null)");
#ifdef TOOL_DEVICE_HOOK
  TOOL_DEVICE_HOOK(device, dev, lookup);
#endif
}

static void on_device_finalize(int device) {
  tool_counts[6]++;
  printf("device_finalize device=%d\n", device);
}

static void on_device_load(int device, const char *file, int64_t offset, void *file_addr,
                           size_t bytes, void *host_addr, void *device_addr, uint64_t module) {
  tool_counts[1]++;
  printf("device_load device=%d\n", device);
}

// Prints the counts per kind and what no region closed.
static void ompt_tool_summary(void) {
  printf("counts: device_initialize=%d device_load=%d target_begin=%d target_end=%d "
         "data_op=%d submit=%d\n",
         tool_counts[0], tool_counts[1], tool_counts[2], tool_counts[3], tool_counts[4],
         tool_counts[5]);
  printf("bytes: to=%" PRIu64 " from=%" PRIu64 "\n", tool_bytes_to, tool_bytes_from);
  if (tool_nopen)
    TOOL_FAIL("%d regions not ended", tool_nopen);
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device,
                           ompt_data_t *data) {
  tool_set = (ompt_set_callback_t)lookup("ompt_set_callback");
#ifndef NO_DEVICE_INIT
  tool_set(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
#endif
  tool_set(ompt_callback_device_finalize, (ompt_callback_t)on_device_finalize);
  tool_set(ompt_callback_device_load, (ompt_callback_t)on_device_load);
  tool_register();
#ifdef WRONG_RETURN
  return 0;
#else
  return 1;
#endif
}

static void tool_finalize(ompt_data_t *data) {
#ifdef TOOL_FINALIZE_HOOK
  TOOL_FINALIZE_HOOK();
#endif
  ompt_tool_summary();
  printf("tool finalized: device_finalize=%d\n", tool_counts[6]);
  fflush(stdout);
}

#ifdef TOOL_LIBRARY
__attribute__((visibility("default")))
#endif
ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  return &result;
}
