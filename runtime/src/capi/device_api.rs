//! The OpenMP device and device-memory routines (`omp_get_num_devices`, `omp_target_alloc`,
//! `omp_target_memcpy*`, `omp_target_memset*`, `omp_target_is_present`, `omp_target_associate_ptr`,
//! LLVM's `llvm_omp_target_*` extensions, `ompx_dump_mapping_tables`), which LLVM 19's
//! libomptarget exports beside its `__tgt_*` entry points (`exports.rs`) under the same symbol
//! version. Each converts its arguments and calls `crate::api`.

use super::call_site::call_site_shim;
use super::exports::FAIL;
use super::guard::guard;
use crate::api::{self, Rect, Side};
use crate::device::AllocKind;
use crate::runtime::report;
use crate::runtime::{self, Runtime};
use crate::sys::{kmp, mem};
use std::ffi::{c_int, c_void};

// ---------------------------------------------------------------------------------------------
// Device queries.

#[no_mangle]
pub extern "C" fn omp_get_num_devices() -> c_int {
    guard("omp_get_num_devices", || {
        runtime::get().num_devices() as c_int
    })
}

#[no_mangle]
pub extern "C" fn omp_get_initial_device() -> c_int {
    guard("omp_get_initial_device", || {
        runtime::get().initial_device() as c_int
    })
}

/// On the host, the device number is the initial device's.
#[no_mangle]
pub extern "C" fn omp_get_device_num() -> c_int {
    guard("omp_get_device_num", || {
        runtime::get().initial_device() as c_int
    })
}

// ---------------------------------------------------------------------------------------------
// Device memory routines.

fn api_side(rt: &'static Runtime, device: c_int) -> Side<'static> {
    match api::side(rt, i64::from(device)) {
        Ok(s) => s,
        Err(e) => report::fatal_device(&e, i64::from(device), None),
    }
}

fn alloc_kind(size: usize, device: c_int, kind: AllocKind) -> *mut c_void {
    if size == 0 {
        return std::ptr::null_mut();
    }
    let rt = runtime::get();
    if let Err(e) = api::side(rt, i64::from(device)) {
        report::fatal_device(&e, i64::from(device), None);
    }
    match api::alloc(rt, size, i64::from(device), kind) {
        Ok(p) => p as *mut c_void,
        Err(e) => {
            report::print_error(&e);
            std::ptr::null_mut()
        }
    }
}

fn free_kind(ptr: *mut c_void, device: c_int) {
    if ptr.is_null() {
        return;
    }
    let rt = runtime::get();
    match api_side(rt, device) {
        // SAFETY: OpenMP requires the pointer to come from `omp_target_alloc` for the initial
        // device, which is `mem::alloc` (api::alloc), and not to be used after this call.
        Side::Host => unsafe { mem::free(ptr as usize) },
        Side::Device(d) => {
            if let Err(e) = d.api_free(ptr as usize) {
                report::fatal(
                    i64::from(device),
                    &format!("Failed to deallocate device ptr: {}", e.message),
                );
            }
        }
    }
}

/// The `omp_target_alloc` family: one export per name, each allocating its kind of memory the
/// same way.
macro_rules! alloc_entries {
    ($($name:ident => $kind:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "`: `size` bytes of `", stringify!($kind),
            "` memory on `device`.")]
        #[unsafe(naked)]
        #[no_mangle]
        pub extern "C" fn $name() {
            call_site_shim!($name::body)
        }

        /// The work of the entry point of the same name, after its call site is recorded.
        mod $name {
            use super::*;
            pub(super) extern "C" fn body(size: usize, device: c_int) -> *mut c_void {
                guard(stringify!($name), || alloc_kind(size, device, AllocKind::$kind))
            }
        }
    )*};
}

alloc_entries! {
    omp_target_alloc => Device,
    llvm_omp_target_alloc_device => Device,
    llvm_omp_target_alloc_host => Host,
    llvm_omp_target_alloc_shared => Shared,
}

/// The `omp_target_free` family: every kind is freed the same way.
macro_rules! free_entries {
    ($($name:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "`: frees memory of `device` from its allocation.")]
        #[unsafe(naked)]
        #[no_mangle]
        pub extern "C" fn $name() {
            call_site_shim!($name::body)
        }

        /// The work of the entry point of the same name, after its call site is recorded.
        mod $name {
            use super::*;
            pub(super) extern "C" fn body(ptr: *mut c_void, device: c_int) {
                guard(stringify!($name), || free_kind(ptr, device))
            }
        }
    )*};
}

