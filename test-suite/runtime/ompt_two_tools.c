// Spread's OMPT tool and the program's run together. A program with `nowait` constructs needs
// Spread's tool (it owns their completion); a tool of the program's own (its ompt_start_tool,
// or a library of OMP_TOOL_LIBRARIES) no longer pushes it out: both receive what they
// registered for (docs/runtime.md, "nowait and the execution model", 7.).
//
// The tool here keeps a tagged word of its own with every parallel region, implicit task and
// explicit task (OMPT's ompt_data_t) and checks, at every later event and inquiry, that its word
// is still what it wrote: Spread's tool writes its own marks into the same words, so without a
// word of each tool's own one of them reads the other's. It also checks that a target region's
// task data is the word `ompt_get_task_info` gives for the encountering task. Spread's profile
// shows that its tool owned the `nowait` constructs as it does with no tool at all (the 8 on the
// initial thread; the 8 deferred with `depend` in the parallel region are libomp's to order,
// owned only under the pass), and the results are checked against the serial loops. On stock
// libomptarget the same program runs with its tool alone.
//
// RUN: %clang-offload -O2 %s -o %t
// RUN: env SPREAD_PROFILE=summary %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
// RUN: env SPREAD_PROFILE=summary %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
// RUN: env SPREAD_PROFILE=summary OMP_NUM_THREADS=1 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
// RUN: %stock-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK
//
// The same tool as a library of OMP_TOOL_LIBRARIES, with the program carrying none:
// RUN: %clang-plain -fopenmp -O2 -shared -fPIC -DTOOL_LIBRARY %s -o %t.tool.so
// RUN: %clang-offload -O2 -DNO_TOOL %s -o %t.notool
// RUN: env SPREAD_PROFILE=summary %libpath-run %t.notool 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=OFF,OWNED
// RUN: env SPREAD_PROFILE=summary OMP_TOOL_LIBRARIES=%t.tool.so %libpath-run %t.notool 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
// RUN: env SPREAD_PROFILE=summary OMP_TOOL_LIBRARIES=%t.tool.so %preload-run %t.notool 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
//
// With OMP_TOOL=disabled neither tool runs and the results are the same:
// RUN: env OMP_TOOL=disabled %libpath-run %t 2>&1 | FileCheck %s --check-prefix=OFF
//
// CHECK: results: 0 wrong
// CHECK-DAG: tool: {{[1-9][0-9]*}} parallel regions, {{[1-9][0-9]*}} implicit tasks, {{[1-9][0-9]*}} explicit tasks, {{[1-9][0-9]*}} target regions, 0 bad words
// OFF: results: 0 wrong
// OFF-NOT: tool:
// (The tool's summary comes at libomp's exit, Spread's profile at the runtime's: either first.)
// OWNED-DAG: spread: nowait constructs: 8 owned by Spread, 8 polled by libomp

#include <omp-tools.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef NO_TOOL
#define TAG_PARALLEL 0xA5u
#define TAG_IMPLICIT 0x5Au
#define TAG_EXPLICIT 0x3Cu

static ompt_get_task_info_t get_task_info;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_callback_t get_callback;
static uint64_t next_id = 1;
static long n_parallel, n_implicit, n_explicit, n_target, n_bad;

static uint64_t fresh(unsigned tag) {
  return (__atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED) << 8) | tag;
}

static void bad(const char *what, const ompt_data_t *d) {
  if (__atomic_fetch_add(&n_bad, 1, __ATOMIC_RELAXED) < 10)
    printf("FAIL: %s: word %p holds %#llx\n", what, (void *)d,
           d ? (unsigned long long)d->value : 0ull);
}

// The word must hold one of this tool's tags (a null word is allowed where OMPT allows it).
static void check(const char *what, const ompt_data_t *d, unsigned tag1, unsigned tag2, int null_ok) {
  if (!d) {
    if (!null_ok)
      bad(what, d);
    return;
  }
  unsigned tag = d->value & 0xff;
  if (d->value >> 8 == 0 || d->value >> 8 >= __atomic_load_n(&next_id, __ATOMIC_RELAXED) ||
      (tag != tag1 && tag != tag2))
    bad(what, d);
}

static void check_task(const char *what, const ompt_data_t *d, int null_ok) {
  check(what, d, TAG_IMPLICIT, TAG_EXPLICIT, null_ok);
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *code) {
  check_task("parallel_begin task", task, 0);
  parallel->value = fresh(TAG_PARALLEL);
  __atomic_fetch_add(&n_parallel, 1, __ATOMIC_RELAXED);
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *code) {
  check("parallel_end", parallel, TAG_PARALLEL, TAG_PARALLEL, 0);
  check_task("parallel_end task", task, 0);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                             ompt_data_t *task, unsigned int size, unsigned int index, int flags) {
  if (endpoint == ompt_scope_begin) {
    if (flags & ompt_task_initial) {
      if (parallel && parallel->value == 0)
        parallel->value = fresh(TAG_PARALLEL);
    } else {
      check("implicit_task begin parallel", parallel, TAG_PARALLEL, TAG_PARALLEL, 0);
    }
    task->value = fresh(TAG_IMPLICIT);
    __atomic_fetch_add(&n_implicit, 1, __ATOMIC_RELAXED);
  } else {
    check("implicit_task end", task, TAG_IMPLICIT, TAG_IMPLICIT, 0);
  }
}

