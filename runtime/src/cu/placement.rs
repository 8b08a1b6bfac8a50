//! Data placement (seed 004 §3.3, digest §6.5): registered host ranges with one placement each,
//! the host or one device, moved by migrations on top of the mapping tables.
//!
//! Single-owner model: a range has one valid copy, where its placement says; host memory is the
//! backing store. A migration maps and unmaps as the program would:
//!
//! - host → device d: `target enter data map(always, to:)` on d (the mapping's reference is the
//!   placement's; a later `map(...)` of the range on d finds it present and copies nothing);
//! - device d → host: `target exit data map(always, from:)` on d (the data comes home and the
//!   placement's reference is released);
//! - device e → device d: `map(alloc:)` on d, a device-to-device copy of e's data into it, then
//!   `map(release:)` on e.
//!
//! `always`: the placement owns the valid copy, so the copy happens even when the program holds
//! a mapping of its own there. A second migration to the same place does nothing. Each range
//! has its own lock, so CUs migrate different ranges at once. A migration does not wait for
//! other threads' work on the data: the previous owner finished with it (a GPU CU synchronizes
//! before it commits a task).

use crate::abi::map;
use crate::error::{Error, ErrorKind, Result};
use crate::info;
use crate::runtime::mapping::MapArgs;
use crate::runtime::{DeviceSlot, Policy, Runtime};
use crate::sys::kmp;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a range's valid copy is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// Host memory (`omp_get_initial_device()`).
    Host,
    /// The data mapped for the range on this device.
    Device(usize),
}

struct RangeState {
    place: Place,
    /// False once unregistered: a migration that found the range just before must not move it.
    live: bool,
}

struct Range {
    len: usize,
    state: Mutex<RangeState>,
}

/// The registered ranges, by start address.
#[derive(Default)]
pub struct Registry {
    ranges: Mutex<BTreeMap<usize, Arc<Range>>>,
}

fn invalid(msg: String) -> Error {
    Error::new(ErrorKind::Invalid, msg)
}

/// The device-side address of the data mapped for `[host, host+len)` on `slot`.
pub(crate) fn target_on(slot: &DeviceSlot, host: usize, len: usize) -> Option<usize> {
    if crate::memory::accessible(slot.id, host, len) {
        return Some(host); // memory of a space the device reaches: used where it is
    }
    slot.table
        .lock()
        .find_contained(host, len)
        .map(|e| e.target_of(host))
}

pub(crate) fn one_entry(p: usize, len: usize, types: i64) -> MapArgs {
    MapArgs {
        bases: smallvec::smallvec![p],
        begins: smallvec::smallvec![p],
        sizes: smallvec::smallvec![i64::try_from(len).unwrap_or(i64::MAX)],
        types: smallvec::smallvec![types],
        names: smallvec::smallvec![0],
        mappers: smallvec::smallvec![0],
        components: Vec::new(),
        dims: Vec::new(),
    }
}

impl Registry {
    /// An empty registry.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// Starts tracking `[p, p+len)`, placed on the host.
    pub fn register(&self, p: usize, len: usize) -> Result<()> {
        if p == 0 {
            return Err(invalid("cannot register a null pointer".into()));
        }
        if len == 0 {
            return Err(invalid(format!(
                "cannot register an empty range at {}",
                info::ptr(p)
            )));
        }
        let end = p.checked_add(len).ok_or_else(|| {
            invalid(format!(
                "the range at {} of {len} bytes wraps around",
                info::ptr(p)
            ))
        })?;
        let mut ranges = self.ranges.lock();
        let before = ranges.range(..end).next_back();
        if let Some((&s, r)) = before {
            if s + r.len > p {
                return Err(invalid(format!(
                    "[{}, +{len}) overlaps the registered range [{}, +{})",
                    info::ptr(p),
                    info::ptr(s),
                    r.len
                )));
            }
        }
        ranges.insert(
            p,
            Arc::new(Range {
                len,
                state: Mutex::new(RangeState {
                    place: Place::Host,
                    live: true,
                }),
            }),
        );
        Ok(())
    }

    /// The registered range containing `p`: its start and state.
    fn find(&self, p: usize) -> Option<(usize, Arc<Range>)> {
        let ranges = self.ranges.lock();
        let (&s, r) = ranges.range(..=p).next_back()?;
        (p < s + r.len).then(|| (s, r.clone()))
    }

    fn find_or_err(&self, p: usize) -> Result<(usize, Arc<Range>)> {
        self.find(p).ok_or_else(|| {
            invalid(format!(
                "{} is not in a registered range (spread_register_data)",
                info::ptr(p)
            ))
        })
    }

    /// The placement of the registered range containing `p`, `None` when there is none.
    pub fn placement(&self, p: usize) -> Option<Place> {
        let (_, r) = self.find(p)?;
        let st = r.state.lock();
        st.live.then_some(st.place)
    }