free_entries! {
    omp_target_free,
    llvm_omp_target_free_device,
    llvm_omp_target_free_host,
    llvm_omp_target_free_shared,
}

/// Page-locks host memory for fast copies to and from `device` (the device layer's `pin_host`;
/// host devices need nothing) and returns the address the device uses for it, or null on error.
#[no_mangle]
pub extern "C" fn llvm_omp_target_lock_mem(
    ptr: *mut c_void,
    size: usize,
    device: c_int,
) -> *mut c_void {
    guard("llvm_omp_target_lock_mem", || {
        if size == 0 || ptr.is_null() {
            return std::ptr::null_mut();
        }
        match api::lock_mem(api_side(runtime::get(), device), ptr as usize, size) {
            Ok(p) => p as *mut c_void,
            Err(e) => {
                report::print_error(&e);
                std::ptr::null_mut()
            }
        }
    })
}

/// Undoes [`llvm_omp_target_lock_mem`].
#[no_mangle]
pub extern "C" fn llvm_omp_target_unlock_mem(ptr: *mut c_void, device: c_int) {
    guard("llvm_omp_target_unlock_mem", || {
        let side = api_side(runtime::get(), device);
        if ptr.is_null() {
            return;
        }
        if let Err(e) = api::unlock_mem(side, ptr as usize) {
            report::print_error(&e);
        }
    })
}

/// Host kernels have no team-shared dynamic memory.
#[no_mangle]
pub extern "C" fn llvm_omp_target_dynamic_shared_alloc() -> *mut c_void {
    guard("llvm_omp_target_dynamic_shared_alloc", || {
        std::ptr::null_mut()
    })
}

#[no_mangle]
pub extern "C" fn omp_target_is_present(ptr: *const c_void, device: c_int) -> c_int {
    guard("omp_target_is_present", || {
        if ptr.is_null() {
            return 0;
        }
        let rt = runtime::get();
        match api_side(rt, device) {
            Side::Host => 1,
            Side::Device(d) => c_int::from(api::mapped(d, ptr as usize).is_some()),
        }
    })
}

#[no_mangle]
pub extern "C" fn omp_get_mapped_ptr(ptr: *const c_void, device: c_int) -> *mut c_void {
    guard("omp_get_mapped_ptr", || {
        if ptr.is_null() {
            eprintln!("omptarget error: Call to omp_get_mapped_ptr with nullptr.");
            return std::ptr::null_mut();
        }
        let rt = runtime::get();
        let dev = i64::from(device);
        if dev == rt.initial_device() {
            return ptr as *mut c_void;
        }
        if dev > rt.initial_device() {
            return std::ptr::null_mut();
        }
        match api_side(rt, device) {
            Side::Host => ptr as *mut c_void,
            Side::Device(d) => {
                api::mapped(d, ptr as usize).map_or(std::ptr::null_mut(), |p| p as *mut c_void)
            }
        }
    })
}

/// (`body_omp_target_memcpy`, after the call site is recorded.)
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn omp_target_memcpy() {
    call_site_shim!(body_omp_target_memcpy)
}

extern "C" fn body_omp_target_memcpy(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    dst_off: usize,
    src_off: usize,
    dst_dev: c_int,
    src_dev: c_int,
) -> c_int {
    guard("omp_target_memcpy", || {
        target_memcpy(dst, src, len, dst_off, src_off, dst_dev, src_dev)
    })
}

/// The body of [`omp_target_memcpy`], for the entry points that share it.
fn target_memcpy(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    dst_off: usize,
    src_off: usize,
    dst_dev: c_int,
    src_dev: c_int,
) -> c_int {
    if len == 0 {
        return 0;
    }
    if dst.is_null() || src.is_null() {
        eprintln!("omptarget error: Call to omp_target_memcpy with invalid arguments");
        return FAIL;
    }
    let rt = runtime::get();
    let s = api_side(rt, src_dev);
    let d = api_side(rt, dst_dev);
    match api::memcpy(
        (dst as usize).wrapping_add(dst_off),
        (src as usize).wrapping_add(src_off),
        len,
        d,
        s,
    ) {
        Ok(()) => 0,
        Err(e) => {
            report::print_error(&e.context("Call to omp_target_memcpy failed"));
            FAIL
        }
    }
}