static void on_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *new_task,
                           int flags, int has_dependences, const void *code) {
  check_task("task_create parent", task, 1);
  new_task->value = fresh(TAG_EXPLICIT);
  __atomic_fetch_add(&n_explicit, 1, __ATOMIC_RELAXED);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next) {
  check_task("task_schedule prior", prior, 1);
  check_task("task_schedule next", next, 1);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel, ompt_data_t *task, const void *code) {
  check("sync_region parallel", parallel, TAG_PARALLEL, TAG_PARALLEL, 1);
  check_task("sync_region task", task, 1);
}

static void on_work(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                    ompt_data_t *task, uint64_t count, const void *code) {
  check("work parallel", parallel, TAG_PARALLEL, TAG_PARALLEL, 0);
  check_task("work task", task, 0);
  // The inquiries give the same words as the callbacks.
  ompt_data_t *p = NULL, *t = NULL;
  int flags = 0;
  if (get_parallel_info(0, &p, NULL) == 2 && p != parallel)
    bad("ompt_get_parallel_info", p);
  if (get_task_info(0, &flags, &t, NULL, NULL, NULL) == 2 && t != task)
    bad("ompt_get_task_info", t);
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device,
                          ompt_data_t *task, ompt_data_t *target_task, ompt_data_t *target,
                          const void *code) {
  if (endpoint == ompt_scope_begin && __atomic_fetch_add(&n_target, 1, __ATOMIC_RELAXED) == 0) {
    ompt_callback_t got = NULL;
    if (!get_callback || get_callback(ompt_callback_work, &got) != 1 ||
        got != (ompt_callback_t)on_work)
      printf("FAIL: ompt_get_callback does not give back the tool's callback\n");
  }
  // A region begins in the task that encounters it: the calling thread's current task, or,
  // for a `nowait` construct whose completion Spread owns (its target task completes at once),
  // the task that created that target task (docs/tools.md).
  ompt_data_t *t0 = NULL, *t1 = NULL;
  int flags = 0;
  if (endpoint == ompt_scope_begin && get_task_info(0, &flags, &t0, NULL, NULL, NULL) == 2 &&
      t0 != task && (get_task_info(1, &flags, &t1, NULL, NULL, NULL) != 2 || t1 != task))
    bad("target task data", task);
  check_task("target task", task, 0);
}

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
  set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
  set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region);
  set(ompt_callback_work, (ompt_callback_t)on_work);
  set(ompt_callback_target_emi, (ompt_callback_t)on_target_emi);
  get_callback = (ompt_get_callback_t)lookup("ompt_get_callback");
  return 1;
}

static void tool_finalize(ompt_data_t *data) {
  printf("tool: %ld parallel regions, %ld implicit tasks, %ld explicit tasks, %ld target "
         "regions, %ld bad words\n",
         n_parallel, n_implicit, n_explicit, n_target, n_bad);
  fflush(stdout);
}

__attribute__((visibility("default"))) ompt_start_tool_result_t *
ompt_start_tool(unsigned int version, const char *runtime) {
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  return &result;
}
#endif

#ifndef TOOL_LIBRARY
#define N 4096
#define BLOCKS 8

int main(void) {
  static double a[BLOCKS][N], b[N];
  int wrong = 0;
  // `nowait` constructs on the initial thread, then a taskwait.
  for (int k = 0; k < BLOCKS; k++) {
    double *p = a[k];
#pragma omp target teams distribute parallel for map(tofrom : p[0 : N]) device(k % 2) nowait
    for (int i = 0; i < N; i++)
      p[i] = k * N + i;
  }
#pragma omp taskwait
  // Inside a parallel region, with tasks and dependences, in a taskgroup.
#pragma omp parallel num_threads(2)
#pragma omp single
  {
#pragma omp taskgroup
    for (int k = 0; k < BLOCKS; k++) {
      double *p = a[k];
#pragma omp target teams distribute parallel for map(tofrom : p[0 : N]) nowait depend(inout : p[0])
      for (int i = 0; i < N; i++)
        p[i] += 1;
#pragma omp task depend(inout : p[0])
      p[0] += 1;
    }
  }
  // A worksharing loop and an explicit barrier.
#pragma omp parallel for num_threads(2)
  for (int i = 0; i < N; i++)
    b[i] = 2.0 * i;
  for (int k = 0; k < BLOCKS; k++)
    for (int i = 0; i < N; i++)
      wrong += a[k][i] != k * N + i + 1 + (i == 0);
  for (int i = 0; i < N; i++)
    wrong += b[i] != 2.0 * i;
  printf("results: %d wrong\n", wrong);
  fflush(stdout);
  return wrong != 0;
}
#endif
