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

/// Whether an object loaded now imports one of `names`: its dynamic string table holds the
/// name and it is not the object that defines it. (The dynamic string table holds the names of
/// the symbols an object imports and exports; the defining object is told by its address.)
/// Objects loaded later with `dlopen` are not seen.
pub fn imported(names: &[&str]) -> bool {
    struct Scan {
        /// Each name as it stands in a string table (between NULs), with its definer's base.
        wanted: Vec<(Vec<u8>, Option<usize>)>,
        found: bool,
    }
    extern "C" fn visit(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        data: *mut libc::c_void,
    ) -> i32 {
        // SAFETY: `data` is the `Scan` passed to `dl_iterate_phdr` below, alive and not
        // otherwise borrowed during the iteration; `info` is the loader's record of one object.
        let (scan, info) = unsafe { (&mut *(data as *mut Scan), &*info) };
        let base = info.dlpi_addr as usize;
        let Some(table) = string_table(info) else {
            return 0;
        };
        scan.found = scan.wanted.iter().any(|(needle, definer)| {
            *definer != Some(base) && table.windows(needle.len()).any(|w| w == needle.as_slice())
        });
        i32::from(scan.found)
    }
    let mut scan = Scan {
        wanted: names
            .iter()
            .map(|n| {
                let needle = [b"\0", n.as_bytes(), b"\0"].concat();
                (needle, global_symbol(n).and_then(object_base))
            })
            .collect(),
        found: false,
    };
    // SAFETY: `visit` matches dl_iterate_phdr's callback type and only reads the records it is
    // given; `scan` outlives the call.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut scan as *mut Scan as *mut libc::c_void) };
    scan.found
}

/// The dynamic string table of a loaded object, if it has one.
fn string_table(info: &libc::dl_phdr_info) -> Option<&[u8]> {
    const DT_NULL: i64 = 0;
    const DT_STRTAB: i64 = 5;
    const DT_STRSZ: i64 = 10;
    if info.dlpi_phdr.is_null() {
        return None;
    }
    let base = info.dlpi_addr as usize;
    // SAFETY: the loader's program headers of the object, `dlpi_phnum` of them.
    let phdrs = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
    let dynamic = phdrs.iter().find(|p| p.p_type == libc::PT_DYNAMIC)?;
    let mut entry = (base + dynamic.p_vaddr as usize) as *const [i64; 2];
    let (mut strtab, mut strsz) = (0usize, 0usize);
    loop {
        // SAFETY: the object's dynamic section, mapped, a sequence of (tag, value) pairs that
        // ends with DT_NULL.
        let [tag, value] = unsafe { *entry };
        match tag {
            DT_NULL => break,
            DT_STRTAB => strtab = value as usize,
            DT_STRSZ => strsz = value as usize,
            _ => {}
        }
        // SAFETY: not past DT_NULL, which ends the section.
        entry = unsafe { entry.add(1) };
    }
    if strtab == 0 || strsz == 0 {
        return None;
    }
    // The loader relocates the dynamic section's addresses in place, except where the section is
    // read-only (the vDSO): there they are still offsets from the object's base.
    if strtab < base {
        strtab += base;
    }
    // SAFETY: the object's dynamic string table, mapped while the loader's record of the object
    // (`info`, which the slice does not outlive) is being visited.
    Some(unsafe { std::slice::from_raw_parts(strtab as *const u8, strsz) })
}