/// (`body_omp_target_memcpy_rect`, after the call site is recorded.)
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn omp_target_memcpy_rect() {
    call_site_shim!(body_omp_target_memcpy_rect)
}

#[allow(clippy::too_many_arguments)]
extern "C" fn body_omp_target_memcpy_rect(
    dst: *mut c_void,
    src: *const c_void,
    elem: usize,
    ndims: c_int,
    volume: *const usize,
    dst_offsets: *const usize,
    src_offsets: *const usize,
    dst_dims: *const usize,
    src_dims: *const usize,
    dst_dev: c_int,
    src_dev: c_int,
) -> c_int {
    guard("omp_target_memcpy_rect", || {
        let arrays = [volume, dst_offsets, src_offsets, dst_dims, src_dims];
        target_memcpy_rect(dst, src, elem, ndims, arrays, dst_dev, src_dev)
    })
}

/// The common part of the `omp_target_memcpy_rect` entry points: decodes the rectangle and
/// copies it (`api::memcpy_rect`). Both pointers null: the number of dimensions supported.
#[allow(clippy::too_many_arguments)]
fn target_memcpy_rect(
    dst: *mut c_void,
    src: *const c_void,
    elem: usize,
    ndims: c_int,
    arrays: [*const usize; 5],
    dst_dev: c_int,
    src_dev: c_int,
) -> c_int {
    if dst.is_null() && src.is_null() {
        return c_int::MAX;
    }
    if dst.is_null() || src.is_null() || elem < 1 || ndims < 1 || arrays.iter().any(|a| a.is_null())
    {
        eprintln!("omptarget error: Call to omp_target_memcpy_rect with invalid arguments");
        return FAIL;
    }
    let n = ndims as usize;
    let [volume, dst_offsets, src_offsets, dst_dims, src_dims] = arrays;
    // SAFETY: `omp_target_memcpy_rect`'s contract: each of the five arrays (checked non-null
    // above) has `num_dims` (`n`, checked positive) `size_t` entries.
    let rect = unsafe {
        Rect {
            elem,
            volume: mem::array(volume, n),
            dst_offsets: mem::array(dst_offsets, n),
            src_offsets: mem::array(src_offsets, n),
            dst_dims: mem::array(dst_dims, n),
            src_dims: mem::array(src_dims, n),
        }
    };
    let rt = runtime::get();
    let (d, s) = (api_side(rt, dst_dev), api_side(rt, src_dev));
    match api::memcpy_rect(dst as usize, src as usize, &rect, d, s) {
        Ok(()) => 0,
        Err(e) => {
            report::print_error(&e.context("Call to omp_target_memcpy_rect failed"));
            FAIL
        }
    }
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn omp_target_memcpy_async(
    dst: *mut c_void,
    src: *const c_void,
    len: usize,
    dst_off: usize,
    src_off: usize,
    dst_dev: c_int,
    src_dev: c_int,
    depobj_count: c_int,
    depobjs: *const *const kmp::DependInfo,
) -> c_int {
    guard("omp_target_memcpy_async", || {
        if dst.is_null() || src.is_null() {
            return FAIL;
        }
        kmp::wait_depobjs(depobj_count, depobjs);
        target_memcpy(dst, src, len, dst_off, src_off, dst_dev, src_dev)
    })
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn omp_target_memcpy_rect_async(
    dst: *mut c_void,
    src: *const c_void,
    elem: usize,
    ndims: c_int,
    volume: *const usize,
    dst_offsets: *const usize,
    src_offsets: *const usize,
    dst_dims: *const usize,
    src_dims: *const usize,
    dst_dev: c_int,
    src_dev: c_int,
    depobj_count: c_int,
    depobjs: *const *const kmp::DependInfo,
) -> c_int {
    guard("omp_target_memcpy_rect_async", || {
        if dst.is_null() && src.is_null() {
            return c_int::MAX;
        }
        if dst.is_null() || src.is_null() {
            return FAIL;
        }
        kmp::wait_depobjs(depobj_count, depobjs);
        let arrays = [volume, dst_offsets, src_offsets, dst_dims, src_dims];
        target_memcpy_rect(dst, src, elem, ndims, arrays, dst_dev, src_dev)
    })
}

#[no_mangle]
pub extern "C" fn omp_target_memset(
    ptr: *mut c_void,
    byte: c_int,
    len: usize,
    device: c_int,
) -> *mut c_void {
    guard("omp_target_memset", || {
        target_memset(ptr, byte, len, device)
    })
}

/// The body of [`omp_target_memset`], for the entry points that share it.
fn target_memset(ptr: *mut c_void, byte: c_int, len: usize, device: c_int) -> *mut c_void {
    if ptr.is_null() || len == 0 {
        return ptr;
    }
    let rt = runtime::get();
    match api_side(rt, device) {
        // SAFETY: `omp_target_memset` on the initial device: the program passes memory of at
        // least `len` bytes (OpenMP's contract for the routine).
        Side::Host => unsafe { mem::fill(ptr as usize, byte as u8, len) },
        Side::Device(d) => {
            // Past the end of an `omp_target_alloc` allocation: refused, nothing written.
            let r = d
                .api_check_range(ptr as usize, len)
                .map_err(|e| e.context("Call to omp_target_memset failed"))
                .and_then(|_| d.stream())
                .and_then(|mut st| {
                    d.dev.fill(ptr as usize, byte as u8, len, &mut st)?;
                    d.dev.synchronize(&mut st)
                });
            if let Err(e) = r {
                report::print_error(&e);
            }
        }
    }
    ptr
}

#[no_mangle]
pub extern "C" fn omp_target_memset_async(
    ptr: *mut c_void,
    byte: c_int,
    len: usize,
    device: c_int,
    depobj_count: c_int,
    depobjs: *const *const kmp::DependInfo,
) -> *mut c_void {
    guard("omp_target_memset_async", || {
        if ptr.is_null() || len == 0 {
            return ptr;
        }
        kmp::wait_depobjs(depobj_count, depobjs);
        target_memset(ptr, byte, len, device)
    })
}

/// (`body_omp_target_associate_ptr`, after the call site is recorded.)
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn omp_target_associate_ptr() {
    call_site_shim!(body_omp_target_associate_ptr)
}

extern "C" fn body_omp_target_associate_ptr(
    host: *const c_void,
    dev_ptr: *const c_void,
    size: usize,
    dev_off: usize,
    device: c_int,
) -> c_int {
    guard("omp_target_associate_ptr", || {
        if host.is_null() || dev_ptr.is_null() || size == 0 {
            eprintln!("omptarget error: Call to omp_target_associate_ptr with invalid arguments");
            return FAIL;
        }
        let rt = runtime::get();
        match api_side(rt, device) {
            Side::Host => {
                eprintln!(
                "omptarget error: omp_target_associate_ptr: no association possible on the host"
            );
                FAIL
            }
            Side::Device(d) => match api::associate(
                d,
                host as usize,
                (dev_ptr as usize).wrapping_add(dev_off),
                size,
            ) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("omptarget error: {}", e.message);
                    FAIL
                }
            },
        }
    })
}

