//! The C ABI of compute units and data placement (spread.h "compute units";
//! docs/compute-units.md): the `__spread_cu_*` calls of the `teams` lowering, the CU queries of
//! seed 004's Table 2 and the placement routines. Handles are the address of the active region,
//! checked against it on every call, so nothing here dereferences them.

use super::guard::guard;
use super::spread_exports::{construct_of, ConstructC};
use crate::cu::layout::{Descriptor, Kind};
use crate::cu::placement::{self, Place};
use crate::cu::{queries, region};
use crate::error::Error;
use crate::runtime::report;
use crate::runtime::{self, Runtime};
use crate::sys::mem;
use std::ffi::{c_int, c_uint, c_void};

/// `__spread_cud_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct CudC {
    pub count: i32,
    pub family: i32,
    pub size: i32,
}

/// `spread_cu_stats_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct CuStatsC {
    pub cu: i32,
    pub is_gpu: i32,
    pub device: i32,
    pub cpus: i32,
    pub units: i64,
    pub iterations: i64,
    pub busy_seconds: f64,
}

/// Ends the program for a failed compute-unit call of the region `h` (named when it is the
/// active one).
fn fatal(rt: &Runtime, h: usize, e: &Error) -> ! {
    let loc = region::active(h).map(|r| r.construct.location());
    report::fatal_construct(rt, e, loc.as_ref())
}

/// Starts the compute units of a `teams` construct over `[lb, ub)`.
#[no_mangle]
pub extern "C" fn __spread_cu_begin(
    c: *const ConstructC,
    lb: i64,
    ub: i64,
    cuds: *const CudC,
    ncud: i32,
    chunk: i64,
    thread_limit: i32,
) -> *mut c_void {
    guard("__spread_cu_begin", || {
        let rt = runtime::get();
        let construct = construct_of(c, "__spread_cu_begin");
        let loc = construct.location();
        // SAFETY: `cuds` is null or the lowering's array of `ncud` `__spread_cud_t`s (spread-abi.md,
        // compute units), alive for the duration of the call.
        let cuds = unsafe { mem::array(cuds, usize::try_from(ncud).unwrap_or(0)) };
        let descriptors: Vec<Descriptor> = cuds
            .into_iter()
            .map(|d| Descriptor {
                count: d.count,
                family: d.family,
                size: d.size,
            })
            .collect();
        match region::begin(rt, construct, (lb, ub), &descriptors, chunk, thread_limit) {
            Ok(h) => h as *mut c_void,
            Err(e) => report::fatal_construct(rt, &e, Some(&loc)),
        }
    })
}

/// One thread per CU.
#[no_mangle]
pub extern "C" fn __spread_cu_num_threads(h: *mut c_void) -> i32 {
    guard("__spread_cu_num_threads", || {
        match region::num_threads(h as usize) {
            Ok(n) => i32::try_from(n).unwrap_or(i32::MAX),
            Err(e) => fatal(runtime::get(), h as usize, &e),
        }
    })
}

/// The calling thread becomes CU `omp_get_thread_num()`.
#[no_mangle]
pub extern "C" fn __spread_cu_enter(h: *mut c_void) {
    guard("__spread_cu_enter", || {
        if let Err(e) = region::enter(h as usize) {
            fatal(runtime::get(), h as usize, &e)
        }
    })
}

/// The calling CU's next unit `[*lo, *hi)`; 0 when it gets no more.
#[no_mangle]
pub extern "C" fn __spread_cu_next(h: *mut c_void, lo: *mut i64, hi: *mut i64) -> i32 {
    guard("__spread_cu_next", || match region::next(h as usize) {
        Ok(Some(u)) => {
            // SAFETY: the lowering passes the addresses of its two int64_t locals `__lo` and
            // `__hi` (spread.h); a null one is skipped by write_array.
            unsafe {
                mem::write_array(lo, &[u.lo]);
                mem::write_array(hi, &[u.hi]);
            }
            1
        }
        Ok(None) => 0,
        Err(e) => fatal(runtime::get(), h as usize, &e),
    })
}

