//! Raw memory: allocation for host devices, copies, and reads of the program's argument arrays.
//!
//! The helpers that read, write, free or copy memory at an address are `unsafe fn`: their callers
//! in `sys/` and `capi/` say why the address is valid. Code outside them reaches them only through
//! [`super::access`], whose functions each serve one purpose with one contract.

use smallvec::SmallVec;
use std::ffi::{c_char, CStr};

/// The alignment of [`alloc`].
pub const ALIGN: usize = 64;

/// Allocates `size` bytes aligned to 64 (enough for any OpenMP type, and a cache line).
pub fn alloc(size: usize) -> Option<usize> {
    // No object exceeds isize::MAX bytes (glibc refuses them too): such sizes are refused here
    // rather than passed to posix_memalign, which memcheck flags as a negative size.
    if isize::try_from(size).is_err() {
        return None;
    }
    let mut p: *mut libc::c_void = std::ptr::null_mut();
    // SAFETY: posix_memalign writes `p` only on success; the size and a power-of-two alignment
    // that is a multiple of the pointer size are valid arguments.
    let rc = unsafe { libc::posix_memalign(&mut p, 64, size) };
    (rc == 0 && !p.is_null()).then_some(p as usize)
}

/// Frees memory returned by [`alloc`].
///
/// # Safety
///
/// `addr` is 0 or an address [`alloc`] returned that is not freed yet and not used afterwards.
pub unsafe fn free(addr: usize) {
    // SAFETY: the caller's contract; free(NULL) is a no-op.
    unsafe { libc::free(addr as *mut libc::c_void) }
}

/// Locks the pages of `[addr, addr+len)` in memory (they neither swap nor migrate); false when
/// the system refuses (`RLIMIT_MEMLOCK`).
///
/// # Safety
///
/// `[addr, addr+len)` lies in an allocation the caller owns.
pub unsafe fn lock_pages(addr: usize, len: usize) -> bool {
    // SAFETY: mlock only changes the residency of pages of this process, which the caller owns.
    unsafe { libc::mlock(addr as *const libc::c_void, len) == 0 }
}

/// Undoes [`lock_pages`].
///
/// # Safety
///
/// As for [`lock_pages`]; unlocking pages that are not locked is harmless.
pub unsafe fn unlock_pages(addr: usize, len: usize) {
    // SAFETY: the caller's contract.
    unsafe {
        libc::munlock(addr as *const libc::c_void, len);
    }
}

/// Copies `len` bytes; the ranges may overlap.
///
/// # Safety
///
/// Unless `len` is 0, `[src, src+len)` is readable and `[dst, dst+len)` writable memory that no
/// Rust reference covers while the copy runs.
pub unsafe fn copy(dst: usize, src: usize, len: usize) {
    if len == 0 || dst == src {
        return;
    }
    if page_aliased(dst, src, len) {
        // SAFETY: the caller's contract; `page_aliased` checked that the ranges do not overlap.
        unsafe { copy_page_aliased(dst, src, len) };
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) }
}

/// Whether a copy of `len` bytes would run into glibc's memcpy slow paths for a destination
/// just past its source modulo the page (2.36 on AMD Zen: `rep movsb` from 4 KiB to the L2's
/// size at 2-3 GB/s instead of 40-80, its non-temporal loop beyond three quarters of the L3 at a
/// third of its speed): the ranges do not overlap, and `dst - src` is 1 to 63 bytes mod 4096.
/// Host devices' blocks end at a page boundary, so a section whose size is a multiple of the
/// page starts at offset 0 and its copy back to a large `malloc` array (offset 16) is such a
/// copy.
fn page_aliased(dst: usize, src: usize, len: usize) -> bool {
    let skew = dst.wrapping_sub(src) & 4095;
    len >= 2048 && (1..64).contains(&skew) && (dst >= src + len || src >= dst + len)
}

/// Copies of at least this many bytes bypass the caches ([`copy_page_aliased`]).
const STREAM_FROM: usize = 16 << 20;

