//! What Spread's tool knows about the program's explicit tasks, for owned `nowait` constructs
//! (`runtime::nowait`): who created each task, its `taskgroup`, its `depend` items and when it
//! starts, and whether the pass marked it offloading.
//!
//! Each explicit task's tool data points at a [`TaskRecord`] from its creation (`task-create`)
//! to its end (`task-schedule`). A deferred task's `depend` items are looked at when it starts:
//! a host task waits there for the owned constructs it depends on, an offloading target task
//! hands them to its construct ([`take_predecessors`]), which orders itself after them on the
//! device.

use super::{
    barrier_team, GetTaskInfo, GetTaskMemory, OmptData, GET_TASK_INFO, GET_TASK_MEMORY, OWNS_NOWAIT,
};
use crate::capi::guard::guard;
use crate::runtime::nowait::{Dep, Group, Predecessors, TaskFacts};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// `ompt_dependence_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct OmptDependence {
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

/// `ompt_dependence_type_in`; every other type writes.
const DEPENDENCE_IN: c_int = 1;
/// `ompt_dependence_type_out_all_memory` and `..._inout_all_memory`: every item.
const DEPENDENCE_ALL_MEMORY: [c_int; 2] = [34, 35];

/// The low bits of an explicit task's tool data, whose other bits are the address of its
/// [`TaskRecord`] (an implicit task's holds `TASK_PINNED` and `TASK_INNER` only).
const RECORD_TAG: u64 = 4;
/// A record whose task is deferred with `depend` items: looked at when it starts (the tag saves
/// reading the record, often in another core's cache, at every other task's start).
const DEFERRED_TAG: u64 = 5;
/// No record: the other bits are the address of the creating task's tool data (a task that is
/// neither a target task nor has `depend` items, created outside any taskgroup: all the tool
/// needs of it is who created it, and a task-dense program does not pay an allocation per task).
const LIGHT_TAG: u64 = 6;
const TAG_BITS: u64 = 7;

thread_local! {
    /// The target task created next on this thread starts its construct through Spread (the
    /// pass said so: [`__spread_offloading_task`]).
    static NEXT_OFFLOADS: Cell<bool> = const { Cell::new(false) };
    /// The task created next on this thread is a `device(any)` instance's with `nowait`
    /// ([`next_task_is_instance`]).
    static NEXT_INSTANCE: Cell<bool> = const { Cell::new(false) };
    /// The `taskgroup` regions open on this thread, innermost last, with the tool data address
    /// of the task that opened each.
    static OPEN_GROUPS: RefCell<Vec<(usize, Arc<Group>)>> = const { RefCell::new(Vec::new()) };
    /// The target task this thread runs (its tool data's address) and the owned constructs it
    /// depends on, which its construct orders itself after ([`take_predecessors`]).
    static PREDECESSORS: RefCell<(usize, Predecessors)> =
        RefCell::new((0, Predecessors::default()));
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
    /// A `device(any)` instance's task (with `nowait`): run at once, it does not wait for the
    /// owned constructs it depends on when it is created; its instance takes them
    /// ([`instance_predecessors`]) and may follow them on their device.
    instance: bool,
    /// Set when such a task's predecessors were left for its instance, until it takes them.
    left: AtomicBool,
    /// Its `depend` items, set once (by `dependences`) before libomp publishes the task.
    deps: std::sync::OnceLock<Vec<Dep>>,
    /// Whether it has started (its items looked at).
    started: AtomicBool,
    /// The innermost `taskgroup` it was created in.
    group: Option<Arc<Group>>,
    /// For a target task: the private data of the explicit task that created it.
    parent_memory: Option<(usize, usize)>,
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
    if !matches!(value & TAG_BITS, RECORD_TAG | DEFERRED_TAG) || value < 4096 {
        return None;
    }
    // SAFETY: a live record (the caller's promise), boxed by `task_create`.
    Some(unsafe { &*((value & !TAG_BITS) as *const TaskRecord) })
}

