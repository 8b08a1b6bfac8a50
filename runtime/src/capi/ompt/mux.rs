//! Spread's tool and the program's tool at once.
//!
//! libomp starts one OMPT tool. When the program brings one (its own `ompt_start_tool`, or a
//! library of `OMP_TOOL_LIBRARIES`) and Spread's tool is needed too (`super::needed`), Spread
//! starts the program's tool itself and offers libomp this multiplexer, which gives each tool
//! what it registered for:
//!
//! - **Callbacks.** Each tool registers through a lookup of its own. Events that carry a
//!   parallel region's or a task's data word go through a trampoline here that calls Spread's
//!   callback, then the program's; every other event (threads, mutexes, device work, ...) is
//!   Spread's never, so the program's callback is registered with libomp as it is, and the
//!   offload runtime finds the program's device callbacks where libomp keeps them.
//! - **Data words.** Both tools keep a word of their own with each region and task
//!   (`ompt_data_t`), where libomp has one: the word holds a pair of words
//!   ([`crate::sys::ompt::begin_pair`]) from the region's or task's begin event to its end, and
//!   each tool sees its own half, in callbacks and in `ompt_get_task_info` /
//!   `ompt_get_parallel_info`. A thread's word is the program's alone (Spread keeps none).
//! - **Start and end.** `initialize` and `finalize` reach both, Spread's first.
//!
//! A program's own `ompt_start_tool` wins libomp's lookup over any library's, so for such a
//! program the loader's slot of libomp's call is pointed at Spread's at load time
//! (`capi::init`, [`crate::sys::dl::rebind_import`]).

use super::{Lookup, OmptData, StartToolResult};
use crate::capi::guard::guard;
use crate::sys::ompt::{begin_pair, end_pair, ensure_pair, half, use_pairs, Half, Parked};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

type Data = crate::sys::ompt::Data;
type SetCallback = extern "C" fn(c_int, usize) -> c_int;
type GetCallback = extern "C" fn(c_int, *mut usize) -> c_int;
type GetTaskInfo = extern "C" fn(
    c_int,
    *mut c_int,
    *mut *mut Data,
    *mut c_void,
    *mut *mut Data,
    *mut c_int,
) -> c_int;
type GetParallelInfo = extern "C" fn(c_int, *mut *mut Data, *mut c_int) -> c_int;

/// One past the highest event code of OpenMP 5.2 (`ompt_callback_error`, 37).
const EVENTS: usize = 38;

/// Event codes (omp-tools.h) whose arguments carry a region's or task's data word.
const PARALLEL_BEGIN: c_int = 3;
const PARALLEL_END: c_int = 4;
const TASK_CREATE: c_int = 5;
const TASK_SCHEDULE: c_int = 6;
const IMPLICIT_TASK: c_int = 7;
const SYNC_REGION_WAIT: c_int = 16;
const DEPENDENCES: c_int = 18;
const TASK_DEPENDENCE: c_int = 19;
const WORK: c_int = 20;
const MASKED: c_int = 21;
const SYNC_REGION: c_int = 23;
const CANCEL: c_int = 30;
const REDUCTION: c_int = 31;
const DISPATCH: c_int = 32;

/// `ompt_task_initial`.
const TASK_INITIAL: c_int = 1;
/// `ompt_scope_begin`.
const SCOPE_BEGIN: c_int = 1;
/// `ompt_task_status_t` values after which libomp never names the task again: complete,
/// cancel, late fulfill (a detached task's), the end of a `taskwait depend`'s wait.
const TASK_GONE: [c_int; 4] = [1, 3, 6, 8];
/// `ompt_set_error`.
const SET_ERROR: c_int = 0;

