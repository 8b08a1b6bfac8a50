//! Distributed residency: data that `target data` / `target enter data` keep on "the device"
//! while `SPREAD_AUTO` spreads the kernels that use it.
//!
//! Under `SPREAD_AUTO`, a data construct without a `device` clause does not copy its arrays to
//! the default device. Each becomes a resident object that records, per byte range, where its
//! current value is: on the host, on one or more devices. A device gets a copy of the object
//! (memory of its size, entered in its mapping table so kernels find it present) the first time
//! a kernel runs there, and only the bytes the kernel's block reads are brought to it: from the
//! host, or from the device that last wrote them. What a block writes is current on its device
//! only. `target update from`, the release of the last reference with `from`, and kernels that
//! cannot be spread (they run on one device, which first gathers what they map) bring the
//! current bytes where they are needed. So halos move between devices and nothing else does.
//! Arrays mapped without `to` (`from`, `alloc`) start undefined, as device memory does under
//! libomptarget: nothing is copied for them until a kernel or the host writes them.
//!
//! The object's state is decided under one lock; copies run outside it (blocks of one launch
//! read nothing another block of it writes, or the program has a race).

use super::ranges::Ranges;
use crate::abi::map;
use crate::error::{Error, ErrorKind, Result};
use crate::runtime::mapping::table::Entry as TableEntry;
use crate::runtime::mapping::MapArgs;
use crate::runtime::{DeviceSlot, Runtime};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// A device's copy of an object.
struct Copy {
    /// Device address of the object's first byte.
    buf: usize,
    /// Host byte ranges whose current value this copy holds.
    valid: Ranges,
}

/// Bytes an object moved, for `SPREAD_INFO=auto`.
#[derive(Default, Clone, Copy)]
struct Traffic {
    to_devices: usize,
    to_host: usize,
    between_devices: usize,
}

/// One array kept resident by data constructs.
struct Object {
    end: usize,
    /// `enter data` / `target data` references (libomptarget's dynamic reference count).
    refs: u64,
    /// Ranges whose current value the host holds.
    host: Ranges,
    /// Ranges nothing has written since a construct without `to` created them (`map(from:)`,
    /// `map(alloc:)`): libomptarget leaves device memory uninitialized there, so no copy brings
    /// the host's bytes to a device, nor a device's to the host, until something writes them.
    undefined: Ranges,
    /// Copies by device number.
    copies: BTreeMap<usize, Copy>,
    moved: Traffic,
}

/// The resident objects, by host begin address.
fn objects() -> &'static Mutex<BTreeMap<usize, Object>> {
    static O: OnceLock<Mutex<BTreeMap<usize, Object>>> = OnceLock::new();
    O.get_or_init(Default::default)
}

/// The object holding `[begin, begin + size)`, if one holds it entirely.
fn holder(objs: &BTreeMap<usize, Object>, begin: usize, size: usize) -> Option<usize> {
    let (&key, o) = objs.range(..=begin).next_back()?;
    (begin.saturating_add(size) <= o.end && begin < o.end).then_some(key)
}

/// Whether any resident object overlaps `[begin, begin + size)`.
fn overlaps(objs: &BTreeMap<usize, Object>, begin: usize, size: usize) -> bool {
    let end = begin.saturating_add(size);
    objs.range(..end)
        .next_back()
        .is_some_and(|(_, o)| o.end > begin)
}

/// The host bytes of each entry of a launch that lies in a resident object (`None` for the
/// others): its section, or the whole object for a zero-length map of a pointer into one (the
/// kernel may touch any of it).
pub fn resident_sections(args: &MapArgs) -> Vec<Option<(usize, usize)>> {
    let objs = objects().lock();
    if objs.is_empty() {
        return vec![None; args.len()];
    }
    (0..args.len())
        .map(|i| {
            if args.types[i] & (map::LITERAL | map::PRIVATE) != 0 || args.sizes[i] < 0 {
                return None;
            }
            let (b, s) = (args.begins[i], args.sizes[i] as usize);
            let k = holder(&objs, b, s.max(1))?;
            if s == 0 {
                objs.get(&k).map(|o| (k, o.end))
            } else {
                Some((b, b + s))
            }
        })
        .collect()
}

/// The kind of data construct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataKind {
    /// `target data` begin, `target enter data`.
    Begin,
    /// `target data` end, `target exit data`.
    End,
    /// `target update`.
    Update,
}

