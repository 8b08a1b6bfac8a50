//! The C ABI of multi-device memory (spread.h): the memory-space and allocator routines, the
//! trait queries, and libomp's allocator entry points, which Spread interposes (peer copies and
//! device waits: `peer_exports.rs`).
//!
//! Interposition: a program reaches `omp_alloc`, `omp_init_allocator`, the `allocate` directive's
//! `__kmpc_alloc` and the rest by symbol lookup, and those are libomp's. Spread defines them too,
//! with libomp's symbol version (`VERSION`), and handles the calls that involve its own
//! allocators or memory; every other call goes to libomp's definition, found in libomp itself,
//! unchanged. This works when Spread precedes libomp in the lookup order: under `LD_PRELOAD`,
//! and for programs linked by spread-cc (which puts `-lomptarget` first). Otherwise the routines
//! that make Spread spaces say so and return no space, rather than hand out allocators that
//! libomp would misread.

use super::guard::guard;
use crate::error::Error;
use crate::memory::{allocator, allocator::Outcome, space};
use crate::runtime::{self, Runtime};
use crate::sys::{dl, mem};
use std::cell::Cell;
use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

type Handle = usize;

/// `omp_alloctrait_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct AllocTrait {
    pub key: c_int,
    pub value: usize,
}

/// `omp_null_mem_space` as spread.h defines it for LLVM 19.
const NULL_MEM_SPACE: Handle = usize::MAX - 1;

/// libomp's own definitions of the routines Spread interposes.
struct Libomp {
    init_allocator: Option<extern "C" fn(Handle, c_int, *const AllocTrait) -> Handle>,
    destroy_allocator: Option<extern "C" fn(Handle)>,
    set_default_allocator: Option<extern "C" fn(Handle)>,
    get_default_allocator: Option<extern "C" fn() -> Handle>,
    alloc: Option<extern "C" fn(usize, Handle) -> *mut c_void>,
    aligned_alloc: Option<extern "C" fn(usize, usize, Handle) -> *mut c_void>,
    calloc: Option<extern "C" fn(usize, usize, Handle) -> *mut c_void>,
    aligned_calloc: Option<extern "C" fn(usize, usize, usize, Handle) -> *mut c_void>,
    realloc: Option<extern "C" fn(*mut c_void, usize, Handle, Handle) -> *mut c_void>,
    free: Option<extern "C" fn(*mut c_void, Handle)>,
    kmpc_init_allocator: Option<extern "C" fn(c_int, Handle, c_int, *const AllocTrait) -> Handle>,
    kmpc_destroy_allocator: Option<extern "C" fn(c_int, Handle)>,
    kmpc_alloc: Option<extern "C" fn(c_int, usize, Handle) -> *mut c_void>,
    kmpc_aligned_alloc: Option<extern "C" fn(c_int, usize, usize, Handle) -> *mut c_void>,
    kmpc_calloc: Option<extern "C" fn(c_int, usize, usize, Handle) -> *mut c_void>,
    kmpc_realloc: Option<extern "C" fn(c_int, *mut c_void, usize, Handle, Handle) -> *mut c_void>,
    kmpc_free: Option<extern "C" fn(c_int, *mut c_void, Handle)>,
}