static OWN: [AtomicUsize; EVENTS] = [const { AtomicUsize::new(0) }; EVENTS];
static CLIENT: [AtomicUsize; EVENTS] = [const { AtomicUsize::new(0) }; EVENTS];
/// Events whose callback of the program's tool libomp calls directly (no trampoline).
static PASSED: [AtomicUsize; EVENTS] = [const { AtomicUsize::new(0) }; EVENTS];
/// libomp's answer when a trampoline was registered for the event (0: not registered).
static REGISTERED: [AtomicUsize; EVENTS] = [const { AtomicUsize::new(0) }; EVENTS];
/// libomp's lookup, `ompt_set_callback`, `ompt_get_callback`, `ompt_get_task_info` and
/// `ompt_get_parallel_info`.
static REAL_LOOKUP: AtomicUsize = AtomicUsize::new(0);
static REAL_SET: AtomicUsize = AtomicUsize::new(0);
static REAL_GET: AtomicUsize = AtomicUsize::new(0);
static REAL_TASK_INFO: AtomicUsize = AtomicUsize::new(0);
static REAL_PARALLEL_INFO: AtomicUsize = AtomicUsize::new(0);
/// The program's tool, as its `ompt_start_tool` returned it.
static PROGRAM_TOOL: AtomicPtr<StartToolResult> = AtomicPtr::new(std::ptr::null_mut());

static MUX: StartToolResult = StartToolResult {
    initialize: mux_initialize,
    finalize: mux_finalize,
    tool_data: OmptData { value: 0 },
};

/// The tool to hand libomp when the program's tool `program` (non-null) and Spread's both run.
pub(super) fn start(program: *const StartToolResult) -> *const StartToolResult {
    PROGRAM_TOOL.store(program.cast_mut(), Ordering::Release);
    &MUX
}

/// Loads the tool libraries of `OMP_TOOL_LIBRARIES` as libomp would (each in turn, the first
/// whose `ompt_start_tool` returns a tool wins) and returns that tool (null: none).
pub(super) fn load_libraries(
    list: &str,
    omp_version: c_uint,
    runtime_version: *const c_char,
) -> *const StartToolResult {
    for path in list.split(':').map(str::trim).filter(|p| !p.is_empty()) {
        let Some(handle) = crate::sys::dl::open_library(path) else {
            continue;
        };
        if let Some(addr) = crate::sys::dl::symbol_in(handle, "ompt_start_tool") {
            // SAFETY: a tool library's `ompt_start_tool`: OpenMP 5's C signature.
            let start = unsafe { std::mem::transmute::<usize, super::StartTool>(addr) };
            let tool = start(omp_version, runtime_version);
            if !tool.is_null() {
                return tool; // the library stays loaded: its tool runs
            }
        }
        crate::sys::dl::close(handle);
    }
    std::ptr::null()
}

/// The callback registered for `event` in `table`, as an address.
fn registered(table: &[AtomicUsize; EVENTS], event: c_int) -> usize {
    usize::try_from(event)
        .ok()
        .and_then(|e| table.get(e))
        .map_or(0, |c| c.load(Ordering::Acquire))
}

/// libomp's `ompt_set_callback`.
fn real_set(event: c_int, callback: usize) -> c_int {
    let set = REAL_SET.load(Ordering::Acquire);
    if set == 0 {
        return SET_ERROR;
    }
    // SAFETY: libomp's `ompt_set_callback` (omp-tools.h's `ompt_set_callback_t`; a callback is
    // passed as an address).
    let set = unsafe { std::mem::transmute::<usize, SetCallback>(set) };
    set(event, callback)
}

/// The trampoline of an event that carries data words.
fn trampoline(event: c_int) -> Option<usize> {
    let f = match event {
        PARALLEL_BEGIN => parallel_begin as *const () as usize,
        PARALLEL_END => parallel_end as *const () as usize,
        TASK_CREATE => task_create as *const () as usize,
        TASK_SCHEDULE => task_schedule as *const () as usize,
        IMPLICIT_TASK => implicit_task as *const () as usize,
        SYNC_REGION_WAIT => sync_region_wait as *const () as usize,
        SYNC_REGION => sync_region as *const () as usize,
        REDUCTION => reduction as *const () as usize,
        DEPENDENCES => dependences as *const () as usize,
        TASK_DEPENDENCE => task_dependence as *const () as usize,
        WORK => work as *const () as usize,
        MASKED => masked as *const () as usize,
        CANCEL => cancel as *const () as usize,
        DISPATCH => dispatch as *const () as usize,
        _ => return None,
    };
    Some(f)
}

