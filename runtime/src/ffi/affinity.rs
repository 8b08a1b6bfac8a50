//! Pinning a host device's kernel threads to its cores (`SPREAD_HOST_DEVICE_CORES`).
//!
//! A host-device kernel runs on the thread that launches it plus libomp worker threads, which
//! libomp takes from a pool shared by every device and by the program's own parallel regions. Which
//! workers a kernel gets is only known once its `teams`/`parallel` construct has forked them, so
//! the pinning happens on those threads themselves, through OMPT: libomp calls a tool back on each
//! thread as it begins and ends an implicit task. Spread registers such a tool (when
//! `SPREAD_HOST_DEVICE_CORES` is set, and no other tool is) that
//!
//! - marks each parallel region (and `teams` league) a pinned kernel forks with the device's core
//!   set (`parallel-begin`, on the forking thread, which knows its kernel from a thread-local);
//! - on each thread that begins an implicit task of such a region, saves the thread's affinity
//!   mask, pins it to the set and remembers the kernel for the regions that thread forks in turn;
//! - restores the saved mask when the implicit task ends, so a worker returns to the pool with the
//!   mask it had (a worker that runs another device's kernel, or the program's code, next is not
//!   left on the wrong cores).
//!
//! The launching thread itself is pinned by [`KernelPin`] for the whole launch. Without the tool
//! (libomp lacks OMPT, `OMP_TOOL=disabled`, another tool is loaded) only the launching thread is
//! pinned; [`tool_active`] tells, so the runtime can say so.
//!
//! The same tool serves lazy `device(any)` coherence (`SPREAD_COHERENCE=lazy`): at the end of a
//! `taskwait`, `taskgroup` or barrier of the program (not of a kernel's or an instance's own
//! regions, which the tool marks) it brings instances' outputs home ([`sync_points_seen`]).

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicU8, Ordering};

/// A set of cores, in the kernel's `cpu_set_t` form. Sets live as long as the process (host
/// devices are never destroyed), so OMPT callbacks can refer to them by address.
pub struct CoreSet {
    set: libc::cpu_set_t,
}

impl CoreSet {
    /// The set of `cores` (numbers above `CPU_SETSIZE - 1` are left out).
    pub fn new(cores: &[usize]) -> Self {
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in cores {
            if c < libc::CPU_SETSIZE as usize {
                // SAFETY: `c` is below CPU_SETSIZE, so the bit is inside `set`.
                unsafe { libc::CPU_SET(c, &mut set) };
            }
        }
        CoreSet { set }
    }
}

/// The cores the process may run on now (the calling thread's affinity mask; `None` when the
/// kernel does not tell).
pub fn allowed_cores() -> Option<Vec<usize>> {
    let set = current_mask()?;
    Some(
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `c` is below CPU_SETSIZE, so the bit is inside `set`.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect(),
    )
}

/// The calling thread's affinity mask.
fn current_mask() -> Option<libc::cpu_set_t> {
    // SAFETY: as in `CoreSet::new`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the size is that of the set written to.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    (rc == 0).then_some(set)
}

/// Sets the calling thread's affinity mask; false when the kernel refuses it.
fn set_mask(set: &libc::cpu_set_t) -> bool {
    // SAFETY: pid 0 is the calling thread; the set is a valid cpu_set_t of the given size.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(set), set) == 0 }
}

thread_local! {
    /// The core set of the pinned kernel this thread is running, as an address (0: none).
    static KERNEL_SET: Cell<usize> = const { Cell::new(0) };
    /// Masks (and kernel sets) to restore when this thread's pinned implicit tasks end, innermost
    /// last.
    static SAVED: RefCell<Vec<(libc::cpu_set_t, usize)>> = const { RefCell::new(Vec::new()) };
}

/// Pins the calling thread to a device's cores for the life of the guard and makes the regions
/// it forks meanwhile pin their threads too; dropping it restores the thread's mask.
pub struct KernelPin {
    saved: Option<libc::cpu_set_t>,
    outer: usize,
}

impl KernelPin {
    /// Pins the calling thread to `set`.
    pub fn enter(set: &'static CoreSet) -> Self {
        let saved = current_mask().filter(|_| set_mask(&set.set));
        let outer = KERNEL_SET.with(|k| k.replace(set as *const CoreSet as usize));
        KernelPin { saved, outer }
    }
}

impl Drop for KernelPin {
    fn drop(&mut self) {
        KERNEL_SET.with(|k| k.set(self.outer));
        if let Some(old) = &self.saved {
            set_mask(old);
        }
    }
}

// ---- the OMPT tool ----------------------------------------------------------------------------

