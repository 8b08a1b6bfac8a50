//! libomp's entry points the runtime calls, found by name in the process (libomptarget links
//! them weakly too): the offload policy, the default device, task async handles, thread counts.
//!
//! When libomp is not in the process (a unit test, say) each call falls back to the value
//! libomptarget assumes without libomp.

use crate::exit::libomp_call;
use std::ffi::c_void;
use std::sync::OnceLock;

/// `__kmpc_fork_teams` / `__kmpc_fork_call`: `(ident_t *, kmp_int32 argc, kmpc_micro, ...)`.
type Fork = unsafe extern "C" fn(*const c_void, i32, usize, ...);
/// `__kmpc_for_static_init_*`: `(loc, gtid, schedtype, plastiter, plower, pupper, pstride, incr,
/// chunk)`, with the bound pointers' type given by the suffix.
type StaticInit<T, S> =
    extern "C" fn(*const c_void, i32, i32, *mut i32, *mut T, *mut T, *mut S, S, S);

/// `__kmpc_reduce(_nowait)(loc, gtid, num_vars, reduce_size, reduce_data, reduce_func, lck)`.
type Reduce = extern "C" fn(*const c_void, i32, i32, usize, *mut c_void, usize, *mut c_void) -> i32;
/// `__kmpc_end_reduce(_nowait)(loc, gtid, lck)`.
type EndReduce = extern "C" fn(*const c_void, i32, *mut c_void);

struct Kmp {
    get_target_offload: Option<extern "C" fn() -> i32>,
    global_thread_num: Option<extern "C" fn(*const c_void) -> i32>,
    async_handle_ptr: Option<extern "C" fn(i32) -> *mut *mut c_void>,
    has_task_team: Option<extern "C" fn(i32) -> bool>,
    get_default_device: Option<extern "C" fn() -> i32>,
    get_max_threads: Option<extern "C" fn() -> i32>,
    set_num_threads: Option<extern "C" fn(i32)>,
    push_num_teams: Option<extern "C" fn(*const c_void, i32, i32, i32)>,
    get_num_places: Option<extern "C" fn() -> i32>,
    taskwait: Option<extern "C" fn(*const c_void, i32) -> i32>,
    thread_num: Option<extern "C" fn() -> i32>,
    num_threads: Option<extern "C" fn() -> i32>,
    level: Option<extern "C" fn() -> i32>,
    active_level: Option<extern "C" fn() -> i32>,
    ancestor_thread_num: Option<extern "C" fn(i32) -> i32>,
    get_max_active_levels: Option<extern "C" fn() -> i32>,
    set_max_active_levels: Option<extern "C" fn(i32)>,
    set_blocktime: Option<extern "C" fn(i32)>,
    fork_teams: Option<Fork>,
    fork_call: Option<Fork>,
    team_num: Option<extern "C" fn() -> i32>,
    num_teams: Option<extern "C" fn() -> i32>,
    num_procs: Option<extern "C" fn() -> i32>,
    init_4: Option<StaticInit<i32, i32>>,
    init_4u: Option<StaticInit<u32, i32>>,
    init_8: Option<StaticInit<i64, i64>>,
    init_8u: Option<StaticInit<u64, i64>>,
    reduce_nowait: Option<Reduce>,
    reduce: Option<Reduce>,
    end_reduce_nowait: Option<EndReduce>,
    end_reduce: Option<EndReduce>,
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
            push_num_teams: sym!(
                "__kmpc_push_num_teams",
                extern "C" fn(*const c_void, i32, i32, i32)
            ),
            get_num_places: sym!("omp_get_num_places", extern "C" fn() -> i32),
            taskwait: sym!(
                "__kmpc_omp_taskwait",
                extern "C" fn(*const c_void, i32) -> i32
            ),
            thread_num: sym!("omp_get_thread_num", extern "C" fn() -> i32),
            num_threads: sym!("omp_get_num_threads", extern "C" fn() -> i32),
            level: sym!("omp_get_level", extern "C" fn() -> i32),
            active_level: sym!("omp_get_active_level", extern "C" fn() -> i32),
            ancestor_thread_num: sym!("omp_get_ancestor_thread_num", extern "C" fn(i32) -> i32),
            get_max_active_levels: sym!("omp_get_max_active_levels", extern "C" fn() -> i32),
            set_max_active_levels: sym!("omp_set_max_active_levels", extern "C" fn(i32)),
            set_blocktime: sym!("kmp_set_blocktime", extern "C" fn(i32)),
            fork_teams: sym!("__kmpc_fork_teams", Fork),
            fork_call: sym!("__kmpc_fork_call", Fork),
            team_num: sym!("omp_get_team_num", extern "C" fn() -> i32),
            num_teams: sym!("omp_get_num_teams", extern "C" fn() -> i32),
            num_procs: sym!("omp_get_num_procs", extern "C" fn() -> i32),
            init_4: sym!("__kmpc_for_static_init_4", StaticInit<i32, i32>),
            init_4u: sym!("__kmpc_for_static_init_4u", StaticInit<u32, i32>),
            init_8: sym!("__kmpc_for_static_init_8", StaticInit<i64, i64>),
            init_8u: sym!("__kmpc_for_static_init_8u", StaticInit<u64, i64>),
            reduce_nowait: sym!("__kmpc_reduce_nowait", Reduce),
            reduce: sym!("__kmpc_reduce", Reduce),
            end_reduce_nowait: sym!("__kmpc_end_reduce_nowait", EndReduce),
            end_reduce: sym!("__kmpc_end_reduce", EndReduce),
        }
    })
}

