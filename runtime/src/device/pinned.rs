//! Host memory page-locked through a device, counted per range: by `llvm_omp_target_lock_mem`,
//! and by the mapping of data with `LIBOMPTARGET_LOCK_MAPPED_HOST_BUFFERS` (libomptarget's
//! variable, same meaning). The CUDA driver registers a range once (a second registration of
//! overlapping memory fails) and a single unregistration ends it for everyone, so the runtime
//! keeps one registration per range with a count of its users, as libomptarget's
//! `PinnedAllocationMapTy` does. Memory the program page-locked itself is left to it.

use crate::device::Device;
use crate::error::Result;
use parking_lot::Mutex;
use std::collections::BTreeMap;

/// A range this runtime registered: its end and its users.
struct Range {
    end: usize,
    uses: u32,
}

/// Registered ranges by start address.
#[derive(Default)]
struct Registry(Mutex<BTreeMap<usize, Range>>);

/// Registrations are process-wide (portable over contexts), so is their record.
static PINNED: Registry = Registry(Mutex::new(BTreeMap::new()));

impl Registry {
    /// See [`pin`]; `register` page-locks the range (`Ok(false)`: nothing done).
    fn pin(&self, ptr: usize, len: usize, register: impl FnOnce() -> Result<bool>) -> Result<bool> {
        if len == 0 {
            return Ok(false);
        }
        let end = ptr.saturating_add(len);
        let mut ranges = self.0.lock();
        if let Some(start) = containing(&ranges, ptr) {
            return Ok(match ranges.get_mut(&start).filter(|r| end <= r.end) {
                Some(r) => {
                    r.uses += 1;
                    true
                }
                None => false,
            });
        }
        if ranges.range(ptr..end).next().is_some() {
            return Ok(false);
        }
        // Under the lock: two threads pinning one buffer must not both register it.
        if !register()? {
            return Ok(false);
        }
        ranges.insert(ptr, Range { end, uses: 1 });
        Ok(true)
    }

    /// See [`unpin`]; `unregister` undoes the registration starting at its argument.
    fn unpin(&self, ptr: usize, unregister: impl FnOnce(usize) -> Result<()>) -> Result<bool> {
        let mut ranges = self.0.lock();
        let Some(start) = containing(&ranges, ptr) else {
            return Ok(false);
        };
        let last = ranges.get_mut(&start).is_some_and(|r| {
            r.uses -= 1;
            r.uses == 0
        });
        if last {
            ranges.remove(&start);
            unregister(start)?;
        }
        Ok(true)
    }
}

/// The start of the registered range containing `ptr`, if any.
fn containing(ranges: &BTreeMap<usize, Range>, ptr: usize) -> Option<usize> {
    let (&start, r) = ranges.range(..=ptr).next_back()?;
    (ptr < r.end).then_some(start)
}

/// Page-locks `[ptr, ptr+len)` through `dev`, or counts one more user of a registered range
/// that holds it. `Ok(false)` when nothing was pinned for this call: the backend has no use for
/// it, the memory was page-locked by the program, or it overlaps a registered range without
/// lying inside it (copies from it stay pageable). Every `Ok(true)` needs one [`unpin`].
pub fn pin(dev: &dyn Device, ptr: usize, len: usize) -> Result<bool> {
    PINNED.pin(ptr, len, || dev.pin_host(ptr, len))
}

/// Gives back one use of the registered range containing `ptr` (from [`pin`]); the last one
/// unregisters it. `Ok(false)` when no registered range contains `ptr`.
pub fn unpin(dev: &dyn Device, ptr: usize) -> Result<bool> {
    PINNED.unpin(ptr, |start| dev.unpin_host(start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn one_registration_per_range_counted() {
        let reg = Registry::default();
        let calls = RefCell::new(Vec::new());
        let register = |p: usize| {
            let calls = &calls;
            move || {
                calls.borrow_mut().push(("register", p));
                Ok(true)
            }
        };
        let unregister = |p: usize| {
            calls.borrow_mut().push(("unregister", p));
            Ok(())
        };
        assert!(reg.pin(0x1000, 4096, register(0x1000)).expect("pins"));
        assert!(reg
            .pin(0x1100, 200, register(0x1100))
            .expect("inside: counted"));
        assert!(!reg
            .pin(0x1800, 8192, register(0x1800))
            .expect("overlap: not pinned"));
        assert!(!reg
            .pin(0x800, 4096, register(0x800))
            .expect("overlap below: not pinned"));
        assert!(!reg.pin(0x4000, 0, register(0x4000)).expect("empty"));
        assert_eq!(*calls.borrow(), [("register", 0x1000)]);
        assert!(reg.unpin(0x1100, unregister).expect("one use back"));
        assert_eq!(calls.borrow().len(), 1, "still used");
        assert!(reg.unpin(0x1000, unregister).expect("the last use"));
        assert_eq!(calls.borrow()[1], ("unregister", 0x1000));
        assert!(!reg.unpin(0x1000, unregister).expect("nothing pinned"));
        // Memory the program locked itself (the backend did nothing) is not recorded.
        assert!(!reg
            .pin(0x9000, 64, || Ok(false))
            .expect("left to the program"));
        assert!(!reg.unpin(0x9000, unregister).expect("not ours"));
    }
}
