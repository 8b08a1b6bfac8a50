//! Which host kernel each thread runs now: set around a kernel's call (`Kernels::run`), read from
//! any thread by the fault report (`runtime/fault.rs`). A kernel's code runs on the thread that
//! calls it and on libomp's worker threads of its teams, which carry no record of their own: a
//! fault there is matched with the kernels the faulting memory's device runs
//! ([`running_on`]).
//!
//! Each thread that runs kernels has a slot, registered once and reused by a later thread when
//! it ends. A kernel of a plain construct costs four atomic stores (its device and `ident_t`,
//! set and cleared); a spread chunk's also takes the slot's uncontended lock for its origin.
//! Readers only ever try the locks, and may see a kernel that has just ended.

use crate::origin::Origin;
use parking_lot::Mutex;
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A kernel running on some thread.
#[derive(Clone)]
pub struct Running {
    /// Its device.
    pub device: usize,
    /// What it was launched for.
    pub origin: Origin,
}

/// [`Slot::device`] when no kernel runs; [`Slot::ident`] for an origin kept in [`Slot::origin`].
const NONE: usize = usize::MAX;

/// One thread's record, alone in its cache lines: written on every kernel, it must not share
/// them with what other threads use.
#[repr(align(128))]
struct Slot {
    /// The running kernel's device ([`NONE`]: none).
    device: AtomicUsize,
    /// Its construct's `ident_t` (0: unknown; [`NONE`]: see `origin`).
    ident: AtomicUsize,
    /// Its origin, when it is a spread chunk's.
    origin: Mutex<Origin>,
}

/// Every slot ever made (never freed: their number is the most threads that ran kernels at
/// once), and those of threads that ended, for reuse.
static SLOTS: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());
static SPARE: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());

thread_local! {
    /// The calling thread's slot, once it ran a kernel (read without initialising anything).
    static MINE: Cell<Option<&'static Slot>> = const { Cell::new(None) };
    /// Gives the slot back when the thread ends.
    static OWNER: Owner = const { Owner };
}

struct Owner;

impl Drop for Owner {
    fn drop(&mut self) {
        if let Ok(Some(slot)) = MINE.try_with(|m| m.take()) {
            slot.device.store(NONE, Ordering::Release);
            *slot.origin.lock() = Origin::Unknown;
            SPARE.lock().push(slot);
        }
    }
}

/// The calling thread's slot, claimed on first use.
fn mine() -> Option<&'static Slot> {
    MINE.try_with(|m| {
        if let Some(s) = m.get() {
            return Some(s);
        }
        // The owner must exist before the slot is claimed, or the slot would never come back.
        OWNER.try_with(|_| ()).ok()?;
        let spare = SPARE.lock().pop();
        let slot = spare.unwrap_or_else(|| {
            let s: &'static Slot = Box::leak(Box::new(Slot {
                device: AtomicUsize::new(NONE),
                ident: AtomicUsize::new(0),
                origin: Mutex::new(Origin::Unknown),
            }));
            SLOTS.lock().push(s);
            s
        });
        m.set(Some(slot));
        Some(slot)
    })
    .ok()
    .flatten()
}

impl Slot {
    /// The kernel recorded here, if one runs.
    fn read(&self) -> Option<Running> {
        let device = self.device.load(Ordering::Acquire);
        if device == NONE {
            return None;
        }
        let origin = match self.ident.load(Ordering::Acquire) {
            0 => Origin::Unknown,
            NONE => self.origin.try_lock()?.clone(),
            ident => Origin::Construct(ident),
        };
        Some(Running { device, origin })
    }
}

/// The kernel record of the calling thread while a kernel runs on it, cleared when dropped (a
/// kernel's code never runs another kernel on its thread).
pub struct Scope(Option<&'static Slot>);

impl Drop for Scope {
    fn drop(&mut self) {
        if let Some(slot) = self.0 {
            slot.device.store(NONE, Ordering::Release);
        }
    }
}

/// Records that the calling thread runs a kernel of `device` launched for `origin`.
pub fn enter(device: usize, origin: Origin) -> Scope {
    let Some(slot) = mine() else {
        return Scope(None);
    };
    // Only this thread writes its slot: stores, no read-modify-write.
    let ident = match origin {
        Origin::Unknown => 0,
        Origin::Construct(ident) => ident,
        chunk => {
            *slot.origin.lock() = chunk;
            NONE
        }
    };
    slot.ident.store(ident, Ordering::Release);
    slot.device.store(device, Ordering::Release);
    Scope(Some(slot))
}

/// The kernel the calling thread runs, if any (for the fault report: only tries locks).
pub fn this_thread() -> Option<Running> {
    MINE.try_with(Cell::get).ok().flatten()?.read()
}

/// Calls `f` with each kernel running now on `device` (every device: `None`), as far as the
/// records can be read without waiting (for the fault report).
pub fn running_on(device: Option<usize>, mut f: impl FnMut(&Running)) {
    let Some(slots) = SLOTS.try_lock() else {
        return;
    };
    for s in slots.iter() {
        if let Some(r) = s.read().filter(|r| device.is_none_or(|d| d == r.device)) {
            f(&r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_running_kernel_is_seen_from_other_threads_until_it_ends() {
        const DEV: usize = 1_000_001; // no other test runs kernels on it
        let count = || {
            let mut n = 0;
            running_on(Some(DEV), |_| n += 1);
            n
        };
        assert_eq!(count(), 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let (done_tx, done_rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            let _k = enter(DEV, Origin::Unknown);
            assert_eq!(this_thread().map(|r| r.device), Some(DEV));
            tx.send(()).expect("send");
            done_rx.recv().expect("recv");
        });
        rx.recv().expect("running");
        assert_eq!(count(), 1);
        assert!(this_thread().is_none(), "not this thread's kernel");
        done_tx.send(()).expect("send");
        t.join().expect("join");
        assert_eq!(count(), 0);
    }
}
