//! The C ABI of `target spread` (docs/spread-abi.md §1): what the driver's lowering and the pass
//! call. Region handles are boxed [`Region`]s owned by the program between `begin` and `end`.

use super::call_site::call_site_shim;
use super::exports::{enqueue_data, kernel_request, loc_of, map_args, resolve, DataOp};
use super::guard::guard;
use crate::abi::{Ident, KernelArgs};
use crate::error::{Error, ErrorKind};
use crate::runtime;
use crate::runtime::mapping::MapArgs;
use crate::runtime::report;
use crate::spread::{Construct, Region};
use crate::sys::mem;
use std::ffi::{c_char, c_int, c_void};

/// `__spread_construct_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ConstructC {
    pub file: *const c_char,
    pub line: i32,
    pub kind: i32,
    pub flags: i32,
    pub schedule: i32,
}

thread_local! {
    /// The region whose chunk loop the calling thread is in (0: none): set when a chunk is
    /// dealt, given back to the enclosing loop's (if any) when the loop ends. A construct with `depend` (and no `nowait`) wraps each
    /// chunk's `target` in an undeferred target task of clang's, whose kernel call the pass does
    /// not turn into `__spread_target_kernel`: [`dealt_kernel`] recognises it by this.
    static DEALING: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The region behind a handle; a null handle is a fatal misuse of the ABI.
fn region<'a>(r: *mut c_void) -> &'a mut Region {
    // SAFETY: handles come from `__spread_region_begin` (Box::into_raw) and stay valid until
    // `__spread_region_end`; the driver's lowering uses each handle on the thread that began it.
    match unsafe { (r as *mut Region).as_mut() } {
        Some(r) => r,
        None => report::fatal(1, "spread: a __spread_* call received a null region handle"),
    }
}

/// The construct description the lowering passed to `entry`; a null one is a fatal misuse of
/// the ABI.
pub(super) fn construct_of(c: *const ConstructC, entry: &str) -> Construct {
    // SAFETY: `c` is null or the lowering's static `__spread_construct_t` for the construct
    // (spread-abi.md §1).
    let Some(cc) = (unsafe { mem::read(c) }) else {
        report::fatal(
            1,
            &format!("spread: {entry} received no construct description"),
        )
    };
    Construct {
        file: file_name(cc.file),
        line: cc.line,
        kind: cc.kind,
        flags: cc.flags,
        schedule: cc.schedule,
    }
}

/// The source file a construct descriptor names, converted once per descriptor string: the
/// lowering's descriptors are static, and a construct executed in a loop would otherwise decode
/// its file name at every execution.
fn file_name(p: *const c_char) -> std::sync::Arc<str> {
    static FILES: parking_lot::Mutex<Vec<(usize, std::sync::Arc<str>)>> =
        parking_lot::Mutex::new(Vec::new());
    let key = p as usize;
    let mut files = FILES.lock();
    if let Some((_, f)) = files.iter().rev().find(|(k, _)| *k == key) {
        return f.clone();
    }
    // SAFETY: `p` is a construct descriptor's `file`: null or the lowering's NUL-terminated
    // string literal (spread-abi.md §1).
    let f: std::sync::Arc<str> = unsafe { mem::c_string(p) }
        .unwrap_or_else(|| "unknown".into())
        .into();
    // A program has a bounded number of source files; a linear scan of a few is the fastest map.
    if files.len() < 256 {
        files.push((key, f.clone()));
    }
    f
}

/// Starts a spread construct over `[lb, ub)`.
#[no_mangle]
pub extern "C" fn __spread_region_begin(
    c: *const ConstructC,
    lb: i64,
    ub: i64,
    devices: *const i32,
    ndevices: i32,
    chunk: i64,
) -> *mut c_void {
    guard("__spread_region_begin", || {
        let rt = runtime::get();
        let construct = construct_of(c, "__spread_region_begin");
        // The location is made only for a report: most regions begin without one.
        let at = construct.clone();
        // SAFETY: `devices` is null or the lowering's array of `ndevices` ints, the `devices`
        // clause in list order (spread-abi.md §1), alive for the duration of the call.
        let devs = unsafe { mem::array(devices, usize::try_from(ndevices).unwrap_or(0)) };
        match Region::begin(rt, construct, lb, ub, devs, chunk) {
            Ok(mut r) => {
                // A region begun inside another's chunk loop (in a task run at a scheduling
                // point of that loop) gives the loop back its record when it ends.
                r.dealing_outer = DEALING.with(|d| d.get());
                Box::into_raw(Box::new(r)) as *mut c_void
            }
            Err(e) => report::fatal_construct(rt, &e, Some(&at.location())),
        }
    })
}

/// A value the lowering range-checked and found bad (spread.h's `__spread_device_arg` and
/// `__spread_length_arg`): `what` 0 is a device (of the `devices` clause, or of `target update
/// peer` / `wait device`) that does not fit an `int`, 1 a negative `range` length. Fatal, with the construct's location, as the runtime's
/// other construct errors.
#[no_mangle]
pub extern "C" fn __spread_bad_value(c: *const ConstructC, what: i32, value: i64) {
    guard("__spread_bad_value", || {
        let rt = runtime::get();
        let construct = construct_of(c, "__spread_bad_value");
        let loc = construct.location();
        let at = construct.at();
        let err = match what {
            0 if construct.kind == 6 || construct.kind == 7 => Error::new(
                ErrorKind::BadDevice,
                format!(
                    "device {value} of the {} at {at} does not exist (a device number must fit an int; the runtime has {} devices)",
                    if construct.kind == 6 { "target update peer" } else { "wait device" },
                    rt.num_devices()
                ),
            ),
            0 => Error::new(
                ErrorKind::BadDevice,
                format!(
                    "device {value} in the devices clause of the {} at {at} does not exist (a device number must fit an int; the runtime has {} devices)",
                    construct.name(),
                    rt.num_devices()
                ),
            ),
            _ => crate::spread::negative_range(&construct, i128::from(value)),
        };
        report::fatal_construct(rt, &err, Some(&loc))
    })
}

/// Advances to the next chunk; 0 when none is left.
#[no_mangle]
pub extern "C" fn __spread_chunk_next(r: *mut c_void) -> i32 {
    guard("__spread_chunk_next", || {
        let reg = region(r);
        let more = reg.advance();
        let outer = reg.dealing_outer;
        DEALING.with(|d| d.set(if more { r as usize } else { outer }));
        i32::from(more)
    })
}

/// A `__tgt_target_kernel` call for the host made on a thread while it deals a region's host
/// chunk inside a parallel region: the chunk's kernel inside clang's undeferred target task (a
/// construct with `depend` and no `nowait`), whose host fallback would form a `teams` league on
/// this thread, where libomp 19 deadlocks (see [`host_chunk_elsewhere`]). It runs on the host
/// share instead, to completion, as the plain `target` it is. `None` for any other call (the
/// caller goes on as for any `target`; a device chunk's kernel runs there, synchronously).
pub(super) fn dealt_kernel(
    loc: *mut Ident,
    device: i64,
    host_ptr: *mut c_void,
    kargs: *mut KernelArgs,
) -> Option<c_int> {
    let r = DEALING.with(|d| d.get()) as *mut c_void;
    if r.is_null() {
        return None;
    }
    let rt = runtime::get();
    if device != rt.initial_device() || i64::from(region(r).current().device) != device {
        return None;
    }
    // SAFETY: `kargs` is null or the valid `KernelArgs` clang built for the region, passed for
    // the duration of the call (LLVM 19's `__tgt_target_kernel` contract).
    let ka = unsafe { mem::read(kargs) }?;
    let (mut args, cfg) = kernel_request(&ka);
    let slot = host_chunk_elsewhere(rt, &cfg)?;
    let at = loc_of(loc).unwrap_or_else(|| region(r).construct.location());
    Some(match slot.launch(rt, host_ptr as usize, &mut args, &cfg) {
        Ok(()) => 0,
        Err(e) => report::fatal_construct(rt, &e, Some(&at)),
    })
}

/// `omp_spread_start` of the current chunk.
#[no_mangle]
pub extern "C" fn __spread_chunk_start(r: *mut c_void) -> i64 {
    guard("__spread_chunk_start", || region(r).current().lo)
}

/// `omp_spread_size` of the current chunk.
#[no_mangle]
pub extern "C" fn __spread_chunk_size(r: *mut c_void) -> i64 {
    guard("__spread_chunk_size", || region(r).current().len())
}

/// The device of the current chunk.
#[no_mangle]
pub extern "C" fn __spread_chunk_device(r: *mut c_void) -> i32 {
    guard("__spread_chunk_device", || region(r).current().device)
}

/// The region's token for the current chunk's device: the address a `nowait` chunk's target
/// task names in `depend(inout: ...)`, so that a device's chunks start in dealing order.
#[no_mangle]
pub extern "C" fn __spread_chunk_order(r: *mut c_void) -> *mut c_char {
    guard("__spread_chunk_order", || {
        region(r).device_token() as *mut c_char
    })
}

/// Ends a construct: waits for its chunks' operations and frees the handle.
#[no_mangle]
pub extern "C" fn __spread_region_end(r: *mut c_void) {
    guard("__spread_region_end", || {
        if r.is_null() {
            report::fatal(
                1,
                "spread: __spread_region_end received a null region handle",
            );
        }
        // SAFETY: `r` came from Box::into_raw in `__spread_region_begin` and is ended exactly once
        // (the driver emits one end per begin, and the pass keeps it out of the chunk loop).
        let region = unsafe { Box::from_raw(r as *mut Region) };
        DEALING.with(|d| d.set(region.dealing_outer));
        let at = region.construct.clone();
        if let Err(e) = region.end() {
            report::fatal_construct(runtime::get(), &e, Some(&at.location()));
        }
    })
}

/// A target region of the current chunk, queued on its device; non-zero asks the program to run
/// the host fallback (offloading disabled). (`spread_target_kernel`, after the call site is
/// recorded.)
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn __spread_target_kernel() {
    call_site_shim!(spread_target_kernel)
}

extern "C" fn spread_target_kernel(
    r: *mut c_void,
    loc: *mut Ident,
    device: i64,
    _num_teams: i32,
    _thread_limit: i32,
    host_ptr: *mut c_void,
    kargs: *mut KernelArgs,
) -> c_int {
    guard("__spread_target_kernel", || {
        let reg = region(r);
        let rt = runtime::get();
        // SAFETY: `kargs` is null or the valid `KernelArgs` clang built for the region, passed
        // for the duration of the call: the pass turns clang's `__tgt_target_kernel` call into
        // this one (LLVM 19's `__tgt_target_kernel` contract).
        let Some(ka) = (unsafe { mem::read(kargs) }) else {
            return -1;
        };
        let (args, cfg) = kernel_request(&ka);
        let Some(slot) = resolve(rt, device, &|| {
            loc_of(loc).or_else(|| Some(reg.construct.location()))
        })
        .or_else(|| host_chunk_elsewhere(rt, &cfg)) else {
            return -1;
        };
        let region_id = host_ptr as usize;
        if let Err(e) = chunk_data_check(rt, reg, slot, &args) {
            reg.submit(slot, move || Err(e));
            return 0;
        }
        // Each attempt maps from the program's arguments (an attempt may be retried once the
        // region's chunks in flight have finished: see `Region::submit_streamed`).
        reg.submit_streamed(slot, move || {
            let mut args = args;
            slot.enqueue_launch(rt, region_id, &mut args, &cfg)
        });
        0
    })
}

/// Where a chunk dealt to the host (`omp_get_initial_device()` in `devices`) runs when the
/// dealing thread is inside a parallel region and the kernel forms a league: on the host share
/// (the host's cores and memory as an asynchronous device, run by an executor outside any
/// parallel region) rather than as the host fallback on this thread. libomp 19 forms a `teams`
/// league from a thread of a parallel region only with trouble: with a reduction and a team of
/// more threads than cores it never returns (stock libomptarget's host fallback hangs the same
/// way). `None`: the program runs the host fallback here, as libomptarget would.
fn host_chunk_elsewhere(
    rt: &'static runtime::Runtime,
    cfg: &crate::device::LaunchConfig,
) -> Option<&'static runtime::DeviceSlot> {
    if !cfg.teams || crate::sys::kmp::level() == 0 {
        return None;
    }
    rt.host_share()
}

