//! What the program's OMPT tool is told of device work: LLVM 19's target callbacks
//! (`device_initialize`, `device_load`, `device_finalize`, `target`, `target_data_op`,
//! `target_submit`, and their `_emi` forms), emitted as stock libomptarget 19 emits them.
//!
//! libomp hands an offload runtime the callbacks a tool registered (`ompt_libomp_connect`,
//! [`connect`]); this module keeps them and emits the events. (Spread's own tool, which watches
//! the program's tasks for the `nowait` model, is `capi::ompt`; libomp runs one tool per
//! process, and this module serves whichever runs.)
//!
//! A construct is a [`Region`]: begun where the core starts a construct on a device, carried
//! with the construct while its device work runs (`runtime::launch::InFlight`, also through a
//! `nowait` construct's completion on another thread) and ended when the construct finishes.
//! While a region is [entered](Region::enter) on a thread, the data operations and kernel
//! submissions there are reported as the region's. Spread's constructs appear in the same
//! terms: each chunk of a `target spread` is a `target` region on its device, each device's part
//! of a `target data spread` or `update spread` a data construct there, a `device(any)` instance
//! a `target` region on the device that ran it. The chunks of one construct share its
//! `codeptr_ra` (the return address of the program's call into the runtime) and the
//! encountering task's data, which is how a tool ties them together (docs/tools.md).
//!
//! Differences from stock, where stock's choice is an accident: `target enter data` gets a
//! target id of its own in the non-EMI callbacks (stock passes 0), and work of the host share
//! (task sharing's host instances) is reported on the initial device.
//!
//! Without a tool (or one that registered none of these callbacks) every entry point returns
//! after one relaxed load.

mod tracing;

use crate::sys::ompt::{self as sys, ToolCallbacks};
use std::cell::{Cell, RefCell};
use std::ffi::{c_int, c_void, CString};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
pub use tracing::{
    complete as complete_pending, device_time, flush as flush_trace, pause as pause_trace,
    run_traced, set_trace, start as start_trace, stop as stop_trace, take_pending, translate_time,
    BufferComplete, BufferRequest, Pending, RECORD_BYTES, SET_NEVER,
};

/// `ompt_target_t`: the construct a region reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `target` (a spread chunk, a task-sharing instance).
    Target = 1,
    /// `target enter data`, the beginning of `target data`.
    EnterData = 2,
    /// `target exit data`, the end of `target data`.
    ExitData = 3,
    /// `target update`.
    Update = 4,
}

/// `ompt_target_data_op_t` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// Device memory allocated.
    Alloc = 1,
    /// Host to device.
    ToDevice = 2,
    /// Device to host.
    FromDevice = 3,
    /// Device memory freed.
    Delete = 4,
    /// `omp_target_associate_ptr`.
    Associate = 5,
    /// `omp_target_disassociate_ptr`.
    Disassociate = 6,
}

const SCOPE_BEGIN: c_int = 1;
const SCOPE_END: c_int = 2;

static CALLBACKS: OnceLock<ToolCallbacks> = OnceLock::new();
/// A tool registered at least one target callback.
static ACTIVE: AtomicBool = AtomicBool::new(false);
/// `omp_get_initial_device()`: the device number of the host in data operations.
static INITIAL_DEVICE: AtomicI32 = AtomicI32::new(0);
/// Target ids and host operation ids (non-EMI callbacks), as stock: one counter, from 1.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);
/// How many devices the tool knows (numbers `0..n`, `device_initialize`), for `device_load` and
/// `device_finalize`.
static DEVICES_TOLD: OnceLock<usize> = OnceLock::new();

thread_local! {
    /// The return address of the program's call into the runtime on this thread (`codeptr_ra`).
    static CODE: Cell<usize> = const { Cell::new(0) };
    /// The region entered on this thread.
    static CURRENT: RefCell<Option<Arc<State>>> = const { RefCell::new(None) };
    /// The task word tools see for constructs this thread starts, when not its current task's
    /// (0: the current task's; see [`AsTask`]).
    static AS_TASK: Cell<usize> = const { Cell::new(0) };
}

/// While it lives, constructs the calling thread starts are reported as the task's whose data
/// word (as the connected tool sees it) is at the given address: an owned `nowait` construct
/// outlives the target task that started it (which completes at once), so tools see it as its
/// encountering task's, which lives until the construct has finished.
pub struct AsTask(usize);

impl AsTask {
    /// Reports constructs as `word`'s until dropped.
    pub fn enter(word: usize) -> AsTask {
        AsTask(AS_TASK.with(|t| t.replace(word)))
    }
}

