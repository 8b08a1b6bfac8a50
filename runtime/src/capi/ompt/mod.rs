//! Spread's OMPT tool: what the runtime learns from libomp about the program's tasks and
//! synchronization points.
//!
//! libomp asks for a tool when it initializes (`ompt_start_tool`); Spread offers this one unless
//! another tool is around (one found after Spread in symbol order is passed on, and with
//! `OMP_TOOL_LIBRARIES` set Spread stands back so that libomp loads those: OMPT allows one tool
//! per process). It serves three features:
//!
//! - **Owned `nowait` constructs** (`runtime::nowait`): `task-create` marks each target task (and
//!   each task with `depend` clauses) with the task that created it, `dependences` and
//!   `task-schedule` tell which sibling constructs a task depends on when it starts, and
//!   `sync-region-wait` finishes Spread's constructs at each `taskwait`, `taskgroup` end and
//!   barrier.
//! - **Pinning** a host device's kernel threads (`SPREAD_HOST_DEVICE_CORES`, [`crate::sys::affinity`]):
//!   `parallel-begin` and `implicit-task` carry a pinned kernel's core set to the threads its
//!   regions fork.
//! - **Lazy `device(any)` coherence** (`SPREAD_COHERENCE=lazy`): at the end of a `taskwait`,
//!   `taskgroup` or barrier, instances' outputs come home.
//!
//! The synchronization points of a host device's kernel (its teams' barriers, on the kernel's own
//! threads) are not the program's: `parallel-begin` and `implicit-task` mark the regions a kernel
//! forks, and the tool ignores their synchronization.
//!
//! The tool is offered only to programs that need it (see `needed`): with any tool, libomp's
//! OMPT paths slow every barrier.
//!
//! Without the tool (`OMP_TOOL=disabled`, another tool loaded, a libomp without OMPT) `nowait`
//! constructs are polled through libomp's target tasks as with libomptarget, workers of pinned
//! kernels are not pinned, and lazy coherence needs `spread_any_flush()`.

use crate::capi::guard::guard;
use crate::sys::affinity::{current_mask, set_mask, CoreSet, KERNEL_SET, SAVED};
use crate::sys::ompt::{INNER, SYNC_SEEN, TOOL_STATE};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_uint, c_void};
pub(super) mod device_trace;
mod mux;
mod tasks;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use tasks::{dependences, group_of, task_create, task_schedule};
pub use tasks::{
    instance_predecessors, instance_task, next_task_is_instance, nowait_task, take_predecessors,
};

/// `ompt_data_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) union OmptData {
    value: u64,
    ptr: *mut c_void,
}

/// `ompt_start_tool_result_t`.
#[repr(C)]
pub struct StartToolResult {
    initialize: extern "C" fn(Lookup, c_int, *mut OmptData) -> c_int,
    finalize: extern "C" fn(*mut OmptData),
    tool_data: OmptData,
}

// SAFETY: the result is immutable after construction and its `tool_data` is never used; libomp
// only reads it.
unsafe impl Sync for StartToolResult {}

type Lookup = extern "C" fn(*const c_char) -> *const c_void;
type SetCallback = extern "C" fn(c_int, *const c_void) -> c_int;
type StartTool = extern "C" fn(c_uint, *const c_char) -> *const StartToolResult;
/// `ompt_get_task_info_t`.
type GetTaskInfo = extern "C" fn(
    c_int,
    *mut c_int,
    *mut *mut OmptData,
    *mut *mut c_void,
    *mut *mut OmptData,
    *mut c_int,
) -> c_int;

/// `ompt_get_task_memory_t`.
type GetTaskMemory = extern "C" fn(*mut *mut c_void, *mut usize, c_int) -> c_int;

const CALLBACK_PARALLEL_BEGIN: c_int = 3;
const CALLBACK_TASK_CREATE: c_int = 5;
const CALLBACK_TASK_SCHEDULE: c_int = 6;
const CALLBACK_IMPLICIT_TASK: c_int = 7;
const CALLBACK_DEPENDENCES: c_int = 18;
const CALLBACK_SYNC_REGION: c_int = 23;
const CALLBACK_SYNC_REGION_WAIT: c_int = 16;

/// `ompt_sync_region_t` values.
const SYNC_BARRIER: c_int = 1;
const SYNC_BARRIER_IMPLICIT: c_int = 2;
const SYNC_BARRIER_EXPLICIT: c_int = 3;
const SYNC_BARRIER_IMPLEMENTATION: c_int = 4;
const SYNC_TASKWAIT: c_int = 5;
const SYNC_TASKGROUP: c_int = 6;
const SYNC_BARRIER_IMPLICIT_WORKSHARE: c_int = 8;
const SYNC_BARRIER_IMPLICIT_PARALLEL: c_int = 9;

