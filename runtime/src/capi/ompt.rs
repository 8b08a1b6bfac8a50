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

use crate::runtime::nowait::{Dep, Group, Predecessors, TaskFacts};
use crate::sys::affinity::{current_mask, set_mask, CoreSet, KERNEL_SET, SAVED};
use crate::sys::ompt::{INNER, SYNC_SEEN, TOOL_STATE};
use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// `ompt_data_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) union OmptData {
    value: u64,
    ptr: *mut c_void,
}

/// `ompt_dependence_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct OmptDependence {
    variable: OmptData,
    dependence_type: c_int,
}

impl Default for OmptDependence {
    fn default() -> Self {
        OmptDependence {
            variable: OmptData { value: 0 },
            dependence_type: 0,
        }
    }
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

/// `ompt_task_status_t` values after which a task's body never runs again.
const TASK_COMPLETE: c_int = 1;
const TASK_CANCEL: c_int = 3;
const TASK_DETACH: c_int = 4;
/// `ompt_taskwait_complete`: the wait of a `taskwait depend` (its pseudo-task) is over.
const TASKWAIT_COMPLETE: c_int = 8;

/// `ompt_task_flag_t` values.
const TASK_EXPLICIT: c_int = 0x04;
const TASK_TARGET: c_int = 0x08;
const TASK_TASKWAIT: c_int = 0x10;
const TASK_UNDEFERRED: c_int = 0x0800_0000;

/// libomp's allocation of a target task, which the program imports if it has `nowait`
/// constructs (or `depend` clauses on target constructs).
const TARGET_TASK_ALLOC: &str = "__kmpc_omp_target_task_alloc";
/// The entry point of `nowait` `device(any)` instances (capi/any_exports.rs).
const ANY_ASYNC: &str = "__spread_any_async";

/// `ompt_dependence_type_in`; every other type writes.
const DEPENDENCE_IN: c_int = 1;
/// `ompt_dependence_type_out_all_memory` and `..._inout_all_memory`: every item.
const DEPENDENCE_ALL_MEMORY: [c_int; 2] = [34, 35];

/// Low bit of a parallel region's tool data: the region belongs to a kernel or an instance
/// (its sync points are not the program's).
const REGION_INNER: u64 = 1;
/// Bits of an implicit task's tool data.
const TASK_PINNED: u64 = 1;
const TASK_INNER: u64 = 2;
/// The low bits of an explicit task's tool data, whose other bits are the address of its
/// [`TaskRecord`] (an implicit task's holds `TASK_PINNED` and `TASK_INNER` only).
const RECORD_TAG: u64 = 4;
const TAG_BITS: u64 = 7;

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

/// Whether `device(any)` runs with lazy coherence, whose outputs the tool brings home at sync
/// points. (Read here, not from the runtime's settings: libomp starts its tool before the
/// runtime exists.)
fn lazy_coherence() -> bool {
    let v = std::env::var("SPREAD_COHERENCE").ok();
    crate::any::Coherence::parse(v.as_deref()) == Some(crate::any::Coherence::Lazy)
}

thread_local! {
    /// The implicit task that just ended was a kernel's or an instance's: libomp reports the end
    /// of its region's barrier after the task's end, with no region data.
    static LEFT_INNER: Cell<bool> = const { Cell::new(false) };
    /// The target task created next on this thread starts its construct through Spread (the
    /// pass said so: [`__spread_offloading_task`]).
    static NEXT_OFFLOADS: Cell<bool> = const { Cell::new(false) };
    /// The `taskgroup` regions open on this thread, innermost last, with the tool data address
    /// of the task that opened each.
    static OPEN_GROUPS: RefCell<Vec<(usize, Arc<Group>)>> = const { RefCell::new(Vec::new()) };
    /// The target task this thread runs (its tool data's address) and the owned constructs it
    /// depends on, which its construct orders itself after ([`take_predecessors`]).
    static PREDECESSORS: RefCell<(usize, Predecessors)> =
        RefCell::new((0, Predecessors::default()));
    /// The barriers of the program this thread waits in (it runs the team's tasks meanwhile),
    /// innermost last: their team's parallel data (0: not known).
    static BARRIERS: RefCell<Vec<usize>> = const { RefCell::new(Vec::new()) };
}

/// What the tool keeps about an explicit task from its creation to its end (its tool data
/// points at it; [`task_schedule`] frees it when the task ends).
struct TaskRecord {
    /// The tool data address of the task that created it: a `taskwait` there waits for it.
    parent: usize,
    /// A target task.
    target: bool,
    /// A target task whose body starts its construct through Spread, never a host fallback of
    /// its own (an `if` clause's): its construct may order itself after the constructs it
    /// depends on on the device. Marked by the pass ([`__spread_offloading_task`]).
    offloading: bool,
    /// Deferred in a task team: its `depend` items are looked at when it starts, not when it
    /// is created.
    deferred: bool,
    /// Its `depend` items, set once (by `dependences`) before libomp publishes the task.
    deps: std::sync::OnceLock<Vec<Dep>>,
    /// Whether it has started (its items looked at).
    started: AtomicBool,
    /// The innermost `taskgroup` it was created in.
    group: Option<Arc<Group>>,
}

/// The record an explicit task's tool data points at.
///
/// # Safety
/// `data` is libomp's tool data of a task that has not ended (its record is alive).
unsafe fn record<'a>(data: *mut OmptData) -> Option<&'a TaskRecord> {
    if data.is_null() {
        return None;
    }
    // SAFETY: the caller's; `task_create` writes a record's address tagged with RECORD_TAG, and
    // other tool data never carries that tag.
    let value = unsafe { (*data).value };
    if value & TAG_BITS != RECORD_TAG || value < 4096 {
        return None;
    }
    // SAFETY: a live record (the caller's promise), boxed by `task_create`.
    Some(unsafe { &*((value & !TAG_BITS) as *const TaskRecord) })
}

/// Frees the record of a task that has ended.
///
/// # Safety
/// `data` is the tool data of a task whose body has ended and whose record nobody reads any more.
unsafe fn free_record(data: *mut OmptData) {
    // SAFETY: the caller's.
    if unsafe { record(data) }.is_none() {
        return;
    }
    // SAFETY: checked above: a record boxed by `task_create`, owned by this tool data, which is
    // cleared so that it is freed once.
    unsafe {
        let value = (*data).value;
        (*data).value = 0;
        drop(Box::from_raw((value & !TAG_BITS) as *mut TaskRecord));
    }
}

/// The innermost `taskgroup` of the task whose tool data is at `task`: one it opened on this
/// thread, else the one it was created in.
fn group_of(task: *mut OmptData) -> Option<Arc<Group>> {
    let open = OPEN_GROUPS.with(|g| {
        g.borrow()
            .iter()
            .rev()
            .find(|(t, _)| *t == task as usize)
            .map(|(_, g)| g.clone())
    });
    // SAFETY: the task runs on this thread (it creates a task or starts a construct), so its
    // record is alive.
    open.or_else(|| unsafe { record(task) }.and_then(|r| r.group.clone()))
}

/// Marks the target task the calling thread creates next as one whose body starts its
/// construct through Spread (called by code the pass adds before an offloading target task's
/// allocation; see `TaskRecord::offloading`).
#[no_mangle]
pub extern "C" fn __spread_offloading_task() {
    NEXT_OFFLOADS.with(|n| n.set(true));
}

fn inner() -> bool {
    INNER.with(Cell::get) > 0 || crate::any::in_instance()
}

/// The facts an owned `nowait` construct needs about the target task the calling thread is
/// running (`runtime::nowait`): `None` when Spread cannot own it (the tool does not run, the
/// thread waits at a barrier whose team is not known, the task is not a target task, or its
/// `depend` clauses are not known here).
pub fn nowait_task() -> Option<TaskFacts> {
    current_task(true)
}

/// The same facts about the explicit task the calling thread is running, target task or not (a
/// `device(any)` instance, whose `target nowait` Spread owns in the instance's name).
pub fn instance_task() -> Option<TaskFacts> {
    current_task(false)
}

/// The flags and tool data of the task the calling thread runs (`ompt_get_task_info`).
fn task_info() -> Option<(c_int, *mut OmptData)> {
    let get = GET_TASK_INFO.load(Ordering::Acquire);
    if get == 0 {
        return None;
    }
    // SAFETY: the address of libomp's `ompt_get_task_info`, whose C signature (omp-tools.h) is
    // `GetTaskInfo`'s.
    let get = unsafe { std::mem::transmute::<usize, GetTaskInfo>(get) };
    let mut flags: c_int = 0;
    let mut data: *mut OmptData = std::ptr::null_mut();
    let found = get(
        0,
        &mut flags,
        &mut data,
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    (found != 0 && !data.is_null()).then_some((flags, data))
}

/// The address of the tool data of the task the calling thread runs (0: not known).
fn current_task_data() -> usize {
    task_info().map_or(0, |(_, d)| d as usize)
}

fn current_task(target: bool) -> Option<TaskFacts> {
    if !OWNS_NOWAIT.load(Ordering::Acquire) {
        return None;
    }
    let barrier = BARRIERS.with(|b| b.borrow().last().copied());
    if barrier == Some(0) {
        return None;
    }
    let (flags, data) = task_info()?;
    if target && flags & TASK_TARGET == 0 {
        return None;
    }
    if flags & (TASK_TARGET | TASK_EXPLICIT) == 0 {
        return None; // an implicit or initial task: nobody created it
    }
    // SAFETY: the calling thread runs that task: its record is alive.
    let rec = unsafe { record(data) }?;
    if target && !rec.target {
        return None;
    }
    let deps = rec.deps.get().cloned().unwrap_or_default();
    if rec.deferred && rec.target && !rec.offloading && !deps.is_empty() {
        // libomp orders it with its siblings (its body may be an `if` clause's host fallback,
        // which must not run before the constructs it depends on are finished): polled.
        return None;
    }
    Some(TaskFacts {
        parent: rec.parent,
        deps,
        barrier,
        group: group_of(data),
    })
}

/// libomp asks for an OMPT tool when it initializes: Spread offers its own unless another tool
/// is around (see the module's docs).
#[no_mangle]
pub extern "C" fn ompt_start_tool(
    omp_version: c_uint,
    runtime_version: *const c_char,
) -> *const StartToolResult {
    let next = crate::sys::dl::next_symbol("ompt_start_tool")
        .filter(|&a| a != ompt_start_tool as *const () as usize);
    if let Some(addr) = next {
        // SAFETY: a definition of `ompt_start_tool` later in symbol order: OpenMP 5's C
        // signature, which is the one written here.
        let next = unsafe { std::mem::transmute::<usize, StartTool>(addr) };
        let other = next(omp_version, runtime_version);
        if !other.is_null() {
            return other;
        }
    }
    if env_set("OMP_TOOL_LIBRARIES") || !needed() {
        std::ptr::null()
    } else {
        &TOOL
    }
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
}

extern "C" fn tool_finalize(_data: *mut OmptData) {
    OWNS_NOWAIT.store(false, Ordering::Release);
}

/// `ompt_callback_task_create`: every explicit task gets its [`TaskRecord`]: the task that
/// created it (a target task's construct, or a `device(any)` instance's, belongs to that task's
/// `taskwait`), its `taskgroup`, whether it is a target task, whether the pass marked it
/// offloading, and whether libomp defers it in a task team (then its `depend` clauses are looked
/// at when it starts, not now).
extern "C" fn task_create(
    encountering: *mut OmptData,
    _frame: *const c_void,
    new_task: *mut OmptData,
    flags: c_int,
    has_dependences: c_int,
    _codeptr: *const c_void,
) {
    if new_task.is_null() || encountering.is_null() {
        return;
    }
    let target = flags & TASK_TARGET != 0;
    let rec = TaskRecord {
        parent: encountering as usize,
        target,
        offloading: target && NEXT_OFFLOADS.with(|n| n.replace(false)),
        deferred: has_dependences != 0
            && flags & (TASK_UNDEFERRED | TASK_TASKWAIT) == 0
            && crate::sys::kmp::num_threads() > 1,
        deps: std::sync::OnceLock::new(),
        started: AtomicBool::new(false),
        group: group_of(encountering),
    };
    let addr = Box::into_raw(Box::new(rec)) as u64;
    // SAFETY: libomp passes the new task's tool data, which only this tool writes; a boxed
    // record is aligned to 8, so the tag's bits are free.
    unsafe { (*new_task).value = addr | RECORD_TAG };
}

/// `ompt_callback_dependences`, when a task with `depend` clauses is created (and for a
/// `taskwait depend`). A task that runs at once (outside a task team, undeferred, the wait of a
/// `taskwait depend`) first lets the owned constructs it depends on finish; a deferred one keeps
/// its items until it starts ([`task_schedule`]): waiting here would hold up the thread that
/// creates the team's tasks. A target task's items are kept for its construct.
extern "C" fn dependences(task: *mut OmptData, deps: *const OmptDependence, n: c_int) {
    if deps.is_null() || n <= 0 {
        return;
    }
    // SAFETY: the task is being created on this thread: its record is alive.
    let Some(rec) = (unsafe { record(task) }) else {
        return;
    };
    // SAFETY: libomp passes its `ompt_dependence_t` array of `n` entries (non-null, checked above),
    // alive for the duration of the callback.
    let deps = unsafe { crate::sys::mem::array(deps, usize::try_from(n).unwrap_or(0)) };
    let items: Vec<Dep> = deps
        .into_iter()
        .map(|d| {
            if DEPENDENCE_ALL_MEMORY.contains(&d.dependence_type) {
                return Dep::ALL_MEMORY;
            }
            Dep {
                // SAFETY: libomp fills `variable` with the item's address (`ptr`).
                addr: unsafe { d.variable.ptr } as usize,
                out: d.dependence_type != DEPENDENCE_IN,
            }
        })
        .collect();
    if !rec.deferred {
        rec.started.store(true, Ordering::Relaxed);
        wait_for_predecessors(rec.parent, &items);
    }
    // (Set once: libomp reports a task's dependences once, before it publishes the task.)
    let _ = rec.deps.set(items);
}

/// A task with `depend` items `deps`, created by `parent`, starts on this thread: the owned
/// sibling constructs it depends on finish first.
fn wait_for_predecessors(parent: usize, deps: &[Dep]) {
    if let Some(rt) = crate::runtime::existing() {
        if rt.nowait_any_owned() {
            rt.nowait_before_dependent(parent, deps);
        }
    }
}

/// `ompt_callback_task_schedule`: a deferred task with `depend` clauses starts, or a task ends.
///
/// libomp released a starting task once its predecessors' tasks completed, but an owned
/// construct's task completes before its device work does: an offloading target task's
/// construct orders itself after that work on the device ([`take_predecessors`]); any other
/// task waits for it here. An ending task's record is freed.
extern "C" fn task_schedule(prior: *mut OmptData, status: c_int, next: *mut OmptData) {
    if status == TASKWAIT_COMPLETE {
        // libomp waited for the tasks a `taskwait depend` depends on, and they have started
        // their constructs (the sibling tasks may have been deferred when it began): their
        // device work is waited for now.
        // SAFETY: the pseudo-task's record lives until it is freed here.
        if let Some(rec) = unsafe { record(prior) } {
            if let Some(deps) = rec.deps.get() {
                wait_for_predecessors(rec.parent, deps);
            }
        }
        // SAFETY: nothing uses the pseudo-task after its wait.
        unsafe { free_record(prior) };
        return;
    }
    if matches!(status, TASK_COMPLETE | TASK_CANCEL | TASK_DETACH) && !prior.is_null() {
        // An offloading target task that ended without its construct taking its predecessors
        // (no construct ran): they finish now.
        let left = PREDECESSORS.with(|p| {
            let mut p = p.borrow_mut();
            (p.0 == prior as usize).then(|| std::mem::take(&mut *p).1)
        });
        if let (Some(left), Some(rt)) = (left, crate::runtime::existing()) {
            rt.nowait_finish_predecessors(left);
        }
        // SAFETY: the task's body has ended: nothing reads its record any more (its children
        // copied what they need, its constructs hold only its address).
        unsafe { free_record(prior) };
    }
    // SAFETY: the task about to run on this thread: its record is alive.
    let Some(rec) = (unsafe { record(next) }) else {
        return;
    };
    if !rec.deferred || rec.started.swap(true, Ordering::Relaxed) {
        return; // looked at when it was created, or resumed after a task switch
    }
    let Some(deps) = rec.deps.get().filter(|d| !d.is_empty()) else {
        return;
    };
    if !(rec.target && rec.offloading) {
        return wait_for_predecessors(rec.parent, deps);
    }
    if let Some(rt) = crate::runtime::existing() {
        if rt.nowait_any_owned() {
            let preds = rt.nowait_predecessors(rec.parent, deps);
            PREDECESSORS.with(|p| *p.borrow_mut() = (next as usize, preds));
        }
    }
}

/// The owned constructs the target task this thread runs depends on (see [`task_schedule`]),
/// taken by its construct: it orders itself after them, or finishes them first.
pub fn take_predecessors() -> Predecessors {
    PREDECESSORS.with(|p| {
        let mut p = p.borrow_mut();
        // (Checked first: most constructs have none, and asking libomp costs a call.)
        if p.0 != 0 && p.0 == current_task_data() {
            std::mem::take(&mut *p).1
        } else {
            Predecessors::default()
        }
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
    let set = KERNEL_SET.with(Cell::get);
    let mark = if inner() { REGION_INNER } else { 0 };
    if !parallel.is_null() {
        // SAFETY: libomp passes the new region's tool data, which nobody else writes (Spread is
        // the only tool). Unpinned regions get 0, so a reused record carries nothing stale. A
        // core set's address is aligned, so its low bit is free for the mark.
        unsafe { (*parallel).value = set as u64 | mark };
    }
}

/// `ompt_callback_implicit_task`, on each thread of a region (and each team's initial thread of
/// a `teams` league) as it begins and ends its implicit task.
extern "C" fn implicit_task(
    endpoint: c_int,
    parallel: *mut OmptData,
    task: *mut OmptData,
    _parallelism: c_uint,
    _index: c_uint,
    _flags: c_int,
) {
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
            LEFT_INNER.with(|c| c.set(false));
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
            let bits = if pinned { TASK_PINNED } else { 0 } | if marked { TASK_INNER } else { 0 };
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
            LEFT_INNER.with(|c| c.set(bits & TASK_INNER != 0));
            // SAFETY: as above.
            unsafe { (*task).value = 0 };
        }
        _ => {}
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
    if kind == SYNC_TASKGROUP && OWNS_NOWAIT.load(Ordering::Acquire) {
        OPEN_GROUPS.with(|g| {
            let mut g = g.borrow_mut();
            if endpoint == SCOPE_BEGIN {
                let outer = g
                    .iter()
                    .rev()
                    .find(|(t, _)| *t == task as usize)
                    .map(|(_, x)| x.clone())
                    // SAFETY: the task opening the group runs on this thread: its record (if
                    // it is explicit) is alive.
                    .or_else(|| unsafe { record(task) }.and_then(|r| r.group.clone()));
                g.push((task as usize, Group::open(outer)));
            } else if g.last().is_some_and(|(t, _)| *t == task as usize) {
                g.pop();
            }
        });
    }
    if !LAZY.load(Ordering::Relaxed)
        || endpoint != SCOPE_END
        || !matches!(
            kind,
            SYNC_BARRIER_IMPLICIT
                | SYNC_BARRIER_EXPLICIT
                | SYNC_TASKWAIT
                | SYNC_TASKGROUP
                | SYNC_BARRIER_IMPLICIT_PARALLEL
        )
        || inner()
    {
        return;
    }
    if matches!(kind, SYNC_BARRIER_IMPLICIT | SYNC_BARRIER_IMPLICIT_PARALLEL)
        && LEFT_INNER.with(|c| c.replace(false))
    {
        return;
    }
    if !parallel.is_null() {
        // SAFETY: the region's tool data, written by `parallel_begin` (or zero).
        if unsafe { (*parallel).value } & REGION_INNER != 0 {
            return;
        }
    }
    crate::any::flush_at_sync_point();
}

// libomp calls `ompt_start_tool@VERSION` (its own, weak, definition's version): Spread's
// definition carries the same version so that it is the one found when Spread comes first in
// lookup order (see capi/memory.rs for the same arrangement).
#[cfg(not(test))]
std::arch::global_asm!(".symver ompt_start_tool, ompt_start_tool@@VERSION");