impl Drop for AsTask {
    fn drop(&mut self) {
        AS_TASK.with(|t| t.set(self.0));
    }
}

fn tool() -> Option<&'static ToolCallbacks> {
    if !ACTIVE.load(Ordering::Relaxed) || sys::tool_finalized() {
        return None;
    }
    CALLBACKS.get()
}

fn tracing_on() -> bool {
    tracing::any() && !sys::tool_finalized()
}

/// The lookup function a tool receives with each device (`device_initialize`): the device
/// tracing entry points (`capi::ompt::device_trace`), set when the runtime is loaded.
static DEVICE_LOOKUP: OnceLock<sys::Lookup> = OnceLock::new();

/// Sets the lookup function the tool receives with each device (the C ABI's, at load time).
pub fn set_device_lookup(f: sys::Lookup) {
    let _ = DEVICE_LOOKUP.set(f);
}

/// Connects to libomp's tool, and tells it about the devices (`device_initialize`, device
/// numbers `0..types.len()`, each with its type name). `initial_device` is
/// `omp_get_initial_device()`. Called once, after the runtime exists (libomp's tool start asks
/// the runtime for the number of devices).
pub fn connect(initial_device: i32, types: &[String]) {
    let Some(cb) = sys::connect() else {
        return;
    };
    let any = cb.target.is_some()
        || cb.target_emi.is_some()
        || cb.data_op.is_some()
        || cb.data_op_emi.is_some()
        || cb.submit.is_some()
        || cb.submit_emi.is_some();
    INITIAL_DEVICE.store(initial_device, Ordering::Relaxed);
    tracing::init(types.len());
    let _ = CALLBACKS.set(cb);
    ACTIVE.store(any, Ordering::Release);
    // Loads and finalizations are reported for every device, whether the tool registered
    // `device_initialize` or not (as stock).
    let _ = DEVICES_TOLD.set(types.len());
    let Some(init) = cb.device_initialize else {
        return;
    };
    for (id, t) in types.iter().enumerate() {
        // Kept for the process's life: the tool may keep the pointer.
        let name: &'static CString =
            Box::leak(Box::new(CString::new(t.as_str()).unwrap_or_default()));
        init(
            id as c_int,
            name.as_ptr(),
            (id + 1) as *mut c_void,
            DEVICE_LOOKUP.get().copied().unwrap_or(sys::device_lookup),
            std::ptr::null(),
        );
    }
}

/// `device_load`: an image of `bytes` bytes at `host` loaded on `device`.
pub fn device_load(device: usize, host: usize, bytes: usize) {
    let told = DEVICES_TOLD.get().is_some_and(|&n| device < n);
    if !told || sys::tool_finalized() {
        return;
    }
    if let Some(f) = CALLBACKS.get().and_then(|c| c.device_load) {
        f(
            device as c_int,
            std::ptr::null(),
            -1,
            std::ptr::null_mut(),
            bytes,
            host as *mut c_void,
            std::ptr::null_mut(),
            0,
        );
    }
}

/// `device_finalize` for every device told, once (the program exits).
pub fn finalize_devices() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::AcqRel) || sys::tool_finalized() {
        return;
    }
    tracing::flush_all();
    if let (Some(f), Some(&n)) = (
        CALLBACKS.get().and_then(|c| c.device_finalize),
        DEVICES_TOLD.get(),
    ) {
        for id in 0..n {
            f(id as c_int);
        }
    }
}

/// Records the return address of the program's call into the runtime (the capi's entry points
/// do, before anything else), reported as `codeptr_ra`.
pub fn set_return_address(ra: usize) {
    // Without a tool nothing reads it: no thread-local access on every construct.
    if ACTIVE.load(Ordering::Relaxed) || tracing::any() {
        let _ = CODE.try_with(|c| c.set(ra));
    }
}

fn return_address() -> usize {
    CODE.try_with(Cell::get).unwrap_or(0)
}

fn next_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// The device number a tool knows for the runtime's device `id` (the host share, past the
/// program's devices, is the initial device).
fn tool_device(id: usize) -> c_int {
    let initial = INITIAL_DEVICE.load(Ordering::Relaxed);
    match c_int::try_from(id) {
        Ok(d) if d < initial => d,
        _ => initial,
    }
}

struct State {
    kind: Kind,
    device: c_int,
    /// The region's `ompt_data_t` (EMI callbacks: the tool's to set at the beginning).
    data: AtomicU64,
    /// Its target id (non-EMI callbacks).
    id: u64,
    task: usize,
    target_task: usize,
    code: usize,
}

impl State {
    fn data_ptr(&self) -> *mut sys::Data {
        self.data.as_ptr()
    }

