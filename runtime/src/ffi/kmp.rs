//! libomp's entry points the runtime calls, found by name in the process (libomptarget links
//! them weakly too): the offload policy, the default device, task async handles, thread counts.
//!
//! When libomp is not in the process (a unit test, say) each call falls back to the value
//! libomptarget assumes without libomp.

use parking_lot::Mutex;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Threads inside one of the short libomp calls below.
static IN_LIBOMP: AtomicUsize = AtomicUsize::new(0);
/// Set while the program exits (see [`close`]).
static CLOSED: AtomicBool = AtomicBool::new(false);
/// The thread that closed the gate, which may still call libomp.
static CLOSER: Mutex<Option<std::thread::ThreadId>> = Mutex::new(None);

/// Runs a short libomp call, unless the program is exiting on another thread: libomp shuts down
/// in its destructor, after the program's `atexit` handlers, and a thread that enters it after
/// that re-initialises it half-way and aborts (`kmp_runtime.cpp(7323)`, about 1 run in 150 of
/// test-suite/runtime/exit_while_offloading.c under load). Such a thread waits for the end
/// instead. With [`close`] this is Dekker's handshake: either the thread sees the gate closed,
/// or the exiting thread sees it inside and waits until it has left.
fn gated<R>(f: impl FnOnce() -> R) -> R {
    IN_LIBOMP.fetch_add(1, Ordering::SeqCst);
    if CLOSED.load(Ordering::SeqCst) && *CLOSER.lock() != Some(std::thread::current().id()) {
        IN_LIBOMP.fetch_sub(1, Ordering::SeqCst);
        loop {
            std::thread::park();
        }
    }
    let r = f();
    IN_LIBOMP.fetch_sub(1, Ordering::SeqCst);
    r
}

