//! Lazy coherence for `device(any)` instances (`SPREAD_COHERENCE=lazy`; docs/task-sharing.md
//! "Coherence"): an instance's outputs stay on the device that produced them until the host or
//! another device needs them, as the OmpSs directory does, so a chain of dependent instances on
//! one device moves nothing between them.
//!
//! The directory knows each range an instance mapped with a known extent: which places hold a
//! valid copy (the host and/or devices) and on which devices the directory keeps a mapping (one
//! reference of the device's mapping table, so that the instance's own `map` finds the data
//! present and copies nothing). Before an instance runs on device d, every input range not valid
//! on d is brought there (from the host, or device to device from a device that has it); when it
//! ends, its outputs are valid on d alone. A host instance, `spread_any_flush`, a `taskwait`,
//! `taskgroup` or barrier, the end of an instance without `nowait` and the program's exit bring
//! data home: dirty ranges are copied back and the directory's mappings released.
//!
//! A range that overlaps a known one without being the same is first brought home (both), then
//! tracked on its own. Each range has its own lock, held while its copies run, so instances on
//! different ranges proceed at once and two instances never copy the same range twice.

use super::MapItem;
use crate::abi::map;
use crate::cu::placement::{one_entry, target_on};
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::Runtime;
use parking_lot::Mutex;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Bytes one operation moved, per device.
#[derive(Debug, Default, Clone)]
pub struct Moved {
    /// (device, bytes copied to it: host to device or device to device).
    pub into: Vec<(usize, u64)>,
    /// (device, bytes copied from it to the host).
    pub out: Vec<(usize, u64)>,
}

#[derive(Default)]
struct RangeState {
    /// The host's copy is valid.
    host_valid: bool,
    /// Devices with a valid copy.
    valid: BTreeSet<usize>,
    /// Devices where the directory holds a mapping of the range (one reference each).
    held: BTreeSet<usize>,
    /// False once brought home and forgotten: a holder of the old record must look again.
    live: bool,
    /// Instances between prepare and their end that use the range: a flush at a sync point leaves
    /// it alone meanwhile (the sync point that covers such an instance waits for it first).
    users: u32,
}

struct Range {
    len: usize,
    st: Mutex<RangeState>,
}

/// The directory of ranges instances left on devices.
#[derive(Default)]
pub struct Directory {
    ranges: Mutex<BTreeMap<usize, Arc<Range>>>,
    /// Ranges known.
    known: AtomicUsize,
}

/// The known ranges that overlap `[p, p+len)`.
fn overlapping(
    ranges: &BTreeMap<usize, Arc<Range>>,
    p: usize,
    len: usize,
) -> Vec<(usize, Arc<Range>)> {
    ranges
        .range(..p.saturating_add(len))
        .filter(|(&q, r)| q + r.len > p)
        .map(|(&q, r)| (q, Arc::clone(r)))
        .collect()
}

fn backend(msg: String) -> Error {
    Error::new(ErrorKind::Backend, msg)
}

impl Directory {
    /// An empty directory.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the directory knows any range (and so holds mappings a flush releases).
    pub fn has_ranges(&self) -> bool {
        self.known.load(Ordering::Acquire) > 0
    }

    /// The record of exactly `[p, p+len)`, created (valid on the host) if new; overlapping
    /// records of other extents are brought home and forgotten first.
    fn record(&self, rt: &Runtime, p: usize, len: usize, moved: &mut Moved) -> Result<Arc<Range>> {
        loop {
            let overlapping: Vec<(usize, Arc<Range>)> = {
                let mut rs = self.ranges.lock();
                if let Some(r) = rs.get(&p).filter(|r| r.len == len) {
                    return Ok(Arc::clone(r));
                }
                let hits = overlapping(&rs, p, len);
                if hits.is_empty() {
                    let r = Arc::new(Range {
                        len,
                        st: Mutex::new(RangeState {
                            host_valid: true,
                            live: true,
                            ..RangeState::default()
                        }),
                    });
                    rs.insert(p, Arc::clone(&r));
                    self.known.fetch_add(1, Ordering::AcqRel);
                    return Ok(r);
                }
                hits
            };
            for (q, r) in overlapping {
                self.bring_home(rt, q, &r, moved)?;
            }
        }
    }