    /// The region's trace record on its device.
    fn trace(&self, endpoint: c_int) {
        if tracing_on() {
            let device = usize::try_from(self.device).unwrap_or(usize::MAX);
            tracing::region(
                device,
                self.kind as c_int,
                endpoint,
                self.task as u64,
                self.id,
                self.code,
            );
        }
    }

    fn emit(&self, cb: &ToolCallbacks, endpoint: c_int) {
        let code = self.code as *const c_void;
        if let Some(f) = cb.target_emi {
            f(
                self.kind as c_int,
                endpoint,
                self.device,
                self.task as *mut sys::Data,
                self.target_task as *mut sys::Data,
                self.data_ptr(),
                code,
            );
        } else if let Some(f) = cb.target {
            f(
                self.kind as c_int,
                endpoint,
                self.device,
                self.task as *mut sys::Data,
                self.id,
                code,
            );
        }
    }
}

/// A construct on one device as the tool sees it: `target` callbacks at its beginning and end
/// (when dropped). Inert without a tool.
pub struct Region(Option<Arc<State>>);

impl Region {
    /// Begins a construct of `kind` on the runtime's device `device`, on the calling thread's
    /// current task.
    pub fn begin(kind: Kind, device: usize) -> Region {
        let cb = tool();
        let traced = tracing_on();
        if cb.is_none() && !traced {
            return Region(None);
        }
        let all = CALLBACKS.get();
        let task = match AS_TASK.with(Cell::get) {
            0 => all.and_then(|c| c.task_data).map_or(0, sys::tool_task_word),
            word => word,
        };
        let target_task = all
            .and_then(|c| c.target_task_data)
            .map_or(0, sys::tool_task_word);
        let state = Arc::new(State {
            kind,
            device: tool_device(device),
            data: AtomicU64::new(0),
            id: next_id(),
            task,
            target_task,
            code: return_address(),
        });
        if let Some(cb) = cb {
            state.emit(cb, SCOPE_BEGIN);
        }
        state.trace(SCOPE_BEGIN);
        Region(Some(state))
    }

    /// Makes this the calling thread's current region until the guard is dropped: data
    /// operations and submissions there are reported as its.
    pub fn enter(&self) -> Entered {
        let Some(s) = &self.0 else {
            return Entered(None);
        };
        let prev = CURRENT
            .try_with(|c| c.replace(Some(s.clone())))
            .ok()
            .flatten();
        Entered(Some(prev))
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        if let Some(s) = &self.0 {
            if let Some(cb) = tool() {
                s.emit(cb, SCOPE_END);
            }
            s.trace(SCOPE_END);
        }
    }
}

/// The current region of a thread while it lives (see [`Region::enter`]).
pub struct Entered(Option<Option<Arc<State>>>);

impl Drop for Entered {
    fn drop(&mut self) {
        if let Some(prev) = self.0.take() {
            let _ = CURRENT.try_with(|c| *c.borrow_mut() = prev);
        }
    }
}

fn current() -> Option<Arc<State>> {
    CURRENT.try_with(|c| c.borrow().clone()).ok().flatten()
}

/// Where a data operation reads and writes: addresses and tool device numbers.
#[derive(Debug, Clone, Copy)]
pub struct Transfer {
    /// Source address.
    pub src: usize,
    /// Source device (the runtime's device number, or `None` for the host).
    pub src_device: Option<usize>,
    /// Destination address.
    pub dst: usize,
    /// Destination device (`None`: the host).
    pub dst_device: Option<usize>,
    /// Bytes.
    pub bytes: usize,
}

impl Transfer {
    /// `bytes` from the host at `host` to `device` at `tgt`.
    pub fn host_to_device(device: usize, host: usize, tgt: usize, bytes: usize) -> Transfer {
        Transfer {
            src: host,
            src_device: None,
            dst: tgt,
            dst_device: Some(device),
            bytes,
        }
    }

    /// `bytes` from `device` at `tgt` to the host at `host`.
    pub fn device_to_host(device: usize, tgt: usize, host: usize, bytes: usize) -> Transfer {
        Transfer {
            src: tgt,
            src_device: Some(device),
            dst: host,
            dst_device: None,
            bytes,
        }
    }
}

fn device_num(d: Option<usize>) -> c_int {
    d.map_or_else(|| INITIAL_DEVICE.load(Ordering::Relaxed), tool_device)
}

