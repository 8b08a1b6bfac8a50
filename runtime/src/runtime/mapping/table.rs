//! The host-to-device mapping table of one device, with libomptarget's reference-count rules.
//!
//! The table only records which host range lives where on the device; moving bytes is the job of
//! [`super`], which drives the table and the device together. Addresses are plain
//! `usize` values here: the table never dereferences them, so it is ordinary safe Rust and is
//! tested without any device.

use std::collections::BTreeMap;

/// A reference count that never drops: declare-target globals and associated pointers.
pub const INF: u64 = u64::MAX;

/// A device copy of a host pointer that was patched to point at device memory ("attach").
///
/// When the object holding the pointer is copied to the host, the host value is restored; when
/// it is copied to the device, the device value is written again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShadowPointer {
    /// Host address of the pointer itself (inside the mapped object that holds it).
    pub host_addr: usize,
    /// The pointer's host value, written back when the holding object is copied to the host.
    pub host_value: usize,
    /// Device address of the pointer's copy.
    pub target_addr: usize,
    /// The device address the device copy holds: the pointee's device counterpart.
    pub target_value: usize,
}

/// One mapped host range.
#[derive(Debug, Clone)]
pub struct Entry {
    /// `HstPtrBase`: the base address (`ArgBasePtrs`) of the map that created the entry.
    pub host_base: usize,
    /// `HstPtrBegin`: first mapped host byte; also the entry's key in the table.
    pub host_begin: usize,
    /// `HstPtrEnd`: one past the last mapped host byte.
    pub host_end: usize,
    /// What the device allocator returned (before struct padding).
    pub target_alloc: usize,
    /// Device address of `host_begin`.
    pub target_begin: usize,
    /// `DynRefCount`: references from ordinary maps and `target enter/exit data`; [`INF`] for
    /// memory the table never releases.
    pub dyn_refs: u64,
    /// `HoldRefCount`: references from `ompx_hold` maps, which `target exit data` cannot drop.
    pub hold_refs: u64,
    /// The variable's name as clang encodes it (`;name;file;line;col;;`), for diagnostics.
    pub name: usize,
    /// Whether the table owns `target_alloc` and frees it with the entry.
    pub owns_memory: bool,
    /// Whether the host range was page-locked for the entry (`memory::pinned`), to unpin with it.
    pub pinned: bool,
    /// The pointers inside this entry's device copy that were attached to device memory.
    pub shadows: Vec<ShadowPointer>,
    /// The end of the copies that fill the entry's device memory, when they may still be
    /// running: a construct that finds the entry makes its stream wait for this point before
    /// anything of its own uses the data. Recorded with the table locked; nobody waits with the
    /// table locked.
    pub filling: Option<crate::device::Event>,
    /// Constructs that released the entry's last reference and have not finished yet (their
    /// copies and kernel may still use its memory): the entry goes only when the last of them
    /// finishes. Without the count, a construct that finished after another one revived and
    /// released the entry again would free memory the other's work still uses.
    pub finishing: u32,
    /// Tells the entry apart from a later one at the same host address once it is
    /// [retired](MappingTable::retire): assigned by [`MappingTable::insert`] (32 bits, beside
    /// `finishing`: a construct's lists of entries are copied around, and their size shows in
    /// a launch's cost; a retired entry is also matched by its key, so a wrapped id is harmless).
    pub id: u32,
}

impl Entry {
    /// An entry for memory the table does not own and never releases (reference count INF):
    /// a declare-target global, or a pointer associated with `omp_target_associate_ptr`.
    pub fn permanent(host: usize, size: usize, target: usize) -> Self {
        Entry {
            host_base: host,
            host_begin: host,
            host_end: host + size,
            target_alloc: target,
            target_begin: target,
            dyn_refs: INF,
            hold_refs: 0,
            name: 0,
            owns_memory: false,
            pinned: false,
            shadows: Vec::new(),
            filling: None,
            finishing: 0,
            id: 0,
        }
    }

    /// Bytes mapped (`host_end - host_begin`).
    pub fn size(&self) -> usize {
        self.host_end - self.host_begin
    }

    /// Device address corresponding to a host address inside the entry.
    pub fn target_of(&self, host: usize) -> usize {
        self.target_begin
            .wrapping_add(host.wrapping_sub(self.host_begin))
    }

    /// Both reference counts together (saturating at [`INF`]); 0 means the entry is released.
    pub fn total_refs(&self) -> u64 {
        self.dyn_refs.saturating_add(self.hold_refs)
    }