/// (`body_omp_target_disassociate_ptr`, after the call site is recorded.)
#[unsafe(naked)]
#[no_mangle]
pub extern "C" fn omp_target_disassociate_ptr() {
    call_site_shim!(body_omp_target_disassociate_ptr)
}

extern "C" fn body_omp_target_disassociate_ptr(host: *const c_void, device: c_int) -> c_int {
    guard("omp_target_disassociate_ptr", || {
        if host.is_null() {
            eprintln!("omptarget error: Call to omp_target_associate_ptr with invalid host_ptr");
            return FAIL;
        }
        let rt = runtime::get();
        match api_side(rt, device) {
            Side::Host => {
                eprintln!(
                "omptarget error: omp_target_disassociate_ptr: no association possible on the host"
            );
                FAIL
            }
            Side::Device(d) => match api::disassociate(d, host as usize) {
                Ok(()) => 0,
                Err(e) => {
                    eprintln!("omptarget error: {}", e.message);
                    FAIL
                }
            },
        }
    })
}

/// Prints every device's mapping table to stdout.
#[no_mangle]
pub extern "C" fn ompx_dump_mapping_tables() {
    guard("ompx_dump_mapping_tables", || {
        for d in &runtime::get().devices {
            d.dump_table("libomptarget:0:0", true);
        }
    })
}

// These routines get libomptarget's version, `VERS1.0` (exports.list).
symvers!("capi/device_api");