/// Reports the data operation `op` around `f`: the EMI callback at its beginning and end, the
/// other one at its beginning. `dst_of` gives the destination once `f` returned (an
/// allocation's address).
fn data_op_around<R>(
    op: Op,
    t: Transfer,
    f: impl FnOnce() -> R,
    dst_of: impl Fn(&R) -> usize,
) -> R {
    let cb = tool();
    let traced = tracing_on();
    if cb.is_none() && !traced {
        return f();
    }
    let region = current();
    let none = AtomicU64::new(0);
    let (data, target_task, id, code) = match &region {
        Some(s) => (s.data_ptr(), s.target_task, s.id, s.code),
        None => (none.as_ptr(), 0, 0, return_address()),
    };
    let (src_dev, dst_dev) = match op {
        Op::Delete => (device_num(t.src_device), -1),
        _ => (device_num(t.src_device), device_num(t.dst_device)),
    };
    let mut host_op = 0u64;
    let emi = |endpoint: c_int, dst: usize, host_op: &mut u64| {
        if let Some(g) = cb.and_then(|c| c.data_op_emi) {
            g(
                endpoint,
                target_task as *mut sys::Data,
                data,
                host_op,
                op as c_int,
                t.src as *mut c_void,
                src_dev,
                dst as *mut c_void,
                dst_dev,
                t.bytes,
                code as *const c_void,
            );
        }
    };
    if cb.is_some_and(|c| c.data_op_emi.is_some()) {
        emi(SCOPE_BEGIN, t.dst, &mut host_op);
    } else {
        let g = cb.and_then(|c| c.data_op);
        if g.is_some() || traced {
            host_op = next_id();
        }
        if let Some(g) = g {
            g(
                id,
                host_op,
                op as c_int,
                t.src as *mut c_void,
                src_dev,
                t.dst as *mut c_void,
                dst_dev,
                t.bytes,
                code as *const c_void,
            );
        }
    }
    // The record goes to the trace of the device the operation is on.
    let pending = if traced {
        let on = match op {
            Op::FromDevice | Op::Delete => src_dev,
            _ => dst_dev,
        };
        usize::try_from(on).ok().and_then(|d| {
            tracing::data_op(
                d,
                id,
                host_op,
                op,
                (t.src, src_dev, t.dst, dst_dev, t.bytes),
                code,
            )
        })
    } else {
        None
    };
    let r = tracing::issue(pending, f);
    if cb.is_some_and(|c| c.data_op_emi.is_some()) {
        emi(SCOPE_END, dst_of(&r), &mut host_op);
    }
    r
}

/// Reports an allocation of `bytes` on `device` for the host data at `host` (0: none) around
/// `f`, which returns the device address.
pub fn alloc<E>(
    device: usize,
    host: usize,
    bytes: usize,
    f: impl FnOnce() -> Result<usize, E>,
) -> Result<usize, E> {
    let t = Transfer::host_to_device(device, host, 0, bytes);
    data_op_around(Op::Alloc, t, f, |r| *r.as_ref().unwrap_or(&0))
}

/// Reports the freeing of device memory at `ptr` on `device` around `f`.
pub fn delete<R>(device: usize, ptr: usize, f: impl FnOnce() -> R) -> R {
    let t = Transfer::device_to_host(device, ptr, 0, 0);
    data_op_around(Op::Delete, t, f, |_| 0)
}

/// Reports a copy (`ToDevice`, `FromDevice`) or an association described by `t` around `f`.
pub fn transfer<R>(op: Op, t: Transfer, f: impl FnOnce() -> R) -> R {
    data_op_around(op, t, f, |_| t.dst)
}

/// Reports the submission of a kernel of `num_teams` teams (0: the runtime chooses) around `f`,
/// as the current region's.
pub fn submit<R>(num_teams: u32, f: impl FnOnce() -> R) -> R {
    let cb = tool();
    let traced = tracing_on();
    if cb.is_none() && !traced {
        return f();
    }
    let region = current();
    let none = AtomicU64::new(0);
    let (data, id) = match &region {
        Some(s) => (s.data_ptr(), s.id),
        None => (none.as_ptr(), 0),
    };
    let mut host_op = 0u64;
    if let Some(g) = cb.and_then(|c| c.submit_emi) {
        g(SCOPE_BEGIN, data, &mut host_op, num_teams);
    } else {
        let g = cb.and_then(|c| c.submit);
        if g.is_some() || traced {
            host_op = next_id();
        }
        if let Some(g) = g {
            g(id, host_op, num_teams);
        }
    }
    let pending = region.as_ref().and_then(|s| {
        let device = usize::try_from(s.device).ok()?;
        traced
            .then(|| tracing::kernel(device, id, host_op, num_teams))
            .flatten()
    });
    let r = tracing::issue(pending, f);
    if let Some(g) = cb.and_then(|c| c.submit_emi) {
        g(SCOPE_END, data, &mut host_op, num_teams);
    }
    r
}
