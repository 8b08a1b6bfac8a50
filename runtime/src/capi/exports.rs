//! The C ABI: every entry point of LLVM 19's `libomptarget.so.19.1` (version `VERS1.0`), plus
//! `__tgt_get_num_devices` for libomp. Each function converts its arguments and calls the safe
//! runtime; none holds logic of its own beyond libomptarget's argument checks.

use super::call_site::call_site_shim;
use super::guard::guard;
use crate::abi::{BinDesc, DeviceImage, Ident, KernelArgs, OffloadEntry, KERNEL_FLAG_NOWAIT};
use crate::device::LaunchConfig;
use crate::error::ErrorKind;
use crate::info::{self, bits};
use crate::location::{LazyLoc, SourceLoc};
use crate::runtime::mapping::MapArgs;
use crate::runtime::nowait::Completion;
use crate::runtime::report;
use crate::runtime::{self, EntryInfo, Placement, Runtime};
use crate::sys::{kmp, mem};
use std::ffi::{c_char, c_int, c_void};

/// libomptarget's OFFLOAD_FAIL / OMP_TGT_FAIL.
pub(super) const FAIL: c_int = -1;

pub(super) fn loc_of(loc: *const Ident) -> Option<SourceLoc> {
    // SAFETY: `loc` is null or the `ident_t` clang emitted for the construct, a constant of the
    // program's image (so still there when a `LazyLoc` decodes it later); its `psource` is null or
    // clang's NUL-terminated constant `;file;function;line;column;;` string.
    let psource = unsafe {
        let ident = mem::read(loc)?;
        mem::c_string(ident.psource)?
    };
    SourceLoc::parse(&psource)
}

/// The location string of the `ident_t` at `addr`, read in place (for the fault report, which
/// must not allocate: `crate::origin`).
fn psource_of(addr: usize) -> Option<&'static std::ffi::CStr> {
    // SAFETY: as in `loc_of`: `addr` is null or the construct's `ident_t`, a constant of the
    // program's image, whose `psource` is null or a NUL-terminated constant string of it.
    unsafe {
        let ident = mem::read(addr as *const Ident)?;
        (!ident.psource.is_null()).then(|| std::ffi::CStr::from_ptr(ident.psource))
    }
}

/// The location of a construct's `ident_t`, decoded when something reports it.
fn lazy_loc(loc: *const Ident) -> LazyLoc {
    LazyLoc::new(loc as usize, |a| loc_of(a as *const Ident))
}

#[allow(clippy::too_many_arguments)]
pub(super) fn map_args(
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *const i64,
    types: *const i64,
    names: *const *mut c_void,
    mappers: *const *mut c_void,
) -> MapArgs {
    let n = usize::try_from(n).unwrap_or(0);
    // SAFETY: clang passes each map array with `n` elements (or null for names and mappers,
    // which stay empty: MapArgs::name and ::mapper read them as 0), `n` being the argument count
    // it passes with them (the map-clause ABI), alive for the duration of the call.
    let (bases, begins, sizes, types, names, mappers) = unsafe {
        (
            mem::ptr_array(bases, n),
            mem::ptr_array(begins, n),
            mem::small_array(sizes, n),
            mem::small_array(types, n),
            mem::ptr_array(names, if names.is_null() { 0 } else { n }),
            mem::ptr_array(mappers, if mappers.is_null() { 0 } else { n }),
        )
    };
    let mut args = MapArgs {
        bases,
        begins,
        sizes,
        types,
        names,
        mappers,
        components: Vec::new(),
        dims: Vec::new(),
    };
    // Strided sections' descriptors are temporaries of the call: read now.
    args.read_dims();
    args
}

/// The `LIBOMPTARGET_INFO` 0x1 listing of a construct's map arguments.
fn list_arguments(device: i64, what: &str, loc: &LazyLoc, a: &MapArgs) {
    if !info::enabled(bits::KERNEL_ARGS) {
        return;
    }
    use crate::abi::map;
    let dev = usize::try_from(device).unwrap_or(0);
    let at = loc
        .get()
        .map_or_else(|| "unknown:0:0".to_string(), |l| l.to_string());
    info::print(
        dev,
        format_args!("{what} at {at} with {} arguments:", a.len()),
    );
    for i in 0..a.len() {
        let t = a.types[i];
        let ty = if t & map::TO != 0 && t & map::FROM != 0 {
            "tofrom"
        } else if t & map::TO != 0 {
            "to"
        } else if t & map::FROM != 0 {
            "from"
        } else if t & map::PRIVATE != 0 {
            "private"
        } else if t & map::LITERAL != 0 {
            "firstprivate"
        } else if a.sizes[i] != 0 {
            "alloc"
        } else {
            "use_address"
        };
        let implicit = if t & map::IMPLICIT != 0 {
            "(implicit)"
        } else {
            ""
        };
        info::print(
            dev,
            format_args!(
                "{ty}({})[{}] {implicit}",
                info::var_name(a.name(i)),
                a.sizes[i]
            ),
        );
    }
}

