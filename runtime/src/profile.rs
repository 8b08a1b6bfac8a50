//! `SPREAD_PROFILE=summary`: where the time went, per device, printed at exit.
//!
//! Counted while the program runs, whatever else is set: each device's busy time (the time at
//! least one of its operations ran, measured where the work runs: a host device's executor or
//! the thread that synchronized its stream; on a GPU and a remote device, the time the host spent
//! enqueueing), its idle time (the rest of the time since its first operation), its kernels and
//! their time, the bytes it moved each way, the spread chunks it ran and their iterations, and the
//! hand-offs between threads its work cost (batches handed to an executor thread, and `nowait`
//! constructs finished by a thread other than the one that issued them). Per process: `nowait`
//! constructs owned by Spread and polled through libomp, and polls that had to wait.

use parking_lot::Mutex;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The direction of a copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// Host to device.
    ToDevice,
    /// Device to host.
    FromDevice,
    /// Within one device's memory.
    Within,
    /// From one device to another.
    Peer,
}

impl Dir {
    /// The short name the trace shows.
    pub fn name(self) -> &'static str {
        match self {
            Dir::ToDevice => "H2D",
            Dir::FromDevice => "D2H",
            Dir::Within => "D2D",
            Dir::Peer => "peer",
        }
    }
}

/// What an operation did, for the counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Work {
    /// A kernel.
    Kernel,
    /// A copy of `bytes` in direction `dir`.
    Copy {
        /// Direction.
        dir: Dir,
        /// Bytes moved.
        bytes: u64,
    },
}

/// One device's counters.
#[derive(Debug, Default, Clone)]
struct Device {
    /// Operations running now, and since when the device has been busy.
    active: u32,
    since: Option<Instant>,
    first: Option<Instant>,
    busy: Duration,
    kernels: u64,
    kernel_time: Duration,
    /// Bytes host to device, device to host, within, to peers.
    bytes: [u64; 4],
    chunks: u64,
    chunk_iters: u64,
    handoffs: u64,
    ran_by_waiter: u64,
    /// What the summary calls it instead of its number.
    label: Option<&'static str>,
}

struct Profile {
    start: Instant,
    devices: Mutex<Vec<Device>>,
    owned: AtomicU64,
    polled: AtomicU64,
    blocked_polls: AtomicU64,
    finished_elsewhere: AtomicU64,
    /// Host devices' executors, all pools together: how many run work at once when none
    /// blocks, how many run work now and the most that did at once, threads started, and
    /// executors woken or started while others blocked.
    executor_base: AtomicU64,
    executors_running: AtomicU64,
    executors_most: AtomicU64,
    executors_started: AtomicU64,
    executors_for_blocked: AtomicU64,
}

static ON: AtomicBool = AtomicBool::new(false);
static PROFILE: std::sync::OnceLock<Profile> = std::sync::OnceLock::new();

/// Starts counting (`SPREAD_PROFILE=summary`), once, at start-up.
pub fn init(on: bool) {
    if !on {
        return;
    }
    PROFILE.get_or_init(|| Profile {
        start: Instant::now(),
        devices: Mutex::new(Vec::new()),
        owned: AtomicU64::new(0),
        polled: AtomicU64::new(0),
        blocked_polls: AtomicU64::new(0),
        finished_elsewhere: AtomicU64::new(0),
        executor_base: AtomicU64::new(0),
        executors_running: AtomicU64::new(0),
        executors_most: AtomicU64::new(0),
        executors_started: AtomicU64::new(0),
        executors_for_blocked: AtomicU64::new(0),
    });
    ON.store(true, Ordering::Release);
}

/// Whether the profile is being counted.
pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

fn with_device(device: usize, f: impl FnOnce(&mut Device)) {
    if let Some(p) = PROFILE.get() {
        let mut d = p.devices.lock();
        if d.len() <= device {
            d.resize(device + 1, Device::default());
        }
        f(&mut d[device]);
    }
}

/// Names `device` in the summary (the host share, which has no device number users see).
pub fn label_device(device: usize, label: &'static str) {
    with_device(device, |d| d.label = Some(label));
}

/// An operation of `device` starts now.
pub fn op_begin(device: usize, at: Instant) {
    with_device(device, |d| {
        d.first.get_or_insert(at);
        if d.active == 0 {
            d.since = Some(at);
        }
        d.active += 1;
    });
}

