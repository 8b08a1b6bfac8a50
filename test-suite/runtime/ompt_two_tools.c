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
// RUN: %clang-offload -O2 -I %S/../Inputs %s -o %t
// RUN: env SPREAD_PROFILE=summary %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
// RUN: env SPREAD_PROFILE=summary %preload-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
// RUN: env SPREAD_PROFILE=summary OMP_NUM_THREADS=1 %libpath-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK,OWNED
// RUN: %stock-run %t 2>&1 | FileCheck %s --implicit-check-not=FAIL --check-prefixes=CHECK
//
// The same tool as a library of OMP_TOOL_LIBRARIES, with the program carrying none:
// RUN: %clang-plain -fopenmp -O2 -shared -fPIC -DTOOL_LIBRARY -I %S/../Inputs %s -o %t.tool.so
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
#include "ompt_words_tool.h"

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
  words_register(lookup);
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  set(ompt_callback_target_emi, (ompt_callback_t)on_target_emi);
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
