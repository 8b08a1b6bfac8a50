//! `LIBOMPTARGET_PROFILE=<file>`: libomptarget's time trace, a Chrome trace-event file (opens in
//! Perfetto or chrome://tracing) of where the runtime spent its time, with stock's event names
//! where Spread does the same work: `Runtime: target exe` per target region on a device,
//! `Runtime: Data Copy` per data construct, `Kernel Target` per kernel, `HostToDev` and
//! `DevToHost` per copy, `Runtime: syncronize` (stock's spelling) per wait for a construct's
//! device work; and Spread's own: `Spread: target spread` (and `Spread: target data spread`,
//! ..., `Spread: SPREAD_AUTO kernel`) per spread construct, from its beginning until its chunks
//! are done, `Spread: peer copy` and `Spread: copy within device`. Events shorter than
//! `LIBOMPTARGET_PROFILE_GRANULARITY` microseconds (default 500, as stock) are left out; the
//! `Total <name>` events at the end count and sum every event of each name, short ones included.
//!
//! Unlike `SPREAD_TRACE` (one track per device), events are on the threads that did the work, as
//! stock's: a host device's kernels on the executor threads that ran them.

use parking_lot::Mutex;
use std::cell::Cell;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

struct Event {
    name: &'static str,
    detail: String,
    tid: u64,
    ts_us: f64,
    dur_us: f64,
}

struct Profiler {
    path: String,
    granularity_us: f64,
    start: Instant,
    /// Microseconds since the Unix epoch at `start` (the file's `beginningOfTime`).
    epoch_us: u128,
    events: Mutex<Vec<Event>>,
    /// Per name, in first-seen order: count and total microseconds.
    totals: Mutex<Vec<(&'static str, u64, f64)>>,
}

static PROFILER: OnceLock<Option<Profiler>> = OnceLock::new();
static NEXT_TID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    static TID: Cell<u64> = const { Cell::new(0) };
}

/// Starts profiling into `path` (once, at start-up); `None` leaves it off.
pub fn init(path: Option<String>, granularity_us: u64) {
    PROFILER.get_or_init(|| {
        path.map(|path| Profiler {
            path,
            granularity_us: granularity_us as f64,
            start: Instant::now(),
            epoch_us: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_micros()),
            events: Mutex::new(Vec::new()),
            totals: Mutex::new(Vec::new()),
        })
    });
}

fn profiler() -> Option<&'static Profiler> {
    PROFILER.get().and_then(Option::as_ref)
}

/// Whether a profile is being recorded.
pub fn enabled() -> bool {
    profiler().is_some()
}

/// The calling thread's number in the profile (1 for the first thread that records).
fn tid() -> u64 {
    TID.try_with(|t| {
        if t.get() == 0 {
            t.set(NEXT_TID.fetch_add(1, Ordering::Relaxed));
        }
        t.get()
    })
    .unwrap_or(0)
}

/// Records an event `name` that ran from `start` to `end` on the calling thread.
pub fn record(name: &'static str, detail: impl FnOnce() -> String, start: Instant, end: Instant) {
    let Some(p) = profiler() else { return };
    let dur_us = end.saturating_duration_since(start).as_secs_f64() * 1e6;
    {
        let mut totals = p.totals.lock();
        match totals.iter_mut().find(|(n, ..)| *n == name) {
            Some((_, count, total)) => {
                *count += 1;
                *total += dur_us;
            }
            None => totals.push((name, 1, dur_us)),
        }
    }
    if dur_us < p.granularity_us {
        return;
    }
    let ts_us = start.saturating_duration_since(p.start).as_secs_f64() * 1e6;
    let e = Event {
        name,
        detail: detail(),
        tid: tid(),
        ts_us,
        dur_us,
    };
    p.events.lock().push(e);
}

/// An event being timed; recorded when dropped.
pub struct Scope {
    name: &'static str,
    detail: String,
    start: Instant,
}

/// Starts timing `name` (`None` when no profile is recorded; `detail` is called only when one
/// is).
pub fn scope(name: &'static str, detail: impl FnOnce() -> String) -> Option<Scope> {
    enabled().then(|| Scope {
        name,
        detail: detail(),
        start: Instant::now(),
    })
}

impl Drop for Scope {
    fn drop(&mut self) {
        let detail = std::mem::take(&mut self.detail);
        record(self.name, || detail, self.start, Instant::now());
    }
}

/// `s` as the inside of a JSON string (also `SPREAD_TRACE`'s).
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o
}

fn render(p: &Profiler) -> String {
    let pid = std::process::id();
    let mut out = String::from("{\"traceEvents\":[\n");
    let events = p.events.lock();
    let mut lines: Vec<String> = events
        .iter()
        .map(|e| {
            format!(
                "{{\"pid\":{pid},\"tid\":{},\"ts\":{:.0},\"ph\":\"X\",\"dur\":{:.0},\"name\":\"{}\",\"args\":{{\"detail\":\"{}\"}}}}",
                e.tid,
                e.ts_us,
                e.dur_us,
                e.name,
                escape(&e.detail)
            )
        })
        .collect();
    // As LLVM's time trace: one track per name, longest total first.
    let mut totals = p.totals.lock().clone();
    totals.sort_by(|a, b| b.2.total_cmp(&a.2));
    let base = NEXT_TID.load(Ordering::Relaxed) + 1;
    for (i, (name, count, total)) in totals.iter().enumerate() {
        lines.push(format!(
            "{{\"pid\":{pid},\"tid\":{},\"ph\":\"X\",\"ts\":0,\"dur\":{total:.0},\"name\":\"Total {name}\",\"args\":{{\"count\":{count},\"avg ms\":{:.0}}}}}",
            base + i as u64,
            total / *count as f64 / 1000.0
        ));
    }
    lines.push(format!(
        "{{\"cat\":\"\",\"pid\":{pid},\"tid\":0,\"ts\":0,\"ph\":\"M\",\"name\":\"process_name\",\"args\":{{\"name\":\"libomptarget\"}}}}"
    ));
    out.push_str(&lines.join(",\n"));
    let _ = write!(out, "\n],\n\"beginningOfTime\":{}}}\n", p.epoch_us);
    out
}

/// Writes the profile file (at exit); reports a failure on stderr.
pub fn write() {
    let Some(p) = profiler() else { return };
    if let Err(e) = std::fs::write(&p.path, render(p)) {
        eprintln!(
            "spread: warning: cannot write LIBOMPTARGET_PROFILE file {}: {e}",
            p.path
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profiler(granularity_us: f64) -> Profiler {
        Profiler {
            path: String::new(),
            granularity_us,
            start: Instant::now(),
            epoch_us: 7,
            events: Mutex::new(Vec::new()),
            totals: Mutex::new(Vec::new()),
        }
    }

    #[test]
    fn renders_events_totals_and_the_beginning_of_time() {
        let p = profiler(0.0);
        p.events.lock().push(Event {
            name: "Kernel Target",
            detail: "Device=1;\"q\"".into(),
            tid: 3,
            ts_us: 10.0,
            dur_us: 5.0,
        });
        p.totals.lock().push(("Kernel Target", 2, 10000.0));
        let s = render(&p);
        assert!(s.contains("\"tid\":3,\"ts\":10,\"ph\":\"X\",\"dur\":5,\"name\":\"Kernel Target\""));
        assert!(s.contains("Device=1;\\\"q\\\""));
        assert!(s.contains("\"name\":\"Total Kernel Target\",\"args\":{\"count\":2,\"avg ms\":5}"));
        assert!(s.contains("\"beginningOfTime\":7}"));
    }
}