    fn counts(&mut self, hold: bool) -> (&mut u64, u64) {
        if hold {
            (&mut self.hold_refs, self.dyn_refs)
        } else {
            (&mut self.dyn_refs, self.hold_refs)
        }
    }

    /// Adds a reference to the hold count (`hold`) or the dynamic count; [`INF`] stays INF.
    pub fn inc_refs(&mut self, hold: bool) {
        let (this, _) = self.counts(hold);
        if *this != INF {
            *this = this.saturating_add(1).min(INF - 1);
        }
    }

    /// Drops a reference from the hold count (`hold`) or the dynamic count, never below 0;
    /// [`INF`] stays INF.
    pub fn dec_refs(&mut self, hold: bool) {
        let (this, _) = self.counts(hold);
        if *this != INF && *this > 0 {
            *this -= 1;
        }
    }

    /// Whether decrementing `hold`'s count (after a reset, for `delete`) releases the entry.
    pub fn dec_would_remove(&self, hold: bool, after_reset: bool) -> bool {
        let (this, other) = if hold {
            (self.hold_refs, self.dyn_refs)
        } else {
            (self.dyn_refs, self.hold_refs)
        };
        if other > 0 {
            return false;
        }
        if after_reset {
            this != INF
        } else {
            this == 1
        }
    }

    /// `delete`: brings the count to 1 so that the next decrement releases the entry.
    pub fn reset_refs(&mut self, hold: bool) {
        let (this, _) = self.counts(hold);
        if *this != INF {
            *this = 1;
        }
    }

    /// Records a shadow pointer; true when the device copy of the pointer must be (re)written.
    pub fn add_shadow(&mut self, s: ShadowPointer) -> bool {
        match self.shadows.iter_mut().find(|x| x.host_addr == s.host_addr) {
            Some(old) if old.target_value == s.target_value => false,
            Some(old) => {
                *old = s;
                true
            }
            None => {
                self.shadows.push(s);
                true
            }
        }
    }

    /// Reference count as libomptarget's INFO output prints it.
    pub fn fmt_refs(n: u64) -> String {
        if n == INF {
            "INF".to_string()
        } else {
            n.to_string()
        }
    }
}

/// How a host range relates to the table.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lookup {
    /// Key (host begin) of the entry the range touches, if any.
    pub entry: Option<usize>,
    /// The range lies inside the entry (libomptarget's `IsContained`).
    pub contained: bool,
    /// The range starts before the entry and runs into it (`ExtendsBefore`).
    pub extends_before: bool,
    /// The range runs past the entry's end (`ExtendsAfter`).
    pub extends_after: bool,
}

impl Lookup {
    /// Whether the range counts as mapped: contained, or (unless `must_contain`, as for explicit
    /// maps) overlapping an entry at either end.
    pub fn is_present(&self, must_contain: bool) -> bool {
        self.contained || (!must_contain && (self.extends_before || self.extends_after))
    }
}

/// The mapping table of one device.
#[derive(Debug, Default)]
pub struct MappingTable {
    entries: BTreeMap<usize, Entry>,
    /// Entries [retired](Self::retire): released in program order, their memory kept until
    /// the constructs that released them finish. Not found by lookups.
    retired: Vec<Entry>,
    /// The id the next inserted entry gets.
    next_id: u32,
}