/// A data construct under `SPREAD_AUTO`: `None` when it is not one for resident objects (it
/// names a device, maps something other than plain array sections, or mixes resident and
/// other data), so the caller runs it as usual.
pub fn data(rt: &Runtime, kind: DataKind, device: i64, args: &MapArgs) -> Option<Result<()>> {
    if args.is_empty() {
        return None;
    }
    let all_plain = (0..args.len()).all(|i| args.is_plain_section(i));
    // End and update concern resident data when every entry lies in an object.
    let all_held = || {
        let objs = objects().lock();
        (0..args.len()).all(|i| {
            args.sizes[i] > 0 && holder(&objs, args.begins[i], args.sizes[i] as usize).is_some()
        })
    };
    match kind {
        DataKind::Begin => {
            if device != -1 || !all_plain {
                return None;
            }
            let mut objs = objects().lock();
            // All or nothing: an entry overlapping an object without lying in it stays normal.
            for i in 0..args.len() {
                let (b, s) = (args.begins[i], args.sizes[i] as usize);
                if holder(&objs, b, s).is_none() && overlaps(&objs, b, s) {
                    return None;
                }
            }
            let mut refreshed = Vec::new();
            for i in 0..args.len() {
                let (b, s, t) = (args.begins[i], args.sizes[i] as usize, args.types[i]);
                match holder(&objs, b, s) {
                    Some(k) => {
                        let o = objs.get_mut(&k)?;
                        o.refs += 1;
                        if t & map::ALWAYS != 0 && t & map::TO != 0 {
                            refreshed.push((b, b + s));
                        }
                    }
                    None => {
                        let (host, undefined) = if t & map::TO != 0 {
                            (Ranges::of(b, b + s), Ranges::new())
                        } else {
                            (Ranges::new(), Ranges::of(b, b + s))
                        };
                        objs.insert(
                            b,
                            Object {
                                end: b + s,
                                refs: 1,
                                host,
                                undefined,
                                copies: BTreeMap::new(),
                                moved: Traffic::default(),
                            },
                        );
                    }
                }
            }
            for (lo, hi) in refreshed {
                host_wrote(&mut objs, lo, hi);
            }
            Some(Ok(()))
        }
        DataKind::End => {
            if !all_held() {
                return None;
            }
            Some(end(rt, args))
        }
        DataKind::Update => {
            if !all_held() {
                return None;
            }
            for i in 0..args.len() {
                let (b, t) = (args.begins[i], args.types[i]);
                let e = b + args.sizes[i] as usize;
                if t & map::TO != 0 {
                    host_wrote(&mut objects().lock(), b, e);
                }
                if t & map::FROM != 0 {
                    if let Err(e) = gather(rt, b, e) {
                        return Some(Err(e));
                    }
                }
            }
            Some(Ok(()))
        }
    }
}

/// The host wrote `[lo, hi)` (`target update to`, `map(always, to:)`): devices' copies of it are
/// stale.
fn host_wrote(objs: &mut BTreeMap<usize, Object>, lo: usize, hi: usize) {
    if let Some(k) = holder(objs, lo, hi - lo) {
        if let Some(o) = objs.get_mut(&k) {
            o.host.add(lo, hi);
            o.undefined.remove(lo, hi);
            for c in o.copies.values_mut() {
                c.valid.remove(lo, hi);
            }
        }
    }
}

fn end(rt: &Runtime, args: &MapArgs) -> Result<()> {
    let mut released = Vec::new();
    for i in 0..args.len() {
        let (b, t) = (args.begins[i], args.types[i]);
        let e = b + args.sizes[i] as usize;
        let (key, last) = {
            let objs = objects().lock();
            let Some(k) = holder(&objs, b, e - b) else {
                continue;
            };
            let refs = objs.get(&k).map_or(0, |o| o.refs);
            (k, t & map::DELETE != 0 || refs <= 1)
        };
        if t & map::FROM != 0 && (last || t & map::ALWAYS != 0) {
            gather(rt, b, e)?;
        }
        let mut objs = objects().lock();
        if let Some(o) = objs.get_mut(&key) {
            o.refs = if t & map::DELETE != 0 {
                0
            } else {
                o.refs.saturating_sub(1)
            };
            if o.refs == 0 {
                if let Some(o) = objs.remove(&key) {
                    released.push((key, o));
                }
            }
        }
    }
    for (key, o) in released {
        if rt.config.info_auto {
            let size = o.end - key;
            eprintln!(
                "spread: auto: resident {size} bytes at {key:#x} released: moved {} to devices, {} between devices, {} to the host ({} devices held a copy; copying the whole array to each and back would move {})",
                o.moved.to_devices,
                o.moved.between_devices,
                o.moved.to_host,
                o.copies.len(),
                2 * size * o.copies.len().max(1)
            );
        }
        for (d, c) in o.copies {
            let slot = rt.device(d as i64)?;
            slot.table.lock().remove(key);
            slot.free_data(c.buf)?;
        }
    }
    Ok(())
}