/// Resolves a construct's device; `None` means run on the host (or do nothing). Bad devices and
/// unusable images end the program as libomptarget does, with the construct's location (`loc`,
/// asked only then).
pub(super) fn resolve(
    rt: &'static Runtime,
    device: i64,
    loc: &dyn Fn() -> Option<SourceLoc>,
) -> Option<&'static runtime::DeviceSlot> {
    match rt.placement(device) {
        Ok(Placement::Host) => None,
        Ok(Placement::Device(slot)) => Some(slot),
        Err(e) if e.kind == ErrorKind::BadDevice && !rt.devices.is_empty() => {
            let id = if device == -1 {
                i64::from(kmp::default_device())
            } else {
                device
            };
            report::fatal_device(&e, id, loc().as_ref())
        }
        Err(e) => report::fatal_construct(rt, &e, loc().as_ref()),
    }
}

fn after_success(rt: &Runtime, loc: &LazyLoc) {
    if info::enabled(bits::DUMP_TABLE) {
        report::dump_all(rt, loc.get());
    }
}

#[derive(Clone, Copy)]
pub(super) enum DataOp {
    Begin,
    End,
    Update,
}

impl DataOp {
    fn region(self, nowait: bool) -> &'static str {
        match (self, nowait) {
            (DataOp::Begin, false) => "Entering OpenMP data region with being_mapper",
            (DataOp::Begin, true) => "Entering OpenMP data region with being_nowait_mapper",
            (DataOp::End, false) => "Exiting OpenMP data region with end_mapper",
            (DataOp::End, true) => "Exiting OpenMP data region with end_nowait_mapper",
            (DataOp::Update, false) => {
                "Updating data within the OpenMP data region with update_mapper"
            }
            (DataOp::Update, true) => {
                "Updating data within the OpenMP data region with update_nowait_mapper"
            }
        }
    }
}

