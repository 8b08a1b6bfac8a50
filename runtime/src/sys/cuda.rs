//! The CUDA driver API, loaded at run time through `cudarc` (no CUDA is needed to build, and
//! a machine without `libcuda.so` simply has no CUDA devices).
//!
//! One safe function per driver call the CUDA backend makes. Handles travel as `usize` so the
//! backend's types are `Send` and `Sync` (the driver API is thread-safe); device addresses are
//! `u64` (`CUdeviceptr`). Every function that works on a device expects that device's context to
//! be current on the calling thread ([`set_current`]).
//!
//! The driver reads and writes host memory named by addresses here (copies, registration): the
//! same contract as the rest of `sys` holds (the runtime passes only memory the program named
//! in a map clause or API call, or memory it allocated itself, and keeps it alive until the
//! stream is synchronized).

use cudarc::driver::sys;
use std::ffi::{c_void, CStr, CString};
use std::fmt;

pub use sys::CUdevice_attribute as DeviceAttr;
pub use sys::CUfunction_attribute as FuncAttr;
pub use sys::CUlimit as Limit;
pub use sys::CUmem_advise as Advice;

/// A failed driver call: the call's name and the driver's code and name for the error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CuError {
    /// The driver function that failed.
    pub call: &'static str,
    /// `CUresult` value.
    pub code: u32,
    /// `cuGetErrorName`, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
    pub name: String,
}

impl CuError {
    /// Whether the device ran out of memory.
    pub fn is_out_of_memory(&self) -> bool {
        self.code == sys::cudaError_enum::CUDA_ERROR_OUT_OF_MEMORY as u32
    }

    /// Whether a kernel faulted on the device: an illegal or misaligned address (the context
    /// fails every later call).
    pub fn is_kernel_fault(&self) -> bool {
        [
            sys::cudaError_enum::CUDA_ERROR_ILLEGAL_ADDRESS,
            sys::cudaError_enum::CUDA_ERROR_MISALIGNED_ADDRESS,
        ]
        .iter()
        .any(|&c| self.code == c as u32)
    }
}

impl fmt::Display for CuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed: {} ({})", self.call, self.name, self.code)
    }
}

/// Result of a driver call.
pub type CuResult<T> = std::result::Result<T, CuError>;

fn check(call: &'static str, r: sys::CUresult) -> CuResult<()> {
    if r == sys::cudaError_enum::CUDA_SUCCESS {
        return Ok(());
    }
    let mut p: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorName writes a pointer to a static string (or leaves it null for an
    // unknown code); the library is loaded, since `r` came from it.
    let known = unsafe { sys::cuGetErrorName(r, &mut p) } == sys::cudaError_enum::CUDA_SUCCESS;
    let name = if known && !p.is_null() {
        // SAFETY: non-null, NUL-terminated and static, as the driver documents.
        unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
    } else {
        format!("CUresult {}", r as u32)
    };
    Err(CuError {
        call,
        code: r as u32,
        name,
    })
}

/// Whether `libcuda.so` can be loaded (without it every other function here would panic).
pub fn library_present() -> bool {
    // SAFETY: only tries to dlopen the driver library by its usual names.
    unsafe { sys::is_culib_present() }
}

/// Every driver entry point this module calls (cudarc resolves each on first use and panics
/// when the library lacks it, so [`missing_symbols`] checks them all first).
const SYMBOLS: &[&str] = &[
    "cuCtxEnablePeerAccess",
    "cuCtxSetCurrent",
    "cuCtxSetLimit",
    "cuDeviceCanAccessPeer",
    "cuDeviceGet",
    "cuDeviceGetAttribute",
    "cuDeviceGetCount",
    "cuDeviceGetName",
    "cuDevicePrimaryCtxGetState",
    "cuDevicePrimaryCtxRelease_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxSetFlags_v2",
    "cuDeviceTotalMem_v2",
    "cuDriverGetVersion",
    "cuEventCreate",
    "cuEventDestroy_v2",
    "cuEventQuery",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuFuncGetAttribute",
    "cuGetErrorName",
    "cuInit",
    "cuLaunchKernel",
    "cuMemAdvise",
    "cuMemAllocManaged",
    "cuMemAlloc_v2",
    "cuMemFreeHost",
    "cuMemFree_v2",
    "cuMemGetInfo_v2",
    "cuMemHostAlloc",
    "cuMemHostRegister_v2",
    "cuMemHostUnregister",
    "cuMemcpyDtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyPeerAsync",
    "cuMemsetD8Async",
    "cuModuleGetFunction",
    "cuModuleGetGlobal_v2",
    "cuModuleLoadDataEx",
    "cuModuleUnload",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamQuery",
    "cuStreamSynchronize",
    "cuStreamWaitEvent",
];

/// The entry points of [`SYMBOLS`] the driver library lacks (an older driver, or something else
/// named `libcuda.so`). Call [`library_present`] first.
pub fn missing_symbols() -> Vec<&'static str> {
    // SAFETY: the library is present (checked by the caller); only symbol addresses are looked
    // up, nothing is called.
    let lib = unsafe { sys::culib() };
    SYMBOLS
        .iter()
        .copied()
        // SAFETY: looking up an address does not call it; the pointer type is never used.
        .filter(|name| unsafe { lib.get::<*const c_void>(name.as_bytes()) }.is_err())
        .collect()
}