/// libomp's allocation of a target task, which the program imports if it has `nowait`
/// constructs (or `depend` clauses on target constructs).
const TARGET_TASK_ALLOC: &str = "__kmpc_omp_target_task_alloc";
/// The entry point of `nowait` `device(any)` instances (capi/any_exports.rs).
const ANY_ASYNC: &str = "__spread_any_async";

/// Low bit of a parallel region's tool data: the region belongs to a kernel or an instance
/// (its sync points are not the program's).
const REGION_INNER: u64 = 1;
/// Bits of an implicit task's tool data.
const TASK_PINNED: u64 = 1;
const TASK_INNER: u64 = 2;
const SCOPE_BEGIN: c_int = 1;
const SCOPE_END: c_int = 2;
/// `ompt_set_never` and worse: the callback will not be called.
const SET_NEVER: c_int = 1;

static TOOL: StartToolResult = StartToolResult {
    initialize: tool_initialize,
    finalize: tool_finalize,
    tool_data: OmptData { value: 0 },
};

/// The tool's callbacks see tasks and synchronization points: `nowait` constructs may be owned.
static OWNS_NOWAIT: AtomicBool = AtomicBool::new(false);
/// `SPREAD_COHERENCE=lazy`: `sync_region` brings `device(any)` outputs home.
static LAZY: AtomicBool = AtomicBool::new(false);
/// libomp's `ompt_get_task_info`, as an address (0: none).
static GET_TASK_INFO: AtomicUsize = AtomicUsize::new(0);
/// libomp's `ompt_get_task_memory` (0: not known), for owned constructs.
static GET_TASK_MEMORY: AtomicUsize = AtomicUsize::new(0);

/// Whether `device(any)` runs with lazy coherence, whose outputs the tool brings home at sync
/// points. (Read here, not from the runtime's settings: libomp starts its tool before the
/// runtime exists.)
fn lazy_coherence() -> bool {
    let v = std::env::var("SPREAD_COHERENCE").ok();
    crate::any::Coherence::parse(v.as_deref()) == Some(crate::any::Coherence::Lazy)
}