fn libomp() -> &'static Libomp {
    static L: OnceLock<Libomp> = OnceLock::new();
    L.get_or_init(|| {
        let handle = dl::library_of("__kmpc_global_thread_num");
        macro_rules! sym {
            ($name:literal, $ty:ty) => {
                handle.and_then(|h| dl::symbol_in(h, $name)).map(|a| {
                    // SAFETY: the address is libomp 19's own definition of the routine named,
                    // whose C signature (omp.h, kmp.h) is the one written here.
                    unsafe { std::mem::transmute::<usize, $ty>(a) }
                })
            };
        }
        Libomp {
            init_allocator: sym!(
                "omp_init_allocator",
                extern "C" fn(Handle, c_int, *const AllocTrait) -> Handle
            ),
            destroy_allocator: sym!("omp_destroy_allocator", extern "C" fn(Handle)),
            set_default_allocator: sym!("omp_set_default_allocator", extern "C" fn(Handle)),
            get_default_allocator: sym!("omp_get_default_allocator", extern "C" fn() -> Handle),
            alloc: sym!("omp_alloc", extern "C" fn(usize, Handle) -> *mut c_void),
            aligned_alloc: sym!(
                "omp_aligned_alloc",
                extern "C" fn(usize, usize, Handle) -> *mut c_void
            ),
            calloc: sym!(
                "omp_calloc",
                extern "C" fn(usize, usize, Handle) -> *mut c_void
            ),
            aligned_calloc: sym!(
                "omp_aligned_calloc",
                extern "C" fn(usize, usize, usize, Handle) -> *mut c_void
            ),
            realloc: sym!(
                "omp_realloc",
                extern "C" fn(*mut c_void, usize, Handle, Handle) -> *mut c_void
            ),
            free: sym!("omp_free", extern "C" fn(*mut c_void, Handle)),
            kmpc_init_allocator: sym!(
                "__kmpc_init_allocator",
                extern "C" fn(c_int, Handle, c_int, *const AllocTrait) -> Handle
            ),
            kmpc_destroy_allocator: sym!("__kmpc_destroy_allocator", extern "C" fn(c_int, Handle)),
            kmpc_alloc: sym!(
                "__kmpc_alloc",
                extern "C" fn(c_int, usize, Handle) -> *mut c_void
            ),
            kmpc_aligned_alloc: sym!(
                "__kmpc_aligned_alloc",
                extern "C" fn(c_int, usize, usize, Handle) -> *mut c_void
            ),
            kmpc_calloc: sym!(
                "__kmpc_calloc",
                extern "C" fn(c_int, usize, usize, Handle) -> *mut c_void
            ),
            kmpc_realloc: sym!(
                "__kmpc_realloc",
                extern "C" fn(c_int, *mut c_void, usize, Handle, Handle) -> *mut c_void
            ),
            kmpc_free: sym!("__kmpc_free", extern "C" fn(c_int, *mut c_void, Handle)),
        }
    })
}

/// Reports that libomp is missing for a call Spread must pass on (a program without libomp).
fn no_libomp(routine: &str) {
    eprintln!("spread: {routine}: libomp is not loaded, so this allocator cannot be used");
}

/// Whether the program's calls of the allocator routines reach Spread (see the module docs).
fn routes_allocators() -> bool {
    static R: OnceLock<bool> = OnceLock::new();
    *R.get_or_init(|| {
        // Taking `omp_alloc`'s address here would go through the GOT and give whichever
        // definition won; compare the objects that define the winners with this library, which
        // a private function's address identifies.
        let ours = dl::object_base(routes_allocators as *const () as usize);
        ours.is_some()
            && ["omp_alloc", "__kmpc_alloc", "omp_init_allocator"]
                .iter()
                .all(|name| dl::global_symbol(name).and_then(dl::object_base) == ours)
    })
}

/// The one-line report of a failed memory or peer routine (the routine returns its failure value).
pub(super) fn error(routine: &str, e: &Error) {
    eprintln!("spread: {routine}: {e}");
}

// ---- memory spaces -------------------------------------------------------------------------

/// Makes a space; prints why not (invalid input always, an unsupported space under
/// `SPREAD_INFO=memory`) and returns `None`.
fn make_space(
    routine: &str,
    devs: &[i64],
    host: bool,
    base: Handle,
) -> Option<&'static space::MemSpace> {
    let rt = runtime::get();
    if !routes_allocators() {
        eprintln!(
            "spread: {routine}: libomp's allocator routines come before Spread's in this program's symbol lookup, \
             so allocators on Spread memory spaces would not reach Spread; build with spread-cc, link with \
             -lomptarget before -fopenmp's libraries, or run with LD_PRELOAD=libspread_rt.so"
        );
        return None;
    }
    let made = space::Accessors::from_list(rt, devs, host).and_then(|a| space::get(rt, a, base));
    match made {
        Ok(s) => Some(s),
        Err(e) if e.kind == crate::error::ErrorKind::Unsupported => {
            if rt.config.info_memory {
                crate::info::spread_line(&format!("memory: {routine}: no such memory space: {e}"));
            }
            None
        }
        Err(e) => {
            error(routine, &e);
            None
        }
    }
}

