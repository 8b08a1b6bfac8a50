//! The state of Spread's OMPT tool that the layers below the tool read: whether libomp runs it,
//! whether it sees synchronization points, and which threads run a host device's kernel (whose
//! parallel regions and barriers are not the program's). The tool's callbacks are in
//! `capi::ompt`.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};

/// 0: libomp has not started the tool; 1: it runs; 2: it could not register its callbacks.
pub(crate) static TOOL_STATE: AtomicU8 = AtomicU8::new(0);

/// The tool's `sync-region` callback runs (lazy `device(any)` coherence).
pub(crate) static SYNC_SEEN: AtomicBool = AtomicBool::new(false);

/// Whether libomp runs Spread's OMPT tool (so a pinned kernel's worker threads are pinned too).
pub fn tool_active() -> bool {
    TOOL_STATE.load(Ordering::Acquire) == 1
}

/// Whether the tool brings lazy `device(any)` outputs home at sync points; when it does not
/// (another tool is loaded), the program must call `spread_any_flush` itself.
pub fn sync_points_seen() -> bool {
    SYNC_SEEN.load(Ordering::Acquire)
}

thread_local! {
    /// Kernels of host devices (and parallel regions inside them) the thread is running.
    pub(crate) static INNER: Cell<u32> = const { Cell::new(0) };
}

/// Marks the current thread as running a host device's kernel while the guard lives.
pub struct InnerScope(());

impl InnerScope {
    /// Enters.
    pub fn enter() -> Self {
        INNER.with(|c| c.set(c.get() + 1));
        InnerScope(())
    }
}

impl Drop for InnerScope {
    fn drop(&mut self) {
        INNER.with(|c| c.set(c.get().saturating_sub(1)));
    }
}
