//! Host devices' memory: every block (mapped data, `omp_target_alloc`, a kernel's firstprivate
//! copies) in a mapping of its own, between two guard regions nothing may access, so that a
//! kernel that runs outside the section it was given faults at once instead of reading or
//! writing the program's heap; the fault is reported by `runtime/fault.rs`, which finds the
//! block here ([`find`]).
//!
//! **Placement.** A block's data ends where its pages end, so the first byte past it faults. Its
//! start is aligned to the largest power of two that divides its size, at least 16 and at most
//! 64 ([`alignment`]): a C object's size is a multiple of its alignment, so every element type of
//! a section is aligned, and 16 is what malloc (stock libomptarget's host plugin) gives and what
//! compilers assume of any array of 16 bytes or more (x86-64 ABI: clang copies a firstprivate
//! `int[10]` with aligned vector moves, which fault on an 8-aligned copy). A size that is a
//! multiple of 16 ends exactly at the guard; another leaves fewer than 16 bytes before it. An access
//! before the start faults once it leaves the block's first page (the data starts inside it,
//! unless its size is a multiple of the page). The allocation cache hands one block out for every
//! size of a class: [`place`] puts each size against the block's end.
//!
//! **Guards.** Each side reserves the data's size in address space (at least 64 KiB, at most
//! 64 MiB, [`guard_len`]): address space only, neither memory nor commit charge, so a kernel
//! that strays as far from its section as the section is long still lands in a guard.
//!
//! **Limits.** A block takes about two of the process's mappings (its data, and its guards
//! merged with the neighbours'), and Linux allows `vm.max_map_count` (65530 by default): blocks
//! are guarded while fewer than an eighth of that are live, and while the system grants the
//! mappings; beyond, blocks come from the heap as before, unguarded, so a program with a
//! hundred thousand small arrays still runs. Up to [`KEEP`] freed blocks of at most
//! [`KEEP_MAX_LEN`] are kept for reuse by any host device, so a construct that allocates and
//! frees a small buffer every time (a firstprivate array) does not map and unmap it every time.

use crate::sys::{fault, vm};
use parking_lot::Mutex;
use std::collections::{BTreeMap, VecDeque};

/// Freed blocks kept for reuse.
pub const KEEP: usize = 32;
/// The largest data size (bytes, whole pages) of a block kept for reuse.
pub const KEEP_MAX_LEN: usize = 1 << 20;
/// Guard bounds (bytes per side).
const GUARD_MIN: usize = 64 << 10;
const GUARD_MAX: usize = 64 << 20;

/// The alignment of a block of `size` bytes: the largest power of two dividing `size`, at
/// least 16 (malloc's, which compiled code may rely on) and at most 64.
pub fn alignment(size: usize) -> usize {
    let low = if size == 0 {
        64
    } else {
        1 << size.trailing_zeros()
    };
    low.clamp(16, 64)
}

/// The bytes of address space reserved on each side of `data_len` bytes of data pages.
pub fn guard_len(data_len: usize, page: usize) -> usize {
    data_len
        .clamp(GUARD_MIN, GUARD_MAX)
        .next_multiple_of(page.max(1))
}

/// Where `size` bytes go in a block of `class` bytes at `block` that [`alloc`] (or the heap,
/// 64-aligned) gave for `class` bytes: against the block's end, at the alignment of `size`. The
/// block's start when that does not fit (a class not a multiple of 64, or smaller than `size`).
pub fn place(block: usize, class: usize, size: usize) -> usize {
    // On every cached allocation: bit operations only (the alignment is a power of two).
    let mask = alignment(size) - 1;
    let Some(need) = size.checked_add(mask).map(|n| n & !mask) else {
        return block;
    };
    if class & 63 != 0 || need > class {
        return block;
    }
    block + class - need
}

/// How a block of `size` bytes lies in its reservation, from its start: the leading guard, the
/// data pages, the trailing guard; the data begins `offset` bytes into the data pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Bytes of each guard.
    pub guard: usize,
    /// Bytes of data pages.
    pub data_len: usize,
    /// Where the data begins in its pages.
    pub offset: usize,
}

impl Layout {
    /// The layout of `size` bytes (at least 1) with pages of `page` bytes; `None` when the
    /// sizes overflow.
    pub fn of(size: usize, page: usize) -> Option<Layout> {
        let size = size.max(1);
        let data_len = size.checked_next_multiple_of(page)?;
        let need = size.checked_next_multiple_of(alignment(size))?;
        let guard = guard_len(data_len, page);
        data_len.checked_add(guard.checked_mul(2)?)?;
        Some(Layout {
            guard,
            data_len,
            offset: data_len - need,
        })
    }