/// Whether the data the current chunk of `reg` uses is where it runs (see `crate::presence`):
/// a pointer mapped only on another device is the chunk's error, a section mapped anew while
/// another device holds it is reported once.
fn chunk_data_check(
    rt: &runtime::Runtime,
    reg: &mut Region,
    slot: &runtime::DeviceSlot,
    args: &MapArgs,
) -> Result<(), Error> {
    let c = reg.current();
    let what = format!("{} chunk [{},{})", reg.construct, c.lo, c.hi);
    chunk_data_check_of(rt, (&reg.construct, &reg.sections), &what, slot, args)
}

/// [`chunk_data_check`] for a chunk of an execution of `construct` that maps `sections`,
/// described as `what` (the chunk tasks of a `target spread nowait` reach the runtime as target
/// tasks of their own). A section that overlaps another device's mapping made by a chunk of the
/// same execution is a neighbour's halo, overlapping by design: not warned about.
pub(super) fn chunk_data_check_of(
    rt: &runtime::Runtime,
    (construct, sections): (&Construct, &crate::spread::Sections),
    what: &str,
    slot: &runtime::DeviceSlot,
    args: &MapArgs,
) -> Result<(), Error> {
    if rt.config.strict {
        if let Some(u) = crate::presence::unreachable(rt, slot, args) {
            return Err(Error::new(
                ErrorKind::Mapping,
                crate::presence::unreachable_error(args, slot.id, what, &u),
            ));
        }
    }
    sections.note(slot.id, args);
    for f in crate::presence::elsewhere(rt, slot, args, false) {
        if f.pointer {
            return Err(Error::new(
                ErrorKind::Mapping,
                crate::presence::chunk_error(args, slot.id, &f),
            ));
        }
        if sections.holds(f.holder, f.held.0, f.held.1) {
            continue;
        }
        if crate::presence::first_time(construct.to_string(), f.arg) {
            eprintln!(
                "spread: warning: {what} on device {}: {}",
                slot.id,
                crate::presence::section_warning(args, slot.id, &f)
            );
        }
    }
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn spread_data(
    op: DataOp,
    r: *mut c_void,
    loc: *mut Ident,
    device: i64,
    n: i32,
    bases: *mut *mut c_void,
    begins: *mut *mut c_void,
    sizes: *mut i64,
    types: *mut i64,
    names: *mut *mut c_void,
    mappers: *mut *mut c_void,
) {
    let reg = region(r);
    let rt = runtime::get();
    let Some(slot) = resolve(rt, device, &|| {
        loc_of(loc).or_else(|| Some(reg.construct.location()))
    }) else {
        return;
    };
    let args = map_args(n, bases, begins, sizes, types, names, mappers);
    reg.submit_streamed(slot, move || {
        let mut args = args;
        enqueue_data(rt, slot, op, &mut args)
    });
}

macro_rules! spread_data_entry {
    ($($name:ident => $op:expr;)*) => {$(
        /// The work of the entry point of the same name, after its call site is recorded.
        mod $name {
            use super::*;
            #[allow(clippy::too_many_arguments)]
            pub(super) extern "C" fn body(
                r: *mut c_void, loc: *mut Ident, device: i64, n: i32,
                bases: *mut *mut c_void, begins: *mut *mut c_void, sizes: *mut i64,
                types: *mut i64, names: *mut *mut c_void, mappers: *mut *mut c_void,
            ) {
                guard(stringify!($name), || {
                    spread_data($op, r, loc, device, n, bases, begins, sizes, types, names, mappers)
                })
            }
        }

        /// A data operation of the current chunk, queued on its device.
        #[unsafe(naked)]
        #[no_mangle]
        pub extern "C" fn $name() {
            call_site_shim!($name::body)
        }
    )*};
}

spread_data_entry! {
    __spread_target_data_begin_mapper => DataOp::Begin;
    __spread_target_data_end_mapper => DataOp::End;
    __spread_target_data_update_mapper => DataOp::Update;
}

/// Registers reduction variable number k (the calls so far in this chunk) of the construct:
/// `op` and `ty` are spread.h's codes, `original` the variable, `size` its size.
#[no_mangle]
pub extern "C" fn __spread_reduction(
    r: *mut c_void,
    op: i32,
    ty: i32,
    original: *mut c_void,
    size: usize,
) {
    guard("__spread_reduction", || {
        let reg = region(r);
        if let Err(e) = reg.register_reduction(op, ty, original as usize, size) {
            let loc = reg.construct.location();
            report::fatal_construct(runtime::get(), &e, Some(&loc));
        }
    })
}

/// The current chunk's partial of reduction variable `k`.
#[no_mangle]
pub extern "C" fn __spread_reduction_slot(r: *mut c_void, k: i32) -> *mut c_void {
    guard("__spread_reduction_slot", || {
        let reg = region(r);
        match reg.reduction_partial(usize::try_from(k).unwrap_or(usize::MAX)) {
            Ok(p) => p as *mut c_void,
            Err(e) => {
                let loc = reg.construct.location();
                report::fatal_construct(runtime::get(), &e, Some(&loc))
            }
        }
    })
}

/// The construct's reductions, for `__spread_reductions_finish` (null without any).
#[no_mangle]
pub extern "C" fn __spread_region_reductions(r: *mut c_void) -> *mut c_void {
    guard("__spread_region_reductions", || {
        region(r)
            .reductions()
            .map_or(std::ptr::null_mut(), |p| p as *mut c_void)
    })
}

/// Combines a construct's partials into its reduction variables and frees them; null: none.
#[no_mangle]
pub extern "C" fn __spread_reductions_finish(h: *mut c_void) {
    guard("__spread_reductions_finish", || {
        if h.is_null() {
            return;
        }
        // SAFETY: `h` came from `__spread_region_reductions` (a leaked Box the region gave up at
        // `__spread_region_end`), and the lowering finishes it exactly once, after the end.
        let reds = unsafe { Box::from_raw(h as *mut crate::spread::Reductions) };
        reds.finish();
    })
}
