//! `SPREAD_TRACE=out.json`: a timeline of device work in Chrome's trace-event format (opens in
//! Perfetto or chrome://tracing), one track per device, one event per transfer and kernel,
//! labelled with the construct and chunk it belongs to.

use parking_lot::Mutex;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Instant;

struct Event {
    name: String,
    cat: &'static str,
    device: usize,
    ts_us: f64,
    dur_us: f64,
    label: Option<String>,
}

struct Tracer {
    path: String,
    start: Instant,
    events: Mutex<Vec<Event>>,
}

static TRACER: OnceLock<Option<Tracer>> = OnceLock::new();

thread_local! {
    static LABEL: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Starts tracing into `path` (once, at start-up); `None` leaves tracing off.
pub fn init(path: Option<String>) {
    TRACER.get_or_init(|| {
        path.map(|path| Tracer {
            path,
            start: Instant::now(),
            events: Mutex::new(Vec::new()),
        })
    });
}

fn tracer() -> Option<&'static Tracer> {
    TRACER.get().and_then(Option::as_ref)
}

/// Whether a trace is being recorded.
pub fn enabled() -> bool {
    tracer().is_some()
}

/// Runs `f` with `label` (construct and chunk) attached to the events it records.
pub fn with_label<R>(label: Option<String>, f: impl FnOnce() -> R) -> R {
    if label.is_none() || !enabled() {
        return f();
    }
    let old = LABEL.with(|l| l.replace(label));
    let r = f();
    LABEL.with(|l| *l.borrow_mut() = old);
    r
}

/// The label of the calling thread's current construct, for work recorded now and run later
/// on another thread (`None` when tracing is off).
pub fn label() -> Option<String> {
    if !enabled() {
        return None;
    }
    LABEL.with(|l| l.borrow().clone())
}

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

/// Starts recording a copy of `len` bytes on `device`.
pub fn transfer(device: usize, dir: Dir, len: usize) -> Option<Span> {
    span(device, "transfer", || format!("{} {len} B", dir.name()))
}

/// A running operation; recorded when dropped.
pub struct Span {
    name: String,
    cat: &'static str,
    device: usize,
    start: Instant,
}

/// Starts recording an operation on `device` (`None` when tracing is off).
pub fn span(device: usize, cat: &'static str, name: impl FnOnce() -> String) -> Option<Span> {
    tracer()?;
    Some(Span {
        name: name(),
        cat,
        device,
        start: Instant::now(),
    })
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(t) = tracer() else { return };
        let end = Instant::now();
        let ts_us = self.start.duration_since(t.start).as_secs_f64() * 1e6;
        let dur_us = end.duration_since(self.start).as_secs_f64() * 1e6;
        let label = LABEL.with(|l| l.borrow().clone());
        t.events.lock().push(Event {
            name: std::mem::take(&mut self.name),
            cat: self.cat,
            device: self.device,
            ts_us,
            dur_us,
            label,
        });
    }
}

fn escape(s: &str) -> String {
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

/// The trace so far as Chrome trace-event JSON.
fn render(t: &Tracer) -> String {
    let events = t.events.lock();
    let mut devices: Vec<usize> = events.iter().map(|e| e.device).collect();
    devices.sort_unstable();
    devices.dedup();
    let mut out = String::from("{\"traceEvents\":[\n");
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !first {
            out.push_str(",\n");
        }
        first = false;
    };
    for d in devices {
        sep(&mut out);
        let _ = write!(
            out,
            "{{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":{d},\"args\":{{\"name\":\"device {d}\"}}}}"
        );
    }
    for e in events.iter() {
        sep(&mut out);
        let name = match &e.label {
            Some(l) => format!("{} {}", e.name, l),
            None => e.name.clone(),
        };
        let _ = write!(
            out,
            "{{\"name\":\"{}\",\"cat\":\"{}\",\"ph\":\"X\",\"pid\":1,\"tid\":{},\"ts\":{:.3},\"dur\":{:.3},\"args\":{{\"construct\":\"{}\"}}}}",
            escape(&name),
            e.cat,
            e.device,
            e.ts_us,
            e.dur_us,
            escape(e.label.as_deref().unwrap_or(""))
        );
    }
    out.push_str("\n]}\n");
    out
}

/// Writes the trace file (at exit); reports a failure on stderr.
pub fn flush() {
    let Some(t) = tracer() else { return };
    if let Err(e) = std::fs::write(&t.path, render(t)) {
        eprintln!(
            "spread: warning: cannot write SPREAD_TRACE file {}: {e}",
            t.path
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_valid_event_lines() {
        let t = Tracer {
            path: String::new(),
            start: Instant::now(),
            events: Mutex::new(Vec::new()),
        };
        t.events.lock().push(Event {
            name: "kernel \"k\"".into(),
            cat: "kernel",
            device: 2,
            ts_us: 1.5,
            dur_us: 2.0,
            label: Some("target spread a.c:3 chunk [0,4)".into()),
        });
        let s = render(&t);
        assert!(s.contains("\"tid\":2,\"args\":{\"name\":\"device 2\"}"));
        assert!(s.contains("kernel \\\"k\\\" target spread a.c:3 chunk [0,4)"));
        assert!(s.starts_with("{\"traceEvents\":["));
        assert!(s.trim_end().ends_with("]}"));
    }
}
