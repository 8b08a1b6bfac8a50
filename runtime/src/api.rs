//! The OpenMP device-memory routines (`omp_target_*`), in safe Rust over addresses. The C ABI
//! layer converts arguments and applies libomptarget's checks on null pointers and sizes.

use crate::device::AllocKind;
use crate::error::{Error, ErrorKind, Result};
use crate::ompt;
use crate::runtime::mapping::table::{Entry, INF};
use crate::runtime::{DeviceSlot, Runtime};
use crate::sys::{access, mem};

/// Where one side of a copy lives.
#[derive(Clone, Copy)]
pub enum Side<'a> {
    /// Host memory: the initial device (`omp_get_initial_device()`).
    Host,
    /// Memory of this offload device.
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
    match (d, s) {
        (Side::Host, Side::Host) => access::transfer(dst, src, len),
        (Side::Device(dd), Side::Host) => {
            let t = transfer(dst, src, len, d, s);
            ompt::transfer(ompt::Op::ToDevice, t, || -> Result<()> {
                let mut st = dd.stream()?;
                dd.dev.copy_to_device(dst, src, len, &mut st)?;
                dd.dev.synchronize(&mut st)
            })?;
        }
        (Side::Host, Side::Device(sd)) => {
            let t = transfer(dst, src, len, d, s);
            ompt::transfer(ompt::Op::FromDevice, t, || -> Result<()> {
                let mut st = sd.stream()?;
                sd.dev.copy_from_device(dst, src, len, &mut st)?;
                sd.dev.synchronize(&mut st)
            })?;
        }
        // Within one device, between peers, or staged through the host: the device layer's
        // choice (see `DeviceSlot::copy_to_peer`, which reports it to the tool).
        (Side::Device(dd), Side::Device(sd)) => sd.copy_to_peer(dd, dst, src, len)?,
    }
    Ok(())
}

/// A copy as the program's OMPT tool sees it.
fn transfer(dst: usize, src: usize, len: usize, d: Side<'_>, s: Side<'_>) -> ompt::Transfer {
    let id = |side: Side<'_>| match side {
        Side::Host => None,
        Side::Device(slot) => Some(slot.id),
    };
    ompt::Transfer {
        src,
        src_device: id(s),
        dst,
        dst_device: id(d),
        bytes: len,
    }
}

/// `llvm_omp_target_lock_mem`: page-locks `len` bytes of host memory at `ptr` for copies to and
/// from the device (through the device layer, which may have no use for it) and returns the
/// address the device uses for the memory: `ptr` itself.
pub fn lock_mem(side: Side<'_>, ptr: usize, len: usize) -> Result<usize> {
    if let Side::Device(d) = side {
        crate::device::pinned::pin(&*d.dev, ptr, len)
            .map_err(|e| e.context(format!("cannot lock {len} bytes of host memory")))?;
    }
    Ok(ptr)
}

/// `llvm_omp_target_unlock_mem`: undoes [`lock_mem`].
pub fn unlock_mem(side: Side<'_>, ptr: usize) -> Result<()> {
    match side {
        Side::Device(d) => crate::device::pinned::unpin(&*d.dev, ptr).map(drop),
        Side::Host => Ok(()),
    }
}

/// A rectangular sub-volume copy (`omp_target_memcpy_rect`), dimensions outermost first.
#[derive(Debug, Clone)]
pub struct Rect {
    /// `element_size`: bytes per element.
    pub elem: usize,
    /// `volume`: elements to copy in each dimension; its length is the number of dimensions.
    pub volume: Vec<usize>,
    /// `dst_offsets`: first element of the sub-volume in the destination, per dimension.
    pub dst_offsets: Vec<usize>,
    /// `src_offsets`: first element of the sub-volume in the source, per dimension.
    pub src_offsets: Vec<usize>,
    /// `dst_dimensions`: extent of the whole destination array in elements, per dimension.
    pub dst_dims: Vec<usize>,
    /// `src_dimensions`: extent of the whole source array in elements, per dimension.
    pub src_dims: Vec<usize>,
}

/// `omp_target_memcpy_rect`: copies the rectangle `rect` from `src` on side `s` to `dst` on side
/// `d`. Both extents are checked first, so that a refused copy copies nothing.
pub fn memcpy_rect(dst: usize, src: usize, rect: &Rect, d: Side<'_>, s: Side<'_>) -> Result<()> {
    let pieces = rect.pieces()?;
    let extent = |f: fn(&(usize, usize, usize)) -> usize| {
        let lo = pieces.iter().map(f).min().unwrap_or(0);
        let hi = pieces
            .iter()
            .map(|p| f(p).saturating_add(p.2))
            .max()
            .unwrap_or(0);
        (lo, hi.saturating_sub(lo))
    };
    let (dlo, dlen) = extent(|p| p.0);
    let (slo, slen) = extent(|p| p.1);
    check_side(d, dst.wrapping_add(dlo), dlen, "destination")?;
    check_side(s, src.wrapping_add(slo), slen, "source")?;
    for (doff, soff, len) in pieces {
        if len > 0 {
            memcpy(dst + doff, src + soff, len, d, s)?;
        }
    }
    Ok(())
}