    /// Bytes reserved in all.
    pub fn total(&self) -> usize {
        self.data_len + 2 * self.guard
    }
}

/// One guarded block.
#[derive(Debug, Clone, Copy)]
struct Block {
    /// Bytes reserved from the reservation's start (the key).
    len: usize,
    /// Its data pages.
    data: usize,
    data_len: usize,
    /// The host device that allocated it last.
    device: usize,
    /// Freed and kept for reuse.
    kept: bool,
}

struct State {
    /// Every guarded block, by its reservation's start.
    blocks: BTreeMap<usize, Block>,
    /// Blocks live or kept (each holds mappings).
    count: usize,
    /// The most blocks guarded at once (0: not read yet).
    budget: usize,
    /// Kept blocks, oldest first (their starts).
    kept: VecDeque<usize>,
}

static STATE: Mutex<State> = Mutex::new(State {
    blocks: BTreeMap::new(),
    count: 0,
    budget: 0,
    kept: VecDeque::new(),
});

/// `vm.max_map_count`: the most mappings a process may have.
fn max_map_count() -> usize {
    std::fs::read_to_string("/proc/sys/vm/max_map_count")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .unwrap_or(65530)
}

/// The most guarded blocks: an eighth of `vm.max_map_count` (each takes about two mappings).
fn budget() -> usize {
    (max_map_count() / 8).max(16)
}

/// Whether the process has (nearly) as many mappings as it may: why a mapping was refused, if
/// not for memory.
fn mappings_near_limit() -> bool {
    let maps = std::fs::read("/proc/self/maps")
        .map(|m| m.iter().filter(|&&b| b == b'\n').count())
        .unwrap_or(0);
    maps + 8 >= max_map_count()
}

/// A guarded block of `size` bytes for host device `device`: the address of its data; `None`
/// when it cannot be guarded (too many blocks, or the system refuses the mappings), for the
/// caller to take heap memory instead.
pub fn alloc(device: usize, size: usize) -> Option<usize> {
    let page = vm::page_size();
    let layout = Layout::of(size, page)?;
    {
        let mut st = STATE.lock();
        if let Some(i) = st.kept.iter().position(|start| {
            st.blocks
                .get(start)
                .is_some_and(|b| b.data_len == layout.data_len)
        }) {
            let start = st.kept.remove(i)?;
            let b = st.blocks.get_mut(&start)?;
            b.kept = false;
            b.device = device;
            return Some(b.data + layout.offset);
        }
        if st.budget == 0 {
            st.budget = budget();
        }
        if st.count >= st.budget {
            return None;
        }
        st.count += 1; // claimed before the system calls, made outside the lock
    }
    let mapped = vm::reserve(layout.total()).and_then(|start| {
        if vm::open(start + layout.guard, layout.data_len) {
            Some(start)
        } else {
            vm::release(start, layout.total());
            None
        }
    });
    let Some(start) = mapped else {
        // Out of memory (the heap will say so), or out of mappings: then no more guarded
        // blocks until some are freed.
        let out_of_mappings = mappings_near_limit();
        let mut st = STATE.lock();
        st.count -= 1;
        if out_of_mappings {
            st.budget = st.count.max(1);
        }
        return None;
    };
    let mut st = STATE.lock();
    let data = start + layout.guard;
    st.blocks.insert(
        start,
        Block {
            len: layout.total(),
            data,
            data_len: layout.data_len,
            device,
            kept: false,
        },
    );
    drop(st);
    fault::install();
    Some(data + layout.offset)
}

/// Frees the guarded block whose data `ptr` lies in (kept for reuse when small); false when
/// `ptr` is in none (heap memory, for the caller to free).
pub fn free(ptr: usize) -> bool {
    let mut st = STATE.lock();
    let Some((&start, b)) = st.blocks.range_mut(..=ptr).next_back() else {
        return false;
    };
    if ptr < b.data || ptr >= b.data + b.data_len {
        return false;
    }
    if b.kept {
        return true; // freed twice: the first free stands
    }
    let mut unmap = Vec::new();
    if b.data_len <= KEEP_MAX_LEN {
        b.kept = true;
        st.kept.push_back(start);
        while st.kept.len() > KEEP {
            if let Some(old) = st.kept.pop_front() {
                unmap.push(old);
            }
        }
    } else {
        unmap.push(start);
    }
    let released: Vec<(usize, usize)> = unmap
        .into_iter()
        .filter_map(|s| st.blocks.remove(&s).map(|b| (s, b.len)))
        .collect();
    st.count -= released.len();
    drop(st);
    for (s, len) in released {
        vm::release(s, len);
    }
    true
}

