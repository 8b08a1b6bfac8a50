//! What the features above the core ask it to do at its own moments: the core cannot name them
//! (it sits below them), so each feature registers a function the first time it is used.

use super::Runtime;
use parking_lot::Mutex;
use std::sync::OnceLock;

/// Functions run when the program exits, after its `nowait` work has finished and before the
/// devices are told to stop (lazy `device(any)` outputs come home there).
static AT_EXIT: Mutex<Vec<fn(&Runtime)>> = Mutex::new(Vec::new());

/// Whether host memory `[ptr, ptr+len)` is memory device `device` reaches at the same address
/// (a Spread memory space's), so that mapping it there moves nothing.
type Accessible = fn(device: usize, ptr: usize, len: usize) -> bool;
static ACCESSIBLE: OnceLock<Accessible> = OnceLock::new();

/// Runs `f` at the program's exit (once, however often it is registered).
pub fn at_exit(f: fn(&Runtime)) {
    let mut list = AT_EXIT.lock();
    if !list.iter().any(|&g| g as usize == f as usize) {
        list.push(f);
    }
}

/// Runs the functions registered with [`at_exit`].
pub(super) fn run_at_exit(rt: &Runtime) {
    let list = AT_EXIT.lock().clone();
    for f in list {
        f(rt);
    }
}

/// Answers the mapping's question "does the device reach this host memory as it is?" with `f`
/// (the memory spaces register it when they allocate first; before that no memory is theirs).
pub fn set_accessible(f: Accessible) {
    let _ = ACCESSIBLE.set(f);
}

/// Whether device `device` reaches `[ptr, ptr+len)` at the same address (see [`set_accessible`]).
pub fn accessible(device: usize, ptr: usize, len: usize) -> bool {
    ACCESSIBLE.get().is_some_and(|f| f(device, ptr, len))
}