impl Rect {
    /// The contiguous copies `(dst offset, src offset, bytes)` the rectangle consists of; an
    /// error when an offset or the number of copies does not fit the address space (sizes no
    /// real array has, which unchecked would address memory far outside both arrays).
    pub fn pieces(&self) -> Result<Vec<(usize, usize, usize)>> {
        let n = self.volume.len();
        let too_big = || {
            Error::new(
                ErrorKind::Invalid,
                "the rectangle's volume, offsets and dimensions address more memory than exists",
            )
        };
        let outer = self.volume[..n.saturating_sub(1)]
            .iter()
            .try_fold(1usize, |acc, &v| acc.checked_mul(v))
            .ok_or_else(too_big)?;
        // Each dimension's slice in bytes; also bounds every offset computed below.
        let slices = |dims: &[usize]| -> Option<Vec<usize>> {
            (0..n)
                .map(|d| {
                    dims[d + 1..]
                        .iter()
                        .try_fold(self.elem, |acc, &x| acc.checked_mul(x))
                })
                .collect()
        };
        let dslices = slices(&self.dst_dims).ok_or_else(too_big)?;
        let sslices = slices(&self.src_dims).ok_or_else(too_big)?;
        let row = self
            .elem
            .checked_mul(self.volume[n - 1])
            .ok_or_else(too_big)?;
        let mut out = Vec::new();
        out.try_reserve(outer).map_err(|_| too_big())?;
        // The index of the current row, innermost outer dimension fastest.
        let mut index = vec![0usize; n];
        for _ in 0..outer {
            let offset = |slices: &[usize], offsets: &[usize]| -> Option<usize> {
                (0..n).try_fold(0usize, |acc, d| {
                    let i = offsets[d].checked_add(index[d])?;
                    acc.checked_add(slices[d].checked_mul(i)?)
                })
            };
            let dst = offset(&dslices, &self.dst_offsets).ok_or_else(too_big)?;
            let src = offset(&sslices, &self.src_offsets).ok_or_else(too_big)?;
            dst.checked_add(row).ok_or_else(too_big)?;
            src.checked_add(row).ok_or_else(too_big)?;
            out.push((dst, src, row));
            for d in (0..n.saturating_sub(1)).rev() {
                index[d] += 1;
                if index[d] < self.volume[d] {
                    break;
                }
                index[d] = 0;
            }
        }
        Ok(out)
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
    let t = ompt::Transfer::host_to_device(slot.id, host, tgt, size);
    ompt::transfer(ompt::Op::Associate, t, || {
        table.insert(Entry::permanent(host, size, tgt));
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
    let t = ompt::Transfer::host_to_device(slot.id, host, 0, 0);
    ompt::transfer(ompt::Op::Disassociate, t, || table.remove(host));
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
            r.pieces().expect("fits"),
            vec![(0, (5 + 2) * 8, 24), (24, (10 + 2) * 8, 24)]
        );
    }

    #[test]
    fn rect_pieces_of_three_dimensions_in_order() {
        // A 2x2x2 block at (1,1,1) of a 3x3x3 source into a 2x2x2 destination, 1-byte elements.
        let r = Rect {
            elem: 1,
            volume: vec![2, 2, 2],
            dst_offsets: vec![0, 0, 0],
            src_offsets: vec![1, 1, 1],
            dst_dims: vec![2, 2, 2],
            src_dims: vec![3, 3, 3],
        };
        let src = |i: usize, j: usize| 9 * i + 3 * j + 1;
        assert_eq!(
            r.pieces().expect("fits"),
            vec![
                (0, src(1, 1), 2),
                (2, src(1, 2), 2),
                (4, src(2, 1), 2),
                (6, src(2, 2), 2)
            ]
        );
    }

    #[test]
    fn rect_pieces_refuse_sizes_beyond_the_address_space() {
        let r = |volume: Vec<usize>, offsets: Vec<usize>, dims: Vec<usize>| Rect {
            elem: 8,
            volume,
            dst_offsets: offsets.clone(),
            src_offsets: vec![0; offsets.len()],
            dst_dims: dims.clone(),
            src_dims: dims,
        };
        // An offset whose byte position overflows.
        assert!(r(vec![1, 1], vec![usize::MAX / 4, 0], vec![4, 4])
            .pieces()
            .is_err());
        // Dimensions whose slice overflows.
        assert!(r(vec![1, 1, 1], vec![0; 3], vec![1, usize::MAX / 2, 4])
            .pieces()
            .is_err());
        // More rows than can be listed.
        assert!(
            r(vec![usize::MAX, 2, 1], vec![0; 3], vec![usize::MAX, 2, 1])
                .pieces()
                .is_err()
        );
        // A row longer than the address space.
        assert!(r(vec![usize::MAX], vec![0], vec![usize::MAX])
            .pieces()
            .is_err());
    }
}