/// Where an address lies in a guarded block's reservation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// In the guard before the data pages.
    Before,
    /// In the data pages.
    Inside,
    /// In the guard after them.
    After,
}

/// A guarded block an address falls in ([`find`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    /// The host device that allocated the block last.
    pub device: usize,
    /// Its data pages.
    pub data: usize,
    /// Their length.
    pub data_len: usize,
    /// Where the address lies.
    pub side: Side,
    /// The block was freed (and is kept for reuse): a use after free.
    pub freed: bool,
}

/// The guarded block whose reservation holds `addr`, if any; for the fault report, so the
/// bookkeeping's lock is only tried (for about a tenth of a second while another thread holds
/// it), never waited for.
pub fn find(addr: usize) -> Option<Hit> {
    let mut tries = 0;
    let st = loop {
        if let Some(st) = STATE.try_lock() {
            break st;
        }
        tries += 1;
        if tries > 100 {
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    };
    let (&start, b) = st.blocks.range(..=addr).next_back()?;
    if addr >= start + b.len {
        return None;
    }
    let side = if addr < b.data {
        Side::Before
    } else if addr < b.data + b.data_len {
        Side::Inside
    } else {
        Side::After
    };
    Some(Hit {
        device: b.device,
        data: b.data,
        data_len: b.data_len,
        side,
        freed: b.kept,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_follows_the_size() {
        assert_eq!(alignment(8192), 64);
        assert_eq!(alignment(8 * 1025), 16);
        assert_eq!(alignment(24), 16);
        assert_eq!(alignment(48), 16);
        assert_eq!(alignment(96), 32);
        assert_eq!(alignment(4), 16);
        assert_eq!(alignment(1), 16);
        assert_eq!(alignment(0), 64);
    }

    #[test]
    fn data_ends_at_the_guard_as_alignment_allows() {
        let page = 4096;
        let l = Layout::of(8192, page).expect("fits");
        assert_eq!(
            (l.data_len, l.offset),
            (8192, 0),
            "page multiples fill their pages"
        );
        assert_eq!(l.guard, 64 << 10);
        let l = Layout::of(16 * 1025, page).expect("fits");
        assert_eq!(l.data_len, 20480);
        assert_eq!(
            l.offset + 16 * 1025,
            l.data_len,
            "ends exactly at the guard"
        );
        let l = Layout::of(100, page).expect("fits");
        assert_eq!(
            l.offset + 112,
            l.data_len,
            "16-aligned: 12 bytes short of the guard"
        );
        assert_eq!(l.offset % 16, 0);
        let big = Layout::of(1 << 30, page).expect("fits");
        assert_eq!(big.guard, 64 << 20);
        assert_eq!(Layout::of(usize::MAX - 10, page), None);
    }

    #[test]
    fn sizes_of_a_class_end_where_the_block_ends() {
        // The cache allocates `class` bytes: the block ends at `block + class`.
        assert_eq!(place(0x10000, 10240, 8208), 0x10000 + 10240 - 8208);
        assert_eq!(
            place(0x10000, 10240, 8200),
            0x10000 + 10240 - 8208,
            "16-aligned"
        );
        assert_eq!(place(0x10000, 256, 4), 0x10000 + 256 - 16);
        assert_eq!(place(0x10000, 256, 256), 0x10000);
        // Shapes the cache never makes stay at the start.
        assert_eq!(place(0x10000, 100, 8), 0x10000);
        assert_eq!(place(0x10000, 256, 300), 0x10000);
    }

    #[test]
    fn blocks_are_guarded_found_kept_and_reused() {
        const DEV: usize = 7_777;
        // Not a page multiple, a multiple of 16; of a page count no other test uses.
        let size = 37 * 4096 + 48;
        let p = alloc(DEV, size).expect("guarded");
        let page = vm::page_size();
        let end = p + size;
        assert_eq!(end % page, 0, "the data ends at a page boundary");
        crate::sys::access::fill(p, 1, size);
        let hit = find(end).expect("the guard after");
        assert_eq!((hit.device, hit.side, hit.freed), (DEV, Side::After, false));
        assert_eq!(hit.data + hit.data_len, end);
        assert_eq!(find(hit.data - 1).map(|h| h.side), Some(Side::Before));
        assert_eq!(find(p).map(|h| h.side), Some(Side::Inside));
        assert!(free(p + 16), "any address inside frees the block");
        assert!(find(end).expect("kept").freed);
        // The same size class of pages reuses the block, for another device too.
        let q = alloc(DEV + 1, size).expect("reused");
        assert_eq!(q, p);
        assert_eq!(
            find(end).map(|h| (h.device, h.freed)),
            Some((DEV + 1, false))
        );
        assert!(free(q));
        assert!(!free(0x10), "not a guarded block");
    }
}