/// An operation of `device` that began at `start` ended now.
pub fn op_end(device: usize, start: Instant, work: Work) {
    let end = Instant::now();
    with_device(device, |d| {
        d.active = d.active.saturating_sub(1);
        if d.active == 0 {
            if let Some(s) = d.since.take() {
                d.busy += end.saturating_duration_since(s);
            }
        }
        match work {
            Work::Kernel => {
                d.kernels += 1;
                d.kernel_time += end.saturating_duration_since(start);
            }
            Work::Copy { dir, bytes } => {
                let i = match dir {
                    Dir::ToDevice => 0,
                    Dir::FromDevice => 1,
                    Dir::Within => 2,
                    Dir::Peer => 3,
                };
                d.bytes[i] += bytes;
            }
        }
    });
}

/// A spread chunk of `iters` iterations was dealt to `device`.
pub fn chunk(device: usize, iters: u64) {
    if enabled() {
        with_device(device, |d| {
            d.chunks += 1;
            d.chunk_iters += iters;
        });
    }
}

/// `device`'s work was handed to another thread (an executor), or run by a thread that was
/// about to wait for it (`handed` false).
pub fn batch(device: usize, handed: bool) {
    if enabled() {
        with_device(device, |d| {
            if handed {
                d.handoffs += 1;
            } else {
                d.ran_by_waiter += 1;
            }
        });
    }
}

/// A `nowait` construct started, owned by Spread or polled by libomp.
pub fn nowait_started(owned: bool) {
    if let Some(p) = PROFILE.get() {
        let c = if owned { &p.owned } else { &p.polled };
        c.fetch_add(1, Ordering::Relaxed);
    }
}

/// A poll of a `nowait` construct waited for its device work.
pub fn blocked_poll() {
    if let Some(p) = PROFILE.get() {
        p.blocked_polls.fetch_add(1, Ordering::Relaxed);
    }
}

/// A `nowait` construct was finished by a thread other than the one that issued it.
pub fn finished_elsewhere() {
    if let Some(p) = PROFILE.get() {
        p.finished_elsewhere.fetch_add(1, Ordering::Relaxed);
    }
}