/// Copies `len` non-overlapping bytes with SSE2 unaligned loads and aligned stores (streaming
/// ones from [`STREAM_FROM`] on), which the page aliasing does not slow down (64 KiB: 23 GB/s
/// instead of 3; 256 MiB: 11 instead of 4.4, on the development machine).
///
/// # Safety
///
/// As for [`copy`], and the ranges do not overlap.
#[cfg(target_arch = "x86_64")]
unsafe fn copy_page_aliased(dst: usize, src: usize, len: usize) {
    use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
    let stream = len >= STREAM_FROM;
    // Streaming stores fill whole cache lines (64 bytes) in the write-combining buffers.
    let head = dst.next_multiple_of(if stream { 64 } else { 16 }) - dst;
    // SAFETY: the caller's contract covers every byte copied: the head (under 64 bytes, and
    // `len` is at least 2048), 64-byte blocks and the tail all lie in `[0, len)`; after the head
    // `dst + i` is 16-aligned (64 when streaming), as aligned and streaming stores of __m128i
    // need (SSE2 is part of x86_64). The stores are volatile so that the loop is not turned
    // back into a memcpy call.
    unsafe {
        std::ptr::copy_nonoverlapping(src as *const u8, dst as *mut u8, head);
        let mut i = head;
        while i + 64 <= len {
            let s = (src + i) as *const __m128i;
            let d = (dst + i) as *mut __m128i;
            let (x0, x1, x2, x3) = (
                _mm_loadu_si128(s),
                _mm_loadu_si128(s.add(1)),
                _mm_loadu_si128(s.add(2)),
                _mm_loadu_si128(s.add(3)),
            );
            if stream {
                _mm_stream_si128(d, x0);
                _mm_stream_si128(d.add(1), x1);
                _mm_stream_si128(d.add(2), x2);
                _mm_stream_si128(d.add(3), x3);
            } else {
                std::ptr::write_volatile(d, x0);
                std::ptr::write_volatile(d.add(1), x1);
                std::ptr::write_volatile(d.add(2), x2);
                std::ptr::write_volatile(d.add(3), x3);
            }
            i += 64;
        }
        if stream {
            _mm_sfence();
        }
        std::ptr::copy_nonoverlapping((src + i) as *const u8, (dst + i) as *mut u8, len - i);
    }
}

/// Elsewhere: a plain copy.
///
/// # Safety
///
/// As for [`copy`].
#[cfg(not(target_arch = "x86_64"))]
unsafe fn copy_page_aliased(dst: usize, src: usize, len: usize) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) }
}

/// Sets `len` bytes at `dst` to `byte`.
///
/// # Safety
///
/// Unless `len` is 0, `[dst, dst+len)` is writable memory that no Rust reference covers.
pub unsafe fn fill(dst: usize, byte: u8, len: usize) {
    if len == 0 {
        return;
    }
    // SAFETY: the caller's contract.
    unsafe { std::ptr::write_bytes(dst as *mut u8, byte, len) }
}

/// Reads a pointer-sized value (unaligned).
///
/// # Safety
///
/// `[addr, addr+8)` is readable memory.
pub unsafe fn read_usize(addr: usize) -> usize {
    // SAFETY: the caller's contract; unaligned reads are allowed.
    unsafe { std::ptr::read_unaligned(addr as *const usize) }
}

/// Writes a pointer-sized value (unaligned).
///
/// # Safety
///
/// `[addr, addr+8)` is writable memory that no Rust reference covers.
pub unsafe fn write_usize(addr: usize, value: usize) {
    // SAFETY: the caller's contract.
    unsafe { std::ptr::write_unaligned(addr as *mut usize, value) }
}

/// Copies `n` elements of a C array into a vector; a null array reads as `n` default values.
///
/// # Safety
///
/// `ptr` is null, or points at `n` readable, valid, aligned `T`s that nothing writes while they
/// are copied.
pub unsafe fn array<T: Copy + Default>(ptr: *const T, n: usize) -> Vec<T> {
    // SAFETY: the caller's contract, which is `collect`'s.
    unsafe { collect(ptr, n) }
}

/// As [`array`], kept inline up to 8 elements (a construct's map arrays: copying them then
/// allocates nothing for the usual few entries).
///
/// # Safety
///
/// As [`array`].
pub unsafe fn small_array<T: Copy + Default>(ptr: *const T, n: usize) -> SmallVec<[T; 8]> {
    // SAFETY: the caller's contract, which is `collect`'s.
    unsafe { collect(ptr, n) }
}

/// [`array`] into any collection.
///
/// # Safety
///
/// As [`array`].
unsafe fn collect<T: Copy + Default, C: FromIterator<T>>(ptr: *const T, n: usize) -> C {
    if ptr.is_null() || n == 0 {
        return std::iter::repeat_n(T::default(), n).collect();
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(ptr, n) }
        .iter()
        .copied()
        .collect()
}

