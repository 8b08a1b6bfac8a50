//! Pinning a host device's kernel threads to its cores (`SPREAD_HOST_DEVICE_CORES`).
//!
//! A host-device kernel runs on the thread that launches it plus libomp worker threads, which
//! libomp takes from a pool shared by every device and by the program's own parallel regions. Which
//! workers a kernel gets is only known once its `teams`/`parallel` construct has forked them, so
//! the pinning happens on those threads themselves, through OMPT: libomp calls a tool back on each
//! thread as it begins and ends an implicit task. Spread registers such a tool (when
//! `SPREAD_HOST_DEVICE_CORES` is set, and no other tool is) that
//!
//! - marks each parallel region (and `teams` league) a pinned kernel forks with the device's core
//!   set (`parallel-begin`, on the forking thread, which knows its kernel from a thread-local);
//! - on each thread that begins an implicit task of such a region, saves the thread's affinity
//!   mask, pins it to the set and remembers the kernel for the regions that thread forks in turn;
//! - restores the saved mask when the implicit task ends, so a worker returns to the pool with the
//!   mask it had (a worker that runs another device's kernel, or the program's code, next is not
//!   left on the wrong cores).
//!
//! The launching thread itself is pinned by [`KernelPin`] for the whole launch. Without the tool
//! (libomp lacks OMPT, `OMP_TOOL=disabled`, another tool is loaded) only the launching thread is
//! pinned; [`tool_active`](super::ompt::tool_active) tells, so the runtime can say so. The tool
//! itself is [`super::ompt`].

use std::cell::{Cell, RefCell};

/// A set of cores, in the kernel's `cpu_set_t` form. Sets live as long as the process (host
/// devices are never destroyed), so OMPT callbacks can refer to them by address.
pub struct CoreSet {
    pub(crate) set: libc::cpu_set_t,
}

impl CoreSet {
    /// The set of `cores` (numbers above `CPU_SETSIZE - 1` are left out).
    pub fn new(cores: &[usize]) -> Self {
        // SAFETY: cpu_set_t is a plain bit array; all zeroes is the empty set.
        let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
        for &c in cores {
            if c < libc::CPU_SETSIZE as usize {
                // SAFETY: `c` is below CPU_SETSIZE, so the bit is inside `set`.
                unsafe { libc::CPU_SET(c, &mut set) };
            }
        }
        CoreSet { set }
    }
}

/// The cores the process may run on now (the calling thread's affinity mask; `None` when the
/// kernel does not tell).
pub fn allowed_cores() -> Option<Vec<usize>> {
    let set = current_mask()?;
    Some(
        (0..libc::CPU_SETSIZE as usize)
            // SAFETY: `c` is below CPU_SETSIZE, so the bit is inside `set`.
            .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
            .collect(),
    )
}

/// The calling thread's affinity mask.
pub(crate) fn current_mask() -> Option<libc::cpu_set_t> {
    // SAFETY: as in `CoreSet::new`.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: pid 0 is the calling thread; the size is that of the set written to.
    let rc = unsafe { libc::sched_getaffinity(0, std::mem::size_of_val(&set), &mut set) };
    (rc == 0).then_some(set)
}

/// Sets the calling thread's affinity mask; false when the kernel refuses it.
pub(crate) fn set_mask(set: &libc::cpu_set_t) -> bool {
    // SAFETY: pid 0 is the calling thread; the set is a valid cpu_set_t of the given size.
    unsafe { libc::sched_setaffinity(0, std::mem::size_of_val(set), set) == 0 }
}

thread_local! {
    /// The core set of the pinned kernel this thread is running, as an address (0: none).
    pub(crate) static KERNEL_SET: Cell<usize> = const { Cell::new(0) };
    /// Masks (and kernel sets) to restore when this thread's pinned implicit tasks end, innermost
    /// last.
    pub(crate) static SAVED: RefCell<Vec<(libc::cpu_set_t, usize)>> = const { RefCell::new(Vec::new()) };
}

/// Pins the calling thread to a device's cores for the life of the guard and makes the regions
/// it forks meanwhile pin their threads too; dropping it restores the thread's mask.
pub struct KernelPin {
    saved: Option<libc::cpu_set_t>,
    outer: usize,
}

impl KernelPin {
    /// Pins the calling thread to `set`.
    pub fn enter(set: &'static CoreSet) -> Self {
        let saved = current_mask().filter(|_| set_mask(&set.set));
        let outer = KERNEL_SET.with(|k| k.replace(set as *const CoreSet as usize));
        KernelPin { saved, outer }
    }
}

impl Drop for KernelPin {
    fn drop(&mut self) {
        KERNEL_SET.with(|k| k.set(self.outer));
        if let Some(old) = &self.saved {
            set_mask(old);
        }
    }
}