/// Registers `event`'s trampoline with libomp once; libomp's answer.
fn hook(event: c_int) -> c_int {
    let (Some(f), Ok(e)) = (trampoline(event), usize::try_from(event)) else {
        return SET_ERROR;
    };
    let done = REGISTERED[e].load(Ordering::Acquire);
    if done != 0 {
        return done as c_int;
    }
    let answer = real_set(event, f);
    if answer > SET_ERROR {
        REGISTERED[e].store(answer as usize, Ordering::Release);
    }
    answer
}

/// Records `callback` as `table`'s for `event` and makes libomp call it.
fn set_in(table: &[AtomicUsize; EVENTS], event: c_int, callback: usize) -> c_int {
    let Some(slot) = usize::try_from(event).ok().and_then(|e| table.get(e)) else {
        return SET_ERROR;
    };
    if trampoline(event).is_none() {
        // Spread never registers such events: the program's callback is libomp's own.
        return real_set(event, callback);
    }
    slot.store(callback, Ordering::Release);
    hook(event)
}

extern "C" fn own_set(event: c_int, callback: usize) -> c_int {
    guard("ompt (mux) own_set", || set_in(&OWN, event, callback))
}

extern "C" fn client_set(event: c_int, callback: usize) -> c_int {
    guard("ompt (mux) client_set", || {
        if trampoline(event).is_none() {
            if let Some(p) = usize::try_from(event).ok().and_then(|e| PASSED.get(e)) {
                p.store(callback, Ordering::Release);
            }
        }
        set_in(&CLIENT, event, callback)
    })
}

extern "C" fn client_get_callback(event: c_int, out: *mut usize) -> c_int {
    guard("ompt (mux) client_get_callback", || {
        if trampoline(event).is_none() {
            let get = REAL_GET.load(Ordering::Acquire);
            if get == 0 {
                return 0;
            }
            // SAFETY: libomp's `ompt_get_callback` (omp-tools.h's `ompt_get_callback_t`).
            let get = unsafe { std::mem::transmute::<usize, GetCallback>(get) };
            return get(event, out);
        }
        let f = registered(&CLIENT, event);
        if f == 0 || out.is_null() {
            return 0;
        }
        // SAFETY: the tool passes where to store the callback (checked non-null).
        unsafe { *out = f };
        1
    })
}

/// `ompt_get_task_info`, with the task's and region's words of one tool.
fn task_info(
    which: Half,
    ancestor: c_int,
    flags: *mut c_int,
    task: *mut *mut Data,
    frame: *mut c_void,
    parallel: *mut *mut Data,
    thread: *mut c_int,
) -> c_int {
    let get = REAL_TASK_INFO.load(Ordering::Acquire);
    if get == 0 {
        return 0;
    }
    // SAFETY: libomp's `ompt_get_task_info` (omp-tools.h's `ompt_get_task_info_t`).
    let get = unsafe { std::mem::transmute::<usize, GetTaskInfo>(get) };
    let found = get(ancestor, flags, task, frame, parallel, thread);
    translate_out(task, which);
    translate_out(parallel, which);
    found
}

/// Replaces the data word a query stored at `out` with one tool's half of it.
fn translate_out(out: *mut *mut Data, which: Half) {
    if !out.is_null() {
        // SAFETY: where the caller asked libomp to store a data word's address: valid.
        unsafe { *out = half(*out, which) };
    }
}

/// `ompt_get_task_info` for Spread's tool (`PROGRAM` false) or the program's (true).
extern "C" fn task_info_of<const PROGRAM: bool>(
    ancestor: c_int,
    flags: *mut c_int,
    task: *mut *mut Data,
    frame: *mut c_void,
    parallel: *mut *mut Data,
    thread: *mut c_int,
) -> c_int {
    guard("ompt (mux) task_info_of", || {
        let which = if PROGRAM { Half::Client } else { Half::Own };
        task_info(which, ancestor, flags, task, frame, parallel, thread)
    })
}

