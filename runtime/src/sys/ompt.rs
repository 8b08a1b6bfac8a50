//! The state of Spread's OMPT tool that the layers below the tool read: whether libomp runs it,
//! whether it sees synchronization points, and which threads run a host device's kernel (whose
//! parallel regions and barriers are not the program's). The tool's callbacks are in
//! `capi::ompt`.

use std::cell::Cell;
use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// 0: libomp has not started the tool; 1: it runs; 2: it could not register its callbacks.
pub(crate) static TOOL_STATE: AtomicU8 = AtomicU8::new(0);

/// The tool's `sync-region` callback runs (lazy `device(any)` coherence).
pub(crate) static SYNC_SEEN: AtomicBool = AtomicBool::new(false);

/// Whether libomp runs Spread's OMPT tool (so a pinned kernel's worker threads are pinned too).
pub fn tool_active() -> bool {
    TOOL_STATE.load(Ordering::Acquire) == 1
}

/// Whether the tool brings lazy `device(any)` outputs home at sync points; when it does not
/// (another tool is loaded), the program must call `spread_any_flush` itself.
pub fn sync_points_seen() -> bool {
    SYNC_SEEN.load(Ordering::Acquire)
}

thread_local! {
    /// Kernels of host devices (and parallel regions inside them) the thread is running.
    pub(crate) static INNER: Cell<u32> = const { Cell::new(0) };
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

// ---------------------------------------------------------------------------------------------
// The program's tool, as libomp hands it to an offload runtime.

/// `ompt_data_t`: the 64-bit word a tool keeps with a region or task.
pub type Data = u64;

/// `ompt_function_lookup_t`.
pub type Lookup = extern "C" fn(*const c_char) -> *const c_void;
/// `ompt_callback_device_initialize_t`.
pub type DeviceInitialize = extern "C" fn(c_int, *const c_char, *mut c_void, Lookup, *const c_char);
/// `ompt_callback_device_finalize_t`.
pub type DeviceFinalize = extern "C" fn(c_int);
/// `ompt_callback_device_load_t`.
pub type DeviceLoad =
    extern "C" fn(c_int, *const c_char, i64, *mut c_void, usize, *mut c_void, *mut c_void, u64);
/// `ompt_callback_target_t`.
pub type Target = extern "C" fn(c_int, c_int, c_int, *mut Data, u64, *const c_void);
/// `ompt_callback_target_emi_t`.
pub type TargetEmi =
    extern "C" fn(c_int, c_int, c_int, *mut Data, *mut Data, *mut Data, *const c_void);
/// `ompt_callback_target_data_op_t`.
pub type DataOp =
    extern "C" fn(u64, u64, c_int, *mut c_void, c_int, *mut c_void, c_int, usize, *const c_void);
/// `ompt_callback_target_data_op_emi_t`.
pub type DataOpEmi = extern "C" fn(
    c_int,
    *mut Data,
    *mut Data,
    *mut u64,
    c_int,
    *mut c_void,
    c_int,
    *mut c_void,
    c_int,
    usize,
    *const c_void,
);
/// `ompt_callback_target_submit_t`.
pub type Submit = extern "C" fn(u64, u64, c_uint);
/// `ompt_callback_target_submit_emi_t`.
pub type SubmitEmi = extern "C" fn(c_int, *mut Data, *mut u64, c_uint);
/// `ompt_get_task_data_t` / `ompt_get_target_task_data_t` (libomp's, for an offload runtime).
pub type TaskData = extern "C" fn() -> *mut Data;

/// The callbacks the program's tool registered for device work, and libomp's task queries,
/// as libomp gives them to an offload runtime.
#[derive(Clone, Copy, Default)]
pub struct ToolCallbacks {
    /// `ompt_callback_device_initialize`.
    pub device_initialize: Option<DeviceInitialize>,
    /// `ompt_callback_device_finalize`.
    pub device_finalize: Option<DeviceFinalize>,
    /// `ompt_callback_device_load`.
    pub device_load: Option<DeviceLoad>,
    /// `ompt_callback_target`.
    pub target: Option<Target>,
    /// `ompt_callback_target_emi`.
    pub target_emi: Option<TargetEmi>,
    /// `ompt_callback_target_data_op`.
    pub data_op: Option<DataOp>,
    /// `ompt_callback_target_data_op_emi`.
    pub data_op_emi: Option<DataOpEmi>,
    /// `ompt_callback_target_submit`.
    pub submit: Option<Submit>,
    /// `ompt_callback_target_submit_emi`.
    pub submit_emi: Option<SubmitEmi>,
    /// libomp's `ompt_get_task_data`.
    pub task_data: Option<TaskData>,
    /// libomp's `ompt_get_target_task_data`.
    pub target_task_data: Option<TaskData>,
}

/// The lookup function a tool receives with each device (`device_initialize`). It finds
/// nothing, as stock libomptarget 19's on every device.
pub extern "C" fn device_lookup(_name: *const c_char) -> *const c_void {
    std::ptr::null()
}

/// `ompt_start_tool_result_t` of an offload runtime.
#[repr(C)]
struct ConnectResult {
    initialize: extern "C" fn(Lookup, c_int, *mut c_void) -> c_int,
    finalize: extern "C" fn(*mut c_void),
    tool_data: u64,
}

/// libomp's lookup for an offload runtime, once it called [`connect_initialize`].
static TARGET_LOOKUP: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// libomp finalized its tool: no more callbacks may reach it.
static TOOL_FINALIZED: AtomicBool = AtomicBool::new(false);

static CONNECT: ConnectResult = ConnectResult {
    initialize: connect_initialize,
    finalize: connect_finalize,
    tool_data: 0,
};

extern "C" fn connect_initialize(lookup: Lookup, _device: c_int, _data: *mut c_void) -> c_int {
    TARGET_LOOKUP.store(lookup as usize, Ordering::Release);
    0
}

extern "C" fn connect_finalize(_data: *mut c_void) {
    TOOL_FINALIZED.store(true, Ordering::Release);
}

/// Whether libomp has finalized the tool (at exit): its callbacks must not be called any more.
pub fn tool_finalized() -> bool {
    TOOL_FINALIZED.load(Ordering::Acquire)
}

/// Connects to libomp as libomptarget does (`ompt_libomp_connect`): when a tool runs (the
/// program's, one of `OMP_TOOL_LIBRARIES`, or Spread's own), libomp hands over the callbacks it
/// registered for device work. `None` when no tool runs or libomp lacks OMPT.
pub fn connect() -> Option<ToolCallbacks> {
    type Connect = extern "C" fn(*const ConnectResult);
    type GetCallback = extern "C" fn(c_int, *mut usize) -> c_int;
    let addr = super::dl::global_symbol("ompt_libomp_connect")?;
    // SAFETY: libomp's `ompt_libomp_connect(ompt_start_tool_result_t *)` (LLVM 19's
    // ompt-general.cpp); it calls `CONNECT.initialize` now, when a tool runs, and keeps the
    // (static) result to call its `finalize` at exit.
    let connect = unsafe { std::mem::transmute::<usize, Connect>(addr) };
    connect(&CONNECT);
    let lookup = TARGET_LOOKUP.load(Ordering::Acquire);
    if lookup == 0 {
        return None;
    }
    // SAFETY: the address libomp passed to `connect_initialize` as its lookup function.
    let lookup = unsafe { std::mem::transmute::<usize, Lookup>(lookup) };
    let find = |name: &std::ffi::CStr| {
        let p = lookup(name.as_ptr());
        (!p.is_null()).then_some(p as usize)
    };
    let get = find(c"ompt_get_callback")?;
    // SAFETY: `ompt_get_callback_t` (omp-tools.h): the code of an event and where to store the
    // registered callback.
    let get = unsafe { std::mem::transmute::<usize, GetCallback>(get) };
    let registered = |code: c_int| {
        let mut f = 0usize;
        (get(code, &mut f) == 1 && f != 0).then_some(f)
    };
    macro_rules! typed {
        ($f:expr, $ty:ty) => {
            $f.map(|f| {
                // SAFETY: the callback the tool registered for the event whose C type OMPT
                // fixes as `$ty` (omp-tools.h), or libomp's task query of that type.
                unsafe { std::mem::transmute::<usize, $ty>(f) }
            })
        };
    }
    Some(ToolCallbacks {
        device_initialize: typed!(registered(12), DeviceInitialize),
        device_finalize: typed!(registered(13), DeviceFinalize),
        device_load: typed!(registered(14), DeviceLoad),
        target: typed!(registered(8), Target),
        target_emi: typed!(registered(33), TargetEmi),
        data_op: typed!(registered(9), DataOp),
        data_op_emi: typed!(registered(34), DataOpEmi),
        submit: typed!(registered(10), Submit),
        submit_emi: typed!(registered(35), SubmitEmi),
        task_data: typed!(find(c"ompt_get_task_data"), TaskData),
        target_task_data: typed!(find(c"ompt_get_target_task_data"), TaskData),
    })
}
