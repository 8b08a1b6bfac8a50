//! What another thread of the process is doing: its CPU time and whether it is runnable.
//!
//! The host devices' executor pool uses them to tell an executor whose job blocks (a kernel that
//! sleeps or waits for another device: its core is free) from one that computes or waits for a
//! core (adding an executor then would only slice the cores thinner). The CPU time comes from
//! the thread's CPU-time clock, which includes the slice running right now; the scheduler's
//! statistics files lag by up to a tick for a running thread, so they cannot tell it either.

use std::fs::File;
use std::os::unix::fs::FileExt;

/// One thread, set up by the thread itself.
#[derive(Debug)]
pub struct ThreadState {
    clock: libc::clockid_t,
    /// `/proc/thread-self/stat`, opened by the thread: its third field is the state.
    stat: File,
}

impl ThreadState {
    /// The calling thread; `None` where the system offers neither clock nor state.
    pub fn current() -> Option<Self> {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: pthread_self() is the calling thread, alive for the call; `clock` is a valid
        // out-pointer for the duration of the call.
        let rc = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut clock) };
        if rc != 0 {
            return None;
        }
        let s = ThreadState {
            clock,
            stat: File::open("/proc/thread-self/stat").ok()?,
        };
        (s.cpu_ns().is_some() && s.runnable().is_some()).then_some(s)
    }

    /// CPU time the thread has used, in nanoseconds; `None` once it has ended.
    pub fn cpu_ns(&self) -> Option<u64> {
        let mut ts = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `ts` is a valid out-pointer for the call; a clock id whose thread has ended
        // makes the call fail with EINVAL, it does not touch other memory.
        let rc = unsafe { libc::clock_gettime(self.clock, &mut ts) };
        if rc != 0 {
            return None;
        }
        let secs = u64::try_from(ts.tv_sec).ok()?;
        let nanos = u64::try_from(ts.tv_nsec).ok()?;
        Some(secs * 1_000_000_000 + nanos)
    }

    /// Whether the thread runs or waits for a core right now (`R`), rather than sleeps;
    /// `None` once it has ended.
    pub fn runnable(&self) -> Option<bool> {
        // Each read at offset 0 makes procfs format the line afresh. The name in parentheses
        // may hold spaces: the state follows the last ')'.
        let mut buf = [0u8; 512];
        let n = self.stat.read_at(&mut buf, 0).ok()?;
        let line = buf.get(..n)?;
        let close = line.iter().rposition(|&b| b == b')')?;
        let state = line.get(close + 2)?;
        Some(*state == b'R')
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn a_computing_thread_runs_and_a_sleeping_one_does_not() {
        let Some(me) = ThreadState::current() else {
            return; // the pool then counts executors as computing
        };
        assert_eq!(me.runnable(), Some(true), "the reading thread runs");
        let a = me.cpu_ns().expect("readable");
        let start = Instant::now();
        let mut x = 0u64;
        while start.elapsed() < Duration::from_millis(20) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let b = me.cpu_ns().expect("readable");
        assert!(
            b - a >= 2_000_000,
            "computed 20 ms, clock says {} ns",
            b - a
        );
        let (tx, rx) = std::sync::mpsc::channel();
        let h = std::thread::spawn(move || {
            tx.send(ThreadState::current().expect("a thread state"))
                .expect("send");
            std::thread::sleep(Duration::from_millis(60));
        });
        let other = rx.recv().expect("state");
        std::thread::sleep(Duration::from_millis(10));
        let a = other.cpu_ns().expect("readable while it sleeps");
        assert_eq!(other.runnable(), Some(false), "it sleeps");
        std::thread::sleep(Duration::from_millis(20));
        let b = other.cpu_ns().expect("readable while it sleeps");
        assert!(b - a < 2_000_000, "slept, clock says {} ns", b - a);
        h.join().expect("join");
    }
}