/// Brings the current value of `[lo, hi)` to the host.
fn gather(rt: &Runtime, lo: usize, hi: usize) -> Result<()> {
    let (key, plan) = {
        let objs = objects().lock();
        let Some(k) = holder(&objs, lo, hi - lo) else {
            return Ok(());
        };
        let Some(o) = objs.get(&k) else {
            return Ok(());
        };
        let mut plan = Vec::new();
        let mut need = o.host.missing(lo, hi);
        without(&mut need, &o.undefined);
        for (&d, c) in &o.copies {
            let here = {
                let mut r = Ranges::new();
                for (a, b) in need.iter() {
                    for (x, y) in c.valid.within(a, b).iter() {
                        r.add(x, y);
                    }
                }
                r
            };
            for (a, b) in here.iter() {
                plan.push((d, c.buf + (a - k), a, b - a));
                need.remove(a, b);
            }
        }
        if !need.is_empty() {
            return Err(lost(lo, hi));
        }
        (k, plan)
    };
    let mut bytes = 0;
    for &(d, src, host, len) in &plan {
        let slot = rt.device(d as i64)?;
        let mut s = slot.stream()?;
        slot.dev.copy_from_device(host, src, len, &mut s)?;
        slot.dev.synchronize(&mut s)?;
        bytes += len;
    }
    let mut objs = objects().lock();
    if let Some(o) = objs.get_mut(&key) {
        o.host.add(lo, hi);
        o.moved.to_host += bytes;
    }
    Ok(())
}

/// Removes from `need` the bytes of `undefined`, which no copy has to bring anywhere.
fn without(need: &mut Ranges, undefined: &Ranges) {
    for (a, b) in undefined.iter() {
        need.remove(a, b);
    }
}

fn lost(lo: usize, hi: usize) -> Error {
    Error::new(
        ErrorKind::Mapping,
        format!("resident data [{lo:#x}, {hi:#x}) has no current copy anywhere (a Spread bug)"),
    )
}

/// Makes `[lo, hi)` current on `slot` before a kernel reads it there: the object's copy on the
/// device is created (and entered in its mapping table) on first use, and the stale bytes are
/// brought from the host or from the device that holds them. Returns the bytes brought from
/// other devices.
pub fn fetch(rt: &Runtime, slot: &DeviceSlot, lo: usize, hi: usize) -> Result<usize> {
    let d = slot.id;
    // The copy, created under the lock so that two blocks on one device make one.
    let (key, buf, plan) = {
        let mut objs = objects().lock();
        let Some(k) = holder(&objs, lo, hi - lo) else {
            return Ok(0);
        };
        let Some(o) = objs.get_mut(&k) else {
            return Ok(0);
        };
        if !o.copies.contains_key(&d) {
            let size = o.end - k;
            let buf = slot.alloc_data(size)?;
            let mut table = slot.table.lock();
            if table.lookup(k, size).entry.is_some() {
                drop(table);
                let _ = slot.free_data(buf);
                return Err(Error::new(
                    ErrorKind::Mapping,
                    format!(
                        "resident data at {k:#x} ({size} bytes) is also mapped on device {d} by a construct that names the device"
                    ),
                ));
            }
            table.insert(TableEntry::permanent(k, size, buf));
            o.copies.insert(
                d,
                Copy {
                    buf,
                    valid: Ranges::new(),
                },
            );
        }
        let buf = o.copies.get(&d).map_or(0, |c| c.buf);
        let mut need = o
            .copies
            .get(&d)
            .map_or_else(|| Ranges::of(lo, hi), |c| c.valid.missing(lo, hi));
        without(&mut need, &o.undefined);
        let mut plan = Vec::new();
        // From the host first (one copy), else from a device that holds the bytes.
        for (a, b) in o.host.clone().iter() {
            for (x, y) in need.clone().within(a, b).iter() {
                plan.push((None, x, y - x));
                need.remove(x, y);
            }
        }
        for (&e, c) in &o.copies {
            if e == d {
                continue;
            }
            for (a, b) in c.valid.iter() {
                for (x, y) in need.clone().within(a, b).iter() {
                    plan.push((Some((e, c.buf)), x, y - x));
                    need.remove(x, y);
                }
            }
        }
        if !need.is_empty() {
            return Err(lost(lo, hi));
        }
        (k, buf, plan)
    };
    let (mut up, mut peer) = (0, 0);
    for &(from, host, len) in &plan {
        let dst = buf + (host - key);
        match from {
            None => {
                let mut s = slot.stream()?;
                slot.dev.copy_to_device(dst, host, len, &mut s)?;
                slot.dev.synchronize(&mut s)?;
                up += len;
            }
            Some((e, ebuf)) => {
                let src = rt.device(e as i64)?;
                src.copy_to_peer(slot, dst, ebuf + (host - key), len)?;
                peer += len;
            }
        }
    }
    let mut objs = objects().lock();
    if let Some(o) = objs.get_mut(&key) {
        if let Some(c) = o.copies.get_mut(&d) {
            c.valid.add(lo, hi);
        }
        o.moved.to_devices += up;
        o.moved.between_devices += peer;
    }
    Ok(peer)
}

/// A kernel on device `d` wrote `[lo, hi)`: its current value is there only.
pub fn wrote(d: usize, lo: usize, hi: usize) {
    let mut objs = objects().lock();
    let Some(k) = holder(&objs, lo, hi - lo) else {
        return;
    };
    let Some(o) = objs.get_mut(&k) else {
        return;
    };
    o.host.remove(lo, hi);
    o.undefined.remove(lo, hi);
    for (&e, c) in o.copies.iter_mut() {
        if e == d {
            c.valid.add(lo, hi);
        } else {
            c.valid.remove(lo, hi);
        }
    }
}