extern "C" fn client_parallel_info(
    ancestor: c_int,
    parallel: *mut *mut Data,
    size: *mut c_int,
) -> c_int {
    guard("ompt (mux) client_parallel_info", || {
        let get = REAL_PARALLEL_INFO.load(Ordering::Acquire);
        if get == 0 {
            return 0;
        }
        // SAFETY: libomp's `ompt_get_parallel_info` (omp-tools.h's `ompt_get_parallel_info_t`).
        let get = unsafe { std::mem::transmute::<usize, GetParallelInfo>(get) };
        let found = get(ancestor, parallel, size);
        translate_out(parallel, Half::Client);
        found
    })
}

fn real_lookup(name: *const c_char) -> *const c_void {
    let lookup = REAL_LOOKUP.load(Ordering::Acquire);
    if lookup == 0 {
        return std::ptr::null();
    }
    // SAFETY: the lookup libomp passed to `mux_initialize` (`ompt_function_lookup_t`).
    let lookup = unsafe { std::mem::transmute::<usize, Lookup>(lookup) };
    lookup(name)
}

/// Whether the entry point a lookup is asked for is `want`.
fn named(name: *const c_char, want: &CStr) -> bool {
    // SAFETY: OMPT passes a NUL-terminated entry point name (checked non-null), read while the
    // lookup lasts.
    !name.is_null() && unsafe { CStr::from_ptr(name) } == want
}

extern "C" fn own_lookup(name: *const c_char) -> *const c_void {
    guard("ompt (mux) own_lookup", || match () {
        () if named(name, c"ompt_set_callback") => own_set as *const c_void,
        () if named(name, c"ompt_get_task_info") => task_info_of::<false> as *const c_void,
        _ => real_lookup(name),
    })
}

extern "C" fn client_lookup(name: *const c_char) -> *const c_void {
    guard("ompt (mux) client_lookup", || match () {
        () if named(name, c"ompt_set_callback") => client_set as *const c_void,
        () if named(name, c"ompt_get_callback") => client_get_callback as *const c_void,
        () if named(name, c"ompt_get_task_info") => task_info_of::<true> as *const c_void,
        () if named(name, c"ompt_get_parallel_info") => client_parallel_info as *const c_void,
        _ => real_lookup(name),
    })
}

extern "C" fn mux_initialize(lookup: Lookup, device: c_int, _data: *mut OmptData) -> c_int {
    guard("ompt (mux) mux_initialize", || {
        REAL_LOOKUP.store(lookup as usize, Ordering::Release);
        let find = |n: &CStr| lookup(n.as_ptr()) as usize;
        REAL_SET.store(find(c"ompt_set_callback"), Ordering::Release);
        REAL_GET.store(find(c"ompt_get_callback"), Ordering::Release);
        REAL_TASK_INFO.store(find(c"ompt_get_task_info"), Ordering::Release);
        REAL_PARALLEL_INFO.store(find(c"ompt_get_parallel_info"), Ordering::Release);
        if REAL_SET.load(Ordering::Acquire) == 0 {
            return 0;
        }
        // Every region's and task's word is a pair from its beginning to its end, whoever reads it.
        use_pairs();
        for event in [
            PARALLEL_BEGIN,
            PARALLEL_END,
            TASK_CREATE,
            TASK_SCHEDULE,
            IMPLICIT_TASK,
        ] {
            hook(event);
        }
        // (Spread's tool keeps nothing in its tool data.)
        let own = super::tool_initialize(own_lookup, device, std::ptr::null_mut());
        let program = PROGRAM_TOOL.load(Ordering::Acquire);
        let mut theirs = 0;
        if !program.is_null() {
            // SAFETY: the program's tool result (non-null, returned by its `ompt_start_tool`);
            // libomp would pass its `tool_data` field the same way.
            theirs = unsafe {
                ((*program).initialize)(
                    client_lookup,
                    device,
                    std::ptr::addr_of_mut!((*program).tool_data),
                )
            };
            if theirs == 0 {
                // A tool that declines is not active: none of its callbacks may be called.
                PROGRAM_TOOL.store(std::ptr::null_mut(), Ordering::Release);
                CLIENT.iter().for_each(|c| c.store(0, Ordering::Release));
                for (event, passed) in (0..).zip(PASSED.iter()) {
                    if passed.swap(0, Ordering::AcqRel) != 0 {
                        real_set(event, 0);
                    }
                }
            }
        }
        c_int::from(own != 0 || theirs != 0)
    })
}