/// `omp_get_num_places()`: the places of `OMP_PLACES` (0 without libomp or places).
pub fn num_places() -> i32 {
    kmp().get_num_places.map_or(0, |f| libomp_call(|| f()))
}

/// `OMP_TARGET_OFFLOAD` as libomp parsed it: 0 disabled, 1 default, 2 mandatory.
pub fn target_offload() -> i32 {
    kmp().get_target_offload.map_or(1, |f| libomp_call(|| f()))
}

/// The calling thread's `default-device-var`.
pub fn default_device() -> i32 {
    kmp().get_default_device.map_or(0, |f| libomp_call(|| f()))
}

/// The async handle slot of the task the calling thread executes, when that task can be
/// completed later through `__tgt_target_nowait_query` (it runs inside a task team).
pub fn async_handle_slot() -> Option<usize> {
    let k = kmp();
    let (num, has_team, slot_of) = (k.global_thread_num?, k.has_task_team?, k.async_handle_ptr?);
    libomp_call(|| {
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
    kmp().get_max_threads.map_or(1, |f| libomp_call(|| f()))
}

/// Sets the calling thread's `nthreads-var`.
pub fn set_num_threads(n: i32) {
    if let Some(f) = kmp().set_num_threads {
        libomp_call(|| f(n))
    }
}

/// Sets the thread count of the next `teams` construct the calling thread encounters, as a
/// `thread_limit(threads)` clause would (the number of teams stays libomp's default). libomp sizes
/// a `teams` region's parallel regions from this, not from `nthreads-var`; a construct's own
/// `num_teams`/`thread_limit` clauses replace it. Only for a thread about to run a `teams`
/// construct: the values otherwise stay pending and size the thread's next parallel region.
pub fn push_teams_threads(threads: i32) {
    libomp_call(|| push_num_teams(0, global_thread_num(), 0, threads))
}

/// `omp_get_thread_num()` (0 without libomp: the initial thread).
pub fn thread_num() -> i32 {
    kmp().thread_num.map_or(0, |f| libomp_call(|| f()))
}

/// `omp_get_thread_num()`, or `None` while another thread exits the program (libomp is being
/// shut down: callers in OMPT callbacks skip their work instead of parking).
pub fn thread_num_unless_exiting() -> Option<i32> {
    match kmp().thread_num {
        None => Some(0),
        Some(f) => crate::exit::libomp_call_unless_exiting(|| f()),
    }
}

/// `omp_get_num_threads()` (1 without libomp).
pub fn num_threads() -> i32 {
    kmp().num_threads.map_or(1, |f| libomp_call(|| f()))
}

/// `omp_get_level()`: nested parallel regions around the calling thread (0 without libomp).
pub fn level() -> i32 {
    kmp().level.map_or(0, |f| libomp_call(|| f()))
}

/// `omp_get_active_level()` (0 without libomp).
pub fn active_level() -> i32 {
    kmp().active_level.map_or(0, |f| libomp_call(|| f()))
}

/// `omp_get_ancestor_thread_num(level)`: the thread number of the calling thread's ancestor
/// at `level` (-1 for a level that does not exist; 0 without libomp at level 0).
pub fn ancestor_thread_num(level: i32) -> i32 {
    match kmp().ancestor_thread_num {
        Some(f) => libomp_call(|| f(level)),
        None if level == 0 => 0,
        None => -1,
    }
}

/// `omp_get_max_active_levels()` (1 without libomp).
pub fn max_active_levels() -> i32 {
    kmp()
        .get_max_active_levels
        .map_or(1, |f| libomp_call(|| f()))
}

/// `omp_set_max_active_levels(n)` for the calling thread's data environment.
pub fn set_max_active_levels(n: i32) {
    if let Some(f) = kmp().set_max_active_levels {
        libomp_call(|| f(n))
    }
}

/// `kmp_set_blocktime(ms)`: how long the calling thread's future teams' worker threads spin
/// after a parallel region before they sleep (libomp's `KMP_BLOCKTIME` for this thread only).
/// Skipped once the program exits on another thread: the caller, a device's executor starting
/// up, is joined by that thread and must not park.
pub fn set_blocktime(ms: i32) {
    if let Some(f) = kmp().set_blocktime {
        crate::exit::libomp_call_unless_exiting(|| f(ms));
    }
}

/// Makes libomp start its hidden helper threads now, if they are on and not started yet.
///
/// libomp starts them on the first `target nowait` task, and while it does, a thread of another
/// team that forks a new thread meanwhile fails libomp 19's assertion `new_gtid <=
/// __kmp_hidden_helper_threads_num` (kmp_runtime.cpp:4548) and aborts the program. A region of
/// compute units does exactly that (GPU CUs issue `target nowait` while CPU CUs fork their
/// nested teams), so it starts the helpers before its CU threads exist: one empty target task,
/// created and waited for as clang's `target nowait` code does.
pub fn start_hidden_helpers() {
    type Alloc = extern "C" fn(
        *const c_void,
        i32,
        i32,
        usize,
        usize,
        extern "C" fn(i32, *mut c_void) -> i32,
        i64,
    ) -> *mut c_void;
    type Submit = extern "C" fn(*const c_void, i32, *mut c_void) -> i32;
    static STARTED: OnceLock<()> = OnceLock::new();
    extern "C" fn nothing(_gtid: i32, _task: *mut c_void) -> i32 {
        0
    }
    STARTED.get_or_init(|| {
        let (Some(alloc), Some(submit), Some(gtid)) = (
            super::dl::global_symbol("__kmpc_omp_target_task_alloc"),
            super::dl::global_symbol("__kmpc_omp_task"),
            kmp().global_thread_num,
        ) else {
            return;
        };
        // SAFETY: libomp 19's `kmp_task_t *__kmpc_omp_target_task_alloc(ident_t *, kmp_int32
        // gtid, kmp_int32 flags, size_t sizeof_kmp_task_t, size_t sizeof_shareds,
        // kmp_routine_entry_t, kmp_int64 device_id)` and `kmp_int32 __kmpc_omp_task(ident_t *,
        // kmp_int32 gtid, kmp_task_t *)`.
        let (alloc, submit) = unsafe {
            (
                std::mem::transmute::<usize, Alloc>(alloc),
                std::mem::transmute::<usize, Submit>(submit),
            )
        };
        libomp_call(|| {
            let g = gtid(std::ptr::null());
            // 64 bytes: room for kmp_task_t (40) and no privates; no shareds; flags 0 (libomp
            // makes a target task untied and, with helpers on, a hidden helper task).
            let task = alloc(std::ptr::null(), g, 0, 64, 0, nothing, -1);
            if !task.is_null() {
                submit(std::ptr::null(), g, task);
            }
        });
        taskwait();
    });
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
    // SAFETY: the `omp_target_memcpy_async`-family contract: `depobjs` is the program's array of
    // `count` (here `n`, non-null) `omp_depend_t`s, each null or pointing at the
    // `kmp_depend_info_t` libomp made for a `depobj` construct, alive until the routine returns.
    let deps: Vec<DependInfo> = unsafe {
        let ptrs = super::mem::array(depobjs, n);
        ptrs.iter().filter_map(|&p| super::mem::read(p)).collect()
    };
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

// ---- teams and parallel regions of host-device kernels (`device::host::league`) ---------------
//
// Image code of a host device calls these through Spread's stand-ins (the image's imports are
// renamed when it is loaded), so they are called exactly where the image would have called
// libomp: inside a kernel, not through `libomp_call` (a kernel's own libomp calls never are).

/// A region's body as the threads running it see it: called with the `gtid`/`btid` pointers
/// libomp passes an outlined region.
pub type RegionBody<'a> = &'a (dyn Fn(usize, usize) + Sync);

/// The outlined function libomp runs on each thread of a region forked by [`fork_teams`] or
/// [`fork_call`]: its one argument is the address of the forking thread's [`RegionBody`].
extern "C" fn run_body(gtid: *mut i32, btid: *mut i32, body: *const RegionBody<'_>) {
    // SAFETY: `body` is the address of the `RegionBody` that `fork` passed to libomp, which
    // lives on the forking thread's stack until libomp has joined every thread of the region.
    let body = unsafe { &*body };
    body(gtid as usize, btid as usize)
}

/// Forks a region with libomp's `fork` entry point, every thread running `body`.
fn fork(f: Option<Fork>, loc: usize, body: RegionBody<'_>) -> bool {
    let Some(f) = f else { return false };
    let body: *const RegionBody<'_> = &body;
    let outlined: extern "C" fn(*mut i32, *mut i32, *const RegionBody<'_>) = run_body;
    // SAFETY: libomp 19's `__kmpc_fork_teams`/`__kmpc_fork_call(ident_t *loc, kmp_int32 argc,
    // kmpc_micro microtask, ...)` with one pointer argument; libomp calls `run_body` with it on
    // each thread and returns after the region, while `body` is still alive.
    unsafe { f(loc as *const c_void, 1, outlined as usize, body) };
    true
}

/// `#pragma omp teams` with the league shape pushed before (`push_num_teams`): each team's
/// initial thread runs `body`. False without libomp.
pub fn fork_teams(loc: usize, body: RegionBody<'_>) -> bool {
    fork(kmp().fork_teams, loc, body)
}

/// `#pragma omp parallel` (with the thread count pushed before, if any): every thread of the
/// new team runs `body`. False without libomp.
pub fn fork_call(loc: usize, body: RegionBody<'_>) -> bool {
    fork(kmp().fork_call, loc, body)
}

/// `__kmpc_push_num_teams(loc, gtid, teams, threads)`: the shape of the calling thread's next
/// `teams` region.
pub fn push_num_teams(loc: usize, gtid: i32, teams: i32, threads: i32) {
    if let Some(push) = kmp().push_num_teams {
        push(loc as *const c_void, gtid, teams, threads)
    }
}

/// The calling thread's global thread number (`__kmpc_global_thread_num`).
pub fn global_thread_num() -> i32 {
    kmp().global_thread_num.map_or(0, |f| f(std::ptr::null()))
}

/// libomp's `omp_get_team_num()`: the team of the calling thread in the league libomp formed.
pub fn team_num() -> i32 {
    kmp().team_num.map_or(0, |f| f())
}

/// libomp's `omp_get_num_teams()`: the teams libomp formed for the current league.
pub fn num_teams() -> i32 {
    kmp().num_teams.map_or(1, |f| f())
}

/// `omp_get_num_procs()`: the processors libomp may use (1 without libomp).
pub fn num_procs() -> i32 {
    kmp().num_procs.map_or(1, |f| f())
}

/// Pointers a `__kmpc_for_static_init_*` call writes its result through.
pub struct StaticInitArgs<T, S> {
    /// `ident_t *`, passed on.
    pub loc: usize,
    /// The calling thread's global thread number.
    pub gtid: i32,
    /// libomp's schedule number.
    pub sched: i32,
    /// `plastiter`.
    pub last: *mut i32,
    /// `plower`.
    pub lower: *mut T,
    /// `pupper`.
    pub upper: *mut T,
    /// `pstride`.
    pub stride: *mut S,
    /// `incr`.
    pub incr: S,
    /// `chunk`.
    pub chunk: S,
}

macro_rules! static_init {
    ($name:ident, $field:ident, $t:ty, $s:ty) => {
        /// libomp's `__kmpc_for_static_init_*` of this loop type, for a schedule that does not
        /// depend on the league. False without libomp.
        pub fn $name(a: &StaticInitArgs<$t, $s>) -> bool {
            let Some(f) = kmp().$field else {
                return false;
            };
            f(
                a.loc as *const c_void,
                a.gtid,
                a.sched,
                a.last,
                a.lower,
                a.upper,
                a.stride,
                a.incr,
                a.chunk,
            );
            true
        }
    };
}
static_init!(for_static_init_4, init_4, i32, i32);
static_init!(for_static_init_4u, init_4u, u32, i32);
static_init!(for_static_init_8, init_8, i64, i64);
static_init!(for_static_init_8u, init_8u, u64, i64);

/// The arguments of a `__kmpc_reduce(_nowait)` call, passed on as they came.
pub struct ReduceArgs {
    /// `ident_t *`.
    pub loc: usize,
    /// The calling thread's global thread number.
    pub gtid: i32,
    /// Reduction variables.
    pub num_vars: i32,
    /// Bytes of `data`.
    pub size: usize,
    /// The list of private copies.
    pub data: *mut c_void,
    /// The combiner `void (*)(void *lhs, void *rhs)`.
    pub func: usize,
    /// The construct's `kmp_critical_name`.
    pub lock: *mut c_void,
}

fn reduce_with(f: Option<Reduce>, a: &ReduceArgs) -> i32 {
    // Without libomp nothing runs in parallel: 1 asks the caller to combine directly.
    f.map_or(1, |f| {
        f(
            a.loc as *const c_void,
            a.gtid,
            a.num_vars,
            a.size,
            a.data,
            a.func,
            a.lock,
        )
    })
}

/// libomp's `__kmpc_reduce_nowait`: 1 (combine, then end), 2 (combine atomically) or 0.
pub fn reduce_nowait(a: &ReduceArgs) -> i32 {
    reduce_with(kmp().reduce_nowait, a)
}

/// libomp's `__kmpc_reduce`, as [`reduce_nowait`] with a barrier at its end.
pub fn reduce(a: &ReduceArgs) -> i32 {
    reduce_with(kmp().reduce, a)
}

/// libomp's `__kmpc_end_reduce_nowait`.
pub fn end_reduce_nowait(loc: usize, gtid: i32, lock: *mut c_void) {
    if let Some(f) = kmp().end_reduce_nowait {
        f(loc as *const c_void, gtid, lock)
    }
}

/// libomp's `__kmpc_end_reduce`.
pub fn end_reduce(loc: usize, gtid: i32, lock: *mut c_void) {
    if let Some(f) = kmp().end_reduce {
        f(loc as *const c_void, gtid, lock)
    }
}