fn device_list(routine: &str, ndevs: c_int, devs: *const c_int) -> Option<Vec<i64>> {
    if ndevs <= 0 || devs.is_null() {
        eprintln!("spread: {routine}: needs a non-empty device list (ndevs = {ndevs})");
        return None;
    }
    // SAFETY: the routine's contract (OpenMP 6.0 `omp_get_devices_memspace` & co., seed 001's
    // `omp_get_target_memspace`): `devs` (non-null, checked above) has `ndevs` (positive) ints.
    let devs = unsafe { mem::array(devs, ndevs as usize) };
    Some(devs.into_iter().map(i64::from).collect())
}

fn all_devices(rt: &Runtime) -> Vec<i64> {
    (0..rt.num_devices() as i64).collect()
}

fn handle_of(s: Option<&'static space::MemSpace>) -> Handle {
    s.map_or(NULL_MEM_SPACE, |s| s.handle)
}

/// Seed 001: a pointer to the handle of a space the devices share, or NULL.
#[no_mangle]
pub extern "C" fn omp_get_target_memspace(
    count: c_int,
    dev_nums: *const c_int,
    existing: Handle,
) -> *const Handle {
    guard("omp_get_target_memspace", || {
        const R: &str = "omp_get_target_memspace";
        device_list(R, count, dev_nums)
            .and_then(|d| make_space(R, &d, false, existing))
            .map_or(std::ptr::null(), |s| &s.handle as *const Handle)
    })
}

#[no_mangle]
pub extern "C" fn omp_get_devices_memspace(ndevs: c_int, devs: *const c_int, ms: Handle) -> Handle {
    guard("omp_get_devices_memspace", || {
        const R: &str = "omp_get_devices_memspace";
        handle_of(device_list(R, ndevs, devs).and_then(|d| make_space(R, &d, false, ms)))
    })
}

#[no_mangle]
pub extern "C" fn omp_get_device_memspace(dev: c_int, ms: Handle) -> Handle {
    guard("omp_get_device_memspace", || {
        handle_of(make_space(
            "omp_get_device_memspace",
            &[i64::from(dev)],
            false,
            ms,
        ))
    })
}

#[no_mangle]
pub extern "C" fn omp_get_devices_and_host_memspace(
    ndevs: c_int,
    devs: *const c_int,
    ms: Handle,
) -> Handle {
    guard("omp_get_devices_and_host_memspace", || {
        const R: &str = "omp_get_devices_and_host_memspace";
        handle_of(device_list(R, ndevs, devs).and_then(|d| make_space(R, &d, true, ms)))
    })
}

#[no_mangle]
pub extern "C" fn omp_get_device_and_host_memspace(dev: c_int, ms: Handle) -> Handle {
    guard("omp_get_device_and_host_memspace", || {
        handle_of(make_space(
            "omp_get_device_and_host_memspace",
            &[i64::from(dev)],
            true,
            ms,
        ))
    })
}

#[no_mangle]
pub extern "C" fn omp_get_devices_all_memspace(ms: Handle) -> Handle {
    guard("omp_get_devices_all_memspace", || {
        let devs = all_devices(runtime::get());
        handle_of(make_space("omp_get_devices_all_memspace", &devs, true, ms))
    })
}

/// An allocator with default traits on a space, or `omp_null_allocator`.
fn allocator_on(routine: &str, s: Option<&'static space::MemSpace>) -> Handle {
    let Some(s) = s else { return 0 };
    allocator::init(runtime::get(), s, &[]).unwrap_or_else(|e| {
        error(routine, &e);
        0
    })
}

