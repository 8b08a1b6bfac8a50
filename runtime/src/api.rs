//! The OpenMP device-memory routines (`omp_target_*`), in safe Rust over addresses. The C ABI
//! layer converts arguments and applies libomptarget's checks on null pointers and sizes.

use crate::device::{AllocKind, Stream};
use crate::error::{Error, ErrorKind, Result};
use crate::ffi::{access, mem};
use crate::mapping::{Entry, INF};
use crate::runtime::{DeviceSlot, Runtime};

/// Where one side of a copy lives.
#[derive(Clone, Copy)]
pub enum Side<'a> {
    Host,
    Device(&'a DeviceSlot),
}

/// Resolves an API device number: the initial device is the host; others must exist.
pub fn side(rt: &Runtime, device: i64) -> Result<Side<'_>> {
    if device == rt.initial_device() {
        return Ok(Side::Host);
    }
    Ok(Side::Device(rt.device(device)?))
}

/// Refuses a copy whose device side runs past the end of an allocation `omp_target_alloc` made
/// there.
pub fn check_copy(dst: usize, src: usize, len: usize, d: Side<'_>, s: Side<'_>) -> Result<()> {
    check_side(d, dst, len, "destination")?;
    check_side(s, src, len, "source")
}

/// Refuses `[addr, addr+len)` on `side` (the copy's `what`) when it runs past the end of an
/// allocation `omp_target_alloc` made there.
pub fn check_side(side: Side<'_>, addr: usize, len: usize, what: &str) -> Result<()> {
    match side {
        Side::Device(slot) => slot
            .api_check_range(addr, len)
            .map_err(|e| e.context(format!("the {what} of a {len}-byte copy is too small"))),
        Side::Host => Ok(()),
    }
}

/// `omp_target_memcpy` on resolved sides, offsets applied.
///
/// A side on a device must not run past the end of an allocation `omp_target_alloc` made there
/// (see [`check_copy`]).
pub fn memcpy(dst: usize, src: usize, len: usize, d: Side<'_>, s: Side<'_>) -> Result<()> {
    check_copy(dst, src, len, d, s)?;
    let mut st = Stream::default();
    match (d, s) {
        (Side::Host, Side::Host) => access::transfer(dst, src, len),
        (Side::Device(dd), Side::Host) => {
            dd.dev.copy_to_device(dst, src, len, &mut st)?;
            dd.dev.synchronize(&mut st)?;
        }
        (Side::Host, Side::Device(sd)) => {
            sd.dev.copy_from_device(dst, src, len, &mut st)?;
            sd.dev.synchronize(&mut st)?;
        }
        (Side::Device(dd), Side::Device(sd)) if dd.id == sd.id => {
            dd.dev.copy_within(dst, src, len, &mut st)?;
            dd.dev.synchronize(&mut st)?;
        }
        (Side::Device(dd), Side::Device(sd)) => {
            if dd.dev.host_addressable() && sd.dev.host_addressable() {
                // Both memories are process memory: one direct copy, no staging.
                access::transfer(dst, src, len);
            } else {
                let mut buf = vec![0u8; len];
                let tmp = buf.as_mut_ptr() as usize;
                sd.dev.copy_from_device(tmp, src, len, &mut st)?;
                sd.dev.synchronize(&mut st)?;
                dd.dev.copy_to_device(dst, tmp, len, &mut st)?;
                dd.dev.synchronize(&mut st)?;
                drop(buf);
            }
        }
    }
    Ok(())
}

/// A rectangular sub-volume copy (`omp_target_memcpy_rect`), dimensions outermost first.
#[derive(Debug, Clone)]
pub struct Rect {
    pub elem: usize,
    pub volume: Vec<usize>,
    pub dst_offsets: Vec<usize>,
    pub src_offsets: Vec<usize>,
    pub dst_dims: Vec<usize>,
    pub src_dims: Vec<usize>,
}