extern "C" fn mux_finalize(_data: *mut OmptData) {
    guard("ompt (mux) mux_finalize", || {
        super::tool_finalize(std::ptr::null_mut());
        let program = PROGRAM_TOOL.swap(std::ptr::null_mut(), Ordering::AcqRel);
        if !program.is_null() {
            // SAFETY: the program's active tool, finalized once (it was swapped out above).
            unsafe { ((*program).finalize)(std::ptr::addr_of_mut!((*program).tool_data)) };
        }
    })
}

/// Calls `event`'s callback of Spread's tool, then the program's, each as `$ty` with the
/// arguments `$args` (in which `w!(x)` stands for the data word `x` as that tool sees it).
macro_rules! both {
    ($event:expr, $ty:ty, |$h:ident| ($($arg:expr),* $(,)?)) => {{
        for ($h, table) in [(Half::Own, &OWN), (Half::Client, &CLIENT)] {
            let f = registered(table, $event);
            if f != 0 {
                // SAFETY: a callback the tool registered for this event, whose C type OMPT
                // fixes as `$ty` (omp-tools.h).
                let f = unsafe { std::mem::transmute::<usize, $ty>(f) };
                f($($arg),*);
            }
        }
    }};
}

type ParallelBegin =
    extern "C" fn(*mut Data, *const c_void, *mut Data, c_uint, c_int, *const c_void);
type ParallelEnd = extern "C" fn(*mut Data, *mut Data, c_int, *const c_void);
type TaskCreate = extern "C" fn(*mut Data, *const c_void, *mut Data, c_int, c_int, *const c_void);
type TaskSchedule = extern "C" fn(*mut Data, c_int, *mut Data);
type ImplicitTask = extern "C" fn(c_int, *mut Data, *mut Data, c_uint, c_uint, c_int);
type SyncRegion = extern "C" fn(c_int, c_int, *mut Data, *mut Data, *const c_void);
type Dependences = extern "C" fn(*mut Data, *const c_void, c_int);
type TaskDependence = extern "C" fn(*mut Data, *mut Data);
type Work = extern "C" fn(c_int, c_int, *mut Data, *mut Data, u64, *const c_void);
type Masked = extern "C" fn(c_int, *mut Data, *mut Data, *const c_void);
type Cancel = extern "C" fn(*mut Data, c_int, *const c_void);
type Dispatch = extern "C" fn(*mut Data, *mut Data, c_int, u64);

extern "C" fn parallel_begin(
    task: *mut Data,
    frame: *const c_void,
    parallel: *mut Data,
    requested: c_uint,
    flags: c_int,
    code: *const c_void,
) {
    guard("ompt (mux) parallel_begin", || {
        begin_pair(parallel, Some(Parked::Parallel));
        both!(PARALLEL_BEGIN, ParallelBegin, |h| (
            half(task, h),
            frame,
            half(parallel, h),
            requested,
            flags,
            code
        ));
    })
}

extern "C" fn parallel_end(
    parallel: *mut Data,
    task: *mut Data,
    flags: c_int,
    code: *const c_void,
) {
    guard("ompt (mux) parallel_end", || {
        both!(PARALLEL_END, ParallelEnd, |h| (
            half(parallel, h),
            half(task, h),
            flags,
            code
        ));
        end_pair(parallel, Some(Parked::Parallel));
    })
}