/// Writes `values` to a C array the program passed with room for at least `values.len()`.
///
/// # Safety
///
/// `ptr` is null or points to writable room for `values.len()` elements of `T` that no Rust
/// reference covers.
pub unsafe fn write_array<T: Copy>(ptr: *mut T, values: &[T]) {
    if ptr.is_null() || values.is_empty() {
        return;
    }
    // SAFETY: the caller's contract.
    let dst = unsafe { std::slice::from_raw_parts_mut(ptr, values.len()) };
    dst.copy_from_slice(values);
}

/// Copies an array of pointers as addresses.
///
/// # Safety
///
/// `ptr` is null or points to `n` readable pointers.
pub unsafe fn ptr_array<T>(ptr: *const *mut T, n: usize) -> SmallVec<[usize; 8]> {
    // SAFETY: the caller's contract; a pointer and a `usize` have the same size and alignment,
    // and every bit pattern is a valid `usize`.
    unsafe { small_array(ptr as *const usize, n) }
}

/// Writes back an array of addresses the runtime changed (RETURN_PARAM bases).
///
/// # Safety
///
/// `ptr` is null or points to writable room for `values.len()` pointers.
pub unsafe fn write_ptr_array<T>(ptr: *mut *mut T, values: &[usize]) {
    if ptr.is_null() {
        return;
    }
    // SAFETY: the caller's contract.
    let dst = unsafe { std::slice::from_raw_parts_mut(ptr as *mut usize, values.len()) };
    dst.copy_from_slice(values);
}

/// Copies program memory into an owned buffer (offload images).
///
/// # Safety
///
/// `addr` is 0 or `[addr, addr+len)` is readable memory.
pub unsafe fn bytes(addr: usize, len: usize) -> Vec<u8> {
    if addr == 0 || len == 0 {
        return Vec::new();
    }
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(addr as *const u8, len) }.to_vec()
}

/// Reads a NUL-terminated string of the program (entry names, source locations); `None` for a
/// null pointer. Bytes that are not UTF-8 read as U+FFFD.
///
/// # Safety
///
/// `ptr` is null or points at a NUL-terminated string, readable up to and including its NUL,
/// that nothing writes while it is read.
pub unsafe fn c_string(ptr: *const c_char) -> Option<String> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the caller's contract.
    Some(
        unsafe { CStr::from_ptr(ptr) }
            .to_string_lossy()
            .into_owned(),
    )
}

/// Reads a C array of `T` as a slice-owned vector given begin and end pointers.
///
/// # Safety
///
/// Unless either is null or `end <= begin`, `[begin, end)` is readable and holds valid `T`s.
pub unsafe fn range<T: Copy>(begin: *const T, end: *const T) -> Vec<T> {
    if begin.is_null() || end.is_null() || end <= begin {
        return Vec::new();
    }
    let n = (end as usize - begin as usize) / std::mem::size_of::<T>();
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts(begin, n) }.to_vec()
}

/// Reads one `T` the program passed by pointer (unaligned); `None` for a null pointer.
///
/// # Safety
///
/// `ptr` is null or points at a readable, valid `T` (it need not be aligned) that nothing writes
/// while it is read.
pub unsafe fn read<T: Copy>(ptr: *const T) -> Option<T> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the caller's contract; unaligned reads are allowed.
    Some(unsafe { std::ptr::read_unaligned(ptr) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_aliased_copies_are_exact() {
        let n = 3 * STREAM_FROM / 2;
        let src: Vec<u8> = (0..n + 8192).map(|i| (i * 7 + i / 4093) as u8).collect();
        let mut dst = vec![0u8; n + 8192];
        let s0 = src.as_ptr() as usize;
        let d0 = dst.as_mut_ptr() as usize;
        for (len, skew) in [(2048, 16), (5000, 1), (65536 + 13, 63), (n, 16), (4096, 64)] {
            // A destination `skew` bytes past the source modulo the page.
            let d = d0 + ((s0 + skew).wrapping_sub(d0) & 4095);
            assert_eq!(page_aliased(d, s0, len), skew < 64, "{len} {skew}");
            // SAFETY: both ranges lie in the vectors, which do not overlap.
            unsafe { copy(d, s0, len) };
            let off = d - d0;
            assert!(
                dst[off..off + len] == src[..len],
                "{len} bytes at skew {skew}"
            );
            assert!(
                dst[off + len..].iter().take(64).all(|&b| b == 0),
                "nothing past the end"
            );
            dst.iter_mut().for_each(|b| *b = 0);
        }
        // Overlapping ranges keep memmove's semantics.
        assert!(!page_aliased(d0 + 16, d0, 4096));
    }
}
