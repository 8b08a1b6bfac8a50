//! Which host devices are computing: what a kernel's share of the cores is divided by.
//!
//! Host devices share the machine's cores, so a kernel that starts while others compute gets
//! an equal share of them ([`super::Kernels`]). Counting only the kernels running at the instant
//! one starts undercounts a spread region's devices: each device's chain of kernels alternates
//! with copies and with the issuing thread's waits, so a kernel often starts in a moment when
//! the other devices are between two kernels, forks a team over every core, and then
//! time-slices with their next kernels; and a team whose thread is descheduled holds its other
//! threads at the team's barriers. On the 2-core development machine that made Somier's `two`
//! and `double` variants (four devices, chains of five dependent kernels per chunk) take 1.46
//! and 1.50 times their one-device baseline; counting the devices that computed in the last
//! [`WINDOW_US`] too took them to 1.24 and 1.27 (medians of 7 interleaved runs;
//! bench/spread/README.md has the figures with the example's own change).
//!
//! A device therefore counts as computing while a kernel of it runs and, when that kernel was
//! submitted work (asynchronous: `nowait` constructs, the chunks of a spread region, whether an
//! executor or a thread about to wait for it ran it), for [`WINDOW_US`] after it ended: long
//! enough to bridge the gaps of a pipeline (tens to hundreds of microseconds), short enough that
//! a device that has finished gives its cores back soon for a program's next phase. A kernel that ran on the thread that
//! waits for it (a synchronous `target`) does not linger: a program that uses its devices one
//! after another, each synchronously, gives each kernel every core (counting those too halved
//! the threads of `bench/stencil`'s `SPREAD_NOWAIT=libomp` case and doubled its time). Pure
//! bookkeeping on atomics, with the clock passed in so that tests can drive it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::Instant;

/// How long a device counts as computing after its last kernel ended, in microseconds.
pub const WINDOW_US: u64 = 2_000;

/// Devices tracked; a device created beyond this many (more than any configuration makes) is
/// not counted, as before this module existed.
const SLOTS: usize = 128;

/// One device's state.
struct Slot {
    /// Its kernels running now.
    running: AtomicUsize,
    /// When its last kernel ended (microseconds on the [`now_us`] clock; 0: never).
    last_end: AtomicU64,
}

/// The computing state of every host device of the process.
pub struct Activity {
    slots: [Slot; SLOTS],
    /// Slots handed out so far (the next one to claim).
    claimed: AtomicUsize,
    window_us: u64,
}

/// The process's host devices.
pub static ACTIVITY: Activity = Activity::new(WINDOW_US);

impl Activity {
    /// No device computing yet; a device counts for `window_us` after its last kernel.
    pub const fn new(window_us: u64) -> Self {
        Activity {
            slots: [const {
                Slot {
                    running: AtomicUsize::new(0),
                    last_end: AtomicU64::new(0),
                }
            }; SLOTS],
            claimed: AtomicUsize::new(0),
            window_us,
        }
    }

    /// A slot for a new device (`None` once all are taken: that device is not counted).
    pub fn claim(&self) -> Option<usize> {
        let slot = self.claimed.fetch_add(1, Ordering::Relaxed);
        (slot < SLOTS).then_some(slot)
    }

    /// A kernel of the device in `slot` starts: the number of devices computing, this one
    /// included. `now` reads the clock, only when another device's kernel has ended within a
    /// window that may still be open (reading it twice per kernel added 0.2-0.3 us to an empty
    /// synchronous region of about 0.6 us).
    pub fn begin(&self, slot: usize, now: impl FnOnce() -> u64) -> usize {
        let Some(me) = self.slots.get(slot) else {
            return 1;
        };
        me.running.fetch_add(1, Ordering::AcqRel);
        let used = self.claimed.load(Ordering::Relaxed).min(SLOTS);
        let others = || {
            self.slots[..used]
                .iter()
                .enumerate()
                .filter(move |&(i, s)| i != slot && s.running.load(Ordering::Acquire) == 0)
                .map(|(_, s)| s.last_end.load(Ordering::Acquire))
                .filter(|&end| end != 0)
        };
        let mut computing = self.slots[..used]
            .iter()
            .filter(|s| s.running.load(Ordering::Acquire) > 0)
            .count();
        if others().next().is_some() {
            let now = now();
            computing += others()
                .filter(|&end| now < end.saturating_add(self.window_us))
                .count();
        }
        computing.max(1)
    }

    /// The device in `slot` is about to compute (a spread construct deals it a chunk while it
    /// deals others to other devices): it counts as computing for the window from `now`, as if
    /// a kernel of it had just ended, so that the construct's first kernels already share the
    /// cores with the kernels that follow them. A device that runs a kernel now is left alone.
    pub fn expect(&self, slot: usize, now: impl FnOnce() -> u64) {
        if let Some(me) = self.slots.get(slot) {
            if me.running.load(Ordering::Acquire) == 0 {
                me.last_end.fetch_max(now().max(1), Ordering::AcqRel);
            }
        }
    }

