// An OMPT tool's words for tests (test-suite/runtime/ompt_two_tools.c, ompt_stress.c): it keeps
// a tagged word of its own with every parallel region, implicit task and explicit task
// (ompt_data_t) and checks at every later event and inquiry that its word still holds one of its
// tags. Where two tools share the words (Spread's and the program's), one reads the other's
// values. Failures print "FAIL:" lines (the first 10) and count in n_bad.
//
// words_register(lookup) registers the callbacks; check_task(what, task, null_ok) checks a task
// word another callback receives. The counts are n_parallel, n_implicit, n_explicit and n_bad.
#include <omp-tools.h>
#include <stdint.h>
#include <stdio.h>

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

static void words_register(ompt_function_lookup_t lookup) {
  ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  get_callback = (ompt_get_callback_t)lookup("ompt_get_callback");
  set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
  set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
  set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
  set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region);
  set(ompt_callback_work, (ompt_callback_t)on_work);
}