impl Rect {
    /// The contiguous copies `(dst offset, src offset, bytes)` the rectangle consists of.
    pub fn pieces(&self) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        self.walk(0, 0, 0, &mut out);
        out
    }

    fn walk(&self, d: usize, dst: usize, src: usize, out: &mut Vec<(usize, usize, usize)>) {
        let n = self.volume.len();
        if d + 1 == n {
            out.push((
                dst + self.elem * self.dst_offsets[d],
                src + self.elem * self.src_offsets[d],
                self.elem * self.volume[d],
            ));
            return;
        }
        let dslice: usize = self.elem * self.dst_dims[d + 1..].iter().product::<usize>();
        let sslice: usize = self.elem * self.src_dims[d + 1..].iter().product::<usize>();
        for i in 0..self.volume[d] {
            self.walk(
                d + 1,
                dst + dslice * (self.dst_offsets[d] + i),
                src + sslice * (self.src_offsets[d] + i),
                out,
            );
        }
    }
}

/// `omp_target_associate_ptr` on a device.
pub fn associate(slot: &DeviceSlot, host: usize, tgt: usize, size: usize) -> Result<()> {
    let mut table = slot.table.lock();
    if let Some(e) = table.get(host) {
        if e.host_end == host + size && e.target_begin == tgt {
            return Ok(());
        }
        return Err(Error::new(
            ErrorKind::Mapping,
            "Not allowed to re-associate a different device ptr+offset with the same host ptr",
        ));
    }
    table.insert(Entry {
        host_base: host,
        host_begin: host,
        host_end: host + size,
        target_alloc: tgt,
        target_begin: tgt,
        dyn_refs: INF,
        hold_refs: 0,
        name: 0,
        owns_memory: false,
        shadows: Vec::new(),
    });
    Ok(())
}

/// `omp_target_disassociate_ptr` on a device.
pub fn disassociate(slot: &DeviceSlot, host: usize) -> Result<()> {
    let mut table = slot.table.lock();
    let Some(e) = table.get(host) else {
        return Err(Error::new(ErrorKind::Mapping, "Association not found"));
    };
    if e.hold_refs != 0 {
        return Err(Error::new(
            ErrorKind::Mapping,
            "Trying to disassociate a pointer with a non-zero hold reference count",
        ));
    }
    if e.dyn_refs != INF {
        return Err(Error::new(
            ErrorKind::Mapping,
            "Trying to disassociate a pointer which was not mapped via omp_target_associate_ptr",
        ));
    }
    table.remove(host);
    Ok(())
}

/// The device address of host `ptr` if it is mapped (`omp_get_mapped_ptr`, `is_present`).
pub fn mapped(slot: &DeviceSlot, ptr: usize) -> Option<usize> {
    let table = slot.table.lock();
    match table.find_contained(ptr, 1) {
        Some(e) => {
            let t = e.target_of(ptr);
            crate::info!(
                crate::info::bits::MAPPING_EXISTS,
                slot.id,
                "Mapping exists with HstPtrBegin={}, TgtPtrBegin={}, Size=1, DynRefCount={} (update suppressed), HoldRefCount={}",
                crate::info::ptr(ptr),
                crate::info::ptr(t),
                Entry::fmt_refs(e.dyn_refs),
                Entry::fmt_refs(e.hold_refs)
            );
            Some(t)
        }
        // Under unified shared memory an unmapped address is used in place, but it is not
        // "present": libomptarget answers the same.
        None => None,
    }
}

/// `omp_target_alloc` & co.: host memory for the initial device, device memory otherwise.
pub fn alloc(rt: &Runtime, size: usize, device: i64, kind: AllocKind) -> Result<usize> {
    match side(rt, device)? {
        Side::Host => mem::alloc(size).ok_or_else(|| {
            Error::new(
                ErrorKind::OutOfMemory,
                format!("cannot allocate {size} bytes of host memory"),
            )
        }),
        Side::Device(d) => d.api_alloc(size, kind),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_pieces_cover_the_subvolume() {
        // A 2x3 block at (1,2) of a 4x5 source into a 2x3 destination at (0,0), 8-byte elements.
        let r = Rect {
            elem: 8,
            volume: vec![2, 3],
            dst_offsets: vec![0, 0],
            src_offsets: vec![1, 2],
            dst_dims: vec![2, 3],
            src_dims: vec![4, 5],
        };
        assert_eq!(
            r.pieces(),
            vec![(0, (5 + 2) * 8, 24), (24, (10 + 2) * 8, 24)]
        );
    }
}
