//! The C library's `free` and `realloc`, for the runtime's interposed definitions of both
//! (`capi/memory.rs`), which catch the program giving memory of a Spread allocator back to libc.
//!
//! The definitions found after the runtime's in the process's lookup order (`dlsym(RTLD_NEXT)`:
//! libc's, or a malloc library loaded after the runtime) are looked up on first use. `dlsym` may
//! itself free or reallocate while it looks: those calls, made while the lookup runs on some
//! thread, go to glibc's own entry points (`__libc_free`, `__libc_realloc`), as they are made by
//! glibc on memory glibc allocated.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

extern "C" {
    fn __libc_free(p: *mut c_void);
    fn __libc_realloc(p: *mut c_void, size: usize) -> *mut c_void;
}

static FREE: AtomicUsize = AtomicUsize::new(0);
static REALLOC: AtomicUsize = AtomicUsize::new(0);
/// A lookup runs (on any thread).
static LOOKING: AtomicBool = AtomicBool::new(false);

/// The next definition of `name` after the runtime's, looked up once (0 while a lookup runs, or
/// when there is none).
fn next(cache: &AtomicUsize, name: &std::ffi::CStr) -> usize {
    let f = cache.load(Ordering::Acquire);
    if f != 0 {
        return f;
    }
    if LOOKING.swap(true, Ordering::AcqRel) {
        return 0;
    }
    // SAFETY: dlsym with RTLD_NEXT and a NUL-terminated name only reads the loader's tables.
    let f = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) } as usize;
    LOOKING.store(false, Ordering::Release);
    cache.store(f, Ordering::Release);
    f
}

/// Gives `p` (0 does nothing) back to the C library's allocator.
pub fn free(p: usize) {
    let f = next(&FREE, c"free");
    if f == 0 {
        // SAFETY: glibc's free of memory glibc allocated (the only frees while the lookup runs).
        unsafe { __libc_free(p as *mut c_void) };
        return;
    }
    // SAFETY: `f` is the C library's `free`, whose signature this is; `p` is what the program
    // (or the runtime) passed to `free`, the C contract the caller keeps.
    let f: extern "C" fn(*mut c_void) = unsafe { std::mem::transmute(f) };
    f(p as *mut c_void)
}

/// The C library's `realloc(p, size)`.
pub fn realloc(p: usize, size: usize) -> usize {
    let f = next(&REALLOC, c"realloc");
    if f == 0 {
        // SAFETY: glibc's realloc of memory glibc allocated (the only calls while the lookup runs).
        return unsafe { __libc_realloc(p as *mut c_void, size) } as usize;
    }
    // SAFETY: `f` is the C library's `realloc`, whose signature this is; `p` is what the
    // program passed to `realloc`, the C contract the caller keeps.
    let f: extern "C" fn(*mut c_void, usize) -> *mut c_void = unsafe { std::mem::transmute(f) };
    f(p as *mut c_void, size) as usize
}