#[no_mangle]
pub extern "C" fn omp_get_devices_allocator(
    ndevs: c_int,
    devs: *const c_int,
    ms: Handle,
) -> Handle {
    guard("omp_get_devices_allocator", || {
        const R: &str = "omp_get_devices_allocator";
        allocator_on(
            R,
            device_list(R, ndevs, devs).and_then(|d| make_space(R, &d, false, ms)),
        )
    })
}

#[no_mangle]
pub extern "C" fn omp_get_device_allocator(dev: c_int, ms: Handle) -> Handle {
    guard("omp_get_device_allocator", || {
        const R: &str = "omp_get_device_allocator";
        allocator_on(R, make_space(R, &[i64::from(dev)], false, ms))
    })
}

#[no_mangle]
pub extern "C" fn omp_get_devices_and_host_allocator(
    ndevs: c_int,
    devs: *const c_int,
    ms: Handle,
) -> Handle {
    guard("omp_get_devices_and_host_allocator", || {
        const R: &str = "omp_get_devices_and_host_allocator";
        allocator_on(
            R,
            device_list(R, ndevs, devs).and_then(|d| make_space(R, &d, true, ms)),
        )
    })
}

#[no_mangle]
pub extern "C" fn omp_get_device_and_host_allocator(dev: c_int, ms: Handle) -> Handle {
    guard("omp_get_device_and_host_allocator", || {
        const R: &str = "omp_get_device_and_host_allocator";
        allocator_on(R, make_space(R, &[i64::from(dev)], true, ms))
    })
}

#[no_mangle]
pub extern "C" fn omp_get_devices_all_allocator(ms: Handle) -> Handle {
    guard("omp_get_devices_all_allocator", || {
        const R: &str = "omp_get_devices_all_allocator";
        let devs = all_devices(runtime::get());
        allocator_on(R, make_space(R, &devs, true, ms))
    })
}

#[no_mangle]
pub extern "C" fn omp_get_memspace_num_resources(ms: Handle) -> c_int {
    guard("omp_get_memspace_num_resources", || {
        if let Some(s) = space::lookup(ms) {
            return crate::memory::provider::num_resources(s) as c_int;
        }
        match space::BaseSpace::from_handle(ms) {
            Some(_) => crate::memory::provider::numa_nodes() as c_int,
            None => {
                eprintln!("spread: omp_get_memspace_num_resources: {ms:#x} is not a memory space");
                0
            }
        }
    })
}

// ---- allocator routines (interposed) ---------------------------------------------------------

fn traits_of(ntraits: c_int, traits: *const AllocTrait) -> Vec<(u64, u64)> {
    // SAFETY: `omp_init_allocator`'s contract (also what clang passes for `uses_allocators`):
    // `traits` is null or has `ntraits` `omp_alloctrait_t`s, alive for the duration of the call.
    let traits = unsafe { mem::array(traits, usize::try_from(ntraits).unwrap_or(0)) };
    traits
        .into_iter()
        .map(|t| (t.key as u32 as u64, t.value as u64))
        .collect()
}

/// `omp_init_allocator` for Spread's spaces and seed 001's traits; `None`: libomp's business.
fn init_spread(
    routine: &str,
    ms: Handle,
    ntraits: c_int,
    traits: *const AllocTrait,
) -> Option<Handle> {
    let t = traits_of(ntraits, traits);
    if ms == NULL_MEM_SPACE {
        eprintln!(
            "spread: {routine}: the memory space is omp_null_mem_space (no space could be made)"
        );
        return Some(0);
    }
    let Some(s) = space::lookup(ms) else {
        if crate::memory::traits::uses_extension_keys(&t) {
            eprintln!(
                "spread: {routine}: omp_atk_memory_access, omp_atk_preferred_location and omp_atk_preferred_place \
                 need a memory space from omp_get_devices_memspace & co., not the predefined space {ms:#x}"
            );
            return Some(0);
        }
        return None;
    };
    Some(allocator::init(runtime::get(), s, &t).unwrap_or_else(|e| {
        error(routine, &e);
        0
    }))
}