/// `cuInit(0)`. Call [`library_present`] first.
pub fn init() -> CuResult<()> {
    // SAFETY: plain call with a constant flag.
    check("cuInit", unsafe { sys::cuInit(0) })
}

/// Driver version as `major * 1000 + minor * 10`.
pub fn driver_version() -> CuResult<i32> {
    let mut v = 0;
    // SAFETY: writes one int.
    check("cuDriverGetVersion", unsafe {
        sys::cuDriverGetVersion(&mut v)
    })?;
    Ok(v)
}

/// Number of CUDA devices.
pub fn device_count() -> CuResult<i32> {
    let mut n = 0;
    // SAFETY: writes one int.
    check("cuDeviceGetCount", unsafe { sys::cuDeviceGetCount(&mut n) })?;
    Ok(n)
}

/// The device handle of ordinal `i`.
pub fn device(i: i32) -> CuResult<i32> {
    let mut d = 0;
    // SAFETY: writes one device handle.
    check("cuDeviceGet", unsafe { sys::cuDeviceGet(&mut d, i) })?;
    Ok(d)
}

/// One attribute of device `dev`.
pub fn attribute(dev: i32, attr: DeviceAttr) -> CuResult<i32> {
    let mut v = 0;
    // SAFETY: writes one int.
    check("cuDeviceGetAttribute", unsafe {
        sys::cuDeviceGetAttribute(&mut v, attr, dev)
    })?;
    Ok(v)
}

/// The device's marketing name.
pub fn device_name(dev: i32) -> CuResult<String> {
    let mut buf = [0 as std::ffi::c_char; 256];
    // SAFETY: the driver writes at most `len` bytes, NUL-terminated.
    check("cuDeviceGetName", unsafe {
        sys::cuDeviceGetName(buf.as_mut_ptr(), buf.len() as i32, dev)
    })?;
    // SAFETY: NUL-terminated within the buffer (the driver truncates).
    Ok(unsafe { CStr::from_ptr(buf.as_ptr()) }
        .to_string_lossy()
        .into_owned())
}

/// Total memory of the device, in bytes.
pub fn total_memory(dev: i32) -> CuResult<u64> {
    let mut v = 0usize;
    // SAFETY: writes one size_t.
    check("cuDeviceTotalMem", unsafe {
        sys::cuDeviceTotalMem_v2(&mut v, dev)
    })?;
    Ok(v as u64)
}

/// Retains the device's primary context (blocking synchronization if it is not active yet, as
/// libomptarget does, so waiting threads sleep instead of spinning). Returns the context.
pub fn retain_primary_context(dev: i32) -> CuResult<usize> {
    let mut flags = 0u32;
    let mut active = 0i32;
    // SAFETY: writes one uint and one int.
    check("cuDevicePrimaryCtxGetState", unsafe {
        sys::cuDevicePrimaryCtxGetState(dev, &mut flags, &mut active)
    })?;
    if active == 0 {
        let blocking = sys::CUctx_flags_enum::CU_CTX_SCHED_BLOCKING_SYNC as u32;
        // SAFETY: sets flags of an inactive primary context.
        check("cuDevicePrimaryCtxSetFlags", unsafe {
            sys::cuDevicePrimaryCtxSetFlags_v2(dev, blocking)
        })?;
    }
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: writes one context handle.
    check("cuDevicePrimaryCtxRetain", unsafe {
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev)
    })?;
    Ok(ctx as usize)
}