/// The calling CU's unit is done (`lo`, `hi`: the unit `__spread_cu_next` gave, which the
/// runtime remembers itself).
#[no_mangle]
pub extern "C" fn __spread_cu_commit(h: *mut c_void, _lo: i64, _hi: i64) {
    guard("__spread_cu_commit", || {
        let rt = runtime::get();
        if let Err(e) = region::commit(rt, h as usize) {
            fatal(rt, h as usize, &e)
        }
    })
}

/// The calling thread leaves its CU.
#[no_mangle]
pub extern "C" fn __spread_cu_leave(h: *mut c_void) {
    guard("__spread_cu_leave", || {
        if let Err(e) = region::leave(h as usize) {
            fatal(runtime::get(), h as usize, &e)
        }
    })
}

/// After the parallel region: teaches the model and ends the region.
#[no_mangle]
pub extern "C" fn __spread_cu_end(h: *mut c_void) {
    guard("__spread_cu_end", || {
        let rt = runtime::get();
        if let Err(e) = region::end(rt, h as usize) {
            fatal(rt, h as usize, &e)
        }
    })
}

/// What each CU of the last region that ended did: fills `out[0..min(n, CUs)]`, returns the
/// number of CUs (0 when no region ended yet).
#[no_mangle]
pub extern "C" fn spread_cu_last_stats(out: *mut CuStatsC, n: c_int) -> c_int {
    guard("spread_cu_last_stats", || {
        let stats = region::last_stats();
        let room = usize::try_from(n).unwrap_or(0).min(stats.len());
        let rows: Vec<CuStatsC> = stats[..room]
            .iter()
            .map(|s| {
                let (is_gpu, device, cpus) = match &s.cu.kind {
                    Kind::Cpu { cpus } => (0, -1, i32::try_from(*cpus).unwrap_or(i32::MAX)),
                    Kind::Gpu { devices } => (1, devices.first().copied().unwrap_or(-1), 1),
                };
                CuStatsC {
                    cu: i32::try_from(s.cu.id).unwrap_or(i32::MAX),
                    is_gpu,
                    device,
                    cpus,
                    units: i64::try_from(s.tally.units).unwrap_or(i64::MAX),
                    iterations: i64::try_from(s.tally.iterations).unwrap_or(i64::MAX),
                    busy_seconds: s.tally.busy.as_secs_f64(),
                }
            })
            .collect();
        // SAFETY: the caller passes room for `n` elements (spread.h); `rows` has at most `n`,
        // and write_array skips a null `out`.
        unsafe { mem::write_array(out, &rows) };
        c_int::try_from(stats.len()).unwrap_or(c_int::MAX)
    })
}

macro_rules! cu_query {
    ($($(#[$doc:meta])* $name:ident -> $ty:ty = |$v:ident| $e:expr;)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub extern "C" fn $name() -> $ty {
            guard(stringify!($name), || {
                let $v = queries::current_view();
                $e
            })
        }
    )*};
}

cu_query! {
    /// CUs of the invoking thread's region (1 outside one).
    omp_get_num_cus -> c_uint = |v| v.num_cus;
    /// GPU CUs.
    omp_get_num_gpus -> c_uint = |v| v.num_gpus;
    /// CPU CUs.
    omp_get_num_cpus -> c_uint = |v| v.num_cpus;
    /// CPUs of the invoking thread's CPU CU (the paper's `omp_get_num_threads()`).
    omp_get_cu_num_cpus -> c_uint = |v| v.cu_num_cpus;
    /// Whether the invoking thread belongs to a GPU CU.
    omp_is_gpu -> c_int = |v| c_int::from(v.is_gpu);
    /// Whether the invoking thread belongs to a CPU CU.
    omp_is_cpu -> c_int = |v| c_int::from(v.is_cpu);
    /// The first device of the invoking thread's GPU CU, `UINT_MAX` otherwise.
    omp_get_gpu -> c_uint = |v| v.gpu;
    /// The OpenMP thread number of the invoking thread's CPU CU, `UINT_MAX` otherwise.
    omp_get_cpu -> c_uint = |v| v.cpu;
    /// The invoking thread's CU number.
    omp_get_cu_num -> c_uint = |v| v.cu_num;
}

