//! A kernel's parameter list (libomptarget's `processDataBefore`): each `TARGET_PARAM` entry's
//! device address as the mapping decided it, literals, firstprivate copies in device memory, and
//! lambda captures pointed at the device copies of what they captured. Built under the device's
//! table lock, right after the construct's data begin.

use super::table::{Entry, MappingTable};
use super::{Ctx, MapArgs, MapTarget};
use crate::abi::map;
use crate::device::AllocKind;
use crate::error::Result;
use crate::info::{self, bits};

/// The kernel's parameters (libomptarget's `processDataBefore` after data begin).
pub fn kernel_params<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &MappingTable,
    args: &MapArgs,
    privates: &mut Vec<usize>,
) -> Result<Vec<usize>> {
    let n = args.len();
    let mut params = Vec::with_capacity(n);
    let mut positions = vec![usize::MAX; n];
    for i in 0..n {
        let ty = args.types[i];
        let begin = args.begins[i];
        let base = args.bases[i];
        if ty & map::TARGET_PARAM == 0 {
            if map::is_lambda_capture(ty) {
                patch_lambda_capture(cx, table, args, i, &positions, &params)?;
            }
            continue;
        }
        let param = if ty & map::LITERAL != 0 {
            base
        } else if ty & map::PRIVATE != 0 {
            let size = usize::try_from(args.sizes[i]).unwrap_or(0);
            let buf = if size == 0 {
                0
            } else {
                cx.target.device().alloc(size, AllocKind::Device)?
            };
            if buf != 0 {
                privates.push(buf);
                if ty & map::TO != 0 {
                    // The value lives in the target task's private data, which libomp frees
                    // when the task completes, possibly before the device copies it: copied
                    // now into memory the stream owns.
                    let src = cx.stream.stage_from(begin, size);
                    cx.target
                        .device()
                        .copy_to_device(buf, src, size, &mut cx.stream)?;
                }
            }
            buf.wrapping_add(base.wrapping_sub(begin))
        } else {
            let base = if ty & map::PTR_AND_OBJ != 0 {
                crate::sys::access::attach_pointer(base)
            } else {
                base
            };
            let size = usize::try_from(args.sizes[i]).unwrap_or(0);
            let l = table.lookup(begin, size);
            // Not mapped: the pointer keeps its host value (firstprivate semantics, OpenMP 5.2).
            let tgt = match l
                .entry
                .filter(|_| l.is_present(false))
                .and_then(|k| table.get(k))
            {
                Some(e) => {
                    let t = e.target_of(begin);
                    crate::info!(
                        bits::MAPPING_EXISTS,
                        cx.id(),
                        "Mapping exists with HstPtrBegin={}, TgtPtrBegin={}, Size={}, DynRefCount={} (update suppressed), HoldRefCount={}",
                        info::ptr(begin),
                        info::ptr(t),
                        size,
                        Entry::fmt_refs(e.dyn_refs),
                        Entry::fmt_refs(e.hold_refs)
                    );
                    t
                }
                None => begin,
            };
            tgt.wrapping_add(base.wrapping_sub(begin))
        };
        positions[i] = params.len();
        params.push(param);
    }
    Ok(params)
}

/// A lambda's captured pointer: its device copy inside the lambda object is made to point at
/// the device copy of what it captured.
fn patch_lambda_capture<T: MapTarget>(
    cx: &mut Ctx<'_, T>,
    table: &MappingTable,
    args: &MapArgs,
    i: usize,
    positions: &[usize],
    params: &[usize],
) -> Result<()> {
    let Some(parent) = map::parent_index(args.types[i]) else {
        return Ok(());
    };
    let Some(&pos) = positions.get(parent) else {
        return Ok(());
    };
    let Some(&tgt_base) = params.get(pos) else {
        return Ok(());
    };
    let host_value = args.begins[i];
    let host_field = args.bases[i];
    let delta = host_field.wrapping_sub(args.begins[parent]);
    let tgt_field = tgt_base.wrapping_add(delta);
    let size = usize::try_from(args.sizes[i]).unwrap_or(0);
    let l = table.lookup(host_value, size);
    let Some(e) = l
        .entry
        .filter(|_| l.is_present(false))
        .and_then(|k| table.get(k))
    else {
        return Ok(()); // nothing mapped for the capture: it keeps its value
    };
    let value = e.target_of(host_value);
    let src = cx.stream.stage(&value.to_ne_bytes());
    cx.target
        .device()
        .copy_to_device(tgt_field, src, 8, &mut cx.stream)
}
