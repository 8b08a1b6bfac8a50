//! A table of values behind `u64` handles: the MPI requests and messages the C ABI hands out.
//!
//! A handle is `generation << 32 | index`. Generations start at 1, so 0 is never a handle, and a
//! slot's generation changes each time it is freed, so a stale handle finds nothing instead of
//! the slot's next occupant.

struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Values behind `u64` handles, with freed slots reused.
pub(crate) struct Slab<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
}

fn split(handle: u64) -> (u32, usize) {
    ((handle >> 32) as u32, (handle & 0xffff_ffff) as usize)
}

fn join(generation: u32, index: u32) -> u64 {
    (u64::from(generation) << 32) | u64::from(index)
}

impl<T> Slab<T> {
    /// An empty table.
    pub(crate) const fn new() -> Self {
        Slab {
            slots: Vec::new(),
            free: Vec::new(),
            live: 0,
        }
    }

    /// Stores `value` and returns its handle (None when 2^32 values are live).
    pub(crate) fn insert(&mut self, value: T) -> Option<u64> {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                let i = u32::try_from(self.slots.len()).ok()?;
                self.slots.push(Slot {
                    generation: 1,
                    value: None,
                });
                i
            }
        };
        let slot = self.slots.get_mut(index as usize)?;
        slot.value = Some(value);
        self.live += 1;
        Some(join(slot.generation, index))
    }

    /// The value behind `handle`, if it is live.
    pub(crate) fn get_mut(&mut self, handle: u64) -> Option<&mut T> {
        let (generation, index) = split(handle);
        let slot = self.slots.get_mut(index)?;
        if slot.generation != generation {
            return None;
        }
        slot.value.as_mut()
    }

    /// Removes and returns the value behind `handle`; the handle is dead afterwards.
    pub(crate) fn remove(&mut self, handle: u64) -> Option<T> {
        let (generation, index) = split(handle);
        let slot = self.slots.get_mut(index)?;
        if slot.generation != generation {
            return None;
        }
        let value = slot.value.take()?;
        slot.generation = slot.generation.checked_add(1).unwrap_or(1);
        self.free.push(index as u32);
        self.live -= 1;
        Some(value)
    }

    /// How many values are live.
    pub(crate) fn len(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::Slab;

    #[test]
    fn handles_are_nonzero_and_distinct() {
        let mut s = Slab::new();
        let a = s.insert("a").unwrap();
        let b = s.insert("b").unwrap();
        assert_ne!(a, 0);
        assert_ne!(a, b);
        assert_eq!(s.len(), 2);
        assert_eq!(s.get_mut(a).copied(), Some("a"));
        assert_eq!(s.get_mut(b).copied(), Some("b"));
        assert_eq!(s.get_mut(0), None);
        assert_eq!(s.get_mut(u64::MAX), None);
    }

    #[test]
    fn stale_handles_find_nothing() {
        let mut s = Slab::new();
        let a = s.insert(1).unwrap();
        assert_eq!(s.remove(a), Some(1));
        assert_eq!(s.remove(a), None);
        assert_eq!(s.len(), 0);
        // The slot is reused under a new handle; the old one stays dead.
        let b = s.insert(2).unwrap();
        assert_ne!(a, b);
        assert_eq!(s.get_mut(a), None);
        assert_eq!(s.remove(a), None);
        assert_eq!(s.get_mut(b).copied(), Some(2));
        assert_eq!(s.len(), 1);
    }

    #[test]
    fn many_values() {
        let mut s = Slab::new();
        let hs: Vec<u64> = (0..1000).map(|i| s.insert(i).unwrap()).collect();
        for (i, h) in hs.iter().enumerate().step_by(2) {
            assert_eq!(s.remove(*h), Some(i));
        }
        assert_eq!(s.len(), 500);
        for (i, h) in hs.iter().enumerate().skip(1).step_by(2) {
            assert_eq!(s.get_mut(*h).copied(), Some(i));
        }
    }
}