impl From<DataOp> for crate::auto::resident::DataKind {
    fn from(op: DataOp) -> Self {
        match op {
            DataOp::Begin => Self::Begin,
            DataOp::End => Self::End,
            DataOp::Update => Self::Update,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn target_data(
    op: DataOp,
    nowait: bool,
    loc: *const Ident,
    device: i64,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *const i64,
    types: *const i64,
    names: *const *mut c_void,
    mappers: *const *mut c_void,
) {
    let _label = crate::trace::construct(|| loc_of(loc).map(|l| l.to_string()));
    let rt = runtime::get();
    let loc = lazy_loc(loc);
    let preds = predecessors(rt, nowait);
    let Some(slot) = resolve(rt, device, &|| loc.get().cloned()) else {
        rt.nowait_finish_predecessors(preds);
        return;
    };
    let mut args = map_args(n, bases, begins, sizes, types, names, mappers);
    list_arguments(slot.id as i64, op.region(nowait), &loc, &args);
    if let Some(r) = crate::auto::data(rt, op.into(), device, &args) {
        match r {
            Ok(()) => after_success(rt, &loc),
            Err(e) => report::fatal_construct(rt, &e, loc.get()),
        }
        return;
    }
    let returns_bases = args
        .types
        .iter()
        .any(|t| t & crate::abi::map::RETURN_PARAM != 0);
    if nowait && !returns_bases {
        if start_nowait(rt, slot, loc.clone(), preds, &mut args, |a| {
            enqueue_data(rt, slot, op, a)
        }) {
            return;
        }
    } else {
        rt.nowait_finish_predecessors(preds);
    }
    match run_data(rt, slot, op, &mut args) {
        Ok(()) => {
            if returns_bases {
                // SAFETY: `bases` is the construct's base-pointer array, `n` (= args.bases.len())
                // elements that clang made writable for RETURN_PARAM results.
                unsafe { mem::write_ptr_array(bases, &args.bases) };
            }
            after_success(rt, &loc);
        }
        Err(e) => report::fatal_construct(rt, &e, loc.get()),
    }
}

pub(super) fn run_data(
    rt: &Runtime,
    slot: &runtime::DeviceSlot,
    op: DataOp,
    args: &mut MapArgs,
) -> crate::error::Result<()> {
    enqueue_data(rt, slot, op, args)?.complete()
}

/// The first part of a data construct (see `runtime::launch`): decided and enqueued.
pub(super) fn enqueue_data<'s>(
    rt: &Runtime,
    slot: &'s runtime::DeviceSlot,
    op: DataOp,
    args: &mut MapArgs,
) -> crate::error::Result<runtime::launch::InFlight<'s>> {
    match op {
        DataOp::Begin => slot.enqueue_begin(rt, args),
        DataOp::End => slot.enqueue_end(rt, args),
        DataOp::Update => slot.enqueue_update(rt, args),
    }
}

/// The owned constructs the calling target task depends on (Spread's tool found them when the
/// task started: `capi::ompt::take_predecessors`), for a `nowait` construct to order itself after;
/// a construct that is not `nowait`, or under automatic spreading, finishes them first.
fn predecessors(rt: &Runtime, nowait: bool) -> runtime::nowait::Predecessors {
    let preds = super::ompt::take_predecessors();
    if nowait && rt.config.auto.is_none() {
        return preds;
    }
    rt.nowait_finish_predecessors(preds);
    Default::default()
}

/// Starts a `nowait` construct the way its task allows (`runtime::nowait`): owned by Spread
/// when its tool knows the task, else polled through the task's async handle. Its stream first
/// waits for `preds` on the device (those on other devices are finished first). False when
/// neither way is open (no tool and no task team: outside a parallel region with libomp's hidden
/// helpers off): `preds` are finished, and the construct runs synchronously, as with
/// libomptarget.
fn start_nowait(
    rt: &'static Runtime,
    slot: &'static runtime::DeviceSlot,
    loc: LazyLoc,
    preds: runtime::nowait::Predecessors,
    args: &mut MapArgs,
    op: impl FnOnce(&mut MapArgs) -> crate::error::Result<runtime::launch::InFlight<'static>>,
) -> bool {
    // The arm of a `device(any)` instance made asynchronous: owned in the instance's name.
    if let Some((instance, release, mut follows)) = super::any_exports::take_instance() {
        // Tools see it as the instance's encountering task's (the instance's task ends first).
        let _task = crate::ompt::AsTask::enter(crate::sys::ompt::tool_word_of_own(instance.parent));
        follows.extend(preds);
        let waits = rt.nowait_order_after(slot.id, follows);
        rt.nowait()
            .start(slot, loc, Some(instance), false, Some(release), || {
                runtime::launch::after_events(waits, || op(args))
            });
        return true;
    }
    let handle = kmp::async_handle_slot();
    let owner = super::ompt::nowait_task();
    if owner.is_none() && handle.is_none() {
        rt.nowait_finish_predecessors(preds);
        return false;
    }
    // A chunk task of a `target spread nowait` (its depend items name the region's token):
    // its data must be where it runs, as a chunk the region launches itself.
    if let Some((construct, _, sections)) = owner
        .as_ref()
        .and_then(|o| crate::spread::chunk_of_token(o.deps.iter().map(|d| d.addr)))
    {
        let what = format!("a nowait chunk of {construct}");
        if let Err(e) = super::spread_exports::chunk_data_check_of(
            rt,
            (&construct, &sections),
            &what,
            slot,
            args,
        ) {
            let e = e.context(format!("in {what} on device {}", slot.id));
            rt.nowait_finish_predecessors(preds);
            rt.nowait()
                .start(slot, loc, owner, false, None, move || Err(e));
            return true;
        }
    } else {
        warn_pointers_elsewhere(rt, slot, args, &loc);
    }
    let pins_parent = owner
        .as_ref()
        .is_some_and(|o| o.uses_parent_memory(args.host_ranges()));
    // A construct that uses the private data of the task that created it (a firstprivate array
    // of an explicit task, named in the region): libomp frees that data once the task has ended
    // and its children have completed. In a task team the task may end before its target task
    // even starts: the construct then runs in its target task, which completes after the device
    // work (libomptarget keeps the target task incomplete as long). Run at once (no task team),
    // it is owned and finishes before the task ends (`Nowait::at_task_end`).
    if pins_parent && handle.is_some() {
        rt.nowait_finish_predecessors(preds);
        return false;
    }
    // Tools see an owned construct as its encountering task's: the target task ends at once.
    let _task = owner
        .as_ref()
        .map(|o| crate::ompt::AsTask::enter(crate::sys::ompt::tool_word_of_own(o.parent)));
    let waits = rt.nowait_order_after(slot.id, preds);
    if let (Completion::Polled(h), Some(at)) = (
        rt.nowait().start(slot, loc, owner, pins_parent, None, || {
            runtime::launch::after_events(waits, || op(args))
        }),
        handle,
    ) {
        kmp::set_async_handle(at, h);
    }
    true
}

/// The map arguments and launch configuration of a `KernelArgs`.
pub(super) fn kernel_request(ka: &KernelArgs) -> (MapArgs, LaunchConfig) {
    let args = map_args(
        ka.num_args as i32,
        ka.arg_base_ptrs,
        ka.arg_ptrs,
        ka.arg_sizes,
        ka.arg_types,
        ka.arg_names,
        ka.arg_mappers,
    );
    // 0: no num_teams clause (the GPU backends choose, LLVM's grid rules); -1: a `target`
    // without `teams`, which runs one team.
    let norm = |v: u32| if v == u32::MAX { 1 } else { v };
    let cfg = LaunchConfig {
        num_teams: [
            norm(ka.num_teams[0]),
            norm(ka.num_teams[1]),
            norm(ka.num_teams[2]),
        ],
        teams: ka.num_teams[0] != u32::MAX,
        thread_limit: ka.thread_limit,
        tripcount: ka.tripcount,
        dyn_cgroup_mem: ka.dyn_cgroup_mem,
    };
    (args, cfg)
}

fn target_kernel(
    loc: *const Ident,
    device: i64,
    host_ptr: *mut c_void,
    kargs: *mut KernelArgs,
) -> c_int {
    let _label = crate::trace::construct(|| loc_of(loc).map(|l| l.to_string()));
    // Kept with the kernel, to name the construct if it faults (unless a spread chunk's is set).
    let _origin = crate::origin::enter_construct(loc as usize, psource_of);
    let rt = runtime::get();
    // SAFETY: `kargs` is null or the valid `KernelArgs` clang passes for the duration of the call
    // (LLVM 19's `__tgt_target_kernel` contract), or the one `legacy_kernel` built on its stack.
    let Some(ka) = (unsafe { mem::read(kargs) }) else {
        return FAIL;
    };
    let loc = lazy_loc(loc);
    let preds = predecessors(rt, ka.flags & KERNEL_FLAG_NOWAIT != 0);
    let Some(slot) = resolve(rt, device, &|| loc.get().cloned()) else {
        rt.nowait_finish_predecessors(preds);
        return FAIL;
    };
    let (mut args, cfg) = kernel_request(&ka);
    list_arguments(slot.id as i64, "Entering OpenMP kernel", &loc, &args);
    if rt.config.strict {
        if let Some(u) = crate::presence::unreachable(rt, slot, &args) {
            let what = loc.get().map_or_else(
                || "a target construct".to_string(),
                |l| format!("the target construct at {l}"),
            );
            let msg = crate::presence::unreachable_error(&args, slot.id, &what, &u);
            let e = crate::error::Error::new(ErrorKind::Mapping, msg);
            report::fatal_construct(rt, &e, loc.get());
        }
    }
    let region = host_ptr as usize;
    if let crate::auto::Outcome::Done(r) =
        crate::auto::target_kernel(rt, slot, device, region, &mut args, &cfg, &|| {
            loc.get().cloned()
        })
    {
        return match r {
            Ok(()) => {
                after_success(rt, &loc);
                0
            }
            Err(e) => report::fatal_construct(rt, &e, loc.get()),
        };
    }
    let nowait = ka.flags & KERNEL_FLAG_NOWAIT != 0;
    if nowait && super::any_exports::instance_bound() {
        // The arm outlives its task: what it names from the task's own data is copied now.
        crate::any::arm::privatize_task_data_here(&mut args);
    }
    if nowait
        && start_nowait(rt, slot, loc.clone(), preds, &mut args, |a| {
            slot.enqueue_launch(rt, region, a, &cfg)
        })
    {
        return 0;
    }
    warn_pointers_elsewhere(rt, slot, &args, &loc);
    match slot.launch(rt, region, &mut args, &cfg) {
        Ok(()) => {
            after_success(rt, &loc);
            0
        }
        Err(e) => report::fatal_construct(rt, &e, loc.get()),
    }
}

/// Reports once per construct and variable a pointer the region uses that is not mapped on
/// `slot` while another device maps it (see `crate::presence`): OpenMP passes its host value,
/// which on a GPU faults and on a host device computes on the host's copy. The chunks of a
/// `target spread nowait` reach this path too (as target tasks of their own).
fn warn_pointers_elsewhere(
    rt: &Runtime,
    slot: &runtime::DeviceSlot,
    args: &MapArgs,
    loc: &LazyLoc,
) {
    for f in crate::presence::elsewhere(rt, slot, args, true) {
        let at = loc.get().map_or_else(
            || "unknown location (compile with -g)".into(),
            |l| l.to_string(),
        );
        if crate::presence::first_time(at.clone(), f.arg) {
            eprintln!(
                "spread: warning: target region at {at} on device {}: {}",
                slot.id,
                crate::presence::pointer_warning(args, slot.id, &f)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Registration and initialisation.

/// Registers the offload images of a program or shared library (called by its constructor).
#[no_mangle]
pub extern "C" fn __tgt_register_lib(desc: *mut BinDesc) {
    guard("__tgt_register_lib", || {
        // SAFETY: `desc` is null or the `__tgt_bin_desc` clang's registration code built, a
        // constant of the program's image.
        let Some(d) = (unsafe { mem::read(desc) }) else {
            return;
        };
        let n = usize::try_from(d.num_device_images).unwrap_or(0);
        // SAFETY: the descriptor clang's registration code built: `num_device_images` images and
        // the entry table between its begin and end pointers.
        let (images, host_entries): (Vec<DeviceImage>, Vec<OffloadEntry>) = unsafe {
            (
                mem::range(d.device_images, d.device_images.wrapping_add(n)),
                mem::range(d.host_entries_begin, d.host_entries_end),
            )
        };
        let entries: Vec<EntryInfo> = host_entries
            .iter()
            .map(|e: &OffloadEntry| EntryInfo {
                addr: e.addr as usize,
                // SAFETY: an offload entry's name is clang's NUL-terminated constant symbol
                // name, in the program's image (from the descriptor above).
                name: unsafe { mem::c_string(e.name) }.unwrap_or_default(),
                size: e.size,
                flags: e.flags,
                data: e.data,
            })
            .collect();
        let regs = images
            .iter()
            .map(|img| {
                let start = img.image_start as usize;
                let len = (img.image_end as usize).saturating_sub(start);
                // SAFETY: an image's start and end delimit its bytes in the program's offload
                // section (from the descriptor above).
                (unsafe { mem::bytes(start, len) }, entries.clone())
            })
            .collect();
        let rt = runtime::get_for_registration();
        rt.register(desc as usize, regs);
        // A worker rank of cluster mode serves its devices from here on and never returns.
        rt.serve_if_worker();
    })
}

/// Unloads a program's or library's images (called at exit or `dlclose`).
#[no_mangle]
pub extern "C" fn __tgt_unregister_lib(desc: *mut BinDesc) {
    guard("__tgt_unregister_lib", || {
        runtime::get().unregister(desc as usize);
        // Programs unregister at exit: the trace is complete now (rewritten if more libraries go).
        crate::trace::flush();
        crate::time_trace::write();
    })
}

/// Initialises the runtime (tools call this; programs need not).
#[no_mangle]
pub extern "C" fn __tgt_init_all_rtls() {
    guard("__tgt_init_all_rtls", || {
        runtime::get();
    })
}

#[no_mangle]
pub extern "C" fn __tgt_rtl_init() {
    guard("__tgt_rtl_init", || {
        runtime::get();
    })
}

#[no_mangle]
pub extern "C" fn __tgt_rtl_deinit() {}

/// Removed in LLVM 19; kept for old binaries, with libomptarget's message.
#[no_mangle]
pub extern "C" fn __tgt_register_requires(_flags: i64) {
    guard("__tgt_register_requires", || {
        eprintln!(
        "omptarget message: The void __tgt_register_requires(int64_t) function has been removed. Old OpenMP requirements will not be handled"
    );
    })
}

/// Device count for libomp's `omp_get_num_devices` (libomp looks it up by name).
#[no_mangle]
pub extern "C" fn __tgt_get_num_devices() -> c_int {
    guard("__tgt_get_num_devices", || {
        runtime::get().num_devices() as c_int
    })
}

// ---------------------------------------------------------------------------------------------
// Kernels.

/// Runs a target region; 0 when it ran on the device, non-zero to run the host fallback.
/// (`tgt_target_kernel`, after the call site is recorded.)
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn __tgt_target_kernel() {
    call_site_shim!(tgt_target_kernel)
}

extern "C" fn tgt_target_kernel(
    loc: *mut Ident,
    device: i64,
    _num_teams: i32,
    _thread_limit: i32,
    host_ptr: *mut c_void,
    kargs: *mut KernelArgs,
) -> c_int {
    guard("__tgt_target_kernel", || {
        if let Some(r) = super::spread_exports::dealt_kernel(loc, device, host_ptr, kargs) {
            return r;
        }
        target_kernel(loc, device, host_ptr, kargs)
    })
}

/// `__tgt_target_kernel` with `nowait` and `depend` arguments, which Spread takes from libomp's
/// task instead. (`tgt_target_kernel_nowait`, after the call site is recorded.)
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn __tgt_target_kernel_nowait() {
    call_site_shim!(tgt_target_kernel_nowait)
}

#[allow(clippy::too_many_arguments)]
extern "C" fn tgt_target_kernel_nowait(
    loc: *mut Ident,
    device: i64,
    num_teams: i32,
    thread_limit: i32,
    host_ptr: *mut c_void,
    kargs: *mut KernelArgs,
    _dep_num: i32,
    _dep_list: *mut c_void,
    _noalias_num: i32,
    _noalias_list: *mut c_void,
) -> c_int {
    let _ = (num_teams, thread_limit);
    guard("__tgt_target_kernel_nowait", || {
        target_kernel(loc, device, host_ptr, kargs)
    })
}

/// Completes a `nowait` construct for libomp: clears `*handle` once the work is done.
#[no_mangle]
pub extern "C" fn __tgt_target_nowait_query(handle: *mut *mut c_void) {
    guard("__tgt_target_nowait_query", || {
        let rt = runtime::get();
        let h = if handle.is_null() {
            0
        } else {
            kmp::get_async_handle(handle as usize)
        };
        if h == 0 {
            report::fatal(
            1,
            "Receive an invalid async handle from the current OpenMP task. Is this a target nowait region?\n",
        );
        }
        match rt.poll_pending(h) {
            None => {}
            Some((Ok(()), _)) => kmp::set_async_handle(handle as usize, 0),
            Some((Err(e), loc)) => report::fatal_construct(rt, &e, loc.as_ref()),
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn legacy_kernel(
    loc: *mut Ident,
    device: i64,
    host_ptr: *mut c_void,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
    teams: i32,
    threads: i32,
) -> c_int {
    let mut ka = KernelArgs {
        version: 3,
        num_args: u32::try_from(n).unwrap_or(0),
        arg_base_ptrs: bases,
        arg_ptrs: begins,
        arg_sizes: sizes,
        arg_types: types,
        arg_names: names,
        arg_mappers: mappers,
        tripcount: 0,
        flags: 0,
        num_teams: [teams as u32, 0, 0],
        thread_limit: [threads as u32, 0, 0],
        dyn_cgroup_mem: 0,
    };
    target_kernel(loc, device, host_ptr, &mut ka)
}

macro_rules! legacy_target {
    ($($name:ident ( $($loc:ident,)? ; $($mp:ident,)? ; $($teams:ident,)? ; $($dep:ident,)? );)*) => {$(
        #[no_mangle]
        #[allow(clippy::too_many_arguments, unused_variables)]
        pub extern "C" fn $name(
            $($loc: *mut Ident,)?
            device: i64,
            host_ptr: *mut c_void,
            n: i32,
            bases: *mut *mut c_void,
            begins: *mut *mut c_void,
            sizes: *mut i64,
            types: *mut i64,
            $(names: *mut *mut c_void, $mp: *mut *mut c_void,)?
            $($teams: i32, thread_limit: i32,)?
            $($dep: i32, dep_list: *mut c_void, noalias_num: i32, noalias_list: *mut c_void,)?
        ) -> c_int {
            guard(stringify!($name), || {
                let loc: *mut Ident = std::ptr::null_mut();
                $(let loc = $loc;)?
                let (names, mappers): (*mut *mut c_void, *mut *mut c_void) = (std::ptr::null_mut(), std::ptr::null_mut());
                $(let (names, mappers) = (names, $mp);)?
                let (teams, threads) = (-1, 0);
                $(let (teams, threads) = ($teams, thread_limit);)?
                legacy_kernel(loc, device, host_ptr, n, bases, begins, sizes, types, names, mappers, teams, threads)
            })
        }
    )*};
}

legacy_target! {
    __tgt_target(;;;);
    __tgt_target_nowait(;;; dep_num,);
    __tgt_target_mapper(loc,; mappers,;;);
    __tgt_target_nowait_mapper(loc,; mappers,;; dep_num,);
    __tgt_target_teams(;; num_teams,;);
    __tgt_target_teams_nowait(;; num_teams,; dep_num,);
    __tgt_target_teams_mapper(loc,; mappers,; num_teams,;);
    __tgt_target_teams_nowait_mapper(loc,; mappers,; num_teams,; dep_num,);
}

// ---------------------------------------------------------------------------------------------
// Data constructs.

macro_rules! data_entry {
    ($($name:ident => $op:expr, $nowait:expr, mapper: $m:tt, nowait_args: $w:tt;)*) => {$(
        data_entry!(@one $name, $op, $nowait, $m, $w);
    )*};
    // The `nowait` forms' trailing depend arguments (Spread takes those from libomp's task) are
    // not declared: in the C calling convention the caller's extra arguments are simply unread.
    (@one $name:ident, $op:expr, $nowait:expr, yes, $w:tt) => {
        /// The work of the entry point of the same name, after its call site is recorded.
        mod $name {
            use super::*;
            #[allow(clippy::too_many_arguments)]
            pub(super) extern "C" fn body(
                loc: *mut Ident, device: i64, n: i32, bases: *mut *mut c_void,
                begins: *mut *mut c_void, sizes: *mut i64, types: *mut i64,
                names: *mut *mut c_void, mappers: *mut *mut c_void,
            ) {
                guard(stringify!($name), || {
                    target_data($op, $nowait, loc, device, n, bases, begins, sizes, types, names, mappers)
                })
            }
        }

        #[unsafe(naked)]
        #[no_mangle]
        pub extern "C" fn $name() {
            call_site_shim!($name::body)
        }
    };
    (@one $name:ident, $op:expr, $nowait:expr, no, no) => {
        #[no_mangle]
        pub extern "C" fn $name(
            device: i64, n: i32, bases: *mut *mut c_void, begins: *mut *mut c_void,
            sizes: *mut i64, types: *mut i64,
        ) {
            guard(stringify!($name), || {
                let none = std::ptr::null_mut();
                target_data($op, $nowait, std::ptr::null(), device, n, bases, begins, sizes, types, none, none)
            })
        }
    };
    (@one $name:ident, $op:expr, $nowait:expr, no, yes) => {
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub extern "C" fn $name(
            device: i64, n: i32, bases: *mut *mut c_void, begins: *mut *mut c_void,
            sizes: *mut i64, types: *mut i64,
            _dep_num: i32, _dep_list: *mut c_void, _noalias_num: i32, _noalias_list: *mut c_void,
        ) {
            guard(stringify!($name), || {
                let none = std::ptr::null_mut();
                target_data($op, $nowait, std::ptr::null(), device, n, bases, begins, sizes, types, none, none)
            })
        }
    };
}

data_entry! {
    __tgt_target_data_begin_mapper => DataOp::Begin, false, mapper: yes, nowait_args: no;
    __tgt_target_data_end_mapper => DataOp::End, false, mapper: yes, nowait_args: no;
    __tgt_target_data_update_mapper => DataOp::Update, false, mapper: yes, nowait_args: no;
    __tgt_target_data_begin_nowait_mapper => DataOp::Begin, true, mapper: yes, nowait_args: yes;
    __tgt_target_data_end_nowait_mapper => DataOp::End, true, mapper: yes, nowait_args: yes;
    __tgt_target_data_update_nowait_mapper => DataOp::Update, true, mapper: yes, nowait_args: yes;
    __tgt_target_data_begin => DataOp::Begin, false, mapper: no, nowait_args: no;
    __tgt_target_data_end => DataOp::End, false, mapper: no, nowait_args: no;
    __tgt_target_data_update => DataOp::Update, false, mapper: no, nowait_args: no;
    __tgt_target_data_begin_nowait => DataOp::Begin, true, mapper: no, nowait_args: yes;
    __tgt_target_data_end_nowait => DataOp::End, true, mapper: no, nowait_args: yes;
    __tgt_target_data_update_nowait => DataOp::Update, true, mapper: no, nowait_args: yes;
}

/// Components a mapper pushed so far (clang's generated mappers use it to number members).
#[no_mangle]
pub extern "C" fn __tgt_mapper_num_components(handle: *mut c_void) -> i64 {
    guard("__tgt_mapper_num_components", || {
        crate::sys::mapper::count(handle as usize)
    })
}

/// Adds one component to a mapper's list.
#[no_mangle]
pub extern "C" fn __tgt_push_mapper_component(
    handle: *mut c_void,
    base: *mut c_void,
    begin: *mut c_void,
    size: i64,
    ty: i64,
    name: *mut c_void,
) {
    guard("__tgt_push_mapper_component", || {
        crate::sys::mapper::push(
            handle as usize,
            base as usize,
            begin as usize,
            size,
            ty,
            name as usize,
        )
    })
}

/// Trip counts arrive in `KernelArgs` since LLVM 17; kept for old binaries.
#[no_mangle]
pub extern "C" fn __kmpc_push_target_tripcount_mapper(_loc: *mut Ident, _device: i64, _n: u64) {}

#[no_mangle]
pub extern "C" fn __kmpc_push_target_tripcount(_device: i64, _n: u64) {}

/// Prints what the runtime knows about a device; true when the device exists.
#[no_mangle]
pub extern "C" fn __tgt_print_device_info(device: i64) -> bool {
    guard("__tgt_print_device_info", || {
        match runtime::get().device(device) {
            Ok(d) => {
                let i = d.dev.info();
                println!(
                    "Device {device}: {} ({} memory bytes, {} compute units)",
                    i.name, i.memory_bytes, i.compute_units
                );
                true
            }
            Err(_) => false,
        }
    })
}

/// Changes the `LIBOMPTARGET_INFO` bits at run time.
#[no_mangle]
pub extern "C" fn __tgt_set_info_flag(flags: u32) {
    guard("__tgt_set_info_flag", || {
        info::set_flags(flags);
    })
}

// ---------------------------------------------------------------------------------------------
// Interfaces host devices do not support: they fail visibly, as libomptarget's host plugin does.

#[no_mangle]
pub extern "C" fn __tgt_activate_record_replay(
    _device: i64,
    _size: u64,
    _vaddr: *mut c_void,
    _record: bool,
    _save: bool,
    _offset: *mut u64,
) -> i64 {
    guard("__tgt_activate_record_replay", || {
        eprintln!("omptarget error: kernel record/replay is not supported by Spread's runtime");
        FAIL as i64
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn __tgt_target_kernel_replay(
    _loc: *mut Ident,
    _device: i64,
    _host_ptr: *mut c_void,
    _dev_mem: *mut c_void,
    _dev_mem_size: i64,
    _args: *mut *mut c_void,
    _offsets: *mut isize,
    _n: i32,
    _teams: i32,
    _threads: i32,
    _loop_tripcount: u64,
) -> c_int {
    guard("__tgt_target_kernel_replay", || {
        eprintln!("omptarget error: kernel record/replay is not supported by Spread's runtime");
        FAIL
    })
}

/// `omp_interop_t` objects are not created by host devices: `init` leaves the interop null.
#[no_mangle]
pub extern "C" fn __tgt_interop_init(
    _loc: *mut Ident,
    _gtid: i32,
    interop: *mut *mut c_void,
    _interop_type: i32,
    _device: i32,
    _ndeps: i32,
    _deps: *mut c_void,
    _ndeps_noalias: i32,
    _noalias: *mut c_void,
    _nowait: i32,
) {
    guard("__tgt_interop_init", || {
        if !interop.is_null() {
            kmp::set_async_handle(interop as usize, 0);
        }
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn __tgt_interop_use(
    _loc: *mut Ident,
    _gtid: i32,
    _interop: *mut c_void,
    _device: i32,
    _ndeps: i32,
    _deps: *mut c_void,
    _ndeps_noalias: i32,
    _noalias: *mut c_void,
    _nowait: i32,
) {
    guard("__tgt_interop_use", || {})
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn __tgt_interop_destroy(
    _loc: *mut Ident,
    _gtid: i32,
    _interop: *mut c_void,
    _device: i32,
    _ndeps: i32,
    _deps: *mut c_void,
    _ndeps_noalias: i32,
    _noalias: *mut c_void,
    _nowait: i32,
) {
    guard("__tgt_interop_destroy", || {})
}

/// `omp_irc_empty`: the interop object is null.
const IRC_EMPTY: c_int = -1;

fn set_rc(rc: *mut c_int) {
    if !rc.is_null() {
        // SAFETY: `rc` is the caller's optional return-code out-parameter (OpenMP 5.1 interop).
        unsafe { *rc = IRC_EMPTY }
    }
}

#[no_mangle]
pub extern "C" fn omp_get_interop_int(
    _interop: *const c_void,
    _property: c_int,
    rc: *mut c_int,
) -> isize {
    guard("omp_get_interop_int", || {
        set_rc(rc);
        0
    })
}

#[no_mangle]
pub extern "C" fn omp_get_interop_ptr(
    _interop: *const c_void,
    _property: c_int,
    rc: *mut c_int,
) -> *mut c_void {
    guard("omp_get_interop_ptr", || {
        set_rc(rc);
        std::ptr::null_mut()
    })
}

#[no_mangle]
pub extern "C" fn omp_get_interop_str(
    _interop: *const c_void,
    _property: c_int,
    rc: *mut c_int,
) -> *const c_char {
    guard("omp_get_interop_str", || {
        set_rc(rc);
        std::ptr::null()
    })
}

#[no_mangle]
pub extern "C" fn omp_get_interop_name(_interop: *const c_void, _property: c_int) -> *const c_char {
    guard("omp_get_interop_name", std::ptr::null)
}

#[no_mangle]
pub extern "C" fn omp_get_interop_type_desc(
    _interop: *const c_void,
    _property: c_int,
) -> *const c_char {
    guard("omp_get_interop_type_desc", std::ptr::null)
}

/// OMPT tool connection: Spread does not report device events to OMPT tools yet.
#[no_mangle]
pub extern "C" fn ompt_libomptarget_connect(_lib: *mut c_void) {}

// Programs linked against LLVM 19 reference `symbol@VERS1.0`: the versions are exports.list's.
symvers!("capi/exports");
