//! Peer copies and device waits (seed 003): `spread_update_peer` / `target update peer` copy
//! mapped data from one device's memory to another's without staging it on the host (host
//! devices copy directly; the generic path in [`api::memcpy`] stages only between devices that
//! cannot address each other), and `spread_device_wait` / `wait device` wait for one device's
//! queue.

use crate::api::{self, Side};
use crate::error::{Error, ErrorKind, Result};
use crate::info;
use crate::memory;
use crate::runtime::Runtime;
use crate::sys::kmp;

/// The address on `side` of the data mapped there for host range `[host, host+len)`.
fn resolve(side: Side<'_>, host: usize, len: usize, role: &str) -> Result<usize> {
    let Side::Device(slot) = side else {
        return Ok(host);
    };
    if memory::accessible(slot.id, host, len) {
        return Ok(host);
    }
    let table = slot.table.lock();
    match table.find_contained(host, len) {
        Some(e) => Ok(e.target_of(host)),
        None => Err(Error::new(
            ErrorKind::Mapping,
            format!(
                "the {role} data at host address {} ({len} bytes) is not mapped on device {}",
                info::ptr(host),
                slot.id
            ),
        )),
    }
}

/// Copies `bytes` of the data mapped for `src` on `src_dev` into the data mapped for `dst` on
/// `dst_dev`, after the work already queued on both devices; returns when the copy is done.
pub fn update_peer(
    rt: &Runtime,
    dst: usize,
    dst_dev: i64,
    src: usize,
    src_dev: i64,
    bytes: usize,
) -> Result<()> {
    let d = api::side(rt, dst_dev)?;
    let s = api::side(rt, src_dev)?;
    if bytes == 0 {
        return Ok(());
    }
    settle_target_tasks();
    let dst_t = resolve(d, dst, bytes, "destination")?;
    let src_t = resolve(s, src, bytes, "source")?;
    for side in [s, d] {
        if let Side::Device(slot) = side {
            rt.drain(slot);
        }
    }
    api::memcpy(dst_t, src_t, bytes, d, s)
}

/// Waits for every job queued on `device` so far; other devices keep working.
pub fn device_wait(rt: &Runtime, device: i64) -> Result<()> {
    if device == rt.initial_device() {
        return Ok(()); // the host has no queue: its work is done when it returns
    }
    let slot = rt.device(device)?;
    settle_target_tasks();
    rt.drain(slot);
    Ok(())
}

/// Makes the calling task's earlier `target ... nowait` constructs reach their device queues.
/// libomp defers each one as a task (run by its hidden helper threads, or by the team), so one
/// issued just before a wait or a peer copy may not have queued its work yet. Seed 003 orders a
/// wait after every operation issued before it; waiting for the calling task's children gives
/// that order (it also waits for their other children, which only costs concurrency).
fn settle_target_tasks() {
    kmp::taskwait();
}