/// `ompt_data_t`.
#[repr(C)]
union OmptData {
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

const CALLBACK_PARALLEL_BEGIN: c_int = 3;
const CALLBACK_IMPLICIT_TASK: c_int = 7;
const CALLBACK_SYNC_REGION: c_int = 23;
/// `ompt_sync_region_t` values after which `device(any)` outputs must be visible on the host.
const SYNC_BARRIER_IMPLICIT: c_int = 2;
const SYNC_BARRIER_EXPLICIT: c_int = 3;
const SYNC_TASKWAIT: c_int = 5;
const SYNC_TASKGROUP: c_int = 6;
const SYNC_BARRIER_IMPLICIT_PARALLEL: c_int = 9;
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

/// 0: libomp has not started the tool; 1: it runs; 2: it could not register its callbacks.
static TOOL_STATE: AtomicU8 = AtomicU8::new(0);

/// Whether libomp runs Spread's OMPT tool, so a pinned kernel's worker threads are pinned too.
pub fn tool_active() -> bool {
    TOOL_STATE.load(Ordering::Acquire) == 1
}

/// Whether `device(any)` runs with lazy coherence, whose outputs the tool brings home at sync
/// points.
/// (Read here, not from the runtime's settings: libomp starts its tool before the runtime exists.)
fn lazy_coherence() -> bool {
    let v = std::env::var("SPREAD_COHERENCE").ok();
    crate::any::Coherence::parse(v.as_deref()) == Some(crate::any::Coherence::Lazy)
}

thread_local! {
    /// Kernels of host devices (and parallel regions inside them) the thread is running.
    static INNER: Cell<u32> = const { Cell::new(0) };
    /// The implicit task that just ended was a kernel's or an instance's: libomp reports the end
    /// of its region's barrier after the task's end, with no region data.
    static LEFT_INNER: Cell<bool> = const { Cell::new(false) };
}

/// Marks the current thread as running a host device's kernel while the guard lives.
pub struct InnerScope(());

impl InnerScope {
    /// Enters.
    pub fn enter() -> Self {
        INNER.with(|c| c.set(c.get() + 1));
        InnerScope(())
    }
}

impl Drop for InnerScope {
    fn drop(&mut self) {
        INNER.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

fn inner() -> bool {
    INNER.with(Cell::get) > 0 || crate::any::in_instance()
}

/// Whether the tool brings lazy `device(any)` outputs home at sync points; when it does not (another
/// tool is loaded), the program must call `spread_any_flush` itself.
pub fn sync_points_seen() -> bool {
    SYNC_SEEN.load(Ordering::Acquire)
}

static SYNC_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// libomp asks for an OMPT tool when it initializes. Spread offers one only where it is needed
/// (`SPREAD_HOST_DEVICE_CORES` is set, or `SPREAD_COHERENCE=lazy`) and no other tool is around: a tool found after Spread
/// in symbol order is passed on, and with `OMP_TOOL_LIBRARIES` set Spread stands back so that
/// libomp loads those (one tool per process is all OMPT allows).
#[no_mangle]
pub extern "C" fn ompt_start_tool(
    omp_version: c_uint,
    runtime_version: *const c_char,
) -> *const StartToolResult {
    let next = super::dl::next_symbol("ompt_start_tool")
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
    let wanted = std::env::var("SPREAD_HOST_DEVICE_CORES").is_ok_and(|v| !v.trim().is_empty())
        || lazy_coherence();
    let other_tools = std::env::var("OMP_TOOL_LIBRARIES").is_ok_and(|v| !v.trim().is_empty());
    if wanted && !other_tools {
        &TOOL
    } else {
        std::ptr::null()
    }
}

extern "C" fn tool_initialize(lookup: Lookup, _device: c_int, _data: *mut OmptData) -> c_int {
    let set = lookup(c"ompt_set_callback".as_ptr());
    if set.is_null() {
        TOOL_STATE.store(2, Ordering::Release);
        return 0;
    }
    // SAFETY: `ompt_set_callback`'s C signature (omp-tools.h).
    let set = unsafe { std::mem::transmute::<*const c_void, SetCallback>(set) };
    let begin = set(CALLBACK_PARALLEL_BEGIN, parallel_begin as *const c_void);
    let task = set(CALLBACK_IMPLICIT_TASK, implicit_task as *const c_void);
    let mut ok = begin > SET_NEVER && task > SET_NEVER;
    if ok && lazy_coherence() {
        let sync = set(CALLBACK_SYNC_REGION, sync_region as *const c_void);
        ok = sync > SET_NEVER;
        SYNC_SEEN.store(ok, Ordering::Release);
    }
    TOOL_STATE.store(if ok { 1 } else { 2 }, Ordering::Release);
    // Returning 0 tells libomp to deactivate the tool when it cannot do its job.
    c_int::from(ok)
}

extern "C" fn tool_finalize(_data: *mut OmptData) {}

/// `ompt_callback_parallel_begin`, on the thread that forks the region: a pinned kernel's
/// region carries the kernel's core set to the threads that will run it.
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

/// `ompt_callback_sync_region`: at the end of a `taskwait`, `taskgroup` or barrier of the program
/// (not of a kernel or an instance), lazy `device(any)` outputs come home.
extern "C" fn sync_region(
    kind: c_int,
    endpoint: c_int,
    parallel: *mut OmptData,
    _task: *mut OmptData,
    _codeptr: *const c_void,
) {
    if endpoint != SCOPE_END
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
// lookup order (see ffi/memory.rs for the same arrangement).
#[cfg(not(test))]
std::arch::global_asm!(".symver ompt_start_tool, ompt_start_tool@@VERSION");
