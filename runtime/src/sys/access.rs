//! The raw memory accesses the runtime outside `sys/` and `capi/` makes, one function per purpose, each with
//! the contract that makes it sound. The generic helpers of [`super::mem`] are `unsafe`; these
//! are safe because the OpenMP contract the program keeps (its map clauses and API arguments
//! name valid memory of the stated length, see the module docs of `sys`), the ABI its compiler
//! keeps (the descriptors and name strings clang emits for map clauses) or the runtime's own
//! bookkeeping (it owns what it allocated) guarantees each one's precondition.

use super::mem;

/// Reads the pointer at `addr`, the base of a PTR_AND_OBJ map entry: clang emits it as the
/// address of a pointer variable of the program, named by a map clause.
pub fn attach_pointer(addr: usize) -> usize {
    // SAFETY: `addr` is the address of a pointer the program maps (doc above). The mapping code
    // refuses bases in the null page before calling this.
    unsafe { mem::read_usize(addr) }
}

/// Writes `value` back into the program's pointer at `addr` (a shadow pointer's host address,
/// recorded from an [`attach_pointer`] address of a mapped entry).
pub fn restore_pointer(addr: usize, value: usize) {
    // SAFETY: as for `attach_pointer`: the program's mapped pointer, inside a mapped range.
    unsafe { mem::write_usize(addr, value) }
}

/// The dimension descriptors of a `NON_CONTIG` map entry (a strided `target update` section), as
/// `[offset, count, stride]` triples, outermost first: for such an entry clang passes, as its
/// begin address `addr`, an array of its size `n` (the number of dimensions) descriptors of three
/// `u64`s each (LLVM 19's `__tgt_target_data_update` ABI). An address of 0 reads as `n` zero
/// triples.
pub fn non_contig_dims(addr: usize, n: usize) -> Vec<[u64; 3]> {
    // SAFETY: the contract above: `addr` is 0 or clang's 8-aligned descriptor array of `n`
    // entries, which the program keeps while the construct's map arguments are in use; any bits
    // are valid `u64`s.
    unsafe { mem::array(addr as *const [u64; 3], n) }
}

/// The string at `addr`, a name clang emitted for a map entry (a map clause's `names` array,
/// a mapper's component, an entry the mapping table keeps): a NUL-terminated constant
/// `;name;file;line;col;;` string in the program's image. `None` for an address of 0.
pub fn entry_name(addr: usize) -> Option<String> {
    // SAFETY: the contract above: clang's name strings are NUL-terminated constants that live as
    // long as the program's image, which outlives its mapped data.
    unsafe { mem::c_string(addr as *const std::ffi::c_char) }
}

/// [`entry_name`]'s bytes (without the NUL), read in place: for the fault report, which must not
/// allocate. `None` for an address of 0.
pub fn entry_name_bytes(addr: usize) -> Option<&'static [u8]> {
    if addr == 0 {
        return None;
    }
    // SAFETY: as for `entry_name`: a NUL-terminated constant of the program's image, which
    // outlives its mapped data (and is never written).
    Some(unsafe { std::ffi::CStr::from_ptr(addr as *const std::ffi::c_char) }.to_bytes())
}

/// Moves `len` bytes for a data transfer: each side is either memory the program named (a map
/// clause section, an API routine's arguments) or memory the runtime allocated with at least
/// `len` bytes past the address (device memory of a host device, a mapping's staging value).
pub fn transfer(dst: usize, src: usize, len: usize) {
    // SAFETY: the contract above; OpenMP makes a wrong length the program's error, and the
    // runtime checks the lengths it can (null sections, `omp_target_alloc` bounds).
    unsafe { mem::copy(dst, src, len) }
}

/// Appends `len` bytes at `src` to `buf`, with the contract of [`transfer`] for `src` (a remote
/// device's copy from the program's memory straight into the message that carries it).
pub fn append_from(buf: &mut Vec<u8>, src: usize, len: usize) {
    if len == 0 {
        return;
    }
    buf.reserve(len);
    let at = buf.len();
    // SAFETY: `src` as for `transfer`; the destination is the spare capacity just reserved, and
    // the length is set only after the bytes are there.
    unsafe {
        mem::copy(buf.as_mut_ptr().add(at) as usize, src, len);
        buf.set_len(at + len);
    }
}

/// Sets `len` bytes at `dst`, with the contract of [`transfer`] for `dst`.
pub fn fill(dst: usize, byte: u8, len: usize) {
    // SAFETY: as for `transfer`.
    unsafe { mem::fill(dst, byte, len) }
}

/// Frees `addr`, which the caller's bookkeeping (mapping table, allocation registry, memory
/// provider) got from [`mem::alloc`] and now removes: nothing uses it afterwards.
pub fn free_owned(addr: usize) {
    // SAFETY: each registry frees an address once, when it removes it.
    unsafe { mem::free(addr) }
}

/// Locks the pages of a block the caller owns (a pinned-memory allocation); false when the
/// system refuses.
pub fn lock_owned(addr: usize, len: usize) -> bool {
    // SAFETY: the memory provider passes its own block's range.
    unsafe { mem::lock_pages(addr, len) }
}

/// Undoes [`lock_owned`].
pub fn unlock_owned(addr: usize, len: usize) {
    // SAFETY: as for `lock_owned`.
    unsafe { mem::unlock_pages(addr, len) }
}