extern "C" fn task_create(
    task: *mut Data,
    frame: *const c_void,
    new: *mut Data,
    flags: c_int,
    deps: c_int,
    code: *const c_void,
) {
    guard("ompt (mux) task_create", || {
        begin_pair(new, None);
        both!(TASK_CREATE, TaskCreate, |h| (
            half(task, h),
            frame,
            half(new, h),
            flags,
            deps,
            code
        ));
    })
}

extern "C" fn task_schedule(prior: *mut Data, status: c_int, next: *mut Data) {
    guard("ompt (mux) task_schedule", || {
        both!(TASK_SCHEDULE, TaskSchedule, |h| (
            half(prior, h),
            status,
            half(next, h)
        ));
        if TASK_GONE.contains(&status) {
            end_pair(prior, None);
        }
    })
}

extern "C" fn implicit_task(
    endpoint: c_int,
    parallel: *mut Data,
    task: *mut Data,
    size: c_uint,
    index: c_uint,
    flags: c_int,
) {
    guard("ompt (mux) implicit_task", || {
        let begin = endpoint == SCOPE_BEGIN;
        if begin {
            begin_pair(task, Some(Parked::ImplicitTask));
            if flags & TASK_INITIAL != 0 {
                // The initial task's region (or a league's) has no begin event of its own.
                ensure_pair(parallel);
            }
        }
        both!(IMPLICIT_TASK, ImplicitTask, |h| (
            endpoint,
            half(parallel, h),
            half(task, h),
            size,
            index,
            flags
        ));
        if !begin {
            end_pair(task, Some(Parked::ImplicitTask));
        }
    })
}

/// The trampolines of the three events of one C type (sync region, its wait, reduction).
macro_rules! sync_trampoline {
    ($name:ident, $event:expr) => {
        extern "C" fn $name(
            kind: c_int,
            endpoint: c_int,
            parallel: *mut Data,
            task: *mut Data,
            code: *const c_void,
        ) {
            both!($event, SyncRegion, |h| (
                kind,
                endpoint,
                half(parallel, h),
                half(task, h),
                code
            ));
        }
    };
}
sync_trampoline!(sync_region, SYNC_REGION);
sync_trampoline!(sync_region_wait, SYNC_REGION_WAIT);
sync_trampoline!(reduction, REDUCTION);

extern "C" fn dependences(task: *mut Data, deps: *const c_void, n: c_int) {
    guard("ompt (mux) dependences", || {
        both!(DEPENDENCES, Dependences, |h| (half(task, h), deps, n));
    })
}

extern "C" fn task_dependence(src: *mut Data, sink: *mut Data) {
    guard("ompt (mux) task_dependence", || {
        both!(TASK_DEPENDENCE, TaskDependence, |h| (
            half(src, h),
            half(sink, h)
        ));
    })
}

extern "C" fn work(
    kind: c_int,
    endpoint: c_int,
    parallel: *mut Data,
    task: *mut Data,
    count: u64,
    code: *const c_void,
) {
    guard("ompt (mux) work", || {
        both!(WORK, Work, |h| (
            kind,
            endpoint,
            half(parallel, h),
            half(task, h),
            count,
            code
        ));
    })
}

extern "C" fn masked(endpoint: c_int, parallel: *mut Data, task: *mut Data, code: *const c_void) {
    guard("ompt (mux) masked", || {
        both!(MASKED, Masked, |h| (
            endpoint,
            half(parallel, h),
            half(task, h),
            code
        ));
    })
}

extern "C" fn cancel(task: *mut Data, flags: c_int, code: *const c_void) {
    guard("ompt (mux) cancel", || {
        both!(CANCEL, Cancel, |h| (half(task, h), flags, code));
    })
}

extern "C" fn dispatch(parallel: *mut Data, task: *mut Data, kind: c_int, instance: u64) {
    guard("ompt (mux) dispatch", || {
        both!(DISPATCH, Dispatch, |h| (
            half(parallel, h),
            half(task, h),
            kind,
            instance
        ));
    })
}