/// Makes the object that defines `anchor` call `to` where it calls its import `name`: each of
/// its dynamic relocations of `name` (its PLT or GOT slots) gets `to`. For the one call whose
/// callee the loader's symbol order cannot give (libomp's call to `ompt_start_tool`, which a
/// program's own definition always wins; `capi::ompt::mux`). Returns how many slots changed.
pub fn rebind_import(anchor: &str, name: &str, to: usize) -> Result<usize, String> {
    use object::elf::PT_GNU_RELRO;
    use object::read::elf::{ElfFile64, ProgramHeader};
    use object::{Endianness, Object, ObjectSymbol, ObjectSymbolTable, RelocationTarget};
    let addr = global_symbol(anchor).ok_or_else(|| format!("`{anchor}` is not loaded"))?;
    // SAFETY: dladdr only inspects the loader's tables; `info` is plain data it fills in.
    let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
    // SAFETY: as above; `addr` is a symbol address the loader returned.
    if unsafe { libc::dladdr(addr as *const libc::c_void, &mut info) } == 0
        || info.dli_fname.is_null()
    {
        return Err(format!("no object found for `{anchor}`"));
    }
    // SAFETY: dladdr's file name is a NUL-terminated string of the loader's, alive while the
    // object is loaded.
    let path = unsafe { std::ffi::CStr::from_ptr(info.dli_fname) }
        .to_string_lossy()
        .into_owned();
    let bytes = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
    let file =
        ElfFile64::<Endianness>::parse(bytes.as_slice()).map_err(|e| format!("{path}: {e}"))?;
    let endian = file.endian();
    let headers = file.elf_program_headers();
    let first_load = headers
        .iter()
        .filter(|h| h.p_type(endian) == object::elf::PT_LOAD)
        .map(|h| h.p_vaddr(endian))
        .min()
        .unwrap_or(0);
    // SAFETY: sysconf only reads a system constant.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as u64,
        _ => 4096,
    };
    // The loader maps the first segment from its page: that is where `dli_fbase` points.
    let bias = (info.dli_fbase as u64).wrapping_sub(first_load & !(page - 1));
    let relro = headers
        .iter()
        .find(|h| h.p_type(endian) == PT_GNU_RELRO)
        .map(|h| (h.p_vaddr(endian), h.p_vaddr(endian) + h.p_memsz(endian)));
    let symbols = file
        .dynamic_symbol_table()
        .ok_or_else(|| format!("{path}: no dynamic symbols"))?;
    let relocations = file
        .dynamic_relocations()
        .ok_or_else(|| format!("{path}: no dynamic relocations"))?;
    let mut changed = 0;
    for (offset, reloc) in relocations {
        let RelocationTarget::Symbol(index) = reloc.target() else {
            continue;
        };
        let named = symbols
            .symbol_by_index(index)
            .ok()
            .and_then(|s| s.name().ok())
            .is_some_and(|n| n == name);
        // Slots that hold the symbol's address, whole (x86-64, AArch64).
        let whole = matches!(
            reloc.flags(),
            object::RelocationFlags::Elf {
                r_type: object::elf::R_X86_64_JUMP_SLOT
                    | object::elf::R_X86_64_GLOB_DAT
                    | object::elf::R_X86_64_64
                    | object::elf::R_AARCH64_JUMP_SLOT
                    | object::elf::R_AARCH64_GLOB_DAT
                    | object::elf::R_AARCH64_ABS64
            }
        );
        if !named || !whole {
            continue;
        }
        let slot = bias.wrapping_add(offset) as usize;
        let start = slot & !(page as usize - 1);
        // SAFETY: `slot` is a pointer-sized relocation slot of a loaded object (its file's own
        // relocation at its load bias), on the page made writable here; the loader wrote it
        // already and reads it no more (or, lazily bound, writes its target, which is `to` too:
        // the PLT is not resolved again once the slot holds a final address). Pages of the
        // object's RELRO range go back to read-only.
        unsafe {
            if libc::mprotect(
                start as *mut libc::c_void,
                page as usize,
                libc::PROT_READ | libc::PROT_WRITE,
            ) != 0
            {
                return Err(format!(
                    "{path}: cannot write its slot of `{name}`: {}",
                    std::io::Error::last_os_error()
                ));
            }
            std::ptr::write_volatile(slot as *mut usize, to);
            if relro.is_some_and(|(lo, hi)| (lo..hi).contains(&offset)) {
                libc::mprotect(start as *mut libc::c_void, page as usize, libc::PROT_READ);
            }
        }
        changed += 1;
    }
    if changed == 0 {
        return Err(format!("{path} does not import `{name}`"));
    }
    Ok(changed)
}

/// Loads the shared object at `path` into the global scope as libomp loads a tool library of
/// `OMP_TOOL_LIBRARIES` (`dlopen` with `RTLD_LAZY`): a handle for [`symbol_in`] and [`close`].
pub fn open_library(path: &str) -> Option<usize> {
    let path = CString::new(path).ok()?;
    // SAFETY: loading a tool library the user named runs its constructors, which is what naming
    // it in OMP_TOOL_LIBRARIES asks for (libomp itself would load it the same way).
    let h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY) };
    (!h.is_null()).then_some(h as usize)
}

/// Drops a reference [`open_library`] returned.
pub fn close(handle: usize) {
    // SAFETY: a handle dlopen returned, closed once by its owner.
    unsafe { libc::dlclose(handle as *mut libc::c_void) };
}