/// Releases a primary context retained by [`retain_primary_context`].
pub fn release_primary_context(dev: i32) -> CuResult<()> {
    // SAFETY: balanced with a retain by the caller.
    check("cuDevicePrimaryCtxRelease", unsafe {
        sys::cuDevicePrimaryCtxRelease_v2(dev)
    })
}

/// Makes `ctx` current on the calling thread.
pub fn set_current(ctx: usize) -> CuResult<()> {
    // SAFETY: `ctx` is a context handle this module returned.
    check("cuCtxSetCurrent", unsafe {
        sys::cuCtxSetCurrent(ctx as sys::CUcontext)
    })
}

/// Sets a limit of the current context.
pub fn set_limit(limit: Limit, value: usize) -> CuResult<()> {
    // SAFETY: plain call.
    check("cuCtxSetLimit", unsafe { sys::cuCtxSetLimit(limit, value) })
}

/// Free and total memory of the current context's device.
pub fn memory_info() -> CuResult<(u64, u64)> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: writes two size_t.
    check("cuMemGetInfo", unsafe {
        sys::cuMemGetInfo_v2(&mut free, &mut total)
    })?;
    Ok((free as u64, total as u64))
}

/// Whether `dev` can access `peer`'s memory directly.
pub fn can_access_peer(dev: i32, peer: i32) -> CuResult<bool> {
    let mut v = 0;
    // SAFETY: writes one int.
    check("cuDeviceCanAccessPeer", unsafe {
        sys::cuDeviceCanAccessPeer(&mut v, dev, peer)
    })?;
    Ok(v != 0)
}

/// Lets the current context access `peer_ctx`'s memory. Already enabled counts as success.
pub fn enable_peer_access(peer_ctx: usize) -> CuResult<()> {
    // SAFETY: `peer_ctx` is a context handle this module returned.
    let r = unsafe { sys::cuCtxEnablePeerAccess(peer_ctx as sys::CUcontext, 0) };
    if r == sys::cudaError_enum::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED {
        return Ok(());
    }
    check("cuCtxEnablePeerAccess", r)
}

// --- memory --------------------------------------------------------------------------------

/// `cuMemAlloc`.
pub fn alloc_device(size: usize) -> CuResult<u64> {
    let mut p = 0u64;
    // SAFETY: writes one device pointer.
    check("cuMemAlloc", unsafe { sys::cuMemAlloc_v2(&mut p, size) })?;
    Ok(p)
}

/// `cuMemFree`.
pub fn free_device(p: u64) -> CuResult<()> {
    // SAFETY: `p` came from cuMemAlloc or cuMemAllocManaged, and no work uses it any more.
    check("cuMemFree", unsafe { sys::cuMemFree_v2(p) })
}

/// Page-locked host memory mapped into every context (`cuMemHostAlloc` with PORTABLE and
/// DEVICEMAP); returns the host address.
pub fn alloc_host(size: usize) -> CuResult<usize> {
    let mut p: *mut c_void = std::ptr::null_mut();
    // CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP
    let flags = 0x01 | 0x02;
    // SAFETY: writes one host pointer.
    check("cuMemHostAlloc", unsafe {
        sys::cuMemHostAlloc(&mut p, size, flags)
    })?;
    Ok(p as usize)
}

/// Frees memory from [`alloc_host`].
pub fn free_host(p: usize) -> CuResult<()> {
    // SAFETY: `p` came from cuMemHostAlloc, and no work uses it any more.
    check("cuMemFreeHost", unsafe {
        sys::cuMemFreeHost(p as *mut c_void)
    })
}

/// Managed memory every device and the host address (`cuMemAllocManaged`, attached globally).
pub fn alloc_managed(size: usize) -> CuResult<u64> {
    let mut p = 0u64;
    // CU_MEM_ATTACH_GLOBAL
    // SAFETY: writes one device pointer.
    check("cuMemAllocManaged", unsafe {
        sys::cuMemAllocManaged(&mut p, size, 0x1)
    })?;
    Ok(p)
}