/// The creator of a task without a record (see [`LIGHT_TAG`]).
///
/// # Safety
/// `data` is libomp's tool data of a task.
unsafe fn light_parent(data: *mut OmptData) -> Option<usize> {
    // SAFETY: the caller's.
    let value = unsafe { (*data).value };
    (value & TAG_BITS == LIGHT_TAG && value >= 4096).then_some((value & !TAG_BITS) as usize)
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
pub(super) fn group_of(task: *mut OmptData) -> Option<Arc<Group>> {
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
    guard("ompt __spread_offloading_task", || {
        NEXT_OFFLOADS.with(|n| n.set(true));
    })
}

/// Marks the task the calling thread creates next as a `device(any)` instance's with `nowait`
/// (the lowering calls `__spread_any_instance_next` right before it): run at once, its
/// instance orders itself after what it depends on instead of waiting for it.
pub fn next_task_is_instance() {
    NEXT_INSTANCE.with(|n| n.set(true));
}

/// For the `device(any)` instance task the calling thread runs, created to run at once: the
/// owned constructs it depends on that may still run, which it did not wait for when it was
/// created. Its instance follows them on their device or finishes them before it starts
/// (`any::Any::acquire`). Empty for any other task, and when asked again.
pub fn instance_predecessors() -> Predecessors {
    let Some((_, data)) = task_info() else {
        return Predecessors::default();
    };
    // SAFETY: the task the calling thread runs: its record is alive.
    let Some(rec) = (unsafe { record(data) }) else {
        return Predecessors::default();
    };
    if !rec.instance || !rec.left.swap(false, Ordering::Relaxed) {
        return Predecessors::default();
    }
    let (Some(rt), Some(deps)) = (crate::runtime::existing(), rec.deps.get()) else {
        return Predecessors::default();
    };
    rt.nowait_predecessors(rec.parent, deps)
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

/// The private data (`[start, end)`) of the explicit task the calling thread runs
/// (`ompt_get_task_memory`): its firstprivate copies, freed by libomp when the task ends.
fn task_memory() -> Option<(usize, usize)> {
    let get = GET_TASK_MEMORY.load(Ordering::Acquire);
    if get == 0 {
        return None;
    }
    // SAFETY: the address of libomp's `ompt_get_task_memory`, whose C signature (omp-tools.h)
    // is `GetTaskMemory`'s.
    let get = unsafe { std::mem::transmute::<usize, GetTaskMemory>(get) };
    let mut addr: *mut c_void = std::ptr::null_mut();
    let mut size: usize = 0;
    // libomp 19 fills in the block and returns 0 (its success path does not say so): what it
    // wrote decides (it writes nothing for an implicit task).
    let _ = get(&mut addr, &mut size, 0);
    (!addr.is_null() && size > 0).then(|| (addr as usize, addr as usize + size))
}

/// The address of the tool data of the task the calling thread runs (0: not known).
fn current_task_data() -> usize {
    task_info().map_or(0, |(_, d)| d as usize)
}

fn current_task(target: bool) -> Option<TaskFacts> {
    if !OWNS_NOWAIT.load(Ordering::Acquire) {
        return None;
    }
    let barrier = barrier_team();
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
    // SAFETY: libomp's tool data of the task the calling thread runs.
    if let Some(parent) = unsafe { light_parent(data) } {
        return (!target).then(|| TaskFacts {
            parent,
            deps: Vec::new(),
            barrier,
            group: group_of(data),
            parent_memory: None,
        });
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
        parent_memory: rec.parent_memory,
    })
}

/// `ompt_callback_task_create`: every explicit task gets its [`TaskRecord`]: the task that
/// created it (a target task's construct, or a `device(any)` instance's, belongs to that task's
/// `taskwait`), its `taskgroup`, whether it is a target task, whether the pass marked it
/// offloading, and whether libomp defers it in a task team (then its `depend` clauses are looked
/// at when it starts, not now).
pub(super) extern "C" fn task_create(
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
    let group = group_of(encountering);
    if !target && has_dependences == 0 && group.is_none() {
        // SAFETY: libomp passes the new task's tool data, which only this tool writes; the
        // creating task's tool data is aligned to 8, so the tag's bits are free.
        unsafe { (*new_task).value = encountering as u64 | LIGHT_TAG };
        return;
    }
    let rec = TaskRecord {
        parent: encountering as usize,
        target,
        offloading: target && NEXT_OFFLOADS.with(|n| n.replace(false)),
        deferred: has_dependences != 0
            && flags & (TASK_UNDEFERRED | TASK_TASKWAIT) == 0
            && crate::sys::kmp::num_threads() > 1,
        instance: !target && NEXT_INSTANCE.with(|n| n.replace(false)),
        left: AtomicBool::new(false),
        deps: std::sync::OnceLock::new(),
        started: AtomicBool::new(false),
        group,
        // The creating task runs this callback: its data is what the target task names.
        parent_memory: if target { task_memory() } else { None },
    };
    let tag = if rec.deferred {
        DEFERRED_TAG
    } else {
        RECORD_TAG
    };
    let addr = Box::into_raw(Box::new(rec)) as u64;
    // SAFETY: libomp passes the new task's tool data, which only this tool writes; a boxed
    // record is aligned to 8, so the tag's bits are free.
    unsafe { (*new_task).value = addr | tag };
}

/// `ompt_callback_dependences`, when a task with `depend` clauses is created (and for a
/// `taskwait depend`). A task that runs at once (outside a task team, undeferred, the wait of a
/// `taskwait depend`) first lets the owned constructs it depends on finish; a deferred one keeps
/// its items until it starts ([`task_schedule`]): waiting here would hold up the thread that
/// creates the team's tasks. A target task's items are kept for its construct.
pub(super) extern "C" fn dependences(task: *mut OmptData, deps: *const OmptDependence, n: c_int) {
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
        if rec.instance {
            rec.left.store(true, Ordering::Relaxed);
        } else {
            wait_for_predecessors(rec.parent, &items);
        }
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
pub(super) extern "C" fn task_schedule(prior: *mut OmptData, status: c_int, next: *mut OmptData) {
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
        if let Some(rt) = crate::runtime::existing() {
            if let Some(left) = left {
                rt.nowait_finish_predecessors(left);
            }
            // An instance task whose instance never took what it depends on (none ran).
            // SAFETY: the ending task's record is alive until it is freed below.
            if let Some(rec) = unsafe { record(prior) } {
                if rec.instance && rec.left.swap(false, Ordering::Relaxed) {
                    if let Some(deps) = rec.deps.get() {
                        wait_for_predecessors(rec.parent, deps);
                    }
                }
            }
            // Owned constructs that use the ending task's private data finish before libomp
            // frees it.
            rt.nowait_at_task_end(prior as usize);
        }
        // SAFETY: the task's body has ended: nothing reads its record any more (its children
        // copied what they need, its constructs hold only its address).
        unsafe { free_record(prior) };
    }
    // SAFETY: libomp's tool data of the task about to run (checked for null first).
    if next.is_null() || unsafe { (*next).value } & TAG_BITS != DEFERRED_TAG {
        return; // only deferred tasks with `depend` items have anything to do when they start
    }
    // SAFETY: the task about to run on this thread: its record is alive.
    let Some(rec) = (unsafe { record(next) }) else {
        return;
    };
    if rec.started.swap(true, Ordering::Relaxed) {
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

/// A `taskgroup` opens (`begin`) or closes in the task whose tool data is at `task`, on this
/// thread: tasks created in it belong to it, and so do their constructs.
pub(super) fn taskgroup(begin: bool, task: *mut OmptData) {
    // Outside the borrow below: `group_of` reads the open groups too.
    let outer = begin.then(|| group_of(task));
    OPEN_GROUPS.with(|g| {
        let mut g = g.borrow_mut();
        if let Some(outer) = outer {
            g.push((task as usize, Group::open(outer)));
        } else if g.last().is_some_and(|(t, _)| *t == task as usize) {
            g.pop();
        }
    });
}
