//! `SPREAD_TRACE=out.json`: a timeline of device work in Chrome's trace-event format (opens in
//! Perfetto or chrome://tracing), one track per device, one event per transfer and kernel,
//! labelled with the construct and chunk it belongs to.

use crate::profile::{self, Dir};
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
    if !enabled() || LABEL.with(|l| l.borrow().is_some()) {
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
            label => Label(Some(LABEL.with(|l| l.replace(label)))),
        }
    }
}

impl Drop for Label {
    fn drop(&mut self) {
        if let Some(previous) = self.0.take() {
            LABEL.with(|l| *l.borrow_mut() = previous);
        }
    }
}

/// The label of the calling thread's current construct, for work recorded now and run later
/// on another thread (`None` when tracing is off).
pub fn label() -> Option<String> {
    if !enabled() {
        return None;
    }
    LABEL.with(|l| l.borrow().clone())
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
    if !tracing && !profile::enabled() {
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

/// The trace as a self-contained HTML page: one row per device, one box per operation (kernels
/// blue, copies to a device green, from a device orange, others grey), its name, construct and
/// duration in a tooltip, a time axis in milliseconds. Opens in any browser; nothing to install.
fn render_html(t: &Tracer) -> String {
    let events = t.events.lock();
    let mut devices: Vec<usize> = events.iter().map(|e| e.device).collect();
    devices.sort_unstable();
    devices.dedup();
    let end_us = events
        .iter()
        .map(|e| e.ts_us + e.dur_us)
        .fold(0.0_f64, f64::max)
        .max(1.0);
    // About 1000 px for the whole run, at least 1 px per 10 us for short runs (scrolls).
    let width = 1000.0_f64.max(end_us / 10.0).min(200_000.0);
    let scale = width / end_us;
    let (row, label_w, top) = (28.0, 90.0, 30.0);
    let height = top + row * devices.len() as f64 + 10.0;
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Spread trace</title>\n\
<style>body{{font:13px sans-serif;margin:12px}}div.s{{overflow-x:auto;border:1px solid #ccc}}\
rect:hover{{stroke:#000;stroke-width:1}}.k{{fill:#4a7fd0}}.h{{fill:#3aa655}}.d{{fill:#e08a2c}}.o{{fill:#999}}</style>\n\
</head><body><h3>Spread trace: {} operations on {} devices over {:.3} ms</h3>\n\
<p>Rows are devices; boxes are operations (<span style=\"color:#4a7fd0\">kernels</span>, \
<span style=\"color:#3aa655\">copies to the device</span>, <span style=\"color:#e08a2c\">copies from it</span>, \
<span style=\"color:#999\">other copies</span>); hover for the operation, its construct and duration. \
Gaps in a row are the device's idle time.</p>\n<div class=\"s\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{:.0}\" height=\"{:.0}\">\n",
        events.len(),
        devices.len(),
        end_us / 1000.0,
        width + label_w + 20.0,
        height
    );
    // Time axis: about ten ticks.
    let step_ms = nice_step(end_us / 1000.0 / 10.0);
    let mut ms = 0.0;
    while ms * 1000.0 <= end_us {
        let x = label_w + ms * 1000.0 * scale;
        let _ = writeln!(
            o,
            "<line x1=\"{x:.1}\" y1=\"{:.0}\" x2=\"{x:.1}\" y2=\"{height:.0}\" stroke=\"#eee\"/>\
<text x=\"{x:.1}\" y=\"{:.0}\" font-size=\"11\">{} ms</text>",
            top - 5.0,
            top - 10.0,
            trim_float(ms)
        );
        ms += step_ms;
    }
    for (i, d) in devices.iter().enumerate() {
        let y = top + row * i as f64;
        let _ = writeln!(
            o,
            "<text x=\"4\" y=\"{:.0}\">device {d}</text>",
            y + row * 0.65
        );
    }
    for e in events.iter() {
        let i = devices.iter().position(|d| *d == e.device).unwrap_or(0);
        let y = top + row * i as f64 + 3.0;
        let class = match (e.cat, e.name.get(..3)) {
            ("kernel", _) => "k",
            (_, Some("H2D")) => "h",
            (_, Some("D2H")) => "d",
            _ => "o",
        };
        let what = match &e.label {
            Some(l) => format!("{} ({l})", e.name),
            None => e.name.clone(),
        };
        let _ = writeln!(
            o,
            "<rect class=\"{class}\" x=\"{:.2}\" y=\"{y:.0}\" width=\"{:.2}\" height=\"{:.0}\"><title>{}: {:.1} us at {:.3} ms</title></rect>",
            label_w + e.ts_us * scale,
            (e.dur_us * scale).max(0.5),
            row - 6.0,
            xml_escape(&what),
            e.dur_us,
            e.ts_us / 1000.0
        );
    }
    o.push_str("</svg></div></body></html>\n");
    o
}

/// A round step (1, 2 or 5 times a power of ten) near `x`.
fn nice_step(x: f64) -> f64 {
    if x <= 0.0 || !x.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(x.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= x)
        .unwrap_or(10.0 * p)
}

fn trim_float(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// Writes the trace file (at exit): an HTML page when its name ends in `.html`, Chrome trace
/// events otherwise; reports a failure on stderr.
pub fn flush() {
    let Some(t) = tracer() else { return };
    let text = if t.path.ends_with(".html") || t.path.ends_with(".htm") {
        render_html(t)
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
        let h = render_html(&t);
        assert!(h.contains("<rect class=\"k\""), "{h}");
        assert!(h.contains("kernel &quot;k&quot; (target spread a.c:3 chunk [0,4)): 2.0 us"));
        assert!(h.contains(">device 2</text>"));
        assert!(h.trim_end().ends_with("</html>"));
    }

    #[test]
    fn axis_steps_are_round() {
        assert_eq!(nice_step(0.3), 0.5);
        assert_eq!(nice_step(7.0), 10.0);
        assert_eq!(nice_step(12.0), 20.0);
        assert_eq!(trim_float(2.5), "2.5");
        assert_eq!(trim_float(3.0), "3");
    }
}
