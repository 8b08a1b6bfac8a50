//! Virtual memory: anonymous mappings reserved without any access and opened in part for reading
//! and writing (host devices' guarded blocks, `device/host/guarded.rs`).
//!
//! A reservation costs address space only: its pages are neither backed nor counted against the
//! commit limit until they are opened (then they are, as a heap allocation's would be: a block
//! larger than the system grants fails to open, rather than later, when it is touched). The functions are safe: each rests on the bookkeeping of
//! its one caller, which owns the reservations it made and passes only ranges inside them.

/// The size of a page (`sysconf(_SC_PAGESIZE)`, 4096 when the system does not say).
pub fn page_size() -> usize {
    static PAGE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf reads a system constant.
        let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(p)
            .ok()
            .filter(|p| p.is_power_of_two())
            .unwrap_or(4096)
    })
}

/// Reserves `len` bytes (a multiple of the page size) of address space that nothing may access;
/// `None` when the system refuses (address space or `vm.max_map_count` exhausted).
pub fn reserve(len: usize) -> Option<usize> {
    // SAFETY: a new private anonymous mapping at an address the kernel chooses touches no
    // existing memory.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_NONE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    (p != libc::MAP_FAILED).then_some(p as usize)
}

/// Makes `[addr, addr+len)` (page-aligned, inside a reservation of the caller's from
/// [`reserve`]) readable and writable; false when the system refuses (the commit limit, or
/// `vm.max_map_count`: the range splits the reservation's mapping in three).
pub fn open(addr: usize, len: usize) -> bool {
    // SAFETY: the range lies in a reservation the caller owns (module docs), which no Rust
    // reference covers; opening it changes no memory.
    unsafe {
        libc::mprotect(
            addr as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
        ) == 0
    }
}

/// Gives back the reservation `[addr, addr+len)` that [`reserve`] returned; nothing uses it
/// afterwards.
pub fn release(addr: usize, len: usize) {
    // SAFETY: the whole reservation of the caller's (module docs), no longer used by anyone.
    unsafe {
        libc::munmap(addr as *mut libc::c_void, len);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reservation_opens_in_part_and_is_released() {
        let page = page_size();
        let base = reserve(3 * page).expect("reserve");
        assert!(open(base + page, page));
        // The opened page is memory of the process now.
        crate::sys::access::fill(base + page, 7, page);
        release(base, 3 * page);
    }
}