    /// Makes every input of an instance about to run on device `d` valid there and maps every
    /// item there.
    pub fn prepare(&self, rt: &Runtime, d: usize, items: &[MapItem]) -> Result<Moved> {
        let mut moved = Moved::default();
        let slot = rt.device(d as i64)?;
        for it in items.iter().filter(|it| it.bytes > 0) {
            // The record may be brought home between the lookup and the lock: look again.
            let r = loop {
                let r = self.record(rt, it.ptr, it.bytes, &mut moved)?;
                let mut st = r.st.lock();
                if st.live {
                    st.users += 1;
                    drop(st);
                    break r;
                }
            };
            let mut st = r.st.lock();
            if !st.held.contains(&d) {
                slot.data_begin(rt, &mut one_entry(it.ptr, it.bytes, 0))?;
                st.held.insert(d);
            }
            if it.to && !st.valid.contains(&d) {
                if st.host_valid {
                    slot.data_update(rt, &one_entry(it.ptr, it.bytes, map::TO))?;
                } else {
                    let e = *st.valid.iter().next().ok_or_else(|| {
                        backend(format!(
                            "device(any): no valid copy of [{:#x}, +{}) is left anywhere",
                            it.ptr, it.bytes
                        ))
                    })?;
                    let src_slot = rt.device(e as i64)?;
                    match (
                        target_on(src_slot, it.ptr, it.bytes),
                        target_on(slot, it.ptr, it.bytes),
                    ) {
                        (Some(src), Some(dst)) => {
                            src_slot.copy_to_peer(slot, dst, src, it.bytes)?
                        }
                        _ => {
                            return Err(backend(format!(
                                "device(any): [{:#x}, +{}) is not mapped on device {e} or {d}",
                                it.ptr, it.bytes
                            )))
                        }
                    }
                }
                moved.into.push((d, it.bytes as u64));
                st.valid.insert(d);
            }
        }
        Ok(moved)
    }

    /// Bytes of `items` valid on device `d` now (locality).
    pub fn valid_bytes(&self, d: usize, items: &[MapItem]) -> u64 {
        let rs = self.ranges.lock();
        items
            .iter()
            .filter(|it| {
                rs.get(&it.ptr)
                    .filter(|r| r.len == it.bytes)
                    .is_some_and(|r| r.st.lock().valid.contains(&d))
            })
            .map(|it| it.bytes as u64)
            .sum()
    }

    /// An instance on device `d` ended: its outputs are valid there alone, and it no longer uses
    /// its ranges.
    pub fn produced(&self, d: usize, items: &[MapItem]) {
        for it in items.iter().filter(|it| it.bytes > 0) {
            let r = self
                .ranges
                .lock()
                .get(&it.ptr)
                .filter(|r| r.len == it.bytes)
                .cloned();
            let Some(r) = r else { continue };
            let mut st = r.st.lock();
            st.users = st.users.saturating_sub(1);
            if !it.from || !st.live || !st.held.contains(&d) {
                // Brought home while the instance ran: its own mapping copied the data back.
                continue;
            }
            st.host_valid = false;
            st.valid.clear();
            st.valid.insert(d);
        }
    }

    /// Brings every range overlapping `items` home (before a host instance, or after an
    /// instance without `nowait`).
    pub fn reclaim(&self, rt: &Runtime, items: &[MapItem]) -> Result<Moved> {
        let mut moved = Moved::default();
        for it in items.iter().filter(|it| it.bytes > 0) {
            let hits = overlapping(&self.ranges.lock(), it.ptr, it.bytes);
            for (q, r) in hits {
                self.bring_home(rt, q, &r, &mut moved)?;
            }
        }
        Ok(moved)
    }

    /// Brings everything home.
    pub fn flush(&self, rt: &Runtime) -> Result<Moved> {
        let mut moved = Moved::default();
        let all: Vec<(usize, Arc<Range>)> = self
            .ranges
            .lock()
            .iter()
            .map(|(&q, r)| (q, Arc::clone(r)))
            .collect();
        for (q, r) in all {
            if r.st.lock().users > 0 {
                continue;
            }
            self.bring_home(rt, q, &r, &mut moved)?;
        }
        Ok(moved)
    }

    /// Copies a dirty range back, releases the directory's mappings of it and forgets it.
    fn bring_home(&self, rt: &Runtime, p: usize, r: &Range, moved: &mut Moved) -> Result<()> {
        let mut st = r.st.lock();
        if !st.live {
            return Ok(());
        }
        if !st.host_valid {
            if let Some(&e) = st.valid.iter().next() {
                rt.device(e as i64)?
                    .data_update(rt, &one_entry(p, r.len, map::FROM))?;
                moved.out.push((e, r.len as u64));
            }
            st.host_valid = true;
        }
        for &d in &st.held {
            rt.device(d as i64)?.data_end(rt, &one_entry(p, r.len, 0))?;
        }
        st.held.clear();
        st.valid.clear();
        st.live = false;
        drop(st);
        let mut rs = self.ranges.lock();
        if rs.get(&p).is_some_and(|x| std::ptr::eq(&**x, r)) {
            rs.remove(&p);
            self.known.fetch_sub(1, Ordering::AcqRel);
        }
        Ok(())
    }
}
