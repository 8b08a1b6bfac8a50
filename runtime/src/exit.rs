//! The program's exit while other threads still offload (`exit` in one thread, target regions in
//! others): one state, set when the program's last offload image unregisters (from an `atexit`
//! handler), that every other thread entering Spread or libomp checks.
//!
//! libomp shuts itself down in its own destructor, after the program's `atexit` handlers; a thread
//! that enters libomp after that makes it re-initialise half-way and abort
//! (`kmp_runtime.cpp(7323)`). So besides parking threads at the start of a construct, the short
//! libomp calls Spread makes go through [`libomp_call`], and [`begin`] waits for the threads inside
//! one to leave: Dekker's handshake on an in-flight count (either the thread sees the exit, or the
//! exiting thread sees it inside).

use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::ThreadId;
use std::time::{Duration, Instant};

/// Set while the program exits.
static EXITING: AtomicBool = AtomicBool::new(false);
/// The thread that is exiting the program, which goes on using Spread and libomp.
static EXITER: Mutex<Option<ThreadId>> = Mutex::new(None);
/// Threads inside a [`libomp_call`].
static IN_LIBOMP: AtomicUsize = AtomicUsize::new(0);

/// How long the program's exit waits for a worker thread whose last job has completed (the
/// program saw it and exits) to come back idle, so that it can be ended and joined: a worker left
/// running into libomp's shutdown has its libomp descriptors lost.
pub const SETTLE: Duration = Duration::from_millis(200);

/// The calling thread begins the program's exit (its last offload image unregisters): from now
/// on other threads park where they would start a construct, fail one or call libomp, and those
/// inside a libomp call leave it before this returns (the calls are short; a thread still inside
/// after a second is left be).
pub fn begin() {
    *EXITER.lock() = Some(std::thread::current().id());
    EXITING.store(true, Ordering::SeqCst);
    let deadline = Instant::now() + Duration::from_secs(1);
    while IN_LIBOMP.load(Ordering::SeqCst) != 0 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_micros(50));
    }
}

/// Undoes [`begin`]: the program registered offload images again.
pub fn cancel() {
    EXITING.store(false, Ordering::SeqCst);
    *EXITER.lock() = None;
}

/// Whether another thread is exiting the program.
fn exiting_elsewhere() -> bool {
    EXITING.load(Ordering::SeqCst) && *EXITER.lock() != Some(std::thread::current().id())
}

/// On a thread other than the exiting one, once the program exits: waits for the end instead of
/// running on into a torn-down program or reporting a failure that only the race caused. Stock
/// libomptarget fails such constructs (or crashes) at random.
pub fn park_if_exiting() {
    if exiting_elsewhere() {
        park_forever();
    }
}

fn park_forever() -> ! {
    loop {
        std::thread::park();
    }
}

/// Runs `f`, a short call into libomp, unless another thread is exiting the program (then returns
/// `None` instead of parking: for threads that the exiting thread joins).
pub fn libomp_call_unless_exiting<R>(f: impl FnOnce() -> R) -> Option<R> {
    IN_LIBOMP.fetch_add(1, Ordering::SeqCst);
    if exiting_elsewhere() {
        IN_LIBOMP.fetch_sub(1, Ordering::SeqCst);
        return None;
    }
    let r = f();
    IN_LIBOMP.fetch_sub(1, Ordering::SeqCst);
    Some(r)
}

/// Runs `f`, a short call into libomp, unless another thread is exiting the program (then parks).
pub fn libomp_call<R>(f: impl FnOnce() -> R) -> R {
    IN_LIBOMP.fetch_add(1, Ordering::SeqCst);
    if exiting_elsewhere() {
        IN_LIBOMP.fetch_sub(1, Ordering::SeqCst);
        park_forever();
    }
    let r = f();
    IN_LIBOMP.fetch_sub(1, Ordering::SeqCst);
    r
}