/// A host executor pool was made, or raised its base: `n` more executors run work at once when
/// none blocks.
pub fn executor_base_added(n: usize) {
    if let Some(p) = PROFILE.get() {
        p.executor_base.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// A host executor starts (`true`) or ends (`false`) running work.
pub fn executor_running(starts: bool) {
    if let Some(p) = PROFILE.get() {
        if starts {
            let now = p.executors_running.fetch_add(1, Ordering::Relaxed) + 1;
            p.executors_most.fetch_max(now, Ordering::Relaxed);
        } else {
            p.executors_running.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

/// An executor thread started.
pub fn executor_started() {
    if let Some(p) = PROFILE.get() {
        p.executors_started.fetch_add(1, Ordering::Relaxed);
    }
}

/// An executor was woken or started because others blocked.
pub fn executor_added_for_blocked() {
    if let Some(p) = PROFILE.get() {
        p.executors_for_blocked.fetch_add(1, Ordering::Relaxed);
    }
}

fn mib(b: u64) -> String {
    format!("{:.1}", b as f64 / (1024.0 * 1024.0))
}

/// The summary table (what [`report`] prints).
pub fn summary() -> Option<String> {
    let p = PROFILE.get()?;
    let now = Instant::now();
    let devices = p.devices.lock().clone();
    let mut out = String::new();
    let wall = now.duration_since(p.start).as_secs_f64();
    let _ = writeln!(
        out,
        "spread: profile ({wall:.3} s since start; busy: some operation of the device ran; idle: the rest since its first)"
    );
    let _ = writeln!(
        out,
        "spread: {:>6} {:>9} {:>9} {:>6} {:>8} {:>8} {:>9} {:>9} {:>7} {:>11} {:>9} {:>9}",
        "device",
        "busy s",
        "idle s",
        "busy%",
        "kernels",
        "kernel s",
        "MiB in",
        "MiB out",
        "chunks",
        "iterations",
        "handoffs",
        "ran here"
    );
    let mut chunk_busy = Vec::new();
    for (id, d) in devices.iter().enumerate() {
        if d.first.is_none() && d.chunks == 0 {
            continue;
        }
        let mut busy = d.busy;
        if let (true, Some(s)) = (d.active > 0, d.since) {
            busy += now.saturating_duration_since(s);
        }
        let span = d
            .first
            .map_or(0.0, |f| now.saturating_duration_since(f).as_secs_f64());
        let busy_s = busy.as_secs_f64();
        let idle = (span - busy_s).max(0.0);
        let pct = if span > 0.0 {
            100.0 * busy_s / span
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            "spread: {:>6} {busy_s:>9.4} {idle:>9.4} {pct:>5.1}% {:>8} {:>8.4} {:>9} {:>9} {:>7} {:>11} {:>9} {:>9}",
            d.label.map_or_else(|| id.to_string(), str::to_string),
            d.kernels,
            d.kernel_time.as_secs_f64(),
            mib(d.bytes[0] + d.bytes[3]),
            mib(d.bytes[1]),
            d.chunks,
            d.chunk_iters,
            d.handoffs,
            d.ran_by_waiter
        );
        if d.chunks > 0 {
            chunk_busy.push(busy_s);
        }
    }
    if chunk_busy.len() > 1 {
        let max = chunk_busy.iter().copied().fold(0.0, f64::max);
        let mean = chunk_busy.iter().sum::<f64>() / chunk_busy.len() as f64;
        if mean > 0.0 {
            let _ = writeln!(
                out,
                "spread: imbalance of the devices that ran spread chunks (busiest / mean busy time): {:.2}",
                max / mean
            );
        }
    }
    let _ = writeln!(
        out,
        "spread: nowait constructs: {} owned by Spread, {} polled by libomp ({} polls waited), {} finished by another thread",
        p.owned.load(Ordering::Relaxed),
        p.polled.load(Ordering::Relaxed),
        p.blocked_polls.load(Ordering::Relaxed),
        p.finished_elsewhere.load(Ordering::Relaxed)
    );
    let started = p.executors_started.load(Ordering::Relaxed);
    if started > 0 {
        let _ = writeln!(
            out,
            "spread: host executors: {} run at once (most at once: {}), {} threads started, {} added while others blocked",
            p.executor_base.load(Ordering::Relaxed),
            p.executors_most.load(Ordering::Relaxed),
            started,
            p.executors_for_blocked.load(Ordering::Relaxed)
        );
    }
    Some(out)
}

/// Prints the summary on stderr (at exit).
pub fn report() {
    if let Some(s) = summary() {
        eprint!("{s}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The numbers of the executors line, in order.
    fn executors_line() -> Vec<u64> {
        let s = summary().expect("on");
        let line = s
            .lines()
            .find(|l| l.starts_with("spread: host executors: "))
            .expect("the executors line")
            .to_string();
        line.split(|c: char| !c.is_ascii_digit())
            .filter_map(|w| w.parse().ok())
            .collect()
    }

    #[test]
    fn the_host_executors_line_adds_up_every_pool() {
        // Other tests' pools count in the same profile: compare before and after.
        init(true);
        executor_started();
        let before = executors_line();
        executor_base_added(2);
        executor_base_added(1);
        executor_added_for_blocked();
        let after = executors_line();
        assert_eq!(after[0], before[0] + 3, "bases of both pools: {after:?}");
        assert!(
            after[3] > before[3],
            "added while others blocked: {after:?}"
        );
    }

    #[test]
    fn most_at_once_counts_executors_of_every_pool() {
        init(true);
        executor_started();
        // Four executors of any pools running at once make it at least four.
        (0..4).for_each(|_| executor_running(true));
        assert!(executors_line()[1] >= 4);
        (0..4).for_each(|_| executor_running(false));
    }

    #[test]
    fn busy_time_is_the_union_of_overlapping_operations() {
        init(true);
        let t0 = Instant::now();
        op_begin(7, t0);
        op_begin(7, t0);
        std::thread::sleep(Duration::from_millis(20));
        op_end(7, t0, Work::Kernel);
        op_end(
            7,
            t0,
            Work::Copy {
                dir: Dir::ToDevice,
                bytes: 1 << 20,
            },
        );
        chunk(7, 100);
        batch(7, true);
        let s = summary().expect("on");
        let line = s
            .lines()
            .find(|l| {
                l.trim_start_matches("spread:")
                    .trim_start()
                    .starts_with("7 ")
            })
            .expect("device 7");
        let cols: Vec<&str> = line.split_whitespace().collect();
        // spread: 7 busy idle busy% kernels kernel-s MiB-in MiB-out chunks iterations handoffs ...
        let busy: f64 = cols[2].parse().expect("busy");
        assert!(
            (0.019..0.2).contains(&busy),
            "two overlapping 20 ms operations are 20 ms busy: {line}"
        );
        assert_eq!(cols[5], "1", "one kernel: {line}");
        assert_eq!(cols[7], "1.0", "1 MiB in: {line}");
        assert_eq!(cols[9], "1", "one chunk: {line}");
        assert_eq!(cols[10], "100", "its iterations: {line}");
        assert_eq!(cols[11], "1", "one hand-off: {line}");
    }
}
