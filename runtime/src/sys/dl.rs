//! The dynamic loader: host-device images are shared objects loaded once per device.

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use std::ffi::CString;
use std::io::Write;
use std::os::fd::{FromRawFd, OwnedFd};

/// A shared object loaded from memory; unloading it runs its destructors.
pub struct LoadedObject {
    lib: Library,
    /// Kept open while loaded: the loader identifies objects by path, and a closed descriptor's
    /// number (so its /proc path) would be reused by the next device's image.
    _file: std::fs::File,
}

impl LoadedObject {
    /// Loads `bytes` as a new copy of a shared object, with globals of its own.
    ///
    /// The bytes go to an anonymous memory file, so nothing is left in /tmp and two devices that
    /// load the same image get two copies of its globals (the loader keys objects by file).
    pub fn load(bytes: &[u8], label: &str) -> Result<Self, String> {
        let name = CString::new(label.replace('\0', "")).map_err(|e| e.to_string())?;
        // SAFETY: memfd_create takes a NUL-terminated name and flags; the returned descriptor,
        // when non-negative, is owned by nobody else and is wrapped at once.
        let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
        if fd < 0 {
            return Err(format!(
                "memfd_create failed: {}",
                std::io::Error::last_os_error()
            ));
        }
        // SAFETY: `fd` is a fresh descriptor owned by this function (see above).
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        let mut file = std::fs::File::from(fd);
        file.write_all(bytes)
            .map_err(|e| format!("writing the image failed: {e}"))?;
        let path = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(&file));
        // SAFETY: loading runs the image's constructors, which is what offloading a program's
        // image means; the image was produced by clang for this program.
        let lib = unsafe { Library::open(Some(&path), RTLD_NOW | RTLD_LOCAL) }
            .map_err(|e| e.to_string())?;
        Ok(LoadedObject { lib, _file: file })
    }

    /// Address of the symbol `name`, if defined.
    pub fn symbol(&self, name: &str) -> Option<usize> {
        let name = CString::new(name).ok()?;
        // SAFETY: the symbol is only turned into an address; nothing is called or read here.
        let sym = unsafe { self.lib.get::<*mut libc::c_void>(name.as_bytes_with_nul()) }.ok()?;
        let addr = sym.into_raw() as usize;
        (addr != 0).then_some(addr)
    }
}

/// Address of a symbol in the process's global scope (libomp's entry points).
pub fn global_symbol(name: &str) -> Option<usize> {
    let name = CString::new(name).ok()?;
    // SAFETY: dlsym with RTLD_DEFAULT only looks the name up.
    let p = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    (!p.is_null()).then_some(p as usize)
}

/// The next definition of `name` after this library in symbol lookup order (`RTLD_NEXT`), for
/// passing on a call Spread interposes.
pub fn next_symbol(name: &str) -> Option<usize> {
    let name = CString::new(name).ok()?;
    // SAFETY: dlsym with RTLD_NEXT only looks the name up, in the objects after the one this
    // code is in.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    (!p.is_null()).then_some(p as usize)
}

/// A handle of the loaded library that defines `name` (found through the global scope), for
/// looking up that library's own definitions with [`symbol_in`].
pub fn library_of(name: &str) -> Option<usize> {
    let addr = global_symbol(name)?;
    // SAFETY: dladdr only inspects the loader's tables; `info` is plain data it fills in.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `addr` is a symbol address the loader returned.
    if unsafe { libc::dladdr(addr as *const libc::c_void, &mut info) } == 0
        || info.dli_fname.is_null()
    {
        return None;
    }
    // SAFETY: with RTLD_NOLOAD dlopen only returns a new reference to a library already loaded
    // (the one dladdr named), so no constructor runs; the reference is kept for the process.
    let h = unsafe { libc::dlopen(info.dli_fname, libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
    (!h.is_null()).then_some(h as usize)
}

/// The definition of `name` in the library `handle` (from [`library_of`]) or its dependencies.
pub fn symbol_in(handle: usize, name: &str) -> Option<usize> {
    let name = CString::new(name).ok()?;
    // SAFETY: dlsym with a handle dlopen returned only looks the name up.
    let p = unsafe { libc::dlsym(handle as *mut libc::c_void, name.as_ptr()) };
    (!p.is_null()).then_some(p as usize)
}

/// The load address of the object containing `addr` (code or data), if any.
pub fn object_base(addr: usize) -> Option<usize> {
    // SAFETY: dladdr only inspects the loader's tables; `info` is plain data it fills in.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    let found = unsafe { libc::dladdr(addr as *const libc::c_void, &mut info) };
    (found != 0 && !info.dli_fbase.is_null()).then_some(info.dli_fbase as usize)
}