thread_local! {
    /// The tool data of the kernel's or instance's implicit task that ended last on this thread,
    /// until its region's barrier end (reported after it, with the same data) or the next
    /// implicit task's beginning.
    static INNER_TASK_ENDED: Cell<usize> = const { Cell::new(0) };
    /// The barriers of the program this thread waits in (it runs the team's tasks meanwhile),
    /// innermost last: their team's parallel data (0: not known).
    static BARRIERS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// The team of the innermost barrier the calling thread waits in (`Some(0)`: not known).
fn barrier_team() -> Option<usize> {
    BARRIERS.with(|b| b.borrow().last().copied())
}

fn inner() -> bool {
    INNER.with(Cell::get) > 0 || crate::any::in_instance()
}

/// libomp asks for an OMPT tool when it initializes. The program's tool comes first, as
/// libomp's own lookup order has it (its `ompt_start_tool`, else the libraries of
/// `OMP_TOOL_LIBRARIES`); where Spread's tool is needed too, both run through [`mux`].
/// (libomp calls this definition when no other comes first in symbol order, and for a program
/// that defines its own when `capi::init` pointed libomp's call here.)
#[no_mangle]
pub extern "C" fn ompt_start_tool(
    omp_version: c_uint,
    runtime_version: *const c_char,
) -> *const StartToolResult {
    guard("ompt ompt_start_tool", || {
        start_tool(omp_version, runtime_version)
    })
}

/// The body of `ompt_start_tool`, and where libomp's call goes when it was pointed here (Rust
/// code never names an exported function: see `symvers!` in capi/mod.rs).
extern "C" fn start_tool(
    omp_version: c_uint,
    runtime_version: *const c_char,
) -> *const StartToolResult {
    guard("ompt start_tool", || {
        // A program's tool that passes the call on (`dlsym(RTLD_NEXT, ...)`) may reach this
        // definition again: it then finds no further tool.
        if STARTING.swap(true, Ordering::AcqRel) {
            return std::ptr::null();
        }
        let tool = choose_tool(omp_version, runtime_version);
        STARTING.store(false, Ordering::Release);
        tool
    })
}

fn choose_tool(omp_version: c_uint, runtime_version: *const c_char) -> *const StartToolResult {
    let own = needed();
    let mut program = program_tool(omp_version, runtime_version);
    if program.is_null() && own {
        // libomp would load these only if no tool came first: Spread loads them itself.
        if let Some(list) = std::env::var("OMP_TOOL_LIBRARIES")
            .ok()
            .filter(|v| !v.trim().is_empty())
        {
            program = mux::load_libraries(&list, omp_version, runtime_version);
        }
    }
    match (program.is_null(), own) {
        (true, true) => &TOOL,
        (true, false) => std::ptr::null(),
        (false, false) => program,
        (false, true) => mux::start(program),
    }
}

/// Set while `ompt_start_tool` runs.
static STARTING: AtomicBool = AtomicBool::new(false);

/// The program's tool as its `ompt_start_tool` returns it (null: none): the first definition
/// in symbol order when it is not Spread's or libomp's (libomp's call was pointed here), else
/// the next definition after Spread's (a tool loaded after Spread, or libomp's weak one, which
/// looks further).
fn program_tool(omp_version: c_uint, runtime_version: *const c_char) -> *const StartToolResult {
    let spread = spread_object();
    let other = |a: &usize| crate::sys::dl::object_base(*a) != spread;
    let first = crate::sys::dl::global_symbol("ompt_start_tool").filter(other);
    let candidate = first.or_else(|| crate::sys::dl::next_symbol("ompt_start_tool"));
    let Some(addr) = candidate.filter(other) else {
        return std::ptr::null();
    };
    // SAFETY: a definition of `ompt_start_tool` other than this one: OpenMP 5's C signature,
    // which is the one written here.
    let next = unsafe { std::mem::transmute::<usize, StartTool>(addr) };
    next(omp_version, runtime_version)
}

/// Arranges, when Spread's runtime is loaded, for the tools that libomp will start; whether a
/// tool of the program's runs without Spread's (so `nowait` constructs are libomp's target
/// tasks). A tool the program defines itself (its `ompt_start_tool`) always wins libomp's
/// lookup: where Spread's tool is needed too, libomp's call is pointed at Spread's
/// `ompt_start_tool`, which starts both. `OMP_TOOL=disabled` starts none.
pub(super) fn arrange_at_load() -> bool {
    if std::env::var("OMP_TOOL").is_ok_and(|v| v.trim() == "disabled") {
        return false;
    }
    // (`needed` reads every loaded object's symbols: only where a tool of the program's exists.)
    if program_defines_tool() {
        if !needed() {
            return true;
        }
        let ours = start_tool as *const () as usize;
        return match crate::sys::dl::rebind_import("ompt_libomp_connect", "ompt_start_tool", ours) {
            Ok(_) => false,
            Err(e) => {
                eprintln!(
                    "Spread: the program's OMPT tool runs alone (Spread's tool could not join \
                     it: {e}); `nowait` constructs are libomp's target tasks"
                );
                true
            }
        };
    }
    env_set("OMP_TOOL_LIBRARIES") && !needed()
}

/// Whether the program defines `ompt_start_tool` itself: the first definition in symbol order
/// is neither Spread's nor libomp's own weak one.
fn program_defines_tool() -> bool {
    let Some(first) = crate::sys::dl::global_symbol("ompt_start_tool") else {
        return false;
    };
    let object = crate::sys::dl::object_base(first);
    let libomp =
        crate::sys::dl::global_symbol("ompt_libomp_connect").and_then(crate::sys::dl::object_base);
    object.is_some() && object != spread_object() && object != libomp
}

/// The load address of Spread's runtime.
fn spread_object() -> Option<usize> {
    crate::sys::dl::object_base(start_tool as *const () as usize)
}

/// Whether the program needs the tool. With any tool libomp runs its OMPT paths on every
/// parallel region, implicit task and barrier, callbacks or not, which costs barrier-heavy
/// kernels up to 40 % (HeCBench's asta on 2 cores: 4.9 s without a tool, 7.0 s with one that
/// registers nothing). So the tool runs only where it acts: the program creates target tasks
/// (`nowait` constructs, which Spread owns) or `nowait` `device(any)` instances, pins host
/// devices' kernel threads, or asks for lazy `device(any)` coherence.
fn needed() -> bool {
    lazy_coherence()
        || env_set("SPREAD_HOST_DEVICE_CORES")
        || crate::sys::dl::imported(&[TARGET_TASK_ALLOC, ANY_ASYNC])
}

/// Whether the environment variable `k` holds something other than blanks.
fn env_set(k: &str) -> bool {
    std::env::var(k).is_ok_and(|v| !v.trim().is_empty())
}

extern "C" fn tool_initialize(lookup: Lookup, _device: c_int, _data: *mut OmptData) -> c_int {
    guard("ompt tool_initialize", || {
        let set = lookup(c"ompt_set_callback".as_ptr());
        if set.is_null() {
            TOOL_STATE.store(2, Ordering::Release);
            return 0;
        }
        // SAFETY: `ompt_set_callback`'s C signature (omp-tools.h).
        let set = unsafe { std::mem::transmute::<*const c_void, SetCallback>(set) };
        let on = |which: c_int, f: *const c_void| set(which, f) > SET_NEVER;
        // Always: kernels' regions must be told apart from the program's wherever the tool acts.
        let marks = on(CALLBACK_PARALLEL_BEGIN, parallel_begin as *const c_void)
            & on(CALLBACK_IMPLICIT_TASK, implicit_task as *const c_void);
        if !marks {
            TOOL_STATE.store(2, Ordering::Release);
            return 0;
        }
        let lazy = lazy_coherence();
        LAZY.store(lazy, Ordering::Release);
        let get = lookup(c"ompt_get_task_info".as_ptr());
        let owns = crate::config::owns_nowait(|k| std::env::var(k).ok())
            && !get.is_null()
            && on(CALLBACK_TASK_CREATE, task_create as *const c_void)
            && on(CALLBACK_DEPENDENCES, dependences as *const c_void)
            && on(CALLBACK_TASK_SCHEDULE, task_schedule as *const c_void)
            && on(CALLBACK_SYNC_REGION_WAIT, sync_region_wait as *const c_void);
        if owns {
            GET_TASK_INFO.store(get as usize, Ordering::Release);
            let memory = lookup(c"ompt_get_task_memory".as_ptr());
            GET_TASK_MEMORY.store(memory as usize, Ordering::Release);
        }
        OWNS_NOWAIT.store(owns, Ordering::Release);
        // Lazy coherence brings outputs home there; owned constructs learn their `taskgroup`.
        if lazy || owns {
            let sync = on(CALLBACK_SYNC_REGION, sync_region as *const c_void);
            if lazy {
                SYNC_SEEN.store(sync, Ordering::Release);
            }
        }
        TOOL_STATE.store(1, Ordering::Release);
        1
    })
}

extern "C" fn tool_finalize(_data: *mut OmptData) {
    guard("ompt tool_finalize", || {
        OWNS_NOWAIT.store(false, Ordering::Release);
    })
}

/// `ompt_callback_sync_region_wait`, around the wait of a `taskwait`, the end of a `taskgroup`
/// or a barrier of the program:
///
/// - a barrier's wait begins: the owned constructs this thread started finish before it
///   arrives; the constructs of tasks it runs while it waits there are marked with the barrier's
///   team;
/// - a barrier's wait ends (every task of the team has run, so every marked construct has
///   started): each thread finishes the constructs marked with its team before it leaves, so
///   that none goes on before their device work is done;
/// - a `taskwait`'s or `taskgroup`'s wait ends (every child, or every descendant in the group,
///   has run and started its constructs): those constructs finish before the program goes on.
extern "C" fn sync_region_wait(
    kind: c_int,
    endpoint: c_int,
    parallel: *mut OmptData,
    task: *mut OmptData,
    _codeptr: *const c_void,
) {
    guard("ompt sync_region_wait", || {
        // (A kernel's region reports the end of its barrier on its worker threads after their
        // implicit task ended, when they are no longer inner: such an end only lowers the count, and
        // nothing is finished at a barrier's end.)
        if inner() {
            return;
        }
        let barrier = matches!(
            kind,
            SYNC_BARRIER
                | SYNC_BARRIER_IMPLICIT
                | SYNC_BARRIER_EXPLICIT
                | SYNC_BARRIER_IMPLEMENTATION
                | SYNC_BARRIER_IMPLICIT_WORKSHARE
                | SYNC_BARRIER_IMPLICIT_PARALLEL
        );
        // The team of the barrier whose wait ends here (see `BARRIERS`).
        let mut ended = None;
        if barrier {
            BARRIERS.with(|b| {
                let mut b = b.borrow_mut();
                match endpoint {
                    SCOPE_BEGIN => b.push(parallel as usize),
                    _ => ended = b.pop(),
                }
            });
        }
        let Some(rt) = crate::runtime::existing() else {
            return;
        };
        if !rt.nowait_any_owned() {
            return;
        }
        match (kind, endpoint) {
            (SYNC_TASKWAIT, SCOPE_END) => rt.nowait_at_taskwait(task as usize),
            (SYNC_TASKGROUP, SCOPE_END) => rt.nowait_at_taskgroup_end(group_of(task)),
            (_, SCOPE_BEGIN) if barrier => rt.nowait_at_barrier(),
            (_, SCOPE_END) if barrier => {
                if let Some(team) = ended.filter(|&t| t != 0) {
                    rt.nowait_at_barrier_end(team);
                }
            }
            _ => {}
        }
    })
}

/// `ompt_callback_parallel_begin`, on the thread that forks the region: a kernel's region is
/// marked, and a pinned kernel's region carries the kernel's core set to the threads that will
/// run it.
extern "C" fn parallel_begin(
    _task: *mut OmptData,
    _frame: *const c_void,
    parallel: *mut OmptData,
    _requested: c_uint,
    _flags: c_int,
    _codeptr: *const c_void,
) {
    guard("ompt parallel_begin", || {
        let set = KERNEL_SET.with(Cell::get);
        let mark = if inner() { REGION_INNER } else { 0 };
        if !parallel.is_null() {
            // SAFETY: libomp passes the new region's tool data, which nobody else writes (Spread is
            // the only tool). Unpinned regions get 0, so a reused record carries nothing stale. A
            // core set's address is aligned, so its low bit is free for the mark.
            unsafe { (*parallel).value = set as u64 | mark };
        }
    })
}

/// `ompt_callback_implicit_task`, on each thread of a region (and each team's initial thread of
/// a `teams` league) as it begins and ends its implicit task.
extern "C" fn implicit_task(
    endpoint: c_int,
    parallel: *mut OmptData,
    task: *mut OmptData,
    parallelism: c_uint,
    _index: c_uint,
    _flags: c_int,
) {
    guard("ompt implicit_task", || {
        if task.is_null() {
            return;
        }
        match endpoint {
            SCOPE_BEGIN => {
                let value = if parallel.is_null() {
                    0
                } else {
                    // SAFETY: at begin libomp passes the region's tool data, written by
                    // `parallel_begin` (or zero-initialised by libomp for regions forked before).
                    unsafe { (*parallel).value }
                };
                let set = (value & !REGION_INNER) as usize;
                let marked = value & REGION_INNER != 0;
                if marked {
                    INNER.with(|c| c.set(c.get() + 1));
                }
                let outer = KERNEL_SET.with(Cell::get);
                let mut pinned = false;
                if set != 0 && set != outer {
                    // SAFETY: a nonzero value is the address of a `CoreSet` of a host device, which
                    // lives as long as the process (see `CoreSet`).
                    let cores = unsafe { &*(set as *const CoreSet) };
                    if let Some(old) = current_mask() {
                        if set_mask(&cores.set) {
                            SAVED.with(|s| s.borrow_mut().push((old, outer)));
                            KERNEL_SET.with(|k| k.set(set));
                            pinned = true;
                        }
                    }
                }
                let bits =
                    if pinned { TASK_PINNED } else { 0 } | if marked { TASK_INNER } else { 0 };
                // A region begins: the barrier of one that ended before was reported already.
                INNER_TASK_ENDED.with(|c| c.set(0));
                // SAFETY: the implicit task's own tool data: marks what its end must undo.
                unsafe { (*task).value = bits };
            }
            SCOPE_END => {
                // SAFETY: the same implicit task's tool data, as written at its beginning.
                let bits = unsafe { (*task).value };
                if bits & TASK_PINNED != 0 {
                    if let Some((old, outer)) = SAVED.with(|s| s.borrow_mut().pop()) {
                        set_mask(&old);
                        KERNEL_SET.with(|k| k.set(outer));
                    }
                }
                if bits & TASK_INNER != 0 {
                    INNER.with(|c| c.set(c.get().saturating_sub(1)));
                }
                // libomp reports the end of the region's barrier after the implicit task's end, with
                // the same task data: `sync_region` must tell it from the program's. A region of one
                // thread (parallelism 1) has no barrier, and its task data is the enclosing implicit
                // task's (libomp swaps a serialized region's data into the same record): marked, the
                // program's next barrier was taken for the kernel's and its lazy outputs never came
                // home (task-sharing fuzzer F5: a host instance of one thread in a `for`).
                INNER_TASK_ENDED.with(|c| {
                    c.set(if bits & TASK_INNER != 0 && parallelism != 1 {
                        task as usize
                    } else {
                        0
                    })
                });
                // SAFETY: as above. Zero again: libomp may hand this data out again (a thread's own
                // task data serves `taskwait` with `depend`, whose check wants it empty).
                unsafe { (*task).value = 0 };
                if parallelism == 1 && bits & TASK_INNER == 0 {
                    serialized_region_end();
                }
            }
            _ => {}
        }
    })
}

/// The end of a parallel region of one thread (`num_threads(1)`, `OMP_NUM_THREADS=1`, `if(0)`,
/// a nested region without active levels): libomp runs no barrier there (and the implicit task
/// ends with parallelism 1 only then: a team's threads end theirs with 0), yet OpenMP's
/// implicit barrier completes the region's tasks. So the owned `nowait` constructs this thread
/// started finish here, and lazy `device(any)` outputs come home, as at a barrier. (Found by
/// scripts/spread-fuzz.py: such a region's `target nowait` copied back after the program had
/// read the data, and into a dead frame when the data was on the stack.)
fn serialized_region_end() {
    if inner() {
        return;
    }
    if OWNS_NOWAIT.load(Ordering::Acquire) {
        if let Some(rt) = crate::runtime::existing() {
            if rt.nowait_any_owned() {
                rt.nowait_at_barrier();
            }
        }
    }
    if LAZY.load(Ordering::Relaxed) {
        crate::any::flush_at_sync_point();
    }
}

/// `ompt_callback_sync_region`: a `taskgroup` opens or closes (tasks created in it belong to it,
/// and so do their constructs); at the end of a `taskwait`, `taskgroup` or barrier of the
/// program (not of a kernel or an instance), lazy `device(any)` outputs come home.
extern "C" fn sync_region(
    kind: c_int,
    endpoint: c_int,
    parallel: *mut OmptData,
    task: *mut OmptData,
    _codeptr: *const c_void,
) {
    guard("ompt sync_region", || {
        if kind == SYNC_TASKGROUP && OWNS_NOWAIT.load(Ordering::Acquire) {
            tasks::taskgroup(endpoint == SCOPE_BEGIN, task);
        }
        let implicit_barrier = endpoint == SCOPE_END
            && matches!(
                kind,
                SYNC_BARRIER_IMPLICIT
                    | SYNC_BARRIER_IMPLICIT_PARALLEL
                    | SYNC_BARRIER_IMPLICIT_WORKSHARE
            );
        // Consumed before anything returns: a mark left behind would take a later barrier of the
        // program for a kernel's (the lazy outputs of a parallel region then never came home).
        let inner_tail = implicit_barrier
            && !task.is_null()
            && INNER_TASK_ENDED.with(|c| c.replace(0)) == task as usize;
        if inner_tail {
            return; // the barrier of a kernel's or an instance's region, reported after its task
        }
        if !LAZY.load(Ordering::Relaxed)
            || endpoint != SCOPE_END
            || !(implicit_barrier
                || matches!(kind, SYNC_BARRIER_EXPLICIT | SYNC_TASKWAIT | SYNC_TASKGROUP))
            || inner()
        {
            return;
        }

        if parallel.is_null() {
            // A worker reports the end of a region's barrier late, with no region, when libomp wakes
            // it for its next region (it is then a worker of that one: thread number 1 or more) or
            // at shutdown: the region's primary thread, which reports it at the region's end (number
            // 0 of the ending team), brought the outputs home already. Flushing on the worker
            // blocked a host device's kernel whose region was waking it: the flush waited for a
            // range that a thread bringing it home held while it waited for that kernel
            // (task-sharing fuzzer, F7: a hang in about a third of the runs).
            if (kind == SYNC_BARRIER_IMPLICIT_PARALLEL || kind == SYNC_BARRIER_IMPLICIT)
                && crate::sys::kmp::thread_num_unless_exiting() != Some(0)
            {
                return;
            }
        } else {
            // SAFETY: the region's tool data, written by `parallel_begin` (or zero).
            if unsafe { (*parallel).value } & REGION_INNER != 0 {
                return;
            }
        }
        crate::any::flush_at_sync_point();
    })
}

// libomp calls `ompt_start_tool@VERSION` (its own, weak, definition's version): Spread's
// definition carries the same version so that it is the one found when Spread comes first in
// lookup order (see capi/memory.rs for the same arrangement).
symvers!("capi/ompt/mod");
