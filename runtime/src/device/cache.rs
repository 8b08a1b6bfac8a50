//! A caching device-memory allocator, one per device, above every backend.
//!
//! Mapping allocates and frees device memory for every construct. A `cuMemAlloc` costs tens of
//! microseconds and synchronizes the device; on host devices a fresh allocation of a large block
//! is fresh pages that fault on first touch, so a copy into it runs at a third of memcpy's speed.
//! Freed blocks are therefore kept, by size class, and handed out again; what the cache holds is
//! bounded, and everything it holds is given back when the device runs out of memory.
//!
//! Size classes keep four steps per power of two (at most 25% rounding waste) above 4 KiB, and
//! 256-byte steps below, so a block freed by one construct fits the next construct of nearly the
//! same size.
//!
//! The cache keeps blocks; what it hands out is a place inside one, chosen by the device for
//! the size asked for (`Device::place`: a host device puts the data against the block's end,
//! where its guard catches the first byte past it), so it records which block each handed-out
//! address lies in.

use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;

/// The cache's bookkeeping; the device's own allocation calls stay with the caller, so the lock
/// is never held across a backend call.
pub struct AllocCache {
    limit: usize,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Free blocks by class size, most recently freed last.
    free: BTreeMap<usize, Vec<usize>>,
    /// Bytes held in `free`.
    cached: usize,
    /// The block and its class size of every address handed out, by address.
    live: FxHashMap<usize, (usize, usize)>,
    /// Blocks freed, oldest first, for eviction: (class, address).
    order: std::collections::VecDeque<(usize, usize)>,
}

/// What [`AllocCache::take`] decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Take {
    /// The address handed out in a cached block of the class (recorded already).
    Cached(usize),
    /// Nothing cached: allocate this many bytes and [`AllocCache::record`] the address handed
    /// out in the block.
    Allocate(usize),
}

impl AllocCache {
    /// A cache that holds at most `limit` bytes of free blocks (0: none, every free is real).
    pub fn new(limit: usize) -> Self {
        AllocCache {
            limit,
            state: Mutex::new(State::default()),
        }
    }

    /// The class a request of `size` bytes falls in (the bytes actually allocated).
    pub fn class(size: usize) -> usize {
        const SMALL: usize = 4096;
        if size <= SMALL {
            return size.max(1).div_ceil(256) * 256;
        }
        // Four classes per power of two: keep the top three bits and round up.
        let shift = usize::BITS - size.leading_zeros() - 3;
        let step = 1usize << shift;
        size.checked_next_multiple_of(step).unwrap_or(size)
    }

    /// An address for `size` bytes in a cached block, which `place(block, class)` chooses, or
    /// the size of the block to allocate.
    pub fn take(&self, size: usize, place: impl FnOnce(usize, usize) -> usize) -> Take {
        let class = Self::class(size);
        let mut st = self.state.lock();
        let hit = st.free.get_mut(&class).and_then(Vec::pop);
        match hit {
            Some(block) => {
                if st.free.get(&class).is_some_and(Vec::is_empty) {
                    st.free.remove(&class);
                }
                st.cached -= class;
                // The block is the class's most recently freed one: near the back.
                if let Some(i) = st.order.iter().rposition(|&(_, a)| a == block) {
                    st.order.remove(i);
                }
                let ptr = place(block, class);
                st.live.insert(ptr, (block, class));
                Take::Cached(ptr)
            }
            None => Take::Allocate(class),
        }
    }

    /// Records `ptr`, handed out in `block` of `class` bytes allocated after
    /// [`Take::Allocate`].
    pub fn record(&self, ptr: usize, block: usize, class: usize) {
        self.state.lock().live.insert(ptr, (block, class));
    }

    /// Takes back an address [`record`](Self::record)ed; returns the blocks the device must
    /// really free now (its block when the cache is full, or older ones it evicts), or `None`
    /// when `ptr` did not come from this cache.
    pub fn put(&self, ptr: usize) -> Option<Vec<usize>> {
        let mut st = self.state.lock();
        let (block, class) = st.live.remove(&ptr)?;
        if class > self.limit {
            return Some(vec![block]);
        }
        let mut evicted = Vec::new();
        while st.cached + class > self.limit {
            let Some((c, a)) = st.order.pop_front() else {
                break;
            };
            if let Some(v) = st.free.get_mut(&c) {
                v.retain(|&x| x != a);
                if v.is_empty() {
                    st.free.remove(&c);
                }
            }
            st.cached -= c;
            evicted.push(a);
        }
        st.free.entry(class).or_default().push(block);
        st.order.push_back((class, block));
        st.cached += class;
        Some(evicted)
    }