    /// The kernel of the device in `slot` that [`Activity::begin`] counted ends; when it
    /// `lingers` (it was submitted work) the device goes on counting for the window from `now`
    /// (the clock is read only then).
    pub fn end(&self, slot: usize, lingers: bool, now: impl FnOnce() -> u64) {
        if let Some(me) = self.slots.get(slot) {
            if lingers {
                // 0 means "never": a kernel that ends in the clock's first microsecond counts as 1.
                me.last_end.store(now().max(1), Ordering::Release);
            }
            me.running.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

thread_local! {
    /// Whether the calling thread runs submitted work: it is an executor, or it runs a
    /// submitted batch no executor had taken ([`Submitted`]).
    static SUBMITTED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Marks the calling thread as an executor: its kernels linger ([`Activity::end`]).
pub fn mark_executor() {
    SUBMITTED.set(true);
}

/// Whether the kernel the calling thread runs is submitted work (it lingers).
pub fn running_submitted() -> bool {
    SUBMITTED.get()
}

/// While alive, the calling thread runs submitted work: a thread that was about to wait for a
/// batch runs it itself, and its kernels linger as an executor's would.
pub struct Submitted(bool);

impl Submitted {
    /// Marks the calling thread until the value is dropped.
    pub fn enter() -> Self {
        Submitted(SUBMITTED.replace(true))
    }
}

impl Drop for Submitted {
    fn drop(&mut self) {
        SUBMITTED.set(self.0);
    }
}

/// Microseconds since the first call in the process (the clock of [`ACTIVITY`]).
pub fn now_us() -> u64 {
    static START: OnceLock<Instant> = OnceLock::new();
    let micros = START.get_or_init(Instant::now).elapsed().as_micros();
    u64::try_from(micros).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_device_alone_counts_itself() {
        let a = Activity::new(100);
        let d = a.claim().unwrap();
        assert_eq!(a.begin(d, || 10), 1);
        a.end(d, true, || 20);
        assert_eq!(a.begin(d, || 25), 1);
        a.end(d, true, || 30);
    }

    #[test]
    fn devices_count_while_they_run_and_within_the_window() {
        let a = Activity::new(100);
        let (d0, d1, d2) = (a.claim().unwrap(), a.claim().unwrap(), a.claim().unwrap());
        assert_eq!(a.begin(d0, || 10), 1);
        assert_eq!(a.begin(d1, || 11), 2, "d0 runs");
        a.end(d0, true, || 50);
        // d0 is between two kernels: it still counts, and so does d1, which runs.
        assert_eq!(a.begin(d2, || 60), 3);
        a.end(d1, true, || 70);
        a.end(d2, true, || 80);
        // Past the window of d0 (ended 50) but within those of d1 (70) and d2 (80).
        assert_eq!(a.begin(d0, || 155), 3);
        a.end(d0, true, || 160);
        // Everyone's window has passed except d0's own.
        assert_eq!(a.begin(d0, || 250), 1);
        a.end(d0, true, || 255);
    }

    #[test]
    fn a_device_that_never_ran_does_not_count() {
        let a = Activity::new(100);
        let d0 = a.claim().unwrap();
        let _idle = a.claim().unwrap();
        assert_eq!(a.begin(d0, || 0), 1);
        a.end(d0, true, || 0);
        // An end at time 0 is still an end.
        let d2 = a.claim().unwrap();
        assert_eq!(a.begin(d2, || 50), 2);
        a.end(d2, true, || 60);
    }

    #[test]
    fn a_kernel_that_ran_where_it_was_waited_for_does_not_linger() {
        let a = Activity::new(100);
        let (d0, d1) = (a.claim().unwrap(), a.claim().unwrap());
        assert_eq!(a.begin(d0, || 10), 1);
        a.end(d0, false, || 20);
        assert_eq!(a.begin(d1, || 21), 1, "d0 ran synchronously and is done");
        a.end(d1, true, || 30);
        assert_eq!(a.begin(d0, || 31), 2, "d1 ran on an executor");
        a.end(d0, false, || 40);
    }

    #[test]
    fn devices_a_construct_is_about_to_use_count_from_its_first_kernel() {
        let a = Activity::new(100);
        let (d0, d1, d2) = (a.claim().unwrap(), a.claim().unwrap(), a.claim().unwrap());
        // A spread construct deals chunks to d0 and d1: d0's kernel shares with d1 at once.
        a.expect(d0, || 10);
        a.expect(d1, || 10);
        assert_eq!(a.begin(d0, || 11), 2);
        // Expecting a device that runs a kernel changes nothing.
        a.expect(d0, || 12);
        a.end(d0, true, || 20);
        // An expectation never moves a device's window back: d1's (from 10) and d0's (from 20)
        // have passed at 125.
        a.expect(d1, || 5);
        assert_eq!(a.begin(d2, || 125), 1);
        a.end(d2, false, || 126);
    }

    #[test]
    fn devices_beyond_the_slots_are_not_counted() {
        let a = Activity::new(100);
        let slots: Vec<_> = std::iter::from_fn(|| a.claim()).collect();
        assert_eq!(slots.len(), SLOTS);
        assert_eq!(a.claim(), None);
        assert_eq!(a.begin(SLOTS, || 5), 1);
        a.end(SLOTS, true, || 6);
    }
}