/// Advice on managed memory (`cuMemAdvise`); `dev` is a device handle, or -1 for the host.
pub fn advise(p: u64, len: usize, advice: Advice, dev: i32) -> CuResult<()> {
    // SAFETY: the range lies in a managed allocation of the caller's.
    check("cuMemAdvise", unsafe {
        sys::cuMemAdvise(p, len, advice, dev)
    })
}

/// Page-locks host memory for every context (`cuMemHostRegister`, PORTABLE).
pub fn register_host(p: usize, len: usize) -> CuResult<()> {
    // SAFETY: the caller names memory of its own that stays allocated until unregistered.
    check("cuMemHostRegister", unsafe {
        sys::cuMemHostRegister_v2(p as *mut c_void, len, 0x01)
    })
}

/// Undoes [`register_host`].
pub fn unregister_host(p: usize) -> CuResult<()> {
    // SAFETY: `p` was registered.
    check("cuMemHostUnregister", unsafe {
        sys::cuMemHostUnregister(p as *mut c_void)
    })
}

// --- streams and events ---------------------------------------------------------------------

/// A non-blocking stream of the current context (it does not synchronize with stream 0).
pub fn stream_create() -> CuResult<usize> {
    let mut s: sys::CUstream = std::ptr::null_mut();
    let flags = sys::CUstream_flags_enum::CU_STREAM_NON_BLOCKING as u32;
    // SAFETY: writes one stream handle.
    check("cuStreamCreate", unsafe {
        sys::cuStreamCreate(&mut s, flags)
    })?;
    Ok(s as usize)
}

/// Destroys a stream (work still queued completes first).
pub fn stream_destroy(s: usize) -> CuResult<()> {
    // SAFETY: `s` came from stream_create and is not used after this call.
    check("cuStreamDestroy", unsafe {
        sys::cuStreamDestroy_v2(s as sys::CUstream)
    })
}

/// Blocks until all work on `s` has finished.
pub fn stream_synchronize(s: usize) -> CuResult<()> {
    // SAFETY: `s` is a live stream handle.
    check("cuStreamSynchronize", unsafe {
        sys::cuStreamSynchronize(s as sys::CUstream)
    })
}

/// Whether all work on `s` has finished (never blocks).
pub fn stream_query(s: usize) -> CuResult<bool> {
    // SAFETY: `s` is a live stream handle.
    let r = unsafe { sys::cuStreamQuery(s as sys::CUstream) };
    if r == sys::cudaError_enum::CUDA_ERROR_NOT_READY {
        return Ok(false);
    }
    check("cuStreamQuery", r).map(|_| true)
}

/// An event without timing (cheaper to record and wait for).
pub fn event_create() -> CuResult<usize> {
    let mut e: sys::CUevent = std::ptr::null_mut();
    let flags = sys::CUevent_flags_enum::CU_EVENT_DISABLE_TIMING as u32;
    // SAFETY: writes one event handle.
    check("cuEventCreate", unsafe {
        sys::cuEventCreate(&mut e, flags)
    })?;
    Ok(e as usize)
}

/// An event that records its time, for [`event_elapsed_ms`] (trace records' device timestamps).
pub fn event_create_timed() -> CuResult<usize> {
    let mut e: sys::CUevent = std::ptr::null_mut();
    // SAFETY: writes one event handle.
    check("cuEventCreate", unsafe { sys::cuEventCreate(&mut e, 0) })?;
    Ok(e as usize)
}

/// Whether the driver has `cuEventElapsedTime` (only trace records need it, so it is not among
/// the entry points every use of the driver requires).
pub fn event_timing_available() -> bool {
    static AVAILABLE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        // SAFETY: the library is present (a device was opened through it); only the symbol's
        // address is looked up, nothing is called.
        let lib = unsafe { sys::culib() };
        // SAFETY: looking up an address does not call it; the pointer type is never used.
        unsafe { lib.get::<*const c_void>(b"cuEventElapsedTime") }.is_ok()
    })
}