#[no_mangle]
pub extern "C" fn omp_init_allocator(
    ms: Handle,
    ntraits: c_int,
    traits: *const AllocTrait,
) -> Handle {
    guard("omp_init_allocator", || {
        if let Some(h) = init_spread("omp_init_allocator", ms, ntraits, traits) {
            return h;
        }
        match libomp().init_allocator {
            Some(f) => f(ms, ntraits, traits),
            None => {
                no_libomp("omp_init_allocator");
                0
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn __kmpc_init_allocator(
    gtid: c_int,
    ms: Handle,
    ntraits: c_int,
    traits: *const AllocTrait,
) -> Handle {
    guard("__kmpc_init_allocator", || {
        if let Some(h) = init_spread("uses_allocators", ms, ntraits, traits) {
            return h;
        }
        match libomp().kmpc_init_allocator {
            Some(f) => f(gtid, ms, ntraits, traits),
            None => {
                no_libomp("__kmpc_init_allocator");
                0
            }
        }
    })
}

fn destroy_spread(routine: &str, a: Handle) -> bool {
    if !allocator::is_spread(a) {
        return false;
    }
    if let Err(e) = allocator::destroy(a) {
        error(routine, &e);
    }
    DEFAULT.with(|d| {
        if d.get() == a {
            d.set(0)
        }
    });
    true
}

#[no_mangle]
pub extern "C" fn omp_destroy_allocator(a: Handle) {
    guard("omp_destroy_allocator", || {
        if !destroy_spread("omp_destroy_allocator", a) {
            if let Some(f) = libomp().destroy_allocator {
                f(a)
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn __kmpc_destroy_allocator(gtid: c_int, a: Handle) {
    guard("__kmpc_destroy_allocator", || {
        if !destroy_spread("uses_allocators", a) {
            if let Some(f) = libomp().kmpc_destroy_allocator {
                f(gtid, a)
            }
        }
    })
}

thread_local! {
    /// The calling thread's default allocator when it is one of Spread's (libomp keeps the
    /// others, and would misread Spread's).
    static DEFAULT: Cell<Handle> = const { Cell::new(0) };
}

#[no_mangle]
pub extern "C" fn omp_set_default_allocator(a: Handle) {
    guard("omp_set_default_allocator", || {
        if allocator::is_spread(a) {
            DEFAULT.with(|d| d.set(a));
            return;
        }
        DEFAULT.with(|d| d.set(0));
        if let Some(f) = libomp().set_default_allocator {
            f(a)
        }
    })
}

#[no_mangle]
pub extern "C" fn omp_get_default_allocator() -> Handle {
    guard("omp_get_default_allocator", || {
        let d = DEFAULT.with(Cell::get);
        if d != 0 {
            return d;
        }
        libomp().get_default_allocator.map_or(1, |f| f())
    })
}

/// The allocator a call means: `omp_null_allocator` is the thread's default.
fn effective(a: Handle) -> Handle {
    if a == 0 {
        let d = DEFAULT.with(Cell::get);
        if d != 0 {
            return d;
        }
    }
    a
}

/// How a call's allocation ends: Spread served it, or it goes to libomp with this allocator.
enum Route {
    Done(*mut c_void),
    Libomp(Handle),
}

fn alloc_spread(routine: &str, a: Handle, size: usize, align: usize, zero: bool) -> Route {
    let a = effective(a);
    if !allocator::is_spread(a) {
        return Route::Libomp(a);
    }
    let rt = runtime::get();
    match allocator::alloc(rt, a, size, align, zero) {
        Ok(Outcome::Ptr(p)) => Route::Done(p as *mut c_void),
        Ok(Outcome::Null) => Route::Done(std::ptr::null_mut()),
        Ok(Outcome::Delegate(fb)) => Route::Libomp(fb),
        Err(e) if e.kind == crate::error::ErrorKind::OutOfMemory => {
            eprintln!("spread: {routine}: {e}");
            std::process::abort()
        }
        Err(e) => {
            error(routine, &e);
            Route::Done(std::ptr::null_mut())
        }
    }
}

macro_rules! via_libomp {
    ($routine:literal, $field:ident, $($arg:expr),*) => {
        match libomp().$field {
            Some(f) => f($($arg),*),
            None => {
                no_libomp($routine);
                std::ptr::null_mut()
            }
        }
    };
}

#[no_mangle]
pub extern "C" fn omp_alloc(size: usize, a: Handle) -> *mut c_void {
    guard("omp_alloc", || alloc(size, a))
}

/// The body of [`omp_alloc`], for `omp_realloc` too (Rust never calls an exported function:
/// see `symvers!` in capi/mod.rs).
fn alloc(size: usize, a: Handle) -> *mut c_void {
    match alloc_spread("omp_alloc", a, size, 1, false) {
        Route::Done(p) => p,
        Route::Libomp(a) => via_libomp!("omp_alloc", alloc, size, a),
    }
}

#[no_mangle]
pub extern "C" fn omp_aligned_alloc(align: usize, size: usize, a: Handle) -> *mut c_void {
    guard("omp_aligned_alloc", || {
        match alloc_spread("omp_aligned_alloc", a, size, align, false) {
            Route::Done(p) => p,
            Route::Libomp(a) => via_libomp!("omp_aligned_alloc", aligned_alloc, align, size, a),
        }
    })
}

#[no_mangle]
pub extern "C" fn omp_calloc(nmemb: usize, size: usize, a: Handle) -> *mut c_void {
    guard("omp_calloc", || {
        let Some(bytes) = nmemb.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        match alloc_spread("omp_calloc", a, bytes, 1, true) {
            Route::Done(p) => p,
            Route::Libomp(a) => via_libomp!("omp_calloc", calloc, nmemb, size, a),
        }
    })
}

#[no_mangle]
pub extern "C" fn omp_aligned_calloc(
    align: usize,
    nmemb: usize,
    size: usize,
    a: Handle,
) -> *mut c_void {
    guard("omp_aligned_calloc", || {
        let Some(bytes) = nmemb.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        match alloc_spread("omp_aligned_calloc", a, bytes, align, true) {
            Route::Done(p) => p,
            Route::Libomp(a) => {
                via_libomp!("omp_aligned_calloc", aligned_calloc, align, nmemb, size, a)
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn __kmpc_alloc(gtid: c_int, size: usize, a: Handle) -> *mut c_void {
    guard("__kmpc_alloc", || {
        match alloc_spread("allocate", a, size, 1, false) {
            Route::Done(p) => p,
            Route::Libomp(a) => via_libomp!("__kmpc_alloc", kmpc_alloc, gtid, size, a),
        }
    })
}

#[no_mangle]
pub extern "C" fn __kmpc_aligned_alloc(
    gtid: c_int,
    align: usize,
    size: usize,
    a: Handle,
) -> *mut c_void {
    guard("__kmpc_aligned_alloc", || {
        match alloc_spread("allocate", a, size, align, false) {
            Route::Done(p) => p,
            Route::Libomp(a) => via_libomp!(
                "__kmpc_aligned_alloc",
                kmpc_aligned_alloc,
                gtid,
                align,
                size,
                a
            ),
        }
    })
}

#[no_mangle]
pub extern "C" fn __kmpc_calloc(gtid: c_int, nmemb: usize, size: usize, a: Handle) -> *mut c_void {
    guard("__kmpc_calloc", || {
        let Some(bytes) = nmemb.checked_mul(size) else {
            return std::ptr::null_mut();
        };
        match alloc_spread("allocate", a, bytes, 1, true) {
            Route::Done(p) => p,
            Route::Libomp(a) => via_libomp!("__kmpc_calloc", kmpc_calloc, gtid, nmemb, size, a),
        }
    })
}

/// `omp_free` of Spread memory, or `false` when libomp's business.
fn free_spread(routine: &str, ptr: *mut c_void, a: Handle) -> bool {
    if ptr.is_null() {
        return allocator::is_spread(effective(a)); // freeing NULL does nothing
    }
    let owned = allocator::allocation(ptr as usize).is_some();
    if !owned && !allocator::is_spread(a) {
        return false;
    }
    if let Err(e) = allocator::free(runtime::get(), ptr as usize, a) {
        error(routine, &e);
    }
    true
}

#[no_mangle]
pub extern "C" fn omp_free(ptr: *mut c_void, a: Handle) {
    guard("omp_free", || free(ptr, a))
}

/// The body of [`omp_free`], for `omp_realloc` too.
fn free(ptr: *mut c_void, a: Handle) {
    if !free_spread("omp_free", ptr, a) {
        if let Some(f) = libomp().free {
            f(ptr, a)
        }
    }
}

#[no_mangle]
pub extern "C" fn __kmpc_free(gtid: c_int, ptr: *mut c_void, a: Handle) {
    guard("__kmpc_free", || {
        if !free_spread("allocate", ptr, a) {
            if let Some(f) = libomp().kmpc_free {
                f(gtid, ptr, a)
            }
        }
    })
}

/// `omp_realloc` when Spread memory or a Spread allocator is involved; `None` otherwise.
fn realloc_spread(
    routine: &str,
    ptr: *mut c_void,
    size: usize,
    a: Handle,
    free_a: Handle,
) -> Option<*mut c_void> {
    let a = effective(a);
    let old = (!ptr.is_null())
        .then(|| allocator::size_of(ptr as usize))
        .flatten();
    if old.is_none() && !allocator::is_spread(a) {
        return None;
    }
    if !ptr.is_null() && old.is_none() {
        eprintln!(
            "spread: {routine}: {ptr:p} is not Spread memory, so its size is unknown and it cannot move to Spread allocator {a:#x}; it was left as it was"
        );
        return Some(std::ptr::null_mut());
    }
    if size == 0 {
        free(ptr, free_a);
        return Some(std::ptr::null_mut());
    }
    let new = alloc(size, a);
    if new.is_null() {
        return Some(new); // the old memory is left as it was
    }
    if let Some(old) = old {
        // Either block may be a device's own memory: the device layer copies (`new` is a fresh
        // allocation of `size` bytes, `ptr` Spread memory of `old` bytes).
        let rt = runtime::get();
        if let Err(e) = allocator::copy_contents(rt, new as usize, ptr as usize, old.min(size)) {
            error(routine, &e);
            free(new, 0); // omp_null_allocator: whichever allocator made it takes it back
            return Some(std::ptr::null_mut()); // the old memory is left as it was
        }
        free(ptr, free_a);
    }
    Some(new)
}

#[no_mangle]
pub extern "C" fn omp_realloc(
    ptr: *mut c_void,
    size: usize,
    a: Handle,
    free_a: Handle,
) -> *mut c_void {
    guard("omp_realloc", || {
        if let Some(p) = realloc_spread("omp_realloc", ptr, size, a, free_a) {
            return p;
        }
        via_libomp!("omp_realloc", realloc, ptr, size, a, free_a)
    })
}

#[no_mangle]
pub extern "C" fn __kmpc_realloc(
    gtid: c_int,
    ptr: *mut c_void,
    size: usize,
    a: Handle,
    free_a: Handle,
) -> *mut c_void {
    guard("__kmpc_realloc", || {
        if let Some(p) = realloc_spread("allocate", ptr, size, a, free_a) {
            return p;
        }
        via_libomp!("__kmpc_realloc", kmpc_realloc, gtid, ptr, size, a, free_a)
    })
}

// ---- queries -------------------------------------------------------------------------------

fn write_traits(found: Option<Vec<(u64, u64)>>, out: *mut AllocTrait, max: c_int) -> c_int {
    let Some(t) = found else { return -1 };
    let n = usize::try_from(max).unwrap_or(0).min(t.len());
    if !out.is_null() && n > 0 {
        let v: Vec<AllocTrait> = t[..n]
            .iter()
            .map(|&(k, v)| AllocTrait {
                key: k as c_int,
                value: v as usize,
            })
            .collect();
        // SAFETY: `out` is the program's trait array of `max` elements (the routine's contract)
        // and `v` has at most `max`.
        unsafe { mem::write_array(out, &v) };
    }
    t.len() as c_int
}

#[no_mangle]
pub extern "C" fn spread_get_alloc_traits(
    ptr: *const c_void,
    out: *mut AllocTrait,
    max: c_int,
) -> c_int {
    guard("spread_get_alloc_traits", || {
        write_traits(allocator::query_allocation(ptr as usize), out, max)
    })
}

#[no_mangle]
pub extern "C" fn spread_get_allocator_traits(
    a: Handle,
    out: *mut AllocTrait,
    max: c_int,
) -> c_int {
    guard("spread_get_allocator_traits", || {
        write_traits(allocator::query_allocator(a), out, max)
    })
}

/// The C library's `free`, interposed: memory an OpenMP allocator of Spread's gave (which the
/// devices of its space may use in place) is given back as `omp_free` would, with a warning
/// that names it, instead of returning to libc while it is still registered as the space's
/// (the next `malloc` of the address then had its `target` regions write the host's copy).
/// Everything else goes straight to libc: one atomic load while no such memory is live.
#[export_name = "free"]
pub extern "C" fn libc_free(ptr: *mut c_void) {
    let p = ptr as usize;
    match allocator::libc_gives_back(p) {
        None => crate::sys::libc_alloc::free(p),
        Some(a) => guard("free", || {
            libc_misuse("free", ptr, &a, "freed as omp_free would");
            if let Err(e) = allocator::free(runtime::get(), p, a.allocator) {
                error("free", &e);
            }
        }),
    }
}

/// The C library's `realloc`, interposed as [`libc_free`] is `free`: memory of a Spread allocator is
/// reallocated by `omp_realloc` on the same allocator (it stays the space's), with a warning.
#[export_name = "realloc"]
pub extern "C" fn libc_realloc(ptr: *mut c_void, size: usize) -> *mut c_void {
    let p = ptr as usize;
    match allocator::libc_gives_back(p) {
        None => crate::sys::libc_alloc::realloc(p, size) as *mut c_void,
        Some(a) => guard("realloc", || {
            libc_misuse(
                "realloc",
                ptr,
                &a,
                "reallocated by omp_realloc on the same allocator",
            );
            realloc_spread("realloc", ptr, size, a.allocator, a.allocator)
                .unwrap_or(std::ptr::null_mut())
        }),
    }
}

/// Reports a libc `free`/`realloc` of Spread allocator memory (the first few of them).
fn libc_misuse(routine: &str, ptr: *mut c_void, a: &allocator::Allocation, done: &str) {
    const SHOWN: usize = 10;
    static COUNT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = COUNT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    if n >= SHOWN {
        return;
    }
    eprintln!(
        "spread: warning: {routine}({ptr:p}) of {} bytes that omp_alloc gave from allocator {:#x} ({}): memory of an OpenMP allocator goes back with omp_free (or omp_realloc), not libc's {routine}; it was {done}{}",
        a.size,
        a.allocator,
        allocator::describe_grant(&a.grant),
        if n + 1 == SHOWN {
            " (further ones are not reported)"
        } else {
            ""
        }
    );
}

// libomp's routines get libomp's symbol version, `VERSION` (exports.list), so that programs
// linked against libomp bind to Spread's definitions when Spread comes first. The other exports
// of this module are unversioned, like the `__spread_*` ABI.
symvers!("capi/memory");
