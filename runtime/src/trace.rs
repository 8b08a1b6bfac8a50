//! `SPREAD_TRACE=out.json`: a timeline of device work in Chrome's trace-event format (opens in
//! Perfetto or chrome://tracing), one track per device, one event per transfer and kernel,
//! labelled with the construct and chunk it belongs to. `SPREAD_TRACE=out.html` writes a page
//! any browser opens instead, of bounded size however long the run (`trace/html.rs`).

mod html;

use crate::profile::{self, Dir, Work};
use crate::time_trace::{self, escape};
use parking_lot::Mutex;
use std::cell::RefCell;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::Instant;

struct Event {
    name: String,
    cat: &'static str,
    /// 0 kernel, 1 copy to the device, 2 copy from it, 3 other copy (the page's colours).
    kind: u8,
    /// Bytes copied (0 for a kernel).
    bytes: u64,
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
    let _scope = if enabled() {
        Label::set(label)
    } else {
        Label(None)
    };
    f()
}

/// Attaches the construct at `location` (its source location) to the events the calling thread
/// records until the value is dropped, unless a label is set already (a spread chunk's, which
/// names the chunk too); `location` is called only while a trace is recorded. Every construct's
/// work is then named in the trace, the chunks of a `target spread nowait` too, which the pass
/// lowers to plain target tasks.
pub fn construct(location: impl FnOnce() -> Option<String>) -> Label {
    if !enabled() || LABEL.try_with(|l| l.borrow().is_some()).unwrap_or(true) {
        return Label(None);
    }
    Label::set(location())
}

/// A label set on the calling thread ([`with_label`], [`construct`]): the label before it,
/// restored when dropped.
pub struct Label(Option<Option<String>>);

impl Label {
    /// Sets `label` (nothing when `None`).
    fn set(label: Option<String>) -> Label {
        match label {
            None => Label(None),
            label => match LABEL.try_with(|l| l.replace(label)) {
                Ok(previous) => Label(Some(previous)),
                // The thread-local is gone (work run at exit): nothing to label or restore.
                Err(_) => Label(None),
            },
        }
    }
}

impl Drop for Label {
    fn drop(&mut self) {
        if let Some(previous) = self.0.take() {
            let _ = LABEL.try_with(|l| *l.borrow_mut() = previous);
        }
    }
}

/// The label of the calling thread's current construct, for work recorded now and run later
/// on another thread (`None` when tracing is off).
pub fn label() -> Option<String> {
    if !enabled() {
        return None;
    }
    LABEL.try_with(|l| l.borrow().clone()).ok().flatten()
}

/// Starts recording a copy of `len` bytes on `device`.
pub fn transfer(device: usize, dir: Dir, len: usize) -> Option<Span> {
    let work = profile::Work::Copy {
        dir,
        bytes: len as u64,
    };
    span(device, "transfer", work, || {
        format!("{} {len} B", dir.name())
    })
}

/// A running operation; recorded (trace, profile) when dropped.
pub struct Span {
    name: String,
    cat: &'static str,
    device: usize,
    start: Instant,
    work: profile::Work,
}

/// Starts recording an operation on `device` (`None` when neither tracing nor profiling).
fn span(
    device: usize,
    cat: &'static str,
    work: profile::Work,
    name: impl FnOnce() -> String,
) -> Option<Span> {
    let tracing = tracer().is_some();
    if !tracing && !profile::enabled() && !time_trace::enabled() {
        return None;
    }
    let start = Instant::now();
    profile::op_begin(device, start);
    Some(Span {
        name: if tracing { name() } else { String::new() },
        cat,
        device,
        start,
        work,
    })
}

/// Starts recording a kernel on `device`.
pub fn kernel(device: usize, name: impl FnOnce() -> String) -> Option<Span> {
    span(device, "kernel", profile::Work::Kernel, name)
}

impl Drop for Span {
    fn drop(&mut self) {
        profile::op_end(self.device, self.start, self.work);
        let end = Instant::now();
        if time_trace::enabled() {
            let (name, bytes) = match self.work {
                Work::Kernel => ("Kernel Target", None),
                Work::Copy { dir, bytes } => (
                    match dir {
                        Dir::ToDevice => "HostToDev",
                        Dir::FromDevice => "DevToHost",
                        Dir::Within => "Spread: copy within device",
                        Dir::Peer => "Spread: peer copy",
                    },
                    Some(bytes),
                ),
            };
            let device = self.device;
            let detail = || match bytes {
                Some(b) => format!("Device={device};Size={b}B"),
                None => format!("Device={device}"),
            };
            time_trace::record(name, detail, self.start, end);
        }
        let Some(t) = tracer() else { return };
        let ts_us = self.start.duration_since(t.start).as_secs_f64() * 1e6;
        let dur_us = end.duration_since(self.start).as_secs_f64() * 1e6;
        let label = LABEL.try_with(|l| l.borrow().clone()).ok().flatten();
        let (kind, bytes) = match self.work {
            Work::Kernel => (0, 0),
            Work::Copy {
                dir: Dir::ToDevice,
                bytes,
            } => (1, bytes),
            Work::Copy {
                dir: Dir::FromDevice,
                bytes,
            } => (2, bytes),
            Work::Copy { bytes, .. } => (3, bytes),
        };
        t.events.lock().push(Event {
            name: std::mem::take(&mut self.name),
            cat: self.cat,
            kind,
            bytes,
            device: self.device,
            ts_us,
            dur_us,
            label,
        });
    }
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

/// Writes the trace file (at exit): an HTML page when its name ends in `.html`, Chrome trace
/// events otherwise; reports a failure on stderr.
pub fn flush() {
    let Some(t) = tracer() else { return };
    let text = if t.path.ends_with(".html") || t.path.ends_with(".htm") {
        html::render(&t.events.lock())
    } else {
        render(t)
    };
    if let Err(e) = std::fs::write(&t.path, text) {
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
            kind: 0,
            bytes: 0,
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

    /// The Chrome trace keeps every event, however many (the HTML page does not).
    #[test]
    fn chrome_trace_keeps_every_event() {
        let t = Tracer {
            path: String::new(),
            start: Instant::now(),
            events: Mutex::new(Vec::new()),
        };
        let n = 3 * html::MAX_DETAIL;
        t.events.lock().extend((0..n).map(|i| Event {
            name: "kernel".into(),
            cat: "kernel",
            kind: 0,
            bytes: 0,
            device: i % 4,
            ts_us: i as f64,
            dur_us: 0.5,
            label: None,
        }));
        assert_eq!(render(&t).matches("\"ph\":\"X\"").count(), n);
    }
}