/// Waits for the device work of the invoking thread's GPU CU (its tasks only elsewhere).
#[no_mangle]
pub extern "C" fn omp_synchronize() {
    guard("omp_synchronize", || queries::synchronize(runtime::get()))
}

/// Prints a placement routine's failure; returns the routine's error value.
fn failed(routine: &str, e: &Error) -> c_int {
    eprintln!("spread: {routine}: {e}");
    1
}

/// The placement of the registered range containing `p`: a device number or the host
/// (`omp_get_initial_device()`); unregistered data is on the host.
#[no_mangle]
pub extern "C" fn omp_get_data_placement(p: *const c_void) -> c_int {
    guard("omp_get_data_placement", || {
        let rt = runtime::get();
        let place = placement::global()
            .placement(p as usize)
            .unwrap_or_else(|| {
                if rt.config.info_placement {
                    crate::info::spread_line(&format!(
                        "placement: {} is not registered: the host",
                        crate::info::ptr(p as usize)
                    ));
                }
                Place::Host
            });
        placement::value(rt, place)
    })
}

/// Whether a placement value is a device.
#[no_mangle]
pub extern "C" fn omp_is_device(plct: c_int) -> c_int {
    guard("omp_is_device", || {
        c_int::from(matches!(
            placement::place_of(runtime::get(), plct),
            Some(Place::Device(_))
        ))
    })
}

/// Whether a placement value is the host.
#[no_mangle]
pub extern "C" fn omp_is_host(plct: c_int) -> c_int {
    guard("omp_is_host", || {
        c_int::from(placement::place_of(runtime::get(), plct) == Some(Place::Host))
    })
}

/// Starts tracking `[p, p+bytes)` on the host; 0, or nonzero after printing why not.
#[no_mangle]
pub extern "C" fn spread_register_data(p: *mut c_void, bytes: usize) -> c_int {
    guard("spread_register_data", || {
        match placement::global().register(p as usize, bytes) {
            Ok(()) => 0,
            Err(e) => failed("spread_register_data", &e),
        }
    })
}

/// Migrates the range starting at `p` home and stops tracking it.
#[no_mangle]
pub extern "C" fn spread_unregister_data(p: *mut c_void) -> c_int {
    guard("spread_unregister_data", || {
        match placement::global().unregister(runtime::get(), p as usize) {
            Ok(()) => 0,
            Err(e) => failed("spread_unregister_data", &e),
        }
    })
}

/// Moves the range containing `p` to the invoking CU's space (its GPU CU's first device, else
/// the host).
#[no_mangle]
pub extern "C" fn spread_migrate_data(p: *mut c_void) -> c_int {
    guard("spread_migrate_data", || {
        let to = queries::current_device()
            .and_then(|d| usize::try_from(d).ok())
            .map_or(Place::Host, Place::Device);
        match placement::global().migrate(runtime::get(), p as usize, to) {
            Ok(()) => 0,
            Err(e) => failed("spread_migrate_data", &e),
        }
    })
}

/// Moves the range containing `p` to device `dev` (the host: `omp_get_initial_device()`).
#[no_mangle]
pub extern "C" fn spread_migrate_data_to(p: *mut c_void, dev: c_int) -> c_int {
    guard("spread_migrate_data_to", || {
        let rt = runtime::get();
        let Some(to) = placement::place_of(rt, dev) else {
            eprintln!(
                "spread: spread_migrate_data_to: device {dev} does not exist (the runtime has {} devices; the host is {})",
                rt.num_devices(),
                rt.initial_device()
            );
            return 1;
        };
        match placement::global().migrate(rt, p as usize, to) {
            Ok(()) => 0,
            Err(e) => failed("spread_migrate_data_to", &e),
        }
    })
}