/// Called when the program's last offload image unregisters (it exits): from now on other
/// threads no longer enter libomp through Spread, and those inside a call leave it before this
/// returns (the calls are short; a thread still inside after a second is left be).
pub fn close() {
    *CLOSER.lock() = Some(std::thread::current().id());
    CLOSED.store(true, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(1);
    while IN_LIBOMP.load(Ordering::SeqCst) != 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// Undoes [`close`] (a program registered offload images again).
pub fn reopen() {
    CLOSED.store(false, Ordering::SeqCst);
    *CLOSER.lock() = None;
}

struct Kmp {
    get_target_offload: Option<extern "C" fn() -> i32>,
    global_thread_num: Option<extern "C" fn(*const c_void) -> i32>,
    async_handle_ptr: Option<extern "C" fn(i32) -> *mut *mut c_void>,
    has_task_team: Option<extern "C" fn(i32) -> bool>,
    get_default_device: Option<extern "C" fn() -> i32>,
    get_max_threads: Option<extern "C" fn() -> i32>,
    set_num_threads: Option<extern "C" fn(i32)>,
    get_num_places: Option<extern "C" fn() -> i32>,
    taskwait: Option<extern "C" fn(*const c_void, i32) -> i32>,
}

fn kmp() -> &'static Kmp {
    static KMP: OnceLock<Kmp> = OnceLock::new();
    KMP.get_or_init(|| {
        macro_rules! sym {
            ($name:literal, $ty:ty) => {
                super::dl::global_symbol($name).map(|a| {
                    // SAFETY: the symbol is libomp 19's function of that name, whose C
                    // signature is the one written here (kmp.h / omp.h).
                    unsafe { std::mem::transmute::<usize, $ty>(a) }
                })
            };
        }
        Kmp {
            get_target_offload: sym!("__kmpc_get_target_offload", extern "C" fn() -> i32),
            global_thread_num: sym!(
                "__kmpc_global_thread_num",
                extern "C" fn(*const c_void) -> i32
            ),
            async_handle_ptr: sym!(
                "__kmpc_omp_get_target_async_handle_ptr",
                extern "C" fn(i32) -> *mut *mut c_void
            ),
            has_task_team: sym!("__kmpc_omp_has_task_team", extern "C" fn(i32) -> bool),
            get_default_device: sym!("omp_get_default_device", extern "C" fn() -> i32),
            get_max_threads: sym!("omp_get_max_threads", extern "C" fn() -> i32),
            set_num_threads: sym!("omp_set_num_threads", extern "C" fn(i32)),
            get_num_places: sym!("omp_get_num_places", extern "C" fn() -> i32),
            taskwait: sym!(
                "__kmpc_omp_taskwait",
                extern "C" fn(*const c_void, i32) -> i32
            ),
        }
    })
}

/// `omp_get_num_places()`: the places of `OMP_PLACES` (0 without libomp or places).
pub fn num_places() -> i32 {
    kmp().get_num_places.map_or(0, |f| gated(|| f()))
}

/// `OMP_TARGET_OFFLOAD` as libomp parsed it: 0 disabled, 1 default, 2 mandatory.
pub fn target_offload() -> i32 {
    kmp().get_target_offload.map_or(1, |f| gated(|| f()))
}

/// The calling thread's `default-device-var`.
pub fn default_device() -> i32 {
    kmp().get_default_device.map_or(0, |f| gated(|| f()))
}

/// The async handle slot of the task the calling thread executes, when that task can be
/// completed later through `__tgt_target_nowait_query` (it runs inside a task team).
pub fn async_handle_slot() -> Option<usize> {
    let k = kmp();
    let (num, has_team, slot_of) = (k.global_thread_num?, k.has_task_team?, k.async_handle_ptr?);
    gated(|| {
        let gtid = num(std::ptr::null());
        if !has_team(gtid) {
            return None;
        }
        let slot = slot_of(gtid);
        (!slot.is_null()).then_some(slot as usize)
    })
}

/// Stores `handle` in a slot returned by [`async_handle_slot`] (0 clears it).
pub fn set_async_handle(slot: usize, handle: usize) {
    // SAFETY: `slot` is the `async_handle` field of the current libomp task, which stays valid
    // while libomp keeps the task alive to poll it.
    unsafe { *(slot as *mut usize) = handle }
}

/// Reads an async handle slot libomp passes to `__tgt_target_nowait_query`.
pub fn get_async_handle(slot: usize) -> usize {
    // SAFETY: as for `set_async_handle`.
    unsafe { *(slot as *const usize) }
}

/// `#pragma omp taskwait` for the calling thread's current task: returns when every child task
/// it has created so far (its `target nowait` tasks among them) has completed, running tasks
/// meanwhile. Without libomp there are no tasks to wait for.
pub fn taskwait() {
    let k = kmp();
    if let (Some(gtid), Some(wait)) = (k.global_thread_num, k.taskwait) {
        wait(std::ptr::null(), gtid(std::ptr::null()));
    }
}

/// The calling thread's `nthreads-var`.
pub fn max_threads() -> i32 {
    kmp().get_max_threads.map_or(1, |f| gated(|| f()))
}

/// Sets the calling thread's `nthreads-var`.
pub fn set_num_threads(n: i32) {
    if let Some(f) = kmp().set_num_threads {
        gated(|| f(n))
    }
}

/// `kmp_depend_info_t`: one dependence of a libomp task (what an `omp_depend_t` points at).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct DependInfo {
    pub base_addr: isize,
    pub len: usize,
    pub flags: u8,
}

const _: () = assert!(std::mem::size_of::<DependInfo>() == 24);

/// Waits until the tasks the depend objects `depobjs` (an `omp_depend_t` array) refer to have
/// completed, as `taskwait depend(depobj: ...)` would.
pub fn wait_depobjs(count: i32, depobjs: *const *const DependInfo) {
    type WaitDeps =
        extern "C" fn(*const c_void, i32, i32, *const DependInfo, i32, *const DependInfo);
    static WAIT: OnceLock<Option<WaitDeps>> = OnceLock::new();
    let n = usize::try_from(count).unwrap_or(0);
    if n == 0 || depobjs.is_null() {
        return;
    }
    let Some(wait) = *WAIT.get_or_init(|| {
        super::dl::global_symbol("__kmpc_omp_wait_deps").map(|a| {
            // SAFETY: libomp's `__kmpc_omp_wait_deps(ident_t*, kmp_int32 gtid, kmp_int32 ndeps,
            // kmp_depend_info_t*, kmp_int32 ndeps_noalias, kmp_depend_info_t*)`.
            unsafe { std::mem::transmute::<usize, WaitDeps>(a) }
        })
    }) else {
        return;
    };
    let ptrs = super::mem::array(depobjs, n);
    let deps: Vec<DependInfo> = ptrs.iter().filter_map(|&p| super::mem::read(p)).collect();
    let gtid = kmp().global_thread_num.map_or(0, |f| f(std::ptr::null()));
    let len = i32::try_from(deps.len()).unwrap_or(0);
    wait(
        std::ptr::null(),
        gtid,
        len,
        deps.as_ptr(),
        0,
        std::ptr::null(),
    );
}