/// Milliseconds from `start` to `end`, two timed events that have both completed (only where
/// [`event_timing_available`]).
pub fn event_elapsed_ms(start: usize, end: usize) -> CuResult<f32> {
    let mut ms = 0f32;
    // SAFETY: live event handles of one context; writes one float.
    check("cuEventElapsedTime", unsafe {
        sys::cuEventElapsedTime(&mut ms, start as sys::CUevent, end as sys::CUevent)
    })?;
    Ok(ms)
}

/// Records `e` at the current end of `s`.
pub fn event_record(e: usize, s: usize) -> CuResult<()> {
    // SAFETY: live event and stream handles of one context.
    check("cuEventRecord", unsafe {
        sys::cuEventRecord(e as sys::CUevent, s as sys::CUstream)
    })
}

/// Whether the work before `e` has finished (never blocks).
pub fn event_query(e: usize) -> CuResult<bool> {
    // SAFETY: live event handle.
    let r = unsafe { sys::cuEventQuery(e as sys::CUevent) };
    if r == sys::cudaError_enum::CUDA_ERROR_NOT_READY {
        return Ok(false);
    }
    check("cuEventQuery", r).map(|_| true)
}

/// Blocks until the work before `e` has finished.
pub fn event_synchronize(e: usize) -> CuResult<()> {
    // SAFETY: live event handle.
    check("cuEventSynchronize", unsafe {
        sys::cuEventSynchronize(e as sys::CUevent)
    })
}

/// Destroys an event.
pub fn event_destroy(e: usize) -> CuResult<()> {
    // SAFETY: `e` came from event_create and is not used after this call.
    check("cuEventDestroy", unsafe {
        sys::cuEventDestroy_v2(e as sys::CUevent)
    })
}

/// Makes later work on `s` wait for `e` (which may belong to another device).
pub fn stream_wait_event(s: usize, e: usize) -> CuResult<()> {
    // SAFETY: live stream and event handles.
    check("cuStreamWaitEvent", unsafe {
        sys::cuStreamWaitEvent(s as sys::CUstream, e as sys::CUevent, 0)
    })
}

// --- copies -----------------------------------------------------------------------------------

/// Host `src` to device `dst`, ordered on `s`.
pub fn copy_htod(dst: u64, src: usize, len: usize, s: usize) -> CuResult<()> {
    // SAFETY: `src` is host memory of `len` bytes kept alive until `s` is synchronized (module
    // contract); `dst` is device memory of the current context.
    check("cuMemcpyHtoDAsync", unsafe {
        sys::cuMemcpyHtoDAsync_v2(dst, src as *const c_void, len, s as sys::CUstream)
    })
}

/// Device `src` to host `dst`, ordered on `s`.
pub fn copy_dtoh(dst: usize, src: u64, len: usize, s: usize) -> CuResult<()> {
    // SAFETY: `dst` is host memory of `len` bytes that nothing else touches until `s` is
    // synchronized (module contract).
    check("cuMemcpyDtoHAsync", unsafe {
        sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, len, s as sys::CUstream)
    })
}

/// Device to device within one context (or between contexts with unified addressing).
pub fn copy_dtod(dst: u64, src: u64, len: usize, s: usize) -> CuResult<()> {
    // SAFETY: both ranges are device memory the caller owns.
    check("cuMemcpyDtoDAsync", unsafe {
        sys::cuMemcpyDtoDAsync_v2(dst, src, len, s as sys::CUstream)
    })
}

/// From `src` in `src_ctx` to `dst` in `dst_ctx`, ordered on `s` (a stream of `src_ctx`).
pub fn copy_peer(
    dst: u64,
    dst_ctx: usize,
    src: u64,
    src_ctx: usize,
    len: usize,
    s: usize,
) -> CuResult<()> {
    // SAFETY: both ranges are device memory the caller owns, in the contexts named.
    check("cuMemcpyPeerAsync", unsafe {
        sys::cuMemcpyPeerAsync(
            dst,
            dst_ctx as sys::CUcontext,
            src,
            src_ctx as sys::CUcontext,
            len,
            s as sys::CUstream,
        )
    })
}

/// Sets `len` device bytes at `dst` to `byte`, ordered on `s`.
pub fn fill(dst: u64, byte: u8, len: usize, s: usize) -> CuResult<()> {
    // SAFETY: device memory the caller owns.
    check("cuMemsetD8Async", unsafe {
        sys::cuMemsetD8Async(dst, byte, len, s as sys::CUstream)
    })
}