    /// Moves the range containing `p` to `to`; nothing when it is there already.
    pub fn migrate(&self, rt: &Runtime, p: usize, to: Place) -> Result<()> {
        let (start, r) = self.find_or_err(p)?;
        let to = match to {
            Place::Device(d) if d >= rt.num_devices() => {
                return Err(Error::new(
                    ErrorKind::BadDevice,
                    format!(
                        "device {d} does not exist (the runtime has {} devices; the host is {})",
                        rt.num_devices(),
                        rt.initial_device()
                    ),
                ))
            }
            // Offloading is disabled: target regions run on the host, so the data stays there.
            Place::Device(_) if rt.policy() == Policy::Disabled => Place::Host,
            t => t,
        };
        let mut st = r.state.lock();
        if !st.live {
            return Err(invalid(format!(
                "{} was unregistered while it was being migrated",
                info::ptr(p)
            )));
        }
        migrate_locked(rt, start, r.len, &mut st, to)
    }

    /// Migrates the range containing `p` home and stops tracking it (`p` must be its start).
    pub fn unregister(&self, rt: &Runtime, p: usize) -> Result<()> {
        let (start, r) = self.find_or_err(p)?;
        if start != p {
            return Err(invalid(format!(
                "{} is inside the registered range [{}, +{}), not its start",
                info::ptr(p),
                info::ptr(start),
                r.len
            )));
        }
        let mut st = r.state.lock();
        if !st.live {
            return Err(invalid(format!(
                "{} was unregistered twice at once",
                info::ptr(p)
            )));
        }
        migrate_locked(rt, start, r.len, &mut st, Place::Host)?;
        st.live = false;
        let mut ranges = self.ranges.lock();
        if ranges.get(&start).is_some_and(|x| Arc::ptr_eq(x, &r)) {
            ranges.remove(&start);
        }
        Ok(())
    }
}

/// Moves a range whose state the caller holds locked.
fn migrate_locked(
    rt: &Runtime,
    start: usize,
    len: usize,
    st: &mut RangeState,
    to: Place,
) -> Result<()> {
    if st.place == to {
        return Ok(());
    }
    // The calling task's `target nowait` work on the data reaches its device first.
    kmp::taskwait();
    move_range(rt, start, len, st.place, to)?;
    if rt.config.info_placement {
        info::spread_line(&format!(
            "placement: [{}, +{len}) {} -> {}",
            info::ptr(start),
            describe(st.place),
            describe(to)
        ));
    }
    st.place = to;
    Ok(())
}

fn describe(p: Place) -> String {
    match p {
        Place::Host => "host".into(),
        Place::Device(d) => format!("device {d}"),
    }
}

/// Moves `[p, p+len)` from `from` to `to` (different places) through the mapping tables.
fn move_range(rt: &Runtime, p: usize, len: usize, from: Place, to: Place) -> Result<()> {
    let slot = |d: usize| rt.device(d as i64);
    match (from, to) {
        (Place::Host, Place::Device(d)) => {
            slot(d)?.data_begin(rt, &mut one_entry(p, len, map::TO | map::ALWAYS))
        }
        (Place::Device(e), Place::Host) => {
            slot(e)?.data_end(rt, &one_entry(p, len, map::FROM | map::ALWAYS))
        }
        (Place::Device(e), Place::Device(d)) => {
            let (src_slot, dst_slot) = (slot(e)?, slot(d)?);
            dst_slot.data_begin(rt, &mut one_entry(p, len, 0))?;
            let copied = match (target_on(src_slot, p, len), target_on(dst_slot, p, len)) {
                (Some(src), Some(dst)) if src == dst => Ok(()),
                (Some(src), Some(dst)) => src_slot.copy_to_peer(dst_slot, dst, src, len),
                (None, _) => Err(invalid(format!(
                    "the data of [{}, +{len}) is no longer mapped on device {e}, where its placement is",
                    info::ptr(p)
                ))),
                (_, None) => Err(invalid(format!(
                    "[{}, +{len}) could not be mapped on device {d}",
                    info::ptr(p)
                ))),
            };
            if let Err(err) = copied {
                // Take back the allocation on d: the data stays on e.
                let _ = dst_slot.data_end(rt, &one_entry(p, len, 0));
                return Err(err);
            }
            src_slot.data_end(rt, &one_entry(p, len, 0))
        }
        _ => Ok(()),
    }
}

/// The process's registry (the C ABI's).
pub fn global() -> &'static Registry {
    static REGISTRY: std::sync::OnceLock<Registry> = std::sync::OnceLock::new();
    REGISTRY.get_or_init(Registry::new)
}

/// The placement value of `place` (`omp_get_data_placement`): a device number, or the host's
/// `omp_get_initial_device()`.
pub fn value(rt: &Runtime, place: Place) -> i32 {
    match place {
        Place::Host => i32::try_from(rt.initial_device()).unwrap_or(i32::MAX),
        Place::Device(d) => i32::try_from(d).unwrap_or(i32::MAX),
    }
}

/// The place a device argument names: `0..num_devices`, or the host as
/// `omp_get_initial_device()` or `omp_initial_device` (-1); `None` for anything else.
pub fn place_of(rt: &Runtime, dev: i32) -> Option<Place> {
    if dev == -1 || i64::from(dev) == rt.initial_device() {
        Some(Place::Host)
    } else {
        usize::try_from(dev)
            .ok()
            .filter(|&d| d < rt.num_devices())
            .map(Place::Device)
    }
}

#[cfg(test)]
mod tests;