    /// Empties the cache and returns its blocks for the device to free (out of memory, or the
    /// device is going away).
    pub fn drain(&self) -> Vec<usize> {
        let mut st = self.state.lock();
        st.cached = 0;
        st.order.clear();
        std::mem::take(&mut st.free)
            .into_values()
            .flatten()
            .collect()
    }

    /// Bytes of free blocks held now.
    pub fn cached_bytes(&self) -> usize {
        self.state.lock().cached
    }

    /// Whether `ptr` is an address handed out by this cache.
    pub fn owns(&self, ptr: usize) -> bool {
        self.state.lock().live.contains_key(&ptr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_by_at_most_a_quarter() {
        assert_eq!(AllocCache::class(1), 256);
        assert_eq!(AllocCache::class(4096), 4096);
        for size in [4097usize, 5000, 1 << 20, (1 << 20) + 1, 123_456_789] {
            let c = AllocCache::class(size);
            assert!(c >= size && c - size <= size / 4, "{size} -> {c}");
        }
        assert_eq!(AllocCache::class(usize::MAX), usize::MAX);
    }

    #[test]
    fn freed_blocks_are_reused_by_requests_of_their_class() {
        let cache = AllocCache::new(1 << 30);
        let Take::Allocate(class) = cache.take(1_000_000, |b, _| b) else {
            panic!("empty cache")
        };
        // Handed out at the block's end (as a host device places data).
        cache.record(0x1000 + class - 1_000_000, 0x1000, class);
        assert_eq!(cache.put(0x1000 + class - 1_000_000), Some(vec![]));
        assert_eq!(cache.cached_bytes(), class);
        // A slightly different size of the same class reuses the block.
        assert_eq!(
            cache.take(999_000, |b, c| b + c - 999_000),
            Take::Cached(0x1000 + class - 999_000)
        );
        assert_eq!(cache.cached_bytes(), 0);
        assert!(cache.owns(0x1000 + class - 999_000));
        assert!(!cache.owns(0x1000));
        // Foreign pointers are not the cache's.
        assert_eq!(cache.put(0x9999), None);
        // An address given back frees its block, not itself, when the cache is full.
        let full = AllocCache::new(0);
        full.record(0x2040, 0x2000, 256);
        assert_eq!(full.put(0x2040), Some(vec![0x2000]));
    }

    #[test]
    fn the_limit_evicts_the_oldest_blocks() {
        let cache = AllocCache::new(3 * 4096);
        for (i, p) in [0x1000usize, 0x2000, 0x3000, 0x4000]
            .into_iter()
            .enumerate()
        {
            let Take::Allocate(c) = cache.take(4096, |b, _| b) else {
                panic!("block {i} should not be cached yet")
            };
            cache.record(p, p, c);
        }
        assert_eq!(cache.put(0x1000), Some(vec![]));
        assert_eq!(cache.put(0x2000), Some(vec![]));
        assert_eq!(cache.put(0x3000), Some(vec![]));
        assert_eq!(cache.put(0x4000), Some(vec![0x1000]), "oldest evicted");
        assert_eq!(cache.cached_bytes(), 3 * 4096);
        let mut drained = cache.drain();
        drained.sort_unstable();
        assert_eq!(drained, vec![0x2000, 0x3000, 0x4000]);
        assert_eq!(cache.cached_bytes(), 0);
    }

    #[test]
    fn a_zero_limit_frees_at_once() {
        let cache = AllocCache::new(0);
        let Take::Allocate(c) = cache.take(64, |b, _| b) else {
            panic!()
        };
        cache.record(0x40, 0x40, c);
        assert_eq!(cache.put(0x40), Some(vec![0x40]));
        assert_eq!(cache.cached_bytes(), 0);
    }
}