// --- modules and kernels ----------------------------------------------------------------------

/// Loads a cubin (or PTX) image into the current context.
pub fn module_load(image: &[u8]) -> CuResult<usize> {
    // The driver reads the image as an ELF or NUL-terminated PTX: give it a copy that ends in a
    // NUL byte, so a truncated PTX image cannot make it read past the buffer.
    let mut bytes = Vec::with_capacity(image.len() + 1);
    bytes.extend_from_slice(image);
    bytes.push(0);
    let mut m: sys::CUmodule = std::ptr::null_mut();
    // SAFETY: `bytes` lives across the call; no JIT options are passed.
    check("cuModuleLoadDataEx", unsafe {
        sys::cuModuleLoadDataEx(
            &mut m,
            bytes.as_ptr() as *const c_void,
            0,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    })?;
    Ok(m as usize)
}

/// Unloads a module.
pub fn module_unload(m: usize) -> CuResult<()> {
    // SAFETY: `m` came from module_load and nothing runs from it any more.
    check("cuModuleUnload", unsafe {
        sys::cuModuleUnload(m as sys::CUmodule)
    })
}

fn c_name(name: &str) -> Option<CString> {
    CString::new(name).ok()
}

/// The kernel `name` of module `m`, or `None` when the module has none of that name.
pub fn function(m: usize, name: &str) -> CuResult<Option<usize>> {
    let Some(n) = c_name(name) else {
        return Ok(None);
    };
    let mut f: sys::CUfunction = std::ptr::null_mut();
    // SAFETY: live module, NUL-terminated name.
    let r = unsafe { sys::cuModuleGetFunction(&mut f, m as sys::CUmodule, n.as_ptr()) };
    if r == sys::cudaError_enum::CUDA_ERROR_NOT_FOUND {
        return Ok(None);
    }
    check("cuModuleGetFunction", r)?;
    Ok(Some(f as usize))
}

/// Address and size of the global `name` of module `m`, or `None` when it has none.
pub fn global(m: usize, name: &str) -> CuResult<Option<(u64, usize)>> {
    let Some(n) = c_name(name) else {
        return Ok(None);
    };
    let (mut p, mut size) = (0u64, 0usize);
    // SAFETY: live module, NUL-terminated name; writes a pointer and a size.
    let r = unsafe { sys::cuModuleGetGlobal_v2(&mut p, &mut size, m as sys::CUmodule, n.as_ptr()) };
    if r == sys::cudaError_enum::CUDA_ERROR_NOT_FOUND {
        return Ok(None);
    }
    check("cuModuleGetGlobal", r)?;
    Ok(Some((p, size)))
}

/// One attribute of kernel `f`.
pub fn function_attribute(f: usize, attr: FuncAttr) -> CuResult<i32> {
    let mut v = 0;
    // SAFETY: live function handle; writes one int.
    check("cuFuncGetAttribute", unsafe {
        sys::cuFuncGetAttribute(&mut v, attr, f as sys::CUfunction)
    })?;
    Ok(v)
}

/// Launches `f` with `blocks` x `threads` on `s`. Every parameter is 8 bytes wide (pointers
/// and scalars alike, as clang passes OpenMP kernel arguments); the driver copies the values
/// before returning.
pub fn launch(
    f: usize,
    blocks: u32,
    threads: u32,
    shared_mem: u32,
    s: usize,
    params: &[u64],
) -> CuResult<()> {
    let mut values: Vec<u64> = params.to_vec();
    let mut ptrs: Vec<*mut c_void> = values
        .iter_mut()
        .map(|v| v as *mut u64 as *mut c_void)
        .collect();
    let kernel_params = if ptrs.is_empty() {
        std::ptr::null_mut()
    } else {
        ptrs.as_mut_ptr()
    };
    // SAFETY: `ptrs` points at `values`, both alive across the call, one pointer per kernel
    // parameter; the driver copies the parameter values during the call.
    check("cuLaunchKernel", unsafe {
        sys::cuLaunchKernel(
            f as sys::CUfunction,
            blocks,
            1,
            1,
            threads,
            1,
            1,
            shared_mem,
            s as sys::CUstream,
            kernel_params,
            std::ptr::null_mut(),
        )
    })
}