impl MappingTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether nothing is mapped on the device.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry whose key (host begin address) is `key`.
    pub fn get(&self, key: usize) -> Option<&Entry> {
        self.entries.get(&key)
    }

    /// The entry whose key (host begin address) is `key`, for updating.
    pub fn get_mut(&mut self, key: usize) -> Option<&mut Entry> {
        self.entries.get_mut(&key)
    }

    /// The entries in host address order.
    pub fn iter(&self) -> impl Iterator<Item = &Entry> {
        self.entries.values()
    }

    /// Inserts a new entry, giving it its [id](Entry::id); the caller has checked with
    /// [`lookup`](Self::lookup) that the range overlaps nothing.
    pub fn insert(&mut self, mut entry: Entry) -> usize {
        let key = entry.host_begin;
        self.next_id = self.next_id.wrapping_add(1);
        entry.id = self.next_id;
        self.entries.insert(key, entry);
        key
    }

    /// Takes the entry with key `key` out of the table (its memory is the caller's to free).
    pub fn remove(&mut self, key: usize) -> Option<Entry> {
        self.entries.remove(&key)
    }

    /// Takes entry `key` out of the lookups when every reference to it was released and only
    /// constructs still finishing use its memory (a `nowait` construct, a spread chunk in
    /// flight): in program order it is gone, so a construct that maps a range overlapping it
    /// maps anew instead of failing with an explicit extension, as it would have once those
    /// constructs finished (stock libomptarget, whose target tasks complete with their device
    /// work, maps such a construct only then). The memory stays until the last of them
    /// finishes ([`get_released`](Self::get_released), [`remove_released`](Self::remove_released)).
    /// False (nothing changes) for an entry that is still referenced or not found.
    pub fn retire(&mut self, key: usize) -> bool {
        let released = self
            .entries
            .get(&key)
            .is_some_and(|e| e.total_refs() == 0 && e.finishing > 0);
        if !released {
            return false;
        }
        if let Some(e) = self.entries.remove(&key) {
            self.retired.push(e);
        }
        true
    }

    /// The entry a construct released (`key`, `id`), in the table or retired, for that
    /// construct to finish.
    #[inline]
    pub fn get_released(&mut self, key: usize, id: u32) -> Option<&mut Entry> {
        match self.entries.get_mut(&key) {
            Some(e) if e.id == id => Some(e),
            _ => self
                .retired
                .iter_mut()
                .find(|e| e.id == id && e.host_begin == key),
        }
    }

    /// Takes the entry (`key`, `id`) out of the table or of the retired ones (its memory is the
    /// caller's to free).
    #[inline]
    pub fn remove_released(&mut self, key: usize, id: u32) -> Option<Entry> {
        if self.entries.get(&key).is_some_and(|e| e.id == id) {
            return self.entries.remove(&key);
        }
        let i = self
            .retired
            .iter()
            .position(|e| e.id == id && e.host_begin == key)?;
        Some(self.retired.swap_remove(i))
    }

    /// Retired entries whose constructs have not finished yet.
    pub fn retired_len(&self) -> usize {
        self.retired.len()
    }

    /// Finds how `[host, host+size)` relates to the mapped ranges, as libomptarget's
    /// `lookupMapping` does (including its treatment of zero-length sections, which match an
    /// entry they fall inside or at whose base they start).
    pub fn lookup(&self, host: usize, size: usize) -> Lookup {
        let mut r = Lookup::default();
        let end = host.saturating_add(size);
        let left = self.entries.range(..=host).next_back().map(|(_, e)| e);
        let right = self
            .entries
            .range((std::ops::Bound::Excluded(host), std::ops::Bound::Unbounded))
            .next()
            .map(|(_, e)| e);
        if size == 0 {
            if let Some(e) = left {
                r.entry = Some(e.host_begin);
                r.contained = host < e.host_end || host < e.host_base;
            }
            if !r.contained {
                if let Some(e) = right {
                    r.entry = Some(e.host_begin);
                    r.contained = host >= e.host_base;
                }
            }
            if !r.contained {
                r.entry = None;
            }
            return r;
        }
        if let Some(e) = left {
            r.entry = Some(e.host_begin);
            r.contained = host >= e.host_begin && host < e.host_end && end <= e.host_end;
            r.extends_after = host < e.host_end && end > e.host_end;
        }
        if !(r.contained || r.extends_after) {
            if let Some(e) = right {
                r.entry = Some(e.host_begin);
                r.extends_before = host < e.host_begin && end > e.host_begin;
                r.extends_after = host < e.host_end && end > e.host_end;
            }
        }
        if !(r.contained || r.extends_before || r.extends_after) {
            r.entry = None;
        }
        r
    }

    /// The entry containing `[host, host+size)`, if it is fully mapped.
    pub fn find_contained(&self, host: usize, size: usize) -> Option<&Entry> {
        let l = self.lookup(host, size);
        if l.contained {
            l.entry.and_then(|k| self.entries.get(&k))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(begin: usize, size: usize, tgt: usize) -> Entry {
        Entry {
            host_base: begin,
            host_begin: begin,
            host_end: begin + size,
            target_alloc: tgt,
            target_begin: tgt,
            dyn_refs: 1,
            hold_refs: 0,
            name: 0,
            owns_memory: true,
            pinned: false,
            shadows: Vec::new(),
            filling: None,
            finishing: 0,
            id: 0,
        }
    }

    #[test]
    fn lookup_classifies_ranges() {
        let mut t = MappingTable::new();
        t.insert(entry(1000, 100, 50_000));
        t.insert(entry(2000, 100, 60_000));
        let l = t.lookup(1010, 10);
        assert!(l.contained && l.entry == Some(1000));
        assert!(t.lookup(1000, 100).contained);
        let l = t.lookup(1050, 100);
        assert!(!l.contained && l.extends_after && l.entry == Some(1000));
        let l = t.lookup(1950, 100);
        assert!(l.extends_before && !l.contained && l.entry == Some(2000));
        let l = t.lookup(1950, 200);
        assert!(l.extends_before && l.extends_after);
        let l = t.lookup(1100, 10);
        assert_eq!(l, Lookup::default());
        assert_eq!(t.lookup(500, 10), Lookup::default());
        assert_eq!(
            t.find_contained(1010, 4).map(|e| e.target_of(1010)),
            Some(50_010)
        );
    }

    #[test]
    fn zero_length_sections() {
        let mut t = MappingTable::new();
        t.insert(entry(1000, 100, 50_000));
        assert!(t.lookup(1000, 0).contained);
        assert!(t.lookup(1099, 0).contained);
        // One past the end is not inside the entry.
        assert!(!t.lookup(1100, 0).contained);
        assert!(!t.lookup(999, 0).contained);
    }

    #[test]
    fn refcounts_follow_libomptarget() {
        let mut e = entry(0, 8, 8); // dyn 1, hold 0
        assert!(e.dec_would_remove(false, false));
        e.inc_refs(false); // dyn 2
        assert!(!e.dec_would_remove(false, false));
        e.dec_refs(false); // dyn 1
        e.inc_refs(true); // dyn 1, hold 1
                          // Each count keeps the entry alive while the other drops.
        assert!(!e.dec_would_remove(false, false));
        assert!(!e.dec_would_remove(true, false));
        e.dec_refs(false); // dyn 0, hold 1
        assert!(e.dec_would_remove(true, false));
        // delete ignores how high the dynamic count is, but not a hold reference.
        e.inc_refs(false);
        e.inc_refs(false); // dyn 2, hold 1
        assert!(!e.dec_would_remove(false, true));
        e.dec_refs(true); // dyn 2, hold 0
        assert!(e.dec_would_remove(false, true));
        e.reset_refs(false);
        e.dec_refs(false);
        assert_eq!(e.total_refs(), 0);
        // INF never drops.
        let mut g = entry(0, 8, 8);
        g.dyn_refs = INF;
        g.dec_refs(false);
        g.inc_refs(false);
        assert_eq!(g.dyn_refs, INF);
        assert!(!g.dec_would_remove(false, false));
        assert!(!g.dec_would_remove(false, true));
    }

    #[test]
    fn shadow_pointers_update_only_on_change() {
        let mut e = entry(0, 64, 4096);
        let s = ShadowPointer {
            host_addr: 8,
            host_value: 100,
            target_addr: 4104,
            target_value: 9000,
        };
        assert!(e.add_shadow(s));
        assert!(!e.add_shadow(s));
        assert!(e.add_shadow(ShadowPointer {
            target_value: 9100,
            ..s
        }));
        assert_eq!(e.shadows.len(), 1);
    }

    /// A released entry whose construct still runs is retired: lookups no longer find it, a
    /// new entry may take its host range (and key), and the finishing construct still finds
    /// its own entry by id.
    #[test]
    fn retired_entries_leave_the_lookups_but_not_their_constructs() {
        let mut t = MappingTable::new();
        let k = t.insert(entry(1000, 100, 50_000));
        let old = t.get(k).map(|e| e.id).expect("inserted");
        // Still referenced: not retired.
        assert!(!t.retire(k));
        let e = t.get_mut(k).expect("there");
        e.dec_refs(false);
        e.finishing = 1;
        assert!(t.retire(k));
        assert_eq!(t.lookup(1050, 100), Lookup::default());
        let k2 = t.insert(entry(1000, 200, 60_000));
        assert_eq!(k2, k);
        assert_ne!(t.get(k2).map(|e| e.id), Some(old));
        assert_eq!(t.get_released(k, old).map(|e| e.target_begin), Some(50_000));
        let gone = t.remove_released(k, old).expect("retired");
        assert_eq!(gone.target_begin, 50_000);
        assert_eq!(t.retired_len(), 0);
        assert_eq!(t.get(k).map(|e| e.target_begin), Some(60_000));
    }
}
